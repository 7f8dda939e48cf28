"""Simulator subcommands: `keltis-cam sim components|render|session|frames`.

    keltis-cam sim components DIR [--style alt]        component images + components.json
    keltis-cam sim render --board nwnz --seed 3 --out frame.jpg
    keltis-cam sim session --board nwnz --players 3 --seed 7 --out DIR [--illegal N] [--hard]
    keltis-cam sim session --game keltis-card --players 3 --seed 7 --out DIR
    keltis-cam sim frames --n 500 --seed S --out DIR [--art COMPONENTS_DIR]

OpenCV and numpy are imported inside the handlers, so other commands start fast.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry

FULL_SIZE = (2304, 1296)


def _size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) < 64 or int(h) < 36:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 2304x1296, got {text!r}")
    return int(w), int(h)


def _game_args(p: argparse.ArgumentParser, games: GameRegistry, players: int = 3) -> None:
    p.add_argument("--game", choices=games.ids(), default=games.default,
                   help="which game: " + ", ".join(f"{g.id} ({g.title})" for g in games))
    p.add_argument("--board", default="nwnz", help="board name (base, nwnz) or a board file (board game only)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=players)
    p.add_argument("--seed", type=int, default=7, help="seed of the game, the camera, the table and the light")
    p.add_argument("--size", type=_size, default=FULL_SIZE, metavar="WxH",
                   help="frame size (default 2304x1296, the Pi camera's binned mode)")
    p.add_argument("--hard", action="store_true", help="dim warm light, strong tilt and glare")
    p.add_argument("--no-distractors", dest="distractors", action="store_false",
                   help="no mug, phone or pad beside the board")
    _art_arg(p)


def _art_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--art", metavar="COMPONENTS_DIR",
                   help="draw cards, tiles, wish stones and boards from this components folder's pictures "
                        "(e.g. `sim components DIR --style alt`, or a group's own scans) instead of the built-in art")


def _use_art(args: argparse.Namespace) -> None:
    if getattr(args, "art", None):
        from simulator.render import SPRITES

        folder = Path(args.art)
        if not (folder / "components.json").is_file():
            raise MalformedInput(f"{folder}: no components.json here (write one with `keltis-cam sim components`)",
                                 field="--art")
        SPRITES.use_art(str(folder))


def _board(args: argparse.Namespace) -> str | None:
    """--board for a game played on a board, None for a board-less game."""
    games: GameRegistry = getattr(args, "games", None) or GAMES
    return args.board if games.get(args.game, field="--game").has_board else None


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    """Add `sim` and its subcommands."""
    sim = sub.add_parser("sim", help="simulated camera frames and recorded sessions with exact truth",
                         description="Render realistic camera frames of a Keltis table with exact ground truth.")
    ss = sim.add_subparsers(dest="sim_command", metavar="SIMCOMMAND")
    ss.required = True

    p = ss.add_parser("components", help="export every component as an image, with components.json")
    p.add_argument("dir", help="folder to write into")
    p.add_argument("--boards", nargs="+", default=["base", "nwnz"], help="board sides to export")
    p.add_argument("--style", default="default",
                   help="art style: default, or alt (another typeface, card colours and cream: a second art set "
                        "for measuring that the readers take the art from the components folder)")
    p.set_defaults(func=cmd_components)

    p = ss.add_parser("render", help="render one state of a seeded game to a JPEG (+ truth JSON)")
    _game_args(p, games)
    p.add_argument("--progress", type=float, default=0.6, help="how far into the game (0-1, default 0.6)")
    p.add_argument("--hand", choices=("still", "moving"), help="a player's hand over the table")
    p.add_argument("--out", default="frame.jpg", help="JPEG to write (default frame.jpg)")
    p.add_argument("--truth", help="truth JSON to write (default: the JPEG's name with .json)")
    p.set_defaults(func=cmd_render, games=games)

    p = ss.add_parser("session", help="play a whole game and record it as a session folder (FORMATS §3)")
    _game_args(p, games)
    p.add_argument("--out", required=True, help="session folder to write")
    p.add_argument("--fps", type=float, default=1.0, help="frames per second (default 1)")
    p.add_argument("--max-moves", type=int, help="stop after this many moves (default: the whole game)")
    p.add_argument("--illegal", type=int, default=0, metavar="N",
                   help="inject N rule-breaking moves (listed in truth/events.jsonl with injected: true)")
    p.add_argument("--quality", type=int, help="JPEG quality (default: drawn per session, 72-95)")
    p.add_argument("--rules", help="rule settings as JSON, e.g. '{\"wish_face_down\": true}'")
    p.add_argument("--stills", type=_size, metavar="WxH",
                   help="film a small video stream (--size) and let replays take full-resolution stills of "
                        "this size when the reader asks, as a live camera does (rendered on request)")
    p.add_argument("--truth-render", choices=["full", "none"], default="full",
                   help="full: each frame's truth says where everything is in the image (default); none: only "
                        "the observed state (a long session stays small)")
    p.add_argument("--overwrite", action="store_true", help="replace a session already in the folder")
    p.set_defaults(func=cmd_session, games=games)

    p = ss.add_parser("frames", help="a data set of single frames with truth across all conditions")
    p.add_argument("--n", type=int, default=500, help="number of frames (default 500)")
    p.add_argument("--seed", type=int, default=1, help="data set seed")
    p.add_argument("--size", type=_size, default=FULL_SIZE, metavar="WxH")
    p.add_argument("--out", required=True, help="folder to write")
    p.add_argument("--view", choices=("auto", "board", "play-area"), default="auto",
                   help="what each frame's camera must see whole besides three markers: the board (a low "
                        "camera may cut the seats' cards off), or the whole play area; auto (default): the "
                        "board for the board games, the play area for the card game")
    p.add_argument("--camera-height", type=_height_range, metavar="LO-HI",
                   help="draw each frame's camera height above the table from this range in mm (default "
                        "500-1500); e.g. 1500-2200 for a camera hung too high")
    p.add_argument("--overwrite", action="store_true")
    _art_arg(p)
    p.set_defaults(func=cmd_frames)


def _height_range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO-HI in mm (e.g. 1500-2200), got {text!r}") from None
    if not 0 < lo <= hi:
        raise argparse.ArgumentTypeError(f"expected 0 < LO <= HI, got {text!r}")
    return lo, hi


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cmd_components(args: argparse.Namespace) -> int:
    from simulator.components import ART_STYLES, art_style
    from simulator.export import export_components

    if args.style not in ART_STYLES:
        raise MalformedInput(f"unknown art style {args.style!r} (known: {', '.join(ART_STYLES)})", field="--style")
    with art_style(args.style):
        cat = export_components(args.dir, tuple(args.boards))
    print(f"{len(cat['files'])} component images and components.json written to {args.dir}"
          + (f" (style {args.style})" if args.style != "default" else ""))
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from simulator.dataset import FrameSpec, render_single

    if not 0.0 <= args.progress <= 1.0:
        raise MalformedInput(f"must be between 0 and 1, got {args.progress}", field="--progress")
    spec = FrameSpec(game=args.game, board=_board(args), players=args.players,
                     seed=args.seed, progress=args.progress, size=args.size, hard=args.hard, hand=args.hand,
                     distractors=args.distractors)
    _use_art(args)
    jpeg, truth = render_single(spec)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(jpeg)
    truth_path = Path(args.truth) if args.truth else out.with_suffix(".json")
    truth_path.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    what = f"{args.game}" + (f" on the {args.board} board" if _board(args) else "")
    print(f"frame of {what} ({args.players} players, seed {args.seed}, state {truth['state_id']}) "
          f"written to {out} ({len(jpeg) // 1024} KB, {spec.size[0]}x{spec.size[1]}); truth in {truth_path}")
    return 0


def cmd_session(args: argparse.Namespace) -> int:
    from simulator.record import SessionOptions, record_session

    rules = {}
    if args.rules:
        from engine.jsontext import loads

        try:
            rules = loads(args.rules)
        except MalformedInput as exc:
            raise MalformedInput(str(exc), field="--rules") from None
        if not isinstance(rules, dict):
            raise MalformedInput(f"expected a JSON object, got {args.rules!r}", field="--rules")
    if args.fps <= 0 or args.fps > 30:
        raise MalformedInput(f"must be in (0, 30], got {args.fps}", field="--fps")
    opts = SessionOptions(game=args.game, board=_board(args), players=args.players,
                          seed=args.seed, size=args.size, fps=args.fps, max_moves=args.max_moves,
                          illegal=max(0, args.illegal), hard=args.hard, quality=args.quality,
                          distractors=args.distractors, rules=rules, truth_render=args.truth_render,
                          stills=args.stills)
    _use_art(args)
    summary = record_session(args.out, opts, overwrite=args.overwrite, progress=_say)
    print(f"session written to {summary['folder']}: {summary['frames']} frames ({summary['usable_frames']} usable), "
          f"{summary['moves']} moves, {summary['violations']} rule violations "
          f"({summary['injected']} injected), {summary['duration_s']} s of play"
          + ("" if summary["game_over"] else " (stopped before the end)"))
    return 0


def cmd_frames(args: argparse.Namespace) -> int:
    from simulator.dataset import write_dataset

    if args.n < 1:
        raise MalformedInput(f"must be at least 1, got {args.n}", field="--n")
    _use_art(args)
    summary = write_dataset(args.out, args.n, args.seed, args.size, overwrite=args.overwrite, progress=_say,
                            view=None if args.view == "auto" else args.view, camera_height=args.camera_height)
    print(f"{summary['n']} frames with truth written to {args.out}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(summary["counts"].items())))
    return 0
