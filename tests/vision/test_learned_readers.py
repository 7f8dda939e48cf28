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
