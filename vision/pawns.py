"""Stage: every pawn on the path stones, its player colour and size, from the difference map.

Geometry (once per registration, vision.reader.BoardModel): for every stone, the silhouette a small
and a big pawn standing on it casts into the board view — the union of its cross-sections lifted by
the camera's parallax (vision.geometry.BoardView.lifted), so a tilted camera's long shadow-free
"smear" of a big pawn's head is part of the expected shape.

Per frame, around each stone with enough difference pixels, a greedy explanation: the pawn (size,
base position) whose silhouette is best covered by unexplained difference pixels is taken, its
pixels are marked explained, and the search repeats. Pixels already explained by a pawn count as
possibly hiding the next one (a big pawn partly hiding a small one). A big pawn is preferred when
its whole silhouette is covered; a small one's silhouette fits inside a big one's. The colour is a
vote of the detection's own pixels (median normalised colour), matched against the components'
pawn colours of the players in play only. A pawn belongs to the stone its base is nearest to, if it
is within the stone's radius plus `on_stone_margin_mm`; pawns around the start stone are its crowd
and are not listed (the reader lists every player's remaining pawns on "start").

Run alone: `python -m vision.pawns FRAME.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence


@dataclass(frozen=True)
class PawnConfig:
    """Every threshold of pawn reading."""

    search_radius_mm: float = 14.0     # base positions searched around each stone's centre
    on_stone_margin_mm: float = 6.0    # a base this far outside a stone's rim still stands on it
    min_pixels_frac: float = 0.35      # a stone needs difference pixels worth this share of a small pawn
    min_visible: float = 0.40          # share of a silhouette that must be visible and unexplained
    cover_small: float = 0.62          # coverage of the visible part for a small pawn
    cover_big: float = 0.80            # ... for a big pawn (a small one covers ~0.7 of a big silhouette)
    max_per_stone: int = 8
    colour_lum_tol: float = 0.12       # brightness (log) of a pawn's lit side may differ this much freely
    lit_percentile: float = 35       # the pawn's lit side
    colour_lum_weight: float = 0.8
    pixel_colour_gate: float = 0.6    # a difference pixel farther than this from every pawn colour is not a pawn
    pixel_lum_tol: float = 0.6         # ... brightness tolerance per pixel (shading spans more than the median)
    crowd_pitch_scale: float = 0.8    # pawns in the start crowd stand this many mean base widths apart
    split_colours: bool = True         # a detection explains only the pixels of its own colour
    big_own_colour: float = 0.8       # a big pawn's silhouette must be this much its own colour
    split_margin: float = 0.10         # ... unless the pixel is this close to being its colour anyway
    profile: tuple[tuple[float, float], ...] = (   # (height share, radius share of the base width)
        (0.0, 0.5), (0.12, 0.5), (0.45, 0.43), (0.62, 0.36), (0.72, 0.38), (0.8, 0.33), (0.92, 0.26), (1.0, 0.1))


DEFAULT_CONFIG = PawnConfig()


@dataclass(frozen=True, eq=False)
class StoneKernels:
    """One stone's search box in the view, candidate mask and the two silhouettes (small, big)."""

    stone: str
    box: tuple[int, int, int, int]          # y0, y1, x0, x1 of the fg region searched
    candidates: Any = field(repr=False)     # bool mask (box-sized): allowed base positions
    kernels: tuple[Any, Any] = field(repr=False, default=())     # float32 silhouettes
    anchors: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))
    areas: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class PawnDetection:
    stone: str | None
    player: str
    big: bool
    x_mm: float
    y_mm: float
    cover: float
    colour_distance: float
    evidence: float = 0.0    # the learned reader's evidence for the pawn (vision.pawnnet.pawn_evidence); 0: none


