"""The numeral classifier: a small multilayer perceptron (numpy) that reads one corner of a card.

Why learned: at 1–1.5 frame pixels per mm a printed numeral is 10–15 px tall and blurred; plain
template correlation then scores every blob alike (5, 6, 8, 9 and 3, 7 mix). The classifier is
trained on the components folder's own card images made as bad as a camera makes them (scale down to
0.8–2.4 px/mm, blur, noise, JPEG, light colour and brightness, a shifted crop, the next card covering
the bottom), so it learns what tells the values apart at that resolution and nothing of any renderer.

Input: the glyph box of one corner (CardArt.boxes) in the whiteness channel, resampled to
FEATURE_SIZE and normalised (zero mean, unit norm). Output: a probability per label of LABELS.
Weights live in the components folder as `numerals.npz` (the bundled set has its own);
`keltis-cam teach DIR` trains them for another folder in about half a minute. A folder without them
is taught on first use (`numeral_model_for`): a group that scans its own cards, or the second art
set, never reads its numerals with the bundled set's templates by mistake. Those weights are kept in
the user's cache (`cache_dir`), named by a fingerprint of the folder's card pictures, so a changed
card is taught again and the folder itself is never written to.
"""
from __future__ import annotations

import hashlib
import logging
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

LABELS: tuple[str, ...] = (*(str(v) for v in range(11)), "E")
FEATURE_SIZE = (14, 18)          # (w, h) of the resampled glyph box
WEIGHTS_FILE = "numerals.npz"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TeachConfig:
    """How a components folder's numerals are taught (`keltis-cam teach` and the first use alike)."""

    per_face: int = 150      # degraded corners per card face
    epochs: int = 25
    seed: int = 1


def features(patch: Any) -> Any:
    """One glyph-box patch (whiteness, any size) → the classifier's input vector."""
    import cv2
    import numpy as np

    p = cv2.resize(np.asarray(patch, np.float32), FEATURE_SIZE, interpolation=cv2.INTER_AREA)
    p = p - float(p.mean())
    return (p / (float(np.linalg.norm(p)) + 1e-6)).ravel() * math.sqrt(p.size)


@dataclass(frozen=True, eq=False)
class NumeralModel:
    """Weights of the perceptron: x → relu(x W1 + b1) → W2 + b2 → softmax."""

    w1: Any
    b1: Any
    w2: Any
    b2: Any

    def probabilities(self, x: Any) -> Any:
        import numpy as np

        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        z = h @ self.w2 + self.b2
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)

    def save(self, path: str | Path) -> None:
        import numpy as np

        np.savez_compressed(path, w1=self.w1.astype(np.float16), b1=self.b1.astype(np.float32),
                            w2=self.w2.astype(np.float16), b2=self.b2.astype(np.float32),
                            labels=np.array(LABELS), size=np.array(FEATURE_SIZE))


@lru_cache(maxsize=8)
def load_numeral_model(folder: str | Path) -> NumeralModel | None:
    """The weights of a components folder, or None when it has none (the reader then correlates templates)."""
    return load_weights(Path(folder) / WEIGHTS_FILE)


def load_weights(path: Path) -> NumeralModel | None:
    """A weights file (NumeralModel.save), or None when there is none or it fits other labels or inputs."""
    import numpy as np

    if not path.is_file():
        return None
    d = np.load(path)
    if tuple(str(x) for x in d["labels"]) != LABELS or tuple(int(x) for x in d["size"]) != FEATURE_SIZE:
        return None
    return NumeralModel(d["w1"].astype(np.float32), d["b1"], d["w2"].astype(np.float32), d["b2"])


