"""`keltis-cam serve`: the whole pipeline and the phone dashboard on the local network.

    keltis-cam serve [--source picamera2|opencv:N|replay:SESSION] [--host 0.0.0.0] [--port 8000]
                     [--data-dir DIR] [--pin PIN] [--observer truth|vision] [--speed N|fast] [--loop]

Without --source: the config file's [camera] source if it names one, else the Raspberry Pi camera
if one is connected, else the bundled example session (a replayed game, looping) so that a
newcomer sees a game at once. Every source is read by the camera path (the vision reader behind
the motion gate); `--observer truth` reads a recording's truth files instead, and the page says
so in small print.

The config file may hold a [web] table: host, port, threads, pin, pin_file, public_url.

The table PIN: --pin-file, $KELTIS_CAM_PIN or the config (never in the process arguments, which
every user sees in `ps`; --pin still works for trying things out). Run as a service (--service,
or standard output not a terminal, as under systemd) the banner never prints the PIN: a random
PIN is written to DATA_DIR/table-pin (mode 0600) instead, and the table screen shows it.
Heavy imports (Flask, waitress, OpenCV) happen inside the handler.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry

log = logging.getLogger("keltis.serve")

#: Longest wait for the server's threads on stop (streams end at once; a picture being drawn may not).
STOP_SECONDS = 1.0

WEB_KEYS = {"host": str, "port": int, "threads": int, "pin": (str, int), "pin_file": str, "public_url": str}
#: The environment variable that may hold the table PIN (not visible in `ps`, unlike --pin).
PIN_ENV = "KELTIS_CAM_PIN"
#: Where a service's random PIN is written (in the data directory, readable by its owner only).
PIN_FILE = "table-pin"


def _read_pin_file(path: str | Path, field: str) -> str:
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MalformedInput(f"cannot read the PIN file {path}: {getattr(exc, 'strerror', None) or exc}",
                             field=field) from None
    return text.strip()


def choose_pin(args: argparse.Namespace, web: dict[str, Any], environ: Any = None) -> tuple[str | None, str]:
    """(the table PIN someone chose, where it came from); (None, "") when the server should pick one.

    Order: --pin (visible to every user in `ps`: for trying things out), --pin-file, $KELTIS_CAM_PIN,
    the config's [web] pin_file, then [web] pin. A chosen PIN must not be one anyone tries first.
    """
    from webui.security import check_pin_strength

    environ = os.environ if environ is None else environ
    candidates = ((getattr(args, "pin", None), "--pin"),
                  (_read_pin_file(args.pin_file, "--pin-file") if getattr(args, "pin_file", None) else None,
                   "--pin-file"),
                  (environ.get(PIN_ENV) or None, PIN_ENV),
                  (_read_pin_file(web["pin_file"], "web.pin_file") if "pin_file" in web else None, "web.pin_file"),
                  (str(web["pin"]) if "pin" in web else None, "web.pin"))
    for pin, where in candidates:
        if pin is not None:
            try:
                return check_pin_strength(pin), where
            except ValueError as exc:
                raise MalformedInput(str(exc), field=where) from None
    return None, ""


def is_service(args: argparse.Namespace, stream: Any = None) -> bool:
    """Running as a service (--service, or standard output is not a terminal: journald, a log file)."""
    if getattr(args, "service", None) is not None:
        return bool(args.service)
    stream = sys.stdout if stream is None else stream
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):
        return True


def write_pin_file(data_dir: Path, pin: str) -> Path:
    """The PIN in DATA_DIR/table-pin, mode 0600: a service's operator reads it there, not in the log."""
    path = Path(data_dir) / PIN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(pin + "\n")
    os.chmod(path, 0o600)
    return path


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
    # a live camera's reader starts from the table's calibration (markers, lens) and the configured
    # components; the game started on the table screen then names its board and seats
    live_calibration = args.calibration or (cfg.calibration_path if Path(cfg.calibration_path).is_file() else None)
    components = getattr(args, "components", None) or cfg.components
    observer_config = {"calibration": str(live_calibration) if live_calibration else None,
                       "components": components, "board": cfg.board}
    built = build_pipeline(spec, why=why, observer=args.observer, speed=speed,
                           data_dir=cfg.data_dir if keep else None, throwaway_replay=not keep,
                           source_options=cfg.camera.source_options(), tracking=cfg.tracking,
                           games=getattr(args, "games", None) or GAMES, observer_config=observer_config)
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
    first_run = not cfg.exists  # no configuration file yet: the table screen opens the setup page
    camera_source = None
    if first_run:
        if args.source and kind != "replay":
            camera_source = args.source
        elif kind != "replay":
            camera_source = spec
        else:
            from keltis_cam.pipeline import detect_camera_source

            camera_source = detect_camera_source()[0]
    webcfg = WebConfig(data_dir=built.data_dir, calibration_file=Path(calibration) if calibration else None,
                       public_url=args.public_url or web.get("public_url"), source_label=label,
                       max_streams=max(4, threads - 8),
                       extra={"config_path": str(cfg.path), "camera_source": camera_source} if first_run else {})
    try:
        pin, pin_source = choose_pin(args, web)
    except MalformedInput:
        built.close()
        raise
    app = create_app(built.tracker, pipeline=pipeline, pin=pin, config=webcfg,
                     games=getattr(args, "games", None) or GAMES)
    if first_run:
        app.extensions["keltis"].save_setup = _config_writer(cfg.path, camera_source)
    service = is_service(args)
    pin_file = None
    if service and pin is None:  # a random PIN the log must not show: its owner reads it from a file
        pin_file = write_pin_file(built.data_dir, app.extensions["keltis"].pin)
    return {"app": app, "tracker": built.tracker, "pipeline": pipeline, "spec": spec, "why": why,
            "observer": built.observer_name, "data_dir": built.data_dir, "temp_dir": built.temp_dir,
            "built": built, "threads": threads, "service": service, "first_run": first_run,
            "config_path": cfg.path, "pin_file": pin_file, "pin_source": pin_source,
            "host": args.host or web.get("host", "0.0.0.0"), "port": args.port if args.port is not None
            else int(web.get("port", 8000)), "calibration": calibration}


