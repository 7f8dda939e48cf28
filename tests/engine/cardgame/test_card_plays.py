"""Every play of RULES.md §3 Turn, legal and illegal, on hand-made positions."""
from __future__ import annotations

import pytest

from engine.cards import end, number, points
from engine.cardgame.game import (Discard, DiscardPair, Draw, Lay, apply_move, arrange, legal_moves, new_game)

TWO = {"south": "black", "north": "grey"}
THREE = {"south": "black", "west": "white", "north": "grey"}
R = lambda v: number("red", v)  # noqa: E731
B = lambda v: number("blue", v)  # noqa: E731
FILL = [number("green", v) for v in (0, 1, 2, 3, 4, 8, 9, 10)]


def position(hand, *, rows=None, seats=TWO, **kw):
    """South to play, holding `hand` (filled up to 8 with green cards that fit nowhere special)."""
    hand = list(hand) + FILL[: max(0, 8 - len(hand))]
    return arrange(new_game(seats, seed=2), hands={"south": hand}, rows={"south": rows or {}}, turn="south",
                   phase="play", **kw)


def codes(step):
    return [v.code for v in step.violations]


def lay(state, card, row=None):
    return apply_move(state, Lay("south", card, row or card.colour))


# --- discarding and drawing (RULES §3 Turn, first play; drawing)

def test_discard_one_card_then_draw_one_not_the_discarded_card():
    state = position([R(7), points(4)])
    step = apply_move(state, Discard("south", R(7)))
    assert not step.violations and step.state.phase == "draw" and step.state.turn == "south"
    assert step.state.pile_top("red") == R(7) and len(step.state.hand_of("south")) == 7
    assert step.events[0].text == "south discarded a red 7"
    assert Draw("south", "red") not in legal_moves(step.state)
    assert Draw("south", "pile") in legal_moves(step.state)
    again = apply_move(step.state, Draw("south", "red"))
    assert codes(again) == ["draw-own-discard"]
    assert again.violations[0].message == "south took back a red 7 discarded this turn"
    drawn = apply_move(step.state, Draw("south", "pile"))
    assert not drawn.violations and drawn.state.turn == "north" and drawn.state.phase == "play"
    assert len(drawn.state.hand_of("south")) == 8


def test_points_cards_have_their_own_discard_pile_and_any_top_may_be_drawn():
    """RULES §3 Turn: one discard pile per colour, one for points cards; draw pile or any discard top."""
    state = position([points(4)], piles={"blue": [B(2), B(9)]})
    step = apply_move(state, Discard("south", points(4)))
    assert step.state.pile_top("points") == points(4)
    took = apply_move(step.state, Draw("south", "blue"))
    assert not took.violations and B(9) in took.state.hand_of("south")
    assert took.state.pile_top("blue") == B(2)
    assert took.events[0].text == "south took a blue 9 from the blue discard pile"


def test_discard_a_pair_of_equal_value_takes_that_wish_card_and_draws_two():
    """RULES §3 Turn: two cards of the same value (any colours, points cards included) take that wish card."""
    state = position([R(5), points(5)])
    assert DiscardPair("south", (R(5), points(5)), 5) in legal_moves(state)
    step = apply_move(state, DiscardPair("south", (R(5), points(5)), 5))
    assert not step.violations
    assert step.events[0].text == "south discarded two 5s and took the wish card 5"
    after = step.state
    assert after.wish_cards_of("south") == (5,) and 5 not in after.wish_middle
    assert after.pile_top("red") == R(5) and after.pile_top("points") == points(5)
    assert not {Draw("south", "red"), Draw("south", "points")} & set(legal_moves(after))
    first = apply_move(after, Draw("south", "pile")).state
    assert first.turn == "south" and first.phase == "draw"
    second = apply_move(first, Draw("south", "pile")).state
    assert second.turn == "north" and len(second.hand_of("south")) == 8


