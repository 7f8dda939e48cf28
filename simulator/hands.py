"""A player's arm and hand reaching over the table, drawn in 3-D from capsules (sleeve, forearm,
palm, fingers, thumb), with its soft shadow on the table and motion blur when it moves.

A `HandPose` is where the hand is at one moment; `reach_pose` builds one from the seat the player
sits at and the table point the fingers go to. Frames showing a hand over the play area are marked
unusable in the truth (FORMATS §2: reason "occluded", or "motion" when it moves fast) and name the
seat whose arm it is (`"hands": [{"seat": ...}]`, docs/formats-extensions.md): the arm comes in
across that seat's table edge (the shoulder lies behind the seat's far edge, see `reach_pose`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: the longest smear drawn at full size (px); a longer one is drawn on the hand's layer scaled down
MAX_BLUR_PX = 256
#: the widest softening of a hand's shading bands (Gaussian sigma, px)
MAX_BAND_SOFTEN_PX = 12.0

SKIN_RGB = ((234, 192, 160), (222, 170, 134), (198, 142, 104), (160, 110, 76), (118, 78, 52), (88, 58, 40))
SLEEVE_RGB = ((40, 52, 90), (150, 30, 40), (60, 60, 64), (220, 220, 214), (70, 100, 60), (190, 150, 60),
              (30, 30, 30), (110, 130, 170))


@dataclass(frozen=True)
class HandPose:
    """An arm from `shoulder` to `wrist` and a hand reaching toward `tip` (world mm, z down)."""

    shoulder: tuple[float, float, float]
    wrist: tuple[float, float, float]
    tip: tuple[float, float, float]
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    left: bool = False
    curl: float = 0.4          # 0 flat fingers … 1 curled
    motion: tuple[float, float] = (0.0, 0.0)   # image px the hand moves during the exposure

    @property
    def moving(self) -> bool:
        return math.hypot(*self.motion) > 4.0


def reach_pose(seat_origin: tuple[float, float], toward_player: tuple[float, float], target: tuple[float, float],
               *, rng: np.random.Generator, skin: tuple[int, int, int], sleeve: tuple[int, int, int],
               hover: float = 30.0, progress: float = 1.0, left: bool = False) -> HandPose:
    """A hand of a player sitting behind `seat_origin` (their seat's far edge, `toward_player` the
    unit direction to them) reaching `progress` (0–1) of the way to `target` on the table."""
    tp = np.asarray(toward_player, np.float64)
    tp = tp / (np.linalg.norm(tp) + 1e-9)
    side = np.array([-tp[1], tp[0]]) * (1 if left else -1)
    shoulder_xy = np.asarray(seat_origin, np.float64) + tp * 260 + side * 180
    shoulder = np.array([*shoulder_xy, -380.0])
    # At rest the hand is back with the player, off the edge of the picture.
    rest = np.array([*(np.asarray(seat_origin) + tp * 320 + side * 60), -220.0])
    goal = np.array([target[0], target[1], -hover])
    p = float(np.clip(progress, 0, 1))
    # Ease along a raised arc: the hand lifts while travelling.
    tip = rest + (goal - rest) * p   # callers ease progress in time
    tip[2] -= 60.0 * math.sin(math.pi * p)
    d = tip[:2] - shoulder_xy
    dn = d / (np.linalg.norm(d) + 1e-9)
    wrist = np.array([*(tip[:2] - dn * 150), tip[2] - 45.0])
    return HandPose(tuple(shoulder), tuple(wrist), tuple(tip), skin, sleeve, left,
                    curl=float(rng.uniform(0.2, 0.7)))


def _capsule_polys(camera, p0, p1, r0, r1, n=16):
    """Canvas polygon (convex) of a capsule between world points p0, p1 with radii r0, r1 (mm)."""
    pts = camera.project_canvas(np.array([p0, p1]))
    d = camera.depth(np.array([p0, p1]))
    f = camera.K[0, 0]
    rho0, rho1 = r0 * f / max(d[0], 1.0), r1 * f / max(d[1], 1.0)
    circ = np.stack([np.cos(np.linspace(0, 2 * np.pi, n, endpoint=False)),
                     np.sin(np.linspace(0, 2 * np.pi, n, endpoint=False))], 1)
    return pts, (rho0, rho1), circ


def _draw_capsule(img, alpha, camera, p0, p1, r0, r1, rgb, light2d, offset, shift=4):
    """A shaded capsule: concentric bands lighter toward the light, like a lit cylinder."""
    pts, (rho0, rho1), circ = _capsule_polys(camera, p0, p1, r0, r1)
    bands = 10
    base = np.array([rgb[2], rgb[1], rgb[0]], np.float64)
    for k in range(bands):
        f = 1.0 - 0.8 * k / bands
        shift_px = light2d * (0.3 * k / bands)
        a = (pts[0] - offset) + shift_px * rho0
        b = (pts[1] - offset) + shift_px * rho1
        poly = np.vstack([a + circ * rho0 * f, b + circ * rho1 * f])
        hull = cv2.convexHull(np.round(poly * (1 << shift)).astype(np.int32))
        col = np.clip(base * (0.5 + 0.62 * math.sqrt(k / bands)), 0, 255).tolist()
        cv2.fillConvexPoly(img, hull, col, cv2.LINE_AA, shift)
        if k == 0:
            cv2.fillConvexPoly(alpha, hull, 255, cv2.LINE_AA, shift)


def hand_capsules(pose: HandPose) -> list[tuple[np.ndarray, np.ndarray, float, float, str]]:
    """The hand's parts as capsules (p0, p1, r0, r1, "sleeve"|"skin"), far from the camera first."""
    sh, wr, tip = (np.asarray(v, np.float64) for v in (pose.shoulder, pose.wrist, pose.tip))
    fwd = tip - wr
    fwd[2] = 0
    fwd /= np.linalg.norm(fwd) + 1e-9
    lat = np.array([-fwd[1], fwd[0], 0.0]) * (1 if pose.left else -1)
    down = np.array([0, 0, 1.0])
    parts = []
    cuff = sh + (wr - sh) * 0.72
    parts.append((sh, cuff, 52.0, 40.0, "sleeve"))
    parts.append((cuff, wr, 33.0, 27.0, "skin"))
    knuckle = wr + fwd * 82 + down * 8
    # Palm: three side-by-side capsules from wrist to knuckles make a flat, rounded palm.
    for o in (-20.0, 0.0, 20.0):
        parts.append((wr + lat * o * 0.6, knuckle + lat * o, 17.0, 15.0, "skin"))
    lengths = (62.0, 76.0, 72.0, 56.0)
    for o, length in zip((-28.0, -9.0, 10.0, 28.0), lengths):
        base = knuckle + lat * o
        mid = base + fwd * length * 0.55 + down * (8 + 14 * pose.curl)
        end = mid + fwd * length * 0.45 * (1 - 0.4 * pose.curl) + down * (6 + 16 * pose.curl)
        parts.append((base, mid, 9.5, 8.5, "skin"))
        parts.append((mid, end, 8.5, 7.5, "skin"))
    tb = wr + fwd * 30 + lat * (-38) + down * 6
    parts.append((tb, tb + fwd * 45 + lat * 14 + down * 14, 11.0, 9.0, "skin"))
    return parts


