"""Setting up a board game (RULES §1 Components, §2 Preparation), settings and the move JSON form."""
from __future__ import annotations

from collections import Counter

import pytest
from bg_builders import SEATS2, SEATS3, SEATS4, card, mini_nwnz_board, nwnz_board

from engine.board import bundled_board
from engine.boardgame.game import (CloverStep, Discard, Draw, LayCard, Settings, SkipClover, SkipTileDiscard,
                                   TileDiscard, apply_move, legal_moves, move_from_json, new_game)
from engine.cards import board_game_deck
from engine.errors import MalformedInput, MoveError


@pytest.mark.parametrize("seats,in_pile", [(SEATS2, 110 - 30 - 16), (SEATS3, 110 - 24), (SEATS4, 110 - 32)])
def test_deal_hands_of_eight_and_two_player_removal(seats, in_pile):
    """RULES §1 Components/Turn: hands of 8; with 2 players 30 cards go back to the box unseen."""
    state = new_game(seats, seed=5)
    assert all(len(h) == 8 for h in state.hands)
    assert len(state.draw_pile) == in_pile
    assert len(state.box) == (30 if len(seats) == 2 else 0)
    assert Counter(state.all_cards()) == Counter(board_game_deck())  # nothing lost, nothing made up


def test_start_position_and_tiles_base():
    """RULES §1: every pawn (4 small + 1 big) starts on the start stone; 25 tiles lie face up on the spots."""
    board = bundled_board("base")
    state = new_game(SEATS4, seed=9, board=board)
    assert all(own == ("start",) * 5 for own in state.pawns)
    assert Counter(state.tiles) == Counter(board.tile_set)
    assert state.turn == "south" and state.phase == "play" and state.id == 0 and not state.game_over
    assert state.wish_piles == (0,) * 5


def test_nwnz_setup_has_wish_piles():
    """RULES §2 Preparation: 22 tiles on the grey dots, 5 wish stones per colour pile."""
    board = nwnz_board()
    if board is None:
        pytest.skip("engine/boards/nwnz.json does not exist yet")
    state = new_game(SEATS3, seed=2, board=board)
    assert Counter(state.tiles) == Counter(board.tile_set)
    assert len(state.tiles) == 22
    assert state.wish_piles == (5,) * 5


def test_seeded_deal_is_deterministic():
    """The same seed deals the same game; another seed another one."""
    board = mini_nwnz_board()
    assert new_game(SEATS3, seed=4, board=board) == new_game(SEATS3, seed=4, board=board)
    assert new_game(SEATS3, seed=4, board=board) != new_game(SEATS3, seed=5, board=board)


def test_turn_order_follows_seats_not_mapping_order():
    """Turns go south → west → north → east whatever order the mapping lists them in."""
    state = new_game({"north": "grey", "south": "black", "west": "white"}, seed=1)
    assert state.seats == ("south", "west", "north")
    assert state.players == ("black", "white", "grey")


@pytest.mark.parametrize("seats,needle", [
    ({"south": "black"}, "2 to 4 players"),
    ({"south": "black", "north": "black"}, "same colour"),
    ({"south": "black", "middle": "white"}, "unknown seat 'middle'"),
    ({"south": "black", "north": "purple"}, "unknown player colour 'purple'"),
])
def test_bad_seats_are_malformed_input(seats, needle):
    with pytest.raises(MalformedInput, match=needle):
        new_game(seats)


def test_settings_defaults_and_parsing():
    """RULES §2 variants with their stated defaults."""
    s = Settings()
    assert (s.tiles_taken, s.discard_tile_optional, s.wish_tile, s.wish_face_down) == (
        "wish-tiles", False, "take-tile", False)
    parsed = Settings.from_json({"wish_tile": "from-pile", "discard_tile_optional": True})
    assert parsed == Settings(wish_tile="from-pile", discard_tile_optional=True)
    assert parsed.to_json()["tiles_taken"] == "wish-tiles"
    with pytest.raises(MalformedInput, match="wish_tile"):
        Settings.from_json({"wish_tile": "steal"})
    with pytest.raises(MalformedInput, match="unknown rule setting"):
        Settings.from_json({"tiles": "none"})


@pytest.mark.parametrize("move", [
    LayCard("south", card("blue 7"), 0, "b1"),
    LayCard("west", card("red 0"), None, None),
    LayCard("north", card("pink 10"), 3, "p4", take=False),
    Discard("east", card("green 4")),
    CloverStep("south", 2, "g5"),
    CloverStep("south", 2, "g5", take=False),
    SkipClover("west"),
    TileDiscard("north", card("yellow 3"), from_row=True),
    TileDiscard("north", card("yellow 3")),
    SkipTileDiscard("east"),
    Draw("south", "pile"),
    Draw("south", "blue"),
])
def test_move_json_round_trip(move):
    """Every move has a JSON form for logs (truth/events.jsonl) that reads back equal."""
    assert move_from_json(move.to_json()) == move


@pytest.mark.parametrize("bad,needle", [
    ({"move": "fly", "seat": "south"}, "unknown move 'fly'"),
    ({"move": "draw", "seat": "middle", "from": "pile"}, "unknown seat 'middle'"),
    ({"move": "draw", "seat": "south", "from": "purple"}, "bad from 'purple'"),
    ({"move": "discard", "seat": "south", "colour": "blue", "value": 11}, "no such card"),
    ({"move": "discard", "seat": "south", "colour": "blue", "value": True}, "bad value True"),
    ({"move": "lay", "seat": "south", "colour": "blue", "value": 3, "pawn": 0}, "both a pawn and its stone"),
    ({"move": "clover", "seat": "south", "pawn": 0}, "missing 'to'"),
    (["draw"], "must be a JSON object"),
])
def test_malformed_move_json_is_quoted(bad, needle):
    with pytest.raises(MoveError, match=needle):
        move_from_json(bad)


def test_inexpressible_moves_raise_move_error():
    """MoveError only for moves that cannot happen at all, quoting the move."""
    state = new_game(SEATS2, seed=3)
    absent = next(c for c in (card(f"blue {v}") for v in range(11)) if c not in state.hand("south"))
    with pytest.raises(MoveError, match="has no blue"):
        apply_move(state, Discard("south", absent))
    present = state.hand("south")[0]
    with pytest.raises(MoveError, match="no stone 'zz9'"):
        apply_move(state, LayCard("south", present, 0, "zz9"))
    with pytest.raises(MoveError, match="no pawn 7"):
        apply_move(state, LayCard("south", present, 7, "b1"))
    with pytest.raises(MoveError, match="does not play"):
        apply_move(state, Draw("east", "pile"))
    with pytest.raises(MoveError, match="blue discard pile is empty"):
        apply_move(state, Draw("south", "blue"))
    with pytest.raises(MoveError, match="no clover step"):
        apply_move(state, SkipClover("south"))


def test_legal_moves_of_first_turn():
    """RULES §1 Turn: the first player may discard any card or lay any card (every row is empty)."""
    state = new_game(SEATS2, seed=11)
    moves = legal_moves(state)
    hand = set(state.hand("south"))
    assert {m.card for m in moves if isinstance(m, Discard)} == hand
    lays = [m for m in moves if isinstance(m, LayCard)]
    assert {m.card for m in lays} == hand
    # the first card of a colour brings the big or a small pawn onto that path (RULES §1 Turn)
    for c in hand:
        assert {m.pawn for m in lays if m.card == c} == {0, 1}
    assert all(m.seat == "south" for m in moves)
