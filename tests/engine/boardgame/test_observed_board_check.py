"""Checking the change between two observed board-game states (engine.boardgame.observed.check_change).

Every scenario is a pair of hand-built observations on the real board files (stones found by
their properties), citing the RULES.md section whose rule it exercises.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from board_observed_builders import (chain, codes, edge, kinds, obs, observation_json, other_colour,  # noqa: E402
                                     plain, stones)

from engine.board import bundled_board  # noqa: E402
from engine.boardgame.observed import check_change  # noqa: E402
from engine.boardgame.settings import Settings  # noqa: E402
from engine.errors import ObservationError  # noqa: E402
from engine.observation import parse_observation  # noqa: E402
from engine.violations import CODES  # noqa: E402

BASE = bundled_board("base")
NWNZ = bundled_board("nwnz")


def path(colour: str) -> tuple[str, ...]:
    return BASE.path_of(colour)


def the(report, code: str):
    """The one violation with this code."""
    found = [v for v in report.violations if v.code == code]
    assert len(found) == 1, report.violations
    return found[0]


def test_every_reported_code_is_registered():
    """engine/violations.py: codes are stable and registered (Violation refuses unknown ones)."""
    for code in ("row-order", "row-changed", "two-cards", "wrong-colour", "pawn-backwards", "two-steps",
                 "pawn-not-adjacent", "second-pawn-on-path", "pawn-appeared", "big-pawn-changed", "no-card",
                 "tile-not-taken", "tile-removed", "tile-changed", "wish-not-taken", "wish-unexplained",
                 "game-over", "end-stone-overflow", "out-of-turn", "clover-not-used", "discard-tile-not-used",
                 "discard-mismatch", "pawn-not-moved", "no-pawn-to-move", "draw-count", "unexplained-change"):
        assert code in CODES


# ---- legal turns -----------------------------------------------------------------------------------

def test_base_legal_turn_lay_a_card_and_step_rules_1_turn():
    """RULES §1 Turn: lay a card in your row of its colour and move your pawn on that path one stone."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[1]]}, rows={"south": {"blue": ["3"]}})
    after = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["3", "5"]}})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert kinds(report) == ["card-laid", "pawn-moved"]
    assert report.changes[0].text == "south (black) laid a blue 5 in the blue row"
    assert report.changes[1].data["from"] == blue[1] and report.changes[1].data["to"] == blue[2]
    assert report.to_json()["legal"] is True


def test_base_first_card_of_a_colour_brings_a_pawn_from_the_start_rules_1_turn():
    red = path("red")
    before = obs("base")
    after = obs("base", big={"black": red[0]}, rows={"south": {"red": ["4"]}})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert "pawn-entered" in kinds(report)


def test_start_pawns_not_listed_are_taken_to_wait_on_the_start():
    """FORMATS §2 lists start pawns; a camera that cannot make out a crowded start still works."""
    red = path("red")
    before = obs("base", list_start=False)
    after = obs("base", pawns={"black": [red[0]]}, rows={"south": {"red": ["4"]}}, list_start=False)
    assert check_change(before, after).legal


def test_nwnz_legal_step_onto_a_stone_of_the_cards_colour_rules_2_movement():
    """RULES §2 Movement: play a card of the colour of the stone the pawn enters."""
    a, b = edge(NWNZ, lambda x, y: x.kind == "stone" and plain(NWNZ, x) and plain(NWNZ, y))
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a]})
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["6"]}})
    assert check_change(before, after).legal


def test_nwnz_joker_stone_takes_any_colour_rules_2_movement():
    a, b = edge(NWNZ, lambda x, y: x.kind == "stone" and y.color == "joker")
    for colour in ("red", "blue"):
        before = obs("nwnz", pawns={"black": [a]})
        after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["2"]}})
        assert check_change(before, after).legal


def test_nwnz_several_own_pawns_may_share_a_path_rules_2_movement():
    a, b = edge(NWNZ, lambda x, y: x.kind == "stone" and plain(NWNZ, y))
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a, b]})
    after = obs("nwnz", pawns={"black": [b, b]}, rows={"south": {colour: ["1"]}})
    assert check_change(before, after).legal


def test_discard_turn_changes_at_most_two_piles_rules_1_turn():
    """RULES §1 Turn: discard a card, then draw one (possibly from another discard pile)."""
    before = obs("base", discard={"red": "4", "blue": "7"})
    after = obs("base", discard={"red": "9", "blue": "3"})
    report = check_change(before, after)
    assert report.legal
    assert kinds(report) == ["discard-changed", "discard-changed"]


