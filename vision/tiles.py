"""Stage: the path tile on every tile spot (or none), and the wish-stone piles, by comparing the
colour-normalised board view with the components' art.

For each spot the candidates are every code of the board's `tile_set` (and "empty": the board's art
there), each rotated through `angles_deg` and laid over the board's art, built once per registration
(vision.reader.BoardModel). A frame's patch is compared with every candidate pixel by pixel in log
colour; each pixel's error is capped at `cap`, so a pawn standing on the tile (or a shadow across it)
costs every candidate the same and the uncovered pixels decide. The vote is over a few hundred
pixels; the margin to the second-best code gives the confidence.

Run alone: `python -m vision.tiles FRAME.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

EMPTY = "empty"


@dataclass(frozen=True)
class TileConfig:
    """Every threshold of tile reading."""

    angles_deg: tuple[float, ...] = (-30.0, -20.0, -10.0, 0.0, 10.0, 20.0, 30.0)
    margin_mm: float = 1.5        # compared disc = the tile's radius plus this
    stride: int = 1               # compare every n-th view pixel (in x and y)
    cap: float = 0.5              # per-pixel error cap (log colour, summed over channels)
    sure_margin: float = 0.04     # best-vs-second mean error margin for full confidence
    pile_lift_mm: float = 6.0     # a wish-stone pile's top is about this high


DEFAULT_CONFIG = TileConfig()


@dataclass(frozen=True, eq=False)
class SpotTemplates:
    """Candidates of one spot: labels (code, angle), log templates K x P x 3, pixel coordinates."""

    spot: str
    kind: str                      # "tile" or "pile"
    labels: tuple[tuple[str, float], ...]
    log_templates: Any = field(repr=False)
    ys: Any = field(repr=False)
    xs: Any = field(repr=False)
    full: Any = field(repr=False)  # K x h x w x 3 log templates of the whole box (for the expected background)
    box: tuple[int, int, int, int] = (0, 0, 0, 0)   # y0, y1, x0, x1 in the view


@dataclass(frozen=True)
class TileReading:
    """Codes by spot (None = empty), the chosen candidate index per spot, confidences, margins."""

    tiles: dict[str, str | None]
    piles: dict[str, bool]
    chosen: dict[str, int]
    margins: dict[str, float]
    confidence: float


def _rotated(art: Any, alpha: Any, src_ppm: float, diameter: float, ppm: float, angle: float) -> tuple[Any, Any]:
    import cv2

    n = max(4, int(round(diameter * ppm)))
    a = cv2.resize(art, (n, n), interpolation=cv2.INTER_AREA)
    m = cv2.resize(alpha, (n, n), interpolation=cv2.INTER_AREA)
    if angle:
        R = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), angle, 1.0)
        a = cv2.warpAffine(a, R, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        m = cv2.warpAffine(m, R, (n, n), flags=cv2.INTER_LINEAR, borderValue=0)
    return a, m


def build_spot_templates(config: TileConfig, board: Any, components: Any, art_view: Any, log_offset: float,
                         ppm: float, lifted=None) -> dict[str, SpotTemplates]:
    """Every spot's candidates (see the module docstring): done once per registration."""
    import numpy as np

    out: dict[str, SpotTemplates] = {}
    H, W = art_view.shape[:2]
    tile_d = components.tile_diameter
    wish_d = components.wish_diameter
    codes = [c for c in board.tile_set] if board.tile_set else []
    jobs = [(sid, "tile") for sid in board.tile_spots] + [(sid, "pile") for sid in board.wish_piles.values()]
    pile_colour = {sid: c for c, sid in board.wish_piles.items()}
    for sid, kind in jobs:
        s = board.stones[sid]
        cx, cy = s.x, s.y
        if kind == "pile" and lifted is not None:
            cx, cy, _ = lifted(s.x, s.y, config.pile_lift_mm)
        diameter = tile_d if kind == "tile" else wish_d
        half = diameter / 2 + config.margin_mm + 1.0
        x0, x1 = max(0, int(math.floor((cx - half) * ppm))), min(W, int(math.ceil((cx + half) * ppm)))
        y0, y1 = max(0, int(math.floor((cy - half) * ppm))), min(H, int(math.ceil((cy + half) * ppm)))
        base = art_view[y0:y1, x0:x1].astype(np.float32)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        rr = np.hypot((xx + 0.5) / ppm - cx, (yy + 0.5) / ppm - cy)
        sel = (rr <= diameter / 2 + config.margin_mm) & ((yy - y0) % config.stride == 0) & ((xx - x0) % config.stride == 0)
        labels: list[tuple[str, float]] = [(EMPTY, 0.0)]
        fulls = [base]
        cand = codes if kind == "tile" else [f"wish-stone-{pile_colour[sid]}"]
        for code in cand:
            img = components.image(f"tile-{code}" if kind == "tile" else f"wish-{pile_colour[sid]}")
            if img is None:
                continue
            art, alpha = img
            src_ppm = components.tile_ppm if kind == "tile" else components.wish_ppm
            for ang in (config.angles_deg if kind == "tile" else (0.0,)):
                a, m = _rotated(art, alpha, src_ppm, diameter, ppm, ang)
                n = a.shape[0]
                comp = base.copy()
                # paste centred on the spot (pixel centres at (u + 0.5) / ppm)
                px0 = int(round(cx * ppm - n / 2)) - x0
                py0 = int(round(cy * ppm - n / 2)) - y0
                ys0, xs0 = max(0, py0), max(0, px0)
                ys1, xs1 = min(comp.shape[0], py0 + n), min(comp.shape[1], px0 + n)
                if ys1 <= ys0 or xs1 <= xs0:
                    continue
                sub_a = a[ys0 - py0:ys1 - py0, xs0 - px0:xs1 - px0]
                sub_m = m[ys0 - py0:ys1 - py0, xs0 - px0:xs1 - px0][..., None]
                comp[ys0:ys1, xs0:xs1] = comp[ys0:ys1, xs0:xs1] * (1 - sub_m) + sub_a * sub_m
                labels.append((code, ang))
                fulls.append(comp)
        full = np.log(np.stack(fulls) + log_offset).astype(np.float32)
        out[sid] = SpotTemplates(sid, kind, tuple(labels), full[:, sel], yy[sel], xx[sel], full, (y0, y1, x0, x1))
    return out


