"""The usable stage's cheaper computations (vision/usable.py, session 15) give what the plain numpy ones
gave: numpy's percentiles without its per-call overhead, the table difference by lookup tables, the
brightness fall-off evaluated by rows and columns, the region sums over the not-table pixels only."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.usable import (DEFAULT_CONFIG, _log_image, _lum_chroma, _lum_chroma_lut, _lum_surface, _log_lut,
                           percentiles, region_features, small_image)


@pytest.mark.parametrize("n", [1, 2, 7, 20, 423, 691])
def test_percentiles_are_numpys(n):
    rng = np.random.default_rng(n)
    for values in (rng.random(n).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32),
                   rng.integers(0, 5, n).astype(np.float32)):       # ties: the same values many times
        qs = (20.0, 50.0, 75.0, 80.0, 99.0)
        got = percentiles(values, qs)
        want = np.percentile(values, list(qs), axis=0)
        assert got.shape == want.shape
        assert np.array_equal(got, want), (got, want)


def test_the_table_difference_by_lookup_is_the_log_images_difference_exactly():
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (180, 320, 3)).astype(np.uint8)
    table = np.array([3.1, 4.2, 4.9], np.float32)
    lut = _log_lut(DEFAULT_CONFIG.offset)
    lum, chroma2 = _lum_chroma_lut(image, lut[:, None] - table[None, :])
    lum0, chroma0 = _lum_chroma(_log_image(image, DEFAULT_CONFIG.offset), table)
    assert np.array_equal(lum, lum0)
    assert np.array_equal(chroma2, chroma0)


def test_the_fall_off_by_rows_and_columns_is_the_full_bases_product():
    from test_usable import empty_table, reader_for

    image, cal, seats, _truth = empty_table()
    reader = reader_for(cal, seats)
    reader.read(image)
    model = reader.usable_model
    small = small_image(DEFAULT_CONFIG, image)
    lum = _log_image(cv2.blur(small, (3, 3)), DEFAULT_CONFIG.offset).mean(axis=2).astype(np.float32)
    got = _lum_surface(DEFAULT_CONFIG, model, lum)
    # the same fit, evaluated as before: every pixel's basis row times the coefficients
    y = lum.ravel()[model.ring_idx].astype(np.float64)
    coef = model.ring_pinv @ y
    keep = np.abs(y - model.ring_basis @ coef) < DEFAULT_CONFIG.surface_outlier
    coef = np.linalg.lstsq(model.ring_basis[keep], y[keep], rcond=None)[0]
    want = (model.full_basis @ coef.astype(np.float32)).reshape(lum.shape)
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) < 1e-4


def test_region_sums_over_the_not_table_pixels_are_those_over_the_whole_picture():
    from test_usable import arm_regions

    model, px, labels, stats, n = arm_regions("north", ("mug",))
    keep, feats = region_features(DEFAULT_CONFIG, model, px, labels, stats, n)
    keep2, feats2 = region_features(DEFAULT_CONFIG, model, px, labels, stats, n, np.flatnonzero(px.mask))
    total = np.bincount(labels.ravel(), weights=model.area_flat, minlength=n)
    assert keep and keep == keep2 and np.array_equal(feats, feats2)
    assert keep == [k for k in range(1, n) if total[k] >= DEFAULT_CONFIG.region_min_mm2]
    assert np.allclose(np.exp(feats[:, 0]) * 1000.0, total[keep], rtol=1e-5)   # log_area: the same sums


@pytest.mark.parametrize("n", [1, 2, 7, 20, 423, 690, 691])
def test_medians_are_numpys(n):
    from vision.usable import medians

    rng = np.random.default_rng(n + 100)
    for values in (rng.random(n).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32)):
        got = medians(values)
        want = np.median(values, axis=0)
        assert np.asarray(got).dtype == want.dtype and np.array_equal(got, want), (got, want)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 180, 320])
def test_sparse_max_runs_are_the_slices_maxima(n):
    from vision.usable import _run_max, _sparse_max

    rng = np.random.default_rng(n + 7)
    values = rng.random(n)
    table = _sparse_max(values)
    start = rng.integers(0, n, 400)
    length = np.array([rng.integers(1, n - s + 1) for s in start])
    want = np.array([values[s:s + k].max() for s, k in zip(start, length)])
    assert np.array_equal(_run_max(table, start, length), want)


def _ends_sharply_reference(config, model, veiled, veil, off_colour):
    """`_ends_sharply` as it was before session 25 (wt25-uspeed): every part summed by one bincount, the rectangle
    of all its pixels."""
    part = veiled.astype(np.uint8)
    n, labels, stats, _c = cv2.connectedComponentsWithStatsWithAlgorithm(part, 8, cv2.CV_32S, cv2.CCL_BBDT)
    out = np.zeros(veiled.shape, bool)
    if n <= 1:
        return out
    idx = np.flatnonzero(part)
    size = np.bincount(labels.ravel()[idx], weights=model.area_flat[idx], minlength=n)
    diag = np.hypot(stats[:, 2], stats[:, 3]) * np.sqrt(size / np.maximum(stats[:, 4], 1))
    try_ = ((size >= config.region_min_mm2) & (size <= config.glare_thing_max_mm2)
            & (diag >= config.glare_thing_border_len_mm))
    try_[0] = False
    sh, sw = veiled.shape
    k3, k5 = np.ones((3, 3), np.uint8), np.ones((5, 5), np.uint8)
    for k in np.flatnonzero(try_):
        x, y, w, h = (int(q) for q in stats[k, :4])
        x0, y0, x1, y1 = max(x - 2, 0), max(y - 2, 0), min(x + w + 2, sw), min(y + h + 2, sh)
        sel = labels[y0:y1, x0:x1] == k
        ys, xs = np.nonzero(sel)
        scale = float(np.sqrt(size[k] / len(xs)))
        (_cx, _cy), (rw, rh), _a = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
        fill = len(xs) / max((rw + 1.0) * (rh + 1.0), 1.0)
        length = (max(rw, rh) + 1.0) * scale
        at_border = bool(model.frame_border[y0:y1, x0:x1][sel].any())
        if length < (config.glare_thing_border_len_mm if at_border else config.glare_thing_len_mm) \
                or fill < config.glare_thing_fill:
            continue
        m = sel.astype(np.uint8)
        band = (cv2.dilate(m, k5) > 0) & (cv2.dilate(m, k3) == 0) & ~off_colour[y0:y1, x0:x1]
        if not band.any():
            continue
        v = np.maximum(veil[y0:y1, x0:x1], 0.0)
        if float(np.median(v[band])) < config.glare_fade * float(v[sel].mean()):
            out[y0:y1, x0:x1] |= sel
    return out


def test_ends_sharply_bounds_change_nothing():
    """Its exact bounds (a part's size by its pixel count and largest pixel, its rectangle by its box's diagonal and
    its outline) give the verdicts of every part that the plain computation gave: random pale bars, blobs and specks
    over a registered table's small image."""
    from test_usable import empty_table, reader_for
    from vision.usable import _ends_sharply

    image, cal, seats, _truth = empty_table()
    reader = reader_for(cal, seats)
    reader.read(image)
    model = reader.usable_model
    rng = np.random.default_rng(25)
    sh, sw = model.area.shape
    tried = 0
    for _ in range(40):
        veiled = rng.random((sh, sw)) < 0.03          # specks
        for _b in range(rng.integers(1, 6)):          # bars and blobs, some on the border
            x, y = int(rng.integers(-10, sw)), int(rng.integers(-10, sh))
            w, h = int(rng.integers(2, 120)), int(rng.integers(2, 60))
            veiled[max(y, 0):y + h, max(x, 0):x + w] = True
        off_colour = veiled | (rng.random((sh, sw)) < 0.05)
        veil = (rng.random((sh, sw)) * 40.0 - 5.0).astype(np.float32)
        veil[veiled] += 60.0
        # (the last: a sleeve's stub at the border longer than a thing elsewhere, so that near the border the smaller
        # length bounds the rectangle before the part is summed — session 26)
        for cfg in (dataclasses.replace(DEFAULT_CONFIG, glare_fade=0.1), dataclasses.replace(DEFAULT_CONFIG, glare_fade=0.5),
                    dataclasses.replace(DEFAULT_CONFIG, glare_fade=0.5, glare_thing_border_len_mm=250.0,
                                        glare_thing_len_mm=120.0)):
            got = _ends_sharply(cfg, model, veiled, veil, off_colour)
            want = _ends_sharply_reference(cfg, model, veiled, veil, off_colour)
            assert np.array_equal(got, want)
            tried += int(want.any())
    assert tried > 5     # (parts were found things, not only left)