def test_no_change_is_legal_and_reports_nothing():
    o = obs("nwnz")
    report = check_change(o, o)
    assert report.legal and report.changes == ()


# ---- rows -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_row_order_descending_row_rules_1_card_rows(board):
    """RULES §1 Card rows: after the direction is fixed each card is equal or lower (descending)."""
    b = bundled_board(board)
    src, dst = edge(b, lambda x, y: x.kind == "stone" and y.color == "blue" and plain(b, y))
    before = obs(board, pawns={"black": [src]}, rows={"south": {"blue": ["9", "7"]}})
    after = obs(board, pawns={"black": [dst]}, rows={"south": {"blue": ["9", "7", "8"]}})
    v = the(check_change(before, after), "row-order")
    assert v.message == "blue row is descending (9, 7): an 8 cannot follow"
    assert v.seat == "south"
    assert codes(check_change(before, after)) == ["row-order"]


def test_equal_values_keep_any_row_in_order_rules_1_card_rows():
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["9", "7"]}})
    after = obs("base", pawns={"black": [blue[3]]}, rows={"south": {"blue": ["9", "7", "7"]}})
    assert check_change(before, after).legal


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_row_changed_when_a_laid_card_is_replaced_rules_1_card_rows(board):
    """RULES §1 Card rows: a gap can never be filled later; laid cards stay."""
    before = obs(board, rows={"south": {"green": ["3", "5"]}})
    after = obs(board, rows={"south": {"green": ["3", "6"]}})
    v = the(check_change(before, after), "row-changed")
    assert "green row changed from 3, 5 to 3, 6" in v.message


def test_base_row_shrinking_is_row_changed():
    before = obs("base", rows={"south": {"green": ["3", "5"]}})
    after = obs("base", rows={"south": {"green": ["3"]}})
    assert "row-changed" in codes(check_change(before, after))


def test_two_cards_laid_by_one_seat_rules_1_turn():
    """RULES §1 Turn: play one card."""
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[1], blue[1]]}, rows={"south": {"red": ["2"], "blue": ["2"]}})
    after = obs("base", pawns={"black": [red[2], blue[2]]}, rows={"south": {"red": ["2", "4"], "blue": ["2", "5"]}})
    v = the(check_change(before, after), "two-cards")
    assert "2 cards" in v.message and "red 4" in v.message and "blue 5" in v.message


# ---- who played --------------------------------------------------------------------------------------

def test_two_seats_laying_is_two_cards_naming_both_rules_1_turn():
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[1]], "white": [blue[1]]},
                 rows={"south": {"red": ["2"]}, "west": {"blue": ["2"]}})
    after = obs("base", pawns={"black": [red[2]], "white": [blue[2]]},
                rows={"south": {"red": ["2", "4"]}, "west": {"blue": ["2", "5"]}})
    report = check_change(before, after)
    v = the(report, "two-cards")
    assert "south (black)" in v.message and "west (white)" in v.message


def test_out_of_turn_with_a_turn_hint_rules_1_turn():
    """Whose turn it is is not on the table: with the hint, a seat playing out of turn is reported."""
    blue = path("blue")
    before = obs("base", pawns={"white": [blue[1]]}, rows={"west": {"blue": ["3"]}})
    after = obs("base", pawns={"white": [blue[2]]}, rows={"west": {"blue": ["3", "5"]}})
    assert check_change(before, after).legal  # without the hint nobody can tell
    v = the(check_change(before, after, turn="south"), "out-of-turn")
    assert v.seat == "west" and "south's turn" in v.message
    assert check_change(before, after, turn="west").legal


def test_two_seats_with_a_hint_name_the_one_out_of_turn():
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[1]], "white": [blue[1]]},
                 rows={"south": {"red": ["2"]}, "west": {"blue": ["2"]}})
    after = obs("base", pawns={"black": [red[2]], "white": [blue[2]]},
                rows={"south": {"red": ["2", "4"]}, "west": {"blue": ["2", "5"]}})
    v = the(check_change(before, after, turn="south"), "out-of-turn")
    assert v.seat == "west"


# ---- colours -----------------------------------------------------------------------------------------

