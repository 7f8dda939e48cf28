"""The card game's wish cards in a seat: found as their own row, and named wish cards whatever their colour
looks like (session 11, wt11-piles)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from simulator.render import SpriteBank

from card_helpers import SEAT, move_pieces, read_cards


def test_a_wish_row_right_under_the_points_row_is_not_read_as_one_row():
    # the simulator lays the wish cards a gap below the points row, in its column; here the gap is
    # closed to a few mm, so the two rows' outlined pieces chain into one column (before: one "wish"
    # band, its points cards read as wish values and the points row lost)
    def close_gap(scene):
        move_pieces(scene, lambda t: t.get("kind") == "card" and t.get("seat") == SEAT and t.get("row") == "wish",
                    0.0, -7.0)

    truth, got = read_cards(game="keltis-card", rows={"red": ["4", "6"], "blue": ["2", "3"]}, points_row=2,
                            wish_cards=[2, 5, 7], edit=close_gap)
    # (the rows found, not every value: at this frame's ~1 px/mm a strip's 2 may read as 1)
    assert got.seats[SEAT].points_row == truth.seats[SEAT].points_row == 2
    assert len(got.seats[SEAT].wish_cards) == len(truth.seats[SEAT].wish_cards) == 3


class YellowedWishCards(SpriteBank):
    """The wish cards printed (or lit) a yellower orange and a little washed out: the hue the
    simulator's glare gives them on some tables, nearer the yellow cards' than their own art's."""

    def get(self, key):
        s = super().get(key)
        if not key.startswith("card:card-wish"):
            return s
        levels = []
        for lv in s.levels:
            lv = lv.astype(np.float32)
            alpha = lv[..., 3] / 255.0
            lv[..., 1] += 0.5 * (lv[..., 2] - lv[..., 1])               # green halfway to red: toward yellow
            lv[..., :3] = (lv[..., :3] + 0.3 * 255.0 * alpha[..., None]) / 1.3
            levels.append(np.clip(lv, 0, 255).astype(np.uint8))
        return replace(s, levels=levels)


def test_a_yellowish_wish_row_is_named_by_its_stone_not_read_as_a_yellow_row():
    # before: the row's colour alone named it, a yellow row "2 5 7" and no wish cards
    truth, got = read_cards(game="keltis-card", rows={"red": ["4", "6"], "blue": ["2", "3"]}, points_row=0,
                            wish_cards=[2, 5, 7], sprites=YellowedWishCards())
    assert "yellow" not in got.seats[SEAT].rows
    assert got.seats[SEAT].wish_cards == truth.seats[SEAT].wish_cards == (2, 5, 7)
