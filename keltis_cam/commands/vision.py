"""Vision subcommands: `keltis-cam analyze IMAGE` and `keltis-cam eval DIR`.

    keltis-cam analyze frame.jpg [--calibration FILE] [--game keltis|keltis-card] [--board nwnz|base|FILE]
                       [--seats south=black,north=white] [--components DIR] [--json] [--overlay out.jpg]
    keltis-cam eval DIR [--jobs N] [--components DIR] [--no-lens] [--limit N] [--errors]

`analyze` reads one frame; `eval` reads a `sim frames` folder and prints per element group
(vision.evaluation.ELEMENT_GROUPS) the error rates, the usable-frame decisions and stage timings.
OpenCV is imported inside the handlers.
"""
from __future__ import annotations

import argparse
import json
import sys

from engine.games import GAMES, GameRegistry


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    p = sub.add_parser("analyze", help="read one camera frame: the observed state it shows")
    p.add_argument("image")
    p.add_argument("--calibration", help="calibration.json (default: the frame's own if the simulator wrote one, "
                                         "else the board's default layout)")
    p.add_argument("--game", choices=games.ids(), default=games.default)
    p.add_argument("--board", help="nwnz, base or a board file (default: the calibration's board)")
    p.add_argument("--seats", help="who plays where: south=black,north=white,... (limits the colours read)")
    p.add_argument("--components", help="components folder (`keltis-cam sim components DIR`; default: bundled)")
    p.add_argument("--no-lens", action="store_true", help="ignore the calibration's lens model")
    p.add_argument("--json", action="store_true", help="print the observed state as JSON")
    p.add_argument("--overlay", help="write a debug overlay image here")
    p.set_defaults(func=cmd_analyze)

    p = sub.add_parser("eval", help="measure the reader on a folder of frames with truth (`sim frames`)")
    p.add_argument("dir")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--components", help="components folder (default: bundled)")
    p.add_argument("--no-lens", action="store_true", help="read without the frames' lens model (K, dist)")
    p.add_argument("--limit", type=int, help="only the first N frames")
    p.add_argument("--errors", action="store_true",
                   help="also list every error (pawns, tiles, card rows, wish stones and cards, points row, "
                        "discard tops), frame by frame, with its kind")
    p.set_defaults(func=cmd_eval)


def cmd_analyze(args: argparse.Namespace) -> int:
    from engine.errors import MalformedInput
    from vision.components import load_components
    from vision.reader import Reader, read_image
    from vision.stagecli import calibration_for, load_board, parse_seats, seats_from_truth

    image = read_image(args.image)        # FrameError (a MalformedInput) names the file
    cal = calibration_for(args.image, args.calibration, args.board, args.no_lens)
    has_board = GAMES.get(args.game).has_board
    board = load_board(cal, args.board) if has_board else None
    if has_board and board is None:
        raise MalformedInput("no board: the calibration is the card game's; pass --board", field="--board")
    try:
        seats = parse_seats(args.seats) or seats_from_truth(args.image)
    except ValueError as exc:
        raise MalformedInput(str(exc), field="--seats") from None
    reader = Reader(cal, game=args.game, board=board, seats=seats, components=load_components(args.components))
    reading = reader.read(image)
    obs = reading.observation
    if args.json:
        print(json.dumps(obs.to_json(), indent=1))
    else:
        print(summary(obs, reading.timings))
    if args.overlay:
        import cv2

        cv2.imwrite(args.overlay, overlay(image, reader, reading))
    return 0


def summary(obs, timings) -> str:
    """A short readable summary of one reading."""
    lines = [f"{obs.game} {obs.board or ''}: " + ("usable" if obs.usable else f"NOT usable: {obs.reason}"
                                                   + (f" (hands: {', '.join(str(h.get('seat')) for h in obs.extra['hands'])})"
                                                      if obs.extra.get("hands") else ""))]
    if obs.pawns is not None:
        on = [p for p in obs.pawns if p.stone != "start"]
        lines.append("pawns: " + (", ".join(f"{p.player}{' big' if p.big else ''} on {p.stone}" for p in on) or "none on paths"))
        start = [p for p in obs.pawns if p.stone == "start"]
        lines.append(f"  on start: {len(start)}")
    if obs.tiles is not None:
        lines.append("tiles: " + ", ".join(f"{s}={c or '-'}" for s, c in obs.tiles.items()))
    for seat, so in obs.seats.items():
        rows = "  ".join(f"{c}: {' '.join(r)}" for c, r in so.rows.items()) or "no rows"
        extra = []
        if so.wish:
            extra.append("wish stones " + ", ".join(f"{c} {n}" for c, n in so.wish.items()))
        if obs.game != "keltis":
            extra.append(f"points row {so.points_row}, wish cards {list(so.wish_cards)}")
        lines.append(f"{seat} ({so.player}): {rows}" + (f"; {'; '.join(extra)}" if extra else ""))
    if obs.discard_tops:
        lines.append("discard tops: " + ", ".join(f"{p}={c or '-'}" for p, c in obs.discard_tops.items()))
    if obs.confidence:
        lines.append("confidence: " + ", ".join(f"{k} {v}" for k, v in obs.confidence.items()))
    lines.append("ms: " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
    return "\n".join(lines)


def overlay(image, reader, reading):
    """Tiles and pawns drawn over the frame (or the registration overlay when the board is not read)."""
    from calibration.registration import draw_registration
    from vision.pawns import draw_pawns
    from vision.tiles import draw_tiles

    if reader.model is None or reading.tiles is None:
        out = draw_registration(image, reader.calibration, reader.registration) if reader.registration else image.copy()
    else:
        m = reader.model
        out = draw_tiles(image, m.pose, m.board, reading.tiles, m.board_thickness)
        out = draw_pawns(out, m.pose, m.components, reading.detections, m.board_thickness)
    import cv2

    text = "usable" if reading.observation.usable else f"NOT usable: {reading.observation.reason}"
    cv2.putText(out, text, (10, out.shape[0] - 20), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 4)
    cv2.putText(out, text, (10, out.shape[0] - 20), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 255, 255), 2)
    return out


def cmd_eval(args: argparse.Namespace) -> int:
    from vision.evaluation import error_details, progress_to_stderr, run_eval, summarise

    results = run_eval(args.dir, jobs=max(1, args.jobs), no_lens=args.no_lens, components=args.components,
                       limit=args.limit, progress=progress_to_stderr)
    sys.stderr.write("\n")
    from vision.components import load_components
    from vision.numerals import numeral_source

    print(f"card numerals read by: {numeral_source(load_components(args.components))}")
    print(summarise(results))
    if args.errors:
        print("\nerrors (frame, group, kind, truth -> read):")
        print(error_details(results))
    return 0
