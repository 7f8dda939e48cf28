"""`keltis-cam calibrate markers|lens|check|default`. Heavy imports (cv2) only inside handlers."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry


def _config(args: argparse.Namespace):
    from keltis_cam.config import load_config

    return load_config(getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))


def _board(name: str | None):
    if not name or name in ("none", "card"):
        return None
    from engine.board import load_board

    return load_board(name)


def _calibration_for(args: argparse.Namespace, cfg: Any) -> tuple[dict[str, Any], Path | None]:
    """--calibration FILE, else the config's calibration file, else the default layout of --board."""
    from calibration.model import default_calibration, load_calibration

    if getattr(args, "calibration", None):
        return load_calibration(args.calibration), Path(args.calibration)
    if getattr(args, "board", None):
        return default_calibration(_board(args.board)), None
    if cfg.calibration_path.exists():
        return load_calibration(cfg.calibration_path), cfg.calibration_path
    board = cfg.board
    if board:
        return default_calibration(_board(board)), None
    raise MalformedInput(f"no calibration at {cfg.calibration_path}: pass --board NAME (base, nwnz, card) or "
                         f"--calibration FILE", field="--calibration")


def cmd_default(args: argparse.Namespace) -> int:
    """Write the default calibration for a board (markers where the sheet puts them, four seats)."""
    from calibration.model import default_calibration, dump_calibration, save_calibration

    cal = default_calibration(_board(args.board), marker_size=args.marker_size)
    if args.out in (None, "-"):
        sys.stdout.write(dump_calibration(cal))
        return 0
    out = Path(args.out)
    if out.exists() and not args.force:
        raise MalformedInput("already exists (pass --force to replace it; a lens calibration in it would be lost)",
                             source=str(out))
    save_calibration(cal, out)
    print(f"wrote {out}: board {cal['board']}, markers {[m['id'] for m in cal['markers']['items']]} "
          f"({cal['markers']['dictionary']}, {cal['markers']['items'][0]['size']} mm), seats {list(cal['seats'])}")
    return 0


def cmd_markers(args: argparse.Namespace) -> int:
    """Write the printable marker sheet (PDF, A4) for a calibration."""
    from calibration.sheet import write_sheet

    cfg = _config(args)
    cal, _ = _calibration_for(args, cfg)
    board = _board(cal.get("board"))
    pages = write_sheet(args.out, cal, board, lens_board=not args.no_lens_board)
    print(f"wrote {args.out}: {pages} A4 pages (markers, placement, lens board). Print at 100 % and check the "
          f"100 mm bar.")
    return 0


def read_image_file(path: str, flags: int) -> Any:
    """An image file decoded by OpenCV; MalformedInput names the file when it cannot be, or when a
    JPEG is truncated (libjpeg decodes the missing part as grey with only a warning: a check on such
    a frame would judge markers that are not there)."""
    import cv2

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise MalformedInput(f"cannot read image: {exc.strerror or exc}", source=path) from None
    if data.startswith(b"\xff\xd8"):
        from camera.session import decode_jpeg

        image = decode_jpeg(data, source=path)
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if flags == cv2.IMREAD_GRAYSCALE else image
    image = cv2.imread(path, flags)
    if image is None:
        raise MalformedInput("cannot read image (missing, or not an image OpenCV can decode)", source=path)
    return image


def _one_frame(args: argparse.Namespace, cfg: Any):
    """One image from --image FILE or the source (after the camera's exposure settled)."""
    import cv2

    if args.image:
        return read_image_file(args.image, cv2.IMREAD_COLOR), args.image
    from keltis_cam.commands.camera import resolve_source
    from keltis_cam.pipeline import open_camera_source

    spec, options = resolve_source(args, cfg)
    with open_camera_source(spec, options) as source:
        deadline = time.monotonic() + args.timeout
        frame = None
        while time.monotonic() < deadline:
            frame = source.latest(timeout=0.5) or frame
            status = source.status()
            if frame is not None and status.get("settled", True):
                break
            if status.get("state") in ("failed", "ended") and frame is None:
                break
        status = source.status()
    if frame is None:
        raise MalformedInput(f"no frame within {args.timeout:.0f} s: {status.get('error') or status.get('state')}",
                             source=spec)
    return frame.image, spec