def test_pairs_of_0_or_10_and_taken_wish_cards_are_not_offered():
    state = position([R(0), points(0), R(10), points(10), R(4), B(4)], wish_cards={"north": [4]})
    pairs = [m for m in legal_moves(state) if isinstance(m, DiscardPair)]
    assert pairs == []
    step = apply_move(state, DiscardPair("south", (R(4), B(4)), 4))
    assert codes(step) == ["no-wish-card"]
    assert step.violations[0].message == "the wish card 4 is no longer in the middle (north has it)"
    assert step.state.wish_cards_of("south") == ()


def test_a_pair_must_match_in_value():
    state = position([R(5), points(6)])
    step = apply_move(state, DiscardPair("south", (R(5), points(6)), 5))
    assert codes(step) == ["pair-mismatch"]
    assert "a red 5 and the points card 6" in step.violations[0].message
    state = position([R(5), points(5)])
    assert codes(apply_move(state, DiscardPair("south", (R(5), points(5)), 6))) == ["pair-mismatch"]


# --- laying coloured cards (RULES §3 Turn, third play)

def test_first_card_is_free_and_the_next_different_value_fixes_the_direction():
    state = position([R(3), R(5), R(4)], rows={"red": [R(6)]})
    assert not lay(state, R(3)).violations  # 6 → 3: descending from now on
    row = position([R(4)], rows={"red": [R(6), R(3)]})
    step = lay(row, R(4))
    assert codes(step) == ["row-order"]
    assert step.violations[0].message == "red row is descending (6, 3): a 4 cannot follow"
    fresh = position([B(9)])
    step = lay(fresh, B(9))
    assert not step.violations and step.events[0].text == "south laid a blue 9 (blue row, 1 card)"


def test_equal_values_are_allowed_in_either_direction():
    state = position([R(5)], rows={"red": [R(3), R(5)]})
    step = lay(state, R(5))
    assert not step.violations
    assert step.events[0].text == "south laid a red 5 (red row ascending, 3 cards)"
    assert not lay(position([R(5)], rows={"red": [R(5)]}), R(5)).violations


@pytest.mark.parametrize("row, card", [([8, 10], 9), ([8, 10], 0), ([4, 0], 3), ([4, 0], 10), ([2, 5, 10, 7, 0], 1)])
def test_a_row_turns_round_at_a_limit_card(row, card):
    """RULES §3 Turn: when a row reaches a limit card (0 or 10) its direction turns round [both editions]."""
    state = position([R(card)], rows={"red": [R(v) for v in row]})
    assert Lay("south", R(card), "red") in legal_moves(state)
    assert not lay(state, R(card)).violations


def test_a_limit_card_as_the_first_card_turns_nothing():
    """A row starting with 0 has not reached its limit going down: 0 then 3 is ascending, so 2 is out."""
    state = position([R(2)], rows={"red": [R(0), R(3)]})
    assert codes(lay(state, R(2))) == ["row-order"]


def test_a_card_of_another_colour_is_wrong_colour():
    state = position([B(4)], rows={"red": [R(3)]})
    assert codes(lay(state, B(4), "red")) == ["wrong-colour"]


# --- end cards (RULES §3 Turn)

def test_an_end_card_fits_whatever_the_last_card_then_only_the_second_end_card():
    state = position([end("red"), R(9)], rows={"red": [R(3), R(7)]})
    step = lay(state, end("red"))
    assert not step.violations
    assert step.events[0].text == "south laid a red end card (red row ended, 3 cards)"
    after = position([R(9)], rows={"red": [R(3), R(7), end("red")]})
    step = lay(after, R(9))
    assert codes(step) == ["row-ended"]
    assert step.violations[0].message == "after the red end card only the second end card may follow, not a 9"
    assert Lay("south", R(9), "red") not in legal_moves(after)


def test_the_second_end_card_closes_the_row():
    state = position([end("red")], rows={"red": [R(3), end("red")]})
    step = lay(state, end("red"))
    assert not step.violations
    assert step.events[0].text == "south laid the second red end card: the red row is closed (3 cards)"
    closed = position([points(3)], rows={"red": [R(3), end("red"), end("red")]})
    step = lay(closed, points(3), "red")
    assert codes(step) == ["row-closed"]
    assert step.violations[0].message == "the red row was closed by its second end card"


