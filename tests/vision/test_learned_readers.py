"""The learned pawn and tile readers (vision.pawnnet, vision.tilenet): their numpy network, their
weights in git, and that only the seats' colours and the board's tile codes are possible answers."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.pawnnet import COLOURS, DEFAULT_CONFIG as PAWN_NET, PatchNet, im2col3, load_net, maxpool2
from vision.tilenet import CODES, DEFAULT_CONFIG as TILE_NET


def test_im2col_convolution_matches_a_direct_3x3_convolution():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 4, 3)).astype(np.float32)
    k = rng.normal(size=(3, 3, 3, 2)).astype(np.float32)      # ky, kx, in, out
    got = (im2col3(x) @ k.reshape(27, 2)).reshape(2, 5, 4, 2)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = np.zeros_like(got)
    for i in range(5):
        for j in range(4):
            want[:, i, j] = np.einsum("nabc,abcd->nd", xp[:, i:i + 3, j:j + 3], k)
    assert np.allclose(got, want, atol=1e-5)


def test_maxpool_takes_the_largest_of_each_2x2_block_and_drops_an_odd_edge():
    x = np.arange(2 * 5 * 4, dtype=np.float32).reshape(1, 5, 4, 2)
    out = maxpool2(x)
    assert out.shape == (1, 2, 2, 2)
    assert out[0, 0, 0, 0] == x[0, 1, 1, 0] and out[0, 1, 1, 1] == x[0, 3, 3, 1]


@pytest.mark.parametrize("config", [PAWN_NET, TILE_NET], ids=["pawns", "tiles"])
def test_weights_are_in_git_small_and_load(config):
    path = Path(config.weights)
    assert path.is_file(), f"{path} missing: scripts/train_pawns.py writes it"
    assert path.stat().st_size <= 2 * 1024 * 1024
    net = load_net(path)
    assert isinstance(net, PatchNet)
    rows, cols, ch = net.shape
    x = np.zeros((3, rows * cols * ch + net.w3.shape[0] - net.c2.shape[1] * (rows // 4) * (cols // 4)), np.float32)
    outputs = net.logits(x).shape[1]
    assert outputs == (len(COLOURS) * 5 if config is PAWN_NET else len(CODES))


def _patch_maps_for(net, n, extras_dims=2):
    from vision.pawnnet import PatchMaps

    rows, cols, _ch = net.shape
    return PatchMaps(tuple(f"s{i}" for i in range(n)), (rows, cols), None, None,
                     np.zeros((n, rows, cols, 3), np.float32), np.zeros((n, extras_dims), np.float32))


def test_only_the_colours_in_play_are_read_on_a_stone(monkeypatch):
    """Whatever the patches show, a pawn is only ever given a player colour that is in play."""
    import vision.pawnnet as pn

    net = load_net(PAWN_NET.weights)
    rows, cols, ch = net.shape
    rng = np.random.default_rng(1)
    n = 40
    maps = _patch_maps_for(net, n)
    patches = rng.normal(0, 0.8, (n, rows * cols, 3)).astype(np.float32)

    def fake_features(_maps, _log_norm, players):
        flat = np.concatenate([patches, patches], axis=2).reshape(n, -1)
        return np.concatenate([flat, _maps.extras, np.broadcast_to(pn.in_play_vector(players), (n, 4))], axis=1)

    monkeypatch.setattr(pn, "stone_features", fake_features)
    found = pn.read_stone_pawns(PAWN_NET, net, maps, None, ["black", "brown"])
    assert len(found) == n
    assert {p for sp in found for p, _big in sp.pawns} <= {"black", "brown"}


def test_only_the_boards_tile_codes_are_read(monkeypatch):
    import vision.tilenet as tn

    net = load_net(TILE_NET.weights)
    rows, cols, ch = net.shape
    n = 30
    x = np.random.default_rng(2).normal(0, 0.8, (n, rows * cols * ch)).astype(np.float32)
    maps = tn.TileMaps(tuple(f"t{i}" for i in range(n)), (rows, cols), None, None, None, None)
    monkeypatch.setattr(tn, "tile_features", lambda _maps, _log_norm: x)
    tiles, margins = tn.read_spot_tiles(net, maps, None, ["clover", "wish-any"])
    assert set(tiles) == set(maps.spots) and set(margins) == set(maps.spots)
    assert set(tiles.values()) <= {None, "clover", "wish-any"}
