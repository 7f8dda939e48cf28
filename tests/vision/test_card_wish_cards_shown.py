"""The card game's wish cards read where their row shows the wish cards' stone but its field no wish colour
(session 29, wt29-wishcard): dev stills of `sim frames` seeds 83690 and 83570, each rendered again."""
from __future__ import annotations

import cv2
import numpy as np

from simulator.dataset import render_single, sample_spec
from vision.reader import Reader

STILL = (4608, 2592)


def _read(seed: int, index: int):
    jpeg, truth = render_single(sample_spec(seed, index, STILL))
    assert truth["game"] == "keltis-card"
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    seats = {s: v["player"] for s, v in truth["seats"].items()}
    reader = Reader(truth["render"]["calibration"], game=truth["game"], board=None, seats=seats)
    return truth, reader.read(image).observation


def test_a_wish_row_shown_by_its_stone_but_labelled_as_the_table_is_read():
    # 83690/132 south: three wish cards on warm wood, outlined and named wish (stone 0.84, the yellow sun 0.26),
    # but the colour labels name field and table alike the points' grey: no card was read (wish_ends_symbol_min)
    truth, got = _read(83690, 132)
    assert sorted(truth["seats"]["south"]["wish_cards"]) == [3, 4, 6]
    assert got.seats["south"].wish_cards == (3, 4, 6)


def test_a_yellow_row_is_not_renamed_wish_by_a_weak_stone():
    # 83690/23 north: the yellow row 4 7 9, its band run on past its last card, matched the stone 0.47 and its
    # sun 0.23 where its last card's picture was looked for: read as three wish cards and no yellow row
    # (symbol_rename_min)
    truth, got = _read(83690, 23)
    assert truth["seats"]["north"]["wish_cards"] == [] and truth["seats"]["north"]["rows"]["yellow"] == ["4", "7", "9"]
    assert got.seats["north"].wish_cards == ()
    assert got.seats["north"].rows.get("yellow", ())[:3] == ("4", "7", "9")


def test_the_points_card_above_a_wish_row_gives_it_no_strip():
    # 83570/321 west: a washed-out points row and under it one wish card 4; the points card's bottom border was
    # taken for the top of a wish strip above it, read "4" too (column_end_slack_mm)
    truth, got = _read(83570, 321)
    assert truth["seats"]["west"]["wish_cards"] == [4]
    assert got.seats["west"].wish_cards == (4,)