# session 26 (wt26-uspeed): the per-frame steps rewritten in place or without copies, against their former forms

def _veil_reference(config, small, expected):
    """`_veil` as it was before session 26: a split per call, the spread and the limit as new arrays."""
    planes = expected if isinstance(expected, list) else None
    if planes is None and getattr(expected, "ndim", 1) == 3:
        planes = cv2.split(expected)
    if planes is None:
        c0, c1, c2 = (cv2.subtract(c, float(e), dtype=cv2.CV_32F) for c, e in zip(cv2.split(small), expected))
    else:
        c0, c1, c2 = (cv2.subtract(c, e, dtype=cv2.CV_32F) for c, e in zip(cv2.split(small), planes))
    veil = cv2.min(cv2.min(c0, c1), c2)
    spread = cv2.max(cv2.max(c0, c1), c2) - veil
    return veil, (veil > 0) & (spread < config.glare_tint * veil + config.glare_tol)


@pytest.mark.parametrize("seed", range(6))
def test_the_veil_in_place_is_the_former_veil(seed):
    from vision.usable import _veil

    rng = np.random.default_rng(seed + 260)
    small = rng.integers(0, 256, (180, 320, 3)).astype(np.uint8)
    crop = small[20:150, 40:290]            # (a view, as the board's crop is)
    colour = (rng.random(3) * 200).astype(np.float32)
    art = [(rng.random(crop.shape[:2]) * 255).astype(np.float32) for _ in range(3)]
    cfg = dataclasses.replace(DEFAULT_CONFIG, glare_tint=float(rng.random()), glare_tol=float(rng.random() * 30))
    planes = cv2.split(small)
    for img, expected, given in ((small, colour, None), (small, colour, planes), (crop, art, None),
                                 (crop, art, [p[20:150, 40:290] for p in planes]), (crop, cv2.merge(art), None)):
        veil, mask = _veil(cfg, img, expected, given)
        veil0, mask0 = _veil_reference(cfg, img, expected)
        assert veil.dtype == veil0.dtype and np.array_equal(veil, veil0)
        assert mask.dtype == mask0.dtype and np.array_equal(mask, mask0)


