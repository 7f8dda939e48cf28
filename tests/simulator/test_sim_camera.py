"""The simulated camera follows OpenCV's model exactly, so truth coordinates match drawn pixels."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from simulator.camera import HEIGHT_RANGE, HFOV_RANGE, MAX_TILT, distort_normalized, fits, make_camera, sample_camera, undistort_normalized


def _camera():
    return make_camera((1280, 720), target=(280, 200), height=850, tilt_deg=20, tilt_azimuth_deg=35, yaw_deg=70,
                       hfov_deg=90, dist=(-0.18, 0.02, 0.0006, -0.0004, 0.0))


def test_projection_matches_opencv_project_points():
    cam = _camera()
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(-300, 900, 200), rng.uniform(-300, 700, 200), rng.uniform(-60, 0, 200)])
    ours = cam.project(pts)
    rvec = cv2.Rodrigues(cam.R)[0]
    theirs = cv2.projectPoints(pts, rvec, cam.t, cam.K, cam.dist)[0].reshape(-1, 2)
    assert np.abs(ours - theirs).max() < 1e-6


def test_undistort_inverts_distort():
    dist = np.array([-0.2, 0.03, 0.0005, -0.0003, 0.0])
    x, y = np.meshgrid(np.linspace(-1.2, 1.2, 31), np.linspace(-0.7, 0.7, 17))
    xd, yd = distort_normalized(x, y, dist)
    xu, yu = undistort_normalized(xd, yd, dist)
    assert np.abs(xu - x).max() < 1e-7 and np.abs(yu - y).max() < 1e-7


def test_lens_maps_send_each_output_pixel_to_where_the_pinhole_drew_it():
    """A world point drawn on the canvas lands, after the remap, where `project` says."""
    cam = _camera()
    m1, m2 = cam.distortion_maps
    mx, my = cv2.convertMaps(m1, m2, cv2.CV_32FC1)
    rng = np.random.default_rng(1)
    pts = np.column_stack([rng.uniform(0, 560, 300), rng.uniform(0, 395, 300), np.zeros(300)])
    out = cam.project(pts)
    canvas = cam.project_canvas(pts)
    w, h = cam.size
    ok = (out[:, 0] > 1) & (out[:, 0] < w - 2) & (out[:, 1] > 1) & (out[:, 1] < h - 2)
    assert ok.sum() > 100
    for (u, v), (cu, cv_) in zip(out[ok], canvas[ok]):
        # Bilinear lookup of the map at the (sub-pixel) output point.
        x0, y0 = int(u), int(v)
        fx, fy = u - x0, v - y0
        def bil(m):
            return ((1 - fx) * (1 - fy) * m[y0, x0] + fx * (1 - fy) * m[y0, x0 + 1]
                    + (1 - fx) * fy * m[y0 + 1, x0] + fx * fy * m[y0 + 1, x0 + 1])
        # Fixed-point maps carry 1/32 px; the 8-px interpolation grid adds a little.
        assert abs(bil(mx) - cu) < 0.1 and abs(bil(my) - cv_) < 0.1


def test_sampled_cameras_stay_in_the_issue_range_and_see_the_whole_area():
    area = np.array([[-325, -325], [885, -325], [885, 720], [-325, 720]], float)
    for seed in range(12):
        cam = sample_camera(np.random.default_rng(seed), (2304, 1296), area)
        assert HEIGHT_RANGE[0] <= cam.height <= HEIGHT_RANGE[1]
        assert 0 <= cam.pose["tilt_deg"] <= MAX_TILT
        assert HFOV_RANGE[0] <= cam.pose["hfov_deg"] <= HFOV_RANGE[1]
        assert fits(cam, area)
        assert cam.canvas_covers


def test_a_straight_down_camera_sees_north_at_the_top():
    cam = make_camera((800, 600), target=(0, 0), height=600, hfov_deg=60)
    north, south = cam.project(np.array([[0, -100, 0], [0, 100, 0]]))
    assert north[1] < south[1]
    west, east = cam.project(np.array([[-100, 0, 0], [100, 0, 0]]))
    assert west[0] < east[0]


@pytest.mark.parametrize("yaw", [0, 90, 200])
def test_pawns_lean_away_from_the_image_centre(yaw):
    """A vertical post's top projects farther from the principal point than its foot (issue: pawns lean)."""
    cam = make_camera((1280, 720), target=(0, 0), height=700, yaw_deg=yaw, hfov_deg=80)
    for x, y in ((200, 0), (-150, 120), (0, -180)):
        foot, top = cam.project(np.array([[x, y, 0.0], [x, y, -50.0]]))
        c = cam.K[:2, 2]
        assert np.linalg.norm(top - c) > np.linalg.norm(foot - c) + 5
