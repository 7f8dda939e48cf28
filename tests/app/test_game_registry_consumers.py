"""Every tool that names a game takes its list from the one registry (engine/games.py): the command
line's `--game` choices, the page's new-game screen and setup check, the tracker's setup, the
simulator, the demo and the synthetic games the benches play. A game added to a registry (through
the public `GameRegistry.with_game`, passed as a parameter) shows up in each of them."""
from __future__ import annotations

import argparse
import dataclasses
import random

import pytest

from engine import demo
from engine.games import GAMES, GameRegistry
from keltis_cam.cli import build_parser

#: A second card game: the card game's rules under another id (enough for every list to show it).
EXTRA = dataclasses.replace(GAMES.get("keltis-card"), id="keltis-card-2", title="Keltis: a second card game")
BIGGER = GAMES.with_game(EXTRA)


def game_choices(parser: argparse.ArgumentParser, path: str = "keltis-cam") -> dict[str, tuple]:
    """`--game` choices of every (sub)command, by command path."""
    found: dict[str, tuple] = {}
    for action in parser._actions:  # argparse has no public walk over subcommands
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(game_choices(sub, f"{path} {name}"))
        elif "--game" in action.option_strings:
            found[path] = (tuple(action.choices), action.default)
    return found


@pytest.mark.parametrize("games", [GAMES, BIGGER], ids=["registry", "registry+extra"])
def test_every_game_option_of_the_command_line_offers_the_registry(games: GameRegistry):
    choices = game_choices(build_parser(games))
    assert {"keltis-cam demo", "keltis-cam record", "keltis-cam sim render", "keltis-cam sim session"} <= set(choices)
    for command, (offered, default) in choices.items():
        assert offered == games.ids(), command
        assert default == games.default, command


def test_the_extra_game_reaches_a_command_handler(capsys):
    args = build_parser(BIGGER).parse_args(["demo", "--game", "keltis-card-2", "--players", "2", "--seed", "4"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Keltis: a second card game: 2 players, seed 4")
    with pytest.raises(SystemExit):
        build_parser(GAMES).parse_args(["demo", "--game", "keltis-card-2"])


def test_the_page_offers_and_accepts_the_registry_games():
    from webui.validate import setup_options, validate_setup

    assert setup_options()["games"] == list(GAMES.ids())
    assert set(setup_options()["rules"]) == set(GAMES.ids())
    options = setup_options(BIGGER)
    assert options["games"] == list(BIGGER.ids())
    assert {o["name"] for o in options["rules"]["keltis-card-2"]} >= {"end_trigger", "final_play"}
    body = {"game": "keltis-card-2", "seats": {"south": "black", "north": "white"}}
    assert validate_setup(body, BIGGER)["game"] == "keltis-card-2"
    from engine.errors import MalformedInput
    with pytest.raises(MalformedInput) as err:
        validate_setup(body)
    assert err.value.field == "game"


def test_the_tracker_and_simulator_play_a_registry_game():
    from simulator.games import Game
    from engine.setup import Setup
    from tracking.games import GameRules

    setup = Setup.from_json({"game": "keltis-card-2", "seats": {"south": "black", "north": "white"}}, games=BIGGER)
    rules = GameRules(setup, BIGGER)
    assert not rules.is_board and rules.settings == EXTRA.settings()
    game = Game.new("keltis-card-2", None, 2, seed=5, games=BIGGER)
    assert game.board is None and game.module is EXTRA.rules()
    game.apply(game.choose(random.Random(1)))
    from engine.errors import MalformedInput
    with pytest.raises(MalformedInput):
        Game.new("keltis-card-2", None, 2, seed=5)


def test_synthetic_games_cover_every_table_of_the_registry():
    from tracking.synth import game_matrix

    tables = GAMES.tables()
    assert [(g, b) for g, b, _, _ in game_matrix(len(tables), 0)] == list(tables)


def test_the_demo_reads_its_game_from_the_registry(capsys):
    args = argparse.Namespace(game="keltis-card-2", players=2, seed=2, json=True, board=None)
    assert demo.run_demo(args, BIGGER) == 0
    assert '"game": "keltis-card-2"' in capsys.readouterr().out
