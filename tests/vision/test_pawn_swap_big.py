"""A player's big pawn read on one stone and a small one on another, swapped when the network's outputs on the two
stones, its small head's as well as P(big), make the swapped reading likelier (vision.pawnnet.swap_big_small;
PawnNetConfig.swap_big_joint, swap_big_floor; docs/vision.md, session 31 (wt31-pswap)): decode_pawns picks the big
pawn's stone by P(big) alone, and where a player's big evidence is split over two stones it picks the wrong one."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from vision.pawnnet import (DEFAULT_CONFIG, add_counted_pawns, decode_pawns, drop_phantom_beside_big,
                            move_counted_pawns, swap_big_small)

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "swap-big.npz"
ON = dataclasses.replace(DEFAULT_CONFIG, swap_big_joint=0.5, swap_big_floor=0.1)
OFF = dataclasses.replace(DEFAULT_CONFIG, swap_big_joint=0.0)
NOBODY = [1.0, 0.0, 0.0]


def _stones(pb_r, ps_r, pb_t, ps_t):
    """White (column 1): its big pawn read on stone 0, a small one on stone 1 (the readings as decoded); black on
    stone 2, nobody else anywhere."""
    pb = np.zeros((3, 4), np.float32)
    ps = np.array([[NOBODY] * 4] * 3, np.float32)
    pb[0, 1], pb[1, 1] = pb_r, pb_t
    ps[0, 1], ps[1, 1] = ps_r, ps_t
    ps[2, 0] = [0.05, 0.95, 0.0]
    big = np.zeros((3, 4), np.int8)
    small = np.zeros((3, 4), np.int8)
    big[0, 1] = 1
    small[1, 1] = 1
    small[2, 0] = 1
    return pb, ps, big, small, np.ones(3, np.float32)


def test_the_big_pawn_goes_where_the_small_head_sees_no_small_one():
    # P(big) 0.32 on stone 0 vs 0.28 on stone 1; the small head: a second white pawn half seen on stone 0 (0.55),
    # none on stone 1 (0.75 for no small pawn): white's big pawn stands on 1 and its small one on 0
    pb, ps, big, small, margin = _stones(0.32, [0.45, 0.55, 0.0], 0.28, [0.75, 0.25, 0.0])
    b, s, m = swap_big_small(ON, pb, ps, big, small, margin, [0, 1])
    assert b[:, 1].tolist() == [0, 1, 0] and s[:, 1].tolist() == [1, 0, 0]
    assert b[:, 0].tolist() == [0, 0, 0] and s[:, 0].tolist() == [0, 0, 1]   # black untouched
    assert m.tolist() == [0.0, 0.0, 1.0]                                      # both stones unsure
    assert int(b[:, 1].sum()) == 1 and int(s[:, 1].sum()) == 1                # the player's count kept
    assert big[:, 1].tolist() == [1, 0, 0]                                    # the inputs are not changed


def test_no_swap_when_off_or_the_evidence_does_not_favour_it():
    pb, ps, big, small, margin = _stones(0.32, [0.45, 0.55, 0.0], 0.28, [0.75, 0.25, 0.0])
    assert swap_big_small(OFF, pb, ps, big, small, margin, [0, 1])[0][:, 1].tolist() == [1, 0, 0]
    # the small head sure of the small pawn on stone 1 and of none beside the big one on stone 0
    pb, ps, big, small, margin = _stones(0.32, [0.7, 0.3, 0.0], 0.28, [0.2, 0.8, 0.0])
    assert swap_big_small(ON, pb, ps, big, small, margin, [0, 1])[0][:, 1].tolist() == [1, 0, 0]
    # P(big) on stone 1 under swap_big_floor
    pb, ps, big, small, margin = _stones(0.32, [0.45, 0.55, 0.0], 0.05, [0.75, 0.25, 0.0])
    assert swap_big_small(ON, pb, ps, big, small, margin, [0, 1])[0][:, 1].tolist() == [1, 0, 0]
    # two small white pawns already read beside the big one: no third (the small head's top class)
    pb, ps, big, small, margin = _stones(0.32, [0.1, 0.3, 0.6], 0.28, [0.75, 0.25, 0.0])
    small[0, 1] = 2
    assert swap_big_small(ON, pb, ps, big, small, margin, [0, 1])[0][:, 1].tolist() == [1, 0, 0]


def test_the_likeliest_of_several_candidates_wins():
    pb, ps, big, small, margin = _stones(0.32, [0.45, 0.55, 0.0], 0.28, [0.75, 0.25, 0.0])
    # a third stone with white's small pawn, P(big) 0.3 and the small head even surer there is none
    pb = np.concatenate([pb, [[0.0, 0.3, 0.0, 0.0]]]).astype(np.float32)
    ps = np.concatenate([ps, [[NOBODY, [0.85, 0.15, 0.0], NOBODY, NOBODY]]]).astype(np.float32)
    big = np.concatenate([big, np.zeros((1, 4), np.int8)])
    small = np.concatenate([small, [[0, 1, 0, 0]]]).astype(np.int8)
    margin = np.ones(4, np.float32)
    b, s, _ = swap_big_small(ON, pb, ps, big, small, margin, [0, 1])
    assert b[:, 1].tolist() == [0, 0, 0, 1] and s[:, 1].tolist() == [1, 1, 0, 0]


def test_recorded_dev_frame_grey_big_pawn_swapped_back():
    """Every path stone of a dev still (`keltis-cam sim frames --n 240 --seed 83790 --size 4608x2592`, frame 212, a
    base board): the network's probabilities after the mirrored look and the count head's, as the reader has them.
    Grey's big pawn stands alone on y4 and a grey small pawn on r3 beside brown's big one; the net gives P(big) 0.13
    and 0.16, so the lone-big rule put grey's big pawn on r3 and the count head added a small one on y4. The small
    head says no small grey pawn on y4 (0.81) and one on r3 (0.76): swapped, both stones are read as the truth."""
    z = np.load(RECORDED)
    pb, ps, pc, cols = z["p_big"], z["p_small"], z["p_count"], [int(c) for c in z["cols"]]
    first_row = z["first_row"].tolist()
    stones = z["stones"].tolist()

    def read(config):
        big, small, margin = decode_pawns(config, pb, ps, cols)
        big, small, margin = add_counted_pawns(config, pb, ps, pc, big, small, margin, cols)
        big, small, margin = move_counted_pawns(config, pb, ps, pc, big, small, margin, cols)
        big, small, margin = drop_phantom_beside_big(config, pc, big, small, margin, cols, first_row)
        return swap_big_small(config, pb, ps, big, small, margin, cols)

    def wrong(big, small):
        return int(np.abs(big - z["truth_big"]).sum() + np.abs(small - z["truth_small"]).sum())

    grey = 2
    r3, y4 = stones.index("r3"), stones.index("y4")
    big, small, _ = read(OFF)
    assert (big[r3, grey], small[y4, grey]) == (1, 1) and wrong(big, small) == 8
    big, small, margin = read(ON)
    assert (big[y4, grey], small[y4, grey], big[r3, grey], small[r3, grey]) == (1, 0, 0, 1)
    assert margin[y4] == 0.0 and margin[r3] == 0.0
    assert wrong(big, small) == 4