def test_the_fall_off_in_place_is_the_former_broadcast():
    from test_usable import empty_table, reader_for
    from vision.usable import _quadratic

    image, cal, seats, _truth = empty_table()
    reader = reader_for(cal, seats)
    reader.read(image)
    model = reader.usable_model
    h, w = model.area.shape
    u = model.full_basis[:w, 1]
    v = model.full_basis[::w, 2][:h]
    rng = np.random.default_rng(261)
    for _ in range(20):
        c = (rng.normal(size=6)).astype(np.float32)
        rows = c[0] + c[2] * v + c[5] * (v * v)
        cols = c[1] * u + c[3] * (u * u)
        want = (rows[:, None] + cols[None, :]) + (c[4] * v)[:, None] * u[None, :]
        got = _quadratic(model, c.astype(np.float64), (h, w))
        assert got.dtype == want.dtype and np.array_equal(got, want)
        # ... and the brightness off it, |lum| against |lum - surface| in place
        lum = rng.normal(size=(h, w)).astype(np.float32)
        want_off = np.minimum(np.abs(lum), np.abs(lum - got))
        off = np.subtract(lum, got)
        got_off = np.abs(lum)
        np.minimum(got_off, np.abs(off, out=off), out=got_off)
        assert np.array_equal(got_off, want_off)


def test_the_log_table_is_kept_read_only():
    first = _log_lut(DEFAULT_CONFIG.offset)
    assert first is _log_lut(DEFAULT_CONFIG.offset) and not first.flags.writeable
    assert np.array_equal(first, np.log(np.arange(256, dtype=np.float32) + DEFAULT_CONFIG.offset).astype(np.float32))


