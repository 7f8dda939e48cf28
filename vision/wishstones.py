"""Wish stones held: the round tokens lying in a seat area, counted by colour (FORMATS §2 `wish`).

NWNZ: each wish stone is a disc showing its colour's gem (components `wish-<colour>`), the base
board's wish tiles are all alike (`tile-wish-any`, counted as "any"); a stone lying face down
(`wish-back`) is found too but not counted (its colour is hidden).

    seat view (half resolution) ─ candidates: a coarse box filter (the view halved again), the gem's
    square against the token's rim and the token's square against the table around it, local maxima
    outside the card rows ─ each verified by its correlation with every kind's ring-averaged template
    (a round token looks the same however it lies; the bank is built once per art set and resolution)
    a pixel or two around it ─ best first, at least `min_apart` diameters apart (two stones may touch)
    ─ colour: the gem's colour over the token's own rim (light and exposure cancel) nearest a kind's
    in the art, its contrast allowed to be flattened by blur and glare.

    python -m vision.wishstones FRAME.jpg --overlay out.png
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.cards import COLOURS


@dataclass(frozen=True)
class WishStoneConfig:
    min_score: float = 0.65       # correlation with a token kind's ring template (structure: gem, rim)
    min_apart: float = 0.8         # two finds at least this many diameters apart (touching stones: 1.0)
    row_margin_mm: float = 3.0     # no token under a card row
    coarse_ppm: float = 0.6        # candidates are searched at about this many px/mm (the view over a whole factor)
    view_ppm: float | None = None  # searched on a remap of their own at half this px/mm where the rows' view has another
                                   # scale (the stones' figures were tuned at 1.25 px/mm: 2.5); None: on the rows' view
    inner: float = 0.45            # candidate filter: a square this many diameters wide (the gem) ...
    outer: float = 0.95            # ... against the square ring around it out to this many (the rim) ...
    around: float = 1.5            # ... and the token's square against the table around it out to this many
    min_contrast: float = 0.06     # a candidate's inner square differs this much from its ring (over the stock)
    max_candidates: int = 60       # per seat, the strongest first
    search_step: int = 3           # each candidate verified on a grid this many view px apart around it ...
    pre_margin: float = 0.25       # ... and a pixel around the grid's best where that scores min_score less this
    contrast_range: tuple[float, float] = (0.12, 1.3)  # a gem's contrast to its rim, seen over the art's (glare and
                                                      # gloss over a gem can leave an eighth of it) ...
    flattened_below: float = 0.3   # ... but a gem fitted flatter than this is read only when its kind is clearly the
    flattened_margin: float = 0.75  # nearest (this fraction of the next one's distance); else as if no flatter than that
    max_colour_dist: float = 0.5   # a token's gem colour this near its kind's (log units, see colour_distance)
    scales: tuple[float, ...] = (1.0, 0.9)  # each candidate verified against the templates at these sizes (a
    #                                        token seen a little smaller or larger than the art's: another set's
    #                                        stones, the seat's scale off by the pose's error), the best kept
    verify_noise: float | None = 0.02  # a seat view whose pixel noise (over the stock's white, `view_noise`) is
    #                                    above this is smoothed for the correlation until about this is left: in
    #                                    dim light a token's correlation sinks under min_score in the noise (the
    #                                    ring templates are smooth); its colour is still read unsmoothed. None: never


@dataclass
class TokenFind:
    u: float
    v: float
    colour: str
    score: float


def _ring_average(img: Any) -> Any:
    """A round image averaged over rotations (so it matches however the token lies)."""
    import cv2
    import numpy as np

    h, w = img.shape[:2]
    acc = np.zeros_like(img, np.float32)
    for a in range(0, 360, 15):
        m = cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), a, 1.0)
        acc += cv2.warpAffine(img.astype(np.float32), m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return acc / 24


@dataclass(frozen=True, eq=False)
class TokenBank:
    """The token kinds a seat may hold at one view resolution (built once per art set and resolution):
    each kind's ring-averaged template over the disc, zero-mean per channel, unit norm, as one row of
    `vectors` (the masked pixels' B, G, R), so a patch's correlation with every kind is one product."""

    kinds: tuple[str, ...]
    size: int                      # template side, view px
    diameter_mm: float
    mask: Any = field(repr=False)      # size×size bool: the disc
    vectors: Any = field(repr=False)   # len(kinds) × (mask pixels · 3) float32
    products: Any = field(repr=False)  # (mask pixels · 3) × (len(kinds) + 3): the vectors and channel pickers
    art_white: Any = field(repr=False)   # BGR of the card stock in the art: the colours' reference
    gem: Any = field(repr=False)       # size×size bool: the token's middle (a stone's gem)
    band: Any = field(repr=False)      # size×size bool: the ring around it (a stone's rim)
    gem_logs: Any = field(repr=False)  # len(kinds) × 3: log of the middle's BGR over the ring's


def gem_log(patch: Any, gem: Any, band: Any) -> Any:
    """log(middle's mean BGR / ring's): a token's colour with the light's colour and brightness cancelled."""
    import numpy as np

    g = patch[gem].reshape(-1, 3).mean(axis=0)
    w = patch[band].reshape(-1, 3).mean(axis=0)
    return np.log(np.maximum(g, 1.0) / np.maximum(w, 1.0))


def colour_distance(config: "WishStoneConfig", logs: Any, m: Any,
                    contrast_range: tuple[float, float] | None = None) -> Any:
    """Distance of a gem log `m` (3) to each kind's `logs` (K×3) as the camera shows it: blur, glare and
    the camera's response flatten a gem against its rim by a factor (`contrast_range`), so each kind's
    log is first scaled to fit best within that range."""
    import numpy as np

    logs = np.asarray(logs, np.float32)
    m = np.asarray(m, np.float32)
    norm2 = (logs * logs).sum(axis=-1)
    alpha = np.clip((logs @ m) / np.maximum(norm2, 1e-6), *(contrast_range or config.contrast_range))
    return np.linalg.norm(m - alpha[..., None] * logs, axis=-1)


def nearest_kind(config: "WishStoneConfig", logs: Any, m: Any) -> tuple[int, float]:
    """The kind whose gem `m` is nearest (`colour_distance`) and how near. A gem flattened below
    `flattened_below` (glare over it) is near every kind's faint version, a plain rim too: such a fit is
    taken only when clearly the nearest, else the gem is read as no flatter than that."""
    import numpy as np

    logs = np.asarray(logs, np.float32)
    dist = colour_distance(config, logs, m)
    order = np.argsort(dist)
    best = int(order[0])
    alpha = float(logs[best] @ np.asarray(m, np.float32)) / max(float(logs[best] @ logs[best]), 1e-6)
    if alpha < config.flattened_below and len(order) > 1 and dist[best] > config.flattened_margin * dist[order[1]]:
        dist = colour_distance(config, logs, m, (config.flattened_below, config.contrast_range[1]))
        best = int(np.argmin(dist))
    return best, float(dist[best])


def _with_channel_sums(vectors: Any) -> Any:
    """`vectors` with three more rows that pick every third value: one product with a patch then gives its
    correlations and its channel sums (`_correlations`)."""
    import numpy as np

    pick = np.zeros((3, vectors.shape[1]), np.float32)
    for c in range(3):
        pick[c, c::3] = 1.0
    return np.concatenate([vectors, pick]).T.copy()


def _correlations(px: Any, products: Any) -> Any:
    """`_zero_mean_unit(px) @ vectors.T` without making the zero-mean copy (`products`:
    `_with_channel_sums(vectors)`): the vectors are zero-mean per channel, so a patch's channel means drop
    out of the product and only its norm needs them."""
    import numpy as np

    n, k = px.shape[-2], products.shape[1] - 3
    flat = px.reshape(*px.shape[:-2], -1)
    both = flat @ products
    sums = both[..., k:]
    var = np.einsum("...i,...i->...", flat, flat) - np.einsum("...c,...c->...", sums, sums) / n
    return both[..., :k] / (np.sqrt(np.maximum(var, 0.0)) + 1e-6)[..., None]


def _zero_mean_unit(a: Any) -> Any:
    """Rows of (…, pixels, 3): per channel zero mean, then each row of unit norm (flattened)."""
    import numpy as np

    a = a - a.mean(axis=-2, keepdims=True)
    flat = a.reshape(*a.shape[:-2], -1)
    return flat / (np.linalg.norm(flat, axis=-1, keepdims=True) + 1e-6)


@lru_cache(maxsize=32)
def _token_art(comps: Any, key: str) -> Any:
    """A token's picture over mid grey, ring-averaged, at the art's resolution (None: no such picture):
    token_bank's part that no resolution changes, worked out once (session 36 wt36-warm: by the warm-up)."""
    import numpy as np

    got = comps.image(key)
    if got is None:
        return None
    bgr, alpha = got
    img = bgr * alpha[..., None] + np.float32(128) * (1 - alpha[..., None])
    return _ring_average(img)


@lru_cache(maxsize=32)
def token_bank(comps: Any, kinds: tuple[str, ...], ppm: float, seen_ppm: float) -> TokenBank | None:
    """Every kind's template at `ppm`, as blurred as a camera resolving `seen_ppm` shows it (None: no art)."""
    import cv2
    import numpy as np

    temps: dict[str, Any] = {}
    diameter = 0.0
    for kind in kinds:
        key = "tile-wish-any" if kind == "any" else f"wish-{kind}"
        img = _token_art(comps, key)
        if img is None:
            continue
        art_ppm = comps.tile_ppm if kind == "any" else comps.wish_ppm
        seen = cv2.resize(img, None, fx=seen_ppm / art_ppm, fy=seen_ppm / art_ppm, interpolation=cv2.INTER_AREA)
        diameter = max(diameter, img.shape[1] / art_ppm)
        size = int(round(img.shape[1] / art_ppm * ppm))
        temps[kind] = cv2.resize(seen, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    if not temps or len({t.shape for t in temps.values()}) != 1:
        return None
    size = next(iter(temps.values())).shape[0]
    yy, xx = np.mgrid[0:size, 0:size]
    rr = np.hypot(xx - size / 2 + 0.5, yy - size / 2 + 0.5) / (size / 2)
    # only the disc counts (outside it lies whatever table); every other pixel of it is enough (half the work)
    mask = (rr <= 0.95) & ((yy + xx) % 2 == 0)
    vectors = _zero_mean_unit(np.stack([t[mask] for t in temps.values()])).astype(np.float32)
    try:
        from .cardart import _base_art

        white = np.asarray(_base_art(comps)[0], np.float32)
    except (ValueError, KeyError):
        white = np.full(3, 235.0, np.float32)
    gem, band = rr < 0.3, (rr > 0.65) & (rr < 0.88)
    logs = np.stack([gem_log(t, gem, band) for t in temps.values()]).astype(np.float32)
    return TokenBank(tuple(temps), size, diameter, mask, vectors, _with_channel_sums(vectors), white, gem, band, logs)


def token_candidates(config: WishStoneConfig, view: Any, ppm: float, diameter_mm: float, cream: Any,
                     rows_mask: Any | None = None) -> list[tuple[float, float, float]]:
    """Where a token may lie: centres (view px) of round things of the token's size that differ from what
    lies around them, strongest first. A coarse box filter: the mean colour over the stock's (light and
    exposure cancel) of a square the token covers, against the square ring around it."""
    import cv2
    import numpy as np

    f = max(1, int(round(ppm / config.coarse_ppm)))     # a whole factor: the fast way down
    # (halving, bilinear is the 2×2 mean and far faster than INTER_AREA)
    small = cv2.resize(view, (view.shape[1] // f, view.shape[0] // f),
                       interpolation=cv2.INTER_LINEAR if f == 2 else cv2.INTER_AREA)
    c = small.shape[1] / view.shape[1]
    norm = small.astype(np.float32) * (1.0 / np.maximum(np.asarray(cream, np.float32), 1.0))
    d = diameter_mm * ppm * c
    # two rings: the gem against the token's rim, the whole token against the table around it (on a
    # table of the rim's colour the first finds it, on a plain one the second; their sum peaks at the centre)
    contrast = None
    for a, b in ((config.inner, config.outer), (config.outer, config.around)):
        ki = max(3, int(round(a * d)) | 1)
        ko = max(ki + 2, int(round(b * d)) | 1)
        inner = cv2.blur(norm, (ki, ki), borderType=cv2.BORDER_REFLECT)
        outer = cv2.blur(norm, (ko, ko), borderType=cv2.BORDER_REFLECT)
        ai, ao = ki * ki, ko * ko
        # inner − ring mean, ring = (outer·ao − inner·ai) / (ao − ai)
        diff = cv2.addWeighted(inner, 1.0 + ai / (ao - ai), outer, -ao / (ao - ai), 0.0)
        part = cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), np.ones((1, 3), np.float32)))
        contrast = part if contrast is None else cv2.add(contrast, part)
    peaks = cv2.dilate(contrast, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(0.6 * d) | 1),) * 2))
    ys, xs = np.nonzero((contrast >= peaks) & (contrast >= config.min_contrast))
    x, y = (xs + 0.5) / c - 0.5, (ys + 0.5) / c - 0.5
    h, w = view.shape[:2]
    edge = 0.4 * diameter_mm * ppm
    # a token cut by the view's edge is the filter's border, not a token; none lies under a card row
    ok = (x >= edge) & (x < w - edge) & (y >= edge) & (y < h - edge)
    if rows_mask is not None:
        xi = np.clip(np.round(x).astype(int), 0, rows_mask.shape[1] - 1)
        yi = np.clip(np.round(y).astype(int), 0, rows_mask.shape[0] - 1)
        ok &= rows_mask[yi, xi] == 0
    idx = np.nonzero(ok)[0]
    strength = contrast[ys[idx], xs[idx]]
    idx = idx[np.argsort(-strength, kind="stable")[:config.max_candidates]]
    out = [(float(x[i]), float(y[i]), float(contrast[ys[i], xs[i]])) for i in idx]
    return out


