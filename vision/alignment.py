"""Stage: is the table still where it was registered? A cheap check on every settled frame.

Registration (calibration/) is costly (marker detection on the whole frame, then the board model);
the reader keeps one until the table shows it is wrong. Two things can happen mid-game:

- the camera or the whole table is bumped, or a marker is pushed: the markers are no longer where
  they were. Each marker's patch at registration is compared (normalised correlation, a few small
  crops) with the same place now; a marker that no longer matches is covered (a cup, a hand) or
  moved. The reader then registers this frame afresh, and keeps the new registration only if it
  places the board elsewhere (a covered marker changes nothing: three markers suffice);
- the board slides on the table while the markers stay: the board's own art, seen through the
  registration at low resolution, is compared with the view at registration by phase
  correlation; a shift beyond `shift_mm_max` moves the registration's board frame by that much.

`build_alignment_model` runs once per registration; `check_alignment` per settled frame costs
a few milliseconds (a half-size image, one small remap, one phase correlation, a few crops).
Run alone: `python -m vision.alignment REGISTERED.jpg LATER.jpg --calibration FILE [--overlay out.jpg]`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AlignmentConfig:
    """Every threshold of the alignment check."""

    patch_px: int = 24               # each marker's patch is compared at this size
    patch_margin: float = 0.15       # ... cut this share of the marker's size inside its outline
    marker_ncc_min: float = 0.6      # below this correlation a marker is covered or moved
    mm_per_px: float = 2.0           # the board's low-resolution view for the shift test
    refine_steps: int = 3            # a slid board's shift is measured again after each correction
    shift_mm_max: float = 2.5        # the board lies further than this from where it was: re-align
    response_min: float = 0.08       # a phase-correlation peak weaker than this is no evidence
    moved_px: float = 3.0            # a new registration placing the board this far off is a move


DEFAULT_CONFIG = AlignmentConfig()


@dataclass(frozen=True, eq=False)
class AlignmentModel:
    """What one registration looked like (built once per registration)."""

    markers: dict[int, tuple[tuple[int, int, int, int], Any]] = field(repr=False)  # id -> (box, patch)
    maps: tuple[Any, Any] | None = field(repr=False, default=None)   # board view sampling maps (quarter image)
    reference: Any = field(repr=False, default=None)                  # the board view at registration
    window: Any = field(repr=False, default=None)


@dataclass(frozen=True)
class AlignmentCheck:
    """What a frame shows about the registration."""

    markers_off: tuple[int, ...]            # markers that no longer match (covered or moved)
    shift_mm: tuple[float, float] | None    # how far the board's art moved in the board frame, if known
    response: float = 0.0

    def board_moved(self, config: AlignmentConfig) -> bool:
        """The board slid: a trustworthy shift beyond the limit."""
        return (self.shift_mm is not None and self.response >= config.response_min
                and max(abs(self.shift_mm[0]), abs(self.shift_mm[1])) > config.shift_mm_max)


def _grey(image: Any) -> Any:
    import cv2

    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _patch(config: AlignmentConfig, grey: Any, box: tuple[int, int, int, int]) -> Any:
    import cv2
    import numpy as np

    x0, y0, x1, y1 = box
    crop = grey[y0:y1, x0:x1]
    if crop.size == 0:
        return None
    p = cv2.resize(crop, (config.patch_px, config.patch_px), interpolation=cv2.INTER_AREA).astype(np.float32)
    p -= p.mean()
    norm = float(np.sqrt((p * p).sum()))
    return p / norm if norm > 1e-3 else None


def _half(grey: Any) -> Any:
    import cv2

    return cv2.pyrDown(grey)


def board_maps(config: AlignmentConfig, registration: Any, board_mm: tuple[float, float]) -> tuple[Any, Any]:
    """Where each pixel of the board's low-resolution view lies in the half-size image."""
    import numpy as np

    bw, bh = board_mm
    nx, ny = max(8, int(bw / config.mm_per_px)), max(8, int(bh / config.mm_per_px))
    xs = (np.arange(nx) + 0.5) * bw / nx
    ys = (np.arange(ny) + 0.5) * bh / ny
    gx, gy = np.meshgrid(xs, ys)
    pts = registration.board_to_image(np.stack([gx.ravel(), gy.ravel()], axis=1)) / 2.0
    return pts[:, 0].reshape(ny, nx).astype(np.float32), pts[:, 1].reshape(ny, nx).astype(np.float32)


def build_alignment_model(config: AlignmentConfig, registration: Any, image: Any,
                          board_mm: tuple[float, float] | None) -> AlignmentModel:
    """Each marker's patch and the board's low-resolution view in the registered frame."""
    import cv2
    import numpy as np

    grey = _grey(image)
    h, w = grey.shape[:2]
    markers: dict[int, tuple[tuple[int, int, int, int], Any]] = {}
    for m in getattr(registration, "markers", ()):
        if m.id not in registration.marker_ids:
            continue
        c = np.asarray(m.corners, np.float64)
        centre = c.mean(axis=0)
        inner = centre + (c - centre) * (1 - config.patch_margin)
        x0, y0 = np.floor(inner.min(axis=0)).astype(int)
        x1, y1 = np.ceil(inner.max(axis=0)).astype(int)
        box = (max(0, x0), max(0, y0), min(w, x1), min(h, y1))
        patch = _patch(config, grey, box)
        if patch is not None:
            markers[m.id] = (box, patch)
    maps = reference = window = None
    if board_mm is not None:
        maps = board_maps(config, registration, board_mm)
        window = cv2.createHanningWindow((maps[0].shape[1], maps[0].shape[0]), cv2.CV_32F)
        reference = _board_view(maps, _half(grey))
    return AlignmentModel(markers, maps, reference, window)


