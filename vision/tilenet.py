"""Stage: the path tile on every tile spot (or none) by a small learned classifier on one patch per spot.

Once per registration (`build_tile_maps`): each tile spot's square patch (`half_mm` each side of the
spot's centre, a sample every `step_mm`, the board's axes), and the art's patches. With the pose
(`from_frame`), the patch's samples are projected into the frame itself: the numerals of the points
tiles are a few pixels tall, and the board view (resampled at 1.5 px/mm, then box-blurred) smears
them. Per frame (`tile_features`): one remap of the frame (or of the colour-normalised log view)
into a mosaic of all spots, each patch divided by the lamp's gain and veil at its spot (the
appearance stage's maps, vision.appearance); in each patch, a residual white-balance error is
removed by the median difference to the art over the patch's corners (outside the tile's disc,
where the art shows). The inputs are that difference and the corrected colour per pixel (as
vision.pawnnet's).

The classifier (vision.pawnnet.PatchNet, a small CNN, weights `vision/models/tiles.npz`, trained by
scripts/train_pawns.py, on patches widened by scripts/train_tiles.py) scores every code of both
boards' tile sets and "empty"; only the board's own `tile_set` codes and "empty" are possible
answers, and every code but the wish tiles is read exactly as often as the tile set has it (those
tiles never leave the board: `decode_by_counts`). A pawn standing on the tile or a shadow across it
are in its training data; which of several hidden tiles is which stays a guess from one frame. A spot the
first look leaves unsure is read again on the patch grid moved by half a sample each way (`second_look_margin`):
a numeral a few pixels tall reads differently as the samples fall, the average is steadier.

Run alone: `python -m vision.tilenet FRAME.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from .pawnnet import PatchNet, load_mlp, median_axis1, softmax

EMPTY = "empty"
#: The classifier's classes, in its output order.
CODES = (EMPTY, "clover", "discard", "points-1", "points-2", "points-3", "wish-any", "wish-red", "wish-yellow",
         "wish-pink", "wish-green", "wish-blue")
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "models" / "tiles.npz"


@dataclass(frozen=True)
class TileNetConfig:
    """Patch geometry and confidence of the learned tile reader."""

    weights: str = str(DEFAULT_WEIGHTS)
    step_mm: float = 1.0       # the numerals of points tiles need the frame's full resolution
    half_mm: float = 15.0      # a 25 mm tile and a little of the board around it
    art_ring_mm: float = 13.5  # the residual white balance is measured outside this radius
    sure_margin: float = 0.3   # probability margin to the runner-up for full confidence
    # how often a spot is read right by its margin: (margin below, share right), ascending; above the last bound
    # `spot_right_others` (dev stills of session 20: margin >= 0.9 right on 953 of 954 spots, 0.7-0.9 on 38 of 40,
    # below 0.7 on 107 of 187, most of them under a pawn); stated per spot in element_confidence ("tiles")
    spot_right: tuple[tuple[float, float], ...] = ((0.7, 0.55), (0.9, 0.95))
    spot_right_others: float = 0.998
    from_frame: bool = True    # sample the frame itself (sharp numerals), not the board view
    log_offset: float = 12.0   # as vision.appearance's offset (the log of a normalised colour)
    # tiles that never leave the board (RULES §1, §2 Tiles: only wish-stone tiles are taken), so each
    # is read exactly as often as the board's tile set has it (`decode_by_counts`)
    taken_prefix: str = "wish-"
    exact_counts: bool = True
    # second look at the spots the first left unsure (top-two margin below this; 0 turns it off): the
    # probabilities averaged over the patch grid moved by each of `second_look_shifts` (samples along the columns,
    # along the rows) as well. A numeral a few pixels tall falls differently between the 1 mm samples; the average
    # reads it more steadily. Only unsure spots (~1 in 5) pay the extra patches, one net pass each: moving along
    # the columns only costs half of moving along both axes (+-0.5 both ways: dev tile errors 288 -> 267 of 3 997 on
    # the session-26 probability dump, tile stage ~4.5 -> ~9 ms; columns only 288 -> 272, ~6.5 ms, inside the board
    # part's 25 ms).
    second_look_margin: float = 0.9
    second_look_shifts: tuple[tuple[float, float], ...] = ((0.5, 0.0), (-0.5, 0.0))


DEFAULT_CONFIG = TileNetConfig()


def spot_confidence(config: TileNetConfig, margin: float) -> float:
    """The share of tile spots read right at this margin (config.spot_right)."""
    for bound, right in config.spot_right:
        if margin < bound:
            return right
    return config.spot_right_others


@dataclass(frozen=True, eq=False)
class TileMaps:
    spots: tuple[str, ...]
    shape: tuple[int, int]
    map_x: Any = field(repr=False)
    map_y: Any = field(repr=False)
    art: Any = field(repr=False)        # N x rows x cols x 3 log art
    ring: Any = field(repr=False)       # bool rows x cols: the corners outside the tile
    frame_x: Any = field(repr=False, default=None)   # float32 (N*rows) x cols, frame pixels (from_frame)
    frame_y: Any = field(repr=False, default=None)
    centres: Any = field(repr=False, default=None)   # N x 2 int: each spot's view pixel (x, y)
    log_offset: float = 12.0
    # the sampling grids of the second look, (x, y) maps like map_x/map_y (or frame_x/frame_y) each, moved by
    # config.second_look_shifts (samples along columns and rows)
    shifted: tuple[tuple[Any, Any], ...] = field(repr=False, default=())


def build_tile_maps(config: TileNetConfig, board: Any, view: Any, log_art: Any, pose: Any = None,
                    board_thickness_mm: float = 3.0) -> TileMaps:
    """Every tile spot's patch in the board view and, given the pose and `config.from_frame`, in the
    frame (once per registration)."""
    import cv2
    import numpy as np

    offs = np.arange(-config.half_mm, config.half_mm + 1e-6, config.step_mm)
    gy, gx = np.meshgrid(offs, offs, indexing="ij")
    spots = tuple(board.tile_spots)
    mx = [((board.stones[s].x + gx) * view.ppm - 0.5).astype(np.float32) for s in spots]
    my = [((board.stones[s].y + gy) * view.ppm - 0.5).astype(np.float32) for s in spots]
    map_x, map_y = np.concatenate(mx), np.concatenate(my)
    n, (rows, cols) = len(spots), gx.shape
    art = cv2.remap(log_art.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ring = np.hypot(gx, gy) > config.art_ring_mm
    frame_x = frame_y = centres = None
    if config.from_frame and pose is not None:
        xs = np.concatenate([board.stones[s].x + gx for s in spots]).ravel()
        ys = np.concatenate([board.stones[s].y + gy for s in spots]).ravel()
        uv = pose.project(np.stack([xs, ys, np.full(xs.size, -board_thickness_mm)], 1))
        frame_x = uv[:, 0].reshape(map_x.shape).astype(np.float32)
        frame_y = uv[:, 1].reshape(map_x.shape).astype(np.float32)
        w, h = view.size_px
        centres = np.array([(min(w - 1, max(0, int(board.stones[s].x * view.ppm))),
                             min(h - 1, max(0, int(board.stones[s].y * view.ppm)))) for s in spots], np.int64)
    shifted = ()
    if config.second_look_margin > 0 and config.second_look_shifts:
        sx, sy = (frame_x, frame_y) if frame_x is not None else (map_x, map_y)
        shifted = tuple(_moved(sx, sy, n, rows, cols, dc, dr) for dc, dr in config.second_look_shifts)
    return TileMaps(spots, (rows, cols), map_x, map_y, art.reshape(n, rows, cols, 3), ring, frame_x, frame_y,
                    centres, config.log_offset, shifted)


def _moved(mx: Any, my: Any, n: int, rows: int, cols: int, dc: float, dr: float) -> tuple[Any, Any]:
    """Sampling maps ((N*rows) x cols) moved by dc samples along the columns and dr along the rows, by each
    sample's own neighbours (the pose's local stretch; exact for an affine view)."""
    import numpy as np

    out = []
    for m in (mx, my):
        g = m.reshape(n, rows, cols).astype(np.float64)
        d_row, d_col = np.gradient(g, axis=(1, 2))
        out.append((g + dc * d_col + dr * d_row).reshape(m.shape).astype(np.float32))
    return out[0], out[1]


def _spot_subset(maps: TileMaps, idx: Any, grids: tuple[tuple[Any, Any], ...]) -> TileMaps:
    """The maps of the spots `idx` only, sampled on each of `grids` (of maps.shifted) in turn: one batch of
    len(grids) * len(idx) spots, grid by grid (one remap and one net call for every look)."""
    import numpy as np

    rows = maps.shape[0]
    r = (np.asarray(idx)[:, None] * rows + np.arange(rows)[None, :]).ravel()
    gx = np.concatenate([g[0][r] for g in grids])
    gy = np.concatenate([g[1][r] for g in grids])
    k = len(grids)
    spots = tuple(maps.spots[i] for i in idx) * k
    art = np.concatenate([maps.art[idx]] * k)
    if maps.frame_x is not None:
        return replace(maps, spots=spots, art=art, frame_x=gx, frame_y=gy, map_x=np.concatenate([maps.map_x[r]] * k),
                       map_y=np.concatenate([maps.map_y[r]] * k), centres=np.concatenate([maps.centres[idx]] * k),
                       shifted=())
    return replace(maps, spots=spots, art=art, map_x=gx, map_y=gy, shifted=())


def tile_features(maps: TileMaps, log_norm: Any, image: Any = None, gain: Any = None) -> Any:
    """N x F float32 inputs of the classifier, one row per spot of `maps.spots`: from the frame
    (`image`, with the appearance stage's (gain, offset) maps) when the maps were built for it."""
    import cv2
    import numpy as np

    n = len(maps.spots)
    rows, cols = maps.shape
    if maps.frame_x is not None and image is not None and gain is not None:
        raw = cv2.remap(image, maps.frame_x, maps.frame_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        raw = raw.reshape(n, rows, cols, 3).astype(np.float32)
        cx, cy = maps.centres[:, 0], maps.centres[:, 1]
        g = gain[0][cy, cx][:, None, None, :]
        o = gain[1][cy, cx][:, None, None, :]
        patch = np.log(np.maximum(raw - o, 0.0) / np.maximum(g, 1e-3) + maps.log_offset)
    else:
        patch = cv2.remap(log_norm.astype(np.float32, copy=False), maps.map_x, maps.map_y, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE).reshape(n, rows, cols, 3)
    diff = patch - maps.art
    med = median_axis1(diff[:, maps.ring])[:, None, None, :]
    return np.concatenate([diff - med, patch - med], axis=3).reshape(n, -1).astype(np.float32)


def decode_within_counts(p: Any, capacity: Any) -> Any:
    """Each row's class (N x K probabilities), no class chosen more often than its `capacity` (K ints;
    a negative one is unlimited): the most probable class per row, then, while a class is over its
    capacity, the row of that class that loses least moves to its best class with room left. The
    board's tile set is fixed and tiles only leave the board, so a reading with, say, more points-2
    tiles than the game has is wrong somewhere, most likely where the classifier was least sure."""
    import numpy as np

    logp = np.log(np.maximum(p, 1e-12))
    choice = np.argmax(logp, axis=1)
    cap = np.asarray(capacity)
    for _ in range(len(p) * p.shape[1]):
        counts = np.bincount(choice, minlength=p.shape[1])
        over = [k for k in range(p.shape[1]) if 0 <= cap[k] < counts[k]]
        if not over:
            break
        room = (cap < 0) | (counts < cap)
        best = None
        for k in over:
            for i in np.nonzero(choice == k)[0]:
                alt = np.where(room, logp[i], -np.inf)
                j = int(np.argmax(alt))
                loss = logp[i, k] - alt[j]
                if np.isfinite(alt[j]) and (best is None or loss < best[0]):
                    best = (loss, i, j)
        if best is None:
            break
        choice[best[1]] = best[2]
    return choice


def decode_by_counts(p: Any, at_least: Any, at_most: Any) -> Any:
    """Each row's class (N x K probabilities) with each class k chosen at least `at_least[k]` and at
    most `at_most[k]` times (negative: unlimited; the lower bounds kept as far as there are rows): the
    most probable reading of all rows together under those counts. On a Keltis board every tile but
    the wish tiles stays where it lies for the whole game (RULES §1 Tiles, §2 Tiles), so those codes
    are on the board exactly as often as the tile set has them: a tile half hidden under a pawn is then
    the one the clearly seen tiles leave over.

    Min-cost flow from each row's likeliest class: while a class is over its upper bound or under its
    lower bound, the cheapest chain of moves (row of class a to b, a row of b to c, ...) from a class
    that can give a row to one that must take it; the chains are shortest paths (Floyd) over the K
    classes, the cost of an edge a -> b the least log-probability any row of a loses by going to b."""
    import numpy as np

    n, k = p.shape
    hi = np.array([n if at_most[c] < 0 else min(int(at_most[c]), n) for c in range(k)])
    lo = np.minimum(np.maximum(np.asarray(at_least, np.int64), 0), hi)
    if lo.sum() > n:
        lo = np.zeros(k, np.int64)   # more required than rows: keep the upper bounds only
    cost = -np.log(np.maximum(p, 1e-12))
    choice = np.argmax(p, axis=1)
    rows = np.arange(n)
    for _ in range(n * k):
        counts = np.bincount(choice, minlength=k)
        over, under = counts > hi, counts < lo
        if not over.any() and not under.any():
            break
        # edge[a, b]: the cheapest row of class a moving to class b, and which row
        by_class = np.full((k, n, k), np.inf)
        by_class[choice, rows] = cost - cost[rows, choice][:, None]
        which = np.argmin(by_class, axis=1)
        edge = np.take_along_axis(by_class, which[:, None, :], axis=1)[:, 0]
        np.fill_diagonal(edge, np.inf)
        dist, nxt = edge.copy(), np.tile(np.arange(k), (k, 1))
        for m in range(k):   # Floyd-Warshall with the next hop of each shortest path
            via = dist[:, m:m + 1] + dist[m:m + 1, :]
            better = via < dist
            dist = np.where(better, via, dist)
            nxt = np.where(better, nxt[:, m:m + 1], nxt)
        if over.any():   # a class over its bound gives a row to one with room
            src_ok, dst_ok = over, counts < hi
        else:            # a class under its bound takes a row from one above its own lower bound
            src_ok, dst_ok = counts > lo, under
        d = np.where(src_ok[:, None] & dst_ok[None, :], dist, np.inf)
        a, b = np.unravel_index(int(np.argmin(d)), d.shape)
        if not np.isfinite(d[a, b]):
            break
        moves = []
        while a != b and len(moves) < k:   # the path's moves, each row from its class to the next
            hop = int(nxt[a, b])
            moves.append((int(which[a, hop]), hop))
            a = hop
        if a != b:       # (only a negative cycle could do this; none arises from the likeliest start)
            break
        for r, c in moves:
            choice[r] = c
    return choice


def read_spot_tiles(net: PatchNet, maps: TileMaps, log_norm: Any, tile_set: Iterable[str], image: Any = None,
                    gain: Any = None, config: TileNetConfig = DEFAULT_CONFIG
                    ) -> tuple[dict[str, str | None], dict[str, float]]:
    """(code or None per spot, probability margin to the runner-up per spot); only the board's codes,
    and (when `tile_set` maps codes to how many the game has) no code read more often than that and,
    with `config.exact_counts`, every tile that stays on the board read exactly as often as that. A
    spot whose code the counts changed gets a margin <= 0 (its own reading said otherwise)."""
    import numpy as np

    codes = set(tile_set)
    allowed = np.array([c == EMPTY or c in codes for c in CODES])
    z = net.logits(tile_features(maps, log_norm, image, gain))
    p = softmax(np.where(allowed[None, :], z, -1e9))
    if maps.shifted and config.second_look_margin > 0:
        top2 = np.sort(p, axis=1)[:, -2:]
        unsure = np.nonzero(top2[:, 1] - top2[:, 0] < config.second_look_margin)[0]
        if unsure.size:
            zs = net.logits(tile_features(_spot_subset(maps, unsure, maps.shifted), log_norm, image, gain))
            looks = softmax(np.where(allowed[None, :], zs, -1e9)).reshape(len(maps.shifted), unsure.size, -1)
            p[unsure] = np.mean(np.concatenate([p[unsure][None], looks]), axis=0)
    order = np.argsort(-p, axis=1)
    choice = order[:, 0]
    if isinstance(tile_set, Mapping):
        capacity = np.array([-1 if c == EMPTY else int(tile_set.get(c, 0)) for c in CODES])
        if config.exact_counts:
            stays = np.array([0 if c == EMPTY or c.startswith(config.taken_prefix) else int(tile_set.get(c, 0))
                              for c in CODES])
            cols = np.nonzero(allowed)[0]   # (the board's codes only: a smaller problem)
            choice = cols[decode_by_counts(p[:, cols], stays[cols], capacity[cols])]
        else:
            choice = decode_within_counts(p, capacity)
    tiles, margins = {}, {}
    for i, sid in enumerate(maps.spots):
        code = CODES[int(choice[i])]
        tiles[sid] = None if code == EMPTY else code
        runner_up = order[i, 1] if order[i, 0] == choice[i] else order[i, 0]
        margins[sid] = float(p[i, choice[i]] - p[i, runner_up])
    return tiles, margins


def main(argv: list[str] | None = None) -> int:
    """Run the learned tile stage alone on one frame."""
    from .appearance import stage_view
    from .stagecli import stage_parser
    from .tiles import TileReading, draw_tiles

    args = stage_parser("vision.tilenet", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm, _sigma = got
    net = load_mlp(DEFAULT_CONFIG.weights)
    if net is None:
        print(f"no classifier weights at {DEFAULT_CONFIG.weights} (scripts/train_pawns.py)", file=sys.stderr)
        return 2
    from .appearance import DEFAULT_CONFIG as APPEARANCE
    from .appearance import normalise
    from .geometry import DEFAULT_CONFIG as GEOMETRY

    _norm, gain = normalise(APPEARANCE, view.warp(image), art, view.ppm)
    maps = build_tile_maps(DEFAULT_CONFIG, board, view, log_art, pose, GEOMETRY.board_thickness_mm)
    tiles, margins = read_spot_tiles(net, maps, log_norm, board.tile_set, image, gain)
    for sid, code in tiles.items():
        print(f"{sid:5s} {code or '-':12s} margin {margins[sid]:.3f}")
    if args.overlay:
        import cv2

        cv2.imwrite(args.overlay, draw_tiles(image, pose, board, TileReading(tiles, {}, {}, margins, 1.0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