def read_tiles(config: TileConfig, log_norm: Any, templates: Mapping[str, SpotTemplates]) -> TileReading:
    """Each spot's best candidate (see the module docstring)."""
    import numpy as np

    tiles: dict[str, str | None] = {}
    piles: dict[str, bool] = {}
    chosen: dict[str, int] = {}
    margins: dict[str, float] = {}
    for sid, t in templates.items():
        patch = log_norm[t.ys, t.xs]                       # P x 3
        err = np.minimum(np.abs(t.log_templates - patch[None]).sum(axis=2), config.cap).mean(axis=1)
        best = int(np.argmin(err))
        code = t.labels[best][0]
        other = [e for (c, _a), e in zip(t.labels, err) if c != code]
        margins[sid] = float(min(other) - err[best]) if other else 1.0
        chosen[sid] = best
        if t.kind == "tile":
            tiles[sid] = None if code == EMPTY else code
        else:
            piles[sid] = code != EMPTY
    conf = 1.0
    if margins:
        conf = float(min(1.0, max(0.0, min(margins.values()) / config.sure_margin)) * 0.5 + 0.5)
    return TileReading(tiles, piles, chosen, margins, conf)


def paint_expected(log_expected: Any, templates: Mapping[str, SpotTemplates], reading: TileReading) -> None:
    """Put each spot's chosen candidate into the expected background (in place)."""
    for sid, t in templates.items():
        y0, y1, x0, x1 = t.box
        log_expected[y0:y1, x0:x1] = t.full[reading.chosen[sid]]


def draw_tiles(image: Any, pose: Any, board: Any, reading: TileReading, board_thickness: float = 3.0) -> Any:
    """Overlay: each tile spot's code at its place in the frame."""
    import cv2
    import numpy as np

    out = image.copy()
    pts = pose.project(np.array([(board.stones[s].x, board.stones[s].y, -board_thickness) for s in reading.tiles]))
    for (sid, code), (x, y) in zip(reading.tiles.items(), pts):
        colour = (0, 255, 0) if reading.margins[sid] >= DEFAULT_CONFIG.sure_margin else (0, 128, 255)
        cv2.circle(out, (int(x), int(y)), 6, colour, 2)
        cv2.putText(out, code or "-", (int(x) + 8, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3)
        cv2.putText(out, code or "-", (int(x) + 8, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the tile stage alone on one frame."""
    import cv2

    from .appearance import DEFAULT_CONFIG as APPEARANCE
    from .appearance import stage_view
    from .stagecli import stage_parser

    args = stage_parser("vision.tiles", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm = got
    spots = build_spot_templates(DEFAULT_CONFIG, board, comps, art, APPEARANCE.offset, view.ppm, view.lifted)
    reading = read_tiles(DEFAULT_CONFIG, log_norm, spots)
    for sid, code in reading.tiles.items():
        print(f"{sid:5s} {code or '-':12s} margin {reading.margins[sid]:.3f}")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_tiles(image, pose, board, reading))
    return 0


if __name__ == "__main__":
    sys.exit(main())
