"""The usable stage (vision/usable.py), session 24: an arm whose hand is as pale as the table.

Fixture fixtures/usable-sleeve/ (cut from session 23's fresh whole game nwnz-3p-83006, `sim session` seed 83006; now
dev data): the usable stage's 320x180 pictures of two video frames and their registrations. On this light wooden
table the skin of a hand is nearly the table's colour: of south's arm reaching over the play area only the dark
sleeve reads as not-table, and the sleeve stops short of the play area, so the region the classifier calls an arm
had nothing over the play area and the frame was read usable — a state guessed through a hand.
`UsableConfig.hand_beyond_sleeve`: an arm region whose tip comes within `hand_gap_mm` of the play area, pointing
at the middle, rejects the frame as one over it does.

- frame 8: south's arm over the play area (the render's truth: occluded, south): `occluded`, south named (the
  setting off: usable);
- frame 10: the same table, no hand: usable either way.
"""
from __future__ import annotations

from pathlib import Path

from vision_helpers import judge_usable_case

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-sleeve"


def judge(frame: str, **changes):
    return judge_usable_case(FIXTURE, frame, **changes)


def test_an_arm_whose_pale_hand_is_over_the_play_area_is_caught_by_its_sleeve():
    verdict, f = judge("000008")
    assert not f["usable"] and [h["seat"] for h in f["hands"]] == ["south"]
    assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == ["south"]
    # (session 28's growth from a sure sleeve into its pale hand, `hand_sure_gap_mm`, catches this frame as well:
    # both off, it was read usable)
    before = judge("000008", hand_beyond_sleeve=False, hand_sure_gap_mm=None)[0]
    assert before.usable


def test_the_same_table_without_a_hand_stays_usable():
    verdict, f = judge("000010")
    assert f["usable"] and not f["hands"]
    assert verdict.usable, (verdict.reason, verdict.hands)
    assert judge("000010", hand_beyond_sleeve=False)[0].usable
