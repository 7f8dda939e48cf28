"""Scenario tests of the base board rules, one rule each (RULES §1)."""
from __future__ import annotations

import pytest
from bg_builders import SEATS2, SEATS3, base_game, card, codes

from engine.boardgame.game import (CloverStep, Discard, Draw, LayCard, SkipClover, apply_move, legal_moves,
                                   score)


def lay(state, text, pawn, to, seat="south", **kw):
    return apply_move(state, LayCard(seat, card(text), pawn, to, **kw))


# ---- card rows (RULES §1 Card rows) -----------------------------------------------------------
def test_row_descending_refuses_a_higher_card():
    """RULES §1 Card rows: after 9, 7 the row is descending: an 8 cannot follow."""
    state = base_game(hands={"south": ["blue 8", "blue 7", "red 1"]}, rows={"south": {"blue": [9, 7]}},
                      pawns={"south": ["b2"]})
    t = lay(state, "blue 8", 0, "b3")
    assert codes(t) == ["row-order"]
    assert t.violations[0].message == "blue row is descending (9, 7): an 8 cannot follow"
    assert t.state.row("south", "blue") == (card("blue 9"), card("blue 7"), card("blue 8"))  # applied anyway
    assert t.state.pawn_stones("south")[0] == "b3"


def test_row_equal_values_allowed_both_directions():
    """RULES §1 Card rows: each card is equal or higher (ascending) or equal or lower (descending)."""
    state = base_game(hands={"south": ["blue 7", "red 5"]}, rows={"south": {"blue": [9, 7], "red": [3, 5]}},
                      pawns={"south": ["b2", "r2"]})
    assert lay(state, "blue 7", 0, "b3").legal
    assert lay(state, "red 5", 1, "r3").legal


def test_row_ascending_refuses_a_lower_card_and_legal_moves_agree():
    """RULES §1 Card rows: the second different value fixes the direction (here ascending)."""
    state = base_game(hands={"south": ["red 4", "red 6"]}, rows={"south": {"red": [3, 5]}}, pawns={"south": ["r2"]})
    t = lay(state, "red 4", 0, "r3")
    assert codes(t) == ["row-order"] and "ascending (3, 5): a 4 cannot follow" in t.violations[0].message
    laid = {m.card for m in legal_moves(state) if isinstance(m, LayCard)}
    assert laid == {card("red 6")}


def test_row_undecided_until_a_different_value():
    """RULES §1 Card rows: equal first cards do not fix a direction; either way stays open."""
    state = base_game(hands={"south": ["green 2", "green 9"]}, rows={"south": {"green": [5, 5]}},
                      pawns={"south": ["g2"]})
    assert lay(state, "green 2", 0, "g3").legal
    assert lay(state, "green 9", 0, "g3").legal


# ---- pawns and paths (RULES §1 Turn) --------------------------------------------------------------
def test_first_card_brings_big_or_small_pawn():
    """RULES §1 Turn: the first card of a colour brings a pawn onto that path; the player chooses big or small."""
    state = base_game(hands={"south": ["blue 7"]})
    options = {(m.pawn, m.to) for m in legal_moves(state) if isinstance(m, LayCard)}
    assert options == {(0, "b1"), (1, "b1")}
    t = lay(state, "blue 7", 0, "b1")
    assert t.legal
    assert t.events[0].text == "black laid a blue 7 and moved the big pawn to blue -4 (b1)"
    t = lay(state, "blue 7", 1, "b1")
    assert t.legal and t.state.pawn_stones("south") == ("start", "b1", "start", "start", "start")


def test_one_pawn_per_path():
    """RULES §1 Turn: a player has at most one pawn per path; further cards move that pawn."""
    state = base_game(hands={"south": ["blue 7", "blue 8"]}, rows={"south": {"blue": [6]}},
                      pawns={"south": ["start", "b1"]})
    options = {(m.pawn, m.to) for m in legal_moves(state) if isinstance(m, LayCard)}
    assert options == {(1, "b2")}
    t = lay(state, "blue 7", 0, "b1")
    assert codes(t) == ["second-pawn-on-path"]
    assert "already has a pawn on the blue path" in t.violations[0].message


def test_other_players_share_a_path():
    """RULES §1: the one-pawn limit is per player: another player's pawn on the path does not matter."""
    state = base_game(hands={"south": ["blue 7"]}, pawns={"north": ["b1"]})
    assert lay(state, "blue 7", 1, "b1").legal


def test_two_steps_and_jumps_are_flagged():
    """RULES §1 Turn: a card moves a pawn one stone forward, on its own path."""
    state = base_game(hands={"south": ["blue 7"]}, pawns={"south": ["b2"]})
    t = lay(state, "blue 7", 0, "b4")
    assert codes(t) == ["two-steps"] and "2 stones" in t.violations[0].message
    assert codes(lay(state, "blue 7", 0, "b1")) == ["pawn-backwards"]
    assert "pawn-not-adjacent" in codes(lay(state, "blue 7", 0, "r3"))


