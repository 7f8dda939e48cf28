"""The one registry of games (engine/games.py): what it knows and what it refuses."""
from __future__ import annotations

import dataclasses

import pytest

from engine.errors import MalformedInput
from engine.games import GAMES, GameInfo, GameRegistry
from engine.observation import parse_observation


def test_the_registry_knows_both_games_in_order():
    assert GAMES.ids() == ("keltis", "keltis-card")
    assert GAMES.default == "keltis"
    assert GAMES.get("keltis").has_board and not GAMES.get("keltis-card").has_board
    assert GAMES.tables() == (("keltis", "base"), ("keltis", "nwnz"), ("keltis-card", None))


@pytest.mark.parametrize("game", GAMES.ids())
def test_each_entry_leads_to_working_rules_settings_and_scorer(game):
    info = GAMES.get(game)
    rules = info.rules()
    for name in ("new_game", "legal_moves", "apply_move", "observe", "score", "Settings"):
        assert hasattr(rules, name), name
    assert info.settings() == info.settings_class()()
    board = None
    if info.has_board:
        from engine.board import bundled_board
        board = bundled_board(info.default_board)
    state = rules.new_game({"south": "black", "north": "white"}, None, 3, **({"board": board} if board else {}))
    table = rules.observe(state)
    info.validate(table)
    sheet = info.score(table)
    assert set(sheet.scores) == {"south", "north"}
    report = info.check(table, table)
    assert not report.changes and not report.violations


def test_an_unknown_game_is_malformed_input_naming_the_field():
    with pytest.raises(MalformedInput) as err:
        GAMES.get("chess", source="setup.json")
    assert err.value.field == "game" and "setup.json" in str(err.value) and "keltis-card" in str(err.value)


def test_a_bad_setting_names_it():
    with pytest.raises(MalformedInput, match="final_play"):
        GAMES.get("keltis-card").settings({"final_play": "sudden-death"})


def test_with_game_returns_a_new_registry_and_leaves_the_default_alone():
    extra = dataclasses.replace(GAMES.get("keltis-card"), id="keltis-card-2", title="Another card game")
    bigger = GAMES.with_game(extra)
    assert bigger.ids() == ("keltis", "keltis-card", "keltis-card-2")
    assert "keltis-card-2" not in GAMES
    with pytest.raises(ValueError, match="share an id"):
        GameRegistry((extra, extra), default="keltis-card-2")
    with pytest.raises(ValueError, match="default"):
        GameRegistry((extra,), default="keltis")


def test_observed_states_accept_exactly_the_registry_games():
    data = {"format": "keltis-observation/1", "game": "keltis-card-2", "board": None, "usable": True,
            "seats": {"south": {"player": "black"}}, "discard_tops": {}}
    with pytest.raises(MalformedInput, match="unknown game"):
        parse_observation(data)
    extra = GameInfo("keltis-card-2", "Another card game", False, "engine.cardgame.game", "engine.cardgame.observed")
    obs = parse_observation(data, games=GAMES.with_game(extra))
    assert obs.game == "keltis-card-2" and obs.board is None
