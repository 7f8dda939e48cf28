"""Board registration from the table markers, on synthetic views with a known homography."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.model import default_calibration
from calibration.registration import (DEFAULT_CONFIG, detect_markers, draw_registration,
                                      register_board)
from calibration.sheet import table_extent
from calibration.synthetic import homography_looking_at, render_table
from engine.board import load_board
from keltis_cam.cli import main

SIZE = (1280, 960)
BOARD = load_board("base")
CAL = default_calibration(BOARD)
H = homography_looking_at(table_extent(CAL, BOARD.size_mm), SIZE, tilt=0.12)
# points spread over the board and the seat zones, where vision will look
PROBES = np.array([[0, 0], [560, 0], [560, 395], [0, 395], [280, 200], [100, 600], [-200, 200], [700, -200]], float)


def expected(points, homography=H):
    return cv2.perspectiveTransform(np.asarray(points, float).reshape(-1, 1, 2), homography).reshape(-1, 2)


def test_detect_markers_finds_the_four_table_markers():
    image = render_table(CAL, H, SIZE, board_size=BOARD.size_mm)
    found = detect_markers(DEFAULT_CONFIG, image)
    assert [m.id for m in found] == [0, 1, 2, 3]
    # the marker centres land where the homography puts the calibration's marker centres
    centres = np.array([m.centre for m in found])
    want = expected([(m["x"], m["y"]) for m in CAL["markers"]["items"]])
    assert np.abs(centres - want).max() < 1.0


def test_register_board_recovers_the_homography():
    image = render_table(CAL, H, SIZE, board_size=BOARD.size_mm, noise=3.0)
    reg = register_board(DEFAULT_CONFIG, CAL, image)
    assert reg.ok, reg.reason
    assert reg.marker_ids == (0, 1, 2, 3) and reg.unknown_ids == ()
    assert reg.reprojection_error < 1.0
    assert np.abs(reg.board_to_image(PROBES) - expected(PROBES)).max() < 2.0
    # and back: image -> board mm
    assert np.abs(reg.image_to_board(expected(PROBES)) - PROBES).max() < 3.0


def test_register_board_undistorts_with_the_lens_calibration():
    K = np.array([[1000.0, 0, 640], [0, 1000.0, 480], [0, 0, 1]])
    dist = np.array([-0.25, 0.08, 0, 0, 0])
    image = render_table(CAL, H, SIZE, board_size=BOARD.size_mm, camera=(K, dist))
    with_lens = dict(CAL, camera={"size": list(SIZE), "K": K.tolist(), "dist": dist.tolist()})
    reg = register_board(DEFAULT_CONFIG, with_lens, image)
    assert reg.ok and reg.reprojection_error < 1.0
    # board_to_image applies the distortion: compare with the distorted projection of the probes
    want_und = expected(PROBES)
    norm = cv2.undistortPoints(want_und.reshape(-1, 1, 2), K, None).reshape(-1, 2)
    want, _ = cv2.projectPoints(np.hstack([norm, np.ones((len(norm), 1))]), np.zeros(3), np.zeros(3), K, dist)
    assert np.abs(reg.board_to_image(PROBES) - want.reshape(-1, 2)).max() < 2.0
    lens_error = np.abs(reg.board_to_image(PROBES) - want.reshape(-1, 2)).max()
    # without the lens model the same image maps the seat zones worse
    plain = register_board(DEFAULT_CONFIG, CAL, image)
    assert np.abs(plain.board_to_image(PROBES) - want.reshape(-1, 2)).max() > 3 * lens_error


def test_camera_model_scales_to_a_resized_image():
    K = np.array([[1000.0, 0, 640], [0, 1000.0, 480], [0, 0, 1]])
    with_lens = dict(CAL, camera={"size": [2560, 1920], "K": (K * [[2], [2], [1]]).tolist(), "dist": [0] * 5})
    reg = register_board(DEFAULT_CONFIG, with_lens, render_table(CAL, H, SIZE, board_size=BOARD.size_mm))
    assert reg.ok and np.allclose(reg.camera[0], K)


def test_two_markers_suffice_one_does_not():
    two = render_table(CAL, H, SIZE, board_size=BOARD.size_mm, skip_ids=(1, 3))
    reg = register_board(DEFAULT_CONFIG, CAL, two)
    assert reg.ok and reg.marker_ids == (0, 2)
    # two diagonal markers pin the board down, if less tightly than four
    assert np.abs(reg.board_to_image(PROBES[:5]) - expected(PROBES[:5])).max() < 5.0
    one = render_table(CAL, H, SIZE, board_size=BOARD.size_mm, skip_ids=(1, 2, 3))
    reg = register_board(DEFAULT_CONFIG, CAL, one)
    assert not reg.ok and reg.homography is None
    assert "found 1 of 4" in reg.reason and "missing ids [1, 2, 3]" in reg.reason
    with pytest.raises(ValueError):
        reg.board_to_image(PROBES)


@pytest.mark.parametrize("skip", [(), (2,)])
def test_a_marker_far_off_its_place_makes_the_registration_not_ok(skip):
    """A marker laid 6 cm off its corner: the homography bends to fit it, but the markers' own corners no
    longer agree with it, and the registration says so instead of mapping the board 4 cm off."""
    moved = render_table(CAL, H, SIZE, board_size=BOARD.size_mm, moved={1: (60.0, 30.0)}, skip_ids=skip)
    reg = register_board(DEFAULT_CONFIG, CAL, moved)
    assert not reg.ok
    assert "is not where the calibration places it" in reg.reason
    assert max(reg.marker_errors.values()) > DEFAULT_CONFIG.max_reprojection_px


def test_markers_the_calibration_does_not_place_are_reported_not_used():
    cal = default_calibration(BOARD)
    cal["markers"]["items"] = [m for m in cal["markers"]["items"] if m["id"] != 3]
    reg = register_board(DEFAULT_CONFIG, cal, render_table(CAL, H, SIZE, board_size=BOARD.size_mm))
    assert reg.ok and reg.marker_ids == (0, 1, 2) and reg.unknown_ids == (3,)


def test_overlay_and_cli_check_on_an_image(tmp_path, capsys):
    image = render_table(CAL, H, SIZE, board_size=BOARD.size_mm)
    reg = register_board(DEFAULT_CONFIG, CAL, image)
    overlay = draw_registration(image, CAL, reg, BOARD)
    assert overlay.shape == image.shape and np.abs(overlay.astype(int) - image).sum() > 0
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), image)
    out = tmp_path / "check.jpg"
    assert main(["calibrate", "check", "--image", str(frame), "--board", "base", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "found [0, 1, 2, 3]" in text and "OK" in text and out.stat().st_size > 0
    # a frame without markers: exit 1, reason printed, overlay still written
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    assert main(["calibrate", "check", "--image", str(blank), "--board", "base", "--out", str(out)]) == 1
    assert "NOT REGISTERED" in capsys.readouterr().out
    assert main(["calibrate", "check", "--image", str(tmp_path / "missing.png"), "--board", "base"]) == 2


# ---- small frames: the bundled demo's video stream is 640x360, where a 40 mm marker is ~10-14 px wide ----

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"
BOARD_CORNERS_MM = np.array([[0, 0], [560, 0], [560, 395], [0, 395]], float)


def _frames(session: str, step: int):
    import json

    from calibration.model import load_calibration

    folder = FIXTURES / session
    cal = load_calibration(folder / "calibration.json")
    truth = np.array(json.loads((folder / "simulator.json").read_text())["render_static"]["board"]["corners"])
    files = sorted((folder / "frames").glob("*.jpg"))[::step]
    return cal, truth, files


def test_the_demos_small_frames_register():
    cal, truth, files = _frames("demo", 7)
    regs = [register_board(DEFAULT_CONFIG, cal, cv2.imread(str(f))) for f in files]
    ok = [r for r in regs if r.ok]
    assert len(ok) >= 0.75 * len(regs), f"{len(ok)} of {len(regs)} demo frames registered"
    # With three or four markers the board lies where the simulator drew it (truth, in pixels).
    # (Two markers, both on one side, leave the far corners ~17 px off at this size: the far
    # markers are 7 px wide, 1.2 px per module; that limit is reported, not hidden.)
    good = [r for r in ok if len(r.marker_ids) >= 3]
    assert len(good) >= 0.15 * len(regs), f"{len(good)} of {len(regs)}"
    errors = [np.abs(r.board_to_image(BOARD_CORNERS_MM) - truth).max() for r in good]
    px = cv2.imread(str(files[0])).shape[1] / 480   # the bounds are pixels of a 480-wide frame
    assert np.median(errors) < 2.0 * px and max(errors) < 3.5 * px, errors


#: every ninth 960x540 frame of two sessions filmed by an earlier simulator (fixtures/sessions/nwnz-3p and
#: base-2p until session 16 filmed them again from a higher camera, whose 960x540 markers are ~14 px),
#: with their calibration and where the simulator drew the board's corners
SHRUNK = Path(__file__).resolve().parent / "data" / "shrunk"


@pytest.mark.parametrize("session", ["nwnz-3p", "base-2p"])
def test_frames_shrunk_to_480x270_register_from_three_or_four_markers(session):
    """Sessions filmed at 960x540 (markers 20 px and more), shrunk: frames the small-frame search was
    not tuned on."""
    import json

    from calibration.model import load_calibration

    folder = SHRUNK / session
    cal = load_calibration(folder / "calibration.json")
    truth = np.array(json.loads((folder / "truth.json").read_text())["board_corners_px"])
    files = sorted((folder / "frames").glob("*.jpg"))
    assert len(files) == 9
    good = 0
    for f in files:
        image = cv2.resize(cv2.imread(str(f)), (480, 270), interpolation=cv2.INTER_AREA)
        reg = register_board(DEFAULT_CONFIG, cal, image)
        assert reg.ok, (f.name, reg.reason)
        if len(reg.marker_ids) >= 3:  # (an arm may cover a marker)
            good += 1
            assert np.abs(reg.board_to_image(BOARD_CORNERS_MM) - truth / 2).max() < 2.0, f.name
    assert good >= 0.8 * len(files), f"{good} of {len(files)}"


def test_a_full_resolution_still_allows_the_same_misfit_in_mm():
    """A marker's misfit is measured in pixels: the same table in a picture twice as large (a
    full-resolution still) misfits by twice the pixels, so the limit grows with the picture; a marker
    far off its place is still caught there."""
    big_size = (4608, 3456)
    big_h = np.diag([3.6, 3.6, 1.0]) @ H
    reg = register_board(DEFAULT_CONFIG, CAL, render_table(CAL, big_h, big_size, board_size=BOARD.size_mm))
    assert reg.ok and reg.max_error == pytest.approx(DEFAULT_CONFIG.max_reprojection_px * 4608 / 2304)
    small = register_board(DEFAULT_CONFIG, CAL, render_table(CAL, H, SIZE, board_size=BOARD.size_mm))
    assert small.max_error == DEFAULT_CONFIG.max_reprojection_px
    moved = render_table(CAL, big_h, big_size, board_size=BOARD.size_mm, moved={1: (60.0, 30.0)})
    assert not register_board(DEFAULT_CONFIG, CAL, moved).ok
