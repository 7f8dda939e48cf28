"""The board's resolution in the registered frame (px per board mm, issue 20 / session 31): measured from the
registration once, at the board's centre and its worst corner; and the camera check's line on both sides of
its floor."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.camera_check import DEFAULT_CONFIG, CameraCheckConfig, check_image, resolution_line
from calibration.model import default_calibration
from calibration.registration import DEFAULT_CONFIG as REG, Registration, board_resolution, register_board
from calibration.sheet import table_extent
from calibration.synthetic import homography_looking_at, render_table
from engine.board import load_board

BOARD = load_board("base")
CAL = default_calibration(BOARD)


def scaled(s: float, tilt: float = 0.0) -> Registration:
    """A registration mapping board mm to pixels at `s` px/mm, the far (y = 0) edge shrunk by `tilt`."""
    h = np.array([[s, 0.0, 100.0], [0.0, s, 80.0], [0.0, -tilt / 1000.0, 1.0]])
    return Registration(h, (0, 1, 2, 3), 0.2, (4608, 2592))


def test_a_straight_down_view_has_one_scale_everywhere():
    res = board_resolution(scaled(1.7), BOARD.size_mm)
    assert res.centre == pytest.approx(1.7, rel=1e-6) and res.worst_corner == pytest.approx(1.7, rel=1e-6)


def test_a_tilted_view_is_worst_at_its_far_corners():
    res = board_resolution(scaled(2.0, tilt=0.5), BOARD.size_mm)
    # (u, v) = (2x + 100, 2y + 80) / w with w = 1 - 0.0005 y: the area scale is 2 (2 + 80 * 0.0005) / w^3, least
    # at y = 0 (the far edge, w = 1): the worst corner is a far one, below the centre
    def scale(y):
        return (2.0 * (2.0 + 0.04)) ** 0.5 / (1 - 0.0005 * y) ** 1.5

    assert res.centre == pytest.approx(scale(BOARD.size_mm[1] / 2), rel=1e-4)
    assert res.worst_corner == pytest.approx(scale(0.0), rel=1e-4) and res.worst_corner < res.centre


def test_no_homography_no_resolution():
    assert board_resolution(Registration(None, (), None, (640, 360), reason="no markers")) is None


def test_measured_on_a_rendered_table_matches_its_homography():
    size = (1280, 960)
    h = homography_looking_at(table_extent(CAL, BOARD.size_mm), size, tilt=0.12)
    reg = register_board(REG, CAL, render_table(CAL, h, size, board_size=BOARD.size_mm))
    want = board_resolution(Registration(h, (0, 1, 2, 3), 0.0, size), BOARD.size_mm)
    got = board_resolution(reg, BOARD.size_mm)
    assert got.centre == pytest.approx(want.centre, rel=0.02)
    assert got.worst_corner == pytest.approx(want.worst_corner, rel=0.02)
    # without the board's size the markers' box (at the board's corners) stands in
    assert board_resolution(reg).worst_corner == pytest.approx(want.worst_corner, rel=0.1)


def test_the_camera_check_says_too_far_below_its_floor_and_ok_above():
    floor = DEFAULT_CONFIG.min_board_px_per_mm
    low = resolution_line(DEFAULT_CONFIG, scaled(floor * 0.8), BOARD.size_mm)
    assert not low.ok and low.state == "too-far"
    assert low.values["px_per_cm"] == pytest.approx(8 * floor, abs=0.06)
    assert low.values["min_px_per_cm"] == pytest.approx(10 * floor)
    high = resolution_line(DEFAULT_CONFIG, scaled(floor * 1.2), BOARD.size_mm)
    assert high.ok and high.state == "ok"
    # the reader reads a still twice the frame's width: the same frame then passes
    assert resolution_line(DEFAULT_CONFIG, scaled(floor * 0.8), BOARD.size_mm, read_scale=2.0).ok
    # the floor is the config's
    assert resolution_line(CameraCheckConfig(min_board_px_per_mm=floor * 0.5), scaled(floor * 0.8), BOARD.size_mm).ok
    unknown = resolution_line(DEFAULT_CONFIG, None)
    assert not unknown.ok and unknown.state == "unknown"


def test_the_checklist_has_the_resolution_line_after_the_board():
    size = (1280, 960)
    h = homography_looking_at(table_extent(CAL, BOARD.size_mm), size, tilt=0.12)
    image = render_table(CAL, h, size, board_size=BOARD.size_mm)
    reg = register_board(REG, CAL, image)
    keys = [line.key for line in check_image(DEFAULT_CONFIG, image, CAL, reg, board_size_mm=BOARD.size_mm)]
    assert keys == ["focus", "exposure", "markers", "board", "resolution", "seats"]


def test_a_large_frames_small_far_markers_are_found_at_full_resolution():
    """A 4608-px still searched downscaled misses the small far markers of a steep view; looked for again at
    full resolution where the near ones place them (RegistrationConfig.large_search), all four are found and
    the homography is the true one (session 31: a camera hung high read two markers and placed the board off)."""
    from dataclasses import replace

    size = (4608, 2592)
    h = homography_looking_at(table_extent(CAL, BOARD.size_mm), size, tilt=0.8)
    image = render_table(CAL, h, size, board_size=BOARD.size_mm)
    before = register_board(replace(REG, large_search=False), CAL, image)
    after = register_board(REG, CAL, image)
    assert sorted(before.marker_ids) == [2, 3]
    assert sorted(after.marker_ids) == [0, 1, 2, 3] and after.ok
    corners = np.array([(0, 0), BOARD.size_mm, (0, BOARD.size_mm[1]), (BOARD.size_mm[0], 0)], float)
    truth = Registration(h, (0, 1, 2, 3), 0.0, size).board_to_image(corners)
    assert np.abs(after.board_to_image(corners) - truth).max() < 3.0


def test_the_command_line_check_scales_the_distance_line_to_the_picture_the_reader_reads(capsys):
    # the bundled demo's 640-px video frame: too far for a reader of that frame, fine for its 2304-px stills
    import json
    from pathlib import Path

    from calibration.camera_check import main

    demo = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "demo"
    frame = str(sorted((demo / "frames").iterdir())[0])
    cal = str(demo / "calibration.json")

    def distance(*extra: str) -> dict:
        main([frame, "--calibration", cal, *extra])
        lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        return next(x for x in lines if x["key"] == "resolution")

    video = distance()
    still = distance("--read-width", "2304")
    assert not video["ok"] and video["state"] == "too-far"
    assert still["ok"] and still["values"]["px_per_cm"] == pytest.approx(video["values"]["px_per_cm"] * 3.6, rel=0.05)
    assert main([frame, "--calibration", cal, "--read-width", "0"]) == 2
    assert "--read-width 0" in capsys.readouterr().err


def test_a_camera_hung_high_is_registered_from_a_second_less_downscaled_search():
    """A camera 2-2.6 m high leaves the markers so small in a 4608-px still that the search downscaled to 1280 px
    finds fewer than the two the crop search starts from (session 32: dev frames rejected "no-board"); the
    frame is searched once more at RegistrationConfig.retry_max_side and registered from all four."""
    from dataclasses import replace

    size = (4608, 2592)
    h = homography_looking_at(table_extent(CAL, BOARD.size_mm), size, tilt=0.1, margin=0.3)
    image = render_table(CAL, h, size, board_size=BOARD.size_mm)
    before = register_board(replace(REG, retry_max_side=0), CAL, image)
    after = register_board(REG, CAL, image)
    assert len(before.marker_ids) < REG.min_markers and not before.ok
    assert sorted(after.marker_ids) == [0, 1, 2, 3] and after.ok
    corners = np.array([(0, 0), BOARD.size_mm, (0, BOARD.size_mm[1]), (BOARD.size_mm[0], 0)], float)
    truth = Registration(h, (0, 1, 2, 3), 0.0, size).board_to_image(corners)
    assert np.abs(after.board_to_image(corners) - truth).max() < 3.0
