"""The simulated camera: a pinhole with OpenCV's lens distortion at a pose above the table.

World frame = the board frame of FORMATS §1 (x right, y toward the south seat, millimetres) with
z pointing down into the table, so a point `h` mm above the table has z = -h. The camera frame is
OpenCV's (x right, y down, z forward).

Frames are drawn in two steps: the scene is composed on an undistorted "canvas" (a pinhole image
a little larger than the output, with the same focal length), then `distortion_maps` remaps the
canvas to the output image through the lens model. Both steps and `project` (used for the truth)
follow OpenCV's model (k1, k2, p1, p2, k3), so truth coordinates match what is drawn.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import cv2
import numpy as np

#: Height range of the camera above the table (mm), its largest tilt from vertical (deg) and the
#: range of its horizontal field of view (deg): a real table's (issue 15 item 8). Yaw is any angle.
HEIGHT_RANGE = (500.0, 1500.0)
MAX_TILT = 25.0
HFOV_RANGE = (60.0, 100.0)
#: How far (fraction of the output size) the undistorted canvas may reach beyond each edge.
CANVAS_CAP = 0.3


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    rvec = np.asarray(axis, np.float64) / (np.linalg.norm(axis) + 1e-12) * angle
    return cv2.Rodrigues(rvec)[0]


def distort_normalized(x: np.ndarray, y: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's radial-tangential distortion of normalized image coordinates."""
    k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def undistort_normalized(xd: np.ndarray, yd: np.ndarray, dist: np.ndarray, iterations: int = 30
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Invert `distort_normalized` by fixed-point iteration (exact to ~1e-9 for camera-like lenses)."""
    k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
    x, y = xd.copy(), yd.copy()
    for _ in range(iterations):
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        x = (xd - dx) / radial
        y = (yd - dy) / radial
    return x, y


@dataclass(frozen=True, eq=False)
class Camera:
    """A posed camera: image size, intrinsics K, distortion, rotation R and centre C (world frame)."""

    size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    C: np.ndarray
    pose: dict[str, float] = field(default_factory=dict)

    # ------------------------------------------------------------------ projection

    @property
    def t(self) -> np.ndarray:
        """OpenCV's tvec: world → camera translation."""
        return -self.R @ self.C

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        """World points (N×3) in the camera frame."""
        return (np.asarray(pts, np.float64) - self.C) @ self.R.T

    def project(self, pts: Any) -> np.ndarray:
        """World points (N×3, or N×2 on the table) → pixel coordinates in the output image (N×2)."""
        p = np.asarray(pts, np.float64).reshape(-1, np.asarray(pts).shape[-1])
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        c = self.to_camera(p)
        z = np.maximum(c[:, 2], 1e-6)
        xd, yd = distort_normalized(c[:, 0] / z, c[:, 1] / z, self.dist)
        return np.stack([self.K[0, 0] * xd + self.K[0, 2], self.K[1, 1] * yd + self.K[1, 2]], 1)

    def depth(self, pts: Any) -> np.ndarray:
        """Distance along the optical axis of world points (N×3)."""
        return self.to_camera(np.asarray(pts, np.float64).reshape(-1, 3))[:, 2]

    @property
    def height(self) -> float:
        """Height of the camera above the table (mm)."""
        return float(-self.C[2])

    # ------------------------------------------------------------------ canvas and lens

    @cached_property
    def canvas(self) -> tuple[int, int, float, float]:
        """(width, height, offset x, offset y) of the undistorted canvas that covers the output."""
        w, h = self.size
        n = 64
        border = np.concatenate([
            np.stack([np.linspace(0, w - 1, n), np.zeros(n)], 1), np.stack([np.linspace(0, w - 1, n), np.full(n, h - 1)], 1),
            np.stack([np.zeros(n), np.linspace(0, h - 1, n)], 1), np.stack([np.full(n, w - 1), np.linspace(0, h - 1, n)], 1)])
        u = self._undistort_pixels(border)
        pad = 3
        x0, y0 = min(0.0, u[:, 0].min()) - pad, min(0.0, u[:, 1].min()) - pad
        x1, y1 = max(w - 1.0, u[:, 0].max()) + pad, max(h - 1.0, u[:, 1].max()) + pad
        # Never more than 1.6x the output in either direction (strong barrel lenses); sample_camera
        # only makes cameras within that (see canvas_covers).
        x0, x1 = max(x0, -CANVAS_CAP * w), min(x1, (1 + CANVAS_CAP) * w)
        y0, y1 = max(y0, -CANVAS_CAP * h), min(y1, (1 + CANVAS_CAP) * h)
        return int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0)), float(-math.floor(x0)), float(-math.floor(y0))

    @property
    def canvas_covers(self) -> bool:
        """Does the canvas cover every output pixel (no lens so strong it needs more than the cap)?"""
        w, h = self.size
        n = 64
        border = np.concatenate([
            np.stack([np.linspace(0, w - 1, n), np.zeros(n)], 1), np.stack([np.linspace(0, w - 1, n), np.full(n, h - 1)], 1),
            np.stack([np.zeros(n), np.linspace(0, h - 1, n)], 1), np.stack([np.full(n, w - 1), np.linspace(0, h - 1, n)], 1)])
        u = self._undistort_pixels(border)
        return bool(u[:, 0].min() > -CANVAS_CAP * w + 4 and u[:, 0].max() < (1 + CANVAS_CAP) * w - 4
                    and u[:, 1].min() > -CANVAS_CAP * h + 4 and u[:, 1].max() < (1 + CANVAS_CAP) * h - 4)

    @property
    def K_canvas(self) -> np.ndarray:
        """The canvas's pinhole intrinsics (same focal length, shifted principal point)."""
        _, _, ox, oy = self.canvas
        K = self.K.copy()
        K[0, 2] += ox
        K[1, 2] += oy
        return K

    def project_canvas(self, pts: Any) -> np.ndarray:
        """World points (N×3) → undistorted canvas pixels (N×2)."""
        c = self.to_camera(np.asarray(pts, np.float64).reshape(-1, 3))
        z = np.maximum(c[:, 2], 1e-6)
        Kc = self.K_canvas
        return np.stack([Kc[0, 0] * c[:, 0] / z + Kc[0, 2], Kc[1, 1] * c[:, 1] / z + Kc[1, 2]], 1)

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """Homography from table-plane mm (x, y) at `height_mm` above the table to canvas pixels."""
        R, t = self.R, self.t
        return self.K_canvas @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * (-height_mm) + t])

    def _undistort_pixels(self, px: np.ndarray) -> np.ndarray:
        """Output pixels → undistorted pixel coordinates in the output's pinhole frame."""
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        x, y = undistort_normalized((px[:, 0] - cx) / fx, (px[:, 1] - cy) / fy, self.dist)
        return np.stack([fx * x + cx, fy * y + cy], 1)

    @cached_property
    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """cv2.remap maps (fixed point) from the canvas to the distorted output image.

        The inverse lens model is evaluated on an 8-px grid and interpolated bilinearly (the maps
        are smooth; the error is far below a pixel), then converted to OpenCV's fast fixed-point form.
        """
        w, h = self.size
        step = 8
        gx = np.arange(0, w + step, step, dtype=np.float64)
        gy = np.arange(0, h + step, step, dtype=np.float64)
        X, Y = np.meshgrid(gx, gy)
        u = self._undistort_pixels(np.stack([X.ravel(), Y.ravel()], 1))
        _, _, ox, oy = self.canvas
        mx = (u[:, 0] + ox).reshape(X.shape).astype(np.float32)
        my = (u[:, 1] + oy).reshape(X.shape).astype(np.float32)
        sx = np.broadcast_to((np.arange(w, dtype=np.float32) / step)[None, :], (h, w))
        sy = np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w))
        sx, sy = np.ascontiguousarray(sx), np.ascontiguousarray(sy)
        full_x = cv2.remap(mx, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        full_y = cv2.remap(my, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return cv2.convertMaps(full_x, full_y, cv2.CV_16SC2)

    def px_per_mm(self, point: Sequence[float], height_mm: float = 0.0) -> float:
        """Image pixels per millimetre of a table-parallel surface at `point` (largest direction)."""
        x, y = float(point[0]), float(point[1])
        z = -height_mm
        p = self.project_canvas(np.array([[x, y, z], [x + 1, y, z], [x, y + 1, z]]))
        return float(max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))

    # ------------------------------------------------------------------ serialisation

    def calibration_camera(self) -> dict[str, Any]:
        """The FORMATS §4 "camera" object: the true K and dist of this camera."""
        return {"size": [int(self.size[0]), int(self.size[1])],
                "K": [[round(float(v), 4) for v in row] for row in self.K],
                "dist": [round(float(v), 6) for v in self.dist]}

    def to_json(self) -> dict[str, Any]:
        """Everything about the camera for the truth's "render" extension."""
        rvec = cv2.Rodrigues(self.R)[0].ravel()
        return {**self.calibration_camera(),
                "rvec": [round(float(v), 8) for v in rvec], "tvec": [round(float(v), 4) for v in self.t],
                "position_mm": [round(float(v), 3) for v in self.C],
                **{k: round(float(v), 4) for k, v in self.pose.items()}}

    def scaled(self, size: tuple[int, int]) -> "Camera":
        """The same camera and pose at another image size (same aspect ratio)."""
        s = size[0] / self.size[0]
        K = self.K.copy()
        K[:2] *= s
        K[2] = (0, 0, 1)
        return Camera(tuple(size), K, self.dist.copy(), self.R.copy(), self.C.copy(), dict(self.pose))


def make_camera(size: tuple[int, int], *, target: Sequence[float], height: float, tilt_deg: float = 0.0,
                tilt_azimuth_deg: float = 0.0, yaw_deg: float = 0.0, hfov_deg: float = 75.0,
                dist: Sequence[float] = (0, 0, 0, 0, 0)) -> Camera:
    """A camera `height` mm above the table looking at `target` (x, y), tilted `tilt_deg` from
    vertical toward the azimuth `tilt_azimuth_deg`, rotated `yaw_deg` about the vertical."""
    w, h = size
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)
    psi = math.radians(yaw_deg)
    axes = np.array([[math.cos(psi), math.sin(psi), 0], [-math.sin(psi), math.cos(psi), 0], [0, 0, 1.0]])
    phi = math.radians(tilt_azimuth_deg)
    tilt = _rotation(np.array([math.cos(phi), math.sin(phi), 0.0]), math.radians(tilt_deg))
    axes = axes @ tilt.T  # rows: camera x, y, z axes in the world, tilted
    z_axis = axes[2]
    d = height / z_axis[2]
    C = np.array([target[0], target[1], 0.0]) - d * z_axis
    pose = {"height_mm": height, "tilt_deg": tilt_deg, "tilt_azimuth_deg": tilt_azimuth_deg, "yaw_deg": yaw_deg,
            "hfov_deg": hfov_deg}
    return Camera((int(w), int(h)), K, np.array(list(dist) + [0.0] * (5 - len(dist)), np.float64)[:5],
                  axes, C, pose)


