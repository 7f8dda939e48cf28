"""Wish stones held: the round tokens lying in a seat area, counted by colour (FORMATS §2 `wish`).

NWNZ: each wish stone is a disc showing its colour's gem (components `wish-<colour>`), the base
board's wish tiles are all alike (`tile-wish-any`, counted as "any"); a stone lying face down
(`wish-back`) is found too but not counted (its colour is hidden).

    seat view (half resolution) ─ every token art turned into a ring-averaged template (a round
    token looks the same however it lies) ─ colour correlation with each, outside the card rows
    ─ peaks, best first, at least `min_apart` diameters apart (two stones may touch) ─ colour.

    python -m vision.wishstones FRAME.jpg --overlay out.png
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.cards import COLOURS


@dataclass(frozen=True)
class WishStoneConfig:
    min_score: float = 0.7        # colour correlation with a token's ring template
    min_apart: float = 0.8         # two finds at least this many diameters apart (touching stones: 1.0)
    row_margin_mm: float = 3.0     # no token under a card row
    rim_min_white: float = 0.5     # a coloured stone's rim is pale: its smallest channel over the stock's


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


@lru_cache(maxsize=32)
def token_templates(comps: Any, kinds: tuple[str, ...], ppm: float, seen_ppm: float) -> dict[str, Any]:
    """kind → (BGR template float32 at `ppm`, as blurred as a camera resolving `seen_ppm` shows it)."""
    import cv2
    import numpy as np

    out: dict[str, Any] = {}
    for kind in kinds:
        key = "tile-wish-any" if kind == "any" else f"wish-{kind}"
        got = comps.image(key)
        if got is None:
            continue
        bgr, alpha = got
        art_ppm = comps.tile_ppm if kind == "any" else comps.wish_ppm
        img = bgr * alpha[..., None] + np.float32(128) * (1 - alpha[..., None])
        img = _ring_average(img)
        seen = cv2.resize(img, None, fx=seen_ppm / art_ppm, fy=seen_ppm / art_ppm, interpolation=cv2.INTER_AREA)
        size = int(round(img.shape[1] / art_ppm * ppm))
        t = cv2.resize(seen, (size, size), interpolation=cv2.INTER_LINEAR).astype(np.float32)
        # only the disc counts: outside it lies whatever table
        yy, xx = np.mgrid[0:size, 0:size]
        r = np.hypot(xx - size / 2 + 0.5, yy - size / 2 + 0.5)
        out[kind] = (t, (r <= size / 2 * 0.95).astype(np.float32))
    return out


def find_tokens(config: WishStoneConfig, view: Any, ppm: float, seen_ppm: float, comps: Any,
                kinds: tuple[str, ...], rows_mask: Any | None = None, cream: Any | None = None) -> list[TokenFind]:
    """Tokens of `kinds` in a seat view at `ppm` (u, v in view pixels / ppm, before the view margin).

    With the seat's `cream` (the card stock under this light) a coloured stone must also show its
    pale rim: a patch of table that happens to correlate does not."""
    import cv2
    import numpy as np

    temps = token_templates(comps, kinds, ppm, round(seen_ppm, 1))
    if not temps:
        return []
    v32 = view.astype(np.float32)
    maps = {}
    for kind, (t, m) in temps.items():
        if v32.shape[0] < t.shape[0] or v32.shape[1] < t.shape[1]:
            return []
        maps[kind] = cv2.matchTemplate(v32, t, cv2.TM_CCOEFF_NORMED, mask=m)
    stack = np.stack([np.nan_to_num(maps[k], nan=-1.0, posinf=-1.0, neginf=-1.0) for k in temps])
    names = list(temps)
    best = stack.max(axis=0)
    which = stack.argmax(axis=0)
    size = next(iter(temps.values()))[0].shape[0]
    if rows_mask is not None:
        # a token's centre never lies under a card row
        cm = rows_mask[size // 2:size // 2 + best.shape[0], size // 2:size // 2 + best.shape[1]]
        best = np.where(cm[:best.shape[0], :best.shape[1]] > 0, -1.0, best)
    finds: list[TokenFind] = []
    apart = config.min_apart * size
    work = best.copy()
    yy, xx = np.mgrid[0:size, 0:size]
    rr = np.hypot(xx - size / 2 + 0.5, yy - size / 2 + 0.5) / (size / 2)
    rim = (rr > 0.78) & (rr < 0.95)
    while True:
        _, mx, _, (x, y) = cv2.minMaxLoc(work)
        if mx < config.min_score:
            break
        cv2.circle(work, (x, y), int(apart), -1.0, -1)
        kind = names[int(which[y, x])]
        if cream is not None and kind != "any":
            ring = view[y:y + size, x:x + size][rim].astype(np.float32)
            white = np.median(np.min(ring / np.maximum(np.asarray(cream, np.float32), 1), axis=1))
            if white < config.rim_min_white:
                work[max(0, y - 1):y + 2, max(0, x - 1):x + 2] = -1.0
                continue
        finds.append(TokenFind((x + size / 2) / ppm, (y + size / 2) / ppm, kind, float(mx)))
    return finds


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
    import cv2

    from .components import load_components
    from .seatview import SeatViewConfig, build_seat_views
    from .stagecli import load_stage_inputs, seats_from_truth, stage_parser

    ap = stage_parser("vision.wishstones", __doc__)
    args = ap.parse_args(argv)
    loaded = load_stage_inputs(args)
    if loaded is None:
        return 2
    image, cal, board, reg = loaded
    if not reg.ok:
        print(f"not registered: {reg.reason}")
        return 1
    seats = seats_from_truth(args.image)
    comps = load_components(args.components)
    cfg = WishStoneConfig()
    views = build_seat_views(SeatViewConfig(ppm=1.25), cal, reg, tuple(seats) if seats else None)
    out = []
    for seat, sv in views.items():
        view = sv.warp(image)
        finds = find_tokens(cfg, view, sv.ppm, sv.px_per_mm, comps, token_kinds(board.name if board else None))
        print(seat, count_held(finds), [(f.colour, round(f.score, 2)) for f in finds])
        for f in finds:
            cv2.circle(view, (int(f.u * sv.ppm), int(f.v * sv.ppm)), int(10 * sv.ppm), (0, 255, 255), 1)
        out.append(view)
    if args.overlay and out:
        import numpy as np

        h = max(o.shape[0] for o in out)
        cv2.imwrite(args.overlay, np.hstack([cv2.copyMakeBorder(o, 0, h - o.shape[0], 0, 4, cv2.BORDER_CONSTANT)
                                             for o in out]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
