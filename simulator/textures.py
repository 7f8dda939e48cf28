"""Procedural textures: fractal noise, wood, cloth, granite, paper grain (numpy + OpenCV, no assets).

Every function takes a numpy Generator so that the same seed draws the same texture. Images are
BGR uint8 (OpenCV's order); colours are given as RGB tuples and converted by `bgr()`.
"""
from __future__ import annotations

import cv2
import numpy as np


def bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """An (r, g, b) colour as OpenCV's (b, g, r)."""
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def fractal_noise(rng: np.random.Generator, h: int, w: int, *, scale: float = 64.0, octaves: int = 4,
                  persistence: float = 0.5, periodic: bool = False) -> np.ndarray:
    """Smooth fractal value noise in [-1, 1] (float32, h×w); `scale` is the coarsest feature in px.

    periodic=True makes the result tile seamlessly (for textures warped with BORDER_WRAP): it is
    white noise filtered in the Fourier domain, which is periodic by construction.
    """
    if periodic:
        white = rng.standard_normal((h, w)).astype(np.float32)
        fy = np.fft.fftfreq(h)[:, None]
        fx = np.fft.rfftfreq(w)[None, :]
        f = np.sqrt(fx * fx + fy * fy)
        f0 = 1.0 / float(scale)
        # Flat below the coarsest scale, then falling like persistence per octave (1/f^beta).
        beta = -np.log2(persistence)
        amp = np.where(f < f0, 1.0, (np.maximum(f, 1e-9) / f0) ** (-beta - 1.0))
        amp[f > f0 * 2 ** octaves] = 0.0
        out = np.fft.irfft2(np.fft.rfft2(white) * amp, s=(h, w)).astype(np.float32)
    else:
        out = np.zeros((h, w), np.float32)
        amp_o = 1.0
        s = float(scale)
        for _ in range(octaves):
            gh, gw = max(2, int(round(h / s))), max(2, int(round(w / s)))
            grid = rng.standard_normal((gh, gw)).astype(np.float32)
            out += amp_o * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
            amp_o *= persistence
            s /= 2.0
            if s < 1.5:
                break
    out -= out.mean()
    return np.clip(out / (3.0 * out.std() + 1e-6), -1, 1)


def tint(noise: np.ndarray, rgb: tuple[int, int, int], amount: float) -> np.ndarray:
    """A BGR image of colour `rgb` modulated by `noise` (±amount relative brightness)."""
    base = np.array(bgr(rgb), np.float32)
    img = base[None, None, :] * (1.0 + amount * noise[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int], *, plank_px: int = 0) -> np.ndarray:
    """Tileable wood grain running along x; optional plank seams every `plank_px` rows."""
    # Fibres: white noise stretched 24:1 along x. Rings: a sawtooth across y bent by slow noise,
    # so late-wood lines are thin and dark. Blotches: broad colour variation of the boards.
    fibre = fractal_noise(rng, h, max(8, w // 24), scale=3, octaves=2, periodic=True)
    fibre = cv2.resize(fibre, (w, h), interpolation=cv2.INTER_LINEAR)
    bend = fractal_noise(rng, h, max(8, w // 3), scale=max(h, w) / 6, octaves=3, periodic=True)
    bend = cv2.resize(bend, (w, h), interpolation=cv2.INTER_CUBIC)
    n_rings = int(rng.integers(10, 22))
    yy = np.arange(h, dtype=np.float32)[:, None] / h * n_rings
    phase = (yy + 1.2 * bend) % 1.0
    rings = -np.exp(-((phase - 0.5) ** 2) / 0.004) + 0.3 * phase
    blotch = fractal_noise(rng, h, w, scale=max(h, w) / 5, octaves=4, periodic=True)
    g = 0.35 * fibre + 0.35 * rings + 0.35 * blotch
    img = tint(g, rgb, 0.28)
    if plank_px:
        dark = bgr(tuple(int(c * 0.5) for c in rgb))
        for y in range(0, h, plank_px):
            cv2.line(img, (0, y), (w, y), dark, 2)
    return img


def cloth(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int]) -> np.ndarray:
    """Tileable woven tablecloth: a fine weave plus soft folds and blotches."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = 3.0
    weave = 0.5 * np.sin(2 * np.pi * xx / period) * np.sin(2 * np.pi * yy / period)
    fibre = fractal_noise(rng, h, w, scale=4, octaves=2, periodic=True)
    folds = fractal_noise(rng, h, w, scale=max(h, w) / 2, octaves=3, periodic=True)
    g = 0.25 * weave + 0.35 * fibre + 0.4 * folds
    return tint(g, rgb, 0.16)


def plain(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int]) -> np.ndarray:
    """Tileable plain-coloured table top (laminate, paint): nearly uniform, a faint sheen and grain."""
    broad = fractal_noise(rng, h, w, scale=max(h, w) / 3, octaves=3, periodic=True)
    fine = fractal_noise(rng, h, w, scale=6, octaves=2, periodic=True)
    return tint(0.7 * broad + 0.3 * fine, rgb, 0.05)


def granite(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int]) -> np.ndarray:
    """Speckled stone texture for the board's stones."""
    speck = rng.standard_normal((h, w)).astype(np.float32)
    speck = cv2.GaussianBlur(speck, (0, 0), 0.8)
    mott = fractal_noise(rng, h, w, scale=max(h, w) / 3, octaves=4)
    g = 0.35 * np.clip(speck, -2.5, 2.5) / 2.5 + 0.65 * mott
    return tint(g, rgb, 0.18)


def paper(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int], amount: float = 0.05) -> np.ndarray:
    """Printed paper or card stock: faint fibre grain."""
    g = fractal_noise(rng, h, w, scale=max(8, min(h, w) // 6), octaves=5)
    return tint(g, rgb, amount)


def mottled(rng: np.random.Generator, h: int, w: int, rgb: tuple[int, int, int], amount: float = 0.2,
            scale: float = 60) -> np.ndarray:
    """Painted, mottled background (the board's green, card fields)."""
    return tint(fractal_noise(rng, h, w, scale=scale, octaves=5), rgb, amount)
