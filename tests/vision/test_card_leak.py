"""A card field whose border breaks on one side (session 14, wt14-points): on a grey or pale table the
outline of a points card leaks into the table through its side; the field is cut at its straight sides
and, closed by a border above and below, may start a row of its own. Table between two rows, whose ends
run on into the table, may not."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.cardart import card_art
from vision.cards import CardConfig, _strip_top, _trim_leak, find_bands_outlined
from vision.components import load_components

P = 1.25                       # px/mm of the half view the rows are found in
FIELD = (40, 106)              # the field's columns (66 px: 53 mm)


def _leaking_points_card(open_below: bool = False) -> np.ndarray:
    """The component map of a covered strip and a whole card (rows 30-160) whose right border is lost
    to a table patch beside it (rows 0-100, 24 mm wide) and whose strip's top border is broken at the
    right (as d78201 #147 west showed). `open_below`: the field runs on into open table below it."""
    m = np.zeros((200 if open_below else 161, 140), bool)
    m[30:160, FIELD[0]:FIELD[1]] = True
    m[55:58, FIELD[0]:FIELD[1] - 6] = False         # the top border between the strip and the card
    m[0:100, FIELD[1]:FIELD[1] + 30] = True         # the table patch, joined through the lost side
    if open_below:
        m[160:, :] = True
    return m


def test_a_field_leaking_through_one_side_is_cut_at_its_sides_and_closed():
    config = CardConfig()
    parts = _trim_leak(config, _leaking_points_card(), P, 84.0)
    assert len(parts) == 1
    x, y, part, closed = parts[0]
    h, w = part.shape
    # the strip and the card, from the strip's top to the card's end, no wider than the field
    assert abs(x - FIELD[0]) <= 1 and abs(w - (FIELD[1] - FIELD[0])) <= 2, (x, w)
    assert abs(y - 30) <= 2 and abs(y + h - 160) <= 2, (y, h)
    assert closed


def test_table_running_on_past_a_fields_end_is_not_closed():
    x, y, part, closed = _trim_leak(CardConfig(), _leaking_points_card(open_below=True), P, 84.0)[0]
    assert not closed


def _outlined_rows(mask: np.ndarray, at_edge: bool = False) -> list:
    """find_bands_outlined over a view where `mask` is the only outlined component, its field the
    points cards' grey under the stock and the rest a pale table."""
    art = card_art(load_components(None), 2.5, 1.0)
    cream = np.array([200.0, 205.0, 210.0], np.float32)
    view = np.empty(mask.shape + (3,), np.uint8)
    view[:] = (215, 215, 212)
    field = np.zeros_like(mask)
    field[30:160, FIELD[0]:FIELD[1]] = True
    view[field] = np.clip(np.round(cream * np.asarray(art.fields["points"], np.float32)), 0, 255).astype(np.uint8)
    # the component map is of a view wider than the piece: no side lies on the view's edge (or, `at_edge`,
    # the field's left side is the view's)
    dx = -FIELD[0] if at_edge else 20
    big = np.zeros((mask.shape[0] + 20, mask.shape[1] + 40), np.uint8)
    vbig = np.empty(big.shape + (3,), np.uint8)
    vbig[:] = (215, 215, 212)
    if at_edge:
        mask, view = mask[:, FIELD[0]:], view[:, FIELD[0]:]
        dx = 0
    big[10:10 + mask.shape[0], dx:dx + mask.shape[1]] = mask
    vbig[10:10 + mask.shape[0], dx:dx + mask.shape[1]] = view
    _n, comp, stats, _c = cv2.connectedComponentsWithStats(big, connectivity=4)
    sv = SimpleNamespace(ppm=2.5, margin=14.0)
    return find_bands_outlined(CardConfig(), vbig, cream, sv, art, True, 0.5, None, {}, (comp, stats), None)


def test_a_points_card_whose_border_breaks_on_one_side_starts_a_row():
    bands = _outlined_rows(_leaking_points_card())
    assert [b.kind for b in bands] == ["points"]
    b = bands[0]
    # the row from the strip's top (view row 40, 32 mm, less the margin) a card's field and strip long
    assert abs(b.v0 - (40 / P - 14.0)) < 2.0 and abs(b.v1 - (170 / P - 14.0)) < 2.0, (b.v0, b.v1)
    # a straight side on the view's edge is the picture's cut, no border (d78200 #76 west: table there)
    assert _outlined_rows(_leaking_points_card(), at_edge=True) == []
    # table running on below the field: the piece may only join a row found anyway (none here)
    assert _outlined_rows(_leaking_points_card(open_below=True)) == []


def test_a_patch_of_table_shorter_than_a_card_is_not_closed():
    # table between two rows, closed above and below by their borders and the table's grain, 55 mm
    # tall: no card's whole field (a row's last card shows one)
    m = np.zeros((120, 140), bool)
    m[30:99, FIELD[0]:FIELD[1]] = True              # 55 mm of field-wide table, closed above and below
    m[0:50, FIELD[1]:FIELD[1] + 30] = True          # joined to more table beside it
    x, y, part, closed = _trim_leak(CardConfig(), m, P, 84.0)[0]
    assert abs(y - 30) <= 2 and abs(y + part.shape[0] - 99) <= 2 and not closed
    # the same as tall as a card's field is closed (the test exercises the height, not another rule)
    m[30:140 - 20, FIELD[0]:FIELD[1]] = True
    assert _trim_leak(CardConfig(), m, P, 84.0)[0][3]


def test_a_pale_grey_cloth_between_the_rows_is_no_points_row():
    """(A rendered guard: under the pinned light, a grey cloth's cloudy patch below the red row, closed
    by the rows' borders and its grain and 55 mm tall, was read as a third points card while closed
    pieces needed only most of a card's field.)"""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from card_helpers import SEAT, read_cards

    truth, got = read_cards(game="keltis-card", rows={"red": ["2", "4"], "blue": ["3", "5"]}, points_row=2,
                            wish_cards=[7, 1], table_top=("cloth", (186, 184, 178)), seed=5)
    assert got.seats[SEAT].points_row == truth.seats[SEAT].points_row == 2
    assert sorted(got.seats[SEAT].wish_cards) == [1, 7]


def _strip_profile(table: float, ridge: float | None) -> np.ndarray:
    """The whiteness of a straightened band (2.5 px/mm, 140 px wide): `table` above 12 mm, a covered
    strip's field (0.35) from 14 mm to its first card's top border at 30 mm (0.66), the card's field
    below (as d78201 #94 south's wish row showed); `ridge`: its top border at 12-14 mm this white."""
    ppm = 2.5
    white = np.full((int(80 * ppm), 140), 0.35, np.float32)
    white[:int(12 * ppm)] = table
    white[int(12 * ppm):int(14 * ppm)] = table if ridge is None else ridge
    white[int(30 * ppm):int(31.5 * ppm)] = 0.66
    return white


def test_a_strips_top_border_on_a_pale_table_is_a_step():
    config = CardConfig()
    # a pale table swallows the border: no ridge, a step from white to the field
    top = _strip_top(config, _strip_profile(0.89, None), 30.0, 2.5)
    assert top is not None and 11.0 <= top <= 15.0, top
    # a darker table and the border a ridge between it and the field: the ridge, as before
    top = _strip_top(config, _strip_profile(0.6, 0.9), 30.0, 2.5)
    assert top is not None and 11.0 <= top <= 14.5, top
    # a darker table and no border: no strip (a step down from a table not as pale as the stock)
    assert _strip_top(config, _strip_profile(0.6, None), 30.0, 2.5) is None
