"""Train the board reader's learned pawn classifier (vision/pawnnet.py) from simulator frames.

    .venv/bin/python scripts/train_pawns.py render --n 700 --seed 1700 --out /tmp/pawn-train
    .venv/bin/python scripts/train_pawns.py features /tmp/pawn-train --out /tmp/train.npz
    .venv/bin/python scripts/train_pawns.py train pawns /tmp/train.npz --filters1 24 --filters2 48 --hidden 128
    .venv/bin/python scripts/train_pawns.py train tiles /tmp/train.npz
    .venv/bin/python scripts/train_pawns.py score DEV_FOLDER --nets vision/models/pawns.npz:view NEW.npz:frame:2:2
    .venv/bin/python scripts/train_pawns.py ensemble A.npz B.npz C.npz --out vision/models/pawns.npz
    .venv/bin/python scripts/train_pawns.py count-head T1.npz T2.npz --val-data V.npz --seeds 0 1

(The shipped weights' recipe, seeds and epochs: docs/vision.md, "Fourth pass" and "Fifth pass"; the
patches cut from the frame (`features --from-frame --step-mm ... --supersample K`, `train --init-step-mm`)
and what they gave: "Seventh pass".)

`render` writes board-game frames (both boards, 2-4 players, the simulator's full range of cameras,
light and clutter; no hands, never too dark) as `sim frames` does: frames/*.jpg + truth/*.json.
`features` reads every frame with the reader's own geometry and normalisation (vision.reader.Reader)
and cuts each path stone's patch (vision.pawnnet.stone_features); `train` fits the small CNN in numpy;
`score` is the dev harness (the board's pawns of weights files on frames, decoded as the reader does);
`ensemble` joins several trained pawn networks (other `train --seed`s or data) into one weights file, whose
members the reader averages (vision.pawnnet.PawnEnsemble; the shipped members' recipe: docs/vision.md,
"Session 21"). `train --init` of such a file starts from its member `--init-member` (default 0).
`count-head` fits the count head on the frozen network (its recipe: docs/vision.md, "Session 28 (wt28-crowd)").
The simulator is imported here, never by vision/ (tests/architecture/test_import_layers.py).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def render(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from simulator.dataset import FrameSpec, render_single

    out = Path(args.out)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    (out / "truth").mkdir(exist_ok=True)
    t0 = time.perf_counter()
    for i in range(args.start, args.n):
        name = f"{i:06d}"
        if (out / "truth" / f"{name}.json").exists():
            continue
        r = random.Random(f"train-pawns-{args.seed}-{i}")
        spec = FrameSpec(game="keltis", board="nwnz" if r.random() < 0.55 else "base",
                         players=r.choice((2, 3, 3, 4, 4)), seed=r.randrange(1 << 30),
                         progress=r.uniform(0.0, 1.0), size=(2304, 1296), hard=r.random() < 0.25, dark=False,
                         hand=None, distractors=r.random() < 0.6)
        # drawn after the spec, so the frames of earlier seeds (no options) stay as they were
        if args.full_size and r.random() < args.full_size:
            spec = replace(spec, size=(4608, 2592))
        if args.early < 1.0:   # the game's first part only: the full start crowd beside the first rows
            spec = replace(spec, progress=spec.progress * args.early)
        edit = None
        if args.crowded and r.random() < args.crowded:
            seed = r.randrange(1 << 30)
            rounds = tuple(args.rounds) if args.rounds else None
            crowd_max = args.crowd_max
            edit = lambda obs, board, seed=seed, rounds=rounds: crowded_observation(
                obs, board, random.Random(seed), first_row=args.first_row, rounds=rounds, crowd_max=crowd_max)
        jpeg, truth = render_single(spec, edit=edit)
        if not truth["usable"]:
            continue
        (out / "frames" / f"{name}.jpg").write_bytes(jpeg)
        (out / "truth" / f"{name}.json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
        if i % 20 == 0:
            print(f"frame {i + 1}/{args.n}  {time.perf_counter() - t0:.0f}s", flush=True)
    return 0


CROWD_MAX = 5   # pawns a path stone is given at most by crowded_observation
# share of crowded_observation's targets on a first-row stone (session 19's 0.25 taught the net phantom pawns
# there, beside the start crowd: docs/vision.md, session 20)
FIRST_ROW_SHARE = 0.25


def crowded_observation(obs, board, rng: random.Random, first_row: float = FIRST_ROW_SHARE,
                        rounds: tuple[int, int] | None = None, crowd_max: int = CROWD_MAX):
    """The observation with pawns moved together (the stones the reader gets wrong: 2-5 pawns on one
    stone, two small pawns of one player, pawns on the start's first row beside the crowd): a few
    target stones without a tile each take 1-3 pawns from elsewhere (the start crowd included), half
    of the time small pawns of one player. Each player keeps its pawns; only where they stand moves.
    `rounds` (lo, hi): that many target draws, uniform (None: session 19's draw of 1-3, so its seeds render
    as before); more rounds build more stones of 3-5 pawns, the class the net misses most (session 26).
    `crowd_max`: pawns a target stone is given at most (CROWD_MAX unless asked: the count head's 5 and 6+
    classes need stones of 6-7, session 32)."""
    from dataclasses import replace

    from engine.observation import PawnObservation

    pawns = [PawnObservation(p.stone, p.player, p.big) for p in obs.pawns or ()]
    tiles = obs.tiles or {}
    path = [s for s in board.stones.values() if s.kind != "start" and not tiles.get(s.id)]
    first = [s for s in path if s.row == 1]
    if not pawns or not path:
        return obs
    n_rounds = rng.choice((1, 2, 2, 3)) if rounds is None else rng.randint(rounds[0], rounds[1])
    for _ in range(n_rounds):
        on = {}
        for p in pawns:
            on[p.stone] = on.get(p.stone, 0) + 1
        busy = [s for s in path if on.get(s.id)]
        u = rng.random()
        if first_row == FIRST_ROW_SHARE:   # session 19's draw, kept so its seeds render as before
            target = rng.choice(first if u < 0.25 and first else busy if u < 0.65 and busy else path).id
        else:   # a first-row stone only in the given share of the targets
            later = [s for s in path if s.row != 1]
            later_busy = [s for s in busy if s.row != 1]
            pick = (first if u < first_row and first else
                    later_busy if u < first_row + 0.4 and later_busy else later or path)
            target = rng.choice(pick).id
        room = crowd_max - on.get(target, 0)
        if room <= 0:
            continue
        movable = [i for i, p in enumerate(pawns) if p.stone != target]
        if rng.random() < 0.5:   # small pawns of one player: the pairs read as one
            player = rng.choice(sorted({pawns[i].player for i in movable}))
            movable = [i for i in movable if pawns[i].player == player and not pawns[i].big] or movable
        rng.shuffle(movable)
        for i in movable[:min(room, rng.choice((1, 2, 2, 3)))]:
            pawns[i] = replace(pawns[i], stone=target)
    return replace(obs, pawns=tuple(pawns))


def pawn_geometries(from_frame: bool | None, steps: list[float] | None, also_view: bool = False,
                    supersample: int = 0) -> list[object]:
    """The pawn patch configs `features` cuts (vision.pawnnet.PawnNetConfig): the reader's own by
    default, else one per patch pitch, from the frame itself or from the board view (`also_view`: and
    the board view's at the default pitch, the same stones, for comparisons)."""
    from dataclasses import replace

    from vision.pawnnet import DEFAULT_CONFIG

    base = DEFAULT_CONFIG if from_frame is None else replace(DEFAULT_CONFIG, from_frame=from_frame)
    out = [base] if not steps else [replace(base, step_mm=s) for s in steps]
    if supersample:
        out += [replace(g, frame_supersample=supersample) for g in out if g.from_frame]
    return out + [replace(DEFAULT_CONFIG, from_frame=False)] if also_view else out


def _registered_reader(frame: str, truth_path: str) -> tuple[dict, object, object, object, object] | None:
    """(truth, reader with the learned readers' board model, image, log view, gain) of a usable board-game
    frame whose markers register; None otherwise (the hand-set readers' templates are not built)."""
    from calibration.model import parse_calibration
    from calibration.registration import register_board
    from engine.board import bundled_board
    from vision.reader import Reader, board_model, read_image

    truth = json.loads(Path(truth_path).read_text(encoding="utf-8"))
    if truth.get("game") != "keltis" or not truth.get("usable"):
        return None
    cal = parse_calibration(truth["render"]["calibration"], truth_path)
    table = truth if truth.get("seats") else (truth.get("table") or {})
    seats = {s: v["player"] for s, v in table["seats"].items()}
    reader = Reader(cal, game="keltis", board=bundled_board(truth["board"]), seats=seats)
    image = read_image(frame)
    reg = register_board(reader.config.registration, cal, image)
    if not reg.ok:
        return None
    reader.model = board_model(reader.config, cal, reg, reader.board, reader.components, pawn_net=True, tile_net=True)
    log_norm, gain = reader.normalised_view(image)
    return truth, reader, image, log_norm, gain


def _frame_samples(job: tuple) -> tuple[object, ...] | None:
    """(features, labels) of one frame's path stones; empty stones far from any pawn are subsampled.
    With several pawn patch geometries, one feature array per geometry (the same stones) first."""
    import numpy as np

    from vision.pawnnet import COLOURS, SMALL_CLASSES, build_patch_maps, stone_features
    from vision.tilenet import CODES, EMPTY, tile_features

    frame, truth_path, keep_empty, seed, with_tiles = job[:5]
    geometries = job[5] if len(job) > 5 else None
    registered = _registered_reader(frame, truth_path)
    if registered is None:
        return None
    truth, reader, image, log_norm, gain = registered
    seats = {s: v["player"] for s, v in truth["seats"].items()}
    maps = reader.model.patches
    xs = []
    m = reader.model
    for geo in geometries or [reader.config.pawn_net]:
        gmaps = build_patch_maps(geo, m.board, m.view, m.log_art, m.pose, m.board_thickness)
        assert gmaps.stones == maps.stones
        xs.append(stone_features(gmaps, log_norm, list(seats.values()), image, gain))
    x = xs[0]
    y = np.zeros((len(maps.stones), len(COLOURS), 2), np.int8)   # big count, small count (capped)
    index = {sid: i for i, sid in enumerate(maps.stones)}
    for p in truth["pawns"]:
        i = index.get(p["stone"])
        if i is None:
            continue
        y[i, COLOURS.index(p["player"]), 0 if p["big"] else 1] += 1
    # uncapped (the count head's labels: every pawn on the stone, session 32), then capped for the network's classes
    n = y.reshape(len(y), -1).copy()
    y[..., 1] = np.minimum(y[..., 1], SMALL_CLASSES - 1)
    y[..., 0] = np.minimum(y[..., 0], 1)
    # keep every stone with a pawn on it or on a neighbour (a leaning head), a share of the others
    board = reader.model.board
    occupied = [board.stones[sid] for sid in maps.stones if y[index[sid]].any()]
    rng = np.random.default_rng(seed)
    keep = []
    for sid in maps.stones:
        s = board.stones[sid]
        near = any(math.hypot(s.x - o.x, s.y - o.y) < 70.0 for o in occupied)
        keep.append(bool(y[index[sid]].any()) or near or rng.random() < keep_empty)
    keep = np.array(keep)
    more = (n[keep],) + tuple(v[keep].astype(np.float16) for v in xs[1:])
    if not with_tiles:
        return (x[keep].astype(np.float16), y[keep].reshape(int(keep.sum()), -1), np.zeros((0, 1), np.float16),
                np.zeros(0, np.int8)) + more
    tmaps = reader.model.tile_maps
    tx = tile_features(tmaps, log_norm, image, gain)
    ty = np.array([CODES.index(truth["tiles"].get(sid) or EMPTY) for sid in tmaps.spots], np.int8)
    return (x[keep].astype(np.float16), y[keep].reshape(int(keep.sum()), -1), tx.astype(np.float16), ty) + more


def features(args: argparse.Namespace) -> int:
    """Cut every training frame's stone and tile-spot patches into one .npz (pawn_x: N x F float16,
    pawn_y: N x 8 (per colour: big count, small count capped), pawn_n: the same uncapped, tile_x, tile_y: code
    index)."""
    import numpy as np

    from vision.pawnnet import patch_shape

    folder = Path(args.folder)
    truths = sorted((folder / "truth").glob("*.json"))
    geometries = pawn_geometries(args.from_frame, args.step_mm, args.also_view, args.supersample)
    jobs = [(str(folder / "frames" / f"{t.stem}.jpg"), str(t), args.keep_empty, i, not args.pawns_only, geometries)
            for i, t in enumerate(truths)]
    got: list[tuple] = []
    t0 = time.perf_counter()
    if args.jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(args.jobs) as pool:
            results = pool.imap(_frame_samples, jobs, chunksize=4)
            for k, r in enumerate(results):
                if r is not None:
                    got.append(r)
                if k % 50 == 0:
                    print(f"{k}/{len(jobs)} frames  {time.perf_counter() - t0:.0f}s", flush=True)
    else:
        for k, job in enumerate(jobs):
            r = _frame_samples(job)
            if r is not None:
                got.append(r)
            if k % 50 == 0:
                print(f"{k}/{len(jobs)} frames  {time.perf_counter() - t0:.0f}s", flush=True)
    cols = [np.concatenate([g[k] for g in got]) for k in range(5 + len(geometries) - 1)]
    outs = [args.out] if len(geometries) == 1 else [_variant_path(args.out, g) for g in geometries]
    for k, (geo, out) in enumerate(zip(geometries, outs)):
        px = cols[0] if k == 0 else cols[4 + k]
        # the patch geometry the features were cut with (`train` checks it against the reader's config);
        # pawn_n: the uncapped counts (the count head's labels)
        np.savez(out, pawn_x=px, pawn_y=cols[1], tile_x=cols[2], tile_y=cols[3], pawn_n=cols[4],
                 pawn_shape=np.array(patch_shape(geo)), pawn_step_mm=np.array(geo.step_mm),
                 pawn_from_frame=np.array(geo.from_frame))
        print(f"{len(px)} stones, {px.shape[1]} features (step {geo.step_mm} mm, from_frame {geo.from_frame}); "
              f"{len(cols[2])} tile spots, {cols[2].shape[1]} features -> {out}")
    return 0


def _variant_path(out: str, geo: object) -> str:
    p = Path(out)
    ss = f"x{geo.frame_supersample}" if geo.from_frame and geo.frame_supersample > 1 else ""
    return str(p.with_name(f"{p.stem}-{'frame' if geo.from_frame else 'view'}{geo.step_mm:g}{ss}{p.suffix}"))


def _score_frame(job: tuple) -> list[tuple[int, int]] | None:
    """(pawns, errors) per (weights, geometry) variant on one frame: the reader's own registration,
    normalisation, decoding and start-crowd rule; only the board's pawns (vision.evaluation.count_pawns)."""
    from dataclasses import replace

    from vision.evaluation import count_pawns
    from vision.pawnnet import build_patch_maps, load_pawn_net

    frame, truth_path, variants = job
    registered = _registered_reader(frame, truth_path)
    if registered is None:
        return None
    truth, reader, image, log_norm, gain = registered
    m = reader.model
    out = []
    for weights, geo in variants:
        reader.pawn_net = load_pawn_net(weights)
        reader.config = replace(reader.config, pawn_net=geo)
        reader.model = replace(m, patches=build_patch_maps(geo, m.board, m.view, m.log_art, m.pose, m.board_thickness))
        dets, _conf, _stones = reader._net_detections(log_norm, image, gain)
        pawns, _c = reader._pawn_list(dets, crowd=reader.config.crowd_rule_for_net)
        read = {"pawns": [{"stone": p.stone, "player": p.player, "big": p.big} for p in pawns]}
        out.append(count_pawns(truth, read))
    return out


def score(args: argparse.Namespace) -> int:
    """Per-element pawn error of weights files on frames (a dev harness: the board's pawns only, each
    frame registered and normalised once for all variants). NET: PATH[:frame|view[:STEP_MM]]."""
    from dataclasses import replace

    from vision.evaluation import list_frames
    from vision.pawnnet import DEFAULT_CONFIG

    variants = []
    for spec in args.nets:
        path, *rest = spec.split(":")
        geo = DEFAULT_CONFIG
        if rest:
            geo = replace(geo, from_frame=rest[0] == "frame")
        if len(rest) > 1:
            geo = replace(geo, step_mm=float(rest[1]))
        if len(rest) > 2:
            geo = replace(geo, frame_supersample=int(rest[2]))
        variants.append((path, geo))
    jobs = [(str(f), str(t), variants) for folder in args.folders for f, t in list_frames(Path(folder))]
    totals = [[0, 0] for _ in variants]
    frames = 0
    t0 = time.perf_counter()
    for k, job in enumerate(jobs):
        got = _score_frame(job)
        if got is None:
            continue
        frames += 1
        for tot, (n, e) in zip(totals, got):
            tot[0] += n
            tot[1] += e
        if k % 25 == 0:
            print(f"{k}/{len(jobs)} frames  {time.perf_counter() - t0:.0f}s", flush=True)
    for spec, (n, e) in zip(args.nets, totals):
        print(f"{spec}: pawns {100 * e / max(n, 1):.2f} % ({e}/{n}) on {frames} frames")
    return 0


def _moved_dense_weights(w3, old_shape, new_hw, f2, old_step, new_step, back_mm):
    """The dense layer's weights of a net trained on patches of another pitch, for patches of
    `new_step`: each pooled cell of the new patch takes the weights of the old pooled cell nearest
    to the stretch of board it sees (a cell covers 4 x 4 samples), shared among the new cells that
    took them (so a pattern seen alike keeps its sum); the extra inputs' weights unchanged."""
    import numpy as np

    orows, ocols = old_shape[0], old_shape[1]
    o2r, o2c = orows // 4, ocols // 4
    n2r, n2c = new_hw[0] // 4, new_hw[1] // 4
    old_cells = w3[:o2r * o2c * f2].reshape(o2r, o2c, f2, -1)

    def centre_mm(i, step, n_samples, across):
        centre = 4 * i + 1.5
        return (centre - (n_samples - 1) / 2.0) * step if across else centre * step - back_mm

    def nearest(mm, step, n_samples, n_cells, across):
        i = ((mm / step + (n_samples - 1) / 2.0) if across else (mm + back_mm) / step) - 1.5
        return int(min(n_cells - 1, max(0, round(i / 4))))

    ri = [nearest(centre_mm(i, new_step, new_hw[0], False), old_step, orows, o2r, False) for i in range(n2r)]
    ci = [nearest(centre_mm(j, new_step, new_hw[1], True), old_step, ocols, o2c, True) for j in range(n2c)]
    new_cells = old_cells[np.ix_(ri, ci)]
    share = np.zeros((o2r, o2c), np.float32)
    for r in ri:
        for c in ci:
            share[r, c] += 1
    new_cells = new_cells / np.maximum(share[np.ix_(ri, ci)], 1.0)[:, :, None, None]
    return np.concatenate([new_cells.reshape(n2r * n2c * f2, -1), w3[o2r * o2c * f2:]]).astype(np.float32)


def _pool(x):
    import numpy as np

    n, h, w, c = x.shape
    h2, w2 = h // 2, w // 2
    xr = x[:, :h2 * 2, :w2 * 2].reshape(n, h2, 2, w2, 2, c)
    m = xr.max(axis=(2, 4))
    return m, xr == m[:, :, None, :, None, :]


def _unpool(g, mask, shape):
    import numpy as np

    n, h, w, c = shape
    h2, w2 = g.shape[1], g.shape[2]
    gx = np.zeros(shape, np.float32)
    gx[:, :h2 * 2, :w2 * 2] = (mask * g[:, :, None, :, None, :]).reshape(n, h2 * 2, w2 * 2, c)
    return gx


def _col2im3(gcols, shape):
    import numpy as np

    n, h, w, c = shape
    g = gcols.reshape(n, h, w, 3, 3, c)
    gp = np.zeros((n, h + 2, w + 2, c), np.float32)
    for i in range(3):
        for j in range(3):
            gp[:, i:i + h, j:j + w] += g[:, :, :, i, j, :]
    return gp[:, 1:-1, 1:-1]


def contrast_jitter(raw, rng, contrast: float, saturation: float):
    """Pawn patches (N x rows x cols x 6: difference to the art, colour; vision.pawnnet.stone_features)
    as a frame whose normalisation left another contrast and saturation would give them: the colour
    (a log) scaled about the patch's mean by 1 +- `contrast` and its chroma by 1 +- `saturation`,
    then the difference to the art and the residual white balance (the per-channel median of that
    difference) worked out again as stone_features does. The art is the colour less the difference."""
    import numpy as np

    n = len(raw)
    colour, diff = raw[..., 3:], raw[..., :3]
    art = colour - diff
    g = rng.uniform(1 - contrast, 1 + contrast, (n, 1, 1, 1)).astype(np.float32)
    c0 = colour.mean(axis=(1, 2, 3), keepdims=True)
    out = c0 + g * (colour - c0)
    s = rng.uniform(1 - saturation, 1 + saturation, (n, 1, 1, 1)).astype(np.float32)
    lum = out.mean(axis=3, keepdims=True)
    out = lum + s * (out - lum)
    d = out - art
    med = np.median(d.reshape(n, -1, 3), axis=1)[:, None, None, :]
    return np.concatenate([d - med, out - med], axis=3).astype(np.float32)


def train(args: argparse.Namespace) -> int:
    """Fit the CNN (vision.pawnnet.PatchNet; Adam, one softmax cross-entropy per output head; mirror and
    colour jitter augmentation) and write its weights."""
    import numpy as np

    from vision.pawnnet import COLOURS, DEFAULT_CONFIG as PAWN_CFG, SMALL_CLASSES, PatchNet, im2col3, patch_shape
    from vision.tilenet import CODES, DEFAULT_CONFIG as TILE_CFG

    pawns = args.kind == "pawns"
    key = "pawn" if pawns else "tile"
    heads = [2, SMALL_CLASSES] * len(COLOURS) if pawns else [len(CODES)]
    if pawns:
        rows, cols = patch_shape(PAWN_CFG)
        shapes = {tuple(int(v) for v in np.load(f)["pawn_shape"]) for f in args.data if "pawn_shape" in np.load(f)}
        args.step_mm_of_data = PAWN_CFG.step_mm
        if shapes:   # the features' own patch geometry (features --step-mm)
            assert len(shapes) == 1, f"feature files cut with different patch shapes: {shapes}"
            rows, cols = shapes.pop()
            args.step_mm_of_data = float(np.load(args.data[0])["pawn_step_mm"])
    else:
        rows = cols = int(round(2 * TILE_CFG.half_mm / TILE_CFG.step_mm)) + 1
    ch = 6
    npx = rows * cols * ch

    def load(files):
        parts = [np.load(f) for f in files]
        x = np.concatenate([p[f"{key}_x"] for p in parts])
        y = np.concatenate([p[f"{key}_y"] for p in parts]).astype(np.int64).reshape(len(x), len(heads))
        return x, y

    x, y = load(args.data)
    assert x.shape[1] >= npx, (x.shape, npx)
    rng = np.random.default_rng(args.seed)
    if args.val_data:
        xv, yv = load(args.val_data)
        xt, yt = x, y
    else:
        order = rng.permutation(len(x))
        n_val = int(len(x) * args.val)
        xv, yv, xt, yt = x[order[:n_val]], y[order[:n_val]], x[order[n_val:]], y[order[n_val:]]
    sample = xt[rng.choice(len(xt), min(3000, len(xt)), replace=False), :npx].astype(np.float32).reshape(-1, ch)
    mean = sample.mean(axis=0)
    scale = 1.0 / np.maximum(sample.std(axis=0), 1e-3)
    ne = x.shape[1] - npx
    offs = np.cumsum([0] + heads)
    f1, f2, h = args.filters1, args.filters2, args.hidden
    r1, c1_ = rows // 2, cols // 2
    r2, c2_ = r1 // 2, c1_ // 2
    flat = r2 * c2_ * f2 + ne
    no = int(offs[-1])

    def he(fan_in, shape):
        return rng.normal(0, math.sqrt(2.0 / fan_in), shape).astype(np.float32)

    params = {"c1": he(9 * ch, (9 * ch, f1)), "d1": np.zeros(f1, np.float32),
              "c2": he(9 * f1, (9 * f1, f2)), "d2": np.zeros(f2, np.float32),
              "w3": he(flat, (flat, h)), "b3": np.zeros(h, np.float32),
              "w4": (rng.normal(0, math.sqrt(1.0 / h), (h, no))).astype(np.float32), "b4": np.zeros(no, np.float32)}
    if args.init:   # go on from earlier weights (e.g. on frames from a widened simulator)
        from vision.pawnnet import load_mlp, load_pawn_net

        got = load_pawn_net(args.init) if args.kind == "pawns" else None
        if got is not None and not 0 <= args.init_member < len(got.members):
            raise SystemExit(f"--init-member {args.init_member}: {args.init} holds {len(got.members)} network(s)")
        old = got.members[args.init_member] if got is not None else load_mlp(args.init)
        if old is None:
            raise SystemExit(f"--init {args.init}: no such weights file")
        if tuple(old.shape) != (rows, cols, ch):   # another patch pitch: its dense weights moved to the new cells
            assert pawns and old.c2.shape[1] == f2 and old.w3.shape[1] == h, "only the patch pitch may differ"
            old_step = args.init_step_mm or PAWN_CFG.step_mm
            new_step = args.step_mm_of_data
            w3_old = np.asarray(old.w3, np.float32)
            w3_new = _moved_dense_weights(w3_old, old.shape, (rows, cols), f2, old_step, new_step,
                                          PAWN_CFG.patch_back_mm)
            params = {k: v.astype(np.float32) for k, v in old.arrays().items() if k in params}
            params["w3"] = w3_new
        else:
            params = {k: v.astype(np.float32) for k, v in old.arrays().items() if k in params}
        mean, scale = old.mean, old.scale
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}

    def prepare(xb, augment):
        n = len(xb)
        raw = xb[:, :npx].astype(np.float32).reshape(n, rows, cols, ch)
        if augment and pawns and (args.contrast > 0 or args.saturation > 0):
            raw = contrast_jitter(raw, rng, args.contrast, args.saturation)
        img = (raw - mean) * scale
        extras = xb[:, npx:].astype(np.float32)
        if augment:
            if pawns:   # a pawn is round: its patch mirrored across the lean is as likely
                flip = rng.random(n) < 0.5
                img[flip] = img[flip, :, ::-1]
            # what is left of the lamp's colour and exposure after normalisation
            jitter = rng.normal(0, args.jitter, (n, 1, 1, ch)).astype(np.float32)
            jitter[..., :3] *= 0.5
            img = img + jitter * scale
        return img, extras

    def forward(img, extras, train_mode):
        n = len(img)
        cols1 = im2col3(img)
        a1 = cols1 @ params["c1"] + params["d1"]
        h1 = np.maximum(a1, 0.0).reshape(n, rows, cols, f1)
        p1, m1 = _pool(h1)
        cols2 = im2col3(p1)
        a2 = cols2 @ params["c2"] + params["d2"]
        h2 = np.maximum(a2, 0.0).reshape(n, r1, c1_, f2)
        p2, m2 = _pool(h2)
        fl = np.concatenate([p2.reshape(n, -1), extras], axis=1)
        a3 = fl @ params["w3"] + params["b3"]
        h3 = np.maximum(a3, 0.0)
        drop = None
        if train_mode and args.dropout > 0:
            drop = (rng.random(h3.shape) >= args.dropout).astype(np.float32) / (1 - args.dropout)
            h3 = h3 * drop
        z = h3 @ params["w4"] + params["b4"]
        return z, (cols1, h1, m1, p1, cols2, h2, m2, fl, a3, h3, drop)

    def softmax(a):
        a = a - a.max(axis=-1, keepdims=True)
        e = np.exp(a)
        return e / e.sum(axis=-1, keepdims=True)

    def step_batch(img, extras, yb):
        n = len(img)
        z, (cols1, h1, m1, p1, cols2, h2, m2, fl, a3, h3, drop) = forward(img, extras, True)
        gz = np.zeros_like(z)
        loss = 0.0
        idx = np.arange(n)
        # crowded stones (2+ pawns) are the hard ones: they may weigh more
        crowd = np.where(yb.sum(axis=1) >= 2, args.crowd_weight, 1.0).astype(np.float32) if pawns else 1.0
        for j in range(len(heads)):
            p = softmax(z[:, offs[j]:offs[j + 1]])
            # a pawn (a tile) present weighs more than the many heads that answer "none"
            wt = np.where(yb[:, j] > 0, args.positive_weight, 1.0).astype(np.float32) * crowd
            loss -= float((wt * np.log(p[idx, yb[:, j]] + 1e-9)).mean())
            p[idx, yb[:, j]] -= 1.0
            gz[:, offs[j]:offs[j + 1]] = p * wt[:, None]
        gz /= n * len(heads)
        g = {"w4": h3.T @ gz, "b4": gz.sum(0)}
        gh3 = gz @ params["w4"].T
        if drop is not None:
            gh3 = gh3 * drop
        gh3 = gh3 * (a3 > 0)
        g["w3"] = fl.T @ gh3
        g["b3"] = gh3.sum(0)
        gp2 = (gh3 @ params["w3"].T)[:, :r2 * c2_ * f2].reshape(n, r2, c2_, f2)
        ga2 = (_unpool(gp2, m2, h2.shape) * (h2 > 0)).reshape(-1, f2)
        g["c2"] = cols2.T @ ga2
        g["d2"] = ga2.sum(0)
        gp1 = _col2im3(ga2 @ params["c2"].T, p1.shape)
        ga1 = (_unpool(gp1, m1, h1.shape) * (h1 > 0)).reshape(-1, f1)
        g["c1"] = cols1.T @ ga1
        g["d1"] = ga1.sum(0)
        for k in ("c1", "c2", "w3"):
            g[k] += args.decay * params[k]
        return g, loss / len(heads)

    def predict(xe):
        out = []
        for b in range(0, len(xe), 512):
            img, extras = prepare(xe[b:b + 512], False)
            out.append(forward(img, extras, False)[0])
        return np.concatenate(out)

    def errors(xe, ye):
        z = predict(xe)
        wrong = np.stack([z[:, offs[j]:offs[j + 1]].argmax(-1) != ye[:, j] for j in range(len(heads))], 1)
        busy = (ye > 0).any(axis=1)
        return float(wrong.any(axis=1).mean()), float(wrong.any(axis=1)[busy].mean()) if busy.any() else 0.0

    step = 0
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * epoch / args.epochs))
        perm = rng.permutation(len(xt))
        total = 0.0
        for b in range(0, len(xt), args.batch):
            idx = np.sort(perm[b:b + args.batch])
            img, extras = prepare(xt[idx], True)
            g, loss = step_batch(img, extras, yt[idx])
            total += loss * len(idx)
            step += 1
            for k in params:
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v2[k] = 0.999 * v2[k] + 0.001 * g[k] * g[k]
                mh = m[k] / (1 - 0.9 ** step)
                vh = v2[k] / (1 - 0.999 ** step)
                params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        ev, eb = errors(xv, yv)
        print(f"epoch {epoch + 1:3d}  loss {total / len(xt):.4f}  validation: {100 * ev:.2f}% of {len(xv)} {key}s "
              f"wrong, {100 * eb:.2f}% of those not empty  {time.perf_counter() - t0:.0f}s", flush=True)
    info = (f"{args.kind}: trained on {len(xt)} {key}s of {', '.join(Path(d).name for d in args.data)}, "
            f"{args.epochs} epochs, filters {f1}/{f2}, hidden {h}")
    net = PatchNet((rows, cols, ch), mean, scale, info=info, **params)
    # the numpy inference in vision/ must give the training forward's answer
    check = xv[:64]
    assert np.allclose(net.logits(check.astype(np.float32)), predict(check), atol=1e-3)
    out = Path(args.out or ROOT / "vision" / "models" / f"{args.kind}.npz")
    out.parent.mkdir(parents=True, exist_ok=True)
    net.save(out)
    print(f"weights -> {out} ({out.stat().st_size / 1024:.0f} kB)")
    return 0


