"""A points stack of two or more cards washed out alike (no ridge between its strips) is read as its cards, not as
one (docs/vision.md, session 28, wt28-pstack2): found by its last card's picture, its top is looked for up to
`points_search_strips` strips above (`_stack_top`); read from its grey field as one card whose field runs on past
that card, it is split at a card above the field's end (`points_stack_split`). Dev frames of the lead's `keltis-cam
sim frames --n 500 --seed 83570 --size 4608x2592` (/tmp/s27/F83570; main read these points rows as 1)."""
from __future__ import annotations

import pytest
from vision_helpers import read_one_seat, sim_still

from vision.cards import seat_reading


def _read(index: int, seat: str, **changes) -> tuple[int, int, dict]:
    """(truth points row, read points row, read colour rows) of one seat of frame `index` of seed 83570."""
    still, truth = sim_still(83570, index)
    got = seat_reading(read_one_seat(still, seat, True, **changes), True)
    return int(truth["seats"][seat]["points_row"]), got.points_row, dict(got.rows)


@pytest.mark.parametrize("index, seat, off", [
    # found by its picture: 3 cards, the table's end two strips up (the strips' numerals find them too, session 29:
    # both off for main's reading)
    (102, "north", {"points_search_strips": 1, "numeral_top_min": None}),
    (372, "west", {"points_stack_split": False}),    # one grey field over 4 cards
    (442, "south", {"points_stack_split": False}),   # one grey field over 2 cards
])
def test_a_washed_out_points_stack_is_read_as_its_cards(index, seat, off):
    truth, got, rows = _read(index, seat)
    assert truth > 1 and got == truth
    # main's reading (the setting off): the stack read as its last card alone; the colour rows the same either way
    _t, before, rows_before = _read(index, seat, **off)
    assert before == 1
    assert rows == rows_before


def test_a_washed_out_stacks_top_two_strips_up_gives_the_strip_just_above():
    import numpy as np

    from vision.cards import CardConfig, _stack_top

    # the whiteness of a straightened band (2.5 px/mm): table 0.72 above 20 mm, two covered strips (20-38, 38-56 mm)
    # and the last card from 56 mm, all 0.82 with no ridge between them
    ppm = 2.5
    white = np.full((int(150 * ppm), 140), 0.82, np.float32)
    white[:int(20 * ppm)] = 0.72
    config = CardConfig()
    assert _stack_top(config, white, 56.0, ppm, strips=1) is None      # main's search: one strip up, no step
    top = _stack_top(config, white, 56.0, ppm, strips=config.points_search_strips)
    assert top is not None and abs(top - 38.0) <= 1.0, top
