"""`keltis-cam serve`: the whole pipeline and the phone dashboard on the local network.

    keltis-cam serve [--source picamera2|opencv:N|replay:SESSION] [--host 0.0.0.0] [--port 8000]
                     [--data-dir DIR] [--pin PIN] [--observer truth|vision] [--speed N|fast] [--loop]

Without --source: the config file's [camera] source if it names one, else the Raspberry Pi camera
if one is connected, else the bundled example session (a replayed game, looping) so that a
newcomer sees a game at once. Until the vision observer exists, a recorded session with truth
files is read by the tracking's truth observer, and the page says so in small print.

The config file may hold a [web] table: host, port, threads, pin, public_url.
Heavy imports (Flask, waitress, OpenCV) happen inside the handler.
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine.errors import MalformedInput

log = logging.getLogger("keltis.serve")

#: The bundled example game, relative to the repository (fixtures/ is not installed as package data).
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PREFERRED_DEMO = ("sessions/demo", "sessions/base-2p")
WEB_KEYS = {"host": str, "port": int, "threads": int, "pin": (str, int), "public_url": str}


def bundled_session() -> Path | None:
    """The example session shipped in fixtures/ (a board game with truth), or None."""
    for rel in PREFERRED_DEMO:
        p = FIXTURES / rel
        if (p / "session.json").is_file() and (p / "truth").is_dir():
            return p
    found = sorted(p.parent for p in FIXTURES.glob("**/session.json") if (p.parent / "truth").is_dir())
    board_games = [p for p in found if '"keltis"' in (p / "session.json").read_text(encoding="utf-8")]
    return (board_games or found or [None])[0]


def pi_camera_present() -> bool:
    """True when picamera2 is installed and sees a camera (never raises)."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except Exception:
        return False
    try:
        return bool(Picamera2.global_camera_info())
    except Exception:
        return False


def choose_source(explicit: str | None, configured: str | None) -> tuple[str, str]:
    """(source spec, why it was chosen)."""
    if explicit:
        return explicit, "--source"
    if configured:
        return configured, "the config file's [camera] source"
    if pi_camera_present():
        return "picamera2", "a Raspberry Pi camera is connected"
    demo = bundled_session()
    if demo is None:
        raise MalformedInput("no camera found and no bundled example session in fixtures/; "
                             "give --source replay:SESSION_FOLDER or --source opencv:0", field="--source")
    return f"replay:{demo}", "no camera found: replaying the bundled example game"


def _web_settings(cfg: Any) -> dict[str, Any]:
    web = dict(cfg.sections.get("web") or {})
    for key, value in web.items():
        kind = WEB_KEYS.get(key)
        if kind is None:
            raise MalformedInput(f"unknown key {key!r} (known: {sorted(WEB_KEYS)})", source=str(cfg.path),
                                 field=f"web.{key}")
        if not isinstance(value, kind) or isinstance(value, bool):
            raise MalformedInput(f"unexpected value {value!r}", source=str(cfg.path), field=f"web.{key}")
    return web


def build(args: argparse.Namespace) -> dict[str, Any]:
    """Everything `serve` runs, built but not started: tracker, pipeline, app, and what to print."""
    from engine.tracking.replay import parse_speed
    from engine.tracking.config import TrackingConfig
    from engine.tracking.observers import make_observer
    from engine.tracking.store import EventStore, default_db_path
    from engine.tracking.tracker import GameTracker
    from keltis_cam.config import load_config
    from vision.sources import open_source, parse_spec

    from .app import create_app
    from .config import WebConfig
    from .runner import ServedPipeline

    cfg = load_config(args.config, data_dir=args.data_dir)
    web = _web_settings(cfg)
    spec, why = choose_source(args.source, cfg.camera.source)
    kind, target, options = parse_spec(spec)
    session = None
    setup = None
    temp_dir = None
    if kind == "replay":
        from vision.session import open_session

        session = open_session(target)
        if not session.frames:
            raise MalformedInput("the session lists no frames", source=str(session.folder))
        info = session.info
        setup = {"game": info.game, "board": info.board, "seats": dict(info.seats), "rules": dict(info.rules or {})}
        observer_name = args.observer or ("truth" if (session.folder / "truth").is_dir() else "vision")
    else:
        observer_name = args.observer or "vision"
    observer = make_observer(observer_name, session)

    # A replay is a demonstration: its games go to a throw-away directory unless --data-dir is given.
    if args.data_dir or kind != "replay":
        data_dir = Path(cfg.data_dir)
    else:
        temp_dir = tempfile.TemporaryDirectory(prefix="keltis-serve-")
        data_dir = Path(temp_dir.name)
    data_dir.mkdir(parents=True, exist_ok=True)

    tracker = GameTracker(EventStore(default_db_path(data_dir)),
                          config=TrackingConfig(auto_end_on_empty_draw_pile=kind == "replay"),
                          observer=observer_name)
    speed = parse_speed(args.speed) if args.speed is not None else options.get("speed", 1.0) if kind == "replay" else None
    loop = args.loop if args.loop is not None else (kind == "replay" and args.source is None)

    def make_source() -> Any:
        if kind == "replay":
            query = f"speed={'fast' if speed is None else speed}"
            return open_source(f"replay:{session.folder}?{query}")
        return open_source(spec, **cfg.camera.source_options())

    make_source().stop()  # fail now, with a clear message, on a source that cannot even be opened
    pipeline = ServedPipeline(make_source, observer, tracker, setup=setup, loop=loop)

    calibration = args.calibration
    if calibration is None and session is not None and session.info.calibration:
        candidate = session.folder / session.info.calibration
        calibration = candidate if candidate.is_file() else None
    if calibration is None and Path(cfg.calibration_path).is_file():
        calibration = cfg.calibration_path
    threads = args.threads or int(web.get("threads", 48))
    if threads < 8:
        raise MalformedInput(f"at least 8 threads are needed, got {threads}", field="--threads")
    label = None
    if session is not None:
        label = f"Replay of {session.folder.name}" + (" (looping)" if loop else "")
    webcfg = WebConfig(data_dir=data_dir, calibration_file=Path(calibration) if calibration else None,
                       public_url=args.public_url or web.get("public_url"), source_label=label,
                       max_streams=max(4, threads - 8))
    pin = args.pin or (str(web["pin"]) if "pin" in web else None)
    try:
        app = create_app(tracker, pipeline=pipeline, pin=pin, config=webcfg)
    except ValueError as exc:  # a PIN that is not 4-12 digits
        raise MalformedInput(str(exc), field="--pin") from None
    return {"app": app, "tracker": tracker, "pipeline": pipeline, "spec": spec, "why": why,
            "observer": observer_name, "data_dir": data_dir, "temp_dir": temp_dir, "threads": threads,
            "host": args.host or web.get("host", "0.0.0.0"), "port": args.port if args.port is not None
            else int(web.get("port", 8000)), "calibration": calibration}


