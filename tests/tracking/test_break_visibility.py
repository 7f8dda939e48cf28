"""Which injected rule breaks a camera can see (bench/tracking_sessions.py break_hidden, session 25): the
benches' "visible breaks flagged" counts apart a play by the next seat while the seat before still owed
its draw, a second card covered within one reading, and takes "out-of-turn" and "two-cards" alike for a
second play by the seat whose turn just ended when its draw between was not seen."""
from __future__ import annotations

import sys

from tracking_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
from tracking_sessions import break_hidden, same_to_a_camera  # noqa: E402

SEATS = {"south": "black", "west": "grey", "north": "white"}
SHOWN = {"seat": "x", "lays": [], "steps": [], "row_discards": [], "piles": ["yellow:2>1"], "wish_cards": []}


def stream(events, tops=None, game="keltis"):
    """A truth stream: `tops[i]` the discard tops frame i shows (every frame usable)."""
    tops = tops or [{}] * 10
    return {"setup": {"game": game, "board": "nwnz" if game == "keltis" else None, "seats": dict(SEATS)},
            "frames": [(float(i), {"usable": True, "discard_tops": t}) for i, t in enumerate(tops)],
            "events": events}


def ev(seat, frame, injected=None, **move):
    line = {"seat": seat, "frame": frame, "move": {"seat": seat, **move}}
    if injected:
        line.update(injected=True, expected_code=injected)
    return line


def test_a_discard_by_the_next_seat_before_the_last_seat_drew_is_a_skipped_draw():
    # south laid and never drew; west's discard reads as south drawing from the draw pile, then west's turn
    events = [ev("south", 2, move="lay", colour="pink", value=3, pawn=1, to="h2"),
              ev("west", 5, "out-of-turn", move="discard", colour="yellow", value=1),
              ev("west", 7, move="draw", **{"from": "pile"})]
    assert break_hidden(stream(events), 1, SHOWN, 1, events[1:]) == "a skipped draw"
    # the seat after next skipped a whole turn: that shows
    events[1] = {**events[1], "seat": "north", "move": {**events[1]["move"], "seat": "north"}}
    assert break_hidden(stream(events), 1, SHOWN, 1, events[1:2]) is None


def test_a_card_game_pair_onto_one_pile_for_no_wish_card_reads_as_one_discard():
    events = [ev("north", 2, move="lay", card="blue 7", row="blue"),
              ev("north", 3, move="draw", **{"from": "pile"}),
              ev("south", 6, "no-wish-card", move="discard-pair", cards=["green 3", "green 3"], wish=3)]
    assert break_hidden(stream(events, game="keltis-card"), 2, SHOWN, 2, events[2:]) == "covered unseen"


def test_a_second_discard_onto_the_same_pile_in_the_same_reading_is_covered_unseen():
    events = [ev("north", 6, move="discard", colour="yellow", value=8),
              ev("north", 6, "two-cards", move="discard", colour="yellow", value=4)]
    assert break_hidden(stream(events), 1, SHOWN, 0, events) == "covered unseen"
    events[0] = {**events[0], "frame": 4}      # the 8 was read before the 4 covered it: two cards seen
    assert break_hidden(stream(events), 1, SHOWN, 0, events) is None


def test_a_second_play_around_an_unseen_draw_takes_out_of_turn_or_two_cards():
    events = [ev("west", 2, move="lay", colour="red", value=10, pawn=3, to="d1"),
              ev("west", 5, move="draw", **{"from": "pile"}),
              ev("west", 5, "out-of-turn", move="discard", colour="red", value=9)]
    assert same_to_a_camera(stream(events), 2) == {"two-cards"}
    # a draw off a discard pile shown in a reading before the play: the order is seen, the code is strict
    tops = [{"green": 6}] * 3 + [{"green": 2}] * 7
    events[1] = ev("west", 3, move="draw", **{"from": "green"})
    assert same_to_a_camera(stream(events, tops), 2) == set()
    # another seat's play: no other code
    assert same_to_a_camera(stream([events[0], {**events[2], "seat": "north"}]), 1) == set()
