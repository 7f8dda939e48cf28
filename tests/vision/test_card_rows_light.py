"""Card rows in dim warm light (vision.cards): a camera's high gain in dim light makes noise, most of it
in a warm lamp's weak blue channel, which the whiteness (the smallest channel over the stock's) takes
in full; the border finder's top-hat then speckles the fields with "borders" and a row's pieces fall
apart. Where the noise is high the whiteness is smoothed first (border_noise_share, border_smooth_px)."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_helpers import SEAT, read_cards  # noqa: E402
from vision_helpers import PINNED  # noqa: E402

from vision.cards import CardConfig, pixel_noise  # noqa: E402

ROWS = {"red": ["2", "6", "9"], "yellow": ["1", "4", "7", "10"], "green": ["0", "3", "8"],
        "blue": ["5", "5", "6", "9"], "pink": ["3", "10"]}
#: the simulator's dimmest, warmest, noisiest light (its "hard" range's corner), no glare
DIM_WARM = replace(PINNED[(5, True)].conditions, glare=None, exposure=0.38, noise=3.5, colour_temp=2700.0,
                   wb_residual=0.9)


def test_pixel_noise_measures_the_noise_not_the_picture():
    rng = np.random.default_rng(3)
    # a smooth picture with edges (cards on a table, shading), upsampled: next to no pixel noise
    base = np.full((200, 300), 0.4, np.float32)
    base[40:160, 50:120] = 0.9
    base[60:140, 60:110] = 0.3
    base += np.linspace(0, 0.2, 300, dtype=np.float32)[None, :]
    smooth = cv2.resize(cv2.GaussianBlur(base, (0, 0), 1.0)[::2, ::2], (300, 200), interpolation=cv2.INTER_LINEAR)
    assert pixel_noise(smooth) < 0.005
    for sigma in (0.01, 0.03, 0.06):
        noisy = base + rng.normal(0, sigma, base.shape).astype(np.float32)
        assert 0.7 * sigma < pixel_noise(noisy) < 1.3 * sigma, sigma
    # the gate lies above most seats in an ordinary room's light (dev seats: mostly below 0.015, a few
    # stills up to 0.025) and below the noisiest dim warm seats (up to ~0.03)
    c = CardConfig()
    assert 0.015 < c.border_noise_share * c.border_tophat < 0.03


def test_rows_of_a_still_in_dim_warm_light():
    """A full-resolution still (4608x2592) in the simulator's dimmest, warmest, noisiest light: every row
    reads exactly (before the smoothing: the green row's strips were speckled apart and it was missed)."""
    truth, got = read_cards(rows=ROWS, conditions=DIM_WARM, size=(4608, 2592))
    assert {c: list(v) for c, v in got.seats[SEAT].rows.items()} == \
        {c: list(v) for c, v in truth.seats[SEAT].rows.items()}
