"""A row read as one card whose centre picture is missing is not always a patch of wood (CardConfig.single_symbol_min):
a longer row whose outline stopped on its first card's strip shows its last card's picture further on, and a row
whose field's colour is misnamed shows another colour's picture (docs/vision.md, session 24, wt24-rows2). Dev frames
of `keltis-cam sim frames --n 100 --seed 82500 --size 4608x2592` (main read each seat's row as one card, which the
picture rule then dropped)."""
from __future__ import annotations

from functools import lru_cache

import pytest
from vision_helpers import seat_rows


@lru_cache(maxsize=4)
def _seat_rows(index: int, seat: str, **changes) -> tuple[dict, dict]:
    """(truth rows, read rows) of one seat of dev frame `index` of seed 82500 (4608 × 2592)."""
    return seat_rows(82500, index, seat, **changes)


@pytest.mark.parametrize("index, seat, colour", [
    (40, "north", "red"),      # board game: 10 9 7 6, outlined down to the third strip only
    (78, "south", "pink"),     # card game: 0 4 6 and a points card laid last (its grey labelled no field)
])
def test_a_row_cut_short_on_its_first_strip_is_read_to_its_last_card(index, seat, colour):
    truth, got = _seat_rows(index, seat)
    assert got.get(colour) == truth[colour]
    # (without the search beyond the band's end the row is one card, then dropped for its missing picture)
    # (and without session 27's search by picture, which finds such a row on its own: 40 north red read in full)
    _truth, before = _seat_rows(index, seat, single_reach_mm=None, picture_row_min=None)
    assert colour not in before


def test_a_red_row_named_pink_by_its_field_is_red_by_its_picture():
    # card game, west: red 3 5 read as one pink card (its picture matches red's 0.71, pink's 0.30); now one red card
    truth, got = _seat_rows(86, "west")
    assert "pink" not in truth and "pink" not in got
    assert got.get("red") == truth["red"][-1:]
    # (without the rename nor session 27's search by picture — which reads this row `3 5`, in full, on its own)
    _truth, before = _seat_rows(86, "west", single_rename=False, picture_row_min=None)
    assert "red" not in before and "pink" not in before