def _silhouette(config: PawnConfig, view: Any, x: float, y: float, width: float, height: float) -> tuple[Any, tuple[int, int]]:
    """The pawn's silhouette in the view as a float32 mask and the anchor (its base's pixel)."""
    import cv2
    import numpy as np

    ppm = view.ppm
    hs_all = np.linspace(0, 1, 24)
    prof_h = [p[0] for p in config.profile]
    prof_r = [p[1] for p in config.profile]
    pts = []
    for hs in hs_all:
        r = float(np.interp(hs, prof_h, prof_r)) * width
        lx, ly, s = view.lifted(x, y, hs * height)
        pts.append((lx, ly, r * s))
    xs = [p[0] - p[2] for p in pts] + [p[0] + p[2] for p in pts]
    ys = [p[1] - p[2] for p in pts] + [p[1] + p[2] for p in pts]
    x0, y0 = math.floor(min(xs) * ppm) - 1, math.floor(min(ys) * ppm) - 1
    x1, y1 = math.ceil(max(xs) * ppm) + 2, math.ceil(max(ys) * ppm) + 2
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for lx, ly, r in pts:
        cv2.circle(mask, (int(round((lx * ppm - 0.5 - x0) * 16)), int(round((ly * ppm - 0.5 - y0) * 16))),
                   max(1, int(round(r * ppm * 16))), 1, -1, cv2.LINE_8, 4)
    anchor = (int(round(x * ppm - 0.5)) - x0, int(round(y * ppm - 0.5)) - y0)
    return mask.astype(np.float32), anchor


def build_stone_kernels(config: PawnConfig, board: Any, view: Any, components: Any) -> dict[str, StoneKernels]:
    """Every path stone's silhouettes and search box (once per registration)."""
    import numpy as np

    out: dict[str, StoneKernels] = {}
    W, H = view.size_px
    ppm = view.ppm
    small_wh, big_wh = components.pawn_size(False), components.pawn_size(True)
    for sid, s in board.stones.items():
        ks, anchors, areas = [], [], []
        for wh in (small_wh, big_wh):
            k, a = _silhouette(config, view, s.x, s.y, *wh)
            ks.append(k)
            anchors.append(a)
            areas.append(float(k.sum()))
        reach = s.r + config.search_radius_mm if s.kind != "start" else s.r + 55.0
        pad = max(max(k.shape) for k in ks) / ppm
        x0, x1 = max(0, int((s.x - reach - pad) * ppm)), min(W, int(math.ceil((s.x + reach + pad) * ppm)))
        y0, y1 = max(0, int((s.y - reach - pad) * ppm)), min(H, int(math.ceil((s.y + reach + pad) * ppm)))
        yy, xx = np.mgrid[y0:y1, x0:x1]
        cand = np.hypot((xx + 0.5) / ppm - s.x, (yy + 0.5) / ppm - s.y) <= reach
        out[sid] = StoneKernels(sid, (y0, y1, x0, x1), cand, tuple(ks), tuple(anchors), tuple(areas))
    return out


def _colour_of(config: PawnConfig, log_pixels: Any, references: Mapping[str, Any]) -> tuple[str, float]:
    """The player whose pawn colour best explains the pixels: chroma from their median, brightness from
    their lit side (a high percentile: the lamp darkens a turned pawn's far side, never brightens it
    beyond its colour much)."""
    import numpy as np

    lum_px = log_pixels.mean(axis=1)
    chroma_med = np.median(log_pixels - lum_px[:, None], axis=0)
    lit = float(np.percentile(lum_px, config.lit_percentile))
    best, best_d = None, math.inf
    for player, ref in references.items():
        ref_lum = float(ref.mean())
        chroma = float(np.sqrt(((chroma_med - (ref - ref_lum)) ** 2).sum()))
        dist = chroma + config.colour_lum_weight * max(0.0, abs(lit - ref_lum) - config.colour_lum_tol)
        if dist < best_d:
            best, best_d = player, dist
    return best, best_d


def _nearest_reference(config: PawnConfig, log_pixels: Any, references: Mapping[str, Any]) -> tuple[Any, Any]:
    """Per pixel: the index of the nearest player colour and the margin to the second nearest."""
    import numpy as np

    ds = []
    for ref in references.values():
        d = log_pixels - ref
        lum = d.mean(axis=1)
        chroma = np.sqrt(((d - lum[:, None]) ** 2).sum(axis=1))
        ds.append(chroma + config.colour_lum_weight * np.maximum(0.0, np.abs(lum) - config.pixel_lum_tol))
    ds = np.stack(ds, axis=1)
    order = np.sort(ds, axis=1)
    return np.argmin(ds, axis=1), order[:, 1] - order[:, 0]


