"""Discard tops of a `sim frames` folder: every error (vision.evaluation.explain_discards) frame by frame,
by kind, and the stage's CPU time. Only registration and the discard stage run: much faster than
`keltis-cam eval`, for finding what to fix first.

    .venv/bin/python bench/discard_errors.py DIR [--limit N] [--components DIR] [--frames a,b] [--set F=V]
                                             [--card-set F=V]

`--set` overrides a DiscardConfig field, `--card-set` a CardConfig field (the numerals' corners are read by the card
reader's `read_corners`: e.g. `--card-set corner_joint_refine_px=None`, `--card-set end_symbol_placed=False`).
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from calibration.model import parse_calibration  # noqa: E402
from vision.cardart import card_art  # noqa: E402
from vision.cards import paper_points, paper_white  # noqa: E402
from vision.discards import build_table_view, discard_tops, read_discards  # noqa: E402
from vision.evaluation import explain_discards  # noqa: E402
from vision.reader import DEFAULT_READER_CONFIG, Reader  # noqa: E402
from vision.stagecli import read_image  # noqa: E402
from card_errors import stage_inputs, stage_parser  # noqa: E402


def discard_stage_frames(args, config):
    """Each usable frame of `args.dir` with discard tops in its truth and its registration found:
    (frame, truth, game, card_game, read), `read()` running the discard stage alone on it."""
    comps, model, config, pairs = stage_inputs(args, config)
    card_config = DEFAULT_READER_CONFIG.cards
    for item in getattr(args, "card_set", None) or []:
        name, _, value = item.partition("=")
        card_config = dataclasses.replace(card_config, **{name: ast.literal_eval(value)})
    for frame, tpath in pairs:
        truth = json.loads(tpath.read_text(encoding="utf-8"))
        if not truth.get("usable") or "discard_tops" not in truth:
            continue
        image = read_image(frame)
        render = truth.get("render") or {}
        cal_json = render.get("calibration") or json.loads((Path(args.dir) / "calibration.json").read_text(encoding="utf-8"))
        cal = parse_calibration(cal_json, str(frame))
        table = truth if truth.get("seats") else (truth.get("table") or {})
        seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
        game = truth.get("game", "keltis")
        reader = Reader(cal, game=game, seats=seats or None, components=comps)
        reg = reader._registration_of(image)
        if not reg.ok:
            print(f"{frame.stem}: not registered")
            continue
        card_game = game != "keltis"
        board = tuple(reader.board.size_mm) if reader.board is not None and not card_game else None
        tv = build_table_view(config, cal, reg, board, tuple(seats) or None)
        quiet = float((comps.catalogue.get("marker") or {}).get("quiet_zone", 0.25))
        white = paper_white(image, paper_points(cal, reg, quiet))
        art = card_art(comps, config.card_ppm, 1.2)
        cream = white * art.cream / 255.0 if white is not None else art.cream

        def read(image=image, tv=tv, reg=reg, art=art, cream=cream, card_game=card_game):
            return read_discards(config, card_config, image, tv, reg, art, cream, model, card_game)
        yield frame, truth, game, card_game, read


def main() -> int:
    ap = stage_parser(__doc__, "DiscardConfig")
    ap.add_argument("--card-set", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a CardConfig field (a Python literal)")
    args = ap.parse_args()
    kinds: Counter = Counter()
    n_piles = 0
    ms: list[float] = []
    for frame, truth, game, card_game, read in discard_stage_frames(args, DEFAULT_READER_CONFIG.discards):
        t0 = time.process_time()
        finds = read()
        ms.append((time.process_time() - t0) * 1000)
        read = {"discard_tops": discard_tops(finds, card_game)}
        errs = explain_discards(truth, read)
        n_piles += len(truth.get("discard_tops") or {})
        for kind, d in errs:
            kinds[kind] += 1
            print(f"{frame.stem} {game}: {kind}: {d}   conf={[(f.pile, f.code, round(f.confidence, 2)) for f in finds]}")
        sys.stdout.flush()
    total = sum(kinds.values())
    print(f"discards {100.0 * total / max(1, n_piles):.2f}% ({total}/{n_piles}): "
          + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    if ms:
        print(f"read_discards CPU ms: median {statistics.median(ms):.1f}, p95 {np.percentile(ms, 95):.1f}, n={len(ms)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
