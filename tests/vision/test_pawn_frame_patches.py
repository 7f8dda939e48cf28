"""The pawn reader's patches cut from the frame itself (vision.pawnnet, PawnNetConfig.from_frame): each
sample is where the pose projects its board point, and its value is the frame there, divided by the
appearance stage's gain and less its veil, as the normalised view is."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from calibration.registration import register_board
from vision.pawnnet import (DEFAULT_CONFIG as PAWN_NET, build_patch_maps, frame_patches, load_net, patch_offsets,
                            patch_shape, stone_features)
from vision.reader import board_model

from vision_helpers import render_case


def test_patch_offsets_are_symmetric_across_the_lean_and_keep_the_2mm_grid():
    us, vs = patch_offsets(replace(PAWN_NET, step_mm=2.0))
    assert np.allclose(us, np.arange(-16.0, 16.0 + 1e-6, 2.0))
    assert np.allclose(vs, np.arange(-16.0, 52.0 + 1e-6, 2.0))
    for step in (1.5, 1.75, 1.25):
        us, vs = patch_offsets(replace(PAWN_NET, step_mm=step))
        assert np.allclose(us, -us[::-1])          # the second look mirrors the patch across the lean
        assert np.allclose(np.diff(us), step) and np.allclose(np.diff(vs), step)
        assert us[-1] <= PAWN_NET.patch_u_mm + 1e-9 and vs[0] == -PAWN_NET.patch_back_mm
        assert patch_shape(replace(PAWN_NET, step_mm=step)) == (len(vs), len(us))


def test_the_shipped_weights_fit_the_configured_patch():
    net = load_net(PAWN_NET.weights)
    assert net.shape[:2] == patch_shape(PAWN_NET)


def _bilinear(image, x, y):
    """The frame's colour at (x, y) (pixel centres at integers), by hand."""
    x0, y0 = int(math.floor(x)), int(math.floor(y))
    fx, fy = x - x0, y - y0
    im = image.astype(np.float64)
    return ((1 - fx) * (1 - fy) * im[y0, x0] + fx * (1 - fy) * im[y0, x0 + 1]
            + (1 - fx) * fy * im[y0 + 1, x0] + fx * fy * im[y0 + 1, x0 + 1])


@pytest.mark.parametrize("step,k", [(2.0, 1), (1.5, 1), (2.0, 2)])
def test_frame_patches_sample_the_frame_where_the_pose_projects_each_board_point(step, k):
    case = render_case(seed=5, pawns=[("c4", "black", True), ("e5", "white", False)])
    reader = case.reader()
    reg = register_board(reader.config.registration, case.calibration, case.image)
    assert reg.ok
    m = board_model(reader.config, case.calibration, reg, reader.board, reader.components, pawn_net=True,
                    tile_net=True)
    reader.model = m
    cfg = replace(PAWN_NET, from_frame=True, step_mm=step, frame_supersample=k)
    maps = build_patch_maps(cfg, m.board, m.view, m.log_art, m.pose, m.board_thickness)
    rows, cols = maps.shape
    assert (rows, cols) == patch_shape(cfg)
    assert maps.frame_x.shape == (len(maps.stones) * rows * k, cols * k)
    sub = ((np.arange(k) + 0.5) / k - 0.5) * step     # each sample: the mean of k x k over its cell
    log_norm, gain = reader.normalised_view(case.image)
    patches = frame_patches(maps, case.image, gain)
    us, vs = patch_offsets(cfg)
    nx, ny = m.view.nadir
    rng = np.random.default_rng(0)
    for sid in ("c4", "e5", maps.stones[0], maps.stones[-1]):
        i = maps.stones.index(sid)
        s = m.board.stones[sid]
        d = math.hypot(s.x - nx, s.y - ny)
        ax, ay = (s.x - nx) / d, (s.y - ny) / d
        cx, cy = maps.centres[i]
        g, o = gain[0][cy, cx].astype(np.float64), gain[1][cy, cx].astype(np.float64)
        for r, c in [(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 2)] + [
                tuple(rng.integers((rows, cols))) for _ in range(3)]:
            colours = []
            for a in range(k):
                for b in range(k):
                    u, v = us[c] + sub[b], vs[r] + sub[a]
                    bx = s.x + u * -ay + v * ax
                    by = s.y + u * ax + v * ay
                    (fx, fy), = m.pose.project([(bx, by, -m.board_thickness)])
                    assert maps.frame_x[(i * rows + r) * k + a, c * k + b] == pytest.approx(fx, abs=1e-3)
                    assert maps.frame_y[(i * rows + r) * k + a, c * k + b] == pytest.approx(fy, abs=1e-3)
                    colours.append(_bilinear(case.image, fx, fy))
            want = np.log(np.maximum(np.mean(colours, axis=0) - o, 0.0) / g + cfg.log_offset)
            # cv2.remap's bilinear weights are fixed point (1/32 pixel): within a grey level or so
            assert np.allclose(patches[i, r, c], want, atol=0.03), (sid, r, c, patches[i, r, c], want)
    # the classifier's inputs: the frame's patches (not the board view's) when the maps were built for it
    x = stone_features(maps, log_norm, list(case.seats.values()), case.image, gain)
    colour = x[:, :rows * cols * 6].reshape(len(maps.stones), rows, cols, 6)[..., 3:]
    diff = x[:, :rows * cols * 6].reshape(len(maps.stones), rows, cols, 6)[..., :3]
    # colour less the residual white balance, and its difference to the art less the same: so
    # colour - diff is the art, as cut once per registration
    assert np.allclose(colour - diff, maps.art, atol=1e-4)
    view = stone_features(maps, log_norm, list(case.seats.values()))
    assert not np.allclose(view, x)
