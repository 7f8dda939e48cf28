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
    stride: int = 2               # compare every n-th view pixel (in x and y)
    cap: float = 0.5              # per-pixel error cap (log colour, summed over channels)
    sure_margin: float = 0.04     # best-vs-second mean error margin for full confidence
    pile_lift_mm: float = 6.0     # a wish-stone pile's top is about this high
    blur_px: int = 3              # the coarse templates get the blur the view gets (vision.appearance)
    fine_prefix: str = "points-"  # codes that differ only in their middle: read again, finer
    fine_angle_window_deg: float = 7.0   # second look: angles this close to the first look's
    fine_ppm: float = 3.0         # resolution of the second look
    fine_radius_mm: float = 8.0   # the printed numeral's disc
    fine_angles_deg: tuple[float, ...] = tuple(float(a) for a in range(-33, 34, 3))
    fine_shift_px: int = 1        # +- pixels searched in the second look
    fine_blur: float = 0.8        # template blur (sigma) in frame pixels: lens, demosaicing and JPEG


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
                         ppm: float, lifted=None, blur_sigma: float = 0.0) -> dict[str, SpotTemplates]:
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
                if blur_sigma > 0.3:   # the frame's resolution (the base art is blurred alike)
                    import cv2

                    comp = cv2.GaussianBlur(comp, (0, 0), blur_sigma)
                labels.append((code, ang))
                fulls.append(comp)
        full = np.log(np.stack(fulls) + log_offset).astype(np.float32)
        if config.blur_px > 1:
            import cv2

            full = np.stack([cv2.blur(f, (config.blur_px, config.blur_px)) for f in full])
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


@dataclass(frozen=True, eq=False)
class FineTemplates:
    """The second look at spots whose best code is in the fine family: one remap of every spot's
    numeral disc (a mosaic) and each code's rotated, resolution-matched templates."""

    spots: tuple[str, ...]
    map1: Any = field(repr=False)
    map2: Any = field(repr=False)
    n: int = 0                       # side of one spot's patch (px)
    labels: tuple[str, ...] = ()
    log_templates: Any = field(repr=False, default=None)   # spots x codes x angles x P x 3
    sel: Any = field(repr=False, default=None)             # P pixels of the disc (bool n x n)
    view_px: dict[str, tuple[int, int]] = field(default_factory=dict)