def test_base_wrong_colour_card_moves_another_path_rules_1_turn():
    """RULES §1 Turn: the card moves a pawn on that colour's path."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[2]]})
    after = obs("base", pawns={"black": [blue[3]]}, rows={"south": {"red": ["5"]}})
    v = the(check_change(before, after), "wrong-colour")
    assert "red 5" in v.message and "blue path" in v.message


def test_nwnz_wrong_colour_card_for_the_stone_entered_rules_2_movement():
    a, b = edge(NWNZ, lambda x, y: x.kind == "stone" and plain(NWNZ, y))
    wrong = other_colour(NWNZ.stones[b].color)
    before = obs("nwnz", pawns={"black": [a]})
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {wrong: ["5"]}})
    v = the(check_change(before, after), "wrong-colour")
    assert f"{wrong} 5" in v.message and NWNZ.stones[b].color in v.message


def test_base_end_stone_overflow_moves_another_pawn_rules_1():
    """RULES §1: with the pawn on a path's end stone, that colour's cards move another pawn."""
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[-1], blue[2]]}, rows={"south": {"red": ["1", "3"]}})
    after = obs("base", pawns={"black": [red[-1], blue[3]]}, rows={"south": {"red": ["1", "3", "4"]}})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert "end-stone-overflow" in kinds(report)


def test_base_end_stone_overflow_cannot_bring_a_pawn_from_the_start():
    """The game model's reading of RULES §1: the other pawn must already stand on a path."""
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[-1]]}, rows={"south": {"red": ["1", "3"]}})
    after = obs("base", pawns={"black": [red[-1], blue[0]]}, rows={"south": {"red": ["1", "3", "4"]}})
    assert codes(check_change(before, after)) == ["end-stone-overflow"]


def test_nwnz_has_no_end_stone_overflow_rules_2_movement():
    """RULES §2 Movement: unlike the base game, a pawn on an end stone does not free its colour."""
    end = NWNZ.end_stones["red"]
    a, b = edge(NWNZ, lambda x, y: x.kind == "stone" and plain(NWNZ, y) and y.color not in ("red", "joker"))
    before = obs("nwnz", pawns={"black": [end, a]}, rows={"south": {"red": ["1"]}})
    after = obs("nwnz", pawns={"black": [end, b]}, rows={"south": {"red": ["1", "2"]}})
    v = the(check_change(before, after), "end-stone-overflow")
    assert "unlike the base game" in v.message


# ---- pawns -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_pawn_backwards_rules_2_movement(board):
    """RULES §2 Movement (and §1): pawns only move forward, never back toward the start."""
    b = bundled_board(board)
    x, y = edge(b, lambda s, t: s.kind == "stone" and plain(b, t))
    before = obs(board, pawns={"black": [y]})
    after = obs(board, pawns={"black": [x]}, rows={"south": {b.stones[x].color if b.stones[x].color != "joker"
                                                               else "red": ["5"]}})
    assert "pawn-backwards" in codes(check_change(before, after))


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_two_steps_for_one_card(board):
    """RULES §1 Turn: one card moves a pawn one stone."""
    b = bundled_board(board)
    x, y, z = chain(b, lambda s, t, u: s.kind == "stone" and plain(b, t) and plain(b, u) and t.color == u.color)
    colour = b.stones[y].color
    before = obs(board, pawns={"black": [x]})
    after = obs(board, pawns={"black": [z]}, rows={"south": {colour: ["5"]}})
    v = the(check_change(before, after), "two-steps")
    assert "2 stones" in v.message


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_a_clover_on_the_way_allows_one_more_step_rules_1_tiles(board):
    """RULES §1 Tiles / §2 Tiles: a clover lets that player move a pawn one more stone (it stays)."""
    b = bundled_board(board)
    x, y, z = chain(b, lambda s, t, u: s.kind == "stone" and plain(b, t) and plain(b, u) and t.tile_spot
                    and (board == "nwnz" or t.color == u.color))
    colour = b.stones[y].color
    before = obs(board, pawns={"black": [x]}, tiles={y: "clover"})
    after = obs(board, pawns={"black": [z]}, rows={"south": {colour: ["5"]}}, tiles={y: "clover"})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert any(c.data.get("paid") == "clover" for c in report.changes)


def test_a_clover_step_may_move_another_pawn_rules_1_tiles():
    red, blue = path("red"), path("blue")
    spot = next(i for i in range(1, 6) if red[i] in BASE.tile_spots)
    before = obs("base", pawns={"black": [red[spot - 1], blue[2]]}, tiles={red[spot]: "clover"})
    after = obs("base", pawns={"black": [red[spot], blue[3]]}, rows={"south": {"red": ["5"]}},
                tiles={red[spot]: "clover"})
    assert check_change(before, after).legal