def cmd_serve(args: argparse.Namespace) -> int:
    """Start the pipeline and the web server; stop cleanly on Ctrl-C or SIGTERM."""
    from .qr import page_url
    from .server import make_server, shutdown

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parts = build(args)
    app, pipeline, tracker = parts["app"], parts["pipeline"], parts["tracker"]
    deps = app.extensions["keltis"]
    try:
        server = make_server(app, host=parts["host"], port=parts["port"], threads=parts["threads"])
    except OSError as exc:
        print(f"keltis-cam serve: error: cannot listen on {parts['host']}:{parts['port']}: {exc.strerror or exc} "
              "(another server running? use --port)", file=sys.stderr)
        deps.broadcaster.stop()
        tracker.store.close()
        if parts["temp_dir"] is not None:
            parts["temp_dir"].cleanup()
        return 1
    port = getattr(server, "effective_port", parts["port"])
    url = page_url(parts["host"], port, deps.page_url)
    deps.page_url = url
    pipeline.start()
    _banner(url, deps.pin, parts)

    def on_term(signum, frame):  # SIGTERM (systemd stop) ends like Ctrl-C
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        print("keltis-cam serve: stopping", file=sys.stderr)
        deps.broadcaster.stop()
        pipeline.stop()
        shutdown(server)
        tracker.store.close()
        if parts["temp_dir"] is not None:
            parts["temp_dir"].cleanup()
    return 0


def _banner(url: str, pin: str, parts: dict[str, Any]) -> None:
    out = sys.stdout
    out.write("\nkeltis-cam: the phone dashboard is running\n\n")
    out.write(f"  Open on phones (same Wi-Fi):  {url}\n")
    if parts["host"] in ("0.0.0.0", "::", ""):
        out.write(f"  On this machine:              http://127.0.0.1:{url.rsplit(':', 1)[-1]}\n")
    out.write(f"  Table PIN:                    {pin}   (new game, corrections, camera check: {url}table/)\n")
    out.write(f"  Source:                       {parts['spec']}  ({parts['why']})\n")
    if parts["observer"] == "truth":
        out.write("  Read by:                      the truth observer (the recording's truth files, not the camera's "
                  "vision)\n")
    else:
        out.write(f"  Read by:                      the {parts['observer']} observer\n")
    out.write(f"  Games stored in:              {parts['data_dir']}"
              + ("  (temporary: pass --data-dir to keep them)" if parts["temp_dir"] else "") + "\n")
    if parts["calibration"]:
        out.write(f"  Calibration:                  {parts['calibration']}\n")
    try:
        import segno

        out.write("\n")
        segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    except Exception:  # a terminal that cannot show it: the setup screen has the same code
        pass
    out.write("\nStop with Ctrl-C.\n")
    out.flush()


def register(sub: argparse._SubParsersAction) -> None:
    """Add `serve`."""
    p = sub.add_parser("serve", help="run the pipeline and serve the phone dashboard on the local network",
                       description="Live scores, warnings and the story of the game on every player's phone.")
    p.add_argument("--source", metavar="SPEC",
                   help="picamera2[:N], opencv:N or replay:SESSION_FOLDER (default: the config's camera, the Pi "
                        "camera if connected, else the bundled example game)")
    p.add_argument("--observer", choices=("truth", "vision"),
                   help="how frames are read (default: truth for a recording with truth files, else vision)")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help="port (default 8000; 0: any free port)")
    p.add_argument("--data-dir", metavar="DIR", help="where games are stored (default: the config's data dir; "
                                                      "a temporary one for replays)")
    p.add_argument("--config", metavar="FILE", help="config file (default ~/.config/keltis-cam/config.toml)")
    p.add_argument("--pin", help="table PIN, 4-12 digits (default: a new random one, printed here)")
    p.add_argument("--threads", type=int, help="server threads (default 48; each open phone page holds one)")
    p.add_argument("--public-url", metavar="URL", help="the address phones use, for the QR code "
                                                       "(default: this machine's LAN address)")
    p.add_argument("--calibration", metavar="FILE", help="table calibration for the picture overlays "
                                                         "(default: the session's or the config's)")
    p.add_argument("--speed", metavar="N|fast", help="replay speed (default 1: as recorded)")
    p.add_argument("--loop", action=argparse.BooleanOptionalAction, default=None,
                   help="start a replay again when it ends (default: on for the bundled example)")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the server does")
    p.set_defaults(func=cmd_serve)