def cache_dir() -> Path:
    """Where what keltis-cam works out once for a machine is kept: $KELTIS_CAM_CACHE, else
    $XDG_CACHE_HOME/keltis-cam, else ~/.cache/keltis-cam."""
    if os.environ.get("KELTIS_CAM_CACHE"):
        return Path(os.environ["KELTIS_CAM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "keltis-cam"


def art_fingerprint(comps: Any, config: TeachConfig = TeachConfig()) -> str:
    """A digest of what the numeral classifier learns from: the catalogue's card section and every
    card picture of the folder (a rescanned card changes it; a new board picture does not), and how."""
    import json

    h = hashlib.sha256()
    h.update(json.dumps(comps.catalogue.get("card", {}), sort_keys=True).encode())
    h.update(repr((LABELS, FEATURE_SIZE, config)).encode())
    for path in sorted(p for p in Path(comps.folder).iterdir() if p.name.startswith("card-") and p.is_file()):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:20]


def taught_weights_path(comps: Any, config: TeachConfig = TeachConfig()) -> Path:
    """Where the weights taught on first use for this folder's cards are kept."""
    return cache_dir() / f"numerals-{art_fingerprint(comps, config)}.npz"


def teach(comps: Any, config: TeachConfig = TeachConfig(), log_line: Any = None) -> tuple[NumeralModel, float]:
    """Train the classifier on the folder's own card faces: (model, accuracy on fresh degraded corners)."""
    X, y = training_set(comps, config.per_face, seed=config.seed)
    Xv, yv = training_set(comps, max(10, config.per_face // 5), seed=config.seed + 1000)
    if log_line:
        log_line(f"{len(X)} training corners, {len(Xv)} to check")
    model = train(X, y, epochs=config.epochs, seed=config.seed, log=log_line)
    return model, accuracy(model, Xv, yv)


#: (folder, fingerprint) -> the model taught or loaded from the cache in this process
_TAUGHT: dict[tuple[str, str], NumeralModel] = {}


def numeral_model_for(comps: Any, teach_missing: bool = True, config: TeachConfig = TeachConfig()) -> NumeralModel | None:
    """The numeral classifier for a components folder: its own weights (numerals.npz) when it has
    them; else weights taught for its card pictures earlier (the cache); else, once, taught now
    (about half a minute on a PC, a few on a Pi: logged) and kept in the cache. None when the folder
    has no cards, or when `teach_missing` is off and nothing was taught yet (the reader then
    correlates templates)."""
    own = load_numeral_model(str(comps.folder))
    if own is not None or not comps.has_cards:
        return own
    path = taught_weights_path(comps, config)
    key = (str(Path(comps.folder).resolve()), path.name)
    if key in _TAUGHT:
        return _TAUGHT[key]
    model = load_weights(path)
    if model is None:
        if not teach_missing:
            return None
        import time

        log.warning("%s has no numeral weights (%s): teaching the card reader its cards once, "
                    "about half a minute (a few minutes on a Raspberry Pi)", comps.folder, WEIGHTS_FILE)
        t0 = time.perf_counter()
        model, acc = teach(comps, config)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
            model.save(tmp)
            os.replace(tmp, path)       # whole or not at all: another process may be reading it
            where = f"kept in {path}"
        except OSError as exc:          # a read-only home: taught again next time, still read right now
            where = f"not kept ({exc})"
        log.warning("taught in %.0f s, %.1f %% of fresh corners right; %s", time.perf_counter() - t0,
                    100 * acc, where)
        # the saved file holds float16 weights: read back what a later run will use, so both read alike
        model = load_weights(path) or model
    _TAUGHT[key] = model
    return model


def numeral_source(comps: Any) -> str:
    """Which numeral classifier numeral_model_for gives this folder, in words (eval's header)."""
    if load_numeral_model(str(comps.folder)) is not None:
        return f"the folder's own weights ({Path(comps.folder) / WEIGHTS_FILE})"
    if not comps.has_cards:
        return "none (the folder has no card pictures)"
    path = taught_weights_path(comps)
    if path.is_file():
        return f"taught for this folder's cards ({path})"
    return "templates (nothing taught yet)"


# ----------------------------------------------------------------------------- training data

def training_set(comps: Any, n_per_face: int, seed: int = 0, view_ppm: float = 2.5) -> tuple[Any, Any]:
    """(X, y): every face's corners of the components folder, degraded as a camera would (see the
    module docstring), as classifier inputs and label indices."""
    import cv2
    import numpy as np

    from .cardart import _base_art, _faces, _whiteness

    rng = np.random.default_rng(seed)
    cream, _fields, faces = _base_art(comps)
    ppm = comps.card_ppm
    glyph = glyph_boxes(comps)
    xs, ys = [], []
    for kind, labels in faces.items():
        for label, img in labels.items():
            yi = LABELS.index(label)
            for _ in range(n_per_face):
                corner = rng.choice(list(glyph))
                x0, y0, x1, y1 = glyph[corner]
                # a piece of the card around the glyph box, a little turned
                pad = 4.0
                cx0, cy0 = max(0.0, x0 - pad), max(0.0, y0 - pad)
                cx1, cy1 = x1 + pad, y1 + pad
                src = img[int(cy0 * ppm):int(cy1 * ppm), int(cx0 * ppm):int(cx1 * ppm)].astype(np.float32)
                # the next card may cover the bottom of the box (covered strips of 11-20 mm)
                if rng.random() < 0.4:
                    cut_mm = rng.uniform(y0 + 0.65 * (y1 - y0), y1 + 1.0)
                    cut = int((cut_mm - cy0) * ppm)
                    if 0 < cut < src.shape[0]:
                        src[cut:cut + int(2.2 * ppm)] = cream
                        src[cut + int(2.2 * ppm):] = np.asarray(img[int(30 * ppm), int(28 * ppm)], np.float32)
                ang = rng.normal(0, 1.2)
                h, w = src.shape[:2]
                m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, 1.0)
                src = cv2.warpAffine(src, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
                # light: colour, brightness, a gradient
                tint = np.exp(rng.normal(0, 0.12, 3)).astype(np.float32)
                gain = math.exp(rng.normal(-0.3, 0.4))
                src = src * tint * gain
                # the camera: down to its px/mm, blur, noise, JPEG; then up to the view's
                seen = rng.uniform(0.8, 2.4)
                small = cv2.resize(src, None, fx=seen / ppm, fy=seen / ppm, interpolation=cv2.INTER_AREA)
                small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3))
                small = small + rng.normal(0, rng.uniform(0.5, 4.0), small.shape).astype(np.float32)
                small = np.clip(small, 0, 255).astype(np.uint8)
                ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
                small = cv2.imdecode(buf, cv2.IMREAD_COLOR).astype(np.float32)
                view = cv2.resize(small, None, fx=view_ppm / seen, fy=view_ppm / seen, interpolation=cv2.INTER_LINEAR)
                est_cream = cream * tint * gain * np.exp(rng.normal(0, 0.06, 3)).astype(np.float32)
                wh = _whiteness(view, est_cream)
                # the glyph box, where the reader would cut it (off by its localisation error)
                sx, sy = rng.normal(0, 0.5, 2)
                bx0 = int(round((x0 - cx0 + sx) * view_ppm))
                by0 = int(round((y0 - cy0 + sy) * view_ppm))
                bw, bh = int(round((x1 - x0) * view_ppm)), int(round((y1 - y0) * view_ppm))
                patch = wh[max(0, by0):by0 + bh, max(0, bx0):bx0 + bw]
                if patch.shape[0] < bh // 2 or patch.shape[1] < bw // 2:
                    continue
                xs.append(features(patch))
                ys.append(yi)
    return np.array(xs, np.float32), np.array(ys, np.int64)


def glyph_boxes(comps: Any) -> dict[str, tuple[float, float, float, float]]:
    """Each corner's glyph box (x0, y0, x1, y1 card mm) as the reader cuts it (CardArt.boxes)."""
    from .cardart import card_art

    art = card_art(comps, 2.5, 1.5)
    return {k: (x, y, x + w, y + h) for k, (x, y, w, h) in art.boxes.items()}


def train(X: Any, y: Any, hidden: int = 64, epochs: int = 40, seed: int = 0, lr: float = 0.01,
          log: Any = None) -> NumeralModel:
    """Adam on the cross-entropy, mini-batches of 128, a little weight decay."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n, d = X.shape
    k = len(LABELS)
    params = {"w1": rng.normal(0, math.sqrt(2 / d), (d, hidden)).astype(np.float32),
              "b1": np.zeros(hidden, np.float32),
              "w2": rng.normal(0, math.sqrt(2 / hidden), (hidden, k)).astype(np.float32),
              "b2": np.zeros(k, np.float32)}
    m = {p: np.zeros_like(v) for p, v in params.items()}
    v2 = {p: np.zeros_like(v) for p, v in params.items()}
    t = 0
    for ep in range(epochs):
        order = rng.permutation(n)
        loss_sum = 0.0
        for i in range(0, n, 128):
            idx = order[i:i + 128]
            xb, yb = X[idx], y[idx]
            h_pre = xb @ params["w1"] + params["b1"]
            h = np.maximum(h_pre, 0)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            loss_sum += float(-np.log(p[np.arange(len(yb)), yb] + 1e-9).sum())
            g = p
            g[np.arange(len(yb)), yb] -= 1
            g /= len(yb)
            grads = {"w2": h.T @ g + 1e-4 * params["w2"], "b2": g.sum(0)}
            gh = (g @ params["w2"].T) * (h_pre > 0)
            grads["w1"] = xb.T @ gh + 1e-4 * params["w1"]
            grads["b1"] = gh.sum(0)
            t += 1
            for p_name, gr in grads.items():
                m[p_name] = 0.9 * m[p_name] + 0.1 * gr
                v2[p_name] = 0.999 * v2[p_name] + 0.001 * gr * gr
                mh = m[p_name] / (1 - 0.9 ** t)
                vh = v2[p_name] / (1 - 0.999 ** t)
                params[p_name] -= (lr * (0.5 if ep > epochs * 0.6 else 1.0)) * mh / (np.sqrt(vh) + 1e-8)
        if log:
            log(f"epoch {ep + 1}/{epochs}: loss {loss_sum / n:.4f}")
    return NumeralModel(params["w1"], params["b1"], params["w2"], params["b2"])


def accuracy(model: NumeralModel, X: Any, y: Any) -> float:
    import numpy as np

    return float((model.probabilities(X).argmax(axis=1) == y).mean())
