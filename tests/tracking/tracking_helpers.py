"""Shared helpers for the tracking tests (a uniquely named module: several test folders have a conftest): short simulated games (tracking.synth), trackers on
in-memory or on-disk stores, and feeding a game's frames through a tracker.

Seeds here stay below 1000; bench/tracking_bench.py uses seeds from 9000 on.
"""
from __future__ import annotations

import functools
from pathlib import Path

from tracking.config import TrackingConfig
from tracking.noise import MisreadInjector
from tracking.store import EventStore
from tracking.synth import SimulatedGame, simulate_game, write_session
from tracking.tracker import GameTracker

REPO = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=None)
def game(kind: str, board: str | None, players: int, seed: int, max_moves: int | None = None,
         illegal_rate: float = 0.0, fps: float = 5.0) -> SimulatedGame:
    """A simulated game (cached: tests must not change it)."""
    return simulate_game(kind, board, players, seed, max_moves=max_moves, illegal_rate=illegal_rate, fps=fps)


def make_tracker(store: EventStore | None = None, **config) -> GameTracker:
    """A tracker as replays use it (ends the game when its draw-pile count runs out)."""
    cfg = TrackingConfig(**{"auto_end_on_empty_draw_pile": True, **config})
    return GameTracker(store or EventStore(":memory:"), config=cfg, observer="truth")


def feed(tracker: GameTracker, sim: SimulatedGame, *, noise: float = 0.0, seed: int = 1, start: int = 0,
         stop: int | None = None, finish: bool = True) -> list:
    """Feed frames [start, stop) of a simulated game; returns every live event."""
    injector = MisreadInjector(None, noise, seed) if noise else None
    events = []
    for i, (t, obs) in enumerate(sim.frames[start:stop], start=start):
        if injector is not None:
            obs = injector.corrupt(obs, i)
        events.extend(tracker.feed(obs, t, i))
    if finish and stop is None:
        events.extend(tracker.finish())
    return events
