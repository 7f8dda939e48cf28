"""`keltis-cam`: one command; its subcommands live in keltis_cam/commands/.

Each module listed in COMMAND_MODULES has `register(subparsers, games)`, which adds its subcommands
(offering the games of the registry, engine/games.py) and sets `func` on each; modules import heavy libraries (OpenCV, Flask) only inside their handlers,
so `keltis-cam score` starts fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry

#: Modules that add subcommands, in the order `--help` lists them.
COMMAND_MODULES = (
    "keltis_cam.commands.rules",      # score, check, board, demo
    "keltis_cam.commands.replay",     # replay
    "keltis_cam.commands.camera",     # record, doctor, config
    "keltis_cam.commands.calibrate",  # calibrate
    "keltis_cam.commands.sim",        # sim
    "keltis_cam.commands.serve",      # serve
    "keltis_cam.commands.vision",     # analyze, eval
    "keltis_cam.commands.teach",      # teach
)


def build_parser(games: GameRegistry = GAMES) -> argparse.ArgumentParser:
    """The full argument parser with every part's subcommands; `--game` offers the games of `games`."""
    parser = argparse.ArgumentParser(prog="keltis-cam", description="Camera assistant for Keltis tables.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, games)
    return parser


def main(argv: list[str] | None = None, games: GameRegistry = GAMES) -> int:
    """Entry point: exit 0 on success, 2 on malformed input (one line naming the file or field)."""
    parser = build_parser(games)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except MalformedInput as exc:
        print(f"keltis-cam {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
