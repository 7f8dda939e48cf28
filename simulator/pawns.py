"""3-D pieces drawn by projecting their geometry: pawns (and other turned shapes such as a mug).

A turned piece is a surface of revolution given by its profile [(z, r), ...] from the bottom up
(mm). It is meshed once, then for each frame projected through the camera, back faces culled,
faces shaded (ambient + Lambert + a glossy highlight from the lamp, so the top catches the light)
and painted far-to-near on a 2× supersampled patch, which is averaged down for clean edges.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .components import PAWN_BIG, PAWN_RGB, PAWN_SMALL


def pawn_profile(big: bool) -> tuple[tuple[float, float], ...]:
    """The pawn's outline (z, radius) in mm, bottom to top: a bevelled foot, a tapering body, a
    collar, a neck and a round head (a small pawn is 16 × 25 mm, the big one 19 × 50 mm)."""
    width, height = PAWN_BIG if big else PAWN_SMALL
    R = width / 2
    head = 0.62 * R if not big else 0.68 * R
    body_top = height - 2 * head - (0.09 if not big else 0.07) * height
    pts = [(0.0, 0.0), (0.0, 0.93 * R), (0.04 * height, R), (0.1 * height, 0.99 * R),
           (0.5 * body_top, 0.86 * R), (body_top, 0.68 * R), (body_top + 0.02 * height, 0.76 * R),
           (body_top + 0.045 * height, 0.72 * R), (body_top + 0.06 * height, 0.5 * R)]
    zc = height - head
    for a in np.linspace(-50, 90, 9):
        t = math.radians(a)
        pts.append((zc + head * math.sin(t), max(0.0, head * math.cos(t))))
    return tuple((round(z, 3), round(r, 3)) for z, r in pts)


def mug_profile(d: float = 82.0, h: float = 95.0) -> tuple[tuple[float, float], ...]:
    """A coffee mug (closed by its coffee surface a little below the rim)."""
    R = d / 2
    return ((0.0, 0.0), (0.0, R * 0.92), (3.0, R), (h, R * 1.02), (h, R * 0.9), (h - 8, R * 0.9), (h - 8, 0.0))


@lru_cache(maxsize=16)
def revolve(profile: tuple[tuple[float, float], ...], segments: int = 28) -> np.ndarray:
    """Vertices (M×N×3) of the surface of revolution of `profile` (z up, local origin on the axis)."""
    th = np.linspace(0, 2 * np.pi, segments, endpoint=False)
    z = np.array([p[0] for p in profile])[:, None]
    r = np.array([p[1] for p in profile])[:, None]
    return np.stack([r * np.cos(th)[None, :], r * np.sin(th)[None, :], np.repeat(z, segments, 1)], -1)


@dataclass(frozen=True)
class Lighting3D:
    """How turned pieces are lit: direction toward the lamp (world, unit), ambient and glossiness."""

    to_light: tuple[float, float, float] = (0.3, -0.4, -0.87)
    ambient: float = 0.38
    diffuse: float = 0.75
    specular: float = 0.35
    shininess: float = 24.0


def _faces(verts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quad corner arrays (F×4×3), face centres and outward normals for a revolved mesh."""
    a = verts[:-1]
    b = np.roll(verts[:-1], -1, axis=1)
    c = np.roll(verts[1:], -1, axis=1)
    d = verts[1:]
    quads = np.stack([a, b, c, d], 2).reshape(-1, 4, 3)
    centre = quads.mean(1)
    n = np.cross(quads[:, 2] - quads[:, 0], quads[:, 3] - quads[:, 1])
    norm = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.where(norm > 1e-9, n / np.maximum(norm, 1e-9), 0.0)
    # Orient outward: away from the axis, or up/down for flat rings.
    radial = centre.copy()
    radial[:, 2] = 0.0
    outward = np.where((np.einsum("ij,ij->i", n, radial) < 0)[:, None], -n, n)
    return quads, centre, outward