def test_two_pawns_of_one_size_passing_each_other_look_like_one_move():
    """Small pawns look alike: "a → b, then the pawn on b → c" must not read as a two-step move."""
    x, y, z = chain(NWNZ, lambda s, t, u: s.kind == "stone" and plain(NWNZ, t) and plain(NWNZ, u)
                    and u.tile_spot)
    colour = NWNZ.stones[z].color
    before = obs("nwnz", pawns={"black": [x, y]}, tiles={z: "clover"})
    after = obs("nwnz", pawns={"black": [y, z]}, rows={"south": {colour: ["3"]}}, tiles={z: "clover"})
    assert check_change(before, after).legal


def test_base_clover_does_not_bring_a_pawn_from_the_start():
    """The game model's reading of RULES §1 Tiles: the clover moves a pawn already on a path."""
    red, blue = path("red"), path("blue")
    spot = next(i for i in range(1, 6) if red[i] in BASE.tile_spots)
    before = obs("base", pawns={"black": [red[spot - 1]]}, tiles={red[spot]: "clover"})
    after = obs("base", pawns={"black": [red[spot], blue[0]]}, rows={"south": {"red": ["5"]}},
                tiles={red[spot]: "clover"})
    assert "no-card" in codes(check_change(before, after))


def test_pawn_not_adjacent_base_jumps_to_another_path():
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[2]]})
    after = obs("base", pawns={"black": [blue[3]]}, rows={"south": {"blue": ["5"]}})
    assert "pawn-not-adjacent" in codes(check_change(before, after))


def test_pawn_not_adjacent_nwnz_to_a_stone_not_ahead():
    a = next(s for s in NWNZ.stones.values() if s.kind == "stone" and s.row == 3)
    b = next(s for s in NWNZ.stones.values() if s.kind == "stone" and s.row == 4
             and NWNZ.steps(a.id, s.id) is None)
    before = obs("nwnz", pawns={"black": [a.id]})
    after = obs("nwnz", pawns={"black": [b.id]}, rows={"south": {"red": ["5"]}})
    assert "pawn-not-adjacent" in codes(check_change(before, after))


def test_second_pawn_on_a_path_base_rules_1_turn():
    """RULES §1 Turn: a player has at most one pawn per path."""
    red = path("red")
    before = obs("base", pawns={"black": [red[3]]}, rows={"south": {"red": ["1", "2", "3", "4"]}})
    after = obs("base", pawns={"black": [red[3], red[0]]}, rows={"south": {"red": ["1", "2", "3", "4", "5"]}})
    v = the(check_change(before, after), "second-pawn-on-path")
    assert "red path" in v.message


def test_pawn_vanished_rules_1_components():
    """RULES §1 Components: each player has 5 pawns; with all visible the total must stay 5."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[2]]})
    data = observation_json("base", pawns={"black": [blue[2]]})
    data["pawns"] = [p for p in data["pawns"] if p["stone"] != blue[2]]
    report = check_change(before, parse_observation(data))
    v = the(report, "pawn-appeared")
    assert blue[2] in v.message and "gone" in v.message


def test_pawn_appeared_sixth_pawn():
    data = observation_json("nwnz")
    data["pawns"].append({"stone": "start", "player": "black", "big": False})
    assert "pawn-appeared" in codes(check_change(obs("nwnz"), parse_observation(data)))


def test_big_pawn_changed_rules_1_turn():
    """RULES §1 Turn: big or small is chosen when the pawn enters; it never changes."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[2]]})
    data = observation_json("base", pawns={"black": [blue[2]]})
    for p in data["pawns"]:
        if p["player"] == "black":
            p["big"] = p["stone"] == blue[2]
    v = the(check_change(before, parse_observation(data)), "big-pawn-changed")
    assert "became a big pawn" in v.message


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_no_card_pawn_moved_without_a_card(board):
    b = bundled_board(board)
    x, y = edge(b, lambda s, t: s.kind == "stone" and plain(b, t))
    before = obs(board, pawns={"black": [x]})
    after = obs(board, pawns={"black": [y]})
    v = the(check_change(before, after), "no-card")
    assert "no card was laid" in v.message


def test_no_card_second_pawn_moved_for_one_card():
    red, blue = path("red"), path("blue")
    before = obs("base", pawns={"black": [red[1], blue[1]]}, rows={"south": {"red": ["2"]}})
    after = obs("base", pawns={"black": [red[2], blue[2]]}, rows={"south": {"red": ["2", "4"]}})
    assert codes(check_change(before, after)) == ["no-card"]


