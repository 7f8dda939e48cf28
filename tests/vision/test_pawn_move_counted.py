"""A player's pawn moved to where the count head is sure one more stands, from the stone of that player where it
says fewer stand (vision.pawnnet.move_counted_pawns; PawnNetConfig.count_move_fewer, count_move_big; docs/vision.md,
session 30 (wt30-pmiss)): add_counted_pawns cannot add a pawn whose player has all its pawns read, though one of
those readings is often the phantom."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from vision.pawnnet import (DEFAULT_CONFIG, add_counted_pawns, decode_pawns, drop_phantom_beside_big,
                            move_counted_pawns)

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "move-counted.npz"
ON = dataclasses.replace(DEFAULT_CONFIG, count_move_fewer=0.5, count_move_big=True)
OFF = dataclasses.replace(DEFAULT_CONFIG, count_move_fewer=0.0, count_move_big=True)

ONE = [0.0, 1.0, 0.0, 0.0, 0.0]          # the count head sure of one pawn
TWO_NOT_ONE = [0.0, 0.05, 0.9, 0.05, 0.0]  # sure of more than one (P(total > 1) 0.95)
NONE_NOT_ONE = [0.9, 0.1, 0.0, 0.0, 0.0]   # sure of fewer than one (P(total < 1) 0.9)
NOBODY = [1.0, 0.0, 0.0]
SMALL = [0.05, 0.95, 0.0]


def _frame(stone0_white, count0, victim_count, white_big_elsewhere=False):
    """Stone 0: black small read, white half seen (P(1) `stone0_white`), the head's `count0`; white's 4 small pawns
    read on stones 1-4 (stone 4's head: `victim_count`, the others sure of one)."""
    ps = np.array([[SMALL, [1 - stone0_white, stone0_white, 0.0], NOBODY, NOBODY]]
                  + [[NOBODY, SMALL, NOBODY, NOBODY]] * 4, np.float32)
    pb = np.zeros((5, 4), np.float32)
    pc = np.array([count0, ONE, ONE, ONE, victim_count], np.float32)
    if white_big_elsewhere:
        ps = np.concatenate([ps, np.array([[NOBODY] * 4], np.float32)])
        pb = np.concatenate([pb, np.array([[0.0, 0.9, 0.0, 0.0]], np.float32)])
        pc = np.concatenate([pc, np.array([victim_count], np.float32)])
    return pb, ps, pc


def _read(config, pb, ps, pc, cols=(0, 1), limits=(1, 4)):
    big, small, margin = decode_pawns(config, pb, ps, list(cols), limits)
    big, small, margin = add_counted_pawns(config, pb, ps, pc, big, small, margin, list(cols), limits)
    return move_counted_pawns(config, pb, ps, pc, big, small, margin, list(cols), limits)


def test_a_players_phantom_small_pawn_moves_to_where_the_head_counts_one_more():
    pb, ps, pc = _frame(0.4, TWO_NOT_ONE, NONE_NOT_ONE)
    big, small, margin = _read(ON, pb, ps, pc)
    assert small[:, 1].tolist() == [1, 1, 1, 1, 0]          # white's pawn from stone 4 to stone 0
    assert small[:, 0].tolist() == [1, 0, 0, 0, 0] and big.sum() == 0
    assert margin[0] == 0.0 and margin[4] == 0.0            # both stones unsure
    assert int(small[:, 1].sum()) == 4                       # the player's count kept


def test_nothing_moves_when_off_or_when_either_head_is_unsure():
    pb, ps, pc = _frame(0.4, TWO_NOT_ONE, NONE_NOT_ONE)
    assert _read(OFF, pb, ps, pc)[1][:, 1].tolist() == [0, 1, 1, 1, 1]
    # the head not sure of a pawn more on stone 0 (P(total > 1) 0.6 < count_more)
    pb, ps, pc = _frame(0.4, [0.0, 0.4, 0.6, 0.0, 0.0], NONE_NOT_ONE)
    assert _read(ON, pb, ps, pc)[1][:, 1].tolist() == [0, 1, 1, 1, 1]
    # no stone of white's where the head says fewer (P(total < 1) 0.3 < count_move_fewer)
    pb, ps, pc = _frame(0.4, TWO_NOT_ONE, [0.3, 0.7, 0.0, 0.0, 0.0])
    assert _read(ON, pb, ps, pc)[1][:, 1].tolist() == [0, 1, 1, 1, 1]
    # white's evidence on stone 0 under count_pick_floor
    pb, ps, pc = _frame(0.05, TWO_NOT_ONE, NONE_NOT_ONE)
    assert _read(ON, pb, ps, pc)[1][:, 1].tolist() == [0, 1, 1, 1, 1]


def test_a_player_below_its_limit_gets_the_pawn_added_not_moved():
    pb, ps, pc = _frame(0.4, TWO_NOT_ONE, NONE_NOT_ONE)
    _big, small, _ = _read(ON, pb, ps, pc, limits=(1, 5))   # five small pawns a player: room for one more
    assert small[:, 1].tolist() == [1, 1, 1, 1, 1]


def test_one_move_per_stone_the_surest_first():
    # two stones both counted one more, white half seen on both (0.4 and 0.3); one stone of white's says fewer
    pb, ps, pc = _frame(0.4, TWO_NOT_ONE, NONE_NOT_ONE)
    ps = np.concatenate([ps, np.array([[SMALL, [0.7, 0.3, 0.0], NOBODY, NOBODY]], np.float32)])
    pb = np.concatenate([pb, np.zeros((1, 4), np.float32)])
    pc = np.concatenate([pc, np.array([TWO_NOT_ONE], np.float32)])
    big, small, _ = _read(ON, pb, ps, pc, limits=(1, 4))
    # black has 2 small read (stones 0 and 5): no limit issue; white's pawn goes to stone 0 (0.4 > 0.3), once
    assert small[:, 1].tolist() == [1, 1, 1, 1, 0, 0]


def test_a_big_pawn_moves_too_with_count_move_big():
    pb, ps, pc = _frame(0.0, TWO_NOT_ONE, ONE, white_big_elsewhere=True)
    pb[0, 1] = 0.25                                          # white's big pawn half seen on stone 0
    pc[5] = NONE_NOT_ONE                                     # the head: nothing stands where it was read
    big, small, _ = _read(ON, pb, ps, pc)
    assert big[:, 1].tolist() == [1, 0, 0, 0, 0, 0] and small[:, 1].tolist() == [0, 1, 1, 1, 1, 0]
    big, _small, _ = _read(dataclasses.replace(ON, count_move_big=False), pb, ps, pc)
    assert big[:, 1].tolist() == [0, 0, 0, 0, 0, 1]


def test_recorded_dev_frame_two_phantoms_moved_to_the_missed_pawns():
    """Every path stone of a dev still (`keltis-cam sim frames --n 150 --seed 83920 --size 4608x2592`, frame 35, a
    base board): the network's probabilities after the mirrored look and the count head's, as the reader has them.
    Grey's small pawn on p4 and black's on g2 are missed (their players' 4 small pawns are read, one of each on a
    stone of three pawns the head counts as two: g3, b3); moved, every stone is read as the truth has it."""
    z = np.load(RECORDED)
    pb, ps, pc, cols = z["p_big"], z["p_small"], z["p_count"], [int(c) for c in z["cols"]]
    first_row = z["first_row"].tolist()

    def wrong(config):
        big, small, margin = _read(config, pb, ps, pc, cols)
        big, small, _ = drop_phantom_beside_big(config, pc, big, small, margin, cols, first_row)
        return int(np.abs(big - z["truth_big"]).sum() + np.abs(small - z["truth_small"]).sum())

    assert wrong(OFF) == 3
    assert wrong(ON) == 0
