"""Stage: the pawns on every path stone by a small learned classifier (numpy MLP) on one patch per stone.

Geometry (once per registration, `build_patch_maps`): every path stone gets a patch of the board view
(vision.geometry.BoardView, the board's top seen from above) `patch_u_mm` wide, reaching
`patch_back_mm` behind the stone and `patch_front_mm` beyond it *along the camera's parallax*: its
axis points from the camera's nadir through the stone, the way a pawn's head leans in the view. So a
pawn looks alike in every stone's patch whatever the camera's yaw and position; how far its head
leans (the lift of a 50 mm point, `lift_mm`) is an input. The art's patches are cut once too.

Per frame (`stone_features`): with `from_frame` (off by default), the patches' samples are cut from the
frame itself: their board points projected through the pose once per registration, each sample the
mean of `frame_supersample`² frame samples over its cell, divided by the appearance stage's gain and
less its veil at the stone (vision.appearance: the lamp's colour, exposure and glare veil against the
board's art) and logged (`frame_patches`; as vision.tilenet does for tiles). Otherwise the board view,
itself resampled and box-blurred, is used (one remap of its colour-normalised log into a mosaic
of all stones' patches). In each patch, what is left of a white-balance error is removed by the
patch's own median difference to the art. The inputs are that difference and the corrected colour per pixel,
the lift, the distance to the start stone's rim (the start crowd may spill onto the first stones)
and which of the four player colours are in play (only those are possible answers).

The classifier (`PawnNet`, weights in `vision/models/pawns.npz`, trained by scripts/train_pawns.py
from simulator frames) answers per stone and per player colour: is that player's big pawn here
(0/1), and how many of their small pawns (0, 1, 2+). Decoding (`decode_pawns`) keeps the colours in
play only, and each player's pawns within the 1 big + 4 small they own, across the whole board.
Stones that may hold a pawn get a second look (`second_look`): their patches mirrored across the lean.
A count head (`CountHead`, vision/models/pawns-count.npz, fitted on the frozen network by `train_pawns.py
count-head`) reads from the network's hidden layer (and its pooled conv maps) how many pawns stand on each stone,
whatever their colours; a stone decoded with fewer pawns than it counts gets the likeliest missing one, up to
`count_adds` times (`add_counted_pawns`).
The weights file may hold several such networks trained apart (`PawnEnsemble`, joined by
`train_pawns.py ensemble`): every reading is then their average (`pawn_probabilities`), since one
training run is a noisy draw (docs/vision.md, sessions 20-21).

Run alone: `python -m vision.pawnnet FRAME.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

COLOURS = ("black", "white", "grey", "brown")   # the classifier's player colours, in its output order
SMALL_CLASSES = 3                               # 0, 1, 2+ small pawns of one colour on one stone
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "models" / "pawns.npz"
DEFAULT_COUNT_WEIGHTS = Path(__file__).resolve().parent / "models" / "pawns-count.npz"
COUNT_CLASSES = 5                               # the shipped count head's answers: 0, 1, 2, 3, 4+ pawns on a stone
                                                # (a head's own: CountHead.classes, its file's)
AVERAGES = ("probability", "logit")             # how an ensemble's answers are combined (PawnNetConfig.ensemble_average)


@dataclass(frozen=True)
class PawnNetConfig:
    """Patch geometry and decision thresholds of the learned pawn reader."""

    weights: str = str(DEFAULT_WEIGHTS)
    step_mm: float = 2.0          # patch sample spacing (the frame resolves ~1 px/mm at 2304×1296)
    patch_u_mm: float = 16.0      # half width across the lean
    patch_back_mm: float = 16.0   # behind the stone's centre (towards the nadir)
    patch_front_mm: float = 52.0  # beyond it (a big pawn's head leans up to ~45 mm at 25° tilt)
    # cut the patches from the frame itself through the pose, not from the board view (off: the shipped
    # weights were trained on the board view's patches; docs/vision.md "Seventh pass" for frame-cut nets)
    from_frame: bool = False
    log_offset: float = 12.0      # as vision.appearance's offset (the log of a normalised colour; from_frame)
    frame_supersample: int = 2    # from_frame: each sample the mean of k x k frame samples across its cell
    big_threshold: float = 0.3    # probability of a big pawn above which it is read
    small_bias: float = 0.0       # log-odds added per small pawn (a prior; 0: the classifier's own odds)
    # of a colour's small pawns read present, two (not one) when P(2+) is this share of P(1) + P(2+): pairs of
    # one player's small pawns are rare in training, so the 2+ class is read too seldom at 0.5 (docs/vision.md,
    # session 18)
    two_small_share: float = 0.35
    # a player read with more small pawns than it owns and no big one: the small-read stone with the highest
    # P(big) holds its big pawn, seen small (a partly hidden or steeply viewed big pawn looks small), rather
    # than a small pawn being dropped there or elsewhere — when that P(big) is at least this (below it the net is
    # sure there is no big pawn; the counts, 1 big + 4 small, say one of the surplus is the big one or a phantom;
    # docs/vision.md, session 24)
    surplus_small_big_floor: float = 0.05
    surplus_small_as_big: bool = True
    # a player with no big pawn read but at least this many small ones (up to the 4 it owns) has its big pawn on
    # the path too, on the stone of highest P(big) when that is at least `lone_big_floor` (a small pawn read there
    # is the big one seen small): on dev, 28 of 33 players with 4 small read had their big pawn out, while the
    # net's P(big) for a big pawn in a crowd often stays under `big_threshold`. 3 gains as much on dev stills
    # (11 of 13 with 3 read) but loses 3 demo turns (a player's 3 small pawns out early, its big one still on the
    # start; docs/vision.md, session 27). 0 switches it off; 5+ small read is the surplus rule's case above
    lone_big_min_small: int = 4
    lone_big_floor: float = 0.05
    # a small pawn of the colour whose big pawn is read on the same stone needs P(no small pawn) below this
    # (0.5: as any other): the net half-reads a big pawn's own head as a small one beside it (the demo's
    # `B:g4, S:g4`). On dev, none of 9 stones so read with P(0) 0.45-0.5 had a small pawn of the colour, 7 of
    # 37 at 0.35-0.5; 0.35 gains 4 errors more on dev, but above 0.41 the recorded y3 stone of
    # tests/vision/test_pawn_second_look.py stays the old look's phantom case (session 27)
    beside_big_p0: float = 0.45
    # a stone expected to hold this many pawns is read again, mirrored (the two readings averaged): at 1.5 only
    # crowded stones were, but a lone small pawn the net half sees beside a neighbour's or the crowd's pawns gains
    # as much; 0.3 mirrors ~18 % of the stones (1.5: ~6 %; +~0.7 ms a frame), 0.2-0.4 alike on dev (session 25)
    second_look_pawns: float = 0.3
    # the count head (`CountHead`, vision/models/pawns-count.npz; "" = off): a small readout of the network's
    # hidden layer that says how many pawns of the colours in play stand on a stone (0-3, 4+), trained with the
    # network frozen (scripts/train_pawns.py count-head). The per-colour outputs miss pawns on crowded stones
    # (a pawn the net half sees counts towards no colour); the total still shows it. A stone whose reading has
    # fewer pawns than the head gives `count_more` or more probability to (P(total > read)) gets one more: the
    # colour and size with the most evidence on the stone (P(one more small) or P(big) of a player whose big
    # pawn is read nowhere), when that is at least `count_pick_floor` and the player's 4 small allow it. On the
    # dev cache 0.6-0.7 alike (497 -> 469-470 of 5 150 pawn errors; 0.5 / 0.9: 471 / 480); 0.7 adds fewer
    # phantoms. Dropping a pawn where the head says fewer was tried: as many right pawns lost as phantoms
    # removed (docs/vision.md, session 28)
    # `count_adds`: how many times a stone may be given a counted pawn (each time only while the head still gives
    # P(total > read) >= `count_more`). 1: main's reading. A head refitted with 0 .. 6+ classes and the network's
    # pooled conv maps (train_pawns.py count-head --classes 7 --pooled) with 2 read four dev caches 419 -> 408 pawn
    # errors but the fresh seed 92 -> 94 (misses -3, wrong colours +5): not shipped, 1 kept (docs/vision.md,
    # session 32 (wt32-count))
    count_weights: str = str(DEFAULT_COUNT_WEIGHTS)
    count_more: float = 0.7
    count_pick_floor: float = 0.1
    count_adds: int = 1
    # a small pawn read beside its own colour's big pawn on a stone the count head says holds fewer pawns than read
    # (P(total < read) at least this; 0 = off) is the big pawn's own head read twice and is dropped, not on first-row
    # stones (where a player's big and small pawn often stand together early in a game). At 0.7 the demo gains a
    # turn and its final scores (234 phantom smalls gone from its frames, 1 real one lost), and stones of 1-2 pawns
    # on the session-28 dev stills are read right more often (294 -> 268 stone errors), but eval's per-pawn count
    # does not fall (528 -> 530 of 4 765: a phantom removed where the player's fourth small pawn is missed elsewhere
    # reappears as a "start" error). Switched on by the lead in session 29: the demo's final scores right and six dev
    # whole games read identically (docs/vision.md, session 29; docs/benchmarks.md)
    beside_big_count_fewer: float = 0.7
    # the same drop on first-row stones, at this P(total < read) (0 = off: first-row stones exempt, as main). The
    # start extras' largest class on the NWNZ first row is this echo (24 of F84500's 46 first-row ones); at 0.7 five
    # still caches 818 -> 810 pawn errors (start extras 103 -> 70, but misses 237 -> 250 and sizes +7: real pairs
    # of one player's big and small pawn lost, as sessions 31-32 found), the kept games' stills 389 -> 360 and
    # session 33's kept NWNZ games 31 -> 32/35 turns. Largely a trade of start extras for misses: off
    # (docs/vision.md, session 34 (wt34-pstart))
    beside_big_first_row: float = 0.0
    # a stone the count head says holds one more pawn (P(total > read) at least `count_more`) where the likeliest
    # missing pawn's player already has its 4 small ones read: that player's small pawn is moved here from the
    # stone of its where the head is surest that fewer pawns stand than read (P(total < read) at least this; 0 =
    # off). The players' limit blocks add_counted_pawns on such stones though the head is seldom wrong there; the
    # head on the other stone says which of the player's readings is the phantom. Both stones keep the player's
    # count (1 big + 4 small) and state margin 0. On the dev stills (D83790, D83920; the reader's own functions on
    # every usable board frame) 0.3-0.7 alike (230 -> 222-223 of 2 625 pawn errors; 0.9: 225); the moved pawns: 12 of 16
    # right at both ends, 3 wrong at both (docs/vision.md, session 30 (wt30-pmiss))
    count_move_fewer: float = 0.5
    count_move_big: bool = True   # the same for a player's big pawn read on another stone (evidence P(big)): 222 -> 220
    # RULES §1 (base board): a player has at most one pawn per path. Where the board says so (the reader passes each
    # stone's path), a player read with two or more pawns on one path keeps one: on a stone read with its big pawn and
    # a small one, the big one (the small is its head read twice: 21 of 27 such stones on three dev caches held the
    # big pawn only, 4 the small); else the way of keeping one with the highest sum of the colour's log-probabilities
    # on the stones it touches plus `one_per_path_count_weight` times the count head's log-probabilities of their
    # totals (1: the two as alike evidence; 0-2 read D83790 and D83920 identically). Before the counted pawn; the
    # counted and moved pawns obey it too. Dev caches (the reader's own decoding of every usable board frame): D83790
    # 162 -> 155 / 1 920 pawn errors (start extras 30 -> 22), D83920 58 -> 57 / 705, D84080 123 -> 116 / 1 280
    # (start extras 27 -> 20); NWNZ frames unchanged (docs/vision.md, session 31 (wt31-pcrowd))
    one_per_path: bool = True
    one_per_path_count_weight: float = 1.0
    # a player with no big pawn read anywhere: its stone of highest P(big), where a small pawn of its is read, holds
    # its big pawn seen small when that P(big) is at least `rel_big_floor` and `rel_big_ratio` times the highest
    # P(big) of its other stones — the same network, colour, light and frame, the stone standing out from the
    # player's own others (a first-row big pawn in a crowd, a white one seen from above: P(big) 0.2-0.3 where its
    # other stones give ~0). The lone-big rule above needs 4 small read; this one needs no count but a clear
    # outlier. 0 (either) = off. Dev caches: docs/vision.md, session 32 (wt32-psize)
    # OFF (0.0) since the lead's fresh whole games (session 32): a player's big pawn still on the start is not "seen
    # small" — nwnz-3p-84256 south's first small step onto b1 read big (9/10 turns, final wrong; 10/10 without);
    # as branched: 0.2 / 3.0
    rel_big_floor: float = 0.0
    rel_big_ratio: float = 3.0
    # a stone read with one pawn only, a small one, of a colour with no big pawn read anywhere, where the count head
    # says one pawn (P(total = 1) at least `lone_pawn_count_share`): that pawn is its player's big one when P(big) is at
    # least `lone_pawn_big_floor` (under `big_threshold`: the net half sees a lone big pawn's head top-down or in
    # grey / white). A lone pawn has no neighbour to lend it a head; on the dev caches a lone small pawn's P(big)
    # is under 0.15 all but thrice in ~330, lone big pawns read small sit at 0.2-0.3 (docs/vision.md, session 37
    # (wt37-npawn)). 0 = off
    lone_pawn_big_floor: float = 0.2
    lone_pawn_count_share: float = 0.5
    sure_margin: float = 0.3      # a decision this far from its threshold is sure (confidence)
    # how often a stone is read right, by its least sure decision's margin (StonePawns.margin): (margin below,
    # share right), ascending; a stone above the last bound is right `stone_right_others` of the time. Measured on
    # dev stills (bench/element_confidence.py prints the table for the shipped weights); the reader states it per
    # stone (Observation extra "element_confidence", docs/formats-extensions.md) so the turn decoder prices a
    # misread of an unsure stone low and of a sure one high, not every stone by the frame's least sure one.
    stone_right: tuple[tuple[float, float], ...] = ((0.1, 0.45), (0.5, 0.65))
    stone_right_others: float = 0.997
    # the same for a first-row stone: read wrong about ten times as often at a sure margin — mostly because half
    # its pawns share the stone with 2+ others (a start-crowd pawn reaches into only ~12 % of its patches; session 25)
    first_row_right: tuple[tuple[float, float], ...] = ((0.1, 0.35), (0.5, 0.55))
    first_row_others: float = 0.977
    # a weights file of several networks (PawnEnsemble): their answers averaged as probabilities or as logits
    ensemble_average: str = "probability"

    def __post_init__(self) -> None:
        if self.ensemble_average not in AVERAGES:
            raise ValueError(f"PawnNetConfig.ensemble_average {self.ensemble_average!r}: one of {AVERAGES}")


DEFAULT_CONFIG = PawnNetConfig()


@dataclass(frozen=True, eq=False)
class PatchMaps:
    """One registration's patch sampling: mosaic maps into the board view, the art's patches, extras."""

    stones: tuple[str, ...]
    shape: tuple[int, int]                # (rows, cols) of one stone's patch
    map_x: Any = field(repr=False)        # float32 (N*rows) x cols, board-view pixels
    map_y: Any = field(repr=False)
    art: Any = field(repr=False)          # N x rows x cols x 3 log art
    extras: Any = field(repr=False)       # N x 2: lift of a 50 mm point / 50 mm, start-rim distance / 100 mm
    frame_x: Any = field(repr=False, default=None)   # float32 (N*rows) x cols, frame pixels (from_frame)
    frame_y: Any = field(repr=False, default=None)
    centres: Any = field(repr=False, default=None)   # N x 2 int: each stone's view pixel (x, y)
    log_offset: float = 12.0
    supersample: int = 1                             # frame samples per patch sample and side (from_frame)


def patch_offsets(config: PawnNetConfig) -> tuple[Any, Any]:
    """(across the lean, along it) sample offsets in mm of one stone's patch: symmetric across the lean
    (the second look mirrors the patch there), from `patch_back_mm` behind to `patch_front_mm` beyond."""
    import numpy as np

    n = int(math.floor(2 * config.patch_u_mm / config.step_mm + 1e-6)) + 1
    us = config.step_mm * (np.arange(n) - (n - 1) / 2.0)
    vs = np.arange(-config.patch_back_mm, config.patch_front_mm + 1e-6, config.step_mm)
    return us, vs


def patch_shape(config: PawnNetConfig) -> tuple[int, int]:
    """(rows, cols) of one stone's patch (along the lean, across it)."""
    us, vs = patch_offsets(config)
    return len(vs), len(us)


