"""Wish tokens in a dim, noisy frame are still counted (vision/wishstones.py: `WishStoneConfig.verify_noise`: a seat
view noisier than that is smoothed for the correlation with the smooth ring templates; the colour is read unsmoothed).

Dev frame 155 of `keltis-cam sim frames --n 500 --seed 83570 --size 4608x2592` (session 27's 500 frames, dev from
session 28): a base-board game in dim warm light (exposure 0.42, sensor noise 3.5) on a dark plain table. South and
north each hold two wish tiles lying side by side, each a candidate of its own, but in the noise they correlated only
0.59-0.64 with the templates, under `min_score` 0.65, so main read none (eval filed them as "two touching counted as
one"); smoothed they pass."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from vision_helpers import sim_still

from engine.board import bundled_board
from vision.reader import Reader
from vision.wishstones import view_noise


def _wish(still, truth, **changes) -> dict[str, dict[str, int]]:
    reader = Reader(still.calibration, game="keltis", board=bundled_board(truth["board"]), seats=still.seats,
                    components=still.components)
    if changes:
        reader.config = replace(reader.config, wish=replace(reader.config.wish, **changes))
    seats = reader.read(still.image).observation.seats
    return {s: dict(seats[s].wish) for s in ("south", "north")}


def test_touching_wish_tiles_in_dim_noisy_light_are_counted():
    still, truth = sim_still(83570, 155)
    want = {s: truth["seats"][s]["wish"] for s in ("south", "north")}
    assert want == {"south": {"any": 2}, "north": {"any": 2}}
    assert _wish(still, truth) == want
    # never smoothed (main): none of the four is found
    assert _wish(still, truth, verify_noise=None) == {"south": {}, "north": {}}


def test_view_noise_reads_the_pixel_noise_over_the_stock():
    rng = np.random.default_rng(3)
    # a plain patch at half the stock's white with a few hard edges, noise 0.03 of the stock's white
    img = np.full((200, 300, 3), 100.0)
    img[50:120, 80:160] = 160.0
    ref = np.array([200.0, 200.0, 200.0])
    noisy = np.clip(img + rng.normal(0, 0.03 * 200, img.shape[:2])[..., None], 0, 255).astype(np.uint8)
    assert abs(view_noise(noisy, ref) - 0.03) < 0.004
    # without noise: nothing (the edges are too few to count)
    assert view_noise(img.astype(np.uint8), ref) < 0.002


def test_view_noise_median_is_numpys_bit_for_bit():
    # `view_noise` reads its median by a histogram of the floats' bits (speed): the same value as np.median,
    # odd and even sizes, ties, zeros, a spread over many binades
    import cv2

    from vision.wishstones import _median_nonneg

    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 4, 7, 1000, 1001, 75440):
        for x in (np.abs(rng.normal(0, 0.02, n)), rng.integers(0, 4, n) / 9.0, np.exp(rng.uniform(-60, 20, n)),
                  np.zeros(n)):
            x = x.astype(np.float32)
            assert _median_nonneg(x) == float(np.median(x)), n
    for bad in (np.array([1.0, -1.0], np.float32), np.array([np.nan, 1.0], np.float32), np.zeros(0, np.float32)):
        try:
            _median_nonneg(bad)
        except ValueError:
            continue
        raise AssertionError(f"accepted {bad}")
    # and the whole estimate: as it was written first (np.median over the full residual, cut after)
    for seed in range(4):
        r2 = np.random.default_rng(seed)
        view = np.clip(r2.normal(120, 3 + 3 * seed, (101, 157, 3)), 0, 255).astype(np.uint8)
        ref = np.array([210.0, 200.0, 190.0])
        g = cv2.transform(view.astype(np.float32), (np.ones((1, 3)) / (3.0 * float(np.mean(ref)))).astype(np.float32))
        first = float(np.median(np.abs(g - cv2.blur(g, (3, 3)))[::2, ::2])) * 1.4826 / float(np.sqrt(8.0 / 9.0))
        assert view_noise(view, ref) == first
