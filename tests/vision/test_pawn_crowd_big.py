"""A big pawn the network is fairly sure of is the stone's, not the start crowd's (ReaderConfig.crowd_keep_sure_big,
0.85), and the phantom small beside its own big pawn on first-row stones (PawnNetConfig.beside_big_first_row, off)
(docs/vision.md, session 34 (wt34-pstart)). The crowd's big pawns leaning into d1 / f1 are read at P(big) up to ~0.77
on dev; big pawns standing there at 0.8-0.98, which the start-crowd rule swallowed (session 33's kept 4-player game
nwnz-4p-84513 lost turn 1: white's big pawn on d1 read nowhere for eight readings)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from test_pawn_crowd_sure import det, on_paths, reader, recorded_detections
from vision.pawnnet import DEFAULT_CONFIG, drop_phantom_beside_big
from vision.reader import ReaderConfig

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "crowd-big.npz"
OFF = dataclasses.replace(ReaderConfig(), crowd_keep_sure_big=0.0)


def test_a_fairly_sure_big_pawn_beside_the_start_stays():
    """Three players, white's big pawn stepped onto d1: 14 in the crowd, which reaches d1 and f1."""
    dets = [det("d1", "white", big=True, evidence=0.9), det("f1", "brown", big=True, evidence=0.7),
            det("f1", "black", evidence=0.9)]
    pawns, _ = reader()._pawn_list(dets)
    # the big pawn at 0.9 is the stone's; a big one at 0.7 and a small one at 0.9 are still the crowd's
    assert on_paths(pawns) == [("d1", "white", True)]
    # its player's start list keeps 1 big + 4 small: the big one is no longer listed there
    start = [(p.player, p.big) for p in pawns if p.stone == "start"]
    assert start.count(("white", True)) == 0 and start.count(("white", False)) == 4
    assert start.count(("brown", True)) == 1 and start.count(("black", False)) == 4
    # off (main before session 34): all the crowd's
    pawns, _ = reader(config=OFF)._pawn_list(dets)
    assert on_paths(pawns) == []


def test_far_from_the_start_nothing_changes():
    dets = [det("c4", "black", big=True, evidence=0.5), det("e5", "white", big=True, evidence=0.9)]
    for cfg in (None, OFF):
        pawns, _ = reader(config=cfg)._pawn_list(dets)
        assert on_paths(pawns) == [("c4", "black", True), ("e5", "white", True)]


def test_recorded_game_still_two_big_pawns_on_d1_and_f1():
    """Every path stone of a whole game's still (nwnz-4p-84513, session 33's kept games, frame 28; the network's and
    count head's probabilities after the mirrored look): white's big pawn alone on d1 (P(big) 0.92) and brown's on f1
    (0.86), 18 pawns on the start. Main's crowd rule took both into the crowd; now both are read."""
    dets, truth, players = recorded_detections(RECORDED)
    assert truth == [("d1", "white", True), ("f1", "brown", True)]
    pawns, _ = reader(players, OFF)._pawn_list(dets)
    assert on_paths(pawns) == []
    pawns, _ = reader(players)._pawn_list(dets)
    assert on_paths(pawns) == truth


def test_phantom_beside_big_on_first_row_only_when_switched_on():
    """A colour read big + small on a first-row stone where the count head says fewer (P(total < 2) = 0.9)."""
    big = np.zeros((2, 4), np.int8)
    small = np.zeros((2, 4), np.int8)
    big[:, 0] = 1
    small[:, 0] = 1
    margin = np.ones(2, np.float32)
    p_count = np.array([[0.0, 0.9, 0.1, 0.0, 0.0]] * 2, np.float32)
    first_row = [True, False]
    _, s, m = drop_phantom_beside_big(DEFAULT_CONFIG, p_count, big, small, margin, [0, 1], first_row)
    assert s[:, 0].tolist() == [1, 0] and m.tolist() == [1.0, 0.0]   # off: the first-row stone exempt
    on = dataclasses.replace(DEFAULT_CONFIG, beside_big_first_row=0.7)
    _, s, m = drop_phantom_beside_big(on, p_count, big, small, margin, [0, 1], first_row)
    assert s[:, 0].tolist() == [0, 0] and m.tolist() == [0.0, 0.0]
    # a first-row bar above the head's odds keeps it
    high = dataclasses.replace(DEFAULT_CONFIG, beside_big_first_row=0.95)
    _, s, _ = drop_phantom_beside_big(high, p_count, big, small, margin, [0, 1], first_row)
    assert s[:, 0].tolist() == [1, 0]
