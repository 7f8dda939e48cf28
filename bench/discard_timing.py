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
import argparse
import cv2
cv2.setNumThreads(1)
from vision.reader import DEFAULT_READER_CONFIG
from discard_errors import discard_stage_frames
d, out = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
R = int(sys.argv[4]) if len(sys.argv) > 4 else 1
args = argparse.Namespace(components=None, set=[], dir=d, frames=None, limit=limit)
res, ms = {}, []
for frame, _truth, _game, _card_game, read in discard_stage_frames(args, DEFAULT_READER_CONFIG.discards):
    best = 1e9
    for _ in range(R):
        t0 = time.process_time()
        finds = read()
        best = min(best, (time.process_time() - t0) * 1000)
    ms.append(best)
    res[frame.stem] = [repr(f) for f in finds]
json.dump({"res": res, "ms": ms}, open(out, "w"), indent=0)
print(f"{d}: n={len(ms)} median {statistics.median(ms):.1f} ms, mean {statistics.mean(ms):.1f}")
