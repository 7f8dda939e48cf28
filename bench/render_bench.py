"""Simulator rendering speed on one core, in milliseconds per frame.

    .venv/bin/python bench/render_bench.py [--rounds 5]

OpenCV is limited to one thread (cv2.setNumThreads(1)); numpy's BLAS/OpenMP pools to one thread.
Each figure is the best of `rounds` of this process's CPU time (the machine is shared, so CPU
time, not wall time), at the Pi camera's 2304x1296 and at the fixtures' 960x540:

- "still frame": the table state is unchanged since the last frame (most frames of a session):
  lens distortion, light, blur, noise and JPEG, plus a hand when there is one;
- "new state": the first frame after a move: every piece warped on again, shadows, 3-D pawns;
- "new table": a frame of `sim frames`: a new camera, table top, lens maps and state (component
  art and the sensor-noise tile are made once per process and are warm).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from simulator.conditions import sample_conditions  # noqa: E402
from simulator.games import Game, play_to  # noqa: E402
from simulator.hands import SKIN_RGB, SLEEVE_RGB, reach_pose  # noqa: E402
from simulator.record import setup_table  # noqa: E402
from simulator.render import SPRITES, Scene  # noqa: E402

import random  # noqa: E402


def _best(fn, rounds: int) -> tuple[float, float]:
    """(best CPU ms, best wall ms) over `rounds` calls."""
    cpu = wall = float("inf")
    for _ in range(rounds):
        t0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - t0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu * 1000.0, wall * 1000.0


def bench(size: tuple[int, int], rounds: int) -> dict[str, tuple[float, float]]:
    game = play_to(Game.new("keltis", "nwnz", 4, seed=3), 120, random.Random("bench"))
    table = setup_table(game, 3, size)
    obs, hints = game.observe(), game.hints()
    scene = table.layout.scene(obs, hints, table.distractors)
    for f in scene.flats:
        SPRITES.get(f.sprite)
    cond = sample_conditions(np.random.default_rng(1))
    rng = np.random.default_rng(2)
    table.renderer.frame(scene, cond, rng)  # warm: background, lens maps, noise field
    fr = table.layout.frames["south"]
    s = game.board.stones["e4"]
    hand = reach_pose(fr.point(fr.width / 2, fr.depth), tuple(fr.v), (s.x, s.y), rng=np.random.default_rng(0),
                      skin=SKIN_RGB[1], sleeve=SLEEVE_RGB[0])
    out = {}
    out["still frame"] = _best(lambda: table.renderer.frame(scene, cond, rng), rounds)
    out["still frame + hand"] = _best(lambda: table.renderer.frame(scene, cond, rng, hands=[hand]), rounds)
    counter = iter(range(10_000))

    def new_state():
        fresh = Scene(scene.flats, scene.turned, key=f"bench-{next(counter)}")
        table.renderer.frame(fresh, cond, rng)

    out["new state"] = _best(new_state, rounds)
    seeds = iter(range(100, 10_000))

    def new_table():
        t = setup_table(game, next(seeds), size)
        sc = t.layout.scene(obs, hints, t.distractors)
        t.renderer.frame(sc, t.conditions, rng)

    out["new table"] = _best(new_table, rounds)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"simulator render, one core (cv2 threads {cv2.getNumThreads()}), best of {args.rounds}: "
          f"CPU ms per frame (wall ms)")
    for size in ((2304, 1296), (960, 540)):
        res = bench(size, args.rounds)
        print(f"  {size[0]}x{size[1]}: " + ", ".join(f"{k} {c:.0f} ({w:.0f})" for k, (c, w) in res.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
