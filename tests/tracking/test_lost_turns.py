"""Turns the decoder lost with no misread at all (issue 17 item 2; docs/tracking.md "Session 37 (wt37-lost)"), through
the public tracker API: a reach that left the table as it was is a card onto its twin where a pile's top has a copy
unseen; a card covered within one interval and uncovered later by a draw is that draw."""
from __future__ import annotations

from engine.observation import parse_observation
from tracking_helpers import card_hand as hand, card_table, make_tracker

def table(seats, rows=None, tops=None):
    """A card-game table: rows {seat: {colour: [codes]}}, discard tops {pile: code}."""
    return card_table(seats, rows, tops)


def tracked(seats, frames, period=1.0, **config):
    """(seat, pile changes, cards laid) per decoded turn, and the warnings, after feeding `frames` `period` s apart."""
    tracker = make_tracker(None, **config)
    tracker.new_game({"game": "keltis-card", "seats": dict(seats)})
    for i, frame in enumerate(frames):
        tracker.feed(parse_observation(frame) if isinstance(frame, dict) else frame, i * period, i)
    tracker.finish()
    turns = [(t.seat, sorted((tp.pile, tp.old, tp.new) for tp in t.tops)) for t in tracker.decoded.model.turns]
    warnings = [(w["seat"], w["code"]) for w in tracker.snapshot()["warnings"] if not w["withdrawn"]]
    return turns, warnings


TWO = {"south": "black", "north": "white"}


def _two_quiet_reaches(rows):
    """Two players at one settled state a second (NWNZ 2 players, `sim session` seed 85320 at 1 fps, frames 480-530,
    as a card game): south discards the red 3 (onto the red 5) and draws; north's reach leaves the table as it was
    (the other red 3 onto it, a draw from the draw pile); south discards the blue 4; north's reach again leaves
    the table as it was (the other blue 4 onto it); south discards the yellow 8; north the pink 1."""
    a, b = table(TWO, rows, {"red": "5"}), table(TWO, rows, {"red": "3"})
    c = table(TWO, rows, {"red": "3", "blue": "4"})
    d = table(TWO, rows, {"red": "3", "blue": "4", "yellow": "8"})
    e = table(TWO, rows, {"red": "3", "blue": "4", "yellow": "8", "pink": "1"})
    s, n = hand("south"), hand("north")
    return [a, a, a, s, s, b, s, b, b, b, n, n, b, b, s, s, c, s, c, c, c, c, n, n, c, s, s, d, s, d, d, d,
            n, n, e, n, e, e, e, s, s, e, e, e]


def test_a_reach_that_left_the_table_as_it_was_is_the_next_players_card_onto_its_twin_while_one_is_unseen():
    """In a two-player game turn order names the seat: north's two quiet reaches are its turns (each card onto its
    twin, the red 3's and the blue 4's other copies never seen), so south discarded the blue 4. With the quiet reach
    priced 6.0 whatever the piles show (as before decoder_traceless_twin), two traceless turns cost more than
    south's hands read as north's: the blue 4 was given to north."""
    rows = {"south": {"green": ["2"]}, "north": {"yellow": ["6"]}}
    turns, warnings = tracked(TWO, _two_quiet_reaches(rows))
    assert turns == [("south", [("red", "5", "3")]), ("north", []), ("south", [("blue", None, "4")]), ("north", []),
                     ("south", [("yellow", None, "8")]), ("north", [("pink", None, "1")])]
    assert warnings == []
    before, _ = tracked(TWO, _two_quiet_reaches(rows), decoder_traceless_twin=6.0)
    assert ("north", [("blue", None, "4")]) in before


def test_where_no_pile_top_has_a_copy_unseen_the_quiet_reach_is_priced_as_before():
    """The same frames with both red 3s and both blue 4s in view (rows hold the other copies): no card can have
    gone onto its twin, the quiet reach keeps decoder_traceless_reach, and the reading is the one it was."""
    rows = {"south": {"red": ["3"], "green": ["2"]}, "north": {"blue": ["4"], "yellow": ["6"]}}
    assert tracked(TWO, _two_quiet_reaches(rows)) == tracked(TWO, _two_quiet_reaches(rows), decoder_traceless_twin=6.0)


THREE = {"south": "black", "west": "white", "north": "grey"}


def _covered(rows):
    """Every 2 s: south discards the red 5 onto the empty red pile; west and north both reach between two readings —
    west discards the red 3 onto the red 5, north the red 7 onto it (the red 3 never seen) —; south lays a green 4;
    west lays a yellow 5 and takes the red 7 back from the pile, uncovering the red 3; north lays a blue 6; south a
    green 5. `rows`: the rows after each of the five lays (and before)."""
    empty, five, seven = table(THREE, rows[0], {}), table(THREE, rows[0], {"red": "5"}), table(THREE, rows[0], {"red": "7"})
    laid, taken = table(THREE, rows[1], {"red": "7"}), table(THREE, rows[2], {"red": "3"})
    north, south = table(THREE, rows[3], {"red": "3"}), table(THREE, rows[4], {"red": "3"})
    return [empty, empty, hand("south"), five, five, hand("west"), hand("north"), seven, seven, hand("south"), laid,
            laid, hand("west"), taken, taken, hand("north"), north, north, hand("south"), south, south]


def test_a_card_covered_within_one_interval_and_uncovered_by_a_draw_is_that_draw_not_a_discard():
    """The pile's record says the red 5 lies under the red 7 (no frame showed the red 3); when the red 7 leaves and
    the red 3 shows, that is west's draw uncovering a card the record never saw (decoder_covered_below), so west's
    turn is a lay and a draw: no warning. Without it (0) the red 3 can only be a card discarded onto the red 7:
    west laid and discarded, a two-cards warning on a legal game."""
    rows = [{"south": {"green": ["2"]}, "west": {"yellow": ["4"]}, "north": {"blue": ["5"]}}]
    rows.append({**rows[0], "south": {"green": ["2", "4"]}})
    rows.append({**rows[1], "west": {"yellow": ["4", "5"]}})
    rows.append({**rows[2], "north": {"blue": ["5", "6"]}})
    rows.append({**rows[3], "south": {"green": ["2", "4", "5"]}})
    turns, warnings = tracked(THREE, _covered(rows), period=2.0)
    assert warnings == []
    assert [seat for seat, _ in turns] == ["south", "west", "north", "south", "west", "north", "south"]
    assert turns[4] == ("west", [("red", "7", "3")])
    _, before = tracked(THREE, _covered(rows), period=2.0, decoder_covered_below=0.0)
    assert before == [("west", "two-cards")]
