"""vision.cards._log_over: a byte plane's log over a float32 by a 256-entry table is numpy's per-pixel logarithm
bit for bit (session 32, wt32-cspeed: seat_creams and local_white)."""
import numpy as np

from vision.cards import _log_over


def test_log_over_same_as_numpy():
    rng = np.random.default_rng(5)
    for trial in range(40):
        h, w = int(rng.integers(1, 200)), int(rng.integers(1, 300))
        view = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        sub = view[::2, ::2] if trial % 2 else view
        d = np.float32(rng.uniform(0.5, 300.0))
        for i in range(3):
            want = np.log(np.maximum(sub[..., i].astype(np.float32), 1.0) / d)
            got = _log_over(sub[..., i], d)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_log_over_other_inputs_fall_back():
    plane = np.array([[0.0, 2.5], [255.0, 7.0]], np.float32)
    want = np.log(np.maximum(plane, 1.0) / np.float32(3.0))
    assert np.array_equal(_log_over(plane, np.float32(3.0)), want)
