"""Seat views (vision.seatview) keep only the coarse grid and the half view's maps: the whole view's maps
(~30 MB for four seats of a still) are worked out on demand, and equal what the grid gives anywhere."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision_helpers import render_case  # noqa: E402

from calibration.registration import register_board  # noqa: E402
from vision.reader import DEFAULT_READER_CONFIG  # noqa: E402
from vision.seatview import SeatViewConfig, build_seat_views  # noqa: E402


def test_a_seat_view_keeps_no_whole_view_maps_and_gives_the_same_pixels():
    case = render_case(seed=5)
    reg = register_board(DEFAULT_READER_CONFIG.registration, case.calibration, case.image)
    assert reg.ok
    views = build_seat_views(SeatViewConfig(), case.calibration, reg)
    assert set(views) == {"south", "west", "north", "east"}
    for sv in views.values():
        w, h = sv.size
        # what the view keeps per registration: the grid and the half maps, a quarter of the whole maps' size
        kept = sv.coarse.nbytes + sv.half_x.nbytes + sv.half_y.nbytes
        assert kept < 0.3 * (2 * 4 * w * h)
        map_x, map_y = sv.maps()
        assert map_x.shape == map_y.shape == (h, w) and map_x.dtype == np.float32
        assert sv.warp(case.image).shape == (h, w, 3)
        # a few view pixels through frame_maps (the rows' reading) land where the whole maps say
        rng = np.random.default_rng(1)
        cols = rng.integers(0, w, 200).astype(np.float32).reshape(1, -1)
        rows = rng.integers(0, h, 200).astype(np.float32).reshape(1, -1)
        fx, fy = sv.frame_maps(cols, rows)
        ci, ri = cols.astype(int), rows.astype(int)
        assert np.allclose(fx, map_x[ri, ci], atol=1e-3) and np.allclose(fy, map_y[ri, ci], atol=1e-3)
        # the half view samples the middle of each 2x2 of the whole view
        half = sv.warp_half(case.image)
        assert half.shape[:2] == (h // 2, w // 2)
        whole = cv2.resize(sv.warp(case.image)[:2 * (h // 2), :2 * (w // 2)], (w // 2, h // 2),
                           interpolation=cv2.INTER_AREA)
        assert np.mean(np.abs(half.astype(np.int16) - whole.astype(np.int16))) < 6.0