def cmd_check(args: argparse.Namespace) -> int:
    """One frame -> registration -> overlay with the board, markers and seat zones."""
    import json

    import cv2

    from calibration.registration import DEFAULT_CONFIG, draw_registration, register_board

    cfg = _config(args)
    cal, cal_path = _calibration_for(args, cfg)
    image, origin = _one_frame(args, cfg)
    reg = register_board(DEFAULT_CONFIG, cal, image)
    out = Path(args.out) if args.out else Path("calibration-check.jpg")
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), draw_registration(image, cal, reg, _board(cal.get("board"))))
    if args.json:
        print(json.dumps(reg.to_json()))
    else:
        h, w = image.shape[:2]
        print(f"frame:       {origin} ({w}x{h})")
        print(f"calibration: {cal_path or 'default layout of ' + str(cal.get('board'))}"
              f"{'' if cal.get('camera') else ' (no lens calibration)'}")
        print(f"markers:     found {list(reg.marker_ids)} of {[m['id'] for m in cal['markers']['items']]}"
              + (f", unknown ids {list(reg.unknown_ids)}" if reg.unknown_ids else ""))
        if reg.reprojection_error is not None:
            print(f"error:       {reg.reprojection_error:.2f} px RMS")
        print(f"result:      {'OK' if reg.ok else 'NOT REGISTERED: ' + str(reg.reason)}")
        print(f"overlay:     {out}")
    return 0 if reg.ok else 1


def cmd_lens(args: argparse.Namespace) -> int:
    """Lens calibration from ChArUco views (live source or image files) into calibration.json."""
    import cv2

    from calibration.lens import DEFAULT_LENS_CONFIG, ViewCollector, calibrate_lens, detect_charuco
    from calibration.model import default_calibration, load_calibration, save_calibration
    from camera.session import now_iso

    cfg = _config(args)
    config = DEFAULT_LENS_CONFIG
    collector = ViewCollector(config)
    size: tuple[int, int] | None = None
    if args.images:
        for path in args.images:
            image = read_image_file(path, cv2.IMREAD_GRAYSCALE)
            size = (image.shape[1], image.shape[0])
            kept = collector.offer(detect_charuco(config, image))
            print(f"{path}: {'kept' if kept else 'not used (board not found or same view as before)'}")
    else:
        from keltis_cam.commands.camera import resolve_source
        from keltis_cam.pipeline import open_camera_source

        spec, options = resolve_source(args, cfg)
        print(f"Hold the ChArUco board (page 3 of the marker sheet) in front of {spec}; move and tilt it between "
              f"views. Collecting {args.views} views (Ctrl-C to stop early).", file=sys.stderr)
        deadline = time.monotonic() + args.timeout
        try:
            with open_camera_source(spec, options) as source:
                for frame in source.frames(idle_timeout=args.timeout):
                    size = (frame.image.shape[1], frame.image.shape[0])
                    if collector.offer(detect_charuco(config, frame.image)):
                        print(f"view {len(collector.views)}/{args.views} kept", file=sys.stderr)
                        if args.save_views:
                            Path(args.save_views).mkdir(parents=True, exist_ok=True)
                            cv2.imwrite(str(Path(args.save_views) / f"view{len(collector.views):02d}.png"), frame.image)
                    if len(collector.views) >= args.views or time.monotonic() > deadline:
                        break
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    if size is None:
        raise MalformedInput("no frames to calibrate from", field="--images" if args.images else "--source")
    try:
        result = calibrate_lens(config, collector.views, size)
    except ValueError as exc:
        raise MalformedInput(str(exc), field="views") from None
    out = Path(args.out) if args.out else cfg.calibration_path
    if out.exists():
        cal = load_calibration(out)
    else:
        cal = default_calibration(_board(args.board or cfg.board or "nwnz"))
    cal["camera"] = result.to_camera_json(calibrated=now_iso())
    save_calibration(cal, out)
    K = result.K
    print(f"lens: fx {K[0][0]:.1f} fy {K[1][1]:.1f} cx {K[0][2]:.1f} cy {K[1][2]:.1f}, dist "
          f"{[round(float(d), 4) for d in result.dist]}, RMS {result.rms:.3f} px over {len(result.per_view)} views")
    print(f"wrote camera block to {out}")
    if not result.ok:
        print(f"warning: RMS {result.rms:.2f} px is above {config.max_rms_px} px: use more views, keep the board "
              f"flat and still", file=sys.stderr)
        return 1
    return 0


