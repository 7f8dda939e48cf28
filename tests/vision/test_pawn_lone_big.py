"""The players' pawn counts across the board (docs/vision.md, session 27): a player with 4 small pawns read
and no big one has its big pawn on the path too, on the stone where the classifier's P(big) is highest (one
small fewer there: the big pawn seen small); and a small pawn of the colour whose big pawn is read on the
same stone needs the stricter bar `beside_big_p0` (the net half-reads a big pawn's head as a small one)."""
from __future__ import annotations

import dataclasses

from vision_helpers import one_colour_pawn_outputs

from vision.pawnnet import DEFAULT_CONFIG, decode_pawns

MAIN = dataclasses.replace(DEFAULT_CONFIG, lone_big_min_small=0, beside_big_p0=0.5)   # session 26's decoding
ONE = [0.02, 0.97, 0.01]
NONE = [0.98, 0.02, 0.0]


_board = one_colour_pawn_outputs


def test_four_small_and_no_big_put_the_big_where_it_is_likeliest():
    pb, ps = _board([ONE, ONE, ONE, ONE, NONE], [0.02, 0.1, 0.01, 0.03, 0.2])
    big, small, margin = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [0, 0, 0, 0, 1]
    assert small[:, 0].tolist() == [1, 1, 1, 1, 0]
    assert float(margin[4]) == 0.0          # the counts overruled the classifier there
    big, small, _ = decode_pawns(MAIN, pb, ps, [0])
    assert not big[:, 0].any() and small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_the_big_seen_small_takes_one_small_from_its_stone():
    pb, ps = _board([ONE, ONE, ONE, ONE], [0.02, 0.25, 0.01, 0.04])
    big, small, _ = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [0, 1, 0, 0]
    assert small[:, 0].tolist() == [1, 0, 1, 1]


def test_fewer_small_pawns_leave_the_big_on_the_start():
    """One to three small pawns read: the big pawn may well be still on the start (tests/vision/
    test_board_reader.py::test_big_pawn_beside_a_small_one; the demo's early turns) — nothing changes."""
    for smalls in ([ONE, NONE, NONE, NONE], [ONE, ONE, NONE, NONE], [ONE, ONE, ONE, NONE]):
        pb, ps = _board(smalls, [0.25, 0.02, 0.01, 0.2])
        for cfg in (DEFAULT_CONFIG, MAIN):
            big, small, _ = decode_pawns(cfg, pb, ps, [0])
            assert not big[:, 0].any() and small[:, 0].tolist() == [1 if s is ONE else 0 for s in smalls]


def test_no_big_evidence_anywhere_reads_no_big():
    pb, ps = _board([ONE, ONE, ONE, ONE, NONE], [0.01, 0.02, 0.0, 0.03, 0.04])
    big, small, _ = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert not big[:, 0].any() and small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_a_big_read_leaves_the_counts_alone():
    pb, ps = _board([ONE, ONE, ONE, ONE, NONE], [0.02, 0.2, 0.01, 0.03, 0.9])
    big, small, _ = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [0, 0, 0, 0, 1] and small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_a_small_beside_its_own_big_needs_the_stricter_bar():
    pb, ps = _board([[0.47, 0.52, 0.01], [0.3, 0.69, 0.01], [0.47, 0.52, 0.01]], [0.9, 0.8, 0.1])
    big, small, margin = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [1, 0, 0]                  # one big pawn a player: the surest
    assert small[:, 0].tolist() == [0, 1, 1]                # stone 0: its big pawn's phantom; stone 2: no big there
    assert float(margin[0]) == 0.0
    big, small, _ = decode_pawns(MAIN, pb, ps, [0])
    assert small[:, 0].tolist() == [1, 1, 1]
