"""The usable stage (vision/usable.py), session 23 (wt23-usable): the floor beyond a small table is no arm.

Fixture fixtures/usable-floor/ (cut from session 22's fresh whole game nwnz-3p-82930, `sim session` seed 82930,
2304x1296 stills; now dev data): the usable stage's 320x180 pictures of two frames and their registrations. The
table is small and turned, the south seat's area reaches past its edge onto the dark floor, and the ring around the
play area (where the table's colour and brightness fall-off are measured) lies partly on that floor. Its floor
samples bent the fall-off dark, the floor read as table, the table's extent (the hull of its largest table-coloured
region) spanned the floor beside the table, and that floor was taken for an arm reaching the play area: 51 of the
game's 54 frames without a hand were read `occluded`. `UsableConfig.extent_robust`: a table top is convex, and when
its region fills less than `extent_min_fill` of its hull the extent is found again against a fall-off fitted to the
ring's majority only.

- frame 2: no hand; usable (the setting off: `occluded`, so the test exercises the change);
- frame 53: north's arm over the play area (19 364 mm² of it by the render's truth), on the same table with the
  floor in view: `occluded`, north named (the setting off: usable, the arm lost in the floor's region).
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.model import camera_model, parse_calibration
from calibration.registration import Registration
from engine.board import bundled_board
from vision.components import load_components
from vision.usable import DEFAULT_CONFIG, build_usable_model, judge_small

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-floor"


def judge(frame: str, **changes):
    case = json.loads((FIXTURE / "case.json").read_text(encoding="utf-8"))
    f = case["frames"][frame]
    cal = parse_calibration(case["calibration"], str(FIXTURE / "case.json"))
    size = tuple(f["image_size"])
    reg = Registration(np.array(f["homography"], np.float64), tuple(f["marker_ids"]), f["reprojection_error"],
                       size, camera_model(cal, size))
    assert reg.ok
    small = cv2.imread(str(FIXTURE / f"{frame}.png"), cv2.IMREAD_COLOR)
    cfg = replace(DEFAULT_CONFIG, **changes)
    model = build_usable_model(cfg, cal, reg, bundled_board("nwnz"), load_components(None))
    return judge_small(cfg, model, small), f


def test_the_floor_beside_a_small_table_is_no_arm():
    verdict, f = judge("000002")
    assert f["usable"] and not f["hands"]
    assert verdict.usable, (verdict.reason, verdict.hands)
    before = judge("000002", extent_robust=False)[0]
    assert not before.usable and before.reason == "occluded"


def test_an_arm_over_the_play_area_beside_the_same_floor_is_caught():
    verdict, f = judge("000053")
    assert [h["seat"] for h in f["hands"]] == ["north"] and f["hands"][0]["over_play_mm2"] > 10000
    assert not verdict.usable and verdict.reason == "occluded"
    assert verdict.hands == ["north"]
    # with the floor inside the table's extent the arm was missed as well (it merged with the floor)
    assert judge("000053", extent_robust=False)[0].usable
