"""Corrections and undo (deliverable 6): they are events, scores recompute, misreads stop mattering."""
from __future__ import annotations

import pytest

from engine.errors import MalformedInput
from tracking.model import CorrectionError

from tracking_helpers import feed, game, make_tracker, row_misread

SIM = game("keltis", "base", 3, 111, max_moves=45)


def started():
    tracker = make_tracker()
    tracker.new_game(SIM.setup)
    feed(tracker, SIM, finish=False)
    return tracker


def totals(snap):
    return {s: p["total"] for s, p in snap["scores"]["scores"].items()}


def test_correct_a_row_recomputes_scores_and_is_an_event():
    sim = game("keltis-card", None, 2, 112, max_moves=30)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim, finish=False)
    snap = tracker.snapshot()
    seat = next(s for s, seat in snap["table"]["seats"].items() if seat["rows"])
    colour, row = next(iter(snap["table"]["seats"][seat]["rows"].items()))
    before = totals(snap)[seat]
    last = tracker.last_event_id
    after = tracker.correct({"kind": "row", "seat": seat, "colour": colour, "cards": row + [row[-1]] * 3})
    assert after["table"]["seats"][seat]["rows"][colour] == row + [row[-1]] * 3
    assert totals(after)[seat] != before                      # the card game scores rows by length
    kinds = [e.type for e in tracker.events(last) if e.type != "frames"]   # (frames fed before it, stored)
    assert kinds[0] == "correction" and "score" in kinds


def test_correction_fixes_a_persistent_misread_and_its_warning_is_withdrawn():
    """A card the camera keeps misreading: the player fixes it on the page; the fix holds while the
    camera keeps misreading, and the warning the misread caused is withdrawn."""
    tracker = make_tracker()
    tracker.new_game(SIM.setup)
    misread = row_misread(SIM)
    k, seat, colour, bad_value = misread.turn, misread.seat, misread.colour, misread.bad_value
    good_row = list(misread.good_row)

    for i, (t, obs) in enumerate(SIM.frames[:SIM.turns[k].frame + 20]):
        tracker.feed(misread(obs), t, i)
    snap = tracker.snapshot()
    assert snap["table"]["seats"][seat]["rows"][colour][len(good_row) - 1] == bad_value
    tracker.correct({"kind": "row", "seat": seat, "colour": colour, "cards": good_row})
    for i, (t, obs) in enumerate(SIM.frames[SIM.turns[k].frame + 20:], start=SIM.turns[k].frame + 20):
        tracker.feed(misread(obs), t, i)
    snap = tracker.snapshot()
    assert snap["table"]["seats"][seat]["rows"][colour][:len(good_row)] == good_row
    assert [w for w in snap["warnings"] if not w["withdrawn"]] == []
    clean = make_tracker()
    clean.new_game(SIM.setup)
    feed(clean, SIM, finish=False)
    assert totals(snap) == totals(clean.snapshot())


def test_set_a_pawn_and_a_tile():
    tracker = started()
    snap = tracker.snapshot()
    pawn = next(p for p in snap["table"]["pawns"] if p["big"] and p["stone"] != "start")
    before = totals(snap)
    board_next = "r9" if pawn["stone"] != "r9" else "b9"
    after = tracker.correct({"kind": "pawn", "player": pawn["player"], "big": True, "to": board_next})
    moved = [p for p in after["table"]["pawns"] if p["player"] == pawn["player"] and p["big"]]
    assert [p["stone"] for p in moved] == [board_next]
    seat = next(s for s, p in SIM.setup["seats"].items() if p == pawn["player"])
    assert totals(after)[seat] != before[seat]
    spot = next(s for s, code in after["table"]["tiles"].items() if code is not None)
    after = tracker.correct({"kind": "tile", "stone": spot, "tile": None})
    assert after["table"]["tiles"][spot] is None


