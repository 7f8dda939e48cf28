"""Scoring an observed board-game state (RULES §1 Scoring, §2 Scoring): engine.boardgame.observed.score_observation."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from board_observed_builders import obs, observation_json, stones  # noqa: E402

from engine.board import BOARDS_DIR, bundled_board  # noqa: E402
from engine.boardgame.observed import score_observation  # noqa: E402
from engine.errors import MalformedInput, ObservationError  # noqa: E402
from engine.observation import parse_observation  # noqa: E402
from engine.tables import BASE_WISH_BY_COUNT  # noqa: E402


def totals(sheet) -> dict[str, int]:
    return {seat: s.total for seat, s in sheet.scores.items()}


def test_pawns_score_their_stone_big_doubled_start_zero_rules_1_scoring():
    """RULES §1 Scoring: each pawn scores its stone's value, the big pawn double (also negative), start 0."""
    board = bundled_board("base")
    blue, red = board.path_of("blue"), board.path_of("red")
    # blue[1] is worth -3, red[6] is worth 6 (positions 2 and 7: −4, −3, −2, 1, 2, 3, 6, 7, 10).
    o = obs("base", big={"black": blue[1]}, pawns={"black": [red[6]]}, wish={"south": {"any": 2}})
    sheet = score_observation(o)
    south = sheet.scores["south"]
    assert south.by_category()["pawns"] == 2 * -3 + 6
    assert south.by_category()["wish"] == 2  # 2 wish stones → 2
    assert south.total == -6 + 6 + 2
    # West has every pawn on the start (0) and no wish stones (−4).
    assert totals(sheet)["west"] == -4
    assert sheet.winners == ("south",)
    assert not sheet.final


def test_big_pawn_on_a_positive_stone_doubles_too():
    board = bundled_board("base")
    end = board.path_of("green")[-1]
    sheet = score_observation(obs("base", big={"white": end}))
    assert sheet.scores["west"].by_category()["pawns"] == 20


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 7])
def test_base_wish_stones_by_count_rules_1_scoring(count):
    """RULES §1 Scoring: 0 → −4, 1 → −3, 2 → 2, 3 → 3, 4 → 6, 5 or more → 10."""
    sheet = score_observation(obs("base", wish={"south": {"any": count}} if count else None))
    assert sheet.scores["south"].by_category()["wish"] == BASE_WISH_BY_COUNT[min(count, 5)]
    assert sheet.scores["south"].by_category()["wish"] == {0: -4, 1: -3, 2: 2, 3: 3, 4: 6, 5: 10, 7: 10}[count]


def test_base_wish_counts_of_any_colour_are_summed():
    """FORMATS §2: the base board's stones have no colour ("any"); coloured counts are summed."""
    sheet = score_observation(obs("base", wish={"south": {"any": 1, "blue": 2}}))
    assert sheet.scores["south"].by_category()["wish"] == 3  # 3 stones → 3


def test_nwnz_rules_example_four_colours_three_blue_two_yellow_is_16():
    """RULES §2 Scoring example: stones in 4 colours with 3 blue and 2 yellow → 6 + 10 = 16."""
    o = obs("nwnz", wish={"south": {"blue": 3, "yellow": 2, "red": 1, "green": 1}})
    cats = score_observation(o).scores["south"].by_category()
    assert cats["wish"] == 6
    assert cats["bonus"] == 10
    assert cats["wish"] + cats["bonus"] == 16


@pytest.mark.parametrize("held, expected", [
    ({}, -4),
    ({"red": 1}, -3),
    ({"red": 3}, -3 + 10),                          # one colour, three of it
    ({"red": 1, "pink": 1}, 2),
    ({"red": 1, "pink": 1, "blue": 1}, 3),
    ({"red": 3, "pink": 3, "blue": 1, "green": 1, "yellow": 1}, 10 + 20),
])
def test_nwnz_wish_by_colours_plus_ten_per_colour_held_three_times_rules_2(held, expected):
    """RULES §2 Scoring: different colours 0 → −4, 1 → −3, 2 → 2, 3 → 3, 4 → 6, 5 → 10; +10 per colour ≥ 3."""
    cats = score_observation(obs("nwnz", wish={"south": held})).scores["south"].by_category()
    assert cats["wish"] + cats.get("bonus", 0) == expected


def test_points_are_added_as_tiles_never_doubled():
    """RULES §1 Tiles: points tiles add their value (the camera cannot see them: --points)."""
    board = bundled_board("base")
    o = obs("base", big={"black": board.path_of("red")[3]})
    plain = score_observation(o)
    more = score_observation(o, {"south": 3})
    assert more.scores["south"].by_category()["tiles"] == 3
    assert more.scores["south"].total == plain.scores["south"].total + 3
    assert more.scores["west"].total == plain.scores["west"].total


def test_ties_share_the_win():
    """RULES §1 Scoring: ties share the win."""
    sheet = score_observation(obs("base"))
    assert sheet.winners == ("south", "west")


def test_five_pawns_in_the_goal_make_the_sheet_final():
    """RULES §1 End: the game ends when the fifth pawn enters the goal area."""
    board = bundled_board("nwnz")
    goal = stones(board, lambda s: board.in_goal(s.id))
    assert len(goal) >= 5
    o = obs("nwnz", pawns={"black": goal[:3]}, big={"white": goal[3]}, )
    assert not score_observation(o).final
    o = obs("nwnz", pawns={"black": goal[:3], "white": goal[4:5]}, big={"white": goal[3]})
    assert score_observation(o).final


def test_face_down_wish_stones_are_listed_not_guessed():
    """RULES §2 variant wish_face_down: the camera cannot read colours; the sheet says so."""
    data = observation_json("nwnz", wish={"south": {"blue": 1}})
    data["seats"]["south"]["wish_face_down"] = 2
    parts = score_observation(parse_observation(data)).scores["south"].parts
    labels = [p.label for p in parts if p.category == "wish"]
    assert any("face-down" in label and "2" in label for label in labels)
    assert sum(p.points for p in parts if p.category == "wish") == -3  # only the visible blue stone


def test_unknown_stone_names_the_field_and_stone():
    data = observation_json("base")
    data["pawns"][2]["stone"] = "zz9"
    with pytest.raises(ObservationError) as err:
        score_observation(parse_observation(data, "state.json"))
    assert "pawns[2].stone" in str(err.value)
    assert "zz9" in str(err.value)


def test_pawn_of_a_colour_nobody_plays_is_refused():
    data = observation_json("base")
    data["pawns"].append({"stone": "start", "player": "brown", "big": False})
    with pytest.raises(ObservationError, match=r"pawns\[\d+\]\.player"):
        score_observation(parse_observation(data))


def test_card_game_codes_in_a_board_game_row_are_refused():
    data = observation_json("base", rows={"south": {"red": ["3", "P3"]}})
    with pytest.raises(ObservationError, match=r"seats\.south\.rows\.red\[1\]"):
        score_observation(parse_observation(data))


def test_points_for_an_unknown_seat_are_refused():
    with pytest.raises(MalformedInput, match="north"):
        score_observation(obs("base"), {"north": 2})


def test_board_may_be_given_as_a_path():
    """ENGINE_API: the board comes from obs.board, a bundled name or a board-file path."""
    data = observation_json("base")
    data["board"] = str(BOARDS_DIR / "base.json")
    o = parse_observation(data)
    assert totals(score_observation(o)) == totals(score_observation(obs("base")))


def test_unknown_board_names_the_field():
    data = observation_json("base")
    data["board"] = "moon"
    with pytest.raises(ObservationError, match="board"):
        score_observation(parse_observation(data))
