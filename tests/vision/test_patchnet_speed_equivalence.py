"""The learned readers' network (vision.pawnnet.PatchNet.logits) computes its convolutions only where
the pooling looks and adds bias and ReLU after the pooling: the same float32 values as the plain
computation (kept here as the reference), on the weights in git and on odd patch sizes. Equal up to
float32 rounding: a BLAS kernel may sum a product of another shape in another order (the pooled and
the full convolution differ by ~1e-6 of the logits' size on some CPUs)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.pawnnet import DEFAULT_CONFIG as PAWN_NET, PatchNet, im2col3, load_net, maxpool2
from vision.tilenet import DEFAULT_CONFIG as TILE_NET


def reference_logits(net: PatchNet, x):
    """PatchNet.logits as it was: every convolution output, bias and ReLU before the pooling."""
    r, c, ch = net.shape
    n = len(x)
    img = ((x[:, :r * c * ch].reshape(n, r, c, ch) - net.mean) * net.scale).astype(np.float32)
    extras = x[:, r * c * ch:]
    h = np.maximum(im2col3(img) @ net.c1 + net.d1, 0.0).reshape(n, r, c, -1)
    h = maxpool2(h)
    h = np.maximum(im2col3(h) @ net.c2 + net.d2, 0.0).reshape(n, h.shape[1], h.shape[2], -1)
    h = maxpool2(h).reshape(n, -1)
    h = np.maximum(np.concatenate([h, extras], axis=1) @ net.w3 + net.b3, 0.0)
    return h @ net.w4 + net.b4


def assert_same_logits(got, want):
    """Equal up to float32 rounding of sums over a few hundred terms (relative to the logits' size)."""
    scale = float(np.max(np.abs(want)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=4e-6 * scale)


def random_net(rng, shape, f1=5, f2=7, extras=3, hidden=9, outputs=4) -> PatchNet:
    r, c, ch = shape
    pooled = (r // 2 // 2) * (c // 2 // 2) * f2
    f = np.float32
    return PatchNet(shape, rng.normal(size=ch).astype(f), rng.uniform(0.5, 2, ch).astype(f),
                    rng.normal(size=(9 * ch, f1)).astype(f), rng.normal(size=f1).astype(f),
                    rng.normal(size=(9 * f1, f2)).astype(f), rng.normal(size=f2).astype(f),
                    rng.normal(size=(pooled + extras, hidden)).astype(f), rng.normal(size=hidden).astype(f),
                    rng.normal(size=(hidden, outputs)).astype(f), rng.normal(size=outputs).astype(f))


@pytest.mark.parametrize("config", [PAWN_NET, TILE_NET], ids=["pawns", "tiles"])
def test_the_weights_in_git_give_the_reference_logits(config):
    net = load_net(config.weights)
    r, c, ch = net.shape
    extras = net.w3.shape[0] - net.c2.shape[1] * (r // 4) * (c // 4)
    rng = np.random.default_rng(7)
    x = rng.normal(0, 0.5, size=(23, r * c * ch + extras)).astype(np.float32)
    assert_same_logits(net.logits(x), reference_logits(net, x))


@pytest.mark.parametrize("shape", [(35, 17, 6), (31, 31, 6), (8, 8, 2), (9, 6, 3), (5, 5, 1)])
def test_odd_and_even_patch_sizes_give_the_reference_logits(shape):
    rng = np.random.default_rng(sum(shape))
    net = random_net(rng, shape)
    r, c, ch = shape
    x = rng.normal(size=(11, r * c * ch + 3)).astype(np.float32)
    got = net.logits(x)
    assert_same_logits(got, reference_logits(net, x))
    np.testing.assert_array_equal(net.logits(x), got)     # the cached standardisation changes nothing
