"""Train the unusable-frame stage's region classifier (vision/usable.py, `RegionNet`) from simulator frames.

    .venv/bin/python scripts/train_usable.py render --n 300 --seed 1100 --out /tmp/usable-1100
    .venv/bin/python scripts/train_usable.py features /tmp/usable-1100 /tmp/usable-1200 --out /tmp/regions.npz
    .venv/bin/python scripts/train_usable.py train /tmp/regions.npz --out vision/models/usable.npz

`render` writes frames as `sim frames` draws them (the same spread of games, cameras, light, table tops
and clutter), with a hand from a random seat's edge on about half of them, and each hand's pixel mask
(masks/*.png: how much the hand and its shadow changed each pixel, from drawing it on the scene once
more). `features` registers each frame from its markers (as the reader does), finds the regions that are
not table (vision.usable.not_table_pixels) and labels each region arm when at least `--arm-share` of
it is the drawn hand (its shadow left out), not an arm when almost none of it is; regions in between
are left out. `train` fits the small classifier (standardised features, one tanh layer) in numpy and
picks its threshold so that few regions of frames without a hand would reject the frame.
The simulator is imported here, never by vision/ (tests/architecture/test_import_layers.py).

The weights in git (vision/models/usable.npz, 4 kB): `render --n 300 --seed 1100`, `--n 300 --seed 1200`,
`--n 400 --seed 1300`, `features` of each, `train` of all three with `--good-rejected 0.03`.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def render(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from simulator import dataset
    from simulator import render as sim_render

    out = Path(args.out)
    for sub in ("frames", "truth", "masks"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    captured: dict[str, object] = {}
    original = sim_render.Renderer.frame

    def frame_with_mask(self, scene, conditions, rng, *, hands=()):
        result = original(self, scene, conditions, rng, hands=hands)
        captured["mask"] = None
        if hands:
            static, _truth = self.static_layer(scene, conditions)
            canvas = static.copy()
            for pose in hands:
                sim_render.draw_hand(canvas, self.camera, pose, conditions.light_dir, conditions.shadow_strength,
                                     np.random.default_rng(0))
            diff = np.abs(canvas.astype(np.int16) - static.astype(np.int16)).max(axis=2).astype(np.uint8)
            m1, m2 = self.camera.distortion_maps
            captured["mask"] = cv2.remap(diff, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return result

    sim_render.Renderer.frame = frame_with_mask
    t0 = time.perf_counter()
    with open(out / "index.jsonl", "a", encoding="utf-8") as index:
        for i in range(args.start, args.n):
            spec = dataset.sample_spec(args.seed, i, (2304, 1296))
            r = random.Random(f"train-usable-{args.seed}-{i}")
            if spec.hand is None and r.random() < 0.45:
                spec = replace(spec, hand=r.choice(["still", "moving"]))
            jpeg, truth = dataset.render_single(spec)
            name = f"{i:06d}"
            (out / "frames" / f"{name}.jpg").write_bytes(jpeg)
            (out / "truth" / f"{name}.json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
            if captured.get("mask") is not None:
                cv2.imwrite(str(out / "masks" / f"{name}.png"), captured["mask"])
            index.write(json.dumps({"index": i, "file": f"frames/{name}.jpg", "truth": f"truth/{name}.json",
                                    "usable": truth["usable"], "reason": truth["reason"], **spec.to_json(),
                                    **dataset.index_extras(truth)}) + "\n")
            index.flush()
            if i % 25 == 0:
                print(f"frame {i + 1}/{args.n}  {time.perf_counter() - t0:.0f}s", flush=True)
    return 0


def frame_regions(folder: Path, entry: dict, arm_share: float):
    """(features, labels, frame facts) of one frame's regions; None when it does not register or is too
    dark for the region stage."""
    import cv2
    import numpy as np

    from calibration.model import parse_calibration
    from engine.board import bundled_board
    from vision import usable as U
    from vision.components import load_components
    from vision.reader import Reader, read_image

    truth = json.loads((folder / entry["truth"]).read_text(encoding="utf-8"))
    image = read_image(folder / entry["file"])
    cal = parse_calibration(truth["render"]["calibration"], str(folder / entry["truth"]))
    game = truth.get("game", "keltis")
    board = bundled_board(truth["board"]) if game == "keltis" and truth.get("board") else None
    components = load_components(None)
    reader = Reader(cal, game=game, board=board, components=components)
    reg = reader._registration_of(image)
    if not reg.ok:
        return None
    cfg = U.DEFAULT_CONFIG
    model = U.build_usable_model(cfg, cal, reg, board, components)
    small = U.small_image(cfg, image)
    px = U.not_table_pixels(cfg, model, small)
    if px.mask is None:
        return None
    n, labels, stats, _c = cv2.connectedComponentsWithStats(px.mask, connectivity=8)
    keep, feats = U.region_features(cfg, model, px, labels, stats, n)
    arm = np.zeros(cfg.size[::-1], bool)
    mask_path = folder / "masks" / f"{Path(entry['file']).stem}.png"
    if mask_path.is_file():
        drawn = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
        # the hand itself changed its pixels a lot, its soft shadow little
        arm = cv2.resize((drawn > 30).astype(np.float32), cfg.size, interpolation=cv2.INTER_AREA) > 0.4
    ys = []
    for k in keep:
        sel = labels == k
        share = float((sel & arm).sum()) / max(int(sel.sum()), 1)
        ys.append(1 if share >= arm_share else 0 if share < 0.05 else -1)
    hands = [h["seat"] for h in truth.get("hands") or []]
    return feats, np.asarray(ys, np.int8), dict(index=entry["index"], usable=bool(truth["usable"]),
                                                 reason=truth.get("reason"), hands=hands, folder=str(folder),
                                                 arm_px=int(arm.sum()))


def _features_job(job):
    folder, entry, arm_share = job
    try:
        return frame_regions(Path(folder), entry, arm_share)
    except Exception as exc:   # a broken frame must not stop a long run; it is reported
        print(f"{folder}/{entry['file']}: {exc}", file=sys.stderr)
        return None


def features(args: argparse.Namespace) -> int:
    import multiprocessing

    import numpy as np

    jobs = []
    for folder in args.folders:
        for line in open(Path(folder) / "index.jsonl", encoding="utf-8"):
            jobs.append((folder, json.loads(line), args.arm_share))
    X, Y, F = [], [], []
    with multiprocessing.Pool(args.jobs) as pool:
        for i, res in enumerate(pool.imap(_features_job, jobs, chunksize=4)):
            if res is None:
                continue
            feats, ys, facts = res
            for row, y in zip(feats, ys):
                X.append(row)
                Y.append(y)
                F.append(i)
            if i % 100 == 0:
                print(f"frame {i + 1}/{len(jobs)}", flush=True)
    facts = [json.dumps({"job": i, **(_facts_of(jobs[i]))}) for i in range(len(jobs))]
    np.savez_compressed(args.out, x=np.asarray(X, np.float32), y=np.asarray(Y, np.int8),
                        frame=np.asarray(F, np.int32), facts=np.asarray(facts))
    print(f"{len(X)} regions ({sum(1 for y in Y if y == 1)} arm, {sum(1 for y in Y if y == 0)} not) "
          f"from {len(jobs)} frames -> {args.out}")
    return 0


def _facts_of(job) -> dict:
    folder, entry, _share = job
    return {"folder": folder, "index": entry["index"], "usable": entry["usable"], "reason": entry["reason"],
            "hands": entry.get("hands") or []}


def fit(x, y, *, hidden: int, epochs: int, seed: int, l2: float = 1e-3, lr: float = 0.01, pos_weight: float = 1.0):
    """A one-hidden-layer net by full-batch Adam on the logistic loss."""
    import numpy as np

    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-6
    z = (x - mean) / std
    d = z.shape[1]
    params = [rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden), rng.normal(0, 1 / np.sqrt(hidden), hidden),
              np.zeros(1)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    w = np.where(y == 1, pos_weight, 1.0)
    w = w / w.sum()
    for t in range(1, epochs + 1):
        w1, b1, w2, b2 = params
        h = np.tanh(z @ w1 + b1)
        p = 1 / (1 + np.exp(-(h @ w2 + b2)))
        g = (p - y) * w
        grads = [None, None, h.T @ g + l2 * w2, np.array([g.sum()])]
        gh = np.outer(g, w2) * (1 - h * h)
        grads[0] = z.T @ gh + l2 * w1
        grads[1] = gh.sum(axis=0)
        for i in range(4):
            m[i] = 0.9 * m[i] + 0.1 * grads[i]
            v[i] = 0.999 * v[i] + 0.001 * grads[i] ** 2
            params[i] = params[i] - lr * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    return mean, std, params


def train(args: argparse.Namespace) -> int:
    import numpy as np

    from vision.usable import REGION_FEATURES, RegionNet

    xs, ys, frames, facts = [], [], [], []
    for path in args.data:
        with np.load(path) as z:
            offset = len(facts)
            xs.append(z["x"])
            ys.append(z["y"])
            frames.append(z["frame"] + offset)
            facts += [json.loads(s) for s in z["facts"]]
    x, y, frame = np.concatenate(xs), np.concatenate(ys), np.concatenate(frames)
    use = y >= 0
    mean, std, (w1, b1, w2, b2) = fit(x[use], y[use].astype(np.float64), hidden=args.hidden, epochs=args.epochs,
                                      seed=args.seed, pos_weight=args.pos_weight)
    net = RegionNet(mean.astype(np.float32), std.astype(np.float32), w1.astype(np.float32), b1.astype(np.float32),
                    w2.astype(np.float32), np.float32(b2[0]))
    p = net.prob(x)
    # the threshold: frames without a hand whose best region would reject them stay under `--good-rejected`
    best = np.zeros(len(facts))
    np.maximum.at(best, frame, p)
    good = np.array([f["usable"] for f in facts])
    hand = np.array([bool(f["hands"]) for f in facts])
    threshold = float(np.quantile(best[good], 1 - args.good_rejected)) + 1e-6 if good.any() else 0.5
    threshold = min(max(threshold, 0.05), 0.95)
    acc = float(((p[use] >= 0.5) == (y[use] == 1)).mean())
    print(f"regions {int(use.sum())} (arm {int((y == 1).sum())}); accuracy at 0.5: {acc:.3f}; threshold {threshold:.3f}")
    print(f"training frames: good rejected {(best[good] >= threshold).mean():.3%}  hand frames caught "
          f"{(best[hand] >= threshold).mean():.3%} (of {int(hand.sum())})")
    np.savez(args.out, features=np.asarray(REGION_FEATURES), mean=net.mean, std=net.std, w1=net.w1, b1=net.b1,
             w2=net.w2, b2=np.float32(net.b2), threshold=np.float32(threshold))
    print(f"-> {args.out} ({Path(args.out).stat().st_size} bytes)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("render")
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(func=render)
    p = sub.add_parser("features")
    p.add_argument("folders", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--arm-share", type=float, default=0.3)
    p.add_argument("--jobs", type=int, default=1)
    p.set_defaults(func=features)
    p = sub.add_parser("train")
    p.add_argument("data", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--epochs", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pos-weight", type=float, default=1.0)
    p.add_argument("--good-rejected", type=float, default=0.01)
    p.set_defaults(func=train)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
