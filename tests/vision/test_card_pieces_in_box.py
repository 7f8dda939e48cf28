"""vision.cards._pieces_in_box: OpenCV's labelling within the mask's box (corner at even coordinates) gives the
whole map's labels and the pieces' statistics exactly (session 32, wt32-cspeed)."""
import cv2
import numpy as np
import pytest

from vision.cards import _pieces_in_box


@pytest.mark.parametrize("connectivity", [4, 8])
def test_pieces_in_box_same_as_whole_map(connectivity):
    rng = np.random.default_rng(3)
    for trial in range(60):
        h, w = int(rng.integers(5, 90)), int(rng.integers(5, 90))
        mask = np.zeros((h, w), np.uint8)
        # blobs and speckle somewhere inside, the box's corner at odd and even coordinates alike
        y0, x0 = int(rng.integers(0, h - 2)), int(rng.integers(0, w - 2))
        y1, x1 = int(rng.integers(y0 + 1, h + 1)), int(rng.integers(x0 + 1, w + 1))
        density = (0.1, 0.4, 0.6, 0.9)[trial % 4]
        mask[y0:y1, x0:x1] = (rng.random((y1 - y0, x1 - x0)) < density) * np.uint8(1)
        if trial % 7 == 0:
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, comp, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
        n2, comp2, stats2 = _pieces_in_box(mask, connectivity)
        assert n2 == n
        assert comp2.dtype == comp.dtype and np.array_equal(comp2, comp)
        assert stats2.dtype == stats.dtype and np.array_equal(stats2[1:], stats[1:])


def test_pieces_in_box_empty_mask():
    mask = np.zeros((7, 9), np.uint8)
    n, comp, stats = _pieces_in_box(mask, 8)
    assert n == 1 and comp.shape == (7, 9) and not comp.any() and stats.shape == (1, 5)
