"""Whole rows missed, and the cards after an extra card (docs/vision.md, session 36, wt36-rowmiss).
- A dim frame's pixel noise lowers a real picture's correlation at half the view's ppm below picture_row_min while it
  holds at a quarter: the half-ppm check is made with the noise's attenuation taken out
  (CardConfig.picture_noise_gain_max).
- Two rows read of one colour: seat_reading keeps the longer, and a phantom of two strips beat the true one-card row;
  the claimant whose last card shows the colour's picture is kept (CardConfig.claim_by_picture).
- An end card's picture is the same disc on every colour's field: a washed row ending in one loses to another colour's
  end card (CardConfig.picture_end_rivals_read, off: on, it read wish stones as end cards).
Dev frames rendered again: `keltis-cam sim frames --seed 83790 --size 4608x2592` (the lead's dev frames) and
`--seed 84930` (session 35's 500 frames, dev data now)."""
from __future__ import annotations

from vision_helpers import seat_rows


def test_a_noisy_dim_frames_one_card_row_is_found_by_its_picture():
    # board game, dim warm light with glare: south's blue row `10` (its band read as one card whose picture scored
    # 0.47 at full resolution: dropped); its picture 0.64 at a quarter of the view's ppm but 0.48 at half it (pixel
    # noise ~0.1 of the stock), 0.63 with the noise's attenuation taken out
    truth, got = seat_rows(83790, 90, "south")
    assert got["blue"] == truth["blue"] == ["10"]
    _truth, before = seat_rows(83790, 90, "south", picture_noise_gain_max=None)
    assert "blue" not in before


def test_of_two_rows_of_one_colour_the_one_showing_its_picture_is_kept():
    # board game, normal light: south's yellow row `6` (its picture 0.80) and a phantom yellow band of two "10"
    # strips below the pink row (no picture: 0.23); the longer was kept
    truth, got = seat_rows(84930, 203, "south")
    assert got["yellow"] == truth["yellow"] == ["6"]
    assert got == {c: list(v) for c, v in truth.items()}
    _truth, before = seat_rows(84930, 203, "south", claim_by_picture=False)
    assert before["yellow"] == ["10", "10"]


def test_a_washed_row_ending_in_its_end_card_is_found_only_with_the_end_rivals_switch():
    # card game, normal light, grey cloth: west's pink row `4 4 5 7 E` washed pale by a light pool (no band by its
    # field); its end card's picture matches pink's end card at 0.90, blue's at 0.83 (blue's row `0 6 7 E` is read
    # beside it). Off (the default) the row is missed; on, its end card is found (its washed strips above are not all)
    truth, got = seat_rows(84930, 216, "west")
    assert truth["pink"] == ["4", "4", "5", "7", "E"]
    assert "pink" not in got
    _truth, on = seat_rows(84930, 216, "west", picture_end_rivals_read=True)
    assert on["pink"][-1] == "E" and len(on["pink"]) >= 2
    assert on["blue"] == got["blue"] == truth["blue"] == ["0", "6", "7", "E"]