def test_card_laid_without_moving_a_pawn_rules_1_turn():
    """RULES §1 Turn: lay the card and move a pawn (the game model reports pawn-not-moved)."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["3"]}})
    after = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["3", "5"]}})
    assert codes(check_change(before, after)) == ["pawn-not-moved"]


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_card_laid_by_a_player_shown_with_a_pawn_missing_is_judged_without_error(board):
    """A table read with one of the player's pawns as another player's (a misread that held) must
    not crash the check of a card laid with no pawn moved: it is pawn-not-moved."""
    def misread(rows):
        data = observation_json(board, rows=rows)
        small = next(p for p in data["pawns"] if p["player"] == "black" and not p["big"])
        small["player"] = next(p["player"] for p in data["pawns"] if p["player"] != "black")
        return parse_observation(data)

    before, after = misread({"south": {"blue": ["3"]}}), misread({"south": {"blue": ["3", "5"]}})
    assert codes(check_change(before, after)) == ["pawn-not-moved"]


def test_card_laid_that_no_pawn_can_use():
    """The red pawn is on its end stone and no other pawn stands on a path: a red card moves nothing
    (RULES §1: overflow moves a pawn already on a path), so it should have been discarded."""
    red = path("red")
    before = obs("base", big={"black": red[-1]}, rows={"south": {"red": ["1"]}})
    after = obs("base", big={"black": red[-1]}, rows={"south": {"red": ["1", "2"]}})
    assert codes(check_change(before, after)) == ["no-pawn-to-move"]


# ---- tiles and wish stones -----------------------------------------------------------------------------

def base_spot(colour: str) -> tuple[str, str]:
    """(stone before, tile spot) on a base path, outside the goal."""
    p = path(colour)
    i = next(i for i in range(1, 6) if p[i] in BASE.tile_spots)
    return p[i - 1], p[i]


def test_base_wish_tile_is_taken_rules_1_tiles():
    """RULES §1 Tiles: a wish stone is taken by the player who lands there and kept."""
    a, b = base_spot("green")
    before = obs("base", pawns={"black": [a]}, tiles={b: "wish-any"})
    after = obs("base", pawns={"black": [b]}, rows={"south": {"green": ["5"]}}, wish={"south": {"any": 1}})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert "tile-taken" in kinds(report) and "wish-gained" in kinds(report)


def test_base_wish_tile_left_on_the_board_is_tile_not_taken():
    a, b = base_spot("green")
    before = obs("base", pawns={"black": [a]}, tiles={b: "wish-any"})
    after = obs("base", pawns={"black": [b]}, rows={"south": {"green": ["5"]}}, tiles={b: "wish-any"})
    assert codes(check_change(before, after)) == ["tile-not-taken"]


def test_nwnz_wish_tile_taken_and_left_rules_2_tiles():
    """RULES §2 Tiles, variant tiles_taken default: wish-stone tiles are taken, the player gets its colour."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and plain(NWNZ, t) and t.tile_spot)
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "wish-pink"})
    taken = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, wish={"south": {"pink": 1}})
    assert check_change(before, taken).legal
    left = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, tiles={b: "wish-pink"})
    assert codes(check_change(before, left)) == ["tile-not-taken"]
    wrong_colour = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, wish={"south": {"red": 1}})
    assert set(codes(check_change(before, wrong_colour))) == {"wish-not-taken", "wish-unexplained"}


def test_nwnz_variant_tiles_stay_and_the_stone_comes_from_the_pile():
    """RULES §2 variants tiles_taken="none" / wish_tile="from-pile" (Japanese text): the tile stays."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and plain(NWNZ, t) and t.tile_spot)
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "wish-pink"})
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, tiles={b: "wish-pink"},
                wish={"south": {"pink": 1}})
    for settings in (Settings(tiles_taken="none"), Settings(wish_tile="from-pile"), {"tiles_taken": "none"}):
        assert check_change(before, after, settings).legal
    assert codes(check_change(before, after)) == ["tile-not-taken"]


def test_wish_pile_stone_is_taken_rules_2_tiles():
    """RULES §2 Tiles: entering a wish-pile stone takes the top wish stone of that colour."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and t.wish_pile is not None)
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a]})
    took = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, wish={"south": {colour: 1}})
    assert check_change(before, took).legal
    missed = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}})
    v = the(check_change(before, missed), "wish-not-taken")
    assert f"{colour} wish pile" in v.message


