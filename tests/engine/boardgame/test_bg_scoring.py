"""Scoring the board game (RULES §1 Scoring, §2 Scoring)."""
from __future__ import annotations

import pytest
from bg_builders import SEATS3, arrange, base_game, mini_game

from engine.boardgame.game import score
from engine.boardgame.score import wish_parts


def totals(state):
    return {seat: p.total for seat, p in score(state).scores.items()}


def test_rules_example_four_colours_with_three_blue():
    """RULES §2 Scoring example: stones in 4 colours with 3 blue and 2 yellow → 6 + 10 = 16."""
    parts = wish_parts("nwnz", {"blue": 3, "yellow": 2, "red": 1, "pink": 1})
    assert sum(p.points for p in parts) == 16
    assert [(p.category, p.points) for p in parts] == [("wish", 6), ("bonus", 10)]
    assert parts[1].label == "3 blue wish stones (three or more of a colour)"
    state = mini_game(wish={"south": {"blue": 3, "yellow": 2, "red": 1, "pink": 1}})
    sheet = score(state).scores["south"]
    assert sheet.by_category()["wish"] == 6 and sheet.by_category()["bonus"] == 10


@pytest.mark.parametrize("colours,expected", [(0, -4), (1, -3), (2, 2), (3, 3), (4, 6), (5, 10)])
def test_nwnz_wish_by_number_of_colours(colours, expected):
    """RULES §2 Scoring: 0 → −4, 1 → −3, 2 → 2, 3 → 3, 4 → 6, 5 → 10 (by different colours held)."""
    wish = dict.fromkeys(["red", "yellow", "pink", "green", "blue"][:colours], 1)
    assert sum(p.points for p in wish_parts("nwnz", wish)) == expected


def test_nwnz_bonus_for_each_colour_held_three_times():
    """RULES §2 Scoring: plus 10 for each colour of which three or more are held (a stone counts for both)."""
    assert sum(p.points for p in wish_parts("nwnz", {"red": 3, "green": 5})) == 2 + 20
    assert sum(p.points for p in wish_parts("nwnz", {"red": 2})) == -3


@pytest.mark.parametrize("count,expected", [(0, -4), (1, -3), (2, 2), (3, 3), (4, 6), (5, 10), (8, 10)])
def test_base_wish_by_count(count, expected):
    """RULES §1 Scoring: 0 → −4, 1 → −3, 2 → 2, 3 → 3, 4 → 6, 5 or more → 10."""
    state = base_game(wish={"south": {"any": count}})
    assert score(state).scores["south"].by_category()["wish"] == expected


def test_pawns_score_their_stone_big_doubled_also_negative():
    """RULES §1 Scoring: each pawn its stone's value, the big pawn double (also negative); start 0."""
    state = base_game(pawns={"south": ["r1", "b7", "g9"], "north": ["y8"]})
    parts = score(state).scores["south"].parts
    pawns = [(p.label, p.points) for p in parts if p.category == "pawns"]
    assert pawns == [("big pawn on red -4 (r1), doubled", -8), ("small pawn on blue 6 (b7)", 6),
                     ("small pawn on green 10 (g9)", 10), ("2 small pawns still on the start", 0)]
    north = [(p.label, p.points) for p in score(state).scores["north"].parts if p.category == "pawns"]
    assert north == [("big pawn on yellow 7 (y8), doubled", 14), ("4 small pawns still on the start", 0)]


def test_points_tiles_are_added():
    """RULES §1 Scoring: points tiles add their value, never doubled."""
    state = base_game()
    state = arrange(state)
    from engine.boardgame.state import evolve
    state = evolve(state, points=((("g1", 3), ("b3", 2)), ()))
    sheet = score(state).scores["south"]
    assert sheet.by_category()["tiles"] == 5
    assert [p.label for p in sheet.parts if p.category == "tiles"] == [
        "points tile on green -4 (g1)", "points tile on blue -2 (b3)"]


def test_totals_winners_and_ties():
    """RULES §1 Scoring: highest total wins; ties share the win; the sheet is final only at the end."""
    state = base_game(seats=SEATS3, pawns={"south": ["start", "r7"], "west": ["start", "b7"], "north": ["r1"]})
    assert totals(state) == {"south": 6 - 4, "west": 6 - 4, "north": -8 - 4}
    sheet = score(state)
    assert sheet.winners == ("south", "west") and not sheet.final
    js = sheet.to_json()
    assert js["scores"]["south"]["pawns"] == 6 and js["scores"]["south"]["wish"] == -4
    assert js["winners"] == ["south", "west"] and js["final"] is False
    from engine.boardgame.state import evolve
    assert score(evolve(state, game_over=True, phase="over")).final
