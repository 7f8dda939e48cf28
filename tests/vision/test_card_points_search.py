"""A points row whose cards show no outline and no grey field (washed out by glare or overexposure, or as pale as the
table) is found by its last card's centre picture, the points cards' ring of dots, searched over the seat's view
(`CardConfig.points_search_min`; docs/vision.md, session 27, wt27-prow3). Dev frames of `keltis-cam sim frames --n 100
--seed 82500 --size 4608x2592` (main read these seats' points rows as none)."""
from __future__ import annotations

import numpy as np
import pytest
from vision_helpers import read_one_seat, sim_still

from vision.cards import seat_reading


def _points_row(index: int, seat: str, **changes) -> tuple[int, int, dict]:
    """(truth points row, read points row, read colour rows) of one seat of dev frame `index`."""
    still, truth = sim_still(82500, index)
    got = seat_reading(read_one_seat(still, seat, True, **changes), True)
    return int(truth["seats"][seat]["points_row"]), got.points_row, dict(got.rows)


@pytest.mark.parametrize("index, seat", [
    (36, "south"),    # red cloth, normal light: two points cards, the last one's field as white as its border
    (70, "east"),     # dark table, hard light and glare: three points cards, found from the last one's picture up
])
def test_a_points_row_without_an_outline_is_found_by_its_picture(index, seat):
    truth, got, rows = _points_row(index, seat)
    assert truth > 0 and got == truth
    # without the search (main) the row is missed outright; the colour rows are the same either way
    _t, before, rows_before = _points_row(index, seat, points_search_min=None)
    assert before == 0
    assert rows == rows_before


def test_a_seat_without_points_cards_gets_none_from_the_search():
    # frame 36 north: wish cards, no points card; its view's best place scores far under the threshold
    truth, got, _rows = _points_row(36, "north")
    assert truth == 0 and got == 0


def _washed_stack(table: float, card: float = 0.82) -> np.ndarray:
    """The whiteness of a straightened washed-out points band (2.5 px/mm, 140 px wide): `table` above 38 mm, a
    covered strip from 38 mm and its last card from 56 mm, both `card` white with no ridge between them (the
    profile dev frame 82520/26 north showed under a hard light's glare: table 0.72, cards 0.82)."""
    ppm = 2.5
    white = np.full((int(150 * ppm), 140), card, np.float32)
    white[:int(38 * ppm)] = table
    return white


def test_a_washed_out_strips_top_is_where_the_table_ends():
    from dataclasses import replace

    from vision.cards import CardConfig, _stack_top, _strip_top

    config = CardConfig()
    # no ridge and no step of strip_top_table_step: _strip_top finds nothing
    assert _strip_top(config, _washed_stack(0.72), 56.0, 2.5) is None
    top = _stack_top(config, _washed_stack(0.72), 56.0, 2.5)
    assert top is not None and abs(top - 38.0) <= 1.0, top
    # a table as white as the cards: no step, no strip; nor with the setting off
    assert _stack_top(config, _washed_stack(0.80), 56.0, 2.5) is None
    off = replace(config, points_search_step=None)
    assert off.points_search_step is None
    # a strip less white than the card below it (a patch of table, not a covered card) is none either
    white = _washed_stack(0.50)
    white[int(38 * 2.5):int(56 * 2.5)] = 0.70
    assert _stack_top(config, white, 56.0, 2.5) is None
