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
from pathlib import Path
from typing import Any

from engine.errors import MalformedInput

log = logging.getLogger("keltis.serve")

#: Longest wait for the server's threads on stop (streams end at once; a picture being drawn may not).
STOP_SECONDS = 1.0

WEB_KEYS = {"host": str, "port": int, "threads": int, "pin": (str, int), "public_url": str}


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
    from camera.sources import parse_spec
    from keltis_cam.config import load_config
    from keltis_cam.pipeline import build_pipeline, choose_source, parse_speed
    from webui.app import create_app
    from webui.config import WebConfig

    cfg = load_config(args.config, data_dir=args.data_dir)
    web = _web_settings(cfg)
    spec, why = choose_source(args.source, cfg.camera.source)
    kind, _target, options = parse_spec(spec)
    speed = parse_speed(args.speed) if args.speed is not None else options.get("speed", 1.0) if kind == "replay" else None
    # A replay is a demonstration: its games go to a throw-away directory unless --data-dir is given.
    keep = bool(args.data_dir) or kind != "replay"
    built = build_pipeline(spec, why=why, observer=args.observer, speed=speed,
                           data_dir=cfg.data_dir if keep else None, throwaway_replay=not keep,
                           source_options=cfg.camera.source_options(), tracking=cfg.tracking)
    loop = args.loop if args.loop is not None else (kind == "replay" and args.source is None)
    built.make_source().stop()  # fail now, with a clear message, on a source that cannot even be opened
    pipeline = built.served(loop=loop)
    session = built.session

    calibration = args.calibration
    if calibration is None and session is not None and session.info.calibration:
        candidate = session.folder / session.info.calibration
        calibration = candidate if candidate.is_file() else None
    if calibration is None and Path(cfg.calibration_path).is_file():
        calibration = cfg.calibration_path
    threads = args.threads or int(web.get("threads", 48))
    if threads < 8:
        built.close()
        raise MalformedInput(f"at least 8 threads are needed, got {threads}", field="--threads")
    label = None
    if session is not None:
        label = f"Replay of {session.folder.name}" + (" (looping)" if loop else "")
    webcfg = WebConfig(data_dir=built.data_dir, calibration_file=Path(calibration) if calibration else None,
                       public_url=args.public_url or web.get("public_url"), source_label=label,
                       max_streams=max(4, threads - 8))
    pin = args.pin or (str(web["pin"]) if "pin" in web else None)
    try:
        app = create_app(built.tracker, pipeline=pipeline, pin=pin, config=webcfg)
    except ValueError as exc:  # a PIN that is not 4-12 digits
        built.close()
        raise MalformedInput(str(exc), field="--pin") from None
    return {"app": app, "tracker": built.tracker, "pipeline": pipeline, "spec": spec, "why": why,
            "observer": built.observer_name, "data_dir": built.data_dir, "temp_dir": built.temp_dir,
            "built": built, "threads": threads,
            "host": args.host or web.get("host", "0.0.0.0"), "port": args.port if args.port is not None
            else int(web.get("port", 8000)), "calibration": calibration}


def cmd_serve(args: argparse.Namespace) -> int:
    """Start the pipeline and the web server; stop cleanly on Ctrl-C or SIGTERM."""
    from webui.qr import page_url
    from webui.server import make_server, shutdown

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    parts = build(args)
    app, pipeline = parts["app"], parts["pipeline"]
    deps = app.extensions["keltis"]
    try:
        server = make_server(app, host=parts["host"], port=parts["port"], threads=parts["threads"])
    except OSError as exc:
        print(f"keltis-cam serve: error: cannot listen on {parts['host']}:{parts['port']}: {exc.strerror or exc} "
              "(another server running? use --port)", file=sys.stderr)
        deps.broadcaster.stop()
        parts["built"].close()
        return 1
    port = getattr(server, "effective_port", parts["port"])
    url = page_url(parts["host"], port, deps.page_url)
    deps.page_url = url
    pipeline.start()
    _banner(url, deps.pin, parts)

    def on_stop(signum, frame):
        """Ctrl-C and SIGTERM (systemd stop): end the open event streams first, then the server.

        waitress waits up to 5 s for its busy threads when the loop is interrupted; each open
        phone page holds one until the broadcaster says stop, so say it before waitress waits.
        """
        deps.broadcaster.stop(timeout=0)
        raise KeyboardInterrupt
    previous = {sig: signal.signal(sig, on_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        print("keltis-cam serve: stopping", file=sys.stderr)
        deps.broadcaster.stop()
        pipeline.stop()
        shutdown(server, timeout=STOP_SECONDS)
        parts["built"].close()  # after the pipeline stopped: every accepted state is committed
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
