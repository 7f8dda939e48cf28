"""A learned reader's pawn the network is sure of is the stone's, not the start crowd's (ReaderConfig.crowd_keep_sure;
vision.pawnnet.pawn_evidence; docs/vision.md, session 33 (wt33-p1row)). Early in an NWNZ game the start crowd (12-14
pawns) reaches the first-row stones d1 and f1, and the start-crowd rule took every pawn read there into it, however
plainly the network saw it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from engine.board import bundled_board
from vision.pawnnet import DEFAULT_CONFIG, decode_stone_pawns, pawn_evidence, stone_pawns
from vision.pawns import PawnDetection
from vision.reader import PAWNS_PER_PLAYER, Reader, ReaderConfig, net_detections

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "crowd-sure.npz"
# both bars off (session 34 added the big pawn's, crowd_keep_sure_big)
OFF = dataclasses.replace(ReaderConfig(), crowd_keep_sure=0.0, crowd_keep_sure_big=0.0)


def reader(players=("black", "white", "brown"), config=None):
    return Reader({"seats": {}}, board=bundled_board("nwnz"),
                  seats={s: p for s, p in zip(("south", "west", "north", "east"), players)},
                  config=config or ReaderConfig())


def det(stone, player, big=False, evidence=0.0):
    s = bundled_board("nwnz").stones[stone]
    return PawnDetection(stone, player, big, s.x, s.y, 1.0, 0.0, evidence)


def on_paths(pawns):
    return sorted((p.stone, p.player, p.big) for p in pawns if p.stone != "start")


def recorded_detections(path):
    """A recorded still's network outputs decoded as the reader does: (detections, the truth on paths, players)."""
    z = np.load(path)
    pb, ps, pc, cols = z["p_big"], z["p_small"], z["p_count"], [int(c) for c in z["cols"]]
    stones = [str(s) for s in z["stones"]]
    big, small, margin = decode_stone_pawns(DEFAULT_CONFIG, pb, ps, pc, cols, PAWNS_PER_PLAYER,
                                            z["first_row"].tolist(), None)
    dets = net_detections(bundled_board("nwnz"), stone_pawns(stones, cols, big, small, margin, pb, ps))
    truth = sorted((stones[i], ["black", "white", "grey", "brown"][c], b)
                   for arr, b in ((z["truth_big"], True), (z["truth_small"], False))
                   for i, c in zip(*np.nonzero(arr)))
    return dets, truth, tuple(str(p) for p in z["players"])


def test_a_sure_pawn_beside_the_start_stays_an_unsure_one_is_the_crowds():
    """Three players, one pawn stepped: 14 in the crowd, which reaches d1 and f1."""
    sure, unsure = det("d1", "white", big=True, evidence=0.999), det("f1", "brown", evidence=0.85)
    pawns, _ = reader()._pawn_list([sure, unsure])
    assert on_paths(pawns) == [("d1", "white", True)]
    # off (main before session 33): both taken into the crowd
    pawns, _ = reader(config=OFF)._pawn_list([sure, unsure])
    assert on_paths(pawns) == []
    # detections without the network's evidence (the hand-set reader's) are judged as before
    pawns, _ = reader()._pawn_list([det("d1", "white", big=True), det("f1", "brown")])
    assert on_paths(pawns) == []


def test_far_from_the_start_nothing_changes():
    pawns, _ = reader()._pawn_list([det("c4", "black", evidence=0.5), det("e5", "white", big=True, evidence=0.99)])
    assert on_paths(pawns) == [("c4", "black", False), ("e5", "white", True)]


def test_the_evidence_of_each_pawn():
    p_big = np.array([[0.95, 0.0, 0.0, 0.0]], np.float32)
    p_small = np.array([[[0.1, 0.3, 0.6], [1, 0, 0], [1, 0, 0], [1, 0, 0]]], np.float32)
    assert pawn_evidence(p_big, p_small, 0, 0, True) == np.float32(0.95)
    assert abs(pawn_evidence(p_big, p_small, 0, 0, False) - 0.9) < 1e-6
    assert abs(pawn_evidence(p_big, p_small, 0, 0, False, nth=2) - 0.6) < 1e-6
    big = np.array([[1, 0, 0, 0]], np.int8)
    small = np.array([[2, 0, 0, 0]], np.int8)
    (sp,) = stone_pawns(["d1"], [0, 1], big, small, np.ones(1, np.float32), p_big, p_small)
    assert sp.pawns == (("black", True), ("black", False), ("black", False))
    assert np.allclose(sp.evidence, (0.95, 0.9, 0.6))


def test_recorded_game_still_white_big_pawn_on_d1():
    """Every path stone of a whole game's still (nwnz-3p-84250, session 32's kept games, frame 27; the network's and
    count head's probabilities after the mirrored look, as the reader has them): white's big pawn stands alone on d1
    (P(big) 0.9995), brown's small one on f1 (P 0.87), 13 pawns on the start. The start-crowd rule took both into the
    crowd (white's step onto d1 was read nowhere for eight readings, and the tracker put it on f1); with the sure pawn
    kept, white's big pawn is read on d1; brown's, less sure, is still the crowd's."""
    dets, truth, players = recorded_detections(RECORDED)
    assert truth == [("d1", "white", True), ("f1", "brown", False)]
    pawns, _ = reader(players, OFF)._pawn_list(dets)
    assert on_paths(pawns) == []
    pawns, _ = reader(players)._pawn_list(dets)
    assert on_paths(pawns) == [("d1", "white", True)]