@lru_cache(maxsize=16)
def _mesh_faces(profile: tuple[tuple[float, float], ...], segments: int):
    verts = revolve(profile, segments)
    quads, centre, normals = _faces(verts)
    # Flat faces (horizontal rings) need their normal along ±z; fix those the radial test got wrong.
    flat = np.abs(normals[:, 2]) > 0.95
    normals[flat, 2] = np.abs(normals[flat, 2])  # top-facing (z up in local frame)
    keep = np.linalg.norm(normals, axis=1) > 0.5
    band = np.repeat(np.arange(verts.shape[0] - 1), segments)
    return quads[keep], centre[keep], normals[keep], band[keep]


def draw_turned(canvas: np.ndarray, camera, profile: tuple[tuple[float, float], ...], position: tuple[float, float],
                base_height: float, rgb: tuple[int, int, int], light: Lighting3D, *, segments: int = 28,
                grain_seed: int = 0, accent: dict[int, tuple[int, int, int]] | None = None) -> tuple[int, int, int, int] | None:
    """Draw a turned piece standing at table point `position` on a surface `base_height` mm high.

    Returns its box (x0, y0, x1, y1) on the canvas, or None when it is off the canvas.
    """
    quads, centre, normals, band = _mesh_faces(profile, segments)
    # Local (z up) → world (z down): x, y shift, z = -(base + z).
    off = np.array([position[0], position[1], 0.0])
    def to_world(p):
        w = p.copy()
        w[..., 2] = -(p[..., 2] + base_height)
        return w + off
    wq = to_world(quads)
    wc = to_world(centre)
    wn = normals.copy()
    wn[:, 2] = -wn[:, 2]
    view = camera.C[None, :] - wc
    vis = np.einsum("ij,ij->i", wn, view) > 0
    if not vis.any():
        return None
    wq, wc, wn, band = wq[vis], wc[vis], wn[vis], band[vis]
    pts = camera.project_canvas(wq.reshape(-1, 3)).reshape(-1, 4, 2)
    ch, cw = canvas.shape[:2]
    x0, y0 = np.floor(pts[..., 0].min()) - 2, np.floor(pts[..., 1].min()) - 2
    x1, y1 = np.ceil(pts[..., 0].max()) + 2, np.ceil(pts[..., 1].max()) + 2
    if x1 < 0 or y1 < 0 or x0 >= cw or y0 >= ch:
        return None
    x0, y0 = int(max(0, x0)), int(max(0, y0))
    x1, y1 = int(min(cw, x1)), int(min(ch, y1))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    ss = 2
    pw, ph = (x1 - x0) * ss, (y1 - y0) * ss
    patch = np.zeros((ph, pw, 3), np.uint8)
    alpha = np.zeros((ph, pw), np.uint8)
    # Shading (world frame, z down): Lambert from the lamp, a sky term from above, Blinn highlight.
    L = np.asarray(light.to_light, np.float64)
    L = L / np.linalg.norm(L)
    v = view[vis] / np.linalg.norm(view[vis], axis=1, keepdims=True)
    hvec = (v + L) / np.linalg.norm(v + L, axis=1, keepdims=True)
    lam = np.clip(wn @ L, 0, 1)
    sky = np.clip(-wn[:, 2], 0, 1) * 0.15
    spec = light.specular * np.clip(np.einsum("ij,ij->i", wn, hvec), 0, 1) ** light.shininess
    rng = np.random.default_rng(grain_seed)
    grain = 1.0 + 0.05 * rng.standard_normal(len(wn)) + 0.04 * np.sin(band * 1.7 + grain_seed)
    base = np.array([rgb[2], rgb[1], rgb[0]], np.float64)
    shade = (light.ambient + light.diffuse * lam + sky) * grain
    cols = base[None, :] * shade[:, None] + 255.0 * spec[:, None]
    if accent:
        for b, col in accent.items():
            sel = band == b
            cols[sel] = np.array([col[2], col[1], col[0]], np.float64)[None, :] * shade[sel, None] + 255 * spec[sel, None]
    cols = np.clip(cols, 0, 255).astype(np.int32)
    depth = camera.depth(wc)
    order = np.argsort(-depth)
    poly = np.round((pts - (x0, y0)) * ss * 16).astype(np.int32)
    for i in order:
        cv2.fillConvexPoly(patch, poly[i], cols[i].tolist(), cv2.LINE_8, 4)
        cv2.fillConvexPoly(alpha, poly[i], 255, cv2.LINE_8, 4)
    patch = cv2.resize(patch, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    a = cv2.resize(alpha, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    # The patch is black where alpha is 0, so after averaging it is premultiplied by alpha.
    roi = canvas[y0:y1, x0:x1]
    roi[:] = np.clip(roi.astype(np.float32) * (1 - a) + patch.astype(np.float32), 0, 255).astype(np.uint8)
    return x0, y0, x1, y1


def turned_shadow(mask: np.ndarray, scale: float, camera, profile, position, base_height: float,
                  light_dir: np.ndarray, strength: int = 255) -> None:
    """Paint the shadow a turned piece casts on the table into `mask` (canvas × `scale` pixels).

    `light_dir` is the direction light travels (world, z down); the silhouette is the convex hull
    of the piece's profile points pushed along it onto the table.
    """
    verts = revolve(tuple(profile), 16).reshape(-1, 3).copy()
    w = verts.copy()
    w[:, 2] = -(verts[:, 2] + base_height)
    w[:, 0] += position[0]
    w[:, 1] += position[1]
    s = -w[:, 2] / max(light_dir[2], 0.05)
    ground = w + s[:, None] * light_dir[None, :]
    ground[:, 2] = 0.0
    p = camera.project_canvas(ground) * scale
    hull = cv2.convexHull(np.round(p * 16).astype(np.int32))
    cv2.fillConvexPoly(mask, hull, strength, cv2.LINE_AA, 4)


def pawn_side_view(player: str, big: bool, ppm: float = 8.0) -> np.ndarray:
    """A pawn seen from the side (orthographic, slightly from above) as BGRA, for the export."""
    from .camera import make_camera

    width, height = PAWN_BIG if big else PAWN_SMALL
    # A long-focus camera far away, looking 15° down: nearly orthographic, `ppm` px/mm at the pawn.
    w, h = int(round((width + 10) * ppm * 2)), int(round((height + 10) * ppm * 2))
    tilt = 75.0
    dist_mm = 3000.0
    f = ppm * dist_mm
    cam = make_camera((w, h), target=(0.0, -height / 2 / math.tan(math.radians(tilt))), height=dist_mm * math.cos(
        math.radians(tilt)), tilt_deg=tilt, tilt_azimuth_deg=0, hfov_deg=math.degrees(2 * math.atan(w / 2 / f)))
    canvas = np.zeros((cam.canvas[1], cam.canvas[0], 3), np.uint8)
    box = draw_turned(canvas, cam, pawn_profile(big), (0.0, 0.0), 0.0, PAWN_RGB[player], Lighting3D(), segments=48)
    # Alpha: render the same piece white-on-black.
    sil = np.zeros_like(canvas)
    draw_turned(sil, cam, pawn_profile(big), (0.0, 0.0), 0.0, (255, 255, 255),
                Lighting3D(ambient=10, diffuse=0, specular=0), segments=48)
    alpha = sil[..., 0]
    ys, xs = np.nonzero(alpha)
    if box is None or len(xs) == 0:
        return np.zeros((h, w, 4), np.uint8)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    a = alpha[y0:y1, x0:x1].astype(np.float32)[..., None] / 255
    col = np.where(a > 0, canvas[y0:y1, x0:x1] / np.maximum(a, 1e-3), 0)
    return np.dstack([np.clip(col, 0, 255).astype(np.uint8), alpha[y0:y1, x0:x1]])
