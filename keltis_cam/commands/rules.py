"""Engine subcommands: `score`, `check`, `board show`, `demo`.

Scoring and checking dispatch on the observation's "game" through the registry (engine/games.py):
each game's observed-state module returns the same shapes.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import MalformedInput
from engine.games import GAMES, GameInfo, GameRegistry
from engine.observation import Observation, load_observation


def _game(args: argparse.Namespace, obs: Observation, source: str) -> GameInfo:
    games: GameRegistry = getattr(args, "games", None) or GAMES
    return games.get(obs.game, source=source)


def _validate(info: GameInfo, obs: Observation, source: str) -> None:
    """Let the game's module check a state against its board, so errors name the file."""
    info.validate(obs, source)


def _parse_points(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        seat, sep, n = item.partition("=")
        if not sep or not n.lstrip("-").isdigit():
            raise MalformedInput(f"expected SEAT=N, got {item!r}", field="--points")
        out[seat] = int(n)
    return out


def cmd_score(args: argparse.Namespace) -> int:
    """Score one observed state."""
    obs = load_observation(args.state)
    if not obs.usable:
        raise MalformedInput(f"the frame is marked unusable ({obs.reason}); nothing to score", source=args.state)
    info = _game(args, obs, args.state)
    _validate(info, obs, args.state)
    points = _parse_points(args.points or [])
    unknown = sorted(set(points) - set(obs.seats))
    if unknown:
        raise MalformedInput(f"no such seat in the state: {', '.join(unknown)}", field="--points")
    sheet = info.score(obs, points=points)
    if args.json:
        json.dump(sheet.to_json(), sys.stdout, indent=1)
        print()
        return 0
    for seat, score in sheet.scores.items():
        print(f"{seat} ({score.player}): {score.total}")
        for part in score.parts:
            print(f"    {part.points:+4d}  {part.label}")
    print("winners: " + ", ".join(sheet.winners))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Report what changed between two observed states and the rules it breaks."""
    before, after = load_observation(args.before), load_observation(args.after)
    if before.game != after.game:
        raise MalformedInput(f"the states are of different games ({before.game} vs {after.game})", source=args.after)
    if not before.usable or not after.usable:
        bad = args.before if not before.usable else args.after
        raise MalformedInput("the frame is marked unusable; nothing to compare", source=bad)
    info = _game(args, before, args.before)
    _validate(info, before, args.before)
    _validate(info, after, args.after)
    report = info.check(before, after)
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=1)
        print()
        return 0
    for change in report.changes:
        print(f"change: {change.text}")
    if not report.changes:
        print("no change")
    for v in report.violations:
        print(f"VIOLATION {v.code}: {v.message}")
    if not report.violations:
        print("legal")
    return 0


def cmd_board_show(args: argparse.Namespace) -> int:
    """Draw a board file as SVG."""
    from engine.board import load_board
    from engine.board_svg import board_to_svg

    board = load_board(args.name)
    svg = board_to_svg(board)
    if args.svg:
        Path(args.svg).write_text(svg, encoding="utf-8")
        print(f"wrote {args.svg} ({board.title}: {len(board.stones)} stones)")
    else:
        sys.stdout.write(svg)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Play a seeded game with the engine and print its story and scores (the bundled example)."""
    from engine.demo import run_demo

    return run_demo(args, getattr(args, "games", None) or GAMES)


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    """Add the engine's subcommands (`demo --game` offers the games of `games`)."""
    p = sub.add_parser("score", help="score an observed state (FORMATS §2)")
    p.add_argument("state", help="observed-state JSON file")
    p.add_argument("--points", nargs="*", metavar="SEAT=N",
                   help="points-tile points a seat has scored (the camera cannot see them)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_score, games=games)

    p = sub.add_parser("check", help="what changed between two observed states, and the rules broken")
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_check, games=games)

    p = sub.add_parser("board", help="board files")
    bsub = p.add_subparsers(dest="board_command", metavar="ACTION")
    bsub.required = True
    q = bsub.add_parser("show", help="draw a board file as SVG")
    q.add_argument("name", help="bundled board name (base, nwnz) or a board file path")
    q.add_argument("--svg", metavar="FILE", help="write the SVG here (default: standard output)")
    q.set_defaults(func=cmd_board_show)

    p = sub.add_parser("demo", help="play a seeded example game with the engine and print it")
    p.add_argument("--game", choices=games.ids(), default=games.default)
    p.add_argument("--board", default="nwnz", help="board for the board game (base, nwnz or a file)")
    p.add_argument("--players", type=int, default=3, choices=[2, 3, 4])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the log and scores as JSON")
    p.set_defaults(func=cmd_demo, games=games)