def fits(camera: Camera, pts_world: np.ndarray, margin: float = 0.03) -> bool:
    """Do all these table points (N×2, or N×3 with z down) project inside the image, `margin`
    (fraction) from its edges, in front of the camera?"""
    pts = np.asarray(pts_world, np.float64)
    if pts.shape[1] == 2:
        pts = np.hstack([pts, np.zeros((len(pts), 1))])
    if np.any(camera.depth(pts) <= 0):
        return False
    p = camera.project(pts)
    w, h = camera.size
    mx, my = margin * w, margin * h
    return bool(np.all((p[:, 0] >= mx) & (p[:, 0] <= w - 1 - mx) & (p[:, 1] >= my) & (p[:, 1] <= h - 1 - my)))


def markers_in_view(camera: Camera, markers: Sequence[np.ndarray], margin: float = 0.005) -> int:
    """How many of these markers (each N×2 table points: its square with the quiet zone) lie wholly
    inside the image."""
    return sum(1 for m in markers if fits(camera, m, margin))


def lens_distortion(hfov: float, strength: float, k2_frac: float, p1: float, p2: float) -> tuple[float, ...]:
    """OpenCV (k1, k2, p1, p2, k3) of a Pi-like lens: barrel distortion grows with the field of view
    (a 60° lens barely bends lines, the Camera Module 3 Wide's ~100° bends them clearly)."""
    wide = (hfov - 60.0) / 45.0
    k1 = -(0.03 + 0.17 * wide * strength)
    return (k1, k2_frac * abs(k1) * 0.3, p1, p2, 0.0)


