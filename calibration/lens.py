"""Lens calibration from ChArUco views: camera matrix K and distortion, for calibration.json.

Stages, each a function of (config, ...):
- `detect_charuco(config, image)`: the board's inner chessboard corners (ids, image px).
- `ViewCollector`: keeps a view only when it shows enough corners and differs from the views
  already kept (position, size or tilt of the board in the image), so a handful of frames
  covers the field of view instead of twenty copies of one pose.
- `calibrate_lens(config, views, image_size)`: cv2.calibrateCamera on the matched object/image
  points; returns K, dist, the RMS reprojection error and the per-view errors.
Run alone: `python -m calibration.lens IMAGE... [--out calibration.json]`.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

from .markers import CHARUCO, CharucoSpec, charuco_board


@dataclass(frozen=True)
class LensConfig:
    """Every threshold of lens calibration."""

    board: CharucoSpec = CHARUCO
    min_corners: int = 12            # a view with fewer ChArUco corners is not used
    min_views: int = 5               # calibrate_lens refuses fewer
    novelty: float = 0.08            # a new view must differ this much (fraction of the image diagonal)
    fix_k3: bool = True              # k3 is poorly constrained by a handful of views; Pi lenses need only k1, k2
    fix_aspect: bool = False
    max_rms_px: float = 1.5          # a result worse than this is reported as not trustworthy


DEFAULT_LENS_CONFIG = LensConfig()


@dataclass(frozen=True)
class CharucoView:
    """ChArUco corners found in one image: ids (N,) and image points (N, 2)."""

    ids: Any
    corners: Any
    image_size: tuple[int, int]

    def signature(self) -> tuple[float, float, float, float]:
        """(centre x, centre y, spread, elongation) normalised by the image diagonal."""
        import numpy as np

        w, h = self.image_size
        diag = math.hypot(w, h)
        pts = self.corners.reshape(-1, 2)
        cx, cy = pts.mean(axis=0)
        cov = np.cov(pts.T) if len(pts) > 2 else np.eye(2)
        evals = np.sqrt(np.maximum(np.linalg.eigvalsh(cov), 1e-9))
        return float(cx / diag), float(cy / diag), float(evals.sum() / diag), float(evals.min() / evals.max())


@lru_cache(maxsize=4)
def _charuco_detector(spec: CharucoSpec):
    import cv2

    return cv2.aruco.CharucoDetector(charuco_board(spec))


def detect_charuco(config: LensConfig, image: Any) -> CharucoView | None:
    """The ChArUco corners visible in `image`, or None when fewer than config.min_corners."""
    import cv2
    import numpy as np

    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _marker_corners, _marker_ids = _charuco_detector(config.board).detectBoard(grey)
    if ids is None or len(ids) < config.min_corners:
        return None
    h, w = grey.shape[:2]
    return CharucoView(np.asarray(ids).reshape(-1), np.asarray(corners, dtype=np.float32).reshape(-1, 2), (w, h))


@dataclass
class ViewCollector:
    """Keeps views that add something new (see the module docstring)."""

    config: LensConfig = DEFAULT_LENS_CONFIG
    views: list[CharucoView] = field(default_factory=list)

    def offer(self, view: CharucoView | None) -> bool:
        """Keep `view` if it is usable and new; True when kept."""
        if view is None:
            return False
        if self.views and view.image_size != self.views[0].image_size:
            raise ValueError(f"view of size {view.image_size} among views of size {self.views[0].image_size}")
        sig = view.signature()
        for kept in self.views:
            other = kept.signature()
            if max(abs(a - b) for a, b in zip(sig, other)) < self.config.novelty:
                return False
        self.views.append(view)
        return True


@dataclass(frozen=True)
class LensResult:
    """A lens calibration: K (3x3), dist (5,), RMS reprojection error (px), per-view RMS, image size."""

    K: Any
    dist: Any
    rms: float
    per_view: tuple[float, ...]
    image_size: tuple[int, int]
    ok: bool

    def to_camera_json(self, **extra: Any) -> dict[str, Any]:
        """The FORMATS §4 "camera" object (with rms and views as extra fields)."""
        return {"size": [int(self.image_size[0]), int(self.image_size[1])],
                "K": [[round(float(v), 4) for v in row] for row in self.K],
                "dist": [round(float(v), 6) for v in self.dist.ravel()[:5]],
                "rms": round(self.rms, 4), "views": len(self.per_view), **extra}


def calibrate_lens(config: LensConfig, views: Sequence[CharucoView], image_size: tuple[int, int]) -> LensResult:
    """Solve K and distortion from ChArUco views (ValueError when too few)."""
    import cv2
    import numpy as np

    if len(views) < config.min_views:
        raise ValueError(f"{len(views)} usable views; lens calibration needs at least {config.min_views} "
                         f"(show the board at different places and angles)")
    board = charuco_board(config.board)
    obj_points, img_points = [], []
    for view in views:
        obj, img = board.matchImagePoints(view.corners.reshape(-1, 1, 2), view.ids.reshape(-1, 1))
        if obj is None or len(obj) < 4:
            continue
        obj_points.append(obj.astype(np.float32))
        img_points.append(img.astype(np.float32))
    flags = 0
    if config.fix_k3:
        flags |= cv2.CALIB_FIX_K3
    if config.fix_aspect:
        flags |= cv2.CALIB_FIX_ASPECT_RATIO
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(obj_points, img_points, tuple(image_size), None, None,
                                                     flags=flags)
    per_view = []
    for obj, img, rvec, tvec in zip(obj_points, img_points, rvecs, tvecs):
        proj, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
        per_view.append(float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img.reshape(-1, 2)) ** 2, axis=1)))))
    dist5 = np.zeros(5)
    flat = np.asarray(dist).ravel()
    dist5[:min(5, len(flat))] = flat[:5]
    return LensResult(np.asarray(K), dist5, float(rms), tuple(per_view), tuple(image_size),
                      bool(rms <= config.max_rms_px))


def main(argv: list[str] | None = None) -> int:
    """Calibrate the lens from image files alone (the stage on fixtures, from the command line)."""
    import argparse

    import cv2

    ap = argparse.ArgumentParser(prog="python -m calibration.lens", description=main.__doc__)
    ap.add_argument("images", nargs="+")
    args = ap.parse_args(argv)
    collector = ViewCollector()
    size = None
    for path in args.images:
        image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
        if image is None:
            print(f"{path}: cannot read image", file=sys.stderr)
            continue
        size = (image.shape[1], image.shape[0])
        kept = collector.offer(detect_charuco(DEFAULT_LENS_CONFIG, image))
        print(f"{path}: {'kept' if kept else 'skipped'}")
    if size is None:
        return 2
    result = calibrate_lens(DEFAULT_LENS_CONFIG, collector.views, size)
    print(result.to_camera_json())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