def test_wrong_colour_card_on_a_path():
    """RULES §1 Turn: the card's colour is the path the pawn moves on."""
    state = base_game(hands={"south": ["red 7"]}, pawns={"south": ["b2", "r1"]})
    t = lay(state, "red 7", 0, "b3")
    assert codes(t) == ["wrong-colour"]


def test_lay_without_moving_a_pawn():
    """RULES §1 Turn: laying a card and moving a pawn go together."""
    state = base_game(hands={"south": ["red 7"]})
    assert codes(apply_move(state, LayCard("south", card("red 7"), None, None))) == ["pawn-not-moved"]
    blocked = base_game(hands={"south": ["red 7"]}, pawns={"south": ["r9", "b9", "y9", "g9", "p9"]})
    assert legal_moves(blocked) == [Discard("south", card("red 7"))]
    assert codes(apply_move(blocked, LayCard("south", card("red 7"), None, None))) == ["no-pawn-to-move"]


# ---- end-stone overflow (RULES §1, seed) --------------------------------------------------------
def test_end_stone_overflow_moves_another_pawn_on_a_path():
    """RULES §1: a pawn on its end stone lets further cards of that colour move another pawn one stone."""
    state = base_game(hands={"south": ["blue 9"]}, rows={"south": {"blue": [1, 2, 3, 4, 5, 6, 7, 8, 8]}},
                      pawns={"south": ["b9", "r3", "g8"]})
    options = {(m.pawn, m.to) for m in legal_moves(state) if isinstance(m, LayCard)}
    assert options == {(1, "r4"), (2, "g9")}  # pawns on the start do not qualify
    t = lay(state, "blue 9", 1, "r4")
    assert t.legal and t.state.row("south", "blue")[-1] == card("blue 9")
    t = lay(state, "blue 9", 3, "r1")
    assert codes(t) == ["end-stone-overflow"]


# ---- tiles (RULES §1 Tiles) ----------------------------------------------------------------------
def test_points_tile_scores_at_once_stays_and_is_not_doubled():
    """RULES §1 Tiles: a points tile scores its value at once and stays; the big pawn does not double it."""
    state = base_game(hands={"south": ["green 5"]}, tiles={"g1": "points-3"})
    t = lay(state, "green 5", 0, "g1")
    assert t.legal and t.state.points_of("south") == 3
    assert t.state.tiles_on_board()["g1"] == "points-3"
    assert "scored 3 points" in t.events[1].text
    parts = score(t.state).scores["south"].parts
    assert [p.points for p in parts if p.category == "tiles"] == [3]


def test_points_tile_scores_for_every_player_landing_there():
    """RULES §1 Tiles: the points tile stays, so the next player landing there scores it too."""
    state = base_game(hands={"south": ["green 5"], "north": ["green 6"]}, tiles={"g1": "points-2"},
                      pawns={"south": ["g1"]}, turn="north", draw_pile=["green 1"] * 10)
    t = lay(state, "green 6", 0, "g1", seat="north")
    assert t.legal and t.state.points_of("north") == 2 and t.state.points_of("south") == 0


def test_wish_tile_is_taken():
    """RULES §1 Tiles: a wish stone is taken by the player who lands there and kept (colour "any")."""
    state = base_game(hands={"south": ["green 5"]}, tiles={"g1": "wish-any"})
    t = lay(state, "green 5", 0, "g1")
    assert t.legal and t.state.wish_held("south") == {"any": 1}
    assert t.state.tiles_on_board()["g1"] is None
    assert "black took a wish stone" in t.events[1].text


def test_wish_tile_left_on_the_board_is_flagged():
    """RULES §1 Tiles: leaving the wish stone is a rule break (the tile stays, nothing is credited)."""
    state = base_game(hands={"south": ["green 5"]}, tiles={"g1": "wish-any"})
    t = lay(state, "green 5", 0, "g1", take=False)
    assert codes(t) == ["tile-not-taken"]
    assert t.state.wish_held("south") == {} and t.state.tiles_on_board()["g1"] == "wish-any"


