"""The camera check as a checklist a person can act on: focus, exposure, the table markers seen,
the board registered, the board's resolution (the camera not too far), the seats in the picture —
each line ok or not, with what to do about it.

A function of (config, image, calibration, registration) → list of `CheckLine`, like every
calibration stage; the web page adds "camera found" (it knows the frame source) and words each
line in the page's language from its `key` and `values`.
Run alone: `python -m calibration.camera_check FRAME.jpg --calibration calibration.json`.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class CameraCheckConfig:
    """Every threshold of the checklist."""

    measure_width: int = 480           # focus and exposure are measured on the frame shrunk to this width
    min_sharpness: float = 12.0        # variance of the Laplacian there: sharp frames 38-230, a 2-px blur 1-5
    min_brightness: float = 25.0       # mean grey (0-255) below this: too dark
    max_brightness: float = 215.0      # ... above this: too bright
    max_clipped: float = 0.05          # fraction of pixels at 250+ (burnt-out glare) above this: too bright
    min_seat_inside: float = 0.6       # a seat zone counts as in the picture when this share of it is
    # px per board mm at the board's worst corner in the picture the reader reads (the still when stills are
    # on): under 1.0 pawn errors rise steeply (dev 84040: 27 % of pawns, rows 17/53), at 1.0-1.25 the dev sets
    # disagree (D83790 7.5 %, 84040 15 %, against 6.6-8.8 % above) and the bundled demo's 2304-px stills (0.88 at
    # the worst corner) read its game as well as whole games at 1.3-2.0 (81/95 turns): the floor warns where the
    # reader is known to fail, not where it merely could do better (docs/vision.md session 31)
    min_board_px_per_mm: float = 0.8


DEFAULT_CONFIG = CameraCheckConfig()


@dataclass(frozen=True)
class CheckLine:
    """One line of the checklist: `key` names it (camera, focus, exposure, markers, board, seats),
    `ok` says whether it passed, `state` a finer word for the page (ok, blurry, dark, ...), and
    `values` what the sentence fills in (numbers, ids, seat names)."""

    key: str
    ok: bool
    state: str
    values: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "ok": self.ok, "state": self.state, "values": dict(self.values)}


def _grey_small(config: CameraCheckConfig, image: Any) -> Any:
    import cv2

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    if w > config.measure_width:
        grey = cv2.resize(grey, (config.measure_width, max(1, round(h * config.measure_width / w))),
                          interpolation=cv2.INTER_AREA)
    return grey


def focus_line(config: CameraCheckConfig, image: Any) -> CheckLine:
    import cv2

    sharpness = float(cv2.Laplacian(_grey_small(config, image), cv2.CV_64F).var())
    ok = sharpness >= config.min_sharpness
    return CheckLine("focus", ok, "ok" if ok else "blurry",
                     {"sharpness": round(sharpness, 1), "min": config.min_sharpness})


def exposure_line(config: CameraCheckConfig, image: Any) -> CheckLine:
    grey = _grey_small(config, image)
    mean = float(grey.mean())
    clipped = float((grey >= 250).mean())
    if mean < config.min_brightness:
        state = "dark"
    elif mean > config.max_brightness or clipped > config.max_clipped:
        state = "bright"
    else:
        state = "ok"
    return CheckLine("exposure", state == "ok", state, {"brightness": round(mean), "clipped": round(100 * clipped, 1)})


def marker_line(calibration: Mapping[str, Any], registration: Any) -> CheckLine:
    placed = sorted(int(m["id"]) for m in calibration["markers"]["items"])
    seen = sorted(set(registration.marker_ids) if registration is not None else set())
    missing = [i for i in placed if i not in seen]
    return CheckLine("markers", not missing, "ok" if not missing else "missing",
                     {"seen": len(seen), "total": len(placed), "missing": ", ".join(map(str, missing))})


def board_line(registration: Any) -> CheckLine:
    if registration is not None and registration.ok:
        return CheckLine("board", True, "ok", {"error": round(registration.reprojection_error or 0.0, 1)})
    return CheckLine("board", False, "not-registered",
                     {"reason": (registration.reason if registration is not None else None) or "no registration"})


def resolution_line(config: CameraCheckConfig, registration: Any, board_size_mm: Any = None,
                    read_scale: float = 1.0) -> CheckLine:
    """Is the camera close enough: the board's px per mm at its worst corner (calibration.registration.
    board_resolution) in the picture the reader reads — this frame times `read_scale` (a camera that reads
    full-resolution stills: the still's width over this frame's). The page says it per cm."""
    from .registration import board_resolution

    res = board_resolution(registration, board_size_mm) if registration is not None and registration.ok else None
    if res is None:
        return CheckLine("resolution", False, "unknown", {})
    worst, centre = res.worst_corner * read_scale, res.centre * read_scale
    ok = worst >= config.min_board_px_per_mm
    return CheckLine("resolution", ok, "ok" if ok else "too-far",
                     {"px_per_cm": round(10 * worst, 1), "centre_px_per_cm": round(10 * centre, 1),
                      "min_px_per_cm": round(10 * config.min_board_px_per_mm, 1)})


def seats_line(config: CameraCheckConfig, calibration: Mapping[str, Any], registration: Any,
               image_size: tuple[int, int]) -> CheckLine:
    import numpy as np

    seats = calibration.get("seats") or {}
    if not seats:
        return CheckLine("seats", False, "none", {})
    if registration is None or not registration.ok:
        return CheckLine("seats", False, "unknown", {})
    w, h = image_size
    outside = []
    for seat, zone in seats.items():
        xs = np.linspace(zone["x"], zone["x"] + zone["w"], 7)
        ys = np.linspace(zone["y"], zone["y"] + zone["h"], 7)
        grid = np.array([(x, y) for x in xs for y in ys], float)
        px = registration.board_to_image(grid)
        inside = np.mean((px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h))
        if inside < config.min_seat_inside:
            outside.append(seat)
    found = [s for s in seats if s not in outside]
    return CheckLine("seats", not outside, "ok" if not outside else "outside",
                     {"found": len(found), "total": len(seats), "outside": outside})


def check_image(config: CameraCheckConfig, image: Any, calibration: Mapping[str, Any] | None,
                registration: Any, *, board_size_mm: Any = None, read_scale: float = 1.0) -> list[CheckLine]:
    """The checklist for one frame (registration: calibration.registration.register_board's result;
    board_size_mm: the board's (w, h), None: the markers' box stands in; read_scale: the picture the reader
    reads over this frame, in width: a camera that reads full-resolution stills)."""
    lines = [focus_line(config, image), exposure_line(config, image)]
    if calibration is None:
        lines.append(CheckLine("markers", False, "no-calibration", {}))
        return lines
    h, w = image.shape[:2]
    lines += [marker_line(calibration, registration), board_line(registration),
              resolution_line(config, registration, board_size_mm, read_scale),
              seats_line(config, calibration, registration, (w, h))]
    return lines


def main(argv: list[str] | None = None) -> int:
    """The checklist of one image file, as JSON lines (a stage on a fixture, from the command line)."""
    import cv2

    from .model import load_calibration
    from .registration import DEFAULT_CONFIG as REG_CONFIG, register_board

    ap = argparse.ArgumentParser(prog="python -m calibration.camera_check", description=main.__doc__)
    ap.add_argument("image")
    ap.add_argument("--calibration", required=True)
    ap.add_argument("--read-width", type=int, default=None, metavar="PX",
                    help="width of the picture the reader reads, when it is not this image (a camera taking "
                         "full-resolution stills over its video frames: e.g. 4608); the camera distance line "
                         "scales to it")
    args = ap.parse_args(argv)
    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        print(f"{args.image}: cannot read image", file=sys.stderr)
        return 2
    if args.read_width is not None and args.read_width <= 0:
        print(f"--read-width {args.read_width}: must be a positive width in pixels", file=sys.stderr)
        return 2
    cal = load_calibration(args.calibration)
    scale = 1.0 if args.read_width is None else args.read_width / image.shape[1]
    lines = check_image(DEFAULT_CONFIG, image, cal, register_board(REG_CONFIG, cal, image), read_scale=scale)
    for line in lines:
        print(json.dumps(line.to_json()))
    return 0 if all(line.ok for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
