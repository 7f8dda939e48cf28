"""A colour no row was read for is looked for by its cards' centre picture (CardConfig.picture_row_min): a field
washed out by gloss or overexposure (as white as the stock: no outline, no colour label) or a veil that leaves the
borders no contrast still shows its picture (docs/vision.md, session 27, wt27-rows). Dev frames of `keltis-cam sim
frames --n 500 --seed 83480 --size 4608x2592` (the lead's session-26 frames, dev data since; main missed these rows
outright)."""
from __future__ import annotations

import pytest
from vision_helpers import seat_rows


def _seat_rows(index: int, seat: str, **changes) -> tuple[dict, dict]:
    """(truth rows, read rows) of one seat of dev frame `index` of seed 83480 (4608 × 2592)."""
    return seat_rows(83480, index, seat, **changes)


def test_rows_washed_out_by_overexposure_are_read_by_their_pictures():
    # board game, normal light at exposure 1.08: east's pink field clipped white (253, 255, 255), its green nearly
    truth, got = _seat_rows(342, "east")
    assert got.get("pink") == truth["pink"] == ["5", "0"]
    assert got.get("green") == truth["green"] == ["4", "3", "1"]
    _truth, before = _seat_rows(342, "east", picture_row_min=None)
    assert "pink" not in before and "green" not in before


def test_a_row_under_a_veil_is_read_up_from_its_last_card():
    # card game, dim warm light with a glare's veil over the whole seat: no border outlined anywhere; the red row is
    # found by its last card's picture and its strips above by their top borders once the veil is taken off
    truth, got = _seat_rows(110, "south")
    assert got.get("red") == truth["red"] == ["1", "5", "10"]
    _truth, before = _seat_rows(110, "south", picture_row_min=None)
    assert before == {}


def test_a_points_or_wish_card_is_no_pink_row():
    # card game on red cloth: the points row's ring of dots and the wish row's stone are rivals of the pink ring
    truth, got = _seat_rows(383, "south")
    assert "pink" not in truth and "pink" not in got
