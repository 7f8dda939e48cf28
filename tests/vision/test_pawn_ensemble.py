"""The pawn reader's ensemble (vision.pawnnet.PawnEnsemble): several networks in one weights file, loaded
once, their answers averaged in pawn_probabilities (as probabilities or as logits)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from vision.pawnnet import (COLOURS, DEFAULT_CONFIG, SMALL_CLASSES, PatchMaps, PatchNet, PawnEnsemble,
                            PawnNetConfig, load_net, load_pawn_net, pawn_probabilities, read_stone_pawns, softmax)

SHAPE = (8, 6, 6)
OUTPUTS = len(COLOURS) * (2 + SMALL_CLASSES)


def random_net(seed: int, extras: int = 6) -> PatchNet:
    """A small pawn network (the shipped one's layout on an 8 x 6 patch) with random weights."""
    rng = np.random.default_rng(seed)
    r, c, ch = SHAPE
    f1, f2, hidden = 5, 7, 16
    pooled = (r // 4) * (c // 4) * f2
    f = np.float32
    return PatchNet(SHAPE, rng.normal(size=ch).astype(f), rng.uniform(0.5, 2, ch).astype(f),
                    rng.normal(size=(9 * ch, f1)).astype(f), rng.normal(size=f1).astype(f),
                    rng.normal(size=(9 * f1, f2)).astype(f), rng.normal(size=f2).astype(f),
                    rng.normal(0, 0.3, size=(pooled + extras, hidden)).astype(f), rng.normal(size=hidden).astype(f),
                    rng.normal(0, 0.3, size=(hidden, OUTPUTS)).astype(f), rng.normal(size=OUTPUTS).astype(f),
                    info=f"random {seed}")


def inputs(n: int = 30, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r, c, ch = SHAPE
    return np.concatenate([rng.normal(0, 0.8, (n, r * c * ch)), rng.uniform(0, 1, (n, 2)), np.ones((n, 4))],
                          axis=1).astype(np.float32)


@pytest.mark.parametrize("average", ["probability", "logit"])
def test_k_copies_of_one_net_read_as_that_net(average):
    net = random_net(1)
    x = inputs()
    pb, ps = pawn_probabilities(net, x)
    eb, es = pawn_probabilities(PawnEnsemble((net, net, net)), x, average)
    np.testing.assert_allclose(eb, pb, atol=1e-6)
    np.testing.assert_allclose(es, ps, atol=1e-6)
    # and the whole stone reading (second look and decoding included) is the same
    # count_weights "": the shipped count head was fitted to the shipped net, not to this random one
    cfg = dataclasses.replace(DEFAULT_CONFIG, ensemble_average=average, second_look_pawns=0.5, count_weights="")
    maps = PatchMaps(tuple(f"s{i}" for i in range(len(x))), SHAPE[:2], None, None, None, None)
    import vision.pawnnet as pn

    real = pn.stone_features
    pn.stone_features = lambda *a, **k: x
    try:
        one = read_stone_pawns(cfg, net, maps, None, list(COLOURS))
        three = read_stone_pawns(cfg, PawnEnsemble((net,) * 3), maps, None, list(COLOURS))
    finally:
        pn.stone_features = real
    assert [s.pawns for s in one] == [s.pawns for s in three]
    np.testing.assert_allclose([s.margin for s in one], [s.margin for s in three], atol=1e-5)


def test_a_member_that_disagrees_moves_the_average():
    """A member sure of a black big pawn everywhere pulls the ensemble's P(black big) up, to the members'
    mean of probabilities ("probability") or to the softmax of their mean logits ("logit")."""
    net = random_net(2)
    b4 = net.b4.copy()
    b4[1] += 8.0                     # black's big-pawn head: "present" far likelier
    sure = dataclasses.replace(net, b4=b4)
    x = inputs()
    pb, ps = pawn_probabilities(net, x)
    qb, qs = pawn_probabilities(sure, x)
    eb, es = pawn_probabilities(PawnEnsemble((net, net, sure)), x, "probability")
    np.testing.assert_allclose(eb, (2 * pb + qb) / 3, atol=1e-6)
    np.testing.assert_allclose(es, ps, atol=1e-6)            # the small-pawn heads agree: unmoved
    assert (eb[:, 0] >= pb[:, 0]).all() and (eb[:, 0] > pb[:, 0] + 0.1).any()
    np.testing.assert_allclose(eb[:, 1:], pb[:, 1:], atol=1e-6)
    lb, _ls = pawn_probabilities(PawnEnsemble((net, net, sure)), x, "logit")
    z = np.stack([m.logits(x) for m in (net, net, sure)]).mean(0).reshape(len(x), len(COLOURS), -1)
    np.testing.assert_allclose(lb, softmax(z[..., :2])[..., 1], atol=1e-6)
    assert (lb[:, 0] >= pb[:, 0]).all() and (lb[:, 0] > pb[:, 0] + 0.1).any()


def test_an_ensemble_file_saves_and_loads_its_members(tmp_path: Path):
    nets = (random_net(3), random_net(4))
    path = tmp_path / "pawns.npz"
    PawnEnsemble(nets).save(path)
    got = load_pawn_net(path)
    assert isinstance(got, PawnEnsemble) and len(got.members) == 2
    x = inputs()
    for want, have in zip(nets, got.members):
        single = tmp_path / "one.npz"
        want.save(single)               # the same float16 rounding of w3 as a single network's file
        np.testing.assert_array_equal(have.logits(x), load_net(single).logits(x))
        assert have.info == want.info
    with pytest.raises(ValueError, match="load_pawn_net"):
        load_net(path)
    # a file of one network is an ensemble of one
    assert len(load_pawn_net(tmp_path / "one.npz").members) == 1
    assert load_pawn_net(tmp_path / "absent.npz") is None


def test_members_of_other_shapes_and_unknown_averages_are_refused():
    other = dataclasses.replace(random_net(5), shape=(10, 6, 6))
    with pytest.raises(ValueError, match="differ"):
        PawnEnsemble((random_net(5), other))
    with pytest.raises(ValueError):
        PawnEnsemble(())
    with pytest.raises(ValueError, match="ensemble_average"):
        PawnNetConfig(ensemble_average="median")
    with pytest.raises(ValueError, match="average"):
        pawn_probabilities(random_net(6), inputs(), "median")


def test_the_shipped_weights_load_and_stay_small():
    """The shipped pawn weights load as an ensemble; all weights in git stay within 2 MB together."""
    from vision.reader import ReaderConfig

    got = load_pawn_net(DEFAULT_CONFIG.weights)
    assert isinstance(got, PawnEnsemble) and len(got.members) >= 1
    models = Path(DEFAULT_CONFIG.weights).parent
    assert sum(p.stat().st_size for p in models.iterdir() if p.is_file()) <= 2 * 1024 * 1024
    assert ReaderConfig().pawn_net.weights == DEFAULT_CONFIG.weights
