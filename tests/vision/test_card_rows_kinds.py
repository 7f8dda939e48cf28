"""Card kinds in the card game's colour rows (docs/vision.md, session 33, wt33-rows). An end card's corners hold a
disc, not a numeral: the numeral net read it "6" at p ~ 1; the row's last card of its colour is now named end card or
number card by its centre picture when that is plain (CardConfig.last_card_picture_min). A strip past the row's first
whose middle labels as neither its row's colour nor points, much less coloured than the strip it lies on, is a points
card (CardConfig.points_by_chroma).
Dev frames of `keltis-cam sim frames --seed 83790 --size 4608x2592` (the lead's dev frames), rendered again."""
from __future__ import annotations

from vision_helpers import seat_rows


def test_an_end_card_read_as_a_six_is_named_by_its_picture():
    # card game, normal light, plain table: west's blue row `0 3 4 7 E` and green row `3 4 5 8 E` — both end cards
    # read "6" by their corners (the red disc where a numeral would be), their pictures the end card's plainly
    truth, got = seat_rows(83790, 164, "west")
    assert got["blue"] == truth["blue"] == ["0", "3", "4", "7", "E"]
    assert got["green"] == truth["green"] == ["3", "4", "5", "8", "E"]
    _truth, before = seat_rows(83790, 164, "west", last_card_picture_min=None, corner_joint_refine_px=None)
    assert before["blue"][-1] == before["green"][-1] == "6"
    # with the two corners found together (session 35, wt35-numer) the corners alone read the blue end card right,
    # the green one still "6": the picture is what names both
    _truth, joint = seat_rows(83790, 164, "west", last_card_picture_min=None)
    assert (joint["blue"][-1], joint["green"][-1]) == ("E", "6")


def test_points_strips_labelled_as_neither_kind_are_points_cards():
    # card game, normal light with glare: north's green row `4 P4 7 P7` — the covered P4 strip's middle labels 0 %
    # green and 0.2 % points, its chroma 0.12 against the green strip under it 0.52: it was read as a green 4; the
    # last card P7 likewise (16 % points labels, chroma 0.13)
    truth, got = seat_rows(83790, 83, "north")
    assert got["green"] == truth["green"] == ["4", "P4", "7", "P7"]
    _truth, before = seat_rows(83790, 83, "north", points_by_chroma=False)
    assert before["green"] == ["4", "4", "7", "7"]
