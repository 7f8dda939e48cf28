"""The usable stage (vision/usable.py), session 28: a sleeve the classifier is sure of, stopping short of the play area.

Fixture fixtures/usable-sure-sleeve/ (cut from session 24's fresh whole game base-3p-83251, `sim session` seed 83251;
now dev data): the usable stage's 320x180 pictures of frames 15 and 50 and 48 and their registrations. West's dark
sleeve comes in from the table's edge and is found and scored an arm (0.83, 0.82; threshold 0.567), but it stops 46
and 33 mm short of the play area, the table's edge cuts it under `sleeve_len_mm` (281, 313 mm) and the forearm's
and the hand's skin beyond it, over the west seat area (the render's truth: 17 688 and 18 680 mm²), is as pale as
the light wood, so it is not in the not-table mask. Session 26's growth into the pale hand (`hand_hysteresis`) took
only sleeves under the threshold; `hand_sure_gap_mm` takes the sure ones too. Frame 48: the same table, no hand.
"""
from __future__ import annotations

from pathlib import Path

from vision_helpers import judge_usable_case

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASE = FIXTURES / "usable-sure-sleeve"


def test_a_pale_hand_beyond_a_sure_sleeve_stopping_short_is_caught():
    for frame in ("000015", "000050"):
        verdict, f = judge_usable_case(CASE, frame)
        assert not f["usable"] and [h["seat"] for h in f["hands"]] == ["west"]
        assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == ["west"], frame
        before = judge_usable_case(CASE, frame, hand_sure_gap_mm=None)[0]
        assert before.usable, frame


def test_the_same_table_without_a_hand_stays_usable():
    verdict, f = judge_usable_case(CASE, "000048")
    assert f["usable"] and not f["hands"]
    assert verdict.usable, (verdict.reason, verdict.hands)


def test_the_grown_hand_must_still_cover_the_play_area():
    # the sure sleeve alone rejects nothing: with the grown hand's least cover over the play area above what it
    # covers here, the frame reads usable again
    verdict = judge_usable_case(CASE, "000050", hand_over_min_mm2=1e6)[0]
    assert verdict.usable
