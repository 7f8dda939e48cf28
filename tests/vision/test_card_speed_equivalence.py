"""The cards part's faster ways (session 30) give exactly what the plain numpy / OpenCV ways they replace give:
the pieces' boxes, a piece's median colour, the field labels' counts and look-ups, the border tests as byte
compares, and a band's straightening maps (vision.cards, vision.seatview)."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.cards import (FIELD_KINDS, Band, _greater, _label_lookup, _pieces, label_counts, piece_median,
                          straighten)
from vision.seatview import SeatFrame, SeatView, _view_maps


def _pieces_reference(mask, lo=0.0, hi=float("inf")):
    """The session-29 way: labels, areas by counting, each box in range by its own mask."""
    n, comp = cv2.connectedComponents(mask, connectivity=4)
    stats = np.zeros((n, 5), np.int32)
    stats[:, cv2.CC_STAT_AREA] = np.bincount(comp.ravel(), minlength=n)
    for i in np.nonzero((stats[:, 4] >= lo) & (stats[:, 4] <= hi))[0]:
        if i:
            stats[i, :4] = cv2.boundingRect(cv2.compare(comp, int(i), cv2.CMP_EQ))
    return n, comp, stats


@pytest.mark.parametrize("seed", range(4))
def test_pieces_boxes_as_one_mask_per_piece(seed):
    rng = np.random.default_rng(seed)
    # blobs of many sizes on a grid of thin separators (as outlined fields)
    mask = (cv2.GaussianBlur(rng.random((180, 260)).astype(np.float32), (0, 0), 3) > 0.5).astype(np.uint8)
    mask[::23, :] = 0
    mask[:, ::31] = 0
    for lo, hi in ((0.0, float("inf")), (40.0, float("inf")), (30.0, 400.0)):
        got, ref = _pieces(mask * 255, lo, hi), _pieces_reference(mask, lo, hi)
        assert got[0] == ref[0]
        assert np.array_equal(got[1], ref[1])
        assert np.array_equal(got[2], ref[2])
        assert got[2].dtype == np.int32
    n, comp, stats = _pieces(mask, boxes=False)
    assert np.array_equal(stats[:, 4], np.bincount(comp.ravel(), minlength=n)) and not stats[:, :4].any()


def test_piece_median_is_numpys():
    rng = np.random.default_rng(5)
    view = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(1, 40, 2))
        x, y = int(rng.integers(0, 120 - w)), int(rng.integers(0, 90 - h))
        sub = rng.random((h, w)) < rng.uniform(0.05, 1.0)
        if not sub.any():
            continue
        ref = np.median(view[y:y + h, x:x + w][sub].astype(np.float32), axis=0)
        got = piece_median(view, sub, x, y)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)
    # not bytes: numpy's own
    fview = view.astype(np.float32) / 7
    sub = np.ones((5, 6), bool)
    assert np.array_equal(piece_median(fview, sub, 3, 4), np.median(fview[4:9, 3:9][sub], axis=0))


def test_label_counts_and_lookups_are_numpys():
    rng = np.random.default_rng(6)
    n = len(FIELD_KINDS)
    labels = rng.integers(-1, n, (70, 90)).astype(np.int8)
    assert np.array_equal(label_counts(labels), np.bincount(labels[labels >= 0].astype(np.int64), minlength=n))
    assert np.array_equal(label_counts(labels[:, 10:40]),
                          np.bincount(labels[:, 10:40][labels[:, 10:40] >= 0].astype(np.int64), minlength=n))
    for _ in range(20):
        table = rng.random(n + 1) < 0.5
        ref = table[labels.astype(np.int64) + 1].view(np.uint8)
        assert np.array_equal(_label_lookup(labels, table), ref)
        assert np.array_equal(_label_lookup(labels[5:, 7:30], table), table[labels[5:, 7:30].astype(np.int64) + 1])


def test_greater_is_numpys_compare():
    rng = np.random.default_rng(7)
    f = rng.random((60, 80)).astype(np.float32)
    b = rng.integers(0, 256, (60, 80), dtype=np.uint8)
    # thresholds on the float32 values themselves and just beside them (numpy rounds a Python float to float32)
    ts = [float(v) for v in f.ravel()[:300]] + [float(v) + 1e-9 for v in f.ravel()[:100]] + \
        [float(v) - 1e-9 for v in f.ravel()[:100]] + [0.0, 1.0, -1.0, 2.5]
    for t in ts:
        assert np.array_equal(_greater(f, t) > 0, f > t), t
    for t in [float(v) for v in np.linspace(-2, 258, 600)] + [0, 17, 255, 256]:
        assert np.array_equal(_greater(b, t) > 0, b > t), t
    g = rng.random((60, 80)).astype(np.float32)
    assert np.array_equal(_greater(f, g) > 0, f > g)
    # anything else: numpy's compare itself (a float64 threshold compares in float64)
    t = np.float64(f[3, 4]) + 1e-9
    assert np.array_equal(_greater(f, t) > 0, f > t)
    assert set(np.unique(_greater(f, 0.5))) <= {0, 255}


def _seat_view():
    fr = SeatFrame("south", (100.0, 50.0), (1.0, 0.0), (0.0, 1.0), 200.0, 120.0, 0.0)
    ppm, margin, step = 3.0, 14.0, 8
    w, h = int(round((fr.width + 2 * margin) * ppm)), int(round((fr.depth + 2 * margin) * ppm))
    gw, gh = w // step + 2, h // step + 2
    gu, gv = np.meshgrid((np.arange(gw) * step + 0.5) / ppm - margin, (np.arange(gh) * step + 0.5) / ppm - margin)
    x, y = fr.point(gu, gv)
    # a gently curved mapping, as through a lens
    coarse = np.stack([x * 2.1 + 0.0004 * y * y, y * 2.05 + 0.0003 * x * y], 2).astype(np.float32)
    mx, my = _view_maps(coarse, step, (w, h))
    half = (cv2.resize(mx, (w // 2, h // 2)), cv2.resize(my, (w // 2, h // 2)))
    return SeatView(fr, ppm, margin, (w, h), 2.0, *half, coarse, step)


@pytest.mark.parametrize("from_frame", [True, False])
def test_straighten_samples_as_its_maps_say(from_frame):
    """The band's maps, worked out in place with one v per row, are the per-pixel formula's, bit for bit."""
    sv = _seat_view()
    rng = np.random.default_rng(8)
    image = rng.integers(0, 256, (900, 1200, 3), dtype=np.uint8)
    for a, b, v0, v1, first in ((60.0, 0.0, 10.0, 80.0, 0), (55.3, 0.031, 5.2, 97.9, 7), (70.1, -0.02, 0.0, 40.0, 0)):
        band = Band("red", a, b, v0, v1)
        got, v_start = straighten(band, image, sv, 58.0, 6.0, from_frame=from_frame, pad_above_mm=12.0,
                                  first_row=first)
        # the reference: every pixel's seat u, v, then the view's (and the frame's) coordinates, as before
        p = sv.ppm
        h = int(round((band.v1 - band.v0 + 6.0 + 12.0) * p))
        w = int(round(58.0 * p))
        vv = v_start + (np.arange(first, max(first, h), dtype=np.float32) + 0.5) / p
        uu = (np.arange(w, dtype=np.float32) + 0.5) / p - 58.0 / 2
        gu = uu[None, :] + (band.a + band.b * vv)[:, None]
        gv = np.repeat(vv[:, None], w, axis=1)
        mx, my = (c.astype(np.float32) for c in sv.to_view(gu, gv))
        if from_frame:
            k = 1.0 / sv.coarse_step
            xy = cv2.remap(sv.coarse, mx * k, my * k, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            mx, my = xy[..., 0], xy[..., 1]
        ref = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        assert math.isclose(v_start, band.v0 - 12.0)
        assert got.shape == ref.shape and np.array_equal(got, ref)


def test_index_counts_are_numpys():
    from vision.cards import _index_counts

    rng = np.random.default_rng(9)
    idx = rng.integers(0, 4096, (80, 120)).astype(np.uint16)
    idx[:30] = 17          # (many of one colour: the table)
    assert np.array_equal(_index_counts(idx, 4096), np.bincount(idx.ravel(), minlength=4096))
    assert _index_counts(idx, 4096).dtype == np.int64
    # a value past n: numpy's count (longer), not a histogram that drops it
    idx[0, 0] = 5000
    assert np.array_equal(_index_counts(idx, 4096), np.bincount(idx.ravel(), minlength=4096))


@pytest.mark.parametrize("card_game", [True, False])
def test_colour_finder_mask_is_numpys(card_game, monkeypatch):
    """find_bands' field mask by byte look-ups gives the rows the numpy mask gives (a table colour dropped too)."""
    import vision.cards as cards

    rng = np.random.default_rng(10 + card_game)
    n = len(FIELD_KINDS)
    labels = np.full((300, 400), -1, np.int8)
    labels[:, :] = np.where(rng.random((300, 400)) < 0.6, 2, -1)     # speckle of one colour: the table's
    for i, x in enumerate(range(10, 300, 95)):
        labels[40:260, x:x + 78] = i % n                              # rows of cards (52 mm at 1.5 px/mm)
    table = rng.random((300, 400)) < 0.05
    sv = _seat_view()
    cfg = cards.CardConfig()
    got = cards.find_bands(cfg, labels, sv, 0.5, table, card_game)
    # the plain way: the labels as int16 take the numpy branch
    ref = cards.find_bands(cfg, labels.astype(np.int16), sv, 0.5, table, card_game)
    assert [(b.kind, b.a, b.b, b.v0, b.v1) for b in got] == [(b.kind, b.a, b.b, b.v0, b.v1) for b in ref]
    assert got