def pawn_coloured(config: PawnConfig, fg: Any, log_norm: Any, references: Mapping[str, Any]) -> Any:
    """The difference map kept only where a pixel's colour could be one of the players' pawns
    (chroma near a pawn colour, brightness within the shading a lamp puts on a turned pawn)."""
    import numpy as np

    ys, xs = np.nonzero(fg)
    out = np.zeros_like(fg)
    if len(ys) == 0:
        return out
    px = log_norm[ys, xs]                                        # N x 3
    best = np.full(len(ys), np.inf, np.float32)
    for ref in references.values():
        d = px - ref
        lum = d.mean(axis=1)
        chroma = np.sqrt(((d - lum[:, None]) ** 2).sum(axis=1))
        dist = chroma + config.colour_lum_weight * np.maximum(0.0, np.abs(lum) - config.pixel_lum_tol)
        best = np.minimum(best, dist)
    keep = best <= config.pixel_colour_gate
    out[ys[keep], xs[keep]] = 1.0
    return out


def read_pawns(config: PawnConfig, fg: Any, log_norm: Any, kernels: Mapping[str, StoneKernels], board: Any,
               references: Mapping[str, Any], ppm: float, known: Any = None) -> list[PawnDetection]:
    """Every pawn standing on the board (see the module docstring); `references` are the log colours
    (offset as in vision.appearance) of the players in play."""
    import cv2
    import numpy as np

    fg_u = fg.copy()
    explained = np.zeros_like(fg)
    if known is not None:   # pixels explained by other pieces (wish-stone piles): they may hide a pawn's foot
        fg_u[known > 0] = 0.0
        explained[known > 0] = 1.0
    dets: list[tuple[float, float, bool, float, Any]] = []
    ids = list(kernels)
    # path stones first; the start stone's crowd (never listed) last, so it cannot swallow a pawn
    # standing on a first-row stone next to it
    ids.sort(key=lambda sid: board.stones[sid].kind == "start")
    for sid in ids:
        k = kernels[sid]
        y0, y1, x0, x1 = k.box
        sub = fg_u[y0:y1, x0:x1]
        if sub[k.candidates].sum() < config.min_pixels_frac * k.areas[0]:
            continue
        limit = config.max_per_stone if board.stones[sid].kind != "start" else 24
        for _ in range(limit):
            sub_u = fg_u[y0:y1, x0:x1]
            sub_e = explained[y0:y1, x0:x1]
            def best_at(size: int) -> tuple[int, float] | None:
                """The best base position of a `size` silhouette and its coverage, if it is enough."""
                kern, anc, area = k.kernels[size], k.anchors[size], k.areas[size]
                vis = cv2.filter2D(sub_u, -1, kern, anchor=anc, borderType=cv2.BORDER_CONSTANT)
                hid = cv2.filter2D(sub_e, -1, kern, anchor=anc, borderType=cv2.BORDER_CONSTANT)
                cover = vis / np.maximum(area - hid, 1.0)
                ok = k.candidates & (vis >= config.min_visible * area)
                if not ok.any():
                    return None
                score = np.where(ok, cover, -1.0)
                idx = int(np.argmax(score))
                c = float(score.flat[idx])
                return (idx, c) if c >= (config.cover_big if size == 1 else config.cover_small) else None

            chosen = None
            for size in (1, 0):
                found = best_at(size)
                if found is None:
                    continue
                idx, c = found
                py, px = divmod(idx, sub_u.shape[1])
                kern, anc = k.kernels[size], k.anchors[size]
                # the silhouette's footprint in the view
                ky0, kx0 = y0 + py - anc[1], x0 + px - anc[0]
                fy0, fx0 = max(0, ky0), max(0, kx0)
                fy1, fx1 = min(fg.shape[0], ky0 + kern.shape[0]), min(fg.shape[1], kx0 + kern.shape[1])
                kk = kern[fy0 - ky0:fy1 - ky0, fx0 - kx0:fx1 - kx0] > 0
                own = kk & (fg_u[fy0:fy1, fx0:fx1] > 0)
                pixels = log_norm[fy0:fy1, fx0:fx1][own]
                mine = None
                if config.split_colours and len(pixels) >= 3 and len(references) > 1:
                    # pawns on one stone belong to different players: pixels clearly nearer another
                    # player's colour than this pawn's stay unexplained, for the next pawn on the stone
                    player, _d = _colour_of(config, pixels, references)
                    near = _nearest_reference(config, pixels, references)
                    names = list(references)
                    mine = np.array([names[j] == player for j in near[0]]) | (near[1] < config.split_margin)
                    # a big silhouette filled by several colours is small pawns side by side (if a small
                    # one fits there; the small silhouette is only tried then)
                    if size == 1 and float(mine.mean()) < config.big_own_colour:
                        chosen = (size, idx, c, py, px, kk, own, pixels, mine, (fy0, fy1, fx0, fx1))
                        continue
                chosen = (size, idx, c, py, px, kk, own, pixels, mine, (fy0, fy1, fx0, fx1))
                break
            if chosen is None:
                break
            size, idx, c, py, px, kk, own, pixels, mine, (fy0, fy1, fx0, fx1) = chosen
            if mine is not None:
                keep = kk.copy()
                oy, ox = np.nonzero(own)
                keep[oy[~mine], ox[~mine]] = False
                pixels = pixels[mine]
                fg_u[fy0:fy1, fx0:fx1][keep] = 0.0
                explained[fy0:fy1, fx0:fx1][keep] = 1.0
            else:
                fg_u[fy0:fy1, fx0:fx1][kk] = 0.0
                explained[fy0:fy1, fx0:fx1][kk] = 1.0
            dets.append((x0 + px, y0 + py, size == 1, c, pixels))
    out: list[PawnDetection] = []
    stones = [s for s in board.stones.values()]
    sx = np.array([s.x for s in stones])
    sy = np.array([s.y for s in stones])
    view_ppm = ppm
    for px, py, big, c, pixels in dets:
        x, y = (px + 0.5) / view_ppm, (py + 0.5) / view_ppm
        d = np.hypot(sx - x, sy - y)
        j = int(np.argmin(d))
        s = stones[j]
        if len(pixels) < 3:
            continue
        player, dist = _colour_of(config, pixels, references)
        on = d[j] <= s.r + config.on_stone_margin_mm and s.kind != "start"
        out.append(PawnDetection(s.id if on else None, player, big, x, y, c, dist))
    return out