def _board_view(maps: tuple[Any, Any], quarter: Any) -> Any:
    import cv2
    import numpy as np

    view = cv2.remap(quarter, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    view = view.astype(np.float32)
    # edges, not brightness: a lamp's change or the exposure does not look like a shift
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


def check_alignment(config: AlignmentConfig, model: AlignmentModel, image: Any) -> AlignmentCheck:
    """Which markers no longer match, and how far the board's art moved (mm, board frame)."""
    import cv2

    grey = _grey(image)
    off = []
    for mid, (box, ref) in model.markers.items():
        now = _patch(config, grey, box)
        if now is None or float((now * ref).sum()) < config.marker_ncc_min:
            off.append(mid)
    shift = None
    response = 0.0
    if model.maps is not None:
        view = _board_view(model.maps, _half(grey))
        (sx, sy), response = cv2.phaseCorrelate(model.reference, view, model.window)
        shift = (round(sx * config.mm_per_px, 2), round(sy * config.mm_per_px, 2))
    return AlignmentCheck(tuple(sorted(off)), shift, round(float(response), 3))


def measure_slide(config: AlignmentConfig, model: AlignmentModel, registration: Any, image: Any,
                  board_mm: tuple[float, float], shift_mm: tuple[float, float]) -> tuple[float, float]:
    """The board's slide, refined: moved by the estimate so far, the view is compared with the
    reference again (`refine_steps` times, or until the rest is below a tenth of a millimetre)."""
    import cv2

    half = _half(_grey(image))
    total = (float(shift_mm[0]), float(shift_mm[1]))
    for _ in range(config.refine_steps):
        maps = board_maps(config, shifted_registration(registration, total), board_mm)
        (sx, sy), _ = cv2.phaseCorrelate(model.reference, _board_view(maps, half), model.window)
        total = (total[0] + sx * config.mm_per_px, total[1] + sy * config.mm_per_px)
        if max(abs(sx), abs(sy)) * config.mm_per_px < 0.1:
            break
    return round(total[0], 2), round(total[1], 2)


def shifted_registration(registration: Any, shift_mm: tuple[float, float]) -> Any:
    """The registration with its board frame moved by `shift_mm` (the board slid by that much)."""
    import dataclasses

    import numpy as np

    T = np.array([[1.0, 0.0, shift_mm[0]], [0.0, 1.0, shift_mm[1]], [0.0, 0.0, 1.0]])
    return dataclasses.replace(registration, homography=registration.homography @ T)


def slid_calibration(calibration: Any, shift_mm: tuple[float, float]) -> dict[str, Any]:
    """The calibration once the board slid by `shift_mm` under markers that stayed: in the board's
    frame every marker (and seat area) now lies that much the other way."""
    dx, dy = shift_mm
    markers = dict(calibration["markers"])
    markers["items"] = [{**m, "x": float(m["x"]) - dx, "y": float(m["y"]) - dy} for m in markers["items"]]
    seats = {s: {**r, "x": float(r["x"]) - dx, "y": float(r["y"]) - dy} for s, r in (calibration.get("seats") or {}).items()}
    return {**calibration, "markers": markers, "seats": seats}


def board_offset_px(a: Any, b: Any, board_mm: tuple[float, float]) -> float:
    """How far apart two registrations place the board's corners (image px, the largest)."""
    import numpy as np

    corners = np.array([[0, 0], [board_mm[0], 0], [board_mm[0], board_mm[1]], [0, board_mm[1]]], np.float64)
    return float(np.max(np.linalg.norm(a.board_to_image(corners) - b.board_to_image(corners), axis=1)))


def main(argv: list[str] | None = None) -> int:
    """Register the first frame, check the second against it, print what moved."""
    import argparse

    import cv2

    from calibration.model import load_calibration
    from calibration.registration import RegistrationConfig, draw_registration, register_board
    from engine.board import bundled_board

    from .stagecli import read_image

    parser = argparse.ArgumentParser(prog="python -m vision.alignment", description=__doc__.splitlines()[0])
    parser.add_argument("registered")
    parser.add_argument("later")
    parser.add_argument("--calibration", required=True)
    parser.add_argument("--overlay", help="write the later frame with the registration drawn here")
    args = parser.parse_args(argv)
    try:
        first, later = read_image(args.registered), read_image(args.later)
        cal = load_calibration(args.calibration)
    except Exception as exc:  # noqa: BLE001 - one line naming the file
        print(f"error: {exc}", file=sys.stderr)
        return 2
    reg = register_board(RegistrationConfig(), cal, first)
    if not reg.ok:
        print(f"the first frame does not register: {reg.reason}")
        return 1
    board = bundled_board(cal["board"]) if cal.get("board") else None
    model = build_alignment_model(DEFAULT_CONFIG, reg, first, tuple(board.size_mm) if board else None)
    check = check_alignment(DEFAULT_CONFIG, model, later)
    print(f"markers no longer matching: {list(check.markers_off) or 'none'}; board shift {check.shift_mm} mm "
          f"(response {check.response}){' → the board moved' if check.board_moved(DEFAULT_CONFIG) else ''}")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_registration(later, cal, reg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