def register(sub: argparse._SubParsersAction, games: GameRegistry = GAMES) -> None:
    """Add `calibrate markers|lens|check|default`."""
    from keltis_cam.commands.camera import add_config_options

    cal = sub.add_parser("calibrate", help="table markers, lens calibration and registration check",
                         description="Calibration of the table (FORMATS §4): print the markers, calibrate the lens, "
                                     "check the registration on a frame, or write a board's default calibration.")
    calsub = cal.add_subparsers(dest="calibrate_command", metavar="ACTION")
    calsub.required = True

    p = calsub.add_parser("markers", help="write the printable marker sheet (PDF)")
    p.add_argument("out", help="PDF file to write, e.g. markers.pdf")
    p.add_argument("--board", help="use the default layout of this board (base, nwnz, card)")
    p.add_argument("--calibration", metavar="FILE", help="use this calibration's markers")
    p.add_argument("--no-lens-board", action="store_true", help="leave out the ChArUco page")
    add_config_options(p)
    p.set_defaults(func=cmd_markers)

    p = calsub.add_parser("lens", help="calibrate the lens from ChArUco views")
    p.add_argument("--source", help="frame source (default: the config's)")
    p.add_argument("--images", nargs="+", metavar="IMAGE", help="use these image files instead of a source")
    p.add_argument("--views", type=int, default=12, help="views to collect from a source (default 12)")
    p.add_argument("--timeout", type=float, default=300.0, help="give up collecting after this many seconds")
    p.add_argument("--out", help="calibration.json to update (default: the config's calibration file)")
    p.add_argument("--board", help="board for a new calibration file (default: the config's, else nwnz)")
    p.add_argument("--save-views", metavar="DIR", help="also save the views used, as PNG")
    add_config_options(p)
    p.set_defaults(func=cmd_lens)

    p = calsub.add_parser("check", help="one frame -> overlay of board registration and seat zones")
    p.add_argument("--source", help="frame source (default: the config's)")
    p.add_argument("--image", help="use this image file instead of a source")
    p.add_argument("--calibration", metavar="FILE", help="calibration (default: the config's)")
    p.add_argument("--board", help="use the default layout of this board instead of a calibration file")
    p.add_argument("--out", help="overlay image to write (default calibration-check.jpg)")
    p.add_argument("--timeout", type=float, default=15.0, help="seconds to wait for a settled frame")
    p.add_argument("--json", action="store_true")
    add_config_options(p)
    p.set_defaults(func=cmd_check)

    p = calsub.add_parser("default", help="write the default calibration for a board")
    p.add_argument("--board", required=True, help="base, nwnz, a board file, or card (no board)")
    p.add_argument("--out", help="file to write (default: standard output)")
    p.add_argument("--marker-size", type=float, default=40.0, help="marker side in mm (default 40)")
    p.add_argument("--force", action="store_true", help="replace an existing file")
    p.set_defaults(func=cmd_default)