def draw_hand(canvas: np.ndarray, camera, pose: HandPose, light_dir: np.ndarray,
              shadow_strength: float = 0.45, rng: np.random.Generator | None = None) -> tuple[int, int, int, int] | None:
    """Draw the hand (and its shadow) on the canvas; returns its box on the canvas or None if off it."""
    parts = hand_capsules(pose)
    # Box of the hand on the canvas.
    pts, rads = [], []
    for p0, p1, r0, r1, _ in parts:
        pp, (rho0, rho1), _ = _capsule_polys(camera, p0, p1, r0, r1)
        pts.append(pp)
        rads += [rho0, rho1]
    allp = np.vstack(pts)
    pad = max(rads) + 6 + math.hypot(*pose.motion)
    ch, cw = canvas.shape[:2]
    x0, y0 = int(max(0, allp[:, 0].min() - pad)), int(max(0, allp[:, 1].min() - pad))
    x1, y1 = int(min(cw, allp[:, 0].max() + pad)), int(min(ch, allp[:, 1].max() + pad))
    # Shadow first: the capsules pushed along the light onto the table, blurred by their height.
    _hand_shadow(canvas, camera, parts, light_dir, shadow_strength)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    layer = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    alpha = np.zeros((y1 - y0, x1 - x0), np.uint8)
    # Light direction on the canvas (toward the light), for the band shading.
    c = np.asarray(pose.wrist, np.float64)
    lp = camera.project_canvas(np.array([c, c - light_dir * 50]))
    l2 = lp[1] - lp[0]
    l2 = l2 / (np.linalg.norm(l2) + 1e-9)
    # Draw far parts first (depth from the camera).
    order = sorted(parts, key=lambda p: -float(camera.depth(((p[0] + p[1]) / 2)[None])[0]))
    for p0, p1, r0, r1, what in order:
        _draw_capsule(layer, alpha, camera, p0, p1, r0, r1, pose.sleeve if what == "sleeve" else pose.skin,
                      l2, np.array([x0, y0], np.float64))
    # Skin and cloth are not flat colour: a little texture, then a soft edge.
    if rng is not None:
        n = rng.normal(0, 4.0, layer.shape[:2]).astype(np.float32)
        n = cv2.GaussianBlur(n, (0, 0), 1.5)
        layer = np.clip(layer.astype(np.float32) + n[..., None], 0, 255).astype(np.uint8)
    # Soften the shading bands in proportion to the hand's size on the picture.
    finger_px = camera.K[0, 0] * 9.0 / max(1.0, float(camera.depth(np.asarray(pose.tip)[None])[0]))
    # (capped: a hand a hand's length from a low camera's lens has fingers ~150 px wide on a still, and a
    # blur of that size over the whole picture takes the simulator ~10 s for bands no one can see)
    layer = cv2.GaussianBlur(layer, (0, 0), min(MAX_BAND_SOFTEN_PX, max(0.8, 0.25 * finger_px)))
    alpha = cv2.GaussianBlur(alpha, (0, 0), 0.8)
    if pose.moving:
        layer, alpha = _motion_blur(layer, alpha, pose.motion)
    a = alpha.astype(np.float32)[..., None] / 255
    # layer is not premultiplied where alpha is fractional after blur: composite straight.
    roi = canvas[y0:y1, x0:x1]
    roi[:] = np.clip(roi.astype(np.float32) * (1 - a) + layer.astype(np.float32) * a, 0, 255).astype(np.uint8)
    return x0, y0, x1, y1


