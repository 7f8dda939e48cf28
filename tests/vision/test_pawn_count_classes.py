"""The count head's classes come from its file (a head may answer 0 .. 6+ pawns, not only 0 .. 4+), it may read
the network's pooled conv maps too, and its training labels count every pawn on a stone (session 32)."""
from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from vision.pawnnet import (DEFAULT_CONFIG, CountHead, count_odds, load_count_head, load_pawn_net, net_fingerprint,
                            pawn_outputs)

ROOT = Path(__file__).resolve().parents[2]
CROWDED = ROOT / "fixtures" / "pawn-inputs" / "crowded-count.npz"
shipped = pytest.mark.skipif(not Path(DEFAULT_CONFIG.weights).is_file(), reason="no pawn weights")


def _train_pawns_script():
    spec = importlib.util.spec_from_file_location("train_pawns", ROOT / "scripts" / "train_pawns.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _random_head(net, classes, pooled, seed=0):
    rng = np.random.default_rng(seed)
    m = net.members[0]
    n_in = m.w4.shape[0] + m.w4.shape[1] + (2 * m.c2.shape[1] if pooled else 0)
    layers = tuple((rng.normal(0, 0.1, (n_in, 8)).astype(np.float32), np.zeros(8, np.float32),
                    rng.normal(0, 0.1, (8, classes)).astype(np.float32), np.zeros(classes, np.float32))
                   for _ in range(2))
    return CountHead(np.zeros(n_in, np.float32), np.ones(n_in, np.float32), layers, net_fingerprint(net), "test",
                     pooled=pooled)


@shipped
@pytest.mark.parametrize("classes,pooled", [(5, False), (7, True)])
def test_a_saved_head_keeps_its_classes_and_inputs_and_leaves_the_network_alone(tmp_path, classes, pooled):
    net = load_pawn_net(DEFAULT_CONFIG.weights)
    path = tmp_path / f"head-{classes}.npz"
    _random_head(net, classes, pooled).save(path)
    head = load_count_head(path, net)
    assert head is not None and head.classes == classes and head.pooled == pooled
    x = np.load(CROWDED)["x"]
    pb, ps, pc = pawn_outputs(net, x, "probability", head)
    assert pc.shape == (1, classes) and abs(float(pc.sum()) - 1.0) < 1e-5
    pb0, ps0, _ = pawn_outputs(net, x)           # the network's own answers unchanged by the head
    assert np.array_equal(pb, pb0) and np.array_equal(ps, ps0)
    m = net.members[0]
    h, pooled_maps = m.hidden_pooled(x)
    assert np.array_equal(h, m.hidden(x)) and pooled_maps.shape == (1, 2 * m.c2.shape[1])


def test_a_seven_class_count_says_a_fifth_pawn_stands_where_four_are_read():
    big = np.zeros((1, 4), np.int64)
    small = np.array([[2, 1, 1, 0]])                       # four read
    five = np.array([[0, 0, 0, 0.05, 0.1, 0.8, 0.05]])     # 0 .. 6+: five likeliest
    more, fewer = count_odds(five, big, small, [0, 1, 2, 3])
    assert more[0] == pytest.approx(0.85) and fewer[0] == pytest.approx(0.05)
    # a 0 .. 4+ head cannot: its top class already holds the four read
    more5, _ = count_odds(np.array([[0, 0, 0, 0.05, 0.95]]), big, small, [0, 1, 2, 3])
    assert more5[0] == 0.0


def test_count_labels_count_every_pawn_where_the_features_keep_them_uncapped():
    labels = _train_pawns_script().count_labels
    # one stone: black big + three black small + one white small (pawn_y caps the small count at 2)
    capped = np.array([[1, 2, 0, 1, 0, 0, 0, 0]], np.int8)
    uncapped = np.array([[1, 3, 0, 1, 0, 0, 0, 0]], np.int8)
    assert labels(_Z(pawn_y=capped, pawn_n=uncapped), 7)[0] == 5
    assert labels(_Z(pawn_y=capped), 7)[0] == 4           # an older file: the capped counts
    assert labels(_Z(pawn_y=capped, pawn_n=uncapped), 5)[0] == 4   # "4 or more"


class _Z(dict):
    """As an np.load'ed .npz: its `files` and items."""

    @property
    def files(self):
        return list(self)


def test_count_adds_gives_a_stone_a_second_counted_pawn_only_while_the_head_still_says_more():
    from vision.pawnnet import add_counted_pawns, decode_pawns

    # black read small; white and grey half seen (under P(0)); the head: 3 pawns at 0.85
    ps = np.array([[[0.1, 0.9, 0.0], [0.55, 0.45, 0.0], [0.6, 0.4, 0.0], [1, 0, 0]]], np.float32)
    pb = np.zeros((1, 4), np.float32)
    pc = np.array([[0.0, 0.05, 0.1, 0.85, 0.0, 0.0, 0.0]], np.float32)
    cols = [0, 1, 2]

    def read(adds):
        config = dataclasses.replace(DEFAULT_CONFIG, count_adds=adds)
        big, small, margin = decode_pawns(config, pb, ps, cols, (1, 4))
        for _ in range(config.count_adds):
            big, small, margin = add_counted_pawns(config, pb, ps, pc, big, small, margin, cols)
        return small[0].tolist()

    assert read(1) == [1, 1, 0, 0]           # the likeliest missing colour first
    assert read(2) == [1, 1, 1, 0]           # then the next, the head still sure of a third pawn
    assert read(3) == [1, 1, 1, 0]           # no fourth: P(total > 3) is 0