def build_patch_maps(config: PawnNetConfig, board: Any, view: Any, log_art: Any, pose: Any = None,
                     board_thickness_mm: float = 3.0) -> PatchMaps:
    """Every path stone's patch in the board view (see the module docstring) and, given the pose and
    `config.from_frame`, in the frame itself (the board's top surface projected through the pose):
    once per registration."""
    import cv2
    import numpy as np

    us, vs = patch_offsets(config)
    vv, uu = np.meshgrid(vs, us, indexing="ij")
    nx, ny = view.nadir
    start = next((s for s in board.stones.values() if s.kind == "start"), None)
    ids, mx, my, extras, axes = [], [], [], [], []
    for sid, s in board.stones.items():
        if s.kind == "start":
            continue
        dx, dy = s.x - nx, s.y - ny
        d = math.hypot(dx, dy)
        ax, ay = (dx / d, dy / d) if d > 1.0 else (0.0, 1.0)
        px, py = -ay, ax
        xs = s.x + uu * px + vv * ax
        ys = s.y + uu * py + vv * ay
        mx.append((xs * view.ppm - 0.5).astype(np.float32))
        my.append((ys * view.ppm - 0.5).astype(np.float32))
        axes.append((s.x, s.y, ax, ay, px, py))
        lx, ly, _k = view.lifted(s.x, s.y, 50.0)
        rim = math.hypot(s.x - start.x, s.y - start.y) - start.r if start is not None else 500.0
        extras.append((math.hypot(lx - s.x, ly - s.y) / 50.0, min(rim, 200.0) / 100.0))
        ids.append(sid)
    map_x, map_y = np.concatenate(mx), np.concatenate(my)
    rows, cols = vv.shape
    art = cv2.remap(log_art.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    frame_x = frame_y = centres = None
    k = max(1, int(config.frame_supersample))
    if config.from_frame and pose is not None:
        # k x k sub-samples spread evenly over each sample's cell (k = 1: the sample itself)
        sub = ((np.arange(k) + 0.5) / k - 0.5) * config.step_mm
        fv, fu = np.meshgrid((vs[:, None] + sub[None, :]).ravel(), (us[:, None] + sub[None, :]).ravel(), indexing="ij")
        xs = np.concatenate([x0 + fu * px + fv * ax for x0, _y0, ax, _ay, px, _py in axes]).ravel()
        ys = np.concatenate([y0 + fu * py + fv * ay for _x0, y0, _ax, ay, _px, py in axes]).ravel()
        uv = pose.project(np.stack([xs, ys, np.full(xs.size, -board_thickness_mm)], 1))
        frame_x = uv[:, 0].reshape(len(ids) * rows * k, cols * k).astype(np.float32)
        frame_y = uv[:, 1].reshape(len(ids) * rows * k, cols * k).astype(np.float32)
        w, h = view.size_px
        centres = np.array([(min(w - 1, max(0, int(board.stones[sid].x * view.ppm))),
                             min(h - 1, max(0, int(board.stones[sid].y * view.ppm)))) for sid in ids], np.int64)
    return PatchMaps(tuple(ids), (rows, cols), map_x, map_y, art.reshape(len(ids), rows, cols, 3),
                     np.array(extras, np.float32), frame_x, frame_y, centres, config.log_offset, k)


def median_axis1(x: Any) -> Any:
    """np.median(x, axis=1), by np.partition (the same values; np.median's overhead is ~1 ms a frame
    on every stone's patch)."""
    import numpy as np

    n = x.shape[1]
    k = n // 2
    if n % 2:
        return np.partition(x, k, axis=1)[:, k]
    part = np.partition(x, (k - 1, k), axis=1)
    return (part[:, k - 1] + part[:, k]) * 0.5


def in_play_vector(players: Sequence[str]) -> Any:
    import numpy as np

    return np.array([1.0 if c in players else 0.0 for c in COLOURS], np.float32)


def frame_patches(maps: PatchMaps, image: Any, gain: Any) -> Any:
    """N x rows x cols x 3 log colour of every stone's patch cut from the frame itself (`maps.frame_x`,
    `frame_y`), divided by the appearance stage's gain and less its veil (vision.appearance's (gain,
    offset) maps, taken at each stone's centre) as the normalised view is: log(max(frame - offset, 0) /
    gain + log_offset), as vision.tilenet's patches from the frame."""
    import cv2
    import numpy as np

    n = len(maps.stones)
    rows, cols = maps.shape
    raw = cv2.remap(image, maps.frame_x, maps.frame_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    k = maps.supersample
    if k > 1:   # each sample the mean of its cell's k x k frame samples (a box filter: no aliasing);
        # INTER_AREA by a whole factor is exactly the block mean (~3x faster than numpy's mean here)
        raw = cv2.resize(raw.astype(np.float32), (cols, n * rows), interpolation=cv2.INTER_AREA)
        raw = raw.reshape(n, rows, cols, 3)
    else:
        raw = raw.reshape(n, rows, cols, 3).astype(np.float32)
    cx, cy = maps.centres[:, 0], maps.centres[:, 1]
    g = gain[0][cy, cx][:, None, None, :]
    o = gain[1][cy, cx][:, None, None, :]
    raw -= o
    np.maximum(raw, 0.0, out=raw)
    raw /= np.maximum(g, 1e-3)
    raw += np.float32(maps.log_offset)
    return np.log(raw, out=raw)


def stone_features(maps: PatchMaps, log_norm: Any, players: Sequence[str], image: Any = None,
                   gain: Any = None) -> Any:
    """N x F float32 inputs of the classifier, one row per stone of `maps.stones` (see module doc):
    from the frame (`image`, with the appearance stage's (gain, offset) maps) when the maps were built
    for it, else from the colour-normalised log view."""
    import cv2
    import numpy as np

    n = len(maps.stones)
    rows, cols = maps.shape
    if maps.frame_x is not None and image is not None and gain is not None:
        patch = frame_patches(maps, image, gain)
    else:
        patch = cv2.remap(log_norm.astype(np.float32, copy=False), maps.map_x, maps.map_y, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE).reshape(n, rows, cols, 3)
    diff = patch - maps.art
    med = median_axis1(diff.reshape(n, -1, 3))[:, None, None, :]
    diff = diff - med
    colour = patch - med
    flat = np.concatenate([diff, colour], axis=3).reshape(n, -1)
    play = np.broadcast_to(in_play_vector(players), (n, len(COLOURS)))
    return np.concatenate([flat, maps.extras, play], axis=1).astype(np.float32)


def im2col3(x: Any, out_hw: tuple[int, int] | None = None, padded: bool = False) -> Any:
    """N x H x W x C -> (N*H*W) x 9C: every pixel's 3x3 neighbourhood (zero padded), for a 'same' conv.
    `padded`: x already carries the one pixel of zeros around each image (N x H+2 x W+2 x C).
    `out_hw`: only the first (h, w) output rows and columns (those the 2x2 pooling after the
    convolution keeps)."""
    import numpy as np

    xp = x if padded else np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    n, c = xp.shape[0], xp.shape[3]
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(1, 2))   # N H W C 3 3
    if out_hw is not None:
        win = win[:, :out_hw[0], :out_hw[1]]
    h, w = win.shape[1], win.shape[2]
    return np.ascontiguousarray(win.transpose(0, 1, 2, 4, 5, 3)).reshape(n * h * w, 9 * c)


def _conv3_pool_relu(xp: Any, kernel: Any, bias: Any) -> Any:
    """2x2 max-pool(ReLU(3x3 'same' convolution + bias)) of the zero-padded N x H+2 x W+2 x C input.

    The convolution only at the pixels the pooling keeps (an odd last row or column is dropped), and
    the bias and ReLU after the pooling, on a quarter of the values: adding a constant and max(., 0)
    are monotonic, so they commute with the max exactly (the same float32 values)."""
    import numpy as np

    n, h, w = xp.shape[0], xp.shape[1] - 2, xp.shape[2] - 2
    h2, w2 = h // 2 * 2, w // 2 * 2
    y = maxpool2((im2col3(xp, (h2, w2), padded=True) @ kernel).reshape(n, h2, w2, -1))
    y += bias
    np.maximum(y, 0.0, out=y)
    return y


def _padded(x: Any) -> Any:
    """x (N x H x W x C) with one pixel of zeros around each image, in a fresh float32 array."""
    import numpy as np

    n, h, w, c = x.shape
    xp = np.zeros((n, h + 2, w + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    return xp


def maxpool2(x: Any) -> Any:
    import numpy as np

    h2, w2 = x.shape[1] // 2 * 2, x.shape[2] // 2 * 2
    return np.maximum(np.maximum(x[:, 0:h2:2, 0:w2:2], x[:, 1:h2:2, 0:w2:2]),
                      np.maximum(x[:, 0:h2:2, 1:w2:2], x[:, 1:h2:2, 1:w2:2]))


@dataclass(frozen=True, eq=False)
class PatchNet:
    """A small convolutional classifier on patches, in numpy: standardise per channel, two 3x3 conv +
    ReLU + 2x2 max-pool layers, a hidden dense layer (with the extra scalar inputs appended) and the
    output logits. Shared by the learned pawn reader (here) and tile reader (vision.tilenet); trained
    by scripts/train_pawns.py."""

    shape: tuple[int, int, int]     # rows, cols, channels of one patch
    mean: Any                       # per channel
    scale: Any
    c1: Any                         # 9*C x F1
    d1: Any
    c2: Any                         # 9*F1 x F2
    d2: Any
    w3: Any                         # (pooled features + extras) x H
    b3: Any
    w4: Any                         # H x outputs
    b4: Any
    info: str = ""

    def logits(self, x: Any) -> Any:
        """N x (rows*cols*channels + extras) inputs -> N x outputs logits."""
        return self.hidden(x) @ self.w4 + self.b4

    def hidden(self, x: Any) -> Any:
        """N x H: the hidden dense layer's activations (after its ReLU), which the output logits read."""
        return self._hidden(x)[0]

    def hidden_pooled(self, x: Any) -> tuple[Any, Any]:
        """(hidden as `hidden`, N x 2*F2: the second conv layer's maps' per-channel mean and max over the patch)
        from one pass: where on the patch a pawn is does not matter to how many there are (the count head)."""
        import numpy as np

        h, maps = self._hidden(x)
        return h, np.concatenate([maps.mean(axis=(1, 2)), maps.max(axis=(1, 2))], axis=1)

    def _hidden(self, x: Any) -> tuple[Any, Any]:
        import numpy as np

        r, c, ch = self.shape
        n = len(x)
        # standardised per channel (on the flat rows, where the operations run contiguously)
        mean, scale = self._flat_standardisation()
        img = x[:, :r * c * ch] - mean
        img *= scale
        extras = x[:, r * c * ch:]
        h = _conv3_pool_relu(_padded(img.reshape(n, r, c, ch)), self.c1, self.d1)
        maps = _conv3_pool_relu(_padded(h), self.c2, self.d2)
        h = np.concatenate([maps.reshape(n, -1), extras], axis=1) @ self.w3
        h += self.b3
        np.maximum(h, 0.0, out=h)
        return h, maps

    def _flat_standardisation(self) -> tuple[Any, Any]:
        """The per-channel mean and scale repeated over one patch's pixels (made once per network)."""
        import numpy as np

        got = self.__dict__.get("_flat")
        if got is None:
            r, c, _ch = self.shape
            got = (np.tile(np.asarray(self.mean).reshape(-1), r * c),
                   np.tile(np.asarray(self.scale).reshape(-1), r * c))
            object.__setattr__(self, "_flat", got)    # a cache, not a field: the network stays frozen
        return got

    def arrays(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("mean", "scale", "c1", "d1", "c2", "d2", "w3", "b3", "w4", "b4")}

    def save(self, path: str | Path) -> None:
        import numpy as np

        arrays = {k: v.astype(np.float16 if k in ("w3",) else np.float32) for k, v in self.arrays().items()}
        np.savez_compressed(path, shape=np.array(self.shape), info=np.array(self.info), **arrays)


_ARRAYS = ("mean", "scale", "c1", "d1", "c2", "d2", "w3", "b3", "w4", "b4")


def _net_of(z: Any, prefix: str = "") -> PatchNet:
    import numpy as np

    arrays = {k: z[prefix + k].astype(np.float32) for k in _ARRAYS}
    return PatchNet(tuple(int(v) for v in z[prefix + "shape"]), info=str(z[prefix + "info"]), **arrays)


def load_net(path: str | Path) -> PatchNet | None:
    """A classifier's weights, or None when the file is absent (one network: a file of several pawn
    networks is read by load_pawn_net)."""
    import numpy as np

    p = Path(path)
    if not p.is_file():
        return None
    z = np.load(p)
    if "members" in z.files:
        raise ValueError(f"{p} holds {int(z['members'])} pawn networks (an ensemble): read it with load_pawn_net")
    return _net_of(z)


load_mlp = load_net


@dataclass(frozen=True, eq=False)
class PawnEnsemble:
    """K pawn networks of one architecture trained apart (other training seeds and data): the reader
    averages their answers (`pawn_probabilities`), since any one training run is a noisy draw
    (docs/vision.md, sessions 20-21). One member is the single network."""

    members: tuple[PatchNet, ...]

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("a pawn ensemble needs at least one network")
        shapes = {(m.shape, m.w4.shape[1]) for m in self.members}
        if len(shapes) != 1:
            raise ValueError(f"the pawn ensemble's members differ in patch or output shape: {sorted(shapes)}")

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.members[0].shape

    @property
    def info(self) -> str:
        return " | ".join(m.info for m in self.members)

    def save(self, path: str | Path) -> None:
        """One .npz: member k's arrays under the prefix "m{k}_", and the member count under "members"."""
        import numpy as np

        arrays: dict[str, Any] = {"members": np.array(len(self.members))}
        for k, net in enumerate(self.members):
            for name, v in net.arrays().items():   # w3 in float16 as PatchNet.save (half the file)
                arrays[f"m{k}_{name}"] = v.astype(np.float16 if name == "w3" else np.float32)
            arrays[f"m{k}_shape"] = np.array(net.shape)
            arrays[f"m{k}_info"] = np.array(net.info)
        np.savez_compressed(path, **arrays)


def load_pawn_net(path: str | Path) -> PawnEnsemble | None:
    """The pawn reader's networks (a file of one network, or of several: PawnEnsemble.save), or None when
    the file is absent. Loaded once per reader."""
    import numpy as np

    p = Path(path)
    if not p.is_file():
        return None
    z = np.load(p)
    if "members" not in z.files:
        return PawnEnsemble((_net_of(z),))
    return PawnEnsemble(tuple(_net_of(z, f"m{k}_") for k in range(int(z["members"]))))


def softmax(a: Any) -> Any:
    import numpy as np

    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def pawn_probabilities(net: PatchNet | PawnEnsemble, x: Any, average: str = "probability") -> tuple[Any, Any]:
    """(P(big) N x 4, P(small count) N x 4 x SMALL_CLASSES) per stone and colour. Of an ensemble, the
    members' mean (`average` "probability": of their probabilities; "logit": of their logits, then the
    softmax) — the one place where members are combined."""
    p_big, p_small, _ = pawn_outputs(net, x, average)
    return p_big, p_small


def net_fingerprint(net: PatchNet | PawnEnsemble) -> str:
    """Which network a count head was fitted to (its first member's output layer): a head reads that
    network's hidden layer, so it is only valid with those very weights."""
    import hashlib

    import numpy as np

    m = net.members[0] if isinstance(net, PawnEnsemble) else net
    got = m.__dict__.get("_fingerprint")
    if got is None:
        h = hashlib.sha1(np.ascontiguousarray(m.w4, np.float32).tobytes())
        h.update(np.ascontiguousarray(m.b4, np.float32).tobytes())
        got = h.hexdigest()
        object.__setattr__(m, "_fingerprint", got)    # a cache, not a field (as PatchNet._flat)
    return got


@dataclass(frozen=True, eq=False)
class CountHead:
    """How many pawns of the colours in play stand on a stone (0 .. COUNT_CLASSES-1, the last "or more"),
    read from a pawn network's hidden layer and its own output logits (of its first member) by one or more
    small MLPs trained apart (their probabilities averaged): scripts/train_pawns.py count-head."""

    mu: Any              # per input: standardisation
    sd: Any
    layers: tuple[tuple[Any, Any, Any, Any], ...]   # per member (W1, b1, W2, b2)
    fingerprint: str     # net_fingerprint of the network it was fitted to
    info: str = ""
    # its inputs also the network's second conv maps' per-channel mean and max (PatchNet.hidden_pooled): the hidden
    # layer alone undercounts 3-pawn stones (session 32)
    pooled: bool = False

    @property
    def classes(self) -> int:
        """Its answers: totals 0 .. classes - 1, the last "or more" (the width of its output layer)."""
        return int(self.layers[0][2].shape[1])

    def probabilities(self, hidden: Any, logits: Any, pooled: Any = None) -> Any:
        """N x classes from the network's N x H hidden activations and N x outputs logits (and, for a `pooled`
        head, PatchNet.hidden_pooled's pooled maps)."""
        import numpy as np

        parts = [hidden, logits] + ([pooled] if self.pooled else [])
        a = (np.concatenate(parts, axis=1) - self.mu) / self.sd
        return np.mean([softmax(np.maximum(a @ w1 + b1, 0.0) @ w2 + b2) for w1, b1, w2, b2 in self.layers], axis=0)

    def save(self, path: str | Path) -> None:
        import numpy as np

        arrays: dict[str, Any] = {"mu": self.mu, "sd": self.sd, "members": np.array(len(self.layers)),
                                  "fingerprint": np.array(self.fingerprint), "info": np.array(self.info),
                                  "pooled": np.array(self.pooled)}
        for k, (w1, b1, w2, b2) in enumerate(self.layers):
            arrays.update({f"W1_{k}": w1, f"b1_{k}": b1, f"W2_{k}": w2, f"b2_{k}": b2})
        np.savez_compressed(path, **{k: (v.astype(np.float32) if v.dtype.kind == "f" else v) for k, v in arrays.items()})


_COUNT_HEADS: dict[tuple[str, str], CountHead | None] = {}


def load_count_head(path: str | Path, net: PatchNet | PawnEnsemble) -> CountHead | None:
    """The count head of `path` for this network, or None: no path, no file, or a head fitted to other
    weights (a retrained pawn net needs its head refitted: scripts/train_pawns.py count-head; a warning says
    so once). Loaded once per (file, network)."""
    import warnings

    import numpy as np

    if not path:
        return None
    fp = net_fingerprint(net)
    key = (str(path), fp)
    if key not in _COUNT_HEADS:
        head = None
        p = Path(path)
        if p.is_file():
            z = np.load(p)
            if str(z["fingerprint"]) != fp:
                warnings.warn(f"{p} was fitted to another pawn network than the one loaded: the count head is not "
                              f"used (refit it: scripts/train_pawns.py count-head)", stacklevel=2)
            else:
                f32 = np.float32
                head = CountHead(z["mu"].astype(f32), z["sd"].astype(f32),
                                 tuple((z[f"W1_{k}"].astype(f32), z[f"b1_{k}"].astype(f32), z[f"W2_{k}"].astype(f32),
                                        z[f"b2_{k}"].astype(f32)) for k in range(int(z["members"]))),
                                 str(z["fingerprint"]), str(z["info"]),
                                 bool(z["pooled"]) if "pooled" in z.files else False)
        _COUNT_HEADS[key] = head
    return _COUNT_HEADS[key]


def pawn_outputs(net: PatchNet | PawnEnsemble, x: Any, average: str = "probability",
                 count_head: CountHead | None = None) -> tuple[Any, Any, Any]:
    """As pawn_probabilities, and the count head's N x classes probabilities (None without a head), from the
    same forward pass of the first member."""
    import numpy as np

    if average not in AVERAGES:
        raise ValueError(f"unknown ensemble average {average!r}: one of {AVERAGES}")
    members = net.members if isinstance(net, PawnEnsemble) else (net,)
    p_count = None
    zs = []
    for k, m in enumerate(members):
        pooled = None
        if k == 0 and count_head is not None and count_head.pooled:
            h, pooled = m.hidden_pooled(x)
        else:
            h = m.hidden(x)
        z = h @ m.w4 + m.b4
        if k == 0 and count_head is not None:
            p_count = count_head.probabilities(h, z, pooled)
        zs.append(z.reshape(len(x), len(COLOURS), 2 + SMALL_CLASSES))
    if len(zs) == 1 or average == "logit":
        z = zs[0] if len(zs) == 1 else np.mean(zs, axis=0)
        return softmax(z[..., :2])[..., 1], softmax(z[..., 2:]), p_count
    p_big = np.mean([softmax(z[..., :2])[..., 1] for z in zs], axis=0)
    p_small = np.mean([softmax(z[..., 2:]) for z in zs], axis=0)
    return p_big, p_small, p_count


@dataclass(frozen=True)
class StonePawns:
    """What the classifier reads on one stone: (player, big) pawns and its least sure decision's margin; per pawn
    (aligned with `pawns`) the network's evidence for it (`pawn_evidence`; empty where not given)."""

    stone: str
    pawns: tuple[tuple[str, bool], ...]
    margin: float
    evidence: tuple[float, ...] = ()


def stone_confidence(config: PawnNetConfig, margin: float, first_row: bool = False) -> float:
    """The share of stones read right at this margin (config.stone_right; a first-row stone: first_row_right)."""
    table, others = ((config.first_row_right, config.first_row_others) if first_row
                     else (config.stone_right, config.stone_right_others))
    for bound, right in table:
        if margin < bound:
            return right
    return others


def decode_pawns(config: PawnNetConfig, p_big: Any, p_small: Any, cols: Sequence[int],
                 limits: tuple[int, int] = (1, 4)) -> tuple[Any, Any, Any]:
    """Per stone and colour: big pawns (0/1) and small pawns (0, 1, 2) read from the classifier's
    probabilities (a colour's small pawns present when 1 or 2+ is likelier than 0; two when 2+ holds
    `two_small_share` of that evidence), within what each player owns (`limits`: 1 big, 4 small; FORMATS §2) across the
    whole board: of a player's big pawns read on several stones only the surest stays; while a player
    has more than 4 small ones read, the stone whose count costs the least log-probability to lower
    gives one up — but a player with more small pawns read than it owns and no big one first has its big pawn
    read on the small-read stone where P(big) is highest (`surplus_small_as_big`: the big pawn seen small), and
    one with `lone_big_min_small` (4) small ones read and no big one has it on the stone of highest P(big)
    (one small fewer there if any). A small pawn of the colour whose big pawn is read on the stone needs
    P(0) below `beside_big_p0`.
    Also per stone the least sure decision's margin (0 where the players' pawn counts overruled the
    classifier: what is visible contradicts the rule)."""
    import numpy as np

    n = len(p_big)
    big = np.zeros((n, len(COLOURS)), np.int8)
    small = np.zeros((n, len(COLOURS)), np.int8)
    margin = np.ones(n, np.float32)
    steps = np.arange(SMALL_CLASSES, dtype=np.float32)
    for c in cols:
        pb = p_big[:, c]
        margin = np.minimum(margin, np.abs(pb - config.big_threshold) * 2)
        over = np.nonzero(pb >= config.big_threshold)[0]
        over = over[np.argsort(-pb[over], kind="stable")]
        big[over[:limits[0]], c] = 1
        margin[over[limits[0]:]] = 0.0
        # log-probabilities of 0, 1, 2+ small pawns, shifted by the prior per pawn
        lp = np.log(p_small[:, c] + 1e-9) + config.small_bias * steps
        k = lp.argmax(axis=1)
        # present (the likeliest count is 1 or 2+): how many by the share of 2+ in their evidence
        two = p_small[:, c, 2] > config.two_small_share * (p_small[:, c, 1] + p_small[:, c, 2])
        k = np.where(k > 0, np.where(two, 2, 1), 0)
        srt = np.sort(lp, axis=1)
        margin = np.minimum(margin, 1.0 - np.exp(srt[:, -2] - srt[:, -1]))
        # a small pawn beside its own colour's big pawn: the stricter bar
        beside = (big[:, c] > 0) & (k > 0) & (p_small[:, c, 0] >= config.beside_big_p0)
        k[beside] = 0
        margin[beside] = 0.0
        kept = np.zeros(n, bool)     # a stone whose small count the surplus rule already lowered keeps the rest
        if config.surplus_small_as_big and limits[0] > 0 and len(over) == 0 and int(k.sum()) > limits[1]:
            busy = np.nonzero(k > 0)[0]
            j = busy[int(np.argmax(pb[busy]))]
            if pb[j] >= config.surplus_small_big_floor:
                big[j, c] = 1
                k[j] -= 1
                kept[j] = True
                margin[j] = 0.0
        elif (config.lone_big_min_small > 0 and limits[0] > 0 and len(over) == 0 and n > 0
              and config.lone_big_min_small <= int(k.sum()) <= limits[1]):
            j = int(np.argmax(pb))
            if pb[j] >= config.lone_big_floor:
                big[j, c] = 1
                if k[j] > 0:
                    k[j] -= 1
                    kept[j] = True
                margin[j] = 0.0
        while int(k.sum()) > limits[1]:
            busy = np.nonzero((k > 0) & ~kept)[0]
            if len(busy) == 0:
                busy = np.nonzero(k > 0)[0]
            cost = lp[busy, k[busy]] - lp[busy, k[busy] - 1]
            j = busy[int(np.argmin(cost))]
            k[j] -= 1
            margin[j] = 0.0
        small[:, c] = k
    return big, small, margin


def mirrored(net: PatchNet | PawnEnsemble, x: Any) -> Any:
    """The stones' inputs with each patch mirrored across the lean (a pawn is round: as likely a view)."""
    rows, cols, ch = net.shape
    out = x.copy()
    n = rows * cols * ch
    out[:, :n] = x[:, :n].reshape(len(x), rows, cols, ch)[:, :, ::-1].reshape(len(x), n)
    return out


def second_look(config: PawnNetConfig, net: PatchNet | PawnEnsemble, x: Any, p_big: Any, p_small: Any,
                cols: Sequence[int]) -> tuple[Any, Any]:
    """Stones where the classifier expects `second_look_pawns` or more pawns of the colours in play
    are read again mirrored across the lean, and the two readings' probabilities averaged: pawns side
    by side hide each other differently in the two views the classifier learnt alike."""
    p_big, p_small, _ = second_look_counted(config, net, x, p_big, p_small, None, cols, None)
    return p_big, p_small


def second_look_counted(config: PawnNetConfig, net: PatchNet | PawnEnsemble, x: Any, p_big: Any, p_small: Any,
                        p_count: Any, cols: Sequence[int], count_head: CountHead | None) -> tuple[Any, Any, Any]:
    """second_look, with the count head's probabilities averaged over the two looks as well (p_count and
    count_head None: as second_look)."""
    import numpy as np

    c = list(cols)
    expected = (p_big[:, c] + p_small[:, c, 1] + 2 * p_small[:, c, 2]).sum(axis=1)
    busy = np.nonzero(expected >= config.second_look_pawns)[0]
    if len(busy) == 0:
        return p_big, p_small, p_count
    pb2, ps2, pc2 = pawn_outputs(net, mirrored(net, x[busy]), config.ensemble_average,
                                 count_head if p_count is not None else None)
    p_big, p_small = p_big.copy(), p_small.copy()
    p_big[busy] = (p_big[busy] + pb2) * 0.5
    p_small[busy] = (p_small[busy] + ps2) * 0.5
    if p_count is not None:
        p_count = p_count.copy()
        p_count[busy] = (p_count[busy] + pc2) * 0.5
    return p_big, p_small, p_count


def count_odds(p_count: Any, big: Any, small: Any, cols: Sequence[int]) -> tuple[Any, Any]:
    """(more, fewer) per stone, of the pawns read (capped at the count head's top class, "top or more"):
    P(total > read) (0 where read is already the top class) and P(total < read) (0 where none is read)."""
    import numpy as np

    c = list(cols)
    top = p_count.shape[1] - 1
    read = np.minimum(big[:, c].sum(axis=1) + small[:, c].sum(axis=1), top).astype(np.int64)
    rows = np.arange(len(p_count))
    # the tail sums of the count probabilities, with a zero column for "more than the top class"
    tail = np.concatenate([np.cumsum(p_count[:, ::-1], axis=1)[:, ::-1], np.zeros((len(p_count), 1))], axis=1)
    more = tail[rows, read + 1]
    fewer = np.where(read > 0, np.cumsum(p_count, axis=1)[rows, np.clip(read - 1, 0, top)], 0.0)
    return more, fewer


def small_more_odds(p_small: Any, i: int, k: int, have: int) -> float:
    """The evidence for one more small pawn of colour column k on stone i holding `have` of them: P(1 or 2+) where
    none is read, P(2+) where one is, 0 beyond."""
    return (p_small[i, k, 1] + p_small[i, k, 2]) if have == 0 else (p_small[i, k, 2] if have == 1 else 0.0)


def _path_codes(paths: Sequence[Any] | None, n: int) -> Any:
    """Each stone's path as an integer (-1: none, or no per-path limit), from `paths` (one entry per stone, None
    where the rule does not apply; `paths` None: no stone)."""
    import numpy as np

    if paths is None:
        return np.full(n, -1, np.int64)
    names = {p: k for k, p in enumerate(sorted({p for p in paths if p is not None}, key=str))}
    return np.array([-1 if p is None else names[p] for p in paths], np.int64)


def path_holds(big: Any, small: Any, k: int, codes: Any, i: int, skip: int = -1) -> bool:
    """Whether colour column k has a pawn read on stone i's path (stone `skip` not counted); False where stone i has
    no per-path limit (codes[i] < 0)."""
    import numpy as np

    if codes[i] < 0:
        return False
    on = (codes == codes[i]) & ((big[:, k] > 0) | (small[:, k] > 0))
    if skip >= 0:
        on[skip] = False
    return bool(np.any(on))


def one_pawn_per_path(config: PawnNetConfig, p_big: Any, p_small: Any, p_count: Any, big: Any, small: Any,
                      margin: Any, cols: Sequence[int], paths: Sequence[Any] | None) -> tuple[Any, Any, Any]:
    """RULES §1 (base board): a player has at most one pawn per path. `paths`: each stone's path (None where a
    player may have several pawns, or None for the whole board: nothing done). A colour read with two or more pawns
    on one path keeps one of them: its big pawn where it is read big (small ones read beside it are its head read
    twice), else of the ways to keep one (each big pawn, or a small pawn on a stone without its big one), the one with
    the highest sum, over the path's stones where the colour is read, of its log-probabilities (P(big) where the big
    pawn is kept, else P(not big) and P(0 or 1 small)) plus `one_per_path_count_weight` times the count head's
    log-probability of the stone's new total. Stones changed state margin 0. Off (`one_per_path` False): copies
    unchanged."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    if not config.one_per_path or paths is None or len(small) == 0:
        return big, small, margin
    codes = _path_codes(paths, len(small))
    c = list(cols)
    read = (big[:, c].sum(axis=1) + small[:, c].sum(axis=1)).astype(np.int64)
    w = config.one_per_path_count_weight if p_count is not None else 0.0
    top = p_count.shape[1] - 1 if p_count is not None else 0
    eps = 1e-9
    limited = codes >= 0
    if not limited.any():
        return big, small, margin
    # the colours' pawns per path; only paths holding two or more of one colour are looked at
    per_path = np.zeros((int(codes.max()) + 1, len(COLOURS)), np.int64)
    np.add.at(per_path, codes[limited], (big[limited] + small[limited]).astype(np.int64))
    for path, k in zip(*np.nonzero(per_path > 1)):
        k = int(k)
        if k not in c:
            continue
        idx = np.nonzero((codes == path) & ((big[:, k] > 0) | (small[:, k] > 0)))[0]
        # a stone read with the colour's big pawn keeps only that: the small ones beside it are its head read
        # twice (the phantom of drop_phantom_beside_big), a pair there the one big pawn
        options = [(int(i), True) for i in idx if big[i, k]] + [(int(i), False) for i in idx
                                                                 if small[i, k] and not big[i, k]]
        best, best_score = None, -np.inf
        for i, is_big in options:
            score = 0.0
            for j in idx:
                nb = int(j == i and is_big)
                ns = int(j == i and not is_big)
                score += float(np.log((p_big[j, k] if nb else 1.0 - p_big[j, k]) + eps))
                if not nb:
                    score += float(np.log(p_small[j, k, ns] + eps))
                if w > 0:
                    total = int(read[j]) - int(big[j, k]) - int(small[j, k]) + nb + ns
                    score += w * float(np.log(p_count[j, min(total, top)] + eps))
            if score > best_score:
                best, best_score = (i, is_big), score
        i, is_big = best
        for j in idx:
            nb, ns = int(j == i and is_big), int(j == i and not is_big)
            if (big[j, k], small[j, k]) != (nb, ns):
                read[j] += nb + ns - int(big[j, k]) - int(small[j, k])
                big[j, k], small[j, k] = nb, ns
                margin[j] = 0.0
    return big, small, margin


def relative_big_pawn(config: PawnNetConfig, p_big: Any, big: Any, small: Any, margin: Any,
                      cols: Sequence[int], limits: tuple[int, int] = (1, 4)) -> tuple[Any, Any, Any]:
    """After decode_pawns: per colour with no big pawn read, the stone of highest P(big) holding a small pawn of the
    colour reads that small pawn as the big one when its P(big) is at least `rel_big_floor` and at least
    `rel_big_ratio` times the highest P(big) of the colour's other stones (the player's big pawn seen small: the
    network's size evidence judged against the same player's other stones in the same frame, not against the
    absolute `big_threshold`). The stone states margin 0 (unsure). Returns copies."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    if config.rel_big_floor <= 0 or config.rel_big_ratio <= 0 or limits[0] <= 0 or len(small) < 2:
        return big, small, margin
    for k in cols:
        if big[:, k].any():
            continue
        pb = p_big[:, k]
        j = int(np.argmax(pb))
        if small[j, k] == 0 or pb[j] < config.rel_big_floor:
            continue
        if pb[j] < config.rel_big_ratio * float(np.max(np.delete(pb, j))):
            continue
        small[j, k] -= 1
        big[j, k] = 1
        margin[j] = 0.0
    return big, small, margin


def lone_big_pawn(config: PawnNetConfig, p_big: Any, p_count: Any, big: Any, small: Any, margin: Any,
                  cols: Sequence[int], limits: tuple[int, int] = (1, 4)) -> tuple[Any, Any, Any]:
    """After the counted and moved pawns: per colour with no big pawn read, of its stones read with exactly one pawn of the
    colours in play — a small one of this colour — where the count head gives P(total = 1) at least
    `lone_pawn_count_share` (p_count None: not asked), the one of highest P(big) reads that pawn as the colour's big
    pawn when its P(big) is at least `lone_pawn_big_floor`. The stone states margin 0 (unsure). Returns copies."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    if config.lone_pawn_big_floor <= 0 or limits[0] <= 0 or len(small) == 0:
        return big, small, margin
    c = list(cols)
    lacking = [k for k in c if not big[:, k].any()]
    if not lacking:
        return big, small, margin
    total = big[:, c].sum(axis=1) + small[:, c].sum(axis=1)
    one = total == 1
    if p_count is not None and p_count.shape[1] > 1:
        one &= p_count[:, 1] >= config.lone_pawn_count_share
    for k in lacking:
        cand = np.nonzero(one & (small[:, k] == 1) & (p_big[:, k] >= config.lone_pawn_big_floor))[0]
        if len(cand) == 0:
            continue
        j = int(cand[int(np.argmax(p_big[cand, k]))])
        small[j, k] = 0
        big[j, k] = 1
        margin[j] = 0.0
    return big, small, margin


def add_counted_pawns(config: PawnNetConfig, p_big: Any, p_small: Any, p_count: Any, big: Any, small: Any,
                      margin: Any, cols: Sequence[int], limits: tuple[int, int] = (1, 4),
                      paths: Sequence[Any] | None = None) -> tuple[Any, Any, Any]:
    """After decode_pawns: a stone read with fewer pawns than the count head says (P(total > read) at least
    `count_more`) gets one more pawn — one more small pawn of the colour with the most evidence for it
    (P(1 or 2+) where none is read, P(2+) where one is), or the big pawn of a player whose big pawn is read
    nowhere (P(big)), whichever is likelier, when that is at least `count_pick_floor` and the player owns
    another small pawn (`limits`). With `one_per_path` and `paths` (one_pawn_per_path), not for a colour with a pawn
    read on the stone's path already. The stone states margin 0 (unsure). Stones in order; returns copies."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    c = list(cols)
    codes = _path_codes(paths if config.one_per_path else None, len(small))
    more, _ = count_odds(p_count, big, small, c)
    for i in np.nonzero(more >= config.count_more)[0]:
        best, score = None, config.count_pick_floor
        for k in c:
            if path_holds(big, small, k, codes, i):
                continue
            s = small_more_odds(p_small, i, k, int(small[i, k]))
            if int(small[:, k].sum()) < limits[1] and s > score:
                best, score = (k, False), s
            if limits[0] > 0 and int(big[:, k].sum()) == 0 and p_big[i, k] > score:
                best, score = (k, True), p_big[i, k]
        if best is None:
            continue
        k, is_big = best
        if is_big:
            big[i, k] = 1
        else:
            small[i, k] += 1
        margin[i] = 0.0
    return big, small, margin


def move_counted_pawns(config: PawnNetConfig, p_big: Any, p_small: Any, p_count: Any, big: Any, small: Any,
                       margin: Any, cols: Sequence[int], limits: tuple[int, int] = (1, 4),
                       paths: Sequence[Any] | None = None) -> tuple[Any, Any, Any]:
    """After add_counted_pawns: a stone the count head says holds more pawns than read (P(total > read) at least
    `count_more`) whose likeliest missing small pawn (P(1 or 2+) where none of the colour is read, P(2+) where one
    is; at least `count_pick_floor`) belongs to a player with all its `limits[1]` small pawns read gets one of them,
    taken from the stone of that player where the head gives P(total < read) the most, when that is at least
    `count_move_fewer` (0 = off); with `count_move_big`, a player's big pawn read elsewhere likewise (evidence
    P(big)). Moves are made best first (the product of the two), one per stone; both stones state margin 0
    (unsure). With `one_per_path` and `paths`, not onto a path where the colour has another pawn than the moved one.
    Returns copies."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    if config.count_move_fewer <= 0 or p_count is None or len(small) == 0:
        return big, small, margin
    c = list(cols)
    codes = _path_codes(paths if config.one_per_path else None, len(small))
    more, fewer = count_odds(p_count, big, small, c)
    moves = []
    for i in np.nonzero(more >= config.count_more)[0]:
        for k in c:
            if int(small[:, k].sum()) < limits[1]:
                continue
            s = small_more_odds(p_small, i, k, int(small[i, k]))
            if s < config.count_pick_floor:
                continue
            js = [j for j in np.nonzero(small[:, k])[0] if j != i and fewer[j] >= config.count_move_fewer
                  and not path_holds(big, small, k, codes, i, j)]
            if js:
                j = max(js, key=lambda j: fewer[j])
                moves.append((float(s * fewer[j]), int(i), int(j), k, small))
        if config.count_move_big:
            for k in c:
                if big[i, k] or int(big[:, k].sum()) < limits[0] or p_big[i, k] < config.count_pick_floor:
                    continue
                js = [j for j in np.nonzero(big[:, k])[0] if j != i and fewer[j] >= config.count_move_fewer
                      and not path_holds(big, small, k, codes, i, j)]
                if js:
                    j = max(js, key=lambda j: fewer[j])
                    moves.append((float(p_big[i, k] * fewer[j]), int(i), int(j), k, big))
    done: set[int] = set()
    for _, i, j, k, arr in sorted(moves, key=lambda m: -m[0]):
        if i in done or j in done or arr[j, k] == 0 or path_holds(big, small, k, codes, i, j):
            continue
        arr[j, k] -= 1
        arr[i, k] += 1
        margin[i] = margin[j] = 0.0
        done.update((i, j))
    return big, small, margin


def drop_phantom_beside_big(config: PawnNetConfig, p_count: Any, big: Any, small: Any, margin: Any,
                            cols: Sequence[int], first_row: Sequence[bool] | None = None) -> tuple[Any, Any, Any]:
    """After add_counted_pawns: on a stone (not a first-row one, unless `beside_big_first_row` > 0, and then at
    P(total < read) at least that as well) where a colour is read big and small and the count
    head gives P(total < read) at least `beside_big_count_fewer`, one small pawn of that colour is dropped (the net
    half-reads a big pawn's head as a small one beside it). The stone states margin 0. Returns copies."""
    import numpy as np

    big, small, margin = big.copy(), small.copy(), margin.copy()
    if config.beside_big_count_fewer <= 0 or p_count is None:
        return big, small, margin
    c = list(cols)
    read = big[:, c].sum(axis=1) + small[:, c].sum(axis=1)
    _, fewer = count_odds(p_count, big, small, c)  # only where read >= 2, so its 0 for none read never counts
    both = (big[:, c] > 0) & (small[:, c] > 0)
    hit = (read >= 2) & (fewer >= config.beside_big_count_fewer) & both.any(axis=1)
    if first_row is not None:
        fr = np.asarray(first_row, bool)
        bar = config.beside_big_first_row
        hit &= ~fr | ((fewer >= bar) if bar > 0 else False)
    for i in np.nonzero(hit)[0]:
        small[i, c[int(np.argmax(both[i]))]] -= 1
        margin[i] = 0.0
    return big, small, margin


def stone_pawn_arrays(config: PawnNetConfig, net: PatchNet | PawnEnsemble, x: Any, cols: Sequence[int],
                      limits: tuple[int, int] = (1, 4), first_row: Sequence[bool] | None = None,
                      paths: Sequence[Any] | None = None) -> tuple[Any, Any, Any]:
    """(big, small, margin) per stone and colour from the stones' features `x`: the network and count head, the
    second look, the decoding, one pawn per path (`paths`: each stone's path where the board allows a player one
    pawn on it, else None), the relative big pawn, the counted pawn, the moved pawn and the phantom beside a big
    pawn (read_stone_pawns' steps)."""
    p_big, p_small, p_count = stone_pawn_outputs(config, net, x, cols)
    return decode_stone_pawns(config, p_big, p_small, p_count, cols, limits, first_row, paths)


def stone_pawn_outputs(config: PawnNetConfig, net: PatchNet | PawnEnsemble, x: Any, cols: Sequence[int]
                       ) -> tuple[Any, Any, Any]:
    """(p_big, p_small, p_count) per stone from the stones' features `x`: the network and count head (p_count None
    without one), averaged with the mirrored second look where it is taken (second_look_counted)."""
    head = load_count_head(config.count_weights, net)
    p_big, p_small, p_count = pawn_outputs(net, x, config.ensemble_average, head)
    return second_look_counted(config, net, x, p_big, p_small, p_count, cols, head)


def pawn_evidence(p_big: Any, p_small: Any, i: int, c: int, big: bool, nth: int = 1) -> float:
    """The network's evidence for a pawn of colour column c read on stone i: P(big) for its big pawn, P(at least
    `nth` small) for its `nth` small one (after the second look; a pawn a decoding rule put there may have little)."""
    if big:
        return float(p_big[i, c])
    return float(p_small[i, c, 1] + p_small[i, c, 2]) if nth <= 1 else float(p_small[i, c, 2])


def decode_stone_pawns(config: PawnNetConfig, p_big: Any, p_small: Any, p_count: Any, cols: Sequence[int],
                       limits: tuple[int, int] = (1, 4), first_row: Sequence[bool] | None = None,
                       paths: Sequence[Any] | None = None) -> tuple[Any, Any, Any]:
    """(big, small, margin) per stone and colour from the network's and count head's probabilities (`p_count` None:
    no head): the decoding, one pawn per path, the relative big pawn, the counted pawn(s), the moved pawn, the lone
    big pawn and the phantom beside a big pawn, in the reader's order."""
    big, small, margin = decode_pawns(config, p_big, p_small, cols, limits)
    big, small, margin = one_pawn_per_path(config, p_big, p_small, p_count, big, small, margin, cols, paths)
    big, small, margin = relative_big_pawn(config, p_big, big, small, margin, cols, limits)
    if p_count is None:
        big, small, margin = lone_big_pawn(config, p_big, p_count, big, small, margin, cols, limits)
    if p_count is not None:
        for _ in range(config.count_adds):
            big, small, margin = add_counted_pawns(config, p_big, p_small, p_count, big, small, margin, cols, limits,
                                                   paths)
        big, small, margin = move_counted_pawns(config, p_big, p_small, p_count, big, small, margin, cols, limits,
                                                paths)
        big, small, margin = lone_big_pawn(config, p_big, p_count, big, small, margin, cols, limits)
        big, small, margin = drop_phantom_beside_big(config, p_count, big, small, margin, cols, first_row)
    return big, small, margin


def read_stone_pawns(config: PawnNetConfig, net: PatchNet | PawnEnsemble, maps: PatchMaps, log_norm: Any,
                     players: Sequence[str], limits: tuple[int, int] = (1, 4), image: Any = None,
                     gain: Any = None, first_row: Sequence[bool] | None = None,
                     paths: Sequence[Any] | None = None) -> list[StonePawns]:
    """Every path stone's pawns of the players in play (see the module docstring and decode_pawns);
    `image` and `gain` (the appearance stage's maps): the frame, for maps built from it; `first_row`: per stone
    of `maps.stones`, whether it is a first-row stone (drop_phantom_beside_big); `paths`: per stone, its path where
    the board allows a player only one pawn on a path (the base board), else None (one_pawn_per_path)."""
    x = stone_features(maps, log_norm, players, image, gain)
    cols = [COLOURS.index(p) for p in players if p in COLOURS]
    p_big, p_small, p_count = stone_pawn_outputs(config, net, x, cols)
    big, small, margin = decode_stone_pawns(config, p_big, p_small, p_count, cols, limits, first_row, paths)
    return stone_pawns(maps.stones, cols, big, small, margin, p_big, p_small)


def stone_pawns(stones: Sequence[str], cols: Sequence[int], big: Any, small: Any, margin: Any, p_big: Any,
                p_small: Any) -> list[StonePawns]:
    """The decoded arrays as StonePawns per stone (of `stones`, in order), each pawn with its evidence."""
    out = []
    for i, sid in enumerate(stones):
        pawns: list[tuple[str, bool]] = []
        evidence: list[float] = []
        for c in cols:
            if big[i, c]:
                pawns.append((COLOURS[c], True))
                evidence.append(pawn_evidence(p_big, p_small, i, c, True))
            for nth in range(1, int(small[i, c]) + 1):
                pawns.append((COLOURS[c], False))
                evidence.append(pawn_evidence(p_big, p_small, i, c, False, nth))
        out.append(StonePawns(sid, tuple(pawns), float(margin[i]), tuple(evidence)))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the learned pawn stage alone on one frame."""
    from .appearance import stage_view
    from .stagecli import parse_seats, seats_from_truth, stage_parser

    args = stage_parser("vision.pawnnet", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm, _sigma = got
    net = load_pawn_net(DEFAULT_CONFIG.weights)
    if net is None:
        print(f"no classifier weights at {DEFAULT_CONFIG.weights} (scripts/train_pawns.py)", file=sys.stderr)
        return 2
    seats = parse_seats(args.seats) or seats_from_truth(args.image)
    players = list(seats.values()) if seats else list(COLOURS)
    from .appearance import DEFAULT_CONFIG as APPEARANCE
    from .appearance import normalise
    from .geometry import DEFAULT_CONFIG as GEOMETRY

    _norm, gain = normalise(APPEARANCE, view.warp(image), art, view.ppm)
    maps = build_patch_maps(DEFAULT_CONFIG, board, view, log_art, pose, GEOMETRY.board_thickness_mm)
    found = read_stone_pawns(DEFAULT_CONFIG, net, maps, log_norm, players, image=image, gain=gain)
    for sp in found:
        if sp.pawns:
            names = ", ".join(p + (" big" if b else "") for p, b in sp.pawns)
            print(f"{sp.stone:6s} {names}  margin {sp.margin:.2f}")
    if args.overlay:
        import cv2

        from .pawns import PawnDetection, draw_pawns

        dets = [PawnDetection(sp.stone, p, b, board.stones[sp.stone].x + 4 * k, board.stones[sp.stone].y, 1.0, 0.0)
                for sp in found for k, (p, b) in enumerate(sp.pawns)]
        cv2.imwrite(args.overlay, draw_pawns(image, pose, comps, dets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