def build_fine_templates(config: TileConfig, board: Any, components: Any, pose: Any, view_ppm: float,
                         log_offset: float, board_thickness: float) -> FineTemplates | None:
    """Done once per registration: where each numeral disc lies in the frame and what it should show."""
    import cv2
    import numpy as np

    codes = [c for c in board.tile_set if c.startswith(config.fine_prefix)]
    if len(codes) < 2:
        return None
    spots = tuple(board.tile_spots)
    half = config.fine_radius_mm + config.fine_shift_px / config.fine_ppm
    n = int(math.ceil(2 * half * config.fine_ppm))
    offs = (np.arange(n) + 0.5) / config.fine_ppm - n / (2 * config.fine_ppm)
    gx, gy = np.meshgrid(offs, offs)
    z = -board_thickness - float(components.catalogue["tile"].get("thickness", 2.0))
    maps = []
    sigmas = []
    for sid in spots:
        s = board.stones[sid]
        pts = np.stack([s.x + gx.ravel(), s.y + gy.ravel(), np.full(gx.size, z)], 1)
        img = pose.project(pts).reshape(n, n, 2).astype(np.float32)
        maps.append(img)
        # frame pixels per mm at the spot: blur the templates to the frame's resolution
        px_per_mm = float(np.hypot(*(img[n // 2, n // 2 + 1] - img[n // 2, n // 2 - 1]))) * config.fine_ppm / 2
        sigmas.append(max(0.0, config.fine_blur * config.fine_ppm / max(px_per_mm, 0.2)))
    mosaic = np.concatenate(maps, axis=0)
    map1, map2 = cv2.convertMaps(mosaic[..., 0], mosaic[..., 1], cv2.CV_16SC2)
    rr = np.hypot(gx, gy)
    inner = n - 2 * config.fine_shift_px
    sel = rr[config.fine_shift_px:config.fine_shift_px + inner, config.fine_shift_px:config.fine_shift_px + inner] \
        <= config.fine_radius_mm
    d = components.tile_diameter
    tpl = np.zeros((len(spots), len(codes), len(config.fine_angles_deg), int(sel.sum()), 3), np.float32)
    for ci, code in enumerate(codes):
        art, alpha = components.image(f"tile-{code}")
        for ai, ang in enumerate(config.fine_angles_deg):
            a, _m = _rotated(art, alpha, components.tile_ppm, d, config.fine_ppm, ang)
            c0 = (a.shape[0] - inner) // 2
            crop = a[c0:c0 + inner, c0:c0 + inner]
            for si, sg in enumerate(sigmas):
                blurred = cv2.GaussianBlur(crop, (0, 0), sg) if sg > 0.3 else crop
                tpl[si, ci, ai] = np.log(blurred[sel] + log_offset)
    view_px = {sid: (int(board.stones[sid].y * view_ppm), int(board.stones[sid].x * view_ppm)) for sid in spots}
    return FineTemplates(spots, map1, map2, n, tuple(codes), tpl, sel, view_px)


def refine_tiles(config: TileConfig, fine: FineTemplates | None, image: Any, gain: Any, log_offset: float,
                 reading: TileReading, spots: Mapping[str, SpotTemplates] | None = None) -> TileReading:
    """The second look: spots read as a code of the fine family are compared again, finer."""
    import cv2
    import numpy as np

    if fine is None:
        return reading
    todo = [i for i, sid in enumerate(fine.spots) if (reading.tiles.get(sid) or "").startswith(config.fine_prefix)]
    if not todo:
        return reading
    mosaic = cv2.remap(image, fine.map1, fine.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    tiles = dict(reading.tiles)
    margins = dict(reading.margins)
    n, sh = fine.n, config.fine_shift_px
    inner = n - 2 * sh
    for i in todo:
        sid = fine.spots[i]
        gy, gx = fine.view_px[sid]
        yy, xx = min(gy, gain[0].shape[0] - 1), min(gx, gain[0].shape[1] - 1)
        g, o = gain[0][yy, xx], gain[1][yy, xx]
        patch = np.log(np.maximum(mosaic[i * n:(i + 1) * n].astype(np.float32) - o, 0) / np.maximum(g, 1e-3)
                       + log_offset)
        # only the angles near the one the first look found (the tile's rim and background fix it)
        angles = np.arange(len(config.fine_angles_deg))
        if spots is not None and sid in spots:
            a0 = spots[sid].labels[reading.chosen[sid]][1]
            near = [k for k, a in enumerate(config.fine_angles_deg) if abs(a - a0) <= config.fine_angle_window_deg]
            if near:
                angles = np.array(near)
        tpl = fine.log_templates[i][:, angles]
        best = None
        for dy in range(-sh, sh + 1):
            for dx in range(-sh, sh + 1):
                p = patch[sh + dy:sh + dy + inner, sh + dx:sh + dx + inner][fine.sel]
                err = np.minimum(np.abs(tpl - p).sum(axis=-1), config.cap).mean(axis=-1)
                per_code = err.min(axis=1)
                if best is None:
                    best = per_code
                else:
                    best = np.minimum(best, per_code)
        order = np.argsort(best)
        tiles[sid] = fine.labels[int(order[0])]
        margins[sid] = min(margins[sid], float(best[order[1]] - best[order[0]]))
    return TileReading(tiles, reading.piles, reading.chosen, margins, reading.confidence)


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
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm, sigma = got
    spots = build_spot_templates(DEFAULT_CONFIG, board, comps, art, APPEARANCE.offset, view.ppm, view.lifted, sigma)
    reading = read_tiles(DEFAULT_CONFIG, log_norm, spots)
    for sid, code in reading.tiles.items():
        print(f"{sid:5s} {code or '-':12s} margin {reading.margins[sid]:.3f}")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_tiles(image, pose, board, reading))
    return 0


if __name__ == "__main__":
    sys.exit(main())