def sample_camera(rng: np.random.Generator, size: tuple[int, int], area: np.ndarray, *,
                  tilt_range: tuple[float, float] = (0.0, MAX_TILT),
                  height_range: tuple[float, float] = HEIGHT_RANGE, margin: float = 0.03,
                  hfov_range: tuple[float, float] = HFOV_RANGE,
                  markers: Sequence[np.ndarray] = (), min_markers: int = 0,
                  target_spread: float = 25.0) -> Camera:
    """A random Pi-like camera above the table that sees every point of `area` (N×2 table mm, or
    N×3 with z down for points above it) and at least `min_markers` of `markers` whole.

    Height, tilt (toward any azimuth), yaw and the lens are each drawn from the range given: the
    field of view uniformly between the narrowest that shows the area from that pose and the
    widest of `hfov_range` (a high camera may carry any lens, a low one needs a wide one), with
    barrel distortion growing with it (`lens_distortion`). A pose from which even the widest lens
    does not show the area is drawn again. The camera looks at the area's centre give or take
    `target_spread` mm.
    """
    area = np.asarray(area, np.float64)
    centre = area[:, :2].mean(0)
    lo_f, hi_f = hfov_range

    def ok(cam: Camera) -> bool:
        return fits(cam, area, margin) and (min_markers <= 0 or markers_in_view(cam, markers) >= min_markers)

    for _ in range(400):
        yaw = float(rng.uniform(0, 360))
        tilt = float(rng.uniform(*tilt_range))
        azimuth = float(rng.uniform(0, 360))
        height = float(rng.uniform(*height_range))
        strength = float(rng.uniform(0.3, 1.0))
        k2_frac = float(rng.uniform(0.0, 0.4))
        p1, p2 = (float(v) for v in rng.normal(0, 0.0006, 2))
        target = centre + rng.normal(0, target_spread, 2)
        pick = float(rng.uniform(0.0, 1.0))

        def build(hfov: float) -> Camera:
            return make_camera(size, target=target, height=height, tilt_deg=tilt, tilt_azimuth_deg=azimuth,
                               yaw_deg=yaw, hfov_deg=hfov, dist=lens_distortion(hfov, strength, k2_frac, p1, p2))

        if not ok(build(hi_f)):
            continue
        lo, hi = lo_f, hi_f
        if not ok(build(lo)):
            for _ in range(14):
                mid = (lo + hi) / 2
                if ok(build(mid)):
                    hi = mid
                else:
                    lo = mid
            lo = hi
        cam = build(lo + (hi_f - lo) * pick)
        if ok(cam) and cam.canvas_covers:
            return cam
    raise ValueError(f"no camera within heights {height_range} mm sees the whole area "
                     f"({np.ptp(area[:, 0]):.0f}×{np.ptp(area[:, 1]):.0f} mm)")
