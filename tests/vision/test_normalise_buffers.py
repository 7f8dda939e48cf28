"""The board view's normalisation in buffers kept per registration (vision.appearance.normalised_log,
Reader.normalised_view) gives the values of the plain computation that allocated every array afresh
(kept here as the reference), frame after frame, without allocating its large arrays again."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import appearance
from vision.appearance import DEFAULT_CONFIG, normalise_buffers, normalised_log


def reference_log_norm(config, view, art, ppm):
    """The normalisation as it was before the buffers (every array fresh), call for call."""
    h, w = view.shape[:2]
    step = max(1, int(round(4.0 * ppm)))
    sv = cv2.resize(view.astype(np.float32), (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_AREA)
    n = max(2, int(round(config.cell_mm / 4.0)))
    gh, gw = max(1, sv.shape[0] // n), max(1, sv.shape[1] // n)

    def blocks(x):
        return x[:gh * n, :gw * n].reshape(gh, n, gw, n, 3).transpose(0, 2, 1, 3, 4).reshape(gh, gw, n * n, 3)

    lo, hi = config.quantiles
    qv = appearance.block_percentiles(blocks(sv), (lo, 50, hi))
    sa = cv2.resize(art.astype(np.float32), (sv.shape[1], sv.shape[0]), interpolation=cv2.INTER_AREA)
    qa = np.percentile(blocks(sa), [lo, 50, hi], axis=2)
    spread_a = qa[2] - qa[0]
    gain = (qv[2] - qv[0]) / np.maximum(spread_a, 1.0)
    glob = np.median(((qv[1] + 1) / (qa[1] + 1)).reshape(-1, 3), axis=0)
    gain = np.where(spread_a < config.min_spread, np.nan, gain)
    g_fill = np.nanmedian(gain.reshape(-1, 3), axis=0) if np.isfinite(gain).any() else glob
    g_fill = np.where(np.isfinite(g_fill), g_fill, glob)
    gain = np.clip(np.where(np.isfinite(gain), gain, g_fill), 0.05, 10.0)
    offset = np.clip(qv[1] - gain * qa[1], -40.0, 200.0)
    g = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    o = cv2.resize(offset.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    x = cv2.subtract(view.astype(np.float32), o)
    np.maximum(x, 0.0, out=x)
    norm = cv2.divide(x, np.maximum(g, 1e-3))
    log_norm = cv2.log(norm.astype(np.float32) + np.float32(config.offset))
    if config.blur_px > 1:
        log_norm = cv2.blur(log_norm, (config.blur_px, config.blur_px))
    return log_norm, (g, o)


@pytest.fixture(scope="module")
def two_frames():
    """Two frames of one table (seed 5, as the other reader tests) and a reader registered on it."""
    from vision_helpers import render_case

    case = render_case(seed=5)
    other = render_case(seed=5, dark=True)     # the same table in another light: other gains
    reader = case.reader()
    reader.read(case.image)
    return case, other, reader


def assert_same(got, want):
    # the same operations on the same float32 values, only into other memory: bit for bit
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def test_normalised_log_in_buffers_equals_the_plain_computation(two_frames):
    case, other, reader = two_frames
    m = reader.model
    buffers = normalise_buffers((m.view.size_px[1], m.view.size_px[0], 3))
    for image in (case.image, other.image, case.image):
        view = m.view.warp(image)
        want, (g0, o0) = reference_log_norm(DEFAULT_CONFIG, view, m.art, m.view.ppm)
        got, (g, o) = normalised_log(DEFAULT_CONFIG, view, m.art, m.view.ppm, buffers)
        assert np.shares_memory(got, buffers.log_norm) and np.shares_memory(g, buffers.gain)
        assert_same(got, want)
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(o, o0)
        # the gain floor the plain computation applied is never reached
        assert g.min() >= 0.05 * (1 - 1e-6)


def test_normalise_without_buffers_still_returns_fresh_arrays(two_frames):
    case, _other, reader = two_frames
    m = reader.model
    view = m.view.warp(case.image)
    a, _ = appearance.normalise(DEFAULT_CONFIG, view, m.art, m.view.ppm)
    b, _ = appearance.normalise(DEFAULT_CONFIG, view, m.art, m.view.ppm)
    assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(a, b)


def test_the_readers_normalised_view_reuses_its_buffers_and_matches_the_reference(two_frames):
    case, other, reader = two_frames
    m = reader.model
    first, _gain = reader.normalised_view(case.image)
    first_copy = first.copy()
    second, _gain2 = reader.normalised_view(other.image)
    assert np.shares_memory(first, second)     # one set of buffers per board view, not one per frame
    want, _ = reference_log_norm(DEFAULT_CONFIG, m.view.warp(other.image), m.art, m.view.ppm)
    assert_same(second, want)
    again, _ = reader.normalised_view(case.image)
    np.testing.assert_array_equal(again, first_copy)


def test_the_warp_into_a_buffer_equals_the_fresh_warp(two_frames):
    case, _other, reader = two_frames
    v = reader.model.view
    out = np.zeros((v.size_px[1], v.size_px[0], 3), np.uint8)
    got = v.warp(case.image, out=out)
    assert got is out or np.shares_memory(got, out)
    np.testing.assert_array_equal(got, v.warp(case.image))
    wrong = np.zeros((3, 3, 3), np.uint8)       # a buffer that does not fit is not used
    np.testing.assert_array_equal(v.warp(case.image, out=wrong), v.warp(case.image))


def test_the_gain_fill_median_equals_numpys_nanmedian():
    import warnings

    rng = np.random.default_rng(1)
    for dtype in (np.float64, np.float32):
        for _ in range(100):
            x = rng.random((int(rng.integers(1, 200)), 3)).astype(dtype)
            x[rng.random(x.shape) < rng.random()] = np.nan
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)    # an all-NaN column
                want = np.nanmedian(x, axis=0)
            got = appearance._nanmedian_columns(x)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
