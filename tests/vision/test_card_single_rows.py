"""A row of one card must be a card (session 15, wt15-cards): its light border seen on both sides of its
field. On a light wood table a patch of table beside a box or a notepad at a seat's edge was outlined,
named a colour and read as a row of one card (dev seed 79200 frame 21, east: a yellow "0" where the
seat holds no card)."""
from __future__ import annotations

import cv2
import numpy as np

from engine.board import bundled_board
from simulator.dataset import render_single, sample_spec
from vision.cards import CardConfig, _side_borders
from vision.reader import Reader


def _white_band(side: float, field: float = 0.35, ppm: float = 2.5) -> np.ndarray:
    """The whiteness of a straightened band 56 mm wide and 100 mm tall: its field `field` white, its
    outer 2 mm on each side `side` white."""
    white = np.full((int(100 * ppm), int(56 * ppm)), field, np.float32)
    white[:, :int(2 * ppm)] = side
    white[:, -int(2 * ppm):] = side
    return white


def test_a_cards_side_borders_are_whiter_than_its_field():
    config = CardConfig()
    both = _side_borders(config, _white_band(0.9), 5.0, 87.0, 2.5)
    # a patch of table: no border either side, or on one side only (the notepad's edge)
    none = _side_borders(config, _white_band(0.35), 5.0, 87.0, 2.5)
    one_side = _white_band(0.9)
    one_side[:, :int(2 * 2.5)] = 0.35
    one = _side_borders(config, one_side, 5.0, 87.0, 2.5)
    assert both > 0.3 and none < 0.01 and one < 0.01


def test_a_patch_of_light_wood_beside_a_box_is_no_row_of_one_card():
    # (xfail from session 15 to 24: the one-card rule by side borders, CardConfig.single_sides_min, is off — the
    # bundled demo's real one-card rows show no more side border than this patch of table; since session 24 a
    # row of one card must show its kind's centre picture, CardConfig.single_symbol_min, which the patch lacks)
    jpeg, truth = render_single(sample_spec(79200, 21, (2304, 1296)))
    assert truth["render"]["table"]["kind"] == "wood" and truth["seats"]["east"]["rows"] == {}
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    seats = {s: v["player"] for s, v in truth["seats"].items()}
    board = truth.get("board")
    reader = Reader(truth["render"]["calibration"], game=truth["game"],
                    board=bundled_board(board) if board else None, seats=seats)
    got = reader.read(image).observation
    assert dict(got.seats["east"].rows) == {}
    # the other seats' rows of one card are read as before
    for seat, s in truth["seats"].items():
        for colour, cards in s["rows"].items():
            if len(cards) == 1 and seat == "south":
                assert colour in got.seats[seat].rows, (seat, colour)