def _config_writer(path: Path, source: str | None):
    """What the first-run page calls with the checked setup: writes the configuration file (the
    camera found here, or none; the board chosen), returns its path."""
    def save(setup: dict[str, Any]) -> Path:
        from datetime import datetime

        from keltis_cam.config import write_default_config

        players = ", ".join(f"{seat} {colour}" + (f" ({setup['names'][seat]})" if seat in setup.get("names", {}) else "")
                            for seat, colour in setup["seats"].items())
        note = (f"Written by the first-run page on {datetime.now().strftime('%Y-%m-%d %H:%M')}: "
                f"{setup['game']}{', board ' + setup['board'] if setup.get('board') else ''}; {players}.")
        return write_default_config(path, source=source, board=setup.get("board"), note=note)
    return save


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

    def on_stop(signum, frame):
        """Ctrl-C and SIGTERM (systemd stop): end the open event streams first, then the server.

        waitress waits up to 5 s for its busy threads when the loop is interrupted; each open
        phone page holds one until the broadcaster says stop, so say it before waitress waits.
        """
        deps.broadcaster.stop(timeout=0)
        raise KeyboardInterrupt
    previous = {sig: signal.signal(sig, on_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        _banner(url, deps.pin, parts)  # after the handlers: a stop during the banner still ends cleanly
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
    if not parts.get("service"):
        out.write(f"  Table PIN:                    {pin}   (new game, corrections, camera check: {url}table/)\n")
    elif parts.get("pin_file"):  # journald keeps what a service prints: never the PIN
        out.write(f"  Table PIN:                    in {parts['pin_file']} (not printed when run as a service)\n")
    else:
        out.write(f"  Table PIN:                    the one set with {parts.get('pin_source')} (not printed)\n")
    if parts.get("first_run"):
        out.write(f"  First run:                    set up the table on {url}table/setup "
                  f"(no configuration file yet: {parts['config_path']})\n")
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


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    """Add `serve`."""
    p = sub.add_parser("serve", help="run the pipeline and serve the phone dashboard on the local network",
                       description="Live scores, warnings and the story of the game on every player's phone.")
    p.add_argument("--source", metavar="SPEC",
                   help="picamera2[:N], opencv:N or replay:SESSION_FOLDER (default: the config's camera, the Pi "
                        "camera if connected, else the bundled example game)")
    p.add_argument("--observer", choices=("truth", "vision"),
                   help="how frames are read (default: vision, the camera path; truth: a recording's truth files)")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--port", type=int, help="port (default 8000; 0: any free port)")
    p.add_argument("--data-dir", metavar="DIR", help="where games are stored (default: the config's data dir; "
                                                      "a temporary one for replays)")
    p.add_argument("--config", metavar="FILE", help="config file (default ~/.config/keltis-cam/config.toml)")
    p.add_argument("--pin", help="table PIN, 4-12 digits; visible to every user of this machine in `ps`: "
                                 f"prefer --pin-file, ${PIN_ENV} or [web] pin in the config "
                                 "(default: a new random 6-digit one, printed here)")
    p.add_argument("--pin-file", metavar="FILE", help="read the table PIN from this file")
    p.add_argument("--service", action=argparse.BooleanOptionalAction, default=None,
                   help="run as a service: never print the PIN (a random one is written to DATA_DIR/table-pin); "
                        "default: when standard output is not a terminal")
    p.add_argument("--threads", type=int, help="server threads (default 48; each open phone page holds one)")
    p.add_argument("--public-url", metavar="URL", help="the address phones use, for the QR code "
                                                       "(default: this machine's LAN address)")
    p.add_argument("--calibration", metavar="FILE", help="table calibration (markers, lens): what a live camera's "
                   "reader and the picture overlays use (default: the config's [calibration] file, a "
                   "recording's own)")
    p.add_argument("--components", metavar="DIR", help="a components folder: how your pieces look (default: the "
                   "config's [game] components, else the bundled art; a folder without numeral weights is "
                   "taught its cards on first use)")
    p.add_argument("--speed", metavar="N|fast", help="replay speed (default 1: as recorded)")
    p.add_argument("--loop", action=argparse.BooleanOptionalAction, default=None,
                   help="start a replay again when it ends (default: on for the bundled example)")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the server does")
    p.set_defaults(func=cmd_serve, games=games)