def _motion_blur(layer, alpha, motion):
    """Smear the hand along its motion during the exposure (a line kernel)."""
    dx, dy = motion
    length = math.hypot(dx, dy)
    if length > MAX_BLUR_PX:
        # a hand passing close under a low camera moves thousands of pixels in one exposure (a 4608-wide
        # still: ~9000): a kernel that long is gigabytes and a filter that never ends. Its smear is a ghost
        # without detail, so it is drawn on the layer scaled down until the kernel is short, then scaled up.
        f = math.ceil(length / MAX_BLUR_PX)
        h, w = alpha.shape
        small = (max(1, w // f), max(1, h // f))
        col, a = _motion_blur(cv2.resize(layer, small, interpolation=cv2.INTER_AREA),
                              cv2.resize(alpha, small, interpolation=cv2.INTER_AREA), (dx / f, dy / f))
        return (cv2.resize(col, (w, h), interpolation=cv2.INTER_LINEAR),
                cv2.resize(a, (w, h), interpolation=cv2.INTER_LINEAR))
    n = int(max(3, math.ceil(length)))
    k = np.zeros((2 * n + 1, 2 * n + 1), np.float32)
    for t in np.linspace(-0.5, 0.5, 2 * n + 1):
        k[int(round(n + t * dy)), int(round(n + t * dx))] += 1
    k /= k.sum()
    premul = layer.astype(np.float32) * (alpha.astype(np.float32)[..., None] / 255)
    premul = cv2.filter2D(premul, -1, k)
    a = cv2.filter2D(alpha.astype(np.float32), -1, k)
    col = premul / np.maximum(a[..., None] / 255, 1e-3)
    return np.clip(col, 0, 255).astype(np.uint8), np.clip(a, 0, 255).astype(np.uint8)


def _hand_shadow(canvas, camera, parts, light_dir, strength):
    ch, cw = canvas.shape[:2]
    scale = 0.25
    polys = []
    heights = []
    for p0, p1, r0, r1, _ in parts:
        g = []
        for p in (p0, p1):
            s = -p[2] / max(light_dir[2], 0.05)
            q = p + s * light_dir
            q[2] = 0
            g.append(q)
        heights.append(-min(p0[2], p1[2]))
        pp, (rho0, rho1), circ = _capsule_polys(camera, g[0], g[1], r0, r1)
        poly = np.vstack([pp[0] + circ * rho0, pp[1] + circ * rho1]) * scale
        polys.append(poly)
    allp = np.vstack(polys)
    blur = 2 + 0.04 * float(np.mean(heights)) * camera.px_per_mm((allp[:, 0].mean(), allp[:, 1].mean())) * scale
    pad = int(3 * blur) + 2
    x0, y0 = int(max(0, allp[:, 0].min() - pad)), int(max(0, allp[:, 1].min() - pad))
    x1, y1 = int(min(cw * scale, allp[:, 0].max() + pad)), int(min(ch * scale, allp[:, 1].max() + pad))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for poly in polys:
        hull = cv2.convexHull(np.round((poly - (x0, y0)) * 16).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), blur)
    X0, Y0 = int(x0 / scale), int(y0 / scale)
    X1, Y1 = min(cw, int(x1 / scale)), min(ch, int(y1 / scale))
    if X1 - X0 < 2 or Y1 - Y0 < 2:
        return
    m = cv2.resize(mask, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255
    roi = canvas[Y0:Y1, X0:X1]
    roi[:] = (roi.astype(np.float32) * (1 - strength * 0.8 * m[..., None])).astype(np.uint8)


def arm_over_mm2(pose: HandPose, camera_centre: np.ndarray, regions: list[np.ndarray], grid_mm: float = 2.0) -> float:
    """How much of the table inside `regions` (polygons, N×2 mm) the arm hides from the camera (mm²).

    Each capsule's end rings are sent from the camera's centre down onto the table (z = 0): the
    table points behind the arm. Their convex hulls are rasterised on a `grid_mm` grid and met with
    the regions. Lens distortion moves both alike, so it is left out."""
    c = np.asarray(camera_centre, np.float64)
    hulls = []
    th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    for p0, p1, r0, r1, _ in hand_capsules(pose):
        ring = [np.stack([p[0] + r * np.cos(th), p[1] + r * np.sin(th), np.full(12, p[2])], 1)
                for p, r in ((p0, r0), (p1, r1))]
        pts = np.vstack(ring)
        k = -c[2] / np.maximum(pts[:, 2] - c[2], 1e-6)          # from the centre through the point to z = 0
        hulls.append((c[:2] + (pts[:, :2] - c[:2]) * k[:, None]))
    allpts = np.vstack(hulls)
    reg = np.vstack(regions)
    lo = np.maximum(allpts.min(0), reg.min(0)) - grid_mm
    hi = np.minimum(allpts.max(0), reg.max(0)) + grid_mm
    if np.any(hi <= lo):
        return 0.0
    w, h = (int(math.ceil(v)) + 1 for v in (hi - lo) / grid_mm)
    arm = np.zeros((h, w), np.uint8)
    play = np.zeros((h, w), np.uint8)
    for pts in hulls:
        cv2.fillConvexPoly(arm, cv2.convexHull(np.round((pts - lo) / grid_mm).astype(np.int32)), 1)
    for poly in regions:
        cv2.fillPoly(play, [np.round((np.asarray(poly) - lo) / grid_mm).astype(np.int32)], 1)
    return float(np.count_nonzero(arm & play)) * grid_mm * grid_mm
