"""Camera subcommands: `record`, `doctor`, `config init|show`. Heavy imports only inside handlers."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry


def _load_config(args: argparse.Namespace):
    from keltis_cam.config import load_config

    return load_config(getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))


def resolve_source(args: argparse.Namespace, cfg: Any) -> tuple[str, dict[str, Any]]:
    """The source spec (--source, else the config's [camera] source; never a guess) and its options."""
    from keltis_cam.pipeline import required_source

    return required_source(getattr(args, "source", None), cfg)


def _parse_seats(text: str | None) -> dict[str, str]:
    from engine.cards import PLAYER_COLOURS, SEATS

    if not text:
        return {}
    seats: dict[str, str] = {}
    for item in text.split(","):
        seat, sep, colour = item.strip().partition("=")
        if not sep or seat not in SEATS or colour not in PLAYER_COLOURS:
            raise MalformedInput(f"expected SEAT=COLOUR with seats {'/'.join(SEATS)} and colours "
                                 f"{'/'.join(PLAYER_COLOURS)}, got {item!r}", field="--seats")
        seats[seat] = colour
    return {s: seats[s] for s in SEATS if s in seats}


def cmd_record(args: argparse.Namespace) -> int:
    """Record a session folder from a live camera (or any source)."""
    import logging
    import signal
    import threading
    from pathlib import Path

    from camera.record import default_session_name, record_session, source_kind
    from camera.session import SessionInfo, now_iso
    from keltis_cam.pipeline import open_camera_source

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    cfg = _load_config(args)
    spec, options = resolve_source(args, cfg)
    out = Path(args.out) if args.out else cfg.sessions_dir / default_session_name()
    calibration = None
    cal_path = Path(args.calibration) if args.calibration else cfg.calibration_path
    if args.calibration or cal_path.exists():
        from calibration.model import load_calibration

        calibration = load_calibration(cal_path)
    board = args.board or (calibration or {}).get("board") or cfg.board
    if not (getattr(args, "games", None) or GAMES).get(args.game, field="--game").has_board:
        board = None
    info = SessionInfo(game=args.game, board=board, seats=_parse_seats(args.seats), rules={},
                       calibration=None, source=source_kind(spec), started=now_iso(),
                       extra={"source_spec": spec, "recorded_by": "keltis-cam record", "fps": args.fps})
    source = open_camera_source(spec, options)
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    last_state = [None]

    def progress(n: int, t: float, status: dict[str, Any]) -> None:
        if status.get("state") != last_state[0] or n % 10 == 0:
            last_state[0] = status.get("state")
            print(f"\r{n} frames, {t:7.1f} s  [{status.get('state')}, {status.get('fps') or 0:.1f} fps camera]",
                  end="", file=sys.stderr, flush=True)

    print(f"recording {spec} -> {out}  (Ctrl-C to stop)", file=sys.stderr)
    try:
        if args.live:
            from camera.record import record_live
            from tracking.observers import make_observer

            if calibration is None:
                raise MalformedInput("--live reads the table as a served game does: it needs a calibration "
                                     "(keltis-cam calibrate, or --calibration FILE)", field="--calibration")
            observer = make_observer("vision", None, {"calibration": calibration, "game": args.game,
                                                      "board": board, "seats": info.seats or None,
                                                      "components": getattr(args, "components", None)})
            result = record_live(source, out, info, observer, duration=args.duration, max_frames=args.frames,
                                 quality=args.quality, calibration=calibration, overwrite=args.overwrite,
                                 stop=stop, on_frame=progress)
        else:
            result = record_session(source, out, info, fps=args.fps, duration=args.duration,
                                    max_frames=args.frames, quality=args.quality, calibration=calibration,
                                    overwrite=args.overwrite, stop=stop, on_frame=progress)
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(file=sys.stderr)
    status = source.status()
    print(f"{result.folder}: {result.frames} frames over {result.seconds:.1f} s (stopped: {result.stopped_by})")
    if result.stopped_by == "source-failed":
        print(f"source failed: {status.get('error')}", file=sys.stderr)
        return 1
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """Check the installation: camera, OpenCV, numpy, picamera2, data directory, calibration."""
    from camera.doctor import FAIL, format_report, run_checks, to_json

    checks = run_checks(lambda: _load_config(args), args.source, grab=args.grab)
    if args.json:
        json.dump(to_json(checks), sys.stdout, indent=1)
        print()
    else:
        print(format_report(checks))
    return 1 if any(c.status == FAIL for c in checks) else 0


def cmd_config(args: argparse.Namespace) -> int:
    """Write the default config file, or show where everything is."""
    from keltis_cam.config import config_path, write_default_config

    if args.action == "init":
        from keltis_cam.pipeline import init_source

        source, why = init_source(args.source)
        path = write_default_config(args.path or args.config or config_path(), force=args.force, source=source)
        print(f"wrote {path}: " + (f"source = {source} ({why})" if source else
                                   f"no camera source ({why}); `keltis-cam serve` replays the example game"))
        return 0
    cfg = _load_config(args)
    print(f"config file:  {cfg.path} ({'found' if cfg.exists else 'not found, defaults used'})")
    print(f"data dir:     {cfg.data_dir}")
    print(f"sessions:     {cfg.sessions_dir}")
    print(f"calibration:  {cfg.calibration_path} ({'found' if cfg.calibration_path.exists() else 'missing'})")
    print(f"camera:       source={cfg.camera.source!r} " + " ".join(
        f"{k}={v!r}" for k, v in cfg.camera.source_options().items() if k not in ("width", "height")))
    if cfg.board:
        print(f"board:        {cfg.board}")
    print("tracking:     " + " ".join(f"{k}={v!r}" for k, v in cfg.tracking.to_json().items()))
    return 0


def add_config_options(p: argparse.ArgumentParser) -> None:
    """--config and --data-dir, shared by every command that reads the config file."""
    p.add_argument("--config", metavar="FILE", help="config file (default: $KELTIS_CAM_CONFIG or "
                                                    "~/.config/keltis-cam/config.toml)")
    p.add_argument("--data-dir", metavar="DIR", help="data directory (default: $KELTIS_CAM_DATA, the config's "
                                                     "data_dir, or ~/.local/share/keltis-cam)")


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    """Add `record`, `doctor` and `config` (`record --game` offers the games of `games`)."""
    p = sub.add_parser("record", help="record a session folder from a camera",
                       description="Record a session folder (FORMATS §3) from a live camera, for bug reports "
                                   "and new fixtures. Stops on Ctrl-C, --frames or --duration.")
    p.add_argument("out", nargs="?", help="session folder to create (default: DATA_DIR/sessions/<date-time>)")
    p.add_argument("--source", help="picamera2 | opencv:N | opencv:FILE | replay:FOLDER (default: the config's)")
    p.add_argument("--fps", type=float, default=1.0, help="frames per second to keep (default 1; 0 = every frame)")
    p.add_argument("--duration", type=float, help="stop after this many seconds")
    p.add_argument("--frames", type=int, help="stop after this many frames")
    p.add_argument("--quality", type=int, default=90, help="JPEG quality (default 90)")
    p.add_argument("--game", choices=games.ids(), default=games.default)
    p.add_argument("--board", help="board name for session.json (default: the calibration's)")
    p.add_argument("--seats", help="who sits where, e.g. south=black,north=white")
    p.add_argument("--calibration", metavar="FILE", help="calibration to store in the session (default: the "
                                                         "config's, when it exists)")
    p.add_argument("--overwrite", action="store_true", help="replace a session already in OUT")
    p.add_argument("--live", action="store_true",
                   help="record what a served game uses: every camera frame's small picture, the vision gate's "
                        "decisions and readings (live.jsonl), and the stills it read (frames/); replay it exactly "
                        "with `keltis-cam replay OUT --observer recorded` (needs a calibration)")
    add_config_options(p)
    p.set_defaults(func=cmd_record, games=games)

    p = sub.add_parser("doctor", help="check the installation and say what to fix",
                       description="Check the install: Python, numpy, OpenCV, picamera2, cameras, config file, "
                                   "data directory, calibration. Exit 1 when something must be fixed.")
    p.add_argument("--source", help="check this source instead of the config's")
    p.add_argument("--grab", action="store_true", help="also open the camera and wait for one frame")
    p.add_argument("--json", action="store_true")
    add_config_options(p)
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("config", help="write or show the config file",
                       description="`config init` writes the commented default config file; `config show` "
                                   "prints where the config, data and calibration are.")
    p.add_argument("action", choices=("init", "show"))
    p.add_argument("path", nargs="?", help="for init: where to write (default: the config location)")
    p.add_argument("--force", action="store_true", help="init: overwrite an existing file")
    p.add_argument("--source", help="init: the camera source to write, if it can start here (default: the Pi "
                                    "camera if connected, else a /dev/video* camera OpenCV opens, else none: "
                                    "serve then replays the example game)")
    add_config_options(p)
    p.set_defaults(func=cmd_config)