def test_clover_is_optional_on_the_base_board_and_chains():
    """RULES §1 Tiles: a clover lets the player move one pawn one more stone (the same pawn allowed);
    a tile where it lands acts too; the clover stays."""
    state = base_game(hands={"south": ["green 5", "red 3"]}, pawns={"south": ["g3", "r1"]},
                      tiles={"g4": "clover", "g5": "clover", "r2": "points-2"})
    t = lay(state, "green 5", 0, "g4")
    assert t.state.phase == "clover"
    options = set(legal_moves(t.state))
    assert options == {CloverStep("south", 0, "g5"), CloverStep("south", 1, "r2"), SkipClover("south")}
    t2 = apply_move(t.state, CloverStep("south", 0, "g5"))
    assert t2.legal and t2.state.phase == "clover"  # the same pawn landed on a second clover: chain
    t3 = apply_move(t2.state, CloverStep("south", 1, "r2"))
    assert t3.legal and t3.state.points_of("south") == 2 and t3.state.phase == "draw"
    assert t3.state.tiles_on_board()["g4"] == "clover" and t3.state.tiles_on_board()["g5"] == "clover"
    skipped = apply_move(t.state, SkipClover("south"))
    assert skipped.legal and skipped.state.phase == "draw"


def test_clover_with_no_pawn_able_to_move_lapses():
    """RULES §1 Tiles: the clover step needs a pawn on a path that can still move."""
    state = base_game(hands={"south": ["green 5"]}, pawns={"south": ["g8"]}, tiles={"g9": "clover"})
    t = lay(state, "green 5", 0, "g9")
    assert t.legal and t.state.phase == "draw"
    assert t.events[-1].kind == "clover-unusable"


def test_clover_cannot_bring_a_pawn_from_the_start():
    """Decision (rules.py docstring, RULES §1): a clover moves a pawn already on a path."""
    state = base_game(hands={"south": ["green 5"]}, tiles={"g1": "clover"})
    t = lay(state, "green 5", 0, "g1")
    assert t.state.phase == "clover"
    assert CloverStep("south", 1, "r1") not in legal_moves(t.state)
    assert "no-card" in codes(apply_move(t.state, CloverStep("south", 1, "r1")))


def test_clover_step_without_clover_is_flagged():
    """RULES §1 Turn: a pawn moves only with a card (or a clover)."""
    state = base_game(hands={"south": ["green 5"]}, pawns={"south": ["g1"]})
    t = apply_move(state, CloverStep("south", 0, "g2"))
    assert codes(t) == ["no-card"]


# ---- discard and draw (RULES §1 Turn) -------------------------------------------------------------
def test_discard_then_draw_and_never_the_own_discard():
    """RULES §1 Turn: discard face up on its colour's pile; draw the top of the draw pile or of any discard
    pile, but not the card discarded this turn."""
    state = base_game(hands={"south": ["blue 5", "red 1"] + ["green 2"] * 6}, discards={"red": [4]},
                      draw_pile=["pink 1", "pink 2"])
    t = apply_move(state, Discard("south", card("blue 5")))
    assert t.legal and t.state.discard_top("blue") == card("blue 5") and t.state.phase == "draw"
    assert t.state.discarded_this_turn == (card("blue 5"),)
    assert set(legal_moves(t.state)) == {Draw("south", "pile"), Draw("south", "red")}
    back = apply_move(t.state, Draw("south", "blue"))
    assert codes(back) == ["draw-own-discard"]
    ok = apply_move(t.state, Draw("south", "red"))
    assert ok.legal and card("red 4") in ok.state.hand("south")
    assert ok.state.turn == "north" and ok.state.phase == "play"  # hand back to 8: the turn passes
    assert "black took a red 4 from the red discard pile" == ok.events[0].text


def test_drawn_card_from_pile_is_not_revealed():
    """The move history is public: a card drawn from the draw pile is not named."""
    state = base_game(hands={"south": ["blue 5"] * 8}, draw_pile=["pink 1", "pink 9"])
    t = apply_move(apply_move(state, Discard("south", card("blue 5"))).state, Draw("south", "pile"))
    assert t.events[0].text == "black drew a card from the draw pile"
    assert card("pink 9") in t.state.hand("south")


def test_second_card_and_early_draw_are_flagged():
    """RULES §1 Turn: play one card, then draw."""
    state = base_game(hands={"south": ["blue 5", "blue 6"] + ["red 1"] * 6}, draw_pile=["pink 1"] * 5)
    early = apply_move(state, Draw("south", "pile"))
    assert codes(early) == ["draw-count"]
    t = apply_move(state, Discard("south", card("blue 5")))
    assert codes(apply_move(t.state, Discard("south", card("blue 6")))) == ["two-cards"]


def test_out_of_turn_is_flagged_and_the_turn_goes_on_from_there():
    """RULES §1 Turn order: only the player whose turn it is plays."""
    state = base_game(seats=SEATS3, hands={"north": ["blue 5"] * 8})
    t = apply_move(state, Discard("north", card("blue 5")))
    assert codes(t) == ["out-of-turn"]
    assert "it is black's turn (south), not grey's (north)" in t.violations[0].message
    assert t.state.turn == "north" and t.state.phase == "draw"


