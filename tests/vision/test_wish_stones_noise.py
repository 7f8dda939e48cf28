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
