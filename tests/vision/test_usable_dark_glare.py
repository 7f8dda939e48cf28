"""The usable stage (vision/usable.py), session 27: a frame too dark to read under a lamp's glare is too dark.

Fixture fixtures/usable-dark-glare/ (cut from session 26's 500 fresh frames, `keltis-cam sim frames --n 500 --seed
83480 --size 4608x2592`; now dev data): the usable stage's 320x180 pictures of three frames and their registrations.
In a dim room a lamp's glare adds a smooth veil of light: it lifted the board's median brightness over `dark_gain` of
its art's (frame 49: 0.44) and, in the card game, the picture's brightest pixels over `dark_level` (frame 202: 50), so
both read usable though no card could be read. `UsableConfig.dark_contrast`: the play area's strongest local
contrast (the 99th percentile of |grey - its 7x7 mean|) tells, and a smooth veil adds none.

- frame 49 (board game) and frame 202 (card game): `too-dark` (the setting off: usable);
- frame 418: a board game in dim warm light with a glare, readable — the least contrast of the 500's board games:
  usable either way.
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.model import camera_model, parse_calibration
from calibration.registration import Registration
from engine.board import bundled_board
from vision.components import load_components
from vision.usable import DEFAULT_CONFIG, build_usable_model, play_contrast

from vision_helpers import judge_usable_case

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-dark-glare"


@pytest.mark.parametrize("case,frame", [("board-dark", "000049"), ("card-dark", "000202")])
def test_a_frame_too_dark_to_read_under_a_lamps_glare_is_too_dark(case, frame):
    verdict, f = judge_usable_case(FIXTURE / case, frame)
    assert not f["usable"] and f["reason"] == "too-dark"
    assert not verdict.usable and verdict.reason == "too-dark"
    assert judge_usable_case(FIXTURE / case, frame, dark_contrast=None)[0].usable


def test_dim_warm_light_with_a_glare_stays_usable():
    verdict, f = judge_usable_case(FIXTURE / "board-dim", "000418")
    assert f["usable"]
    assert verdict.usable, (verdict.reason, verdict.hands)


def _dim_model_and_grey():
    """The usable model of the fixture's dim board frame 000418 (its registration as recorded) and its grey picture."""
    folder = FIXTURE / "board-dim"
    case = json.loads((folder / "case.json").read_text(encoding="utf-8"))
    f = case["frames"]["000418"]
    cal = parse_calibration(case["calibration"])
    size = tuple(f["image_size"])
    reg = Registration(np.array(f["homography"]), tuple(f["marker_ids"]), f["reprojection_error"], size,
                       camera_model(cal, size), max_error=f["max_error"])
    model = build_usable_model(DEFAULT_CONFIG, cal, reg, bundled_board(cal["board"]), load_components(None))
    return model, cv2.cvtColor(cv2.imread(str(folder / "000418.png"), cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)


def test_the_contrast_is_the_edges_not_the_brightness():
    """A smooth veil added to a picture leaves its contrast; halving the picture's levels halves it."""
    model, grey = _dim_model_and_grey()
    c = play_contrast(DEFAULT_CONFIG, model, grey)
    assert c >= DEFAULT_CONFIG.dark_contrast
    h, w = grey.shape
    yy, xx = np.mgrid[0:h, 0:w]
    veil = 60.0 * np.exp(-((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (2 * (w / 4) ** 2))   # a glare's smooth pool
    veiled = np.clip(grey + veil, 0, 255).astype(np.uint8)
    assert abs(play_contrast(DEFAULT_CONFIG, model, veiled) - c) <= 2
    dim = (grey // 4).astype(np.uint8)
    assert play_contrast(DEFAULT_CONFIG, model, dim) < DEFAULT_CONFIG.dark_contrast


def test_the_counted_test_is_the_percentiles():
    """`low_contrast` (counted) says exactly what `play_contrast(...) < dark_contrast` (the histogram's percentile)
    says, on random pictures and thresholds, whole levels and not."""
    from dataclasses import replace

    from vision.usable import low_contrast

    model, grey0 = _dim_model_and_grey()
    rng = np.random.default_rng(27)
    seen = set()
    for i in range(40):
        scale = rng.uniform(0.05, 1.5)
        grey = np.clip(grey0 * scale + rng.normal(0, rng.uniform(0, 4), grey0.shape), 0, 255).astype(np.uint8)
        for thr in (12.0, 11.5, float(rng.integers(1, 40)), rng.uniform(1, 40)):
            for pct in (99.0, 95.0):
                cfg = replace(DEFAULT_CONFIG, dark_contrast=thr, dark_contrast_pct=pct)
                want = play_contrast(cfg, model, grey) < thr
                assert low_contrast(cfg, model, grey) == want, (i, thr, pct)
                seen.add(want)
    assert seen == {True, False}