def crowd_distances(board: Any, margin_mm: float, step_mm: float = 2.0) -> Any:
    """Distances from the start stone's centre of every board point (a `step_mm` grid, `margin_mm` inside
    the board's edge), sorted: the start crowd fills the nearest ones first (once per board)."""
    import numpy as np

    st = next(s for s in board.stones.values() if s.kind == "start")
    w, h = board.size_mm
    xs = np.arange(margin_mm, w - margin_mm, step_mm)
    ys = np.arange(margin_mm, h - margin_mm, step_mm)
    xx, yy = np.meshgrid(xs, ys)
    return np.sort(np.hypot(xx - st.x, yy - st.y).ravel())


def crowd_radius(distances: Any, pawns: int, pitch_mm: float, step_mm: float = 2.0) -> float:
    """How far from the start stone's centre a crowd of `pawns` densely packed pawns (hexagonal, `pitch_mm`
    apart) reaches, the board's edge pushing it outward."""
    if pawns <= 0:
        return 0.0
    area = pawns * pitch_mm * pitch_mm * math.sqrt(3) / 2
    k = min(len(distances) - 1, int(math.ceil(area / (step_mm * step_mm))))
    return float(distances[k])


def beyond_crowd(gaps: Sequence[float], total: int, distances: Any, pitch_mm: float) -> list[bool]:
    """Which pawns seen on path stones (`gaps`: each one's stone rim's distance from the start stone's
    centre, less the on-stone margin) stand beyond the start crowd's reach: the crowd is every
    player's pawns (`total`) not seen on a path, so its size depends on which sightings it swallows.
    The answer is the fixed point reached from the smallest crowd (every sighting a path pawn):
    sightings the crowd reaches are taken into it, which grows it, until nothing changes. (Starting
    from the largest crowd instead swallows pawns really standing on the first-row stones whenever
    several do, early in a game: they make the crowd they are then counted in.)"""
    keep = [True] * len(gaps)
    while True:
        reach = crowd_radius(distances, total - sum(keep), pitch_mm)
        now = [g > reach for g in gaps]
        if now == keep:
            return keep
        keep = now


