"""How well the reader's per-element confidence tells its right elements from its wrong ones, on `sim frames`
folders: for pawn stones (StonePawns.margin, the stone's least sure decision) and tile spots (the tile net's
margin to the runner-up), per margin bin the elements and the share read right, beside the share the reader
states in `element_confidence` for the turn decoder (PawnNetConfig.stone_right / first_row_right,
TileNetConfig.spot_right), and how many of the wrong ones the least sure hold.

    .venv/bin/python bench/element_confidence.py DIR [DIR ...] [--limit N]

A stone is right when the pawns the net reads on it (colour and size, before the start-crowd rule) are the
truth's; a spot when its tile (or emptiness) is. Only usable frames of the board games that the reader also
judges usable count. Numbers to set the config from come from development folders, never from frames a figure
is reported on.
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
from vision.tilenet import spot_confidence  # noqa: E402

#: (margin, read right, where) of one element; where: "first row" / "path" (stones), "under a pawn" / "open" (spots)
Element = tuple[float, bool, str]


def elements_of_frame(frame: Path, truth: dict) -> tuple[list[Element], list[Element]]:
    """(pawn stones, tile spots) of one frame, or two empty lists when it is not read."""
    found: dict[str, list] = {"pawns": [], "tiles": []}
    originals = reader_module.read_stone_pawns, reader_module.read_spot_tiles

    def spy(kind, fn):
        def wrapped(*args, **kwargs):
            out = fn(*args, **kwargs)
            found[kind].append(out)
            return out
        return wrapped

    cal = parse_calibration(truth["render"]["calibration"])
    seats = {s: v["player"] for s, v in (truth.get("seats") or {}).items()}
    board = bundled_board(truth["board"])
    reader = Reader(cal, game="keltis", board=board, seats=seats)
    reader_module.read_stone_pawns = spy("pawns", originals[0])
    reader_module.read_spot_tiles = spy("tiles", originals[1])
    try:
        obs = reader.read(read_image(frame)).observation
    finally:
        reader_module.read_stone_pawns, reader_module.read_spot_tiles = originals
    if not obs.usable:
        return [], []
    true: dict[str, Counter] = {}
    for p in truth["pawns"]:
        if p["stone"] != "start":
            true.setdefault(p["stone"], Counter())[(p["player"], p["big"])] += 1
    stones = [(sp.margin, Counter(sp.pawns) == true.get(sp.stone, Counter()),
               "first row" if board.stones[sp.stone].row == 1 else "path")
              for sp in (found["pawns"][-1] if found["pawns"] else [])]
    spots = []
    if found["tiles"]:
        codes, margins = found["tiles"][-1]
        for sid, margin in margins.items():
            spots.append((margin, codes.get(sid) == (truth.get("tiles") or {}).get(sid),
                          "under a pawn" if sid in true else "open"))
    return stones, spots


def table(title: str, elements: list[Element], edges: list[float], stated) -> None:
    wrong = sum(not ok for _m, ok, _w in elements)
    print(f"{title}: {len(elements)}, {wrong} read wrong")
    for where in sorted({w for _m, _ok, w in elements}):
        print(f"  {where}\n  margin bin        count   right    stated")
        for lo, hi in zip(edges, edges[1:]):
            b = [ok for m, ok, w in elements if lo <= m < hi and w == where]
            if b:
                share = stated((lo + min(hi, 1.0)) / 2, where)
                print(f"  [{lo:5.2f}, {hi:4.2f})  {len(b):8d}  {100 * sum(b) / len(b):6.1f} %  {100 * share:6.1f} %")
    ranked = sorted(elements, key=lambda e: e[0])
    for share in (0.02, 0.05, 0.1, 0.2):
        k = int(len(ranked) * share)
        print(f"  the least sure {share:.0%} hold {sum(not ok for _m, ok, _w in ranked[:k])} of the {wrong} wrong")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--limit", type=int, help="frames per folder")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    stones: list[Element] = []
    spots: list[Element] = []
    frames = 0
    for d in args.dirs:
        pairs = list_frames(Path(d))[:args.limit] if args.limit else list_frames(Path(d))
        for frame, truth_path in pairs:
            truth = json.loads(Path(truth_path).read_text())
            if truth.get("game") != "keltis" or not truth.get("usable"):
                continue
            got_stones, got_spots = elements_of_frame(frame, truth)
            frames += bool(got_stones or got_spots)
            stones += got_stones
            spots += got_spots
    if not frames:
        print("no usable board-game frames read")
        return 1
    pawn_cfg, tile_cfg = DEFAULT_READER_CONFIG.pawn_net, DEFAULT_READER_CONFIG.tile_net
    print(f"{frames} frames")
    table("path stones (pawns)", stones, [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, float("inf")],
          lambda m, where: stone_confidence(pawn_cfg, m, where == "first row"))
    table("tile spots", spots, [-1.0, 0.0, 0.3, 0.5, 0.7, 0.9, float("inf")],
          lambda m, _where: spot_confidence(tile_cfg, m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
