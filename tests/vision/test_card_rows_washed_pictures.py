"""Whole rows missed whose last card's centre picture was found but judged too weakly (docs/vision.md, session 36,
wt36-rowmiss). An end card's picture is the same disc on every colour's field, so a washed row ending in one lost to
another colour's end card there (CardConfig.picture_end_rivals_read); and a dim frame's pixel noise lowers a real
picture's correlation at half the view's ppm below picture_row_min while it holds at a quarter
(CardConfig.picture_noise_gain_max). Dev frames rendered again: `keltis-cam sim frames --seed 84930 --size 4608x2592`
(session 35's 500 frames, dev data now) and `--seed 83790` (the lead's dev frames)."""
from __future__ import annotations

from vision_helpers import seat_rows


def test_a_washed_row_ending_in_its_end_card_is_found_beside_another_colours_end_card():
    # card game, normal light, grey cloth: west's pink row `4 4 5 7 E` washed pale by a light pool (no band by its
    # field); its end card's picture matches pink's end card at 0.90, blue's at 0.83 — blue's row `0 6 7 E` is read
    # beside it, so blue's end cards are no rival there
    truth, got = seat_rows(84930, 216, "west")
    assert truth["pink"] == ["4", "4", "5", "7", "E"]
    assert got["pink"][-1] == "E" and len(got["pink"]) >= 2
    assert got["blue"] == truth["blue"] == ["0", "6", "7", "E"]
    _truth, before = seat_rows(84930, 216, "west", picture_end_rivals_read=False)
    assert "pink" not in before


def test_a_noisy_dim_frames_one_card_row_is_found_by_its_picture():
    # board game, dim warm light with glare: south's blue row `10`, its picture 0.64 at a quarter of the view's ppm
    # but 0.48 at half it (pixel noise ~0.1 of the stock); with the noise taken out 0.63
    truth, got = seat_rows(83790, 90, "south")
    assert got["blue"] == truth["blue"] == ["10"]
    _truth, before = seat_rows(83790, 90, "south", picture_noise_gain_max=None)
    assert "blue" not in before