def test_undo_the_last_move_recomputes_and_the_camera_reads_the_table_again():
    tracker = started()
    snap = tracker.snapshot()
    n = len(snap["moves"])
    last = tracker.last_event_id
    after = tracker.undo()
    assert len(after["moves"]) == n - 1
    assert after["score_history"] == snap["score_history"][:n]
    kinds = [e.type for e in tracker.events(last) if e.type != "frames"]   # (frames fed before it, stored)
    assert kinds[0] == "undo" and "move" in kinds
    # the table still shows the move: it does not come back by itself, the players are asked
    t, obs = SIM.frames[-1]
    for k in range(10):
        tracker.feed(obs, t + 1 + k * 0.2, len(SIM.frames) + k)
    held = tracker.snapshot()
    assert len(held["moves"]) == n - 1
    assert held["disputed"]["move"]["id"] == snap["moves"][-1]["id"] and held["disputed"]["seen"]
    # "keep the move": the table is read again and the move is back
    kept = tracker.resolve_disputed(keep=True)
    assert len(kept["moves"]) == n and kept["disputed"] is None
    assert kept["score_history"] == snap["score_history"]
    with pytest.raises(LookupError):
        make_tracker().undo()


def test_an_undone_move_taken_back_stays_undone():
    tracker = started()
    n = len(tracker.snapshot()["moves"])
    tracker.undo()
    t, obs = SIM.frames[-1]
    tracker.feed(obs, t + 1, len(SIM.frames))
    snap = tracker.resolve_disputed(keep=False)  # "I took it back"
    assert snap["disputed"] is None and len(snap["moves"]) == n - 1
    for k in range(10):  # the table still shows it for a moment while the cards go back: no move
        tracker.feed(obs, t + 2 + k * 0.2, len(SIM.frames) + 1 + k)
    assert len(tracker.snapshot()["moves"]) == n - 1
    with pytest.raises(LookupError):
        tracker.resolve_disputed(keep=True)


def test_declare_seats_names_and_the_end():
    tracker = started()
    seats = SIM.setup["seats"]
    swapped = dict(zip(seats, reversed(list(seats.values()))))
    snap = tracker.correct({"kind": "seats", "seats": swapped, "names": {list(seats)[0]: "Anna"}})
    assert snap["game"]["seats"] == swapped and snap["game"]["names"] == {list(seats)[0]: "Anna"}
    assert snap["moves"][0]["text"].startswith("Anna") or list(seats)[0] != snap["moves"][0]["seat"]
    snap = tracker.correct({"kind": "end", "reason": "draw-pile"})
    assert snap["game_over"] and snap["end_reason"] == "draw-pile" and snap["scores"]["final"]
    with pytest.raises(ValueError):
        tracker.correct({"kind": "end"})
    snap = tracker.correct({"kind": "end", "ended": False})
    assert not snap["game_over"]


def test_bad_corrections_are_refused_and_change_nothing():
    tracker = started()
    before = tracker.snapshot()
    for bad in ({"kind": "teleport"}, {"kind": "row", "seat": "south", "colour": "purple", "cards": []},
                {"kind": "pawn", "player": "black", "to": "nowhere"}, {"kind": "tile", "stone": "start"},
                {"kind": "seats", "seats": {"south": "black"}}, "not an object"):
        with pytest.raises((MalformedInput, CorrectionError)):
            tracker.correct(bad)  # type: ignore[arg-type]
    assert tracker.snapshot()["event_id"] == before["event_id"]


def test_a_restart_keeps_holding_an_undone_move_the_table_still_shows(tmp_path):
    """Undo's question to the players survives a restart (it is stored with the undo): the
    restarted tracker does not let the camera bring the undone move back."""
    from tracking.store import EventStore

    db = tmp_path / "tracking.db"
    tracker = make_tracker(EventStore(db))
    tracker.new_game(SIM.setup)
    feed(tracker, SIM, finish=False)
    n = len(tracker.snapshot()["moves"])
    undone_id = tracker.snapshot()["moves"][-1]["id"]
    tracker.undo()
    tracker.store.close()

    again = make_tracker(EventStore(db))
    assert len(again.snapshot()["moves"]) == n - 1
    t, obs = SIM.frames[-1]
    for k in range(10):  # the camera reads the table, which still shows the undone move
        again.feed(obs, t + 1 + k * 0.2, len(SIM.frames) + k)
    held = again.snapshot()
    assert len(held["moves"]) == n - 1
    assert held["disputed"]["move"]["id"] == undone_id and held["disputed"]["seen"]
    again.resolve_disputed(keep=False)  # "I took it back" is stored too
    again.store.close()

    third = make_tracker(EventStore(db))
    for k in range(10):
        third.feed(obs, t + 5 + k * 0.2, len(SIM.frames) + 20 + k)
    snap = third.snapshot()
    assert len(snap["moves"]) == n - 1 and snap["disputed"] is None
    third.store.close()
