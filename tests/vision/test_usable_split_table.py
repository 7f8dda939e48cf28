"""The usable stage (vision/usable.py), session 36: a table cut in two by an arm is still one table.

Fixture fixtures/usable-split-table/ (cut from session 35's 500 dev frames, `sim frames` seed 84930; the usable
stage's 320x180 picture of the 4608x2592 still and its registration). Frame 341: north's arm — a black sleeve coming
in at the picture's bottom edge, the hand over the board — hides 53 624 mm² of the play area. The arm, the board and
the cards beyond it reach from the picture's bottom edge to its top and cut the table's colour in two parts; the
table's extent was the hull of the larger part alone, which left the arm outside the table and the frame was read
usable. `extent_ring_share` takes the hull of every table-coloured part that holds a tenth of the ring's
table-coloured samples.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vision_helpers import judge_usable_case

CASES = Path(__file__).resolve().parents[2] / "fixtures" / "usable-split-table"


def test_an_arm_that_cuts_the_table_in_two_is_occluded_with_its_seat():
    verdict, f = judge_usable_case(CASES / "F84930-341", "000341")
    assert not f["usable"] and [h["seat"] for h in f["hands"]] == ["north"] and f["over_play_mm2"][0] > 50000
    assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == ["north"]
    # the extent of the larger part alone (as before) left the arm outside the table
    before = judge_usable_case(CASES / "F84930-341", "000341", extent_ring_share=None)[0]
    assert before.usable


def test_the_extent_joins_only_parts_that_hold_a_share_of_the_ring():
    from vision.usable import _table_extent

    # a 60 x 100 picture: the table's colour on the left (x < 40) and the right (x >= 50) of a band that is not table
    # (an arm from edge to edge), and a table-coloured patch in the top right corner holding no ring sample
    not_table = np.zeros((60, 100), np.uint8)
    not_table[:, 40:50] = 1
    not_table[:, 85:] = 1
    not_table[:15, 88:] = 0
    ring = np.array([y * 100 + x for y in range(5, 55, 5) for x in (20, 30, 55, 65)])
    alone, _fill = _table_extent(not_table.astype(bool), ring, None)
    joined, fill = _table_extent(not_table.astype(bool), ring, 0.1)
    assert alone[:, 45].sum() == 0 and alone[30, :40].sum() == 40       # the left part alone (the larger)
    assert joined[30, :85].all()                                        # both parts and the band between them
    assert not joined[5, 90:].any()                                     # the patch without ring samples stays out
    assert 0.8 < fill < 0.9                                             # the parts fill 75 of the hull's 85 columns
