"""Every frame's usable-frame verdict, for comparing two trees (a speed-up must not change one).

    .venv/bin/python bench/usable_verdicts.py OUT.json FOLDER [FOLDER ...] [--cache DIR]
    cmp main.json branch.json

FOLDER: frames as `bench/usable_eval.py` takes them (registered and decided as it decides them; `--cache` is its
cache). Written per frame: a digest of the pixel stage's masks (not-table, the table's extent, the edge zone) and of
the region features, then usable, reason, hands, anomaly mm², gain and the arm mask's pixel count. Run from the tree
to measure (PYTHONPATH=TREE for another worktree).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--cache", default=None)
    args = parser.parse_args(argv)
    import cv2
    import numpy as np

    from bench.usable_eval import judged_frames
    from vision import usable as U

    cfg = U.DEFAULT_CONFIG
    out = {}
    for name, f, model, v in judged_frames(args.folders, args.cache):
        digest = None
        if model is not None:
            px = U.not_table_pixels(cfg, model, f["small"], dark_ok=cfg.dark_arms)
            if px.mask is not None:
                n, labels, stats, _c = cv2.connectedComponentsWithStatsWithAlgorithm(px.mask, 8, cv2.CV_32S,
                                                                                      cv2.CCL_BBDT)
                keep, feats = U.region_features(cfg, model, px, labels, stats, n)
                digest = hashlib.md5(px.mask.tobytes() + px.hull.tobytes() + px.edge_zone.tobytes()
                                     + np.asarray(keep).tobytes() + feats.tobytes()).hexdigest()
        out[name] = [digest, v.usable, v.reason, v.hands, v.anomaly_mm2, v.gain,
                     None if v.arm_mask is None else int(v.arm_mask.sum())]
    Path(args.out).write_text(json.dumps(out, indent=0), encoding="utf-8")
    print(f"{len(out)} frames written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
