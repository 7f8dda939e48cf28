"""How well the pawn reader's per-stone confidence tells its right stones from its wrong ones, on `sim frames`
folders: per margin bin (StonePawns.margin, the stone's least sure decision) the stones and the share read right,
beside the share the reader states (PawnNetConfig.stone_right / stone_right_others, what it writes into
`element_confidence` for the turn decoder), and how many of the wrong stones the least sure stones hold.

    .venv/bin/python bench/pawn_confidence.py DIR [DIR ...] [--limit N] [--bins 0.05 0.1 0.2 0.3 0.5]

A stone is right when the pawns the net reads on it (colour and size, before the start-crowd rule) are the
truth's. Only usable frames of the board games that the reader also judges usable count. Numbers to set the
config from come from development folders, never from frames a figure is reported on.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

import vision.reader as reader_module  # noqa: E402
from calibration.model import parse_calibration  # noqa: E402
from engine.board import bundled_board  # noqa: E402
from vision.evaluation import list_frames  # noqa: E402
from vision.pawnnet import stone_confidence  # noqa: E402
from vision.reader import DEFAULT_READER_CONFIG, Reader  # noqa: E402
from vision.stagecli import read_image  # noqa: E402


def stones_of_frame(frame: Path, truth: dict) -> list[tuple[float, bool, bool]]:
    """(margin, read right, first row) of every path stone of one frame, or [] when it is not read."""
    found: list = []
    original = reader_module.read_stone_pawns

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        found.append(out)
        return out

    cal = parse_calibration(truth["render"]["calibration"])
    seats = {s: v["player"] for s, v in (truth.get("seats") or {}).items()}
    board = bundled_board(truth["board"])
    reader = Reader(cal, game="keltis", board=board, seats=seats)
    reader_module.read_stone_pawns = spy
    try:
        obs = reader.read(read_image(frame)).observation
    finally:
        reader_module.read_stone_pawns = original
    if not obs.usable or not found:
        return []
    true: dict[str, Counter] = {}
    for p in truth["pawns"]:
        if p["stone"] != "start":
            true.setdefault(p["stone"], Counter())[(p["player"], p["big"])] += 1
    return [(sp.margin, Counter(sp.pawns) == true.get(sp.stone, Counter()), board.stones[sp.stone].row == 1)
            for sp in found[-1]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limit", type=int, help="frames per folder")
    ap.add_argument("--bins", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.3, 0.5])
    args = ap.parse_args()
    cv2.setNumThreads(1)
    stones: list[tuple[float, bool, bool]] = []
    frames = 0
    for d in args.dirs:
        pairs = list_frames(Path(d))[:args.limit] if args.limit else list_frames(Path(d))
        for frame, truth_path in pairs:
            truth = json.loads(Path(truth_path).read_text())
            if truth.get("game") != "keltis" or not truth.get("usable"):
                continue
            got = stones_of_frame(frame, truth)
            frames += bool(got)
            stones += got
    if not stones:
        print("no usable board-game frames read")
        return 1
    cfg = DEFAULT_READER_CONFIG.pawn_net
    wrong = sum(not ok for _m, ok, _f in stones)
    print(f"{frames} frames, {len(stones)} path stones, {wrong} read wrong ({100 * wrong / len(stones):.2f} %)")
    edges = [0.0, *args.bins, float("inf")]
    for title, first in (("first-row stones (beside the start crowd)", True), ("the other path stones", False)):
        print(f"{title}\nmargin bin        stones   right    stated")
        for lo, hi in zip(edges, edges[1:]):
            b = [ok for m, ok, f in stones if lo <= m < hi and f == first]
            if b:
                stated = stone_confidence(cfg, (lo + min(hi, 1.0)) / 2, first)
                print(f"[{lo:.2f}, {hi:.2f})  {len(b):8d}  {100 * sum(b) / len(b):6.1f} %  {100 * stated:6.1f} %")
    ranked = sorted(stones, key=lambda s: s[0])
    for share in (0.02, 0.05, 0.1, 0.2):
        k = int(len(ranked) * share)
        print(f"the least sure {share:.0%} of stones hold {sum(not ok for _m, ok, _f in ranked[:k])} of the {wrong} wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
