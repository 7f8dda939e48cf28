"""Helpers for the simulator tests: plain light, a table at a known state, colour checks."""
from __future__ import annotations

import random

import numpy as np

from simulator.camera import sample_camera
from simulator.conditions import Conditions
from simulator.games import Game
from simulator.record import setup_table

#: Light without glare, noise, blur or colour cast: what is drawn is what the truth says.
PLAIN = Conditions(light_azimuth=150.0, light_elevation=70.0, shadow_strength=0.0, shadow_softness=3.0,
                   colour_temp=5600.0, wb_residual=0.0, exposure=1.0, gradient=0.0, vignetting=0.0, glare=None,
                   blur=0.0, noise=0.0, jpeg_quality=95)


def played(game: str = "keltis", board: str | None = "nwnz", players: int = 3, seed: int = 3,
           moves: int = 40) -> Game:
    """A seeded game after `moves` legal moves."""
    g = Game.new(game, board, players, seed)
    rng = random.Random(f"test-{seed}")
    for _ in range(moves):
        m = g.choose(rng)
        if m is None:
            break
        g.apply(m)
    return g


def table_for(g: Game, seed: int, size: tuple[int, int], *, tilt=(0.0, 25.0), distractors: bool = False,
              hfov=(60.0, 104.0)):
    """A table with a seeded camera that sees the whole play area."""
    from calibration.model import default_calibration
    from simulator.scene import TableLayout

    layout = TableLayout(default_calibration(g.board), g.board, seed, tuple(g.seats))
    cam = sample_camera(np.random.default_rng(seed), size, layout.play_area(), tilt_range=tilt, hfov_range=hfov)
    return setup_table(g, seed, size, distractors=distractors, camera=cam)


def bgr(rgb) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float64)


def nearest(colour: np.ndarray, palette: dict[str, np.ndarray]) -> str:
    """The palette entry nearest to a BGR colour, comparing chromaticity and brightness."""
    def norm(c):
        c = np.asarray(c, np.float64) + 1.0
        return np.concatenate([c / c.sum(), [c.sum() / 765.0 * 0.5]])
    return min(palette, key=lambda k: float(np.linalg.norm(norm(colour) - norm(palette[k]))))


def draw_afresh() -> None:
    """Forget the backgrounds renderers share (simulator.render._BACKGROUNDS): a test of determinism
    then draws everything again, not the same background twice."""
    from simulator import render

    render._BACKGROUNDS.clear()