def test_a_regions_edge_count_is_the_former_edge_sums():
    """`judge_small` counts a region's pixels at an edge (only for an arm's seat) where it summed the play area's
    inside and outside weights there: the same regions come in from an edge."""
    rng = np.random.default_rng(262)
    for _ in range(20):
        n = int(rng.integers(2, 40))
        lab = rng.integers(1, n, 3000)
        at_edge = rng.random(3000) < rng.random() * 0.1
        inside = (rng.random(3000) < 0.5).astype(np.float64)
        outside = 1.0 - inside
        want = (np.bincount(lab[at_edge], weights=outside[at_edge], minlength=n)
                + np.bincount(lab[at_edge], weights=inside[at_edge], minlength=n)) > 0
        assert np.array_equal(np.bincount(lab[at_edge], minlength=n) > 0, want)


def _random_masks(seed: int, count: int):
    """Masks of specks, blobs, bars, dense noise and nearly full pictures (0/1 uint8), 180x320 and small."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        h, w = (180, 320) if i % 3 else (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
        kind = i % 5
        if kind == 0:
            m = rng.random((h, w)) < rng.uniform(0, 0.3)
        elif kind == 1:
            m = cv2.blur(rng.random((h, w)).astype(np.float32), (5, 5)) > rng.uniform(0.5, 0.7)
        elif kind == 2:      # (nearly everything: rows and columns wholly foreground)
            m = np.ones((h, w), bool)
            m[rng.integers(0, h, 3), rng.integers(0, w, 3)] = False
        elif kind == 3:
            m = rng.random((h, w)) < rng.uniform(0.0, 0.02)
        else:
            m = rng.random((h, w)) < rng.uniform(0.3, 1.0)
        yield m.astype(np.uint8)


@pytest.mark.parametrize("share", [0.25, 1.01])     # (1.01: every mask by the pixels, the dense ones too)
def test_components_are_opencvs_labels_and_statistics(share, monkeypatch):
    from vision import usable

    monkeypatch.setattr(usable, "_COMPONENTS_NP_SHARE", share)
    for i, mask in enumerate(_random_masks(7, 300)):
        idx = np.flatnonzero(mask) if i % 2 else None
        n, labels, stats, order = usable._components_sorted(mask, idx)
        want_n, want_labels, want_stats, _c = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S,
                                                                                            cv2.CCL_BBDT)
        assert n == want_n
        assert labels.dtype == want_labels.dtype and np.array_equal(labels, want_labels)
        assert stats.dtype == want_stats.dtype and np.array_equal(stats, want_stats), (i, stats[:3], want_stats[:3])
        if order is not None:       # (the sort `_region_features` would make)
            rl = labels.ravel()[np.flatnonzero(mask)]
            assert np.array_equal(order, np.argsort(rl, kind="stable"))


def test_the_dark_percentile_counted_is_numpys():
    from vision.usable import _percentile_below

    rng = np.random.default_rng(11)
    for i in range(3000):
        n = int(rng.integers(1, 3000)) if i % 2 else 14400
        lo, hi = sorted(rng.integers(0, 256, 2))
        values = rng.integers(lo, hi + 1, n).astype(np.uint8)
        q = float(rng.choice([99.0, 50.0, 1.0, 100.0, 0.0, 97.5, rng.uniform(0, 100)]))
        level = float(rng.choice([45.0, rng.uniform(0, 256), float(rng.integers(0, 256))]))
        assert _percentile_below(values, q, level) == (float(np.percentile(values, q)) < level), (n, q, level)
    grey = rng.integers(0, 256, (180, 320)).astype(np.uint8)      # (the strided view the card game passes)
    for level in range(0, 257, 3):
        assert _percentile_below(grey[::2, ::2], 99, level) == (float(np.percentile(grey[::2, ::2], 99)) < level)


@pytest.mark.parametrize("seed", range(4))
def test_the_contrast_over_the_play_areas_box_is_the_whole_pictures(seed):
    """`low_contrast` reads only the play area's box (widened by the local mean's reach): the same local contrast at
    every play-area pixel as over the whole picture, so the same count and verdict, for odd and even boxes and
    play areas at the picture's edges."""
    from types import SimpleNamespace

    from vision.usable import _box, _contrast_box, _low_contrast_box, low_contrast

    def former(config, play_u8, grey):     # (the whole-picture test as it was)
        k = config.dark_contrast_box
        d = cv2.absdiff(grey, cv2.blur(grey, (k, k)))
        level = max(0, min(256, int(np.ceil(config.dark_contrast))))
        if level == 0:
            return False
        strong = cv2.bitwise_and(cv2.compare(d, level, cv2.CMP_GE), play_u8)
        total = cv2.countNonZero(play_u8)
        return total > 0 and cv2.countNonZero(strong) <= (1.0 - config.dark_contrast_pct / 100.0) * total

    rng = np.random.default_rng(seed)
    for i in range(150):
        grey = rng.integers(0, 256, (180, 320)).astype(np.uint8)
        if i % 2:
            grey = cv2.blur(grey, (3, 3))
        play = np.zeros(grey.shape, np.uint8)
        if i % 10:
            y0, x0 = int(rng.integers(-20, 180)), int(rng.integers(-20, 320))
            play[max(y0, 0):y0 + int(rng.integers(1, 200)), max(x0, 0):x0 + int(rng.integers(1, 340))] = 1
            if i % 3 == 0:
                play &= (rng.random(grey.shape) < 0.7).astype(np.uint8)
        model = SimpleNamespace(play_u8=play, play_box=_box(play), play_count=int(np.count_nonzero(play)))
        k = int(rng.integers(1, 12))
        config = dataclasses.replace(DEFAULT_CONFIG, dark_contrast_box=k, dark_contrast=float(rng.uniform(0, 40)),
                                     dark_contrast_pct=float(rng.choice([99.0, 95.0, 50.0])))
        box = _contrast_box(config, model, grey.shape)
        if box is None:
            assert not play.any()
        else:
            y0, y1, x0, x1 = box
            sel = play[y0:y1, x0:x1] > 0
            part = grey[y0:y1, x0:x1]
            whole = cv2.absdiff(grey, cv2.blur(grey, (k, k)))[y0:y1, x0:x1]
            assert np.array_equal(cv2.absdiff(part, cv2.blur(part, (k, k)))[sel], whole[sel])
            assert int(sel.sum()) == model.play_count
            small = cv2.merge([grey, grey, grey])
            grey_part = cv2.cvtColor(np.ascontiguousarray(small[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)
            assert _low_contrast_box(config, model, grey_part, box) == former(config, play, grey)
        assert low_contrast(config, model, grey) == former(config, play, grey)
        # (a model without the box and count: the whole picture, as before)
        assert low_contrast(config, SimpleNamespace(play_u8=play, play_box=None, play_count=None), grey) \
            == former(config, play, grey)


# session 30 (wt30-uspeed): each cheaper step against the computation it replaced


def _pictures(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for i in range(count):
        img = rng.integers(0, 256, (180, 320, 3), dtype=np.uint8)
        if i % 2:
            img = cv2.GaussianBlur(img, (0, 0), 2.5)     # (smooth pictures: many equal neighbours)
        yield img


def test_the_blur_per_plane_and_the_plane_rows_are_the_pictures():
    from vision.usable import _PlaneRows

    rng = np.random.default_rng(300)
    for img in _pictures(301, 6):
        planes = cv2.split(img)
        blurred = cv2.blur(img, (3, 3))
        per_plane = [cv2.blur(p, (3, 3)) for p in planes]
        for a, b in zip(cv2.split(blurred), per_plane):
            assert np.array_equal(a, b)
        idx = rng.choice(img.shape[0] * img.shape[1], 500, replace=False)
        rows = _PlaneRows(per_plane)
        for sel in (idx, slice(None, None, 7)):
            want = blurred.reshape(-1, 3)[sel]
            got = rows[sel]
            assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def test_the_table_difference_from_planes_and_the_boards_by_planes_are_lum_chroma():
    from vision.usable import _lum_chroma_of

    lut = _log_lut(DEFAULT_CONFIG.offset)
    rng = np.random.default_rng(302)
    for img in _pictures(303, 4):
        table = rng.normal(4.2, 0.5, 3).astype(np.float32)
        diff = lut[:, None] - table[None, :]
        want = _lum_chroma(_log_image(img, DEFAULT_CONFIG.offset), table)
        got = _lum_chroma_lut(None, diff, cv2.split(img))
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))
        # the board's: a lookup per channel of a crop less the art's log planes (crop planes are views)
        crop = img[20:150, 40:260]
        table3 = np.log(np.maximum(np.arange(256, dtype=np.float32)[:, None] - rng.uniform(-20, 20, 3)[None], 0)
                        / rng.uniform(0.5, 2.0, 3)[None] + DEFAULT_CONFIG.offset).astype(np.float32)
        log_art = np.log(rng.uniform(0, 255, crop.shape).astype(np.float32) + DEFAULT_CONFIG.offset).astype(np.float32)
        want = _lum_chroma(cv2.LUT(crop, np.ascontiguousarray(table3).reshape(1, 256, 3)), log_art)
        planes = [p[20:150, 40:260] for p in cv2.split(img)]
        got = _lum_chroma_of([cv2.subtract(cv2.LUT(p, np.ascontiguousarray(table3[:, c])), a)
                              for c, (p, a) in enumerate(zip(planes, cv2.split(log_art)))])
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want))