# ---- the end (RULES §1 End) ---------------------------------------------------------------------
def test_fifth_goal_pawn_ends_the_game_and_its_tile_is_not_applied():
    """RULES §1 End: immediately when the fifth pawn enters the goal area; the tile there is not applied."""
    state = base_game(hands={"south": ["yellow 9"]}, rows={"south": {"yellow": [1]}},
                      pawns={"south": ["y6", "b7", "g8"], "north": ["r9", "p7"]}, tiles={"y7": "points-3"})
    assert state.goal_pawns == 4
    t = lay(state, "yellow 9", 0, "y7")
    assert t.legal and t.state.game_over and t.state.phase == "over"
    assert t.state.end_reason == "5 pawns are in the goal area"
    assert t.state.points_of("south") == 0  # the points tile on y7 did not act
    assert t.events[-1].kind == "game-ended"
    assert legal_moves(t.state) == []
    assert score(t.state).final


def test_moving_inside_the_goal_area_does_not_count_as_entering():
    """RULES §1 End: it is the pawn *entering* the goal area that counts."""
    state = base_game(hands={"south": ["red 9"]}, pawns={"south": ["r7", "b7"], "north": ["y9", "p7"]})
    assert state.goal_pawns == 4
    t = lay(state, "red 9", 0, "r8")
    assert t.legal and not t.state.game_over and t.state.goal_pawns == 4


def test_last_card_drawn_ends_the_game():
    """RULES §1 End: when the last card is drawn from the draw pile."""
    state = base_game(hands={"south": ["blue 5"] * 8}, draw_pile=["pink 3"])
    t = apply_move(apply_move(state, Discard("south", card("blue 5"))).state, Draw("south", "pile"))
    assert t.legal and t.state.game_over and t.state.end_reason == "the last card was drawn from the draw pile"
    assert t.state.draw_pile == ()


def test_every_move_after_the_end_is_game_over():
    """RULES §1 End: after the end nothing more may be played (applied, and reported)."""
    state = base_game(hands={"south": ["blue 5"] * 8, "north": ["red 2"] * 8}, draw_pile=["pink 3"])
    over = apply_move(apply_move(state, Discard("south", card("blue 5"))).state, Draw("south", "pile")).state
    t = apply_move(over, Discard("north", card("red 2")))
    assert codes(t) == ["game-over"]
    assert t.state.discard_top("red") == card("red 2") and t.state.game_over and t.state.id == over.id + 1
    t2 = apply_move(over, LayCard("south", card("blue 5"), 0, "b1"))
    assert codes(t2) == ["game-over"] and t2.state.pawn_stones("south")[0] == "b1"


def test_state_ids_increase_by_one():
    """ENGINE_API: every applied move increases the state id by one, rule-breaking or not."""
    state = base_game(hands={"south": ["blue 5"] * 8})
    t1 = apply_move(state, Discard("south", card("blue 5")))
    t2 = apply_move(t1.state, Discard("south", card("blue 5")))
    assert (state.id, t1.state.id, t2.state.id) == (0, 1, 2)


@pytest.mark.parametrize("seats", [SEATS2, SEATS3])
def test_turn_passes_in_seat_order(seats):
    """RULES §1 Turn: play, then draw back to 8; then the next player."""
    state = base_game(seats=seats, hands={s: ["blue 5"] * 8 for s in seats}, draw_pile=["pink 1"] * 20)
    order = []
    for _ in range(len(seats) + 1):
        order.append(state.turn)
        state = apply_move(state, Discard(state.turn, card("blue 5"))).state
        state = apply_move(state, Draw(state.turn, "pile")).state
    assert order == [*list(state.seats), state.seats[0]]
    assert state.turn_number == len(seats) + 2


def test_nwnz_variants_do_not_change_the_base_board():
    """RULES §2 variants change NWNZ only: on the base board wish stones are always taken (RULES §1 Tiles)."""
    from engine.boardgame.game import Settings
    state = base_game(settings=Settings(tiles_taken="none", wish_tile="from-pile"), hands={"south": ["green 5"]},
                      tiles={"g1": "wish-any"})
    t = lay(state, "green 5", 0, "g1")
    assert t.legal and t.state.wish_held("south") == {"any": 1} and t.state.tiles_on_board()["g1"] is None


def test_tile_discard_before_playing_is_a_plain_discard():
    """RULES §1 Turn: a card from the hand onto its pile is the turn's discard, whatever it was meant as."""
    from engine.boardgame.game import TileDiscard
    state = base_game(hands={"south": ["blue 5"] * 8})
    t = apply_move(state, TileDiscard("south", card("blue 5")))
    assert t.legal and t.state.phase == "draw" and t.state.discard_top("blue") == card("blue 5")
    assert codes(apply_move(t.state, TileDiscard("south", card("blue 5")))) == ["two-cards"]
