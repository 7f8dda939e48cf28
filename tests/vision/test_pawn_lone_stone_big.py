"""A lone pawn read small whose player has no big pawn read, on a stone the count head says holds one pawn, with P(big)
at least `PawnNetConfig.lone_pawn_big_floor` (under `big_threshold`): the player's big pawn, seen small
(vision.pawnnet.lone_big_pawn; docs/vision.md, session 37 (wt37-npawn)). Whole games through the camera lost the
big pawn's first step this way: the reading said a small pawn stepped, in every reading until the pawn moved on."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from engine.board import bundled_board
from vision.pawnnet import DEFAULT_CONFIG, decode_pawns, decode_stone_pawns, lone_big_pawn
from vision.reader import one_pawn_paths

ROOT = Path(__file__).resolve().parents[2]
Y1 = ROOT / "fixtures" / "pawn-inputs" / "lone-big-y1.npz"
B1 = ROOT / "fixtures" / "pawn-inputs" / "lone-big-b1.npz"
OFF = dataclasses.replace(DEFAULT_CONFIG, lone_pawn_big_floor=0.0)
ON = dataclasses.replace(DEFAULT_CONFIG, lone_pawn_big_floor=0.2)

NOBODY = [1.0, 0.0, 0.0]
SMALL = [0.1, 0.9, 0.0]
ONE = [0.0, 0.9, 0.1, 0.0, 0.0]
TWO = [0.0, 0.1, 0.9, 0.0, 0.0]


def _stones(p_big_black, counts, white_small=(False, False, False)):
    """Three stones, each with a black small pawn read; black's P(big) per stone; the count head's answer per stone;
    optionally a white small pawn beside black's."""
    ps = np.array([[SMALL, SMALL if w else NOBODY, NOBODY, NOBODY] for w in white_small], np.float32)
    pb = np.zeros((3, 4), np.float32)
    pb[:, 0] = p_big_black
    pc = np.array(counts, np.float32)
    big, small, margin = decode_pawns(DEFAULT_CONFIG, pb, ps, [0, 1], (1, 4))
    assert big.sum() == 0 and small[:, 0].tolist() == [1, 1, 1]
    return pb, pc, big, small, margin


def test_a_lone_small_pawn_with_some_big_evidence_is_the_big_pawn():
    pb, pc, big, small, margin = _stones([0.05, 0.24, 0.01], [ONE, ONE, ONE])
    b, s, m = lone_big_pawn(ON, pb, pc, big, small, margin, [0, 1], (1, 4))
    assert b[:, 0].tolist() == [0, 1, 0] and s[:, 0].tolist() == [1, 0, 1]
    assert m[1] == 0.0 and m[0] == margin[0]
    # off: copies unchanged
    b, s, m = lone_big_pawn(OFF, pb, pc, big, small, margin, [0, 1], (1, 4))
    assert (b == big).all() and (s == small).all() and (m == margin).all()


def test_only_lone_pawns_under_the_floor_or_counted_one_are_left():
    for p_big, counts, white in (([0.05, 0.15, 0.01], [ONE, ONE, ONE], (False,) * 3),     # under the floor
                                 ([0.05, 0.24, 0.01], [ONE, TWO, ONE], (False,) * 3),     # the head counts two
                                 ([0.05, 0.24, 0.01], [ONE, TWO, ONE], (False, True, False))):  # a white pawn beside
        pb, pc, big, small, margin = _stones(p_big, counts, white)
        b, s, m = lone_big_pawn(ON, pb, pc, big, small, margin, [0, 1], (1, 4))
        assert (b == big).all() and (s == small).all() and (m == margin).all()


def test_a_colour_with_its_big_pawn_read_is_left_alone():
    pb, pc, big, small, margin = _stones([0.05, 0.24, 0.01], [ONE, ONE, ONE])
    big[0, 0], small[0, 0] = 1, 0
    b, s, _m = lone_big_pawn(ON, pb, pc, big, small, margin, [0, 1], (1, 4))
    assert (b == big).all() and (s == small).all()


def _wrong(path, config, board):
    z = np.load(path)
    pb, ps, pc, cols = z["p_big"], z["p_small"], z["p_count"], [int(c) for c in z["cols"]]
    stones = [str(s) for s in z["stones"]]
    paths = one_pawn_paths(bundled_board(board), stones)
    big, small, _ = decode_stone_pawns(config, pb, ps, pc, cols, (1, 4), z["first_row"].tolist(), paths)
    i = stones.index("y1" if board == "base" else "b1")
    return (int(np.abs(big - z["truth_big"]).sum() + np.abs(small - z["truth_small"]).sum()),
            {c: (int(big[i, c]), int(small[i, c])) for c in cols if big[i, c] or small[i, c]})


def test_recorded_game_still_white_big_pawn_alone_on_y1():
    """base-3p-85132 reading 28 (a whole game of `bench/vision_games.py`, seed 85132, 4608x2592 stills): white's big
    pawn alone on the base board's first yellow stone, P(big) 0.26 (under 0.3), P(1 small) 0.88, the count head sure of
    one pawn. The game lost north's `B:y1` (and its next step, `B:y2`) to this reading held 23 readings long."""
    wrong, y1 = _wrong(Y1, OFF, "base")
    assert y1 == {1: (0, 1)} and wrong == 4        # white small on y1 (2: one big missing, one small extra); brown's
    #                                                big pawn beside black's small on b1 read small too (2)
    wrong, y1 = _wrong(Y1, ON, "base")
    assert y1 == {1: (1, 0)} and wrong == 2        # white big on y1; b1 (brown at 0.14 beside black) unchanged
    assert _wrong(Y1, DEFAULT_CONFIG, "base") == (wrong, y1)   # the reader's default (on since session 37)


def test_recorded_game_still_grey_big_pawn_alone_on_b1_counted_in():
    """nwnz-4p-85134 reading 13: grey's big pawn alone on b1, P(big) 0.24, P(small) 0.43 — the network reads nothing
    there, the count head (one pawn, 0.68) adds grey's small pawn; the step then reads it big. The game lost south's
    first step `B:b1` (every reading of b1 to the game's end said small)."""
    wrong, b1 = _wrong(B1, OFF, "nwnz")
    assert b1 == {2: (0, 1)}
    off = wrong
    wrong, b1 = _wrong(B1, ON, "nwnz")
    assert b1 == {2: (1, 0)} and wrong == off - 2
