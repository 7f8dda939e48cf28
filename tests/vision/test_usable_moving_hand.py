"""The usable stage (vision/usable.py), session 36: a moving hand beyond a sleeve the classifier is sure of.

Fixture fixtures/usable-moving-hand/ (cut from session 35's 500 dev frames, `sim frames` seed 84930; the usable stage's
320x180 picture of the 4608x2592 still and its registration). Frame 124: south's hand moves during the exposure (a
97 px smear on the still), 3 908 mm² over the play area. Its pale blue sleeve is found and scored an arm, but stops
149 mm short of the play area, beyond session 28's `hand_sure_gap_mm` (120 mm); the smeared hand beyond it is off the
table's colour by about half the thresholds (a median 0.46), under `hand_weak` (0.5). A hand is ~190 mm long, and a
smear changes each pixel by its share of the hand's difference: `hand_sure_gap_mm` 200 and `hand_weak` 0.35 grow the
hand from the sleeve's tip, and the frame is `occluded`, south's.
"""
from __future__ import annotations

from pathlib import Path

from vision_helpers import judge_usable_case

CASE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-moving-hand" / "F84930-124"


def test_a_moving_hand_beyond_a_sure_sleeve_is_found_with_its_seat():
    verdict, f = judge_usable_case(CASE, "000124")
    assert not f["usable"] and f["reason"] == "motion" and [h["seat"] for h in f["hands"]] == ["south"]
    assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == ["south"]
    # with session 28's limits the sleeve stopped too far short, and the smear was too faint to grow
    assert judge_usable_case(CASE, "000124", hand_sure_gap_mm=120.0, hand_weak=0.5)[0].usable
    assert judge_usable_case(CASE, "000124", hand_sure_gap_mm=200.0, hand_weak=0.5)[0].usable
    assert judge_usable_case(CASE, "000124", hand_sure_gap_mm=120.0, hand_weak=0.35)[0].usable
