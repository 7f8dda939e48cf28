"""The usable stage (vision/usable.py), session 25: a white sleeve on a grey table is no glare.

Fixture fixtures/usable-white-sleeve/ (cut from session 24's fresh whole game card-3p-83258, `sim session` seed 83258;
now dev data): the usable stage's 320x180 pictures of three stills and their registrations. On a grey table a white
sleeve is brighter than the table by about the same amount in every channel, as a glare's veil is, so the glare test
(`glare_tint`) kept it as table; of the arm only the brown forearm and hand were left, merged with the card row they
lay on into one card-row-shaped region the classifier scored 0.06 — the frame read usable, a state guessed through a
hand (6 turns of the game lost). `UsableConfig.glare_fade`: a veiled part that ends sharply at its outline (the table
2 px outside it as dark as elsewhere), as long as a sleeve (`glare_thing_len_mm`) and filling its rectangle
(`glare_thing_fill`) is a thing, not glare; a lamp's hot spot fades out and stays table.

- frame 9: south's arm, the sleeve coming in from the picture's edge, the hand on the south row: `occluded`, south
  (the setting off: usable);
- frame 24: west's arm across the table: `occluded`, west (off: usable);
- frame 12: the same table and lamp without a hand: usable either way.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vision_helpers import judge_usable_case

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "usable-white-sleeve"


def judge(frame: str, **changes):
    return judge_usable_case(FIXTURE, frame, **changes)


@pytest.mark.parametrize("frame,seat", [("000009", "south"), ("000024", "west")])
def test_a_white_sleeve_on_a_grey_table_is_an_arm_not_a_glare(frame, seat):
    verdict, f = judge(frame)
    assert not f["usable"] and [h["seat"] for h in f["hands"]] == [seat]
    assert not verdict.usable and verdict.reason == "occluded" and verdict.hands == [seat]
    assert judge(frame, glare_fade=None)[0].usable


def test_the_same_table_and_its_lamp_without_a_hand_stay_usable():
    verdict, f = judge("000012")
    assert f["usable"] and not f["hands"]
    assert verdict.usable, (verdict.reason, verdict.hands)
    assert judge("000012", glare_fade=None)[0].usable
