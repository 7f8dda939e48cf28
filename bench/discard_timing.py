"""The discard stage alone on a `sim frames` folder: every frame's finds (their repr, to compare two codes exactly)
and its CPU time (the least of R runs), as bench/discard_errors.py sets it up. The code read is the first
PYTHONPATH entry's (a detached worktree of main for "before"), else this checkout's.

    PYTHONPATH=REPO .venv/bin/python bench/discard_timing.py DIR OUT.json [LIMIT] [R]
"""
import json
import os
import statistics
import sys
import time
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")
repo = os.environ.get("PYTHONPATH", "").split(":")[0] or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, repo); sys.path.insert(0, repo + "/bench")
from pathlib import Path
import argparse
import cv2
cv2.setNumThreads(1)
from calibration.model import parse_calibration
from vision.cardart import card_art
from vision.cards import paper_points, paper_white
from vision.discards import build_table_view, read_discards
from vision.reader import DEFAULT_READER_CONFIG, Reader
from vision.stagecli import read_image
from card_errors import stage_inputs
d, out = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
R = int(sys.argv[4]) if len(sys.argv) > 4 else 1
args = argparse.Namespace(components=None, set=[], dir=d, frames=None, limit=limit)
comps, model, config, pairs = stage_inputs(args, DEFAULT_READER_CONFIG.discards)
res, ms = {}, []
for frame, tpath in pairs:
    truth = json.loads(tpath.read_text())
    if not truth.get("usable") or "discard_tops" not in truth:
        continue
    image = read_image(frame)
    render = truth.get("render") or {}
    cal_json = render.get("calibration") or json.loads((Path(d) / "calibration.json").read_text())
    cal = parse_calibration(cal_json, str(frame))
    table = truth if truth.get("seats") else (truth.get("table") or {})
    seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
    game = truth.get("game", "keltis")
    reader = Reader(cal, game=game, seats=seats or None, components=comps)
    reg = reader._registration_of(image)
    if not reg.ok:
        continue
    card_game = game != "keltis"
    board = tuple(reader.board.size_mm) if reader.board is not None and not card_game else None
    tv = build_table_view(config, cal, reg, board, tuple(seats) or None)
    quiet = float((comps.catalogue.get("marker") or {}).get("quiet_zone", 0.25))
    white = paper_white(image, paper_points(cal, reg, quiet))
    art = card_art(comps, config.card_ppm, 1.2)
    cream = white * art.cream / 255.0 if white is not None else art.cream
    best = 1e9
    for _ in range(R):
        t0 = time.process_time()
        finds = read_discards(config, DEFAULT_READER_CONFIG.cards, image, tv, reg, art, cream, model, card_game)
        best = min(best, (time.process_time() - t0) * 1000)
    ms.append(best)
    res[frame.stem] = [repr(f) for f in finds]
json.dump({"res": res, "ms": ms}, open(out, "w"), indent=0)
print(f"{d}: n={len(ms)} median {statistics.median(ms):.1f} ms, mean {statistics.mean(ms):.1f}")
