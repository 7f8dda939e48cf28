"""The decoder's question beyond its two seats (session 35, wt35-neither): an answer naming a seat the question did
not offer ("someone else" on the page) is applied when a reading the decoder holds gives that seat the change, and
refused (the question kept, nothing stored) when none does; "don't know" dismisses the question — withdrawn for
every page, stored, kept over a restart — and the decoder's reading stands. Through the public tracker API."""
from __future__ import annotations

import pytest

from engine.errors import MalformedInput
from engine.observation import Observation, parse_observation
from tracking.decoded import ImpossibleAnswer, StaleQuestion
from tracking.store import EventStore
from tracking_helpers import make_tracker

#: four seats: south's turn is seen; then west, north and east each lay a card between two readings and the red 3
#: leaves its discard pile — west or north (the question's two seats) or, a little dearer, east took it; south's
#: turn ended with the red 3 still there (no reading gives it to south)
SEATS = {"south": "black", "west": "white", "north": "grey", "east": "brown"}
COLOURS = ("red", "yellow", "pink", "green", "blue")


def table(rows, tops):
    return parse_observation({
        "format": "keltis-observation/1", "game": "keltis-card", "board": None, "usable": True,
        "pawns": None, "tiles": None,
        "seats": {s: {"player": p, "rows": {c: list(rows.get(s, {}).get(c, [])) for c in COLOURS},
                      "points_row": 0, "wish": {}, "wish_cards": []} for s, p in SEATS.items()},
        "discard_tops": {p: tops.get(p) for p in (*COLOURS, "points")}})


def hand(seat):
    return Observation("keltis-card", None, False, "occluded", extra={"hands": [{"seat": seat}]})


def asked(store=None, **config):
    tracker = make_tracker(store, **config)
    tracker.new_game({"game": "keltis-card", "board": None, "seats": SEATS, "rules": {}})
    start = table({"south": {"red": ["2"]}}, {"red": "3"})
    laid = table({"south": {"red": ["2", "4"]}}, {"red": "3"})
    after = table({"south": {"red": ["2", "4"]}, "west": {"yellow": ["5"]}, "north": {"green": ["6"]},
                   "east": {"blue": ["7"]}}, {})
    frames = [start, start, hand("south"), laid, laid, hand("south"), laid, hand("west"), hand("west"),
              hand("north"), hand("north"), hand("east"), hand("east"), after, after, after]
    for i, obs in enumerate(frames):
        tracker.feed(obs, float(i), i)
    return tracker


def taker(snap):
    return [m["seat"] for m in snap["moves"] if "drew a red 3" in m["text"]]


def test_the_question_offers_its_two_seats_and_every_other_seat_of_the_game():
    q, = asked().snapshot()["questions"]
    assert (q["pile"], q["card"], q["kind"], q["id"]) == ("red", "3", "draw", 1)
    assert sorted(a["seat"] for a in q["answers"]) == ["north", "west"]
    assert [a["seat"] for a in q["others"]] == ["south", "east"]
    assert q["others"][1]["name"] == "east (brown)"


def test_an_answer_naming_a_seat_not_offered_is_applied_when_a_reading_gives_it_that_change():
    tracker = asked()
    assert taker(tracker.snapshot()) in (["west"], ["north"])
    after = tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "east", "question": 1})
    assert after["questions"] == [] and taker(after) == ["east"]
    assert [m["seat"] for m in after["moves"]] == ["south", "west", "north", "east"]


def test_an_answer_no_reading_allows_is_refused_naming_the_seat_and_the_question_stays():
    tracker = asked()
    before = tracker.snapshot()
    def stored():   # (the frames fed so far may be written: the re-decode reads them from the store)
        return [e.kind for e in tracker.store.events() if e.kind != "frames"]
    was = stored()
    with pytest.raises(ImpossibleAnswer) as refused:
        tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "south"})
    assert refused.value.field == "seat" and "south (black)" in str(refused.value)
    now = tracker.snapshot()
    assert now["questions"] == before["questions"] and now["moves"] == before["moves"]
    assert stored() == was
    # (the question still takes an answer)
    assert taker(tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "east"})) == ["east"]


def test_a_seat_outside_the_game_or_a_stale_question_is_refused_naming_the_field():
    tracker = make_tracker()
    tracker.new_game({"game": "keltis-card", "board": None, "seats": {"south": "black", "north": "grey"},
                      "rules": {}})
    with pytest.raises(MalformedInput) as outside:
        tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "east"})
    assert outside.value.field == "seat"
    tracker = asked()
    with pytest.raises(StaleQuestion) as stale:
        tracker.correct({"kind": "took", "pile": "red", "card": "4", "seat": "west"})
    assert stale.value.field == "card"
    with pytest.raises(StaleQuestion) as stale:
        tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "west", "question": 7})
    assert stale.value.field == "question"
    tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "west"})
    with pytest.raises(StaleQuestion):   # (answered: a second phone's tap comes too late)
        tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "north"})


def test_a_dismiss_withdraws_the_question_keeps_the_reading_and_a_restart_keeps_the_dismiss(tmp_path):
    db = tmp_path / "t.db"
    tracker = asked(EventStore(db))
    before = tracker.snapshot()
    after = tracker.dismiss_question({"pile": "red", "card": "3", "kind": "draw", "question": 1})
    assert after["questions"] == [] and after["moves"] == before["moves"]
    kinds = [e.kind for e in tracker.store.events()]
    assert kinds[-2:] == ["dismiss", "question"]      # stored, and every page told at once
    with pytest.raises(StaleQuestion):
        tracker.dismiss_question({"pile": "red", "card": "3", "kind": "draw"})
    with pytest.raises(MalformedInput) as bad:
        tracker.dismiss_question({"pile": "red", "card": "3", "kind": "steal"})
    assert bad.value.field == "kind"
    tracker.store.close()
    again = make_tracker(EventStore(db))
    snap = again.snapshot()
    assert again.resumed and snap["questions"] == [] and snap["moves"] == before["moves"]
    assert again.decoded.decoder.questions[0]["dismissed"] >= 0   # (the history keeps the question, dismissed)


