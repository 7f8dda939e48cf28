"""The count head (vision.pawnnet.CountHead): how many pawns stand on a stone, read from the pawn network's
hidden layer; a stone read with fewer pawns than it says gets the likeliest missing one (`add_counted_pawns`;
docs/vision.md, session 28)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from vision.pawnnet import (COLOURS, COUNT_CLASSES, DEFAULT_CONFIG, add_counted_pawns, decode_pawns, load_count_head,
                            load_pawn_net, pawn_outputs, second_look, second_look_counted, stone_pawn_arrays)

ROOT = Path(__file__).resolve().parents[2]
CROWDED = ROOT / "fixtures" / "pawn-inputs" / "crowded-count.npz"
LONE = ROOT / "fixtures" / "pawn-inputs" / "lone-stones.npz"
OFF = dataclasses.replace(DEFAULT_CONFIG, count_weights="")

shipped = pytest.mark.skipif(not (Path(DEFAULT_CONFIG.weights).is_file() and Path(DEFAULT_CONFIG.count_weights).is_file()),
                             reason="no pawn or count weights")


def _one_stone(p_small_rows, p_big_row, count_row):
    """One stone, four colours: P(small 0/1/2+) rows, P(big) per colour, the count head's probabilities."""
    ps = np.array([p_small_rows], np.float32)
    pb = np.array([p_big_row], np.float32)
    pc = np.array([count_row], np.float32)
    return pb, ps, pc


def _add(config, pb, ps, pc, cols, limits=(1, 4)):
    big, small, margin = decode_pawns(config, pb, ps, cols, limits)
    return add_counted_pawns(config, pb, ps, pc, big, small, margin, cols, limits)


def test_a_stone_read_with_fewer_pawns_than_counted_gets_the_likeliest_missing_one():
    # black read small (P 0.9); white half seen (P(1) 0.4, under P(0) 0.6: not read); the head says 2 pawns
    pb, ps, pc = _one_stone([[0.1, 0.9, 0.0], [0.6, 0.4, 0.0], [0.8, 0.2, 0.0], [1, 0, 0]],
                            [0.01, 0.02, 0.01, 0.0], [0.0, 0.1, 0.85, 0.05, 0.0])
    big, small, margin = _add(DEFAULT_CONFIG, pb, ps, pc, [0, 1, 2])
    assert small[0].tolist() == [1, 1, 0, 0] and big.sum() == 0
    assert margin[0] == 0.0          # the counts overruled the network: unsure
    # under count_more (P(total > 1) = 0.9 < 0.95): as decode_pawns reads it
    big2, small2, _ = _add(dataclasses.replace(DEFAULT_CONFIG, count_more=0.95), pb, ps, pc, [0, 1, 2])
    assert small2[0].tolist() == [1, 0, 0, 0]


def test_no_pawn_added_without_evidence_or_beyond_what_a_player_owns():
    pb, ps, pc = _one_stone([[0.1, 0.9, 0.0], [0.95, 0.05, 0.0], [0.97, 0.03, 0.0], [1, 0, 0]],
                            [0.02, 0.01, 0.01, 0.0], [0.0, 0.1, 0.85, 0.05, 0.0])
    _big, small, _ = _add(DEFAULT_CONFIG, pb, ps, pc, [0, 1, 2])
    assert small[0].tolist() == [1, 0, 0, 0]      # every other colour's evidence under count_pick_floor
    # white's 4 small pawns are all read on four other stones: its half-seen pawn here is not a fifth
    ps = np.array([[[0.1, 0.9, 0.0], [0.6, 0.4, 0.0], [1, 0, 0], [1, 0, 0]]]
                  + [[[1, 0, 0], [0.1, 0.9, 0.0], [1, 0, 0], [1, 0, 0]]] * 4, np.float32)
    pb = np.zeros((5, 4), np.float32)
    pc = np.array([[0.0, 0.1, 0.85, 0.05, 0.0]] + [[0, 1, 0, 0, 0]] * 4, np.float32)
    _big, small, _ = _add(DEFAULT_CONFIG, pb, ps, pc, [0, 1])
    assert small[:, 1].tolist() == [0, 1, 1, 1, 1] and small[0].tolist() == [1, 0, 0, 0]


