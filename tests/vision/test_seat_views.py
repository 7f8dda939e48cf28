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


def test_a_half_view_at_another_share_of_the_ppm_samples_where_the_whole_view_says():
    """SeatViewConfig.half (session 34): the rows' view at another share of the view's ppm is remapped from the
    coarse grid at its own pixels' middles; at a share of one half it gives the halving's maps (to ~1e-3 px)."""
    import dataclasses

    case = render_case(seed=5)
    reg = register_board(DEFAULT_READER_CONFIG.registration, case.calibration, case.image)
    halved = build_seat_views(SeatViewConfig(ppm=2.5), case.calibration, reg)
    direct = build_seat_views(SeatViewConfig(ppm=2.5, half=0.5000001), case.calibration, reg)
    for seat, sv in halved.items():
        assert sv.half_scale == 0.5
        assert direct[seat].half_x.shape == sv.half_x.shape
        assert np.abs(direct[seat].half_x - sv.half_x).max() < 1e-3
        assert np.abs(direct[seat].half_y - sv.half_y).max() < 1e-3
    views = build_seat_views(dataclasses.replace(SeatViewConfig(), ppm=2.0, half=0.625), case.calibration, reg)
    for seat, sv in views.items():
        w, h = sv.size
        assert sv.half_scale == 0.625 and sv.half_x.shape == (int(h * 0.625), int(w * 0.625))
        # half view pixel (c, r) lies at whole view pixel ((c + 1/2) / 0.625 - 1/2, ...), as the whole maps say
        map_x, map_y = sv.maps()
        c, r = 4, 5                      # whole view pixel (6.7, 8.3): between pixels, linear in between
        x, y = (c + 0.5) / 0.625 - 0.5, (r + 0.5) / 0.625 - 0.5
        fx, fy = sv.frame_maps(np.array([[x]], np.float32), np.array([[y]], np.float32))
        assert abs(sv.half_x[r, c] - fx[0, 0]) < 1e-2 and abs(sv.half_y[r, c] - fy[0, 0]) < 1e-2
        # and the rows' view is the same seat: at 1.25 px/mm, as the 2.5 view's half
        assert abs(sv.half_x.shape[1] - halved[seat].half_x.shape[1]) <= 1
