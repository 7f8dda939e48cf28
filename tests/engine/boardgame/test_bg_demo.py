"""The demo command (README: the main command until the web page exists) and the benchmark script."""
from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from bg_builders import nwnz_board

from engine import demo
from engine.games import GAMES
from keltis_cam.cli import main as keltis_cam

REPO = Path(__file__).resolve().parents[3]


def args(**kw) -> argparse.Namespace:
    base = {"game": "keltis", "board": "base", "players": 3, "seed": 1, "json": False}
    base.update(kw)
    return argparse.Namespace(**base)


def test_demo_prints_history_checks_and_scores(capsys):
    """RULES §1: a whole seeded game told turn by turn, the rule checks and the final scores with winners."""
    assert demo.run_demo(args(board="base", players=3, seed=4)) == 0
    out = capsys.readouterr().out
    assert out.startswith("Keltis on the base board: 3 players, seed 4")
    assert "Seats: south black, west white, north grey" in out
    assert "   1  black  " in out  # turns are numbered and name the player
    assert "The game is over: " in out
    assert "no violations" in out
    assert "Final scores" in out and "wish stone" in out
    assert ("\nWinner: " in out) or ("\nWinners (a tie" in out)


def test_demo_is_deterministic_and_seed_dependent(capsys):
    demo.run_demo(args(seed=8))
    first = capsys.readouterr().out
    demo.run_demo(args(seed=8))
    assert capsys.readouterr().out == first
    demo.run_demo(args(seed=9))
    assert capsys.readouterr().out != first


@pytest.mark.parametrize("players", [2, 4])
def test_demo_json(capsys, players):
    """--json: {"moves", "events", "scores"} (plus the game's identity)."""
    assert demo.run_demo(args(players=players, json=True)) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"moves", "events", "scores", "violations"} <= set(data)
    assert len(data["scores"]["scores"]) == players and data["scores"]["final"] is True
    assert data["violations"] == []
    assert data["events"][-1]["kind"] == "game-ended"
    from engine.boardgame.game import move_from_json
    assert all(move_from_json(m) for m in data["moves"])


def test_demo_through_the_command_line(capsys):
    """`keltis-cam demo` is wired to run_demo (keltis_cam/commands/rules.py)."""
    board = "nwnz" if nwnz_board() is not None else "base"
    assert keltis_cam(["demo", "--board", board, "--players", "2", "--seed", "3"]) == 0
    assert "Final scores" in capsys.readouterr().out


def test_demo_names_a_missing_game_module(capsys):
    """A game whose engine module does not exist yet gets a clear error naming it."""
    unwritten = dataclasses.replace(GAMES.get("keltis-card"), rules_module="engine.cardgame.not_written_yet")
    assert demo.run_demo(args(game="keltis-card"), games=GAMES.with_game(unwritten)) == 1
    assert "engine.cardgame.not_written_yet" in capsys.readouterr().err


def test_demo_unknown_board_is_malformed_input(capsys):
    assert keltis_cam(["demo", "--board", "moon"]) == 2
    assert "no bundled board named 'moon'" in capsys.readouterr().err


def test_bench_script_runs():
    """bench/engine_bench.py prints its figures (a smoke test: speed itself is measured by the script)."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / "engine_bench.py"), "--seconds", "0.02",
                           "--only", "keltis base"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "keltis base: full 4-player random games" in done.stdout and "games/s" in done.stdout
    assert "keltis base: apply_move" in done.stdout
