"""A hand's motion blur (simulator.hands): a hand passing close under a low camera moves thousands of
pixels in one exposure. Its smear once took a (2n+1)² kernel — 1.3 GB and a filter that never ended for a
4608-wide still (a `replay --observer vision` of a card game with stills grew to 12 GB) — and is now drawn
on the hand's layer scaled down; a short smear is drawn as before."""
from __future__ import annotations

import tracemalloc

import cv2
import numpy as np

from simulator.hands import MAX_BLUR_PX, _motion_blur


def _hand_layer(w=600, h=400):
    layer = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    cv2.circle(layer, (w // 2, h // 2), 60, (160, 190, 230), -1)
    cv2.circle(alpha, (w // 2, h // 2), 60, 255, -1)
    return layer, alpha


def test_a_hand_close_under_the_camera_is_smeared_without_a_giant_kernel():
    layer, alpha = _hand_layer()
    tracemalloc.start()
    try:
        col, a = _motion_blur(layer, alpha, (9000.0, 300.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6                       # the full-size kernel alone was 1.3 GB
    assert col.shape == layer.shape and a.shape == alpha.shape
    # smeared across the layer: no pixel keeps the whole hand, and the ghost reaches far beyond the disc
    assert 0 < int(a.max()) < 128
    row = a[alpha.shape[0] // 2]
    assert np.count_nonzero(row) > 3 * 120


def test_a_short_smear_is_drawn_at_full_size():
    layer, alpha = _hand_layer()
    col, a = _motion_blur(layer, alpha, (20.0, 0.0))
    row = a[alpha.shape[0] // 2].astype(int)
    # the disc's 121 px across, its two edges each spread over the smear's 20 px: 40 px partly covered
    assert int(a.max()) >= 250
    assert np.count_nonzero(alpha[alpha.shape[0] // 2]) == 121
    assert np.count_nonzero((row > 0) & (row < 250)) == 40
    assert np.count_nonzero(row) == 121 + 20
    assert 20 < MAX_BLUR_PX                  # so this smear took the full-size kernel
