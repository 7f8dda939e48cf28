"""Stage: did anything move on the table since the previous small picture?

Judged on a small grey picture (320 pixels wide: picamera2's low-resolution stream, or the frame
scaled down once), at the camera's rate, so that the full reader runs only when the table has
been still (vision.gate). Both pictures are blurred (sensor noise averages out), differenced,
and the pixels that changed by more than `pixel_threshold` grey levels are counted inside the
play area (the board and the seat areas, from the registration; a person walking past behind
the table is no reason to wait). More than `moving_fraction` of the play area changed: motion.

Run alone on two frames: `python -m vision.motion BEFORE.jpg AFTER.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class MotionConfig:
    """Every threshold of the stillness test."""

    width: int = 320                 # the small picture's width (height keeps the frame's aspect)
    blur_px: int = 5                 # box blur before differencing: sensor noise averages out
    pixel_threshold: float = 14.0    # grey levels a pixel must change by to count as changed
    moving_fraction: float = 0.002   # share of the play area that must change to be motion
    play_margin_mm: float = 60.0     # the play area reaches this far beyond the board and seat areas


DEFAULT_CONFIG = MotionConfig()


@dataclass(frozen=True)
class MotionReading:
    """How much of the play area changed between two small pictures, and whether that is motion."""

    changed: float      # share of the play area's pixels that changed
    moving: bool


def small_picture(config: MotionConfig, image: Any) -> Any:
    """A frame scaled down to `width` (colour kept: the hands test wants it); one no wider is kept."""
    import cv2

    h, w = image.shape[:2]
    if w <= config.width:
        return image
    size = (config.width, max(2, int(round(config.width * h / w))))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def grey(small: Any) -> Any:
    """The grey picture stillness is judged on."""
    import cv2

    return small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)


def play_area_mask(config: MotionConfig, calibration: Mapping[str, Any], registration: Any,
                   frame_size: tuple[int, int], small_size: tuple[int, int],
                   board_mm: tuple[float, float] | None = None) -> Any:
    """The play area (board of `board_mm` if any, markers, seat areas, and a margin) in the small
    picture, from a registration of a frame of `frame_size` (w, h): built once per registration.
    None without a registration."""
    import cv2
    import numpy as np

    if registration is None or not getattr(registration, "ok", False):
        return None
    m = config.play_margin_mm
    corners: list[tuple[float, float]] = []
    board = board_mm
    for item in (calibration.get("markers") or {}).get("items", []):
        half = float(item.get("size", 40)) / 2 + m
        corners += [(item["x"] - half, item["y"] - half), (item["x"] + half, item["y"] + half),
                    (item["x"] - half, item["y"] + half), (item["x"] + half, item["y"] - half)]
    for rect in (calibration.get("seats") or {}).values():
        x, y, w, h = (float(rect[k]) for k in ("x", "y", "w", "h"))
        corners += [(x - m, y - m), (x + w + m, y - m), (x - m, y + h + m), (x + w + m, y + h + m)]
    if board:
        corners += [(-m, -m), (board[0] + m, -m), (-m, board[1] + m), (board[0] + m, board[1] + m)]
    if not corners:
        return None
    pts = np.asarray(registration.board_to_image(np.asarray(corners, np.float64)), np.float64).reshape(-1, 2)
    pts = pts * (small_size[0] / frame_size[0], small_size[1] / frame_size[1])
    hull = cv2.convexHull(pts.astype(np.float32)).astype(np.int32)
    mask = np.zeros((small_size[1], small_size[0]), np.uint8)
    cv2.fillConvexPoly(mask, hull, 255)
    return mask if cv2.countNonZero(mask) else None


def judge_motion(config: MotionConfig, small: Any, previous: Any, mask: Any = None) -> MotionReading:
    """Whether the play area changed between `previous` and `small` (same-size grey pictures)."""
    import cv2

    if previous is None or previous.shape != small.shape:
        return MotionReading(1.0, True)   # nothing to compare with: not known to be still
    k = (config.blur_px, config.blur_px)
    diff = cv2.absdiff(cv2.blur(small, k), cv2.blur(previous, k))
    _, changed = cv2.threshold(diff, config.pixel_threshold, 255, cv2.THRESH_BINARY)
    if mask is not None and mask.shape == changed.shape:
        area = cv2.countNonZero(mask)
        count = cv2.countNonZero(cv2.bitwise_and(changed, mask))
    else:
        area = changed.size
        count = cv2.countNonZero(changed)
    share = count / max(1, area)
    return MotionReading(round(share, 5), share > config.moving_fraction)


def draw_motion(small: Any, previous: Any, config: MotionConfig = DEFAULT_CONFIG, mask: Any = None) -> Any:
    """An overlay: the small picture, changed pixels in red, the play area's outline in green."""
    import cv2

    out = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    k = (config.blur_px, config.blur_px)
    diff = cv2.absdiff(cv2.blur(small, k), cv2.blur(previous, k))
    out[diff > config.pixel_threshold] = (0, 0, 255)
    if mask is not None:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(out, contours, -1, (0, 200, 0), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    """Judge motion between two frames from the command line (no play-area mask)."""
    import argparse

    import cv2

    from .stagecli import read_image

    parser = argparse.ArgumentParser(prog="python -m vision.motion", description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--overlay", help="write the changed pixels over the small picture here")
    args = parser.parse_args(argv)
    try:
        before, after = read_image(args.before), read_image(args.after)
    except Exception as exc:  # noqa: BLE001 - one line naming the file
        print(f"error: {exc}", file=sys.stderr)
        return 2
    a, b = grey(small_picture(DEFAULT_CONFIG, before)), grey(small_picture(DEFAULT_CONFIG, after))
    reading = judge_motion(DEFAULT_CONFIG, b, a)
    print(f"{'motion' if reading.moving else 'still'}: {reading.changed:.2%} of the picture changed")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_motion(b, a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
