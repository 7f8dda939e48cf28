"""RULES §1 on the base board: a player has at most one pawn per path (vision.pawnnet.one_pawn_per_path;
PawnNetConfig.one_per_path; the reader passes each stone's path, vision.reader.one_pawn_paths; docs/vision.md,
session 31 (wt31-pcrowd)). A colour read twice on one path keeps the pawn its readings support best; the counted
and moved pawns obey the rule too."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from engine.board import bundled_board
from vision.pawnnet import (DEFAULT_CONFIG, add_counted_pawns, decode_pawns, decode_stone_pawns, move_counted_pawns,
                            one_pawn_per_path)
from vision.reader import one_pawn_paths

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "one-per-path.npz"
ON = dataclasses.replace(DEFAULT_CONFIG, one_per_path=True)
OFF = dataclasses.replace(DEFAULT_CONFIG, one_per_path=False)

NOBODY = [1.0, 0.0, 0.0]
SMALL = [0.05, 0.95, 0.0]
ONE = [0.0, 1.0, 0.0, 0.0, 0.0]
TWO = [0.0, 0.0, 1.0, 0.0, 0.0]
NONE = [1.0, 0.0, 0.0, 0.0, 0.0]


def _arrays(p_small, p_big, p_count, cols=(0, 1)):
    ps = np.array(p_small, np.float32)
    pb = np.array(p_big, np.float32)
    pc = np.array(p_count, np.float32)
    big, small, margin = decode_pawns(DEFAULT_CONFIG, pb, ps, list(cols), (1, 4))
    return pb, ps, pc, big, small, margin


def test_a_big_pawn_read_with_a_small_one_of_its_colour_keeps_only_the_big_one():
    # one stone, black read big (0.6) and small (P(1) 0.8): on a base path it is one pawn, the big one
    pb, ps, pc, big, small, margin = _arrays([[[0.2, 0.8, 0.0], NOBODY, NOBODY, NOBODY]],
                                             [[0.6, 0.0, 0.0, 0.0]], [TWO])
    assert big[0, 0] == 1 and small[0, 0] == 1
    b, s, m = one_pawn_per_path(ON, pb, ps, pc, big, small, margin, [0, 1], ["red"])
    assert b[0, 0] == 1 and s[0, 0] == 0 and m[0] == 0.0
    # off, or no per-path limit on the stone (NWNZ: `paths` None, or the stone's entry None): unchanged
    for config, paths in ((OFF, ["red"]), (ON, None), (ON, [None])):
        b, s, m = one_pawn_per_path(config, pb, ps, pc, big, small, margin, [0, 1], paths)
        assert b[0, 0] == 1 and s[0, 0] == 1 and m[0] == margin[0]


def test_two_small_pawns_of_one_colour_on_one_path_keep_the_better_supported_one():
    # black small read on stones 0 and 1 (the same path) and on stone 2 (another path); stone 1's reading weaker and
    # its count head sure nothing stands there
    p_small = [[SMALL, NOBODY, NOBODY, NOBODY], [[0.3, 0.7, 0.0], NOBODY, NOBODY, NOBODY],
               [SMALL, NOBODY, NOBODY, NOBODY]]
    pb, ps, pc, big, small, margin = _arrays(p_small, np.zeros((3, 4)), [ONE, NONE, ONE])
    b, s, m = one_pawn_per_path(ON, pb, ps, pc, big, small, margin, [0, 1], ["red", "red", "blue"])
    assert s[:, 0].tolist() == [1, 0, 1] and b.sum() == 0
    assert m[1] == 0.0 and m[0] == margin[0] and m[2] == margin[2]
    # the count head decides when the colour outputs alike: stone 0 the one it counts empty
    p_small[1] = [SMALL, NOBODY, NOBODY, NOBODY]
    pb, ps, pc, big, small, margin = _arrays(p_small, np.zeros((3, 4)), [NONE, ONE, ONE])
    b, s, _m = one_pawn_per_path(ON, pb, ps, pc, big, small, margin, [0, 1], ["red", "red", "blue"])
    assert s[:, 0].tolist() == [0, 1, 1]
    # other colours on the path are not limited by black's pawn
    p_small[1] = [SMALL, SMALL, NOBODY, NOBODY]
    pb, ps, pc, big, small, margin = _arrays(p_small, np.zeros((3, 4)), [ONE, TWO, ONE])
    b, s, _m = one_pawn_per_path(ON, pb, ps, pc, big, small, margin, [0, 1], ["red", "red", "blue"])
    assert s[:, 1].tolist() == [0, 1, 0]


def test_the_counted_pawn_is_not_added_on_a_path_where_its_colour_stands():
    # stone 1: the head sure of one more pawn; white the likelier colour there (P(1) 0.5) but white's small pawn is
    # read on stone 0 of the same path: black (0.3) is counted in instead
    p_small = [[NOBODY, SMALL, NOBODY, NOBODY], [[0.7, 0.3, 0.0], [0.5, 0.5, 0.0], NOBODY, NOBODY]]
    pb, ps, pc, big, small, margin = _arrays(p_small, np.zeros((2, 4)), [ONE, [0.0, 0.0, 1.0, 0.0, 0.0]])
    assert small[1].sum() == 0
    b, s, _m = add_counted_pawns(ON, pb, ps, pc, big, small, margin, [0, 1], (1, 4), ["red", "red"])
    assert s[1].tolist()[:2] == [1, 0]
    b, s, _m = add_counted_pawns(ON, pb, ps, pc, big, small, margin, [0, 1], (1, 4), None)
    assert s[1].tolist()[:2] == [0, 1]


def test_no_pawn_is_moved_onto_a_path_where_its_colour_stands():
    # white's 4 small pawns read on stones 1-4; stone 0 (path "red") counted one more, white half seen there;
    # stone 4's head says nothing stands there. Stone 1 is on the red path too: the move is refused
    ps = np.array([[NOBODY, [0.6, 0.4, 0.0], NOBODY, NOBODY]] + [[NOBODY, SMALL, NOBODY, NOBODY]] * 4, np.float32)
    pb = np.zeros((5, 4), np.float32)
    pc = np.array([[0.0, 0.95, 0.05, 0.0, 0.0], ONE, ONE, ONE, NONE], np.float32)
    big, small, margin = decode_pawns(ON, pb, ps, [0, 1], (1, 4))
    assert small[:, 1].tolist() == [0, 1, 1, 1, 1]
    paths = ["red", "red", "blue", "green", "yellow"]
    _b, s, _m = move_counted_pawns(ON, pb, ps, pc, big, small, margin, [0, 1], (1, 4), paths)
    assert s[:, 1].tolist() == [0, 1, 1, 1, 1]
    paths[1] = "pink"
    _b, s, _m = move_counted_pawns(ON, pb, ps, pc, big, small, margin, [0, 1], (1, 4), paths)
    assert s[:, 1].tolist() == [1, 1, 1, 1, 0]


def test_the_reader_limits_paths_on_the_base_board_only():
    base, nwnz = bundled_board("base"), bundled_board("nwnz")
    stones = [s for s in base.stones if base.stones[s].kind != "start"]
    paths = one_pawn_paths(base, stones)
    assert len(set(paths)) == 5 and all(p == base.stones[s].color for s, p in zip(stones, paths))
    assert one_pawn_paths(nwnz, [s for s in nwnz.stones if nwnz.stones[s].kind != "start"]) is None


def test_recorded_dev_frame_phantoms_on_a_players_path_dropped():
    """Every path stone of a dev still (`keltis-cam sim frames --n 240 --seed 83790 --size 4608x2592`, frame 54, a
    base board): the network's probabilities after the mirrored look and the count head's, as the reader has them.
    Brown's big pawn on y1 is read big and small; grey's big pawn is read on g2 (P(big) 0.17: the lone-big rule, as
    grey's 4 small pawns are read), where black's big pawn stands, while grey's small pawn on g1 (P(1) 0.99) is on the
    same path. With the rule only the big pawn stays on y1 and grey keeps g1; grey's phantom small on b2 stays."""
    z = np.load(RECORDED)
    pb, ps, pc, cols = z["p_big"], z["p_small"], z["p_count"], [int(c) for c in z["cols"]]
    first_row, paths = z["first_row"].tolist(), [str(p) for p in z["paths"]]

    def wrong(config):
        big, small, _ = decode_stone_pawns(config, pb, ps, pc, cols, (1, 4), first_row, paths)
        return int(np.abs(big - z["truth_big"]).sum() + np.abs(small - z["truth_small"]).sum())

    assert wrong(OFF) == 3
    assert wrong(ON) == 1
