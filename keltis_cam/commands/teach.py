"""`keltis-cam teach DIR`: train the card numeral classifier for a components folder.

    keltis-cam teach DIR [--per-face N] [--epochs N] [--seed N] [--out FILE]

Reads the folder's card images (`keltis-cam sim components DIR` writes such a folder; a group may
photograph or scan its own cards into one), makes each face's corners as bad as a camera would
(vision.numerals.training_set) and trains the small perceptron the card reader uses; writes
DIR/numerals.npz (or --out) and prints its accuracy on a fresh set of degraded corners. The
readers then use it whenever they are given `--components DIR`. (A folder without it is taught the
same way on first use and the weights kept in the user's cache: vision.numerals.numeral_model_for.)
"""
from __future__ import annotations

import argparse
import sys
import time


def register(sub: argparse._SubParsersAction, games=None) -> None:
    from vision.numerals import TeachConfig

    d = TeachConfig()
    p = sub.add_parser("teach", help="train the card numeral classifier for a components folder")
    p.add_argument("dir", help="components folder (with card-<colour>-<value> images and components.json)")
    p.add_argument("--per-face", type=int, default=d.per_face, help=f"degraded corners per card face (default {d.per_face})")
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--out", help="weights file (default DIR/numerals.npz)")
    p.set_defaults(func=cmd_teach)


def cmd_teach(args: argparse.Namespace) -> int:
    from pathlib import Path

    from engine.errors import MalformedInput
    from vision.components import load_components
    from vision.numerals import WEIGHTS_FILE, TeachConfig, teach

    comps = load_components(args.dir)
    if not comps.has_cards:
        raise MalformedInput("no card images in this components folder (card-back, card-<colour>-<value>, ...)",
                             source=str(args.dir))
    t0 = time.perf_counter()
    model, fresh = teach(comps, TeachConfig(per_face=args.per_face, epochs=args.epochs, seed=args.seed),
                         log_line=lambda m: (sys.stdout.write(m + "\n"), sys.stdout.flush()))
    out = Path(args.out) if args.out else Path(args.dir) / WEIGHTS_FILE
    model.save(out)
    print(f"accuracy on fresh corners {fresh:.4f}")
    print(f"wrote {out} ({out.stat().st_size} bytes) in {time.perf_counter() - t0:.0f} s")
    return 0