def test_an_end_card_may_start_a_row():
    assert not lay(position([end("pink")]), end("pink")).violations


# --- points cards (RULES §3 Turn, fourth play)

def test_points_card_on_a_row_whose_last_card_has_its_value_or_in_the_points_row():
    state = position([points(7), points(2)], rows={"red": [R(3), R(7)], "blue": [B(2)]})
    moves = legal_moves(state)
    assert Lay("south", points(7), "red") in moves and Lay("south", points(7), "blue") not in moves
    assert Lay("south", points(2), "blue") in moves and Lay("south", points(2), "points") in moves
    step = lay(state, points(7), "red")
    assert not step.violations
    assert step.state.row_of("south", "red") == (R(3), R(7), points(7))
    step = lay(state, points(7), "blue")
    assert codes(step) == ["points-card-mismatch"]
    assert step.violations[0].message == "a points card 7 can only follow a 7, but the blue row ends with a 2"
    row = lay(state, points(2), "points")
    assert not row.violations and row.state.points_row_of("south") == (points(2),)
    assert row.events[0].text == "south laid the points card 2 in the points row (1 card)"


def test_a_points_card_counts_as_a_card_of_its_row_and_keeps_the_direction():
    state = position([R(8)], rows={"red": [R(3), R(7), points(7)]})
    assert not lay(state, R(8)).violations
    state = position([R(6)], rows={"red": [R(3), R(7), points(7)]})
    assert codes(lay(state, R(6))) == ["row-order"]


def test_a_points_card_cannot_start_a_row():
    assert codes(lay(position([points(4)]), points(4), "red")) == ["points-card-mismatch"]


# --- order of steps and turns

def test_a_second_card_in_one_turn_is_two_cards():
    state = position([R(3), R(4)])
    step = apply_move(lay(state, R(3)).state, Lay("south", R(4), "red"))
    assert codes(step) == ["two-cards"]
    # the turn still needs two draws to refill the hand
    after = step.state
    after = apply_move(after, Draw("south", "pile")).state
    assert after.turn == "south"
    assert apply_move(after, Draw("south", "pile")).state.turn == "north"


def test_playing_out_of_turn_and_drawing_before_playing():
    state = position([R(3)])
    other = state.hand_of("north")[0]
    step = apply_move(state, Discard("north", other))
    assert codes(step) == ["out-of-turn"]
    assert step.violations[0].message == "it is south's turn, not north's"
    assert step.state.turn == "south"
    early = apply_move(state, Draw("south", "pile"))
    assert codes(early) == ["draw-count"]
    assert early.violations[0].message == "south drew before playing a card"
    # having drawn first, south plays one card and the turn passes without a draw
    assert apply_move(early.state, Discard("south", R(3))).state.turn == "north"


def test_next_player_playing_before_the_draw_means_the_draw_was_skipped():
    state = lay(position([R(3)], seats=THREE), R(3)).state
    step = apply_move(state, Discard("west", state.hand_of("west")[0]))
    assert codes(step) == ["draw-count"]
    assert step.violations[0].seat == "south"
    assert step.state.turn == "west" and step.state.phase == "draw"
    assert codes(apply_move(state, Discard("north", state.hand_of("north")[0]))) == ["out-of-turn"]


def test_state_ids_increase_by_one_per_move():
    state = position([R(3)])
    one = lay(state, R(3)).state
    assert one.id == state.id + 1
    assert apply_move(one, Draw("south", "pile")).state.id == state.id + 2


def test_every_legal_move_is_free_of_violations():
    state = position([R(5), points(5), end("red"), points(3), B(4), B(4)],
                     rows={"red": [R(2), R(5)], "blue": [B(8), B(4)]}, piles={"blue": [B(3)]})
    moves = legal_moves(state)
    assert len(moves) > 10
    for move in moves:
        step = apply_move(state, move)
        assert not step.violations, (move, step.violations)
        assert step.events
        for m in legal_moves(step.state):
            assert not apply_move(step.state, m).violations, m