def test_a_seat_no_held_reading_allows_re_decodes_the_stored_frames_with_the_answer_and_a_restart_agrees(tmp_path):
    """A beam of 2 holds only west's and north's readings: east's answer re-decodes the game's stored frames with
    it known from the first frame, where east's reading survives (decoder_answer_redecode; off: refused)."""
    tracker = asked(decoder_beam=2, decoder_answer_redecode=False)
    with pytest.raises(ImpossibleAnswer):
        tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "east"})
    db = tmp_path / "t.db"
    tracker = asked(EventStore(db), decoder_beam=2)
    after = tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "east", "question": 1})
    assert taker(after) == ["east"] and after["questions"] == []
    tracker.store.close()
    again = make_tracker(EventStore(db), decoder_beam=2)
    assert again.resumed and taker(again.snapshot()) == ["east"] and again.snapshot()["questions"] == []
    assert again.snapshot()["moves"] == after["moves"]


def red_three_again():
    """After asked(): south discards the other red 3 onto the empty red pile, then west and north both lay a card
    between two readings and the red 3 leaves again — the very same change of the pile as the first take (red 3 ->
    empty), within the commit lag of an answer to the first question."""
    rows = {"south": {"red": ["2", "4"]}, "west": {"yellow": ["5"]}, "north": {"green": ["6"]}, "east": {"blue": ["7"]}}
    later = {"south": {"red": ["2", "4"]}, "west": {"yellow": ["5", "8"]}, "north": {"green": ["6", "9"]},
             "east": {"blue": ["7"]}}
    three, taken = table(rows, {"red": "3"}), table(later, {})
    return [hand("south"), hand("south"), three, three, three, hand("west"), hand("west"), hand("north"),
            hand("north"), taken, taken, taken]


@pytest.mark.parametrize("second", ["west", "north", "dismiss"])
def test_the_red_3_taken_again_is_asked_again_decided_by_its_own_answer_and_a_restart_agrees(tmp_path, second):
    """The first take answered "north" (question 1); the red 3 comes back and is taken again, tied between west and
    north: question 2 about the same pile, card and kind is asked (decoder_answer_nth; off: the first answer blocked
    it and pinned the second take on north too). Its answer (or dismiss) settles that take alone: the first stays
    north's. Stored with their ids; a restart replays them in order onto the same questions, with the same moves."""
    db = tmp_path / "t.db"
    tracker = asked(EventStore(db))
    tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "north", "question": 1})
    for i, obs in enumerate(red_three_again(), start=16):
        tracker.feed(obs, float(i), i)
    q, = tracker.snapshot()["questions"]
    assert (q["id"], q["pile"], q["card"], q["kind"]) == (2, "red", "3", "draw")
    assert sorted(a["seat"] for a in q["answers"]) == ["north", "west"]
    if second == "dismiss":
        after = tracker.dismiss_question({"pile": "red", "card": "3", "kind": "draw", "question": 2})
        assert taker(after) == ["north", "west"]   # (the reading's own: west a little likelier, nothing priced)
    else:
        after = tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": second, "question": 2})
        assert taker(after) == ["north", second]
    assert after["questions"] == []
    stored = [(e.kind, e.payload.get("question", (e.payload.get("correction") or {}).get("question")))
              for e in tracker.store.events() if e.kind in ("correction", "dismiss")]
    assert stored == [("correction", 1), ("dismiss" if second == "dismiss" else "correction", 2)]
    tracker.store.close()
    again = make_tracker(EventStore(db))
    snap = again.snapshot()
    assert again.resumed and snap["questions"] == [] and snap["moves"] == after["moves"]
    assert [(x["id"], x.get("answered"), "dismissed" in x) for x in again.decoded.decoder.questions] == [
        (1, "north", False), (2, None if second == "dismiss" else second, second == "dismiss")]
    old = asked(decoder_answer_nth=False)
    old.correct({"kind": "took", "pile": "red", "card": "3", "seat": "north", "question": 1})
    for i, obs in enumerate(red_three_again(), start=16):
        old.feed(obs, float(i), i)
    assert old.snapshot()["questions"] == [] and taker(old.snapshot()) == ["north", "north"]


def test_an_answer_stored_without_its_number_still_names_every_change_of_its_card():
    """A re-decode seed stored before decoder_answer_nth (no "nth") is read as then: it names every take of the red 3
    (no later question about it); one with "nth" names that take alone."""
    tracker = asked()
    decoder = tracker.decoded.decoder
    seed = {"pile": "red", "card": "3", "kind": "draw", "seat": "east", "event": ["red", "3", None, "draw"],
            "frame": 15, "t": 15.0}
    decoder.seed_answer(seed)
    assert decoder._answered(("red", "3", "draw"), 1) and decoder._answered(("red", "3", "draw"), 2)
    numbered = asked().decoded.decoder
    numbered.seed_answer(dict(seed, nth=1))
    assert numbered._answered(("red", "3", "draw"), 1) and not numbered._answered(("red", "3", "draw"), 2)