def test_empty_wish_pile_gives_nothing_rules_2_tiles():
    """RULES §2 Tiles: "if any is left": all 5 stones of the colour are held already."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and t.wish_pile is not None)
    colour = NWNZ.stones[b].color
    held = {"west": {colour: NWNZ.wish_stones_per_pile}}
    tiles = {s: f"wish-{c}" for c, s in zip(("red", "yellow", "pink", "green", "blue"), NWNZ.tile_spots)}
    before = obs("nwnz", pawns={"black": [a]}, wish=held, tiles=tiles)
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, wish=held, tiles=tiles)
    assert check_change(before, after).legal


def test_wish_stones_growing_without_a_landing_are_unexplained():
    before = obs("nwnz", wish={"west": {"blue": 1}})
    after = obs("nwnz", wish={"west": {"blue": 2}})
    v = the(check_change(before, after), "wish-unexplained")
    assert v.seat == "west"


def test_wish_stones_going_down_are_unexplained_rules_1_tiles():
    before = obs("base", wish={"south": {"any": 3}})
    after = obs("base", wish={"south": {"any": 2}})
    assert codes(check_change(before, after)) == ["wish-unexplained"]


def test_face_down_wish_stones_checked_by_count():
    """RULES §2 variant wish_face_down: the camera sees how many, not which colour."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and t.wish_pile is not None)
    colour = NWNZ.stones[b].color
    before_d = observation_json("nwnz", pawns={"black": [a]})
    after_d = observation_json("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}})
    before_d["seats"]["south"]["wish_face_down"] = 1
    after_d["seats"]["south"]["wish_face_down"] = 2
    settings = Settings(wish_face_down=True)
    assert check_change(parse_observation(before_d), parse_observation(after_d), settings).legal
    after_d["seats"]["south"]["wish_face_down"] = 3
    assert "wish-unexplained" in codes(check_change(parse_observation(before_d), parse_observation(after_d),
                                                    settings))


def test_points_tile_stays_and_its_points_are_an_event_rules_1_tiles():
    """RULES §1 Tiles: a points tile scores at once and stays; the camera cannot see the points."""
    a, b = base_spot("yellow")
    before = obs("base", pawns={"black": [a]}, tiles={b: "points-2"})
    after = obs("base", pawns={"black": [b]}, rows={"south": {"yellow": ["5"]}}, tiles={b: "points-2"})
    report = check_change(before, after)
    assert report.legal
    ev = next(c for c in report.changes if c.kind == "points-tile")
    assert ev.data["points"] == 2 and ev.seat == "south"


def test_points_tile_taken_is_tile_removed_rules_1_tiles():
    a, b = base_spot("yellow")
    before = obs("base", pawns={"black": [a]}, tiles={b: "points-2"})
    after = obs("base", pawns={"black": [b]}, rows={"south": {"yellow": ["5"]}})
    assert codes(check_change(before, after)) == ["tile-removed"]


def test_clover_vanishing_is_tile_removed():
    _, b = base_spot("pink")
    assert codes(check_change(obs("base", tiles={b: "clover"}), obs("base"))) == ["tile-removed"]


def test_tile_appearing_or_changing_is_tile_changed():
    _, b = base_spot("pink")
    assert codes(check_change(obs("base"), obs("base", tiles={b: "clover"}))) == ["tile-changed"]
    assert codes(check_change(obs("base", tiles={b: "points-1"}), obs("base", tiles={b: "clover"}))) == [
        "tile-changed"]


# ---- NWNZ tiles: clover and discard ------------------------------------------------------------------------

def test_nwnz_clover_must_be_used_rules_2_tiles():
    """RULES §2 Tiles: on a clover you must move one of your pawns one stone forward."""
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and plain(NWNZ, t) and t.tile_spot)
    colour = NWNZ.stones[b].color
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "clover"})
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"]}}, tiles={b: "clover"})
    assert codes(check_change(before, after)) == ["clover-not-used"]


def test_base_clover_may_be_left_unused_rules_1_tiles():
    a, b = base_spot("pink")
    before = obs("base", pawns={"black": [a]}, tiles={b: "clover"})
    after = obs("base", pawns={"black": [b]}, rows={"south": {"pink": ["5"]}}, tiles={b: "clover"})
    assert check_change(before, after).legal


def discard_spot() -> tuple[str, str, str]:
    a, b = edge(NWNZ, lambda s, t: s.kind == "stone" and plain(NWNZ, t) and t.tile_spot)
    return a, b, NWNZ.stones[b].color


