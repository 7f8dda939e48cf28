"""Widen the learned tile reader's training data (vision/tilenet.py), then train it.

    .venv/bin/python scripts/train_pawns.py render --n 300 --seed 2100 --out /tmp/T2100
    .venv/bin/python scripts/train_pawns.py features /tmp/T2100 --out /tmp/f2100.npz
    .venv/bin/python scripts/train_tiles.py augment /tmp/fA.npz /tmp/f2100.npz --copies 1 --out /tmp/aug.npz
    .venv/bin/python scripts/train_pawns.py train tiles /tmp/aug.npz --init vision/models/tiles.npz ...

Frames and tile-spot patches come from scripts/train_pawns.py (`render`, `features`: renders of the
components folder's art through the reader's own geometry; that script trains the pawn net too and
has its own owner). `augment` adds, for every tile patch, copies as a camera the simulator does not
draw would show them: shifted by up to `--shift` samples (a tile nudged off its spot, a pose a
little off), blurred (a softer lens, focus, motion, a lower-resolution frame), with per-pixel
sensor noise and a change of contrast. Each copy keeps its label. The patches are the tile reader's
own inputs (vision.tilenet.tile_features: per pixel the difference to the board's art and the
corrected colour, each in log units after the lamp's colour is divided out), so a blur or a shift is
applied to both halves alike.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def augment_patches(x, rng, shift: int = 2, blur: tuple[float, float] = (0.0, 1.2), noise: float = 0.04,
                    contrast: float = 0.15):
    """Copies of tile patches (N x rows*cols*6 features of vision.tilenet) as another camera would
    show them (see the module docstring). Returns float32 N x F."""
    import cv2
    import numpy as np

    from vision.tilenet import DEFAULT_CONFIG

    side = int(round(2 * DEFAULT_CONFIG.half_mm / DEFAULT_CONFIG.step_mm)) + 1
    n = len(x)
    img = x.astype(np.float32).reshape(n, side, side, 6)
    out = np.empty_like(img)
    for i in range(n):
        p = img[i]
        dy, dx = rng.integers(-shift, shift + 1, 2) if shift else (0, 0)
        if dy or dx:
            m = np.float32([[1, 0, dx], [0, 1, dy]])
            p = cv2.warpAffine(p, m, (side, side), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        s = rng.uniform(*blur)
        if s > 0.3:
            p = cv2.GaussianBlur(p, (0, 0), s)
        # contrast about the patch's median (the features are already relative to it)
        p = p * np.float32(1.0 + rng.uniform(-contrast, contrast))
        if noise > 0:   # one sensor's noise: the same in the difference and the colour of a channel
            grain = rng.normal(0, rng.uniform(0, noise), (side, side, 3)).astype(np.float32)
            p = p + np.concatenate([grain, grain], axis=2)
        out[i] = p
    return out.reshape(n, -1)


def augment(args: argparse.Namespace) -> int:
    import numpy as np

    rng = np.random.default_rng(args.seed)
    xs, ys = [], []
    t0 = time.perf_counter()
    for f in args.data:
        part = np.load(f)
        x, y = part["tile_x"], part["tile_y"]
        if args.keep_originals:
            xs.append(x.astype(np.float16))
            ys.append(y)
        for _c in range(args.copies):
            for b in range(0, len(x), 4096):
                xs.append(augment_patches(x[b:b + 4096], rng, args.shift, (args.blur_min, args.blur_max), args.noise,
                                          args.contrast).astype(np.float16))
                ys.append(y[b:b + 4096])
        print(f"{f}: {len(x)} tile patches  {time.perf_counter() - t0:.0f}s", flush=True)
    x, y = np.concatenate(xs), np.concatenate(ys)
    np.savez(args.out, tile_x=x, tile_y=y)
    print(f"{len(x)} tile patches -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("augment", help="add shifted, blurred, noisy copies of tile patches")
    a.add_argument("data", nargs="+", help="feature files written by scripts/train_pawns.py features")
    a.add_argument("--out", required=True)
    a.add_argument("--copies", type=int, default=1)
    a.add_argument("--keep-originals", action=argparse.BooleanOptionalAction, default=True)
    a.add_argument("--shift", type=int, default=2, help="largest shift in samples (mm)")
    a.add_argument("--blur-min", type=float, default=0.0)
    a.add_argument("--blur-max", type=float, default=1.2, help="largest Gaussian blur (samples)")
    a.add_argument("--noise", type=float, default=0.04, help="largest per-pixel noise (log units)")
    a.add_argument("--contrast", type=float, default=0.15)
    a.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    return {"augment": augment}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
