"""Synthetic camera views for tests and benchmarks: a table seen through a known homography.

`render_table(calibration, homography, size)` draws the table, the board rectangle and the
calibration's markers (each on its white printed square) as a camera with that homography
(image <- board mm) would see them, optionally through a lens with distortion (K, dist), so
registration can be checked against an exact answer. It is not the simulator: no pieces, no
lighting, just geometry.
"""
from __future__ import annotations

from typing import Any, Mapping

from .markers import marker_image
from .model import CARD_GAME_AREA


def homography_looking_at(extent: tuple[float, float, float, float], size: tuple[int, int], *,
                          tilt: float = 0.08, margin: float = 0.06) -> Any:
    """A plausible image <- board-mm homography framing `extent` (x0, y0, x1, y1 mm) in an image of
    `size`, with a little perspective (`tilt`: how much narrower the far edge looks)."""
    import cv2
    import numpy as np

    x0, y0, x1, y1 = extent
    w, h = size
    mx, my = w * margin, h * margin
    aspect = (x1 - x0) / (y1 - y0)
    avail_w, avail_h = w - 2 * mx, h - 2 * my
    if avail_w / avail_h > aspect:
        bw, bh = avail_h * aspect, avail_h
    else:
        bw, bh = avail_w, avail_w / aspect
    left, top = (w - bw) / 2, (h - bh) / 2
    inset = bw * tilt / 2
    src = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    dst = np.float32([[left + inset, top], [left + bw - inset, top], [left + bw, top + bh], [left, top + bh]])
    return cv2.getPerspectiveTransform(src, dst)


def render_table(calibration: Mapping[str, Any], homography: Any, size: tuple[int, int], *,
                 board_size: tuple[float, float] | None = None, camera: tuple[Any, Any] | None = None,
                 quiet_mm: float = 10.0, px_per_mm: float = 8.0, skip_ids: tuple[int, ...] = (),
                 moved: Mapping[int, tuple[float, float]] | None = None, noise: float = 0.0, seed: int = 0) -> Any:
    """A BGR image of the table (see the module docstring). `homography` maps board mm to *undistorted*
    pixels; with `camera` = (K, dist) the image is then distorted by that lens. `skip_ids` leaves
    markers out (covered), `moved` shifts markers by (dx, dy) mm from where the calibration says."""
    import cv2
    import numpy as np

    w, h = size
    img = np.full((h, w, 3), (70, 105, 140), np.uint8)  # a wooden table
    bw, bh = board_size or CARD_GAME_AREA
    board = cv2.perspectiveTransform(np.float32([[0, 0], [bw, 0], [bw, bh], [0, bh]]).reshape(-1, 1, 2), homography)
    cv2.fillPoly(img, [np.round(board).astype(np.int32)], (70, 150, 90))
    dictionary = calibration["markers"]["dictionary"]
    for item in calibration["markers"]["items"]:
        if item["id"] in skip_ids:
            continue
        s = float(item["size"])
        dx, dy = (moved or {}).get(item["id"], (0.0, 0.0))
        x, y = float(item["x"]) + dx, float(item["y"]) + dy
        side_px = int(round(s * px_per_mm))
        quiet_px = int(round(quiet_mm * px_per_mm))
        tile = marker_image(dictionary, int(item["id"]), side_px, quiet_px=quiet_px)
        half = s / 2 + quiet_mm
        n = tile.shape[0]
        src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
        corners_mm = np.float32([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])
        dst = cv2.perspectiveTransform(corners_mm.reshape(-1, 1, 2), homography).reshape(-1, 2)
        M = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        warped = cv2.warpPerspective(tile, M, (w, h), flags=cv2.INTER_AREA, borderValue=0)
        mask = cv2.warpPerspective(np.full_like(tile, 255), M, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
        # blended where the mask is not 0 (elsewhere the blend gives the table's pixels back as they are):
        # over the whole picture it took seconds at full resolution
        x, y, bw_px, bh_px = cv2.boundingRect(mask)
        if bw_px and bh_px:
            roi = (slice(y, y + bh_px), slice(x, x + bw_px))
            alpha = (mask[roi].astype(np.float32) / 255.0)[..., None]
            img[roi] = (img[roi] * (1 - alpha) + cv2.cvtColor(warped[roi], cv2.COLOR_GRAY2BGR) * alpha).astype(np.uint8)
    if camera is not None:
        K, dist = camera
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        grid = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(grid, np.asarray(K, float), np.asarray(dist, float), P=np.asarray(K, float))
        und = und.reshape(h, w, 2)
        img = cv2.remap(img, und[..., 0], und[..., 1], cv2.INTER_LINEAR, borderValue=(70, 105, 140))
    if noise:
        rng = np.random.default_rng(seed)
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img