def pile_mask(board: Any, view: Any, components: Any, piles: Mapping[str, bool], pile_height_mm: float = 12.5,
              margin_mm: float = 1.5) -> Any:
    """The view pixels a wish-stone pile covers (its top and side, lifted by the camera's parallax)."""
    import cv2
    import numpy as np

    W, H = view.size_px
    mask = np.zeros((H, W), np.uint8)
    r0 = components.wish_diameter / 2 + margin_mm
    for sid, present in piles.items():
        if not present:
            continue
        s = board.stones[sid]
        for h in np.linspace(0.0, pile_height_mm, 6):
            x, y, k = view.lifted(s.x, s.y, float(h))
            cv2.circle(mask, (int(round(x * view.ppm)), int(round(y * view.ppm))), int(round(r0 * k * view.ppm)), 1, -1)
    return mask


def draw_pawns(image: Any, pose: Any, components: Any, detections: Sequence[PawnDetection],
               board_thickness: float = 3.0) -> Any:
    """Overlay: each pawn's base (circle) and the top of its head, labelled with its player and size."""
    import cv2
    import numpy as np

    out = image.copy()
    colours = {"black": (40, 40, 40), "white": (255, 255, 255), "grey": (150, 150, 150), "brown": (30, 80, 140)}
    for d in detections:
        h = components.pawn_size(d.big)[1]
        (bx, by), (tx, ty) = pose.project(np.array([(d.x_mm, d.y_mm, -board_thickness),
                                                    (d.x_mm, d.y_mm, -board_thickness - h)]))
        col = colours.get(d.player, (0, 0, 255))
        cv2.line(out, (int(bx), int(by)), (int(tx), int(ty)), (0, 0, 255), 1)
        cv2.circle(out, (int(bx), int(by)), 7 if d.big else 4, col, 2)
        label = f"{d.player[:2]}{'B' if d.big else 's'}@{d.stone or 'crowd'}"
        cv2.putText(out, label, (int(tx) + 5, int(ty)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3)
        cv2.putText(out, label, (int(tx) + 5, int(ty)), cv2.FONT_HERSHEY_SIMPLEX, 0.4, col, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the pawn stage alone on one frame (tiles first: they are part of the expected background)."""
    import cv2
    import numpy as np

    from .appearance import DEFAULT_CONFIG as APPEARANCE
    from .appearance import difference, stage_view
    from .stagecli import parse_seats, seats_from_truth, stage_parser
    from .tiles import DEFAULT_CONFIG as TILES
    from .tiles import build_spot_templates, paint_expected, read_tiles

    args = stage_parser("vision.pawns", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm, sigma = got
    spots = build_spot_templates(TILES, board, comps, art, APPEARANCE.offset, view.ppm, view.lifted, sigma)
    reading = read_tiles(TILES, log_norm, spots)
    expected = log_art.copy()
    paint_expected(expected, spots, reading)
    fg = difference(APPEARANCE, log_norm, expected)
    seats = parse_seats(args.seats) or seats_from_truth(args.image)
    players = list(seats.values()) if seats else list(comps.pawn_bgr())
    refs = {p: np.log(np.array(comps.pawn_bgr()[p], np.float32) + APPEARANCE.offset) for p in players}
    kernels = build_stone_kernels(DEFAULT_CONFIG, board, view, comps)
    dets = read_pawns(DEFAULT_CONFIG, fg, log_norm, kernels, board, refs, view.ppm)
    for d in dets:
        print(f"{d.stone or 'crowd':6s} {d.player:6s} {'big' if d.big else 'small':5s} cover {d.cover:.2f} "
              f"colour distance {d.colour_distance:.2f} at ({d.x_mm:.0f}, {d.y_mm:.0f}) mm")
    if args.overlay:
        cv2.imwrite(args.overlay, draw_pawns(image, pose, comps, dets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