def test_nwnz_discard_tile_top_of_a_row_goes_to_its_pile_rules_2_tiles():
    """RULES §2 Tiles: discard at once the top card of any of your rows (or one from the hand)."""
    a, b, colour = discard_spot()
    other = other_colour(colour)
    rows_before = {"south": {colour: ["2"], other: ["4", "6"]}}
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "discard"}, rows=rows_before)
    after = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"},
                rows={"south": {colour: ["2", "5"], other: ["4"]}}, discard={other: "6"})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert "row-card-discarded" in kinds(report)
    wrong_pile = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"},
                     rows={"south": {colour: ["2", "5"], other: ["4"]}}, discard={other: "3"})
    assert "discard-mismatch" in codes(check_change(before, wrong_pile))


def test_nwnz_row_top_removed_without_a_discard_tile_is_row_changed():
    a, b, colour = discard_spot()
    other = other_colour(colour)
    before = obs("nwnz", pawns={"black": [a]}, rows={"south": {other: ["4", "6"]}})
    after = obs("nwnz", pawns={"black": [b]}, rows={"south": {colour: ["5"], other: ["4"]}}, discard={other: "6"})
    assert "row-changed" in codes(check_change(before, after))


def test_nwnz_discard_tile_discard_from_hand_draws_two():
    """RULES §2 Tiles: a discard from the hand means two cards left it: two draws, so 3 piles may change."""
    a, b, colour = discard_spot()
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "discard"}, discard={"red": "1", "blue": "2"})
    after = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"}, rows={"south": {colour: ["5"]}},
                discard={"red": "7", "blue": "8", "pink": "9"})
    assert check_change(before, after).legal


def test_nwnz_discard_tile_not_used_when_every_pile_stayed_empty_rules_2_tiles():
    a, b, colour = discard_spot()
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "discard"})
    after = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"}, rows={"south": {colour: ["5"]}})
    assert codes(check_change(before, after)) == ["discard-tile-not-used"]
    assert check_change(before, after, Settings(discard_tile_optional=True)).legal


def test_nwnz_card_laid_and_discarded_again_leaves_only_the_pile():
    """A card laid and then discarded from its row's top (discard tile) shows only on the pile: the
    step is explained when that card could have followed the row."""
    a, b, colour = discard_spot()
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "discard"}, rows={"south": {colour: ["2"]}})
    after = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"}, rows={"south": {colour: ["2"]}},
                discard={colour: "5"})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert any(c.kind == "card-laid" and c.data.get("discarded") for c in report.changes)
    # A 5 cannot follow the descending 6, 2: no card can have paid for the step.
    before = obs("nwnz", pawns={"black": [a]}, tiles={b: "discard"}, rows={"south": {colour: ["6", "2"]}})
    after = obs("nwnz", pawns={"black": [b]}, tiles={b: "discard"}, rows={"south": {colour: ["6", "2"]}},
                discard={colour: "5"})
    assert "no-card" in codes(check_change(before, after))


# ---- discard piles ---------------------------------------------------------------------------------------

def test_laid_card_and_a_discard_onto_an_empty_pile_is_two_cards_rules_1_turn():
    """An empty pile that now shows a card was discarded on (a draw cannot fill it)."""
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[1]]}, rows={"south": {"blue": ["3"]}})
    after = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["3", "5"]}}, discard={"red": "4"})
    assert codes(check_change(before, after)) == ["two-cards"]


def test_laid_card_and_a_draw_from_a_discard_pile_is_legal():
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[1]]}, rows={"south": {"blue": ["3"]}}, discard={"red": "4"})
    after = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["3", "5"]}}, discard={"red": "9"})
    assert check_change(before, after).legal


def test_two_discards_onto_empty_piles_is_two_cards():
    assert codes(check_change(obs("base"), obs("base", discard={"red": "4", "blue": "5"}))) == ["two-cards"]


def test_three_piles_changing_is_discard_mismatch():
    before = obs("base", discard={"red": "4", "blue": "5", "green": "1"})
    after = obs("base", discard={"red": "6", "blue": "7", "green": "2"})
    assert codes(check_change(before, after)) == ["discard-mismatch"]


def test_two_piles_emptied_is_draw_count():
    before = obs("base", discard={"red": "4", "blue": "5"})
    after = obs("base")
    assert "draw-count" in codes(check_change(before, after))


# ---- the end -------------------------------------------------------------------------------------------

