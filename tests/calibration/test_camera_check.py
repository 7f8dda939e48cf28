"""The camera check's lines (focus, exposure, markers, board, seats) on a demo frame and on the same
frame blurred, darkened and burnt out."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.camera_check import DEFAULT_CONFIG, check_image
from calibration.model import load_calibration
from calibration.registration import DEFAULT_CONFIG as REG, register_board

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "demo"
CAL = load_calibration(DEMO / "calibration.json")
FRAME = cv2.imread(str(DEMO / "frames" / "000496.jpg"))   # a still table


def lines(image, registration="auto"):
    reg = register_board(REG, CAL, image) if registration == "auto" else registration
    return {line.key: line for line in check_image(DEFAULT_CONFIG, image, CAL, reg)}


def test_a_good_demo_frame_passes_focus_exposure_board_and_seats():
    got = lines(FRAME)
    assert [k for k, line in got.items() if line.ok] == ["focus", "exposure", "markers", "board", "seats"]
    assert got["markers"].values["total"] == got["markers"].values["seen"] == 4
    # the demo's 640x360 frame gives its board ~0.25 px/mm: read as it is, the camera is far too far
    assert got["resolution"].state == "too-far" and got["resolution"].values["px_per_cm"] < 3


def test_blur_darkness_and_glare_are_named():
    assert lines(cv2.GaussianBlur(FRAME, (0, 0), 2.5))["focus"].state == "blurry"
    assert lines((FRAME * 0.2).astype(np.uint8))["exposure"].state == "dark"
    assert lines(cv2.convertScaleAbs(FRAME, alpha=4.0))["exposure"].state == "bright"


def test_without_a_registration_the_board_and_seats_fail():
    got = lines(FRAME, registration=None)
    assert got["board"].state == "not-registered" and got["seats"].state == "unknown"
    assert got["markers"].values["seen"] == 0