def test_opencvs_float_steps_are_numpys():
    rng = np.random.default_rng(304)
    for _ in range(20):
        lum = rng.normal(0, 0.5, (180, 320)).astype(np.float32)
        surface = rng.normal(0, 0.5, (180, 320)).astype(np.float32)
        want = np.minimum(np.abs(lum), np.abs(lum - surface))
        got = np.abs(lum)
        cv2.min(got, cv2.absdiff(lum, surface), dst=got)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        a, b = rng.normal(size=(2, 180, 320)).astype(np.float32)
        want = a - b * (b * np.float32(1.0 / 3.0))
        t = b.copy()
        cv2.multiply(t, b * np.float32(1.0 / 3.0), dst=t)
        assert np.array_equal(cv2.subtract(a, t), want)
        p, q = rng.random((2, 180, 320)) < 0.4
        assert np.array_equal(np.greater(p, q), p & ~q)


def test_the_rectangle_of_a_hull_is_the_rectangle_of_its_points():
    rng = np.random.default_rng(305)
    for i in range(3000):
        n = int(rng.integers(1, 60))
        if i % 3 == 0:      # (outline-like: integer points on a few lines, duplicates and collinear runs)
            pts = rng.integers(0, 40, (n, 2)).astype(np.float32)
            pts[: n // 2, 1] = pts[0, 1]
        else:
            pts = (rng.normal(size=(n, 2)) * rng.uniform(1, 50, 2)).astype(np.float32)
        hull = cv2.convexHull(pts)
        assert cv2.minAreaRect(hull) == cv2.minAreaRect(pts)


def test_the_shared_labels_and_counts_and_the_weights_table_change_no_feature():
    import dataclasses

    from test_usable import arm_regions
    from vision.usable import _components_sorted, _region_features

    model, px, _labels, _stats, _n = arm_regions("north", ("mug",))
    idx = np.flatnonzero(px.mask.view(bool))
    shared = {}
    n, labels, stats, order = _components_sorted(px.mask, idx, shared)
    assert np.array_equal(shared["rl"], labels.ravel()[idx])
    assert np.array_equal(shared["count"], np.bincount(labels.ravel()[idx], minlength=n))
    want = _region_features(DEFAULT_CONFIG, model, px, labels, stats, n, idx)
    plain = dataclasses.replace(model, pixel_weights=None)     # (the separate weights gathered one by one)
    for got in (_region_features(DEFAULT_CONFIG, model, px, labels, stats, n, idx, order, **shared),
                _region_features(DEFAULT_CONFIG, plain, px, labels, stats, n, idx)):
        assert got[0] and got[0] == want[0]
        assert got[1].dtype == want[1].dtype and got[1].flags.c_contiguous and np.array_equal(got[1], want[1])
        assert np.array_equal(got[2], want[2]) and np.array_equal(got[3], want[3])
    # the table's columns are the model's weights
    table = model.pixel_weights
    for c, w in enumerate((model.area_flat, model.area_in, model.root_border, model.root_flat, model.area_board,
                           model.ring_band, model.out_dist.ravel())):
        assert np.array_equal(table[:, c], w)
