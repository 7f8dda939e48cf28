"""The usable stage (vision/usable.py), session 29: a hand beside the play area reaching only into its margin.

Fixture fixtures/usable-play-core/ (cut from the dev frames of sessions 26 and 28, `sim frames` seeds 83480 and 83690;
each folder one frame: the usable stage's 320x180 picture of the 4608x2592 still and its registration). A region the
classifier scores an arm rejects the frame only with `arm_over_min_mm2` (500 mm²) of it over the play area. That area
was counted over the play area widened by `play_margin_mm` (20 mm) and, in the middle, reaching to the markers'
centres: a hand resting at a marker or beside a seat area lay 1 000-2 400 mm² in that band while hiding nothing
(the render's truth: 0 mm² over the play area). `over_core` counts it over the play area itself (the seat areas and
the middle between the markers' inner edges); a sleeve whose pale hand hides a little of the play area is still an
arm (F83480-30: 612 mm² by the truth).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vision_helpers import judge_usable_case

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "usable-play-core"


@pytest.mark.parametrize("name, frame", [("F83690-121", "000121"), ("F83690-335", "000335"),
                                         ("F83480-100", "000100")])
def test_a_hand_reaching_only_into_the_margin_is_no_reason(name, frame):
    verdict, f = judge_usable_case(CASES / name, frame)
    assert f["usable"] and all(v == 0 for v in f["over_play_mm2"])
    assert verdict.usable, (name, verdict.reason, verdict.hands)
    # counted over the play area with its margin (as before), the hand rejected the frame
    before = judge_usable_case(CASES / name, frame, over_core=False)[0]
    assert not before.usable and before.reason == "occluded", name


def test_a_sleeve_whose_hand_hides_a_little_of_the_play_area_is_still_an_arm():
    verdict, f = judge_usable_case(CASES / "F83480-30", "000030")
    assert not f["usable"] and [h["seat"] for h in f["hands"]] == ["west"]
    assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == ["west"]


def test_the_middle_within_the_markers_inner_edges():
    from vision.usable import inner_middle_rect, middle_rect

    cal = {"markers": {"items": [{"id": 0, "x": -40, "y": -40, "size": 40}, {"id": 1, "x": 600, "y": -40, "size": 40},
                                 {"id": 2, "x": 600, "y": 435, "size": 40}, {"id": 3, "x": -40, "y": 435, "size": 40}]}}
    assert middle_rect(cal, None) == (-40.0, -40.0, 600.0, 435.0)
    assert inner_middle_rect(cal, None) == (-20.0, -20.0, 580.0, 415.0)
    # markers too close together to have an inside: the middle as before
    close = {"markers": {"items": [{"id": 0, "x": 0, "y": 0, "size": 40}, {"id": 1, "x": 30, "y": 30, "size": 40}]}}
    assert inner_middle_rect(close, None) == middle_rect(close, None)