def goal_state(board_name: str, extra_rows: dict | None = None, **kw):
    b = bundled_board(board_name)
    goal = stones(b, lambda s: b.in_goal(s.id))
    return obs(board_name, pawns={"black": goal[:3], "white": goal[3:5]}, rows=extra_rows, **kw)


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_game_over_nothing_may_change_rules_1_end(board):
    """RULES §1 End: the game ends at once when the fifth pawn enters the goal area."""
    before = goal_state(board)
    after = goal_state(board, {"south": {"red": ["3"]}})
    report = check_change(before, after)
    assert codes(report) == ["game-over"]
    assert "card-laid" in kinds(report)
    assert check_change(before, before).legal


def test_fifth_pawn_entering_the_goal_does_not_apply_its_tile_rules_1_end():
    """RULES §1 End: the tile on the fifth goal pawn's stone is not applied."""
    first_goal_row = min(BASE.goal_rows)
    colour = next(c for c in ("red", "yellow", "pink", "green", "blue")
                  if path(c)[first_goal_row - 1] in BASE.tile_spots)
    p = path(colour)
    spot = p[first_goal_row - 1]
    others = [path(c)[-1] for c in ("red", "yellow", "pink", "green", "blue") if c != colour]
    assert len(others) == 4 and all(BASE.in_goal(s) for s in others)
    before = obs("base", pawns={"black": [p[first_goal_row - 2]], "white": others}, tiles={spot: "wish-any"},
                 rows={"south": {colour: ["1"]}})
    after = obs("base", pawns={"black": [spot], "white": others}, tiles={spot: "wish-any"},
                rows={"south": {colour: ["1", "2"]}})
    report = check_change(before, after)
    assert report.legal, report.violations
    assert "goal-reached" in kinds(report) and "game-ended" in kinds(report)
    # Taking the wish stone anyway is not allowed: the tile does not act.
    took = obs("base", pawns={"black": [spot], "white": others}, rows={"south": {colour: ["1", "2"]}},
               wish={"south": {"any": 1}})
    assert set(codes(check_change(before, took))) == {"tile-removed", "wish-unexplained"}


# ---- seats and malformed pairs ------------------------------------------------------------------------------

def test_a_seat_changing_colour_is_unexplained():
    before = obs("base")
    after = obs("base", seats={"south": "black", "west": "grey"})
    assert "unexplained-change" in codes(check_change(before, after))


def test_states_of_different_boards_are_refused():
    with pytest.raises(ObservationError, match="different boards"):
        check_change(obs("base"), obs("nwnz"))


def test_unknown_stone_in_the_after_state_names_the_field():
    data = observation_json("nwnz")
    data["pawns"][0]["stone"] = "q99"
    with pytest.raises(ObservationError, match=r"pawns\[0\]\.stone.*q99"):
        check_change(obs("nwnz"), parse_observation(data))


def test_unknown_turn_seat_is_refused():
    with pytest.raises(ValueError, match="turn"):
        check_change(obs("base"), obs("base"), turn="middle")


def test_report_json_shape():
    blue = path("blue")
    before = obs("base", pawns={"black": [blue[1]]}, rows={"south": {"blue": ["9", "7"]}})
    after = obs("base", pawns={"black": [blue[2]]}, rows={"south": {"blue": ["9", "7", "8"]}})
    out = check_change(before, after).to_json()
    assert out["legal"] is False
    assert out["violations"][0] == {"code": "row-order", "message": "blue row is descending (9, 7): an 8 cannot follow",
                                    "seat": "south", "details": {"colour": "blue", "card": "8",
                                                                 "direction": "descending"}}
    assert {c["kind"] for c in out["changes"]} == {"card-laid", "pawn-moved"}


@pytest.mark.parametrize("board", ["base", "nwnz"])
def test_a_scrambled_table_is_reported_not_crashed(board):
    """A wildly wrong picture (every pawn somewhere else, cards everywhere) still gives a report."""
    import random

    b = bundled_board(board)
    rng = random.Random(5)
    on_board = [s.id for s in b.stones.values() if s.kind == "stone"]
    before = obs(board, seats={"south": "black", "west": "white", "north": "grey"})
    data = observation_json(board, seats={"south": "black", "west": "white", "north": "grey"},
                            rows={seat: {"red": ["1", "5", "3"], "blue": ["9"]} for seat in ("south", "west", "north")})
    for p in data["pawns"]:
        p["stone"] = rng.choice(on_board)
    report = check_change(before, parse_observation(data))
    assert not report.legal
    assert {"two-cards", "row-order"} <= set(codes(report))