def test_the_missing_pawn_may_be_a_big_one_only_if_its_player_has_none_read():
    # grey's big pawn half seen (P(big) 0.25, under big_threshold); the head says 2
    pb, ps, pc = _one_stone([[0.1, 0.9, 0.0], [1, 0, 0], [0.9, 0.1, 0.0], [1, 0, 0]],
                            [0.0, 0.0, 0.25, 0.0], [0.0, 0.1, 0.85, 0.05, 0.0])
    big, small, _ = _add(DEFAULT_CONFIG, pb, ps, pc, [0, 1, 2])
    assert big[0].tolist() == [0, 0, 1, 0] and small[0].tolist() == [1, 0, 0, 0]
    # grey's big pawn read on another stone: this one is not a second
    pb2 = np.concatenate([pb, np.array([[0.0, 0.0, 0.9, 0.0]], np.float32)])
    ps2 = np.concatenate([ps, np.array([[[1, 0, 0]] * 4], np.float32)])
    pc2 = np.concatenate([pc, np.array([[0, 1, 0, 0, 0]], np.float32)])
    big, small, _ = _add(DEFAULT_CONFIG, pb2, ps2, pc2, [0, 1, 2])
    assert big[:, 2].tolist() == [0, 1] and small[0].tolist() == [1, 0, 0, 0]


@shipped
def test_recorded_crowded_stone_reads_its_third_pawn_through_the_count_head():
    """A first-row stone of a dev still (`sim frames --seed 82521 --size 4608x2592`, frame 26, d1) with a white,
    a brown and a black small pawn: the network reads two of them; the count head says three (P 0.87) and the
    missing one is the likeliest of the rest. Off (count_weights ""), the reading is main's: two."""
    z = np.load(CROWDED)
    x, meta = z["x"], json.loads(str(z["meta"]))[0]
    want = sorted((p, bool(b)) for p, b in meta["truth"])
    assert _read(DEFAULT_CONFIG, x, meta["players"]) == want
    assert len(_read(OFF, x, meta["players"])) == 2


@shipped
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_recorded_lone_stones_get_no_pawn_from_the_count_head(k):
    """test_pawn_second_look's four lone pawns (a big one read with a phantom small beside it before the
    second look; a small one missed): the count head adds nothing to them."""
    z = np.load(LONE)
    x, meta = z["x"][k:k + 1], json.loads(str(z["meta"]))[k]
    want = sorted((p, bool(big)) for p, big in meta["truth"])
    assert _read(DEFAULT_CONFIG, x, meta["players"]) == want, meta["stone"]


@shipped
def test_the_shipped_head_reads_the_shipped_net_and_refuses_other_weights(tmp_path):
    net = load_pawn_net(DEFAULT_CONFIG.weights)
    head = load_count_head(DEFAULT_CONFIG.count_weights, net)
    assert head is not None and len(head.layers) >= 2      # trained with two seeds, averaged
    x = np.load(CROWDED)["x"]
    pb, ps, pc = pawn_outputs(net, x, "probability", head)
    assert pc.shape == (1, COUNT_CLASSES) and abs(float(pc.sum()) - 1.0) < 1e-5
    # the same network answers as pawn_outputs without a head, and as second_look without counts
    pb0, ps0, none = pawn_outputs(net, x)
    assert none is None and np.allclose(pb, pb0) and np.allclose(ps, ps0)
    cols = [0, 1, 2, 3]
    b1, s1 = second_look(DEFAULT_CONFIG, net, x, pb, ps, cols)
    b2, s2, _c = second_look_counted(DEFAULT_CONFIG, net, x, pb, ps, pc, cols, head)
    assert np.allclose(b1, b2) and np.allclose(s1, s2)
    other = dataclasses.replace(net.members[0], w4=net.members[0].w4 + 0.01)
    with pytest.warns(UserWarning, match="count head is not used"):
        assert load_count_head(DEFAULT_CONFIG.count_weights, other) is None
    assert load_count_head("", net) is None and load_count_head(tmp_path / "absent.npz", net) is None


def _read(config, x, players):
    """One stone's pawns as vision.pawnnet.read_stone_pawns reads them (network and count head, second
    look, decoding, the counted pawn, the phantom beside a big pawn: stone_pawn_arrays); sorted (colour, big)."""
    cols = [COLOURS.index(p) for p in players]
    big, small, _m = stone_pawn_arrays(config, load_pawn_net(config.weights), x, cols, first_row=None)
    return sorted([(COLOURS[c], True) for c in cols if big[0, c]]
                  + [(COLOURS[c], False) for c in cols for _ in range(int(small[0, c]))])
