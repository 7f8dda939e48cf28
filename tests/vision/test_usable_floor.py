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

from pathlib import Path

from vision_helpers import judge_usable_case

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-floor"


def judge(frame: str, **changes):
    return judge_usable_case(FIXTURE, frame, **changes)


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
