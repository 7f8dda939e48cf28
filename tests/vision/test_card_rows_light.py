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



def test_pixel_noise_is_the_plain_median_when_most_pixels_are_clean():
    """The zeros counted rather than partitioned give the very median np.median's selection gives."""
    rng = np.random.default_rng(5)
    for clean in (0.0, 0.3, 0.5, 0.7, 0.95, 1.0):
        w = rng.normal(0.5, 0.05, (90, 131)).astype(np.float32)
        w[rng.random(w.shape) < clean] = 0.5      # flat areas: the 3-px median equals the pixel
        r = np.ascontiguousarray(cv2.absdiff(w, cv2.medianBlur(w, 3))[::2, ::2]).ravel()
        plain = 1.4826 * float(np.partition(r, r.size // 2)[r.size // 2])
        assert pixel_noise(w) == plain, clean

def test_rows_of_a_still_in_dim_warm_light():
    """A full-resolution still (4608x2592) in the simulator's dimmest, warmest, noisiest light: every row
    reads exactly (before the smoothing: the green row's strips were speckled apart and it was missed)."""
    truth, got = read_cards(rows=ROWS, conditions=DIM_WARM, size=(4608, 2592))
    assert {c: list(v) for c, v in got.seats[SEAT].rows.items()} == \
        {c: list(v) for c, v in truth.seats[SEAT].rows.items()}


def _card_under_a_veil(veil: float) -> tuple[np.ndarray, np.ndarray, float]:
    """A seat view's patch (1.25 px/mm, as the rows are looked for) in dim warm light: a dark table, one
    card (a red field inside the stock's 2.2 mm border) and a glare's veil of the lamp's colour centred
    on it, `veil` times the stock's brightness at its peak. (view, the unveiled stock's BGR, ppm)."""
    ppm = 1.25
    stock = np.array([90.0, 105.0, 115.0])
    red = np.array([27.0, 32.0, 86.0])
    table = np.array([40.0, 50.0, 63.0])
    img = np.tile(table, (200, 200, 1))
    x0, y0 = 65, 45
    cw, ch, b = int(56 * ppm), int(87 * ppm), int(round(2.2 * ppm))
    img[y0:y0 + ch, x0:x0 + cw] = stock
    img[y0 + b:y0 + ch - b, x0 + b:x0 + cw - b] = red
    yy, xx = np.mgrid[0:200, 0:200]
    d2 = ((xx - (x0 + cw / 2)) ** 2 + (yy - (y0 + ch / 2)) ** 2) / (90.0 * ppm) ** 2
    img += veil * np.exp(-d2)[..., None] * stock[None, None, :]
    return np.clip(img, 0, 255).astype(np.uint8), stock.astype(np.float32), ppm


def test_a_field_under_a_glare_is_outlined():
    """A glare's veil lifts a field above the stock's unveiled whiteness: "simply white" (border_white, for
    a table as pale as the stock) is judged against the whitest stock nearby (local_white), so the washed
    field stays a field; judged against the seat's stock alone it turned all border and the card was lost."""
    from vision.cards import field_piece_mm, outlined_fields

    config = CardConfig()
    for veil in (0.0, 0.6, 1.2):
        view, stock, ppm = _card_under_a_veil(veil)
        _comp, stats, _sep = outlined_fields(config, view, stock, ppm)
        # the card's field: ~52 x 83 mm, one piece
        assert 70.0 < field_piece_mm(config, stats, ppm) < 90.0, veil
    view, stock, ppm = _card_under_a_veil(1.2)
    _comp, stats, _sep = outlined_fields(replace(config, white_local_mm=0.0), view, stock, ppm)
    assert field_piece_mm(replace(config, white_local_mm=0.0), stats, ppm) == 0.0
