"""The usable stage's cheaper computations (vision/usable.py, session 15) give what the plain numpy ones
gave: numpy's percentiles without its per-call overhead, the table difference by lookup tables, the
brightness fall-off evaluated by rows and columns, the region sums over the not-table pixels only."""
from __future__ import annotations

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