def ensemble(args: argparse.Namespace) -> int:
    """Several pawn networks (each from `train pawns`) in one weights file, which the reader averages."""
    from vision.pawnnet import PawnEnsemble, load_net

    nets = []
    for path in args.members:
        net = load_net(path)
        if net is None:
            raise SystemExit(f"{path}: no such weights file")
        nets.append(net)
    out = Path(args.out)
    PawnEnsemble(tuple(nets)).save(out)
    print(f"{len(nets)} networks -> {out} ({out.stat().st_size / 1024:.0f} kB)")
    return 0


def count_labels(z, classes: int):
    """The count head's label per stone of a `features` file: every pawn on it (the uncapped `pawn_n` where the
    file has it; older files: big + small of `pawn_y`, small capped at 2 per colour), capped at classes - 1."""
    import numpy as np

    y = (z["pawn_n"] if "pawn_n" in z.files else z["pawn_y"]).astype(np.int64)
    return np.minimum(y.sum(axis=1), classes - 1)


def count_head(args: argparse.Namespace) -> int:
    """Fit the count head (vision.pawnnet.CountHead: how many pawns of the colours in play stand on a stone,
    0 .. --classes - 1, the last "or more") on a frozen pawn network's hidden layer and output logits: one small
    MLP (Adam, softmax cross-entropy, every stone also mirrored across the lean) per `--seeds` entry, all in one file whose
    members the reader averages. The labels: every pawn on the stone (the features' uncapped `pawn_n` where the file
    has it, else big + small of `pawn_y`, small capped at 2 per colour), capped at `--classes` - 1 ("or more")."""
    import numpy as np

    from vision.pawnnet import COUNT_CLASSES, CountHead, load_pawn_net, mirrored, net_fingerprint, softmax

    net = load_pawn_net(args.net)
    if net is None:
        raise SystemExit(f"{args.net}: no such pawn weights file")
    first = net.members[0]
    classes = args.classes or COUNT_CLASSES

    def inputs(x):
        out = []
        for i in range(0, len(x), 2048):
            xb = x[i:i + 2048].astype(np.float32)
            h, pooled = first.hidden_pooled(xb)
            parts = [h, h @ first.w4 + first.b4] + ([pooled] if args.pooled else [])
            out.append(np.concatenate(parts, axis=1).astype(np.float32))
        return np.concatenate(out)

    def load(files):
        xs, ys = [], []
        for f in files:
            z = np.load(f)
            x = z["pawn_x"]
            t = count_labels(z, classes)
            # a round pawn is as likely seen mirrored (as the reader's second look)
            xs += [inputs(x), inputs(mirrored(first, x.astype(np.float32)))]
            ys += [t, t]
            print(f"{f}: {len(x)} stones", flush=True)
        return np.concatenate(xs), np.concatenate(ys)

    x, y = load(args.data)
    xv, yv = load(args.val_data) if args.val_data else (x[:0], y[:0])
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-3
    xs, xvs = (x - mu) / sd, (xv - mu) / sd
    layers = []
    for seed in args.seeds:
        rng = np.random.default_rng(seed)
        h = args.hidden
        w1 = rng.normal(0, np.sqrt(2 / xs.shape[1]), (xs.shape[1], h)).astype(np.float32)
        b1 = np.zeros(h, np.float32)
        w2 = rng.normal(0, np.sqrt(2 / h), (h, classes)).astype(np.float32)
        b2 = np.zeros(classes, np.float32)
        params = [w1, b1, w2, b2]
        m1 = [np.zeros_like(q) for q in params]
        m2 = [np.zeros_like(q) for q in params]
        t = 0

        def forward(a):
            hh = np.maximum(a @ w1 + b1, 0)
            return hh, softmax(hh @ w2 + b2)

        for ep in range(args.epochs):
            order = rng.permutation(len(xs))
            for i in range(0, len(order), args.batch):
                idx = order[i:i + args.batch]
                a, yb = xs[idx], y[idx]
                hh, pr = forward(a)
                g = pr.copy()
                g[np.arange(len(yb)), yb] -= 1
                wb = np.where(yb >= 3, args.crowd_weight, 1.0)
                g *= (wb / wb.sum())[:, None]
                gh = (g @ w2.T) * (hh > 0)
                grads = [a.T @ gh + args.decay * w1, gh.sum(0), hh.T @ g + args.decay * w2, g.sum(0)]
                t += 1
                for k, (q, gq) in enumerate(zip(params, grads)):
                    m1[k] = 0.9 * m1[k] + 0.1 * gq
                    m2[k] = 0.999 * m2[k] + 0.001 * gq * gq
                    q -= args.lr * (m1[k] / (1 - 0.9 ** t)) / (np.sqrt(m2[k] / (1 - 0.999 ** t)) + 1e-8)
            if len(xvs):
                _, pv = forward(xvs)
                print(f"seed {seed} epoch {ep}: validation accuracy {np.mean(pv.argmax(1) == yv):.4f}, "
                      f"loss {-np.mean(np.log(pv[np.arange(len(yv)), yv] + 1e-9)):.4f}", flush=True)
        layers.append((w1, b1, w2, b2))
    names = ", ".join(Path(f).name for f in args.data)
    info = (f"count head ({classes} classes, the last 'or more'): {len(layers)} members (seeds {' '.join(map(str, args.seeds))}) on {len(x) // 2} stones of "
            f"{names} (+ mirrored), hidden {args.hidden}, {args.epochs} epochs, crowd weight {args.crowd_weight}, "
            f"{'pooled conv maps, ' if args.pooled else ''}on {Path(args.net).name}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    CountHead(mu, sd, tuple(layers), net_fingerprint(net), info, pooled=args.pooled).save(out)
    print(f"{info} -> {out} ({out.stat().st_size / 1024:.0f} kB)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="render training frames")
    r.add_argument("--n", type=int, default=700)
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--seed", type=int, default=1700)
    r.add_argument("--out", required=True)
    r.add_argument("--crowded", type=float, default=0.0,
                   help="share of frames whose pawns are moved together (crowded_observation)")
    r.add_argument("--full-size", type=float, default=0.0, help="share of frames at 4608 x 2592 (else 2304 x 1296)")
    r.add_argument("--early", type=float, default=1.0,
                   help="the game's progress drawn from [0, EARLY) instead of [0, 1) (1: as before)")
    r.add_argument("--first-row", type=float, default=FIRST_ROW_SHARE,
                   help="--crowded: share of the crowded targets on a first-row stone (beside the start crowd)")
    r.add_argument("--rounds", type=int, nargs=2, metavar=("LO", "HI"),
                   help="--crowded: target stones drawn per frame, uniform in [LO, HI] (default: 1-3 as session 19)")
    r.add_argument("--crowd-max", type=int, default=CROWD_MAX,
                   help="--crowded: pawns a target stone is given at most (default 5, as before)")
    f = sub.add_parser("features", help="cut the stone patches of rendered frames")
    f.add_argument("folder")
    f.add_argument("--out", required=True)
    f.add_argument("--keep-empty", type=float, default=0.3)
    f.add_argument("--jobs", type=int, default=1)
    f.add_argument("--pawns-only", action="store_true", help="skip the tile spots' patches")
    f.add_argument("--from-frame", action=argparse.BooleanOptionalAction, default=None,
                   help="pawn patches cut from the frame itself (default: as PawnNetConfig.from_frame)")
    f.add_argument("--step-mm", type=float, nargs="*",
                   help="pawn patch pitch(es); several write one file each (OUT-frame1.5.npz, ...)")
    f.add_argument("--also-view", action="store_true", help="also the board view's patches (OUT-view2.npz)")
    f.add_argument("--supersample", type=int, default=0,
                   help="also each frame geometry with k x k sub-samples a sample (OUT-frame2x2.npz)")
    sc = sub.add_parser("score", help="per-element pawn error of weights on frames (dev harness)")
    sc.add_argument("folders", nargs="+")
    sc.add_argument("--nets", nargs="+", required=True, help="PATH[:frame|view[:STEP_MM]]")
    t = sub.add_parser("train", help="fit a classifier")
    t.add_argument("kind", choices=("pawns", "tiles"))
    t.add_argument("data", nargs="+", help="feature files written by `features`")
    t.add_argument("--out", help="weights file (default: vision/models/KIND.npz)")
    t.add_argument("--filters1", type=int, default=16)
    t.add_argument("--filters2", type=int, default=32)
    t.add_argument("--hidden", type=int, default=64)
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--batch", type=int, default=128)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--decay", type=float, default=1e-4)
    t.add_argument("--dropout", type=float, default=0.2)
    t.add_argument("--jitter", type=float, default=0.08, help="colour jitter (log units) per patch")
    t.add_argument("--contrast", type=float, default=0.0, help="pawns: contrast jitter (1 +- this) of the patch")
    t.add_argument("--saturation", type=float, default=0.0, help="pawns: chroma jitter (1 +- this) of the patch")
    t.add_argument("--positive-weight", type=float, default=2.0, help="loss weight of a present pawn or tile")
    t.add_argument("--crowd-weight", type=float, default=1.0, help="loss weight of a stone with 2+ pawns")
    t.add_argument("--init", help="start from these weights instead of at random")
    t.add_argument("--init-step-mm", type=float,
                   help="the patch pitch of --init's weights when they differ from the data's (default: the config's)")
    t.add_argument("--val", type=float, default=0.1)
    t.add_argument("--val-data", nargs="*", help="feature files held out for validation (default: a share)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--init-member", type=int, default=0,
                   help="--init is an ensemble (several networks in one file): start from this member")
    e = sub.add_parser("ensemble", help="join trained pawn networks into one weights file (vision.pawnnet.PawnEnsemble)")
    e.add_argument("members", nargs="+", help="weights files written by `train pawns` (one network each)")
    e.add_argument("--out", default=str(ROOT / "vision" / "models" / "pawns.npz"))
    ch = sub.add_parser("count-head", help="fit the count head on a frozen pawn network (vision.pawnnet.CountHead)")
    ch.add_argument("data", nargs="+", help="feature files written by `features` (pawn patches)")
    ch.add_argument("--val-data", nargs="*", help="feature files held out for validation")
    ch.add_argument("--net", default=str(ROOT / "vision" / "models" / "pawns.npz"), help="the pawn network it reads")
    ch.add_argument("--out", default=str(ROOT / "vision" / "models" / "pawns-count.npz"))
    ch.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="one member per seed (averaged)")
    ch.add_argument("--classes", type=int, default=0,
                    help="pawn totals 0 .. CLASSES-1, the last 'or more' (default vision.pawnnet.COUNT_CLASSES)")
    ch.add_argument("--pooled", action="store_true",
                    help="its inputs also the conv maps' per-channel mean and max (PatchNet.hidden_pooled)")
    ch.add_argument("--crowd-weight", type=float, default=1.0, help="loss weight of a stone of 3+ pawns")
    ch.add_argument("--hidden", type=int, default=32)
    ch.add_argument("--epochs", type=int, default=12)
    ch.add_argument("--batch", type=int, default=256)
    ch.add_argument("--lr", type=float, default=1e-3)
    ch.add_argument("--decay", type=float, default=1e-4)
    args = p.parse_args(argv)
    return {"render": render, "features": features, "train": train, "score": score,
            "ensemble": ensemble, "count-head": count_head}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