def view_noise(view: Any, ref: Any) -> float:
    """A seat view's pixel noise over the stock's white `ref`: the robust spread of its grey's residual from
    the 3x3 mean (a token's or card's edges are few: the median ignores them), read at every other pixel."""
    import cv2
    import numpy as np

    g = cv2.transform(view.astype(np.float32), (np.ones((1, 3)) / (3.0 * float(np.mean(ref)))).astype(np.float32))
    # only every other pixel is read: cut before subtracting (the same values, a quarter of the work)
    r = np.abs(g[::2, ::2] - cv2.blur(g, (3, 3))[::2, ::2])
    # 1.4826: a median absolute value to a normal's sigma; sqrt(8/9): what a 3x3 mean's residual keeps of
    # white noise
    return _median_nonneg(r) * 1.4826 / float(np.sqrt(8.0 / 9.0))


def _median_nonneg(a: Any) -> float:
    """`np.median` of a float32 array of no negative values (nor NaN), bit for bit, in about a third of its
    time (numpy's partition of the whole array was most of `view_noise`'s cost): a non-negative float's bits,
    read as an int, order as its value, so a histogram of their top bits finds the bucket holding each middle
    element and only that bucket is partitioned."""
    import numpy as np

    u = np.ascontiguousarray(a, np.float32).reshape(-1).view(np.int32)
    # a sign bit (a negative, -0.0) or a NaN's bits would order wrong
    if u.size == 0 or int(u.min()) < 0 or int(u.max()) > 0x7F800000:
        raise ValueError("_median_nonneg: needs a non-empty array of no negative values, -0.0 or NaN")
    n = u.size
    ks = sorted({(n - 1) // 2, n // 2})  # the middle element, or the two averaged (as np.median)
    top = u >> 16  # buckets of 2**16 neighbouring floats: few enough to count, each small to partition
    cum = np.cumsum(np.bincount(top))
    buckets = [int(np.searchsorted(cum, k, side="right")) for k in ks]
    vals: list[Any] = []
    for b in dict.fromkeys(buckets):
        below = int(cum[b - 1]) if b else 0
        kk = [k - below for k, kb in zip(ks, buckets) if kb == b]
        part = np.partition(u[top == b], kk)
        vals += [part[k] for k in kk]
    # np.median's own last step: the float32 mean of the middle element(s)
    return float(np.mean(np.array(vals, np.int32).view(np.float32)))


def find_tokens(config: WishStoneConfig, view: Any, ppm: float, seen_ppm: float, comps: Any,
                kinds: tuple[str, ...], rows_mask: Any | None = None, cream: Any | None = None) -> list[TokenFind]:
    """Tokens of `kinds` in a seat view at `ppm` (u, v in view pixels / ppm, before the view margin).

    Candidates come from a coarse round-contrast filter (`token_candidates`); each is verified by its
    correlation with every kind's ring template a few pixels around it (the view's colours brought to
    the art's by the card stock under this light, `cream`); the kind is the gem colour's over the rim
    (`gem_log`, `colour_distance`). A patch that correlates but shows no gem colour of a kind (table
    grain) is no token; a face-down stone is found but not counted (`count_held`)."""
    import numpy as np

    banks = [token_bank(comps, kinds, ppm * s, round(seen_ppm, 1)) for s in config.scales or (1.0,)]
    if any(b is None for b in banks):
        return []
    bank = banks[0]
    if view.shape[0] < bank.size or view.shape[1] < bank.size:
        return []
    ref = np.asarray(cream, np.float32) if cream is not None else np.median(view.reshape(-1, 3), 0) * 1.3
    cands = token_candidates(config, view, ppm, bank.diameter_mm, ref, rows_mask)
    if not cands:
        return []
    seen = view
    if config.verify_noise:
        noise = view_noise(view, ref)
        if noise > config.verify_noise:
            import cv2

            # a Gaussian of sigma s px leaves about 1 / (2 s sqrt(pi)) of white noise
            sigma = noise / (config.verify_noise * 2.0 * float(np.sqrt(np.pi)))
            seen = cv2.GaussianBlur(view, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    # each candidate's best place and score over the template sizes (centres compared: sizes differ); a
    # further size looks again only at the candidates not yet up to min_score
    best: dict[int, tuple[float, float, float, Any, Any]] = {}
    todo = list(range(len(cands)))
    for bank in banks:
        for i, score, cu, cv_, patch in _verified(config, seen, [cands[i] for i in todo], bank, ref, todo, view):
            if i not in best or score > best[i][0]:
                best[i] = (score, cu, cv_, patch, bank)
        todo = [i for i in todo if i not in best or best[i][0] < config.min_score]
        if not todo:
            break
    scored = sorted(best.values(), key=lambda t: -t[0])
    finds: list[TokenFind] = []
    for score, cu, cv_, patch, bank in scored:
        if score < config.min_score:
            break
        if any(np.hypot(cu - f.u * ppm, cv_ - f.v * ppm) < config.min_apart * banks[0].size for f in finds):
            continue
        # its colour: the gem over the token's own rim, against each kind's in the art
        kind_i, d = nearest_kind(config, bank.gem_logs, gem_log(patch, bank.gem, bank.band))
        if len(bank.kinds) == 1:
            # a lone kind (the base board's wish tiles) must also be nearer its colour than a plain patch
            if d >= float(np.linalg.norm(gem_log(patch, bank.gem, bank.band))):
                kind_i = -1
        if kind_i < 0 or d > config.max_colour_dist:
            continue
        finds.append(TokenFind(cu / ppm, cv_ / ppm, bank.kinds[kind_i], score))
    return finds


def _verified(config: WishStoneConfig, view: Any, cands: list[tuple[float, float, float]], bank: TokenBank,
              ref: Any, names: list[int], colour_view: Any = None) -> list[tuple[int, float, float, float, Any]]:
    """Candidates verified by one bank: (its name in `names`, best correlation, centre u, v in view px, the
    patch there, cut from `colour_view` when given: the view unsmoothed) for those that come near min_score
    (within pre_margin)."""
    import cv2
    import numpy as np

    size, r = bank.size, config.search_step + 1
    pad = size // 2 + r + 1
    padded = cv2.copyMakeBorder(view, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    gain = bank.art_white / np.maximum(ref, 1.0)
    width = padded.shape[1]
    flat = padded.reshape(-1, 3)
    my, mx = np.nonzero(bank.mask)
    mask_idx = my * width + mx
    # top-left corners (padded px) of each candidate's template window
    x0 = np.array([int(round(cx - size / 2 + 0.5)) for cx, _cy, _c in cands]) + pad
    y0 = np.array([int(round(cy - size / 2 + 0.5)) for _cx, cy, _c in cands]) + pad
    base = y0 * width + x0

    def scores_at(base: Any, offsets: Any) -> Any:
        """Correlation with every kind: (candidates, offsets, kinds)."""
        idx = base[:, None, None] + offsets[None, :, None] + mask_idx[None, None, :]
        px = np.take(flat, idx, axis=0).astype(np.float32) * gain
        return _correlations(px, bank.products)

    # first a coarse grid around each candidate (the coarse filter centres on the gem, which may sit a few
    # pixels off the token's centre), then a pixel around the best place of the likely ones
    step = config.search_step
    gy, gx = (g.ravel() for g in np.mgrid[-step:step + 1:step, -step:step + 1:step])
    pre = scores_at(base, gy * width + gx).max(axis=2)                     # (candidates, grid)
    first = pre.argmax(axis=1)
    keep = np.nonzero(pre.max(axis=1) >= config.min_score - config.pre_margin)[0]
    scored = []
    if len(keep):
        fy, fx = np.mgrid[-1:2, -1:2]
        fy, fx = fy.ravel(), fx.ravel()
        dy = gy[first[keep]][:, None] + fy[None, :]
        dx = gx[first[keep]][:, None] + fx[None, :]
        idx = base[keep][:, None] + dy * width + dx                          # (n, 9)
        px = np.take(flat, idx[:, :, None] + mask_idx[None, None, :], axis=0).astype(np.float32) * gain
        sc = _correlations(px, bank.products).max(axis=2)                    # (n, 9)
        best = sc.argmax(axis=1)
        for j, i in enumerate(keep):
            o = int(best[j])
            scored.append((names[i], float(sc[j, o]), int(x0[i] - pad + dx[j, o]), int(y0[i] - pad + dy[j, o])))
    if colour_view is not None and colour_view is not view:
        padded = cv2.copyMakeBorder(colour_view, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return [(i, score, x + size / 2, y + size / 2,
             padded[y + pad:y + pad + size, x + pad:x + pad + size].astype(np.float32))
            for i, score, x, y in scored]


def count_held(finds: list[TokenFind]) -> dict[str, int]:
    """Face-up stones by colour (face-down ones do not count: their colour is hidden)."""
    out: dict[str, int] = {}
    for f in finds:
        if f.colour in (*COLOURS, "any"):
            out[f.colour] = out.get(f.colour, 0) + 1
    return out


def token_kinds(board_name: str | None) -> tuple[str, ...]:
    """What wish tokens a seat may hold: base board → the colourless wish tiles; NWNZ → coloured stones."""
    if board_name == "base":
        return ("any",)
    return (*COLOURS, "back")


def main(argv: list[str] | None = None) -> int:
    from dataclasses import replace

    import cv2

    from .cardart import card_art
    from .cards import CardConfig, paper_points, paper_white, read_seat_cards, seat_reading
    from .components import load_components
    from .seatview import build_seat_views
    from .stagecli import registered_inputs, seats_from_truth, stage_parser

    ap = stage_parser("vision.wishstones", __doc__)
    args = ap.parse_args(argv)
    loaded = registered_inputs(args)
    if isinstance(loaded, int):
        return loaded
    image, cal, board, reg = loaded
    seats = seats_from_truth(args.image)
    comps = load_components(args.components)
    cfg = WishStoneConfig()
    # as the reader does: the seat's half-resolution view, its card stock and rows from vision.cards
    card_cfg = CardConfig()
    views = build_seat_views(card_cfg.view, cal, reg, tuple(seats) if seats else None)
    white = paper_white(image, paper_points(cal, reg))
    out = []
    for seat, sv in views.items():
        sc = read_seat_cards(card_cfg, image, sv, card_art(comps, sv.ppm, round(sv.px_per_mm, 1)), white, None, False)
        view = sc.small.copy()
        ppm = sv.ppm * sv.half_scale
        rows = replace(sc, bands=list(seat_reading(sc, False).row_bands))   # as the reader: the rows read
        finds = find_tokens(cfg, sc.small, ppm, sv.px_per_mm, comps, token_kinds(board.name if board else None),
                            rows.rows_mask(sv), sc.cream)
        print(seat, count_held(finds), [(f.colour, round(f.score, 2)) for f in finds])
        for f in finds:
            cv2.circle(view, (int(f.u * ppm), int(f.v * ppm)), int(10 * ppm), (0, 255, 255), 1)
        out.append(view)
    if args.overlay and out:
        import numpy as np

        h = max(o.shape[0] for o in out)
        cv2.imwrite(args.overlay, np.hstack([cv2.copyMakeBorder(o, 0, h - o.shape[0], 0, 4, cv2.BORDER_CONSTANT)
                                             for o in out]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
