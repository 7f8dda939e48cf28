"""Card rows on tables that hide a card's outline: a table nearly as pale as the card stock (the
border beside it is no whiter than the table, only than the field it outlines; a first strip's top
border merges with the table), and points cards laid on a colour row told from its own cards by
how much less coloured they are (vision.cards)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_helpers import SEAT, read_cards  # noqa: E402

ROWS = {"red": ["2", "6", "9"], "yellow": ["1", "4", "7", "10"], "green": ["0", "3", "8"],
        "blue": ["5", "5", "6", "9"], "pink": ["3", "10"]}


@pytest.mark.parametrize("rgb", [(200, 196, 186), (226, 222, 212)], ids=["pale-grey", "near-white"])
def test_rows_on_a_table_nearly_as_pale_as_the_stock(rgb):
    """(A guard: under the pinned light these read exactly with the earlier code too.)"""
    truth, got = read_cards(rows=ROWS, table_top=("cloth", rgb))
    assert {c: list(v) for c, v in got.seats[SEAT].rows.items()} == \
        {c: list(v) for c, v in truth.seats[SEAT].rows.items()}


def test_points_cards_on_a_colour_row_are_told_from_its_own_cards():
    rows = {"red": ["2", "P2", "6", "9"], "blue": ["1", "4", "P4", "7"], "green": ["3", "5"]}
    truth, got = read_cards(game="keltis-card", rows=rows, points_row=0, wish_cards=[])
    for colour, row in truth.seats[SEAT].rows.items():
        read = got.seats[SEAT].rows.get(colour, ())
        assert len(read) == len(row), (colour, row, read)
        # which cards are points cards (their numerals at the card game's resolution aside)
        assert [c.startswith("P") for c in read] == [c.startswith("P") for c in row], (colour, row, read)


@pytest.mark.xfail(strict=True, reason="the points row's middle strip is lost (its top border a ridge of 0.08 "
                   "under ridge_min 0.10 on this near-white cloth): 2 of 3 cards. Until session 15 a table patch "
                   "at the seat view's edge, read as a points band of one card and added, made up the third "
                   "(session 15: a seat's points row is one column of bands)")
def test_a_points_row_on_a_pale_cloth_is_not_read_as_a_colour_row():
    """Every colour washed out by a strong enough veil turns grey, so a points card's grey field lies
    nearly as near a washed-out colour as the points cards' own: a piece about as near both is a
    points piece (before: part of the points row was named green, an extra green row, points 3 -> 2)."""
    truth, got = read_cards(game="keltis-card", rows={"red": ["2", "4"], "blue": ["3", "5"]}, points_row=3,
                            wish_cards=[], table_top=("cloth", (230, 226, 214)))
    assert got.seats[SEAT].points_row == truth.seats[SEAT].points_row
    assert {c: list(v) for c, v in got.seats[SEAT].rows.items()} == \
        {c: list(v) for c, v in truth.seats[SEAT].rows.items()}
