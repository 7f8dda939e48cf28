"""Stage: can this frame be read at all? Decided on a small (320×180) image.

- `too-dark`: the board's brightness relative to its art (its exposure gain) is below `dark_gain`;
  in the card game (no art) or without a registration, the brightest pixels of the frame are below
  `dark_level`; or, with a registration, the play area's strongest local contrast (edges of the print and the
  pieces, which a glare's smooth veil does not add) is below `dark_contrast` grey levels. Such a frame is still
  searched for an arm (`dark_arms`): with one it is `occluded` (or `motion`) and names the arm's seat, as a lit
  frame would.
- `occluded`: an arm reaches in. The play area is the middle of the table (the board and what lies
  between the markers: the card game's piles) and every seat area of the calibration (FORMATS §4; a
  board game's piles may lie in a free seat's area; `play_hull` takes their hull instead, which
  measured no better). What is not table is
  found against the table's own colour, measured on a ring around the play area in this very frame
  (no fixed skin or sleeve colour; thresholds from the ring's own spread; brightness also against a
  quadratic fall-off fitted to the ring; a glare's grey veil stays table, unless it ends sharply at its outline as a
  long thing does — a white sleeve on a grey table, `glare_fade`; when the ring is not the
  table — a table narrower than the seat areas, the ring on the floor — the table beside the board tells,
  `ring_check`), and over the board against
  the colour-normalised board art. The floor beyond the table is cut off by the hull of the table's
  largest table-coloured region (coloured so by itself: a lamp's hot spot on the floor, which the glare
  test calls table, does not widen it; and, when that region fills its hull poorly — a table top is convex —,
  against a brightness fall-off fitted to the ring's majority, which the floor under a ring reaching past a
  small table's edge does not bend: `extent_robust`). A connected region is an arm when it lies over the play area and
  comes in from the picture's or the table's edge or from far out of the play area, or lies beside
  the play area coming in from an edge and reaching for it; and when it is long and arm-wide but not
  a compact thing that fills its rectangle (a mug, a phone or the card box beside the pieces).
  With the learned region classifier's weights (vision/models/usable.npz, `RegionNet`, trained by
  scripts/train_usable.py on simulator frames whose hands' pixels are known) these hand-set rules give
  way to it: every region of at least `region_min_mm2` is measured (`region_features`: its size in mm,
  its share over the play area, the board and the ring around it, how far it reaches out, its
  length, width, fill and solidity, how much of it lies on the picture's border or the table's edge,
  whether its long axis points at the middle, how strongly it differs from the table relative to the
  frame's own thresholds; no colour, so a lamp or a table top the simulator never drew changes
  nothing) and a region the classifier scores at or above its threshold is an arm. The threshold was
  chosen so that about 3 % of the training frames without a hand would be rejected (1 % cost too many
  hands on held-out frames). Such a region rejects the frame only with `arm_over_min_mm2` of it over the
  play area itself (the seat areas and the middle within the markers' inner edges, without the margin:
  `over_core`): a hand, a card box or a mug beside the play area hides nothing there (the issue's rule).
  In the card game, with the seats in play known (`players`), a free seat's area is no play area (its
  piles lie in the middle; `free_seats_play`).
  The hand's seat: the arm's root is where it comes into the picture (its part on the picture's border
  or the table's edge), and the seat is the one whose direction from the middle of the table is nearest
  the root's (the arm crosses that seat's table edge; `seat_from_root`, else the seat areas' votes);
  `hands` names it, for any seat of the calibration.
- `motion`: with the previous small frame of a stream (`previous`), an arm whose region changed by a
  palm's area since; with the table's sharpness on settled frames of this registration
  (`reference`, kept by the reader), a picture much blurrier than it (the camera or table shaken).
  One frame alone does not tell a moving arm from a still one (tried: edge sharpness at 320×180).
- `no-board`: decided by the reader when the markers do not register.

Everything that depends only on the registration is precomputed once (`build_usable_model`): where
each small-image pixel lies on the table and its area in mm², the play area and the distance out of
it, the ring samples and the brightness fit's basis, the seat votes, the board's art in the small
image and its quantiles.

Run alone: `python -m vision.usable FRAME.jpg [--previous FRAME] --overlay out.jpg` (any size; resized
to 320×180).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class UsableConfig:
    """Every threshold of the usable-frame decision."""

    size: tuple[int, int] = (320, 180)
    still_shrink: float = 8.0          # a picture this many times wider is first sampled down to 4x (stills)
    dark_gain: float = 0.13            # board brightness / art brightness below this: too dark
    dark_level: float = 45.0           # without board art: 99th percentile of grey below this
    # ... or, with a registration, the play area's strongest local contrast (the `dark_contrast_pct` percentile of
    # |grey - its `dark_contrast_box` x `dark_contrast_box` mean|, grey levels) below `dark_contrast`: a card's print,
    # a pawn's outline and the board's lines are then all too faint to read, whatever the frame's mean brightness.
    # A lamp's glare in a dim room lifts the board's median (the gain above) and the brightest pixels (`dark_level`)
    # but adds no edge: 9 of 18 too-dark frames of session 26's 500 fresh ones were missed so. (Measured at
    # 320x180: too-dark frames 4.5-9.7 levels, readable ones down to dim warm light with glare 14.5 and up.) None: off
    dark_contrast: float | None = 12.0
    dark_contrast_pct: float = 99.0
    dark_contrast_box: int = 7
    offset: float = 12.0               # log(v + offset): keeps dark pixels' noise from dominating
    # the board against its art (colour-normalised by quantiles, which a glare's veil moves little)
    chroma_min: float = 0.35
    dark_ratio: float = 0.38
    bright_ratio: float = 1.6
    quantiles: tuple[float, float] = (20.0, 80.0)
    # the play area and the table around it
    play_hull: bool = False            # the play area as the hull of the middle and the seats (else their union)
    play_margin_mm: float = 20.0       # the play area reaches this far beyond the seats and the markers
    # a free seat's area is play area in a board game (its piles may lie there: FORMATS §4 does not place them);
    # in the card game the piles lie in the middle, and with the seats in play known a free seat's is not
    free_seats_play: bool = False
    ring_mm: tuple[float, float] = (25.0, 110.0)   # the table's colour is measured this far outside it
    # a pixel this far from the table's colour (log chroma, log brightness) is not table: `table_spread`
    # times the ring's own 75th percentile (a wood grain or a lamp's gradient spreads it), within limits
    table_spread: float = 2.5
    table_chroma: tuple[float, float] = (0.07, 0.2)
    table_lum: tuple[float, float] = (0.3, 0.6)
    surface_outlier: float = 0.3       # ring pixels this far off the first brightness fit are left out of the second
    # the ring checked against the table beside the board (the board lies on the table; the ring may not: seat
    # areas of free seats or a close camera put it on the floor): pixels `near_mm` out from the board (the
    # card game: from the markers' middle), away from the markers, are the table's but for cards; when less
    # than `ring_agree_min` of them lie within `agree_chroma`/`agree_lum` of the ring's colour, the ring is
    # not the table, and the table's colour is taken from those near pixels (their largest part: within the
    # same limits of their median) and the ring pixels that agree with it
    ring_check: bool = True
    # a frame too dark to read is still searched for an arm: found, the frame is `occluded` (or `motion`)
    # with the arm's seat (the tracker attributes a reach in a dim room too); else `too-dark`
    dark_arms: bool = True
    near_mm: tuple[float, float] = (8.0, 60.0)
    ring_agree_min: float = 0.2
    agree_chroma: float = 0.15
    agree_lum: float = 0.5
    # a glare (or a lamp's veil) adds the same light to every channel: not an arm
    glare_tint: float = 0.35           # a brighter pixel whose extra light is this close to grey
    glare_tol: float = 14.0            # (+ this many grey levels) is the table or board under a glare
    # ... but does not widen the table's extent (the hull below): a lamp's hot spot on the floor beyond the table's
    # edge is "something under a glare" too, and its hull with the table spanned the dark floor between them, which
    # then read as an arm coming in from the table's edge (a whole fresh game lost, session 20)
    glare_not_extent: bool = True
    # ... and it fades out into the table around it, where a pale thing ends at its outline: a veiled part whose veil
    # 2 px outside it is below `glare_fade` of its own, at least `glare_thing_len_mm` long (on the picture's border,
    # where an arm comes in, `glare_thing_border_len_mm`: a sleeve's stub; longer than a card) and filling at least
    # `glare_thing_fill` of its rectangle (the pale borders of cards side by side make a lattice) is a thing, a sleeve
    # (on a grey table a white sleeve is brighter by the same amount in every channel, as a glare is: session 24's
    # card-3p-83258 lost 6 turns to sleeves read as glare). None: every veiled part is glare (as before)
    glare_fade: float | None = 0.1
    glare_thing_len_mm: float = 200.0
    glare_thing_border_len_mm: float = 100.0
    glare_thing_fill: float = 0.4
    glare_thing_max_mm2: float = 250000.0   # ... and no larger than an arm: the bright floor beyond the table is no sleeve
    # ... nor the floor the ring's own samples make table-coloured: where the ring reaches past a small table's edge
    # its floor samples (darker, the same hue) bend the brightness fall-off dark there, the floor joined to the table
    # reads as table, and the extent's hull spanned the floor beside the table, which then read as an arm reaching
    # the play area (a whole game lost, session 22 nwnz 82930). A table top is convex: when its largest region fills
    # less than `extent_min_fill` of its hull, the extent is found again against a fall-off fitted to the ring's
    # majority only, and taken when that region fills its hull better. That fit starts from the ring samples within
    # `extent_mad` robust deviations (1.4826 x the median absolute deviation, at least `extent_dev_min`) of their
    # median and is refitted `extent_refits` times on those within as many deviations of the fit: a table's edge
    # splits the ring into a majority and a far-off minority. (Not used for every frame: a lamp's pool at the
    # table's edge, which only the ordinary fit follows, would be cut off; the arm test keeps the ordinary fit.)
    extent_robust: bool = True
    extent_mad: float = 3.0
    extent_dev_min: float = 0.05
    extent_refits: int = 1
    extent_min_fill: float = 0.85
    # ... and the extent is the hull of every table-coloured part that holds at least `extent_ring_share` of the ring's
    # table-coloured samples, not of the largest part alone: an arm reaching from the picture's edge to the board, with
    # the board and the pieces beyond it, cuts the table in two, and the hull of the larger part left the arm and the
    # other part outside the table (session 36: an arm across the board and a hand over it missed whole — F84930
    # 100, 341). The ring lies 25-110 mm around the play area, on the table (`ring_check` where it does not), so a
    # part holding a tenth of it is the table beside the play area; the floor beyond the table holds none of it.
    # None: the largest part alone (as before)
    extent_ring_share: float | None = 0.1
    # an arm
    arm_in_min_mm2: float = 1200.0     # over the play area at least this much
    arm_reach_mm: float = 160.0        # and reaching this far out of it (a mug is ~ 80 mm, a phone 150 mm)
    arm_out_min_mm2: float = 2000.0    # with at least this much outside it
    # an arm is long and arm-wide: a phone (150 mm), a score pad (150 mm), a mug or the card box is shorter
    # (even cut by the picture's edge), a pen thinner
    arm_len_mm: float = 230.0
    arm_width_mm: float = 45.0
    arm_area_mm2: float = 6000.0
    # ... and below `compact_len_mm` long it is either `compact_aspect` times as long as wide or fills less
    # than `compact_fill` of its rectangle: a mug, a phone or a card box seen from above fill theirs
    compact_len_mm: float = 300.0
    compact_aspect: float = 2.0
    compact_fill: float = 0.7
    side_arms: bool = True             # an arm beside the play area (not over it) makes the frame unusable too
    side_arm_near_mm: float = 50.0     # ... when it reaches to within this of it
    vote_mm: float = 300.0
    # the seat: the direction from the middle to where the arm comes in (else: votes of the seat areas)
    seat_from_root: bool = True
    root_share: float = 0.1            # without a part on an edge, the root is the arm's share farthest out
    second_arm_share: float = 0.5      # a second arm names its seat only with this share of the first's area over the play area             # the seat votes of the arm's part up to this far outside the play area
    # a moving arm, with the previous small frame: this much of the arm region changed by more than `change_lum`
    change_lum: float = 0.25
    change_area_mm2: float = 2500.0
    # the whole picture blurred (the camera or the table shaken): the play area's sharpness (second
    # derivative over first: exposure cancels out) below this share of the registration's reference
    blur_ratio: float = 0.65
    reference_weight: float = 0.1      # how much a settled frame moves the reference
    sample_step: int = 3               # statistics on every n-th pixel (speed)
    region_min_mm2: float = 1500.0     # regions smaller than this are not judged by the region classifier
    # a region the classifier scores an arm rejects the frame only with this much of it over the play area (two
    # fingers, ~20 x 25 mm): a hand, a card box or a mug beside it hides nothing there (issue 15's rule); a
    # thing's shadow may just touch the play area's margin
    arm_over_min_mm2: float = 500.0
    # ... measured over the play area itself, without `play_margin_mm` (the margin keeps the table's ring off the
    # pieces; it is no play area): a hand or a card box just beside a seat area or a marker reaches into the
    # margin's band by 1 000-2 400 mm² while hiding nothing (session 29: 9 of the 26 good frames with a hand
    # beside the play area of 500 dev frames were rejected, 5 of them so). A sleeve stopping in the band keeps the
    # rules below (its pale hand beyond). False: over the play area with its margin (as before)
    over_core: bool = True
    # ... or, longer than `sleeve_len_mm` (the card box with its shadow, seen at the table's edge beside a seat,
    # measured 273 mm: tests/vision/test_usable_beside.py), with its tip within
    # `hand_gap_mm` of the play area and its long axis pointing at the middle of the table (`hand_toward`, the
    # cosine): the hand beyond a sleeve may be as pale as the table (skin on light wood) and then only the
    # sleeve shows, stopping short of the play area the hand is over (session 24: nwnz 83006's arms over the
    # south seat read usable)
    hand_beyond_sleeve: bool = True
    hand_gap_mm: float = 40.0
    hand_toward: float = 0.85
    sleeve_len_mm: float = 320.0
    # ... or the hand is found beyond the sleeve's tip at a lower contrast: skin as pale as light wood sits under the
    # table's colour thresholds (at their clamps where the grain spreads the ring) but still off the table by about
    # half of them (session 26: nwnz 83006 frames 12, 67). A sleeve the classifier scores at least `hand_find_p`
    # (under its threshold), as long as `sleeve_len_mm` and with its tip within `hand_gap_mm` of the play area is
    # grown from its tip into the pixels off the table by `hand_weak` of the thresholds, within `hand_reach_mm` of
    # the tip (a hand's length) and off the board and every other region (hysteresis, as an edge detector
    # follows a weak edge from a strong one); when that grown hand covers `hand_over_min_mm2` of the play area the
    # sleeve is an arm. Weak pixels alone never start a region: the grain and a lamp's fall-off stay table.
    hand_hysteresis: bool = True
    hand_find_p: float = 0.4
    # (0.35, was 0.5 — session 36: a hand moving during the exposure is a smear, each pixel the table changed by the
    # smear's share of the hand's difference; beyond a sure sleeve, F84930/124's moving hand lies at a median 0.46 of
    # the thresholds, and 85 % of the pixels grown at 0.35 lie on it. The grown part must still touch the sleeve, lie
    # within `hand_reach_mm` of its tip, cover `hand_over_min_mm2` and stay under `hand_max_mm2`)
    hand_weak: float = 0.35
    hand_reach_mm: float = 200.0
    hand_over_min_mm2: float = 1500.0
    hand_max_mm2: float = 50000.0       # a hand with its wrist is ~20 000 mm²; grown past this it is the table
    # ... and from a region the classifier is sure is an arm (at or above its threshold) that stops short of the play
    # area: a dark sleeve over light wood is found and scored an arm, the pale forearm and hand beyond it over a seat
    # area are not (session 28: 31 of 153 arm stills read usable in 30 dev whole games, e.g. base-3p-83251 frames 15,
    # 50). The classifier's certainty stands in for the sleeve's length and direction (a sleeve cut by the table's
    # edge is shorter than `sleeve_len_mm`): its tip need only lie within `hand_sure_gap_mm` of the play area, its
    # long axis point at the middle (`hand_toward`: the hand lies beyond the tip, along the arm; a hand resting at
    # the table's corner lies across it) and its area be an arm's (`arm_area_mm2`: a cup or a fist-sized blob on
    # the picture's border is no sleeve); the grown hand must still cover `hand_over_min_mm2` of the play area.
    # (200, was 120 — session 36: a hand is ~190 mm from the wrist to the fingertips, so a sleeve stopping up to a hand
    # short of the play area may hold one over it: F84930/124, 149 mm short, its moving hand 3 900 mm² over the play
    # area. The grown hand decides, as it did within 120 mm)
    hand_sure_gap_mm: float | None = 200.0
    learned_regions: bool = True       # judge regions with the learned classifier when its weights exist
    region_weights: str | None = None  # its weights (None: vision/models/usable.npz)


DEFAULT_CONFIG = UsableConfig()


@dataclass(frozen=True, eq=False)
class UsableModel:
    """The small image's view of the table (once per registration)."""

    size: tuple[int, int]
    mm_per_px: float
    area: Any = field(repr=False)            # mm² of table each small pixel covers
    play: Any = field(repr=False)            # bool: the play area
    ring_idx: Any = field(repr=False)        # flat indices of a sample of the table ring
    out_dist: Any = field(repr=False)        # mm outside the play area (0 inside)
    seats: tuple[str, ...] = ()
    seat_label: Any = field(repr=False, default=None)   # int: nearest seat in play, -1 in the middle
    vote_weight: Any = field(repr=False, default=None)  # weight of a pixel's seat vote (the arm's root counts most)
    board_mask: Any = field(repr=False, default=None)   # bool: the board (None in the card game)
    board_idx: Any = field(repr=False, default=None)    # flat indices of a sample of the board
    board_box: tuple[int, int, int, int] = (0, 0, 0, 0)   # y0, y1, x0, x1 of the board in the small image
    log_art: Any = field(repr=False, default=None)      # (within board_box)
    art: Any = field(repr=False, default=None)          # the art in the small image (BGR float32, within board_box)
    art_sample: Any = field(repr=False, default=None)   # the art at board_idx (BGR float32)
    art_lum: float = 1.0
    area_in: Any = field(repr=False, default=None)      # flat: mm² in the play area (0 outside)
    area_out: Any = field(repr=False, default=None)     # flat: mm² outside it
    inside: Any = field(repr=False, default=None)       # flat float: 1 in the play area
    outside: Any = field(repr=False, default=None)
    frame_border: Any = field(repr=False, default=None) # uint8: the picture's outermost pixels
    play_u8: Any = field(repr=False, default=None)      # uint8 mask of the play area
    ring_basis: Any = field(repr=False, default=None)   # 1, x, y, x², xy, y² at the ring sample
    ring_pinv: Any = field(repr=False, default=None)
    full_basis: Any = field(repr=False, default=None)   # ... at every pixel (float32)
    middle_px: tuple[float, float] = (0.0, 0.0)          # the middle of the table in the small image (x, y)
    board_px: Any = field(repr=False, default=None)     # flat float: 1 over the board
    mm: Any = field(repr=False, default=None)            # board-frame mm of each small pixel (h, w, 2)
    region_net: Any = field(repr=False, default=None)    # the learned region classifier (None: hand-set rules)
    area_flat: Any = field(repr=False, default=None)     # flat float64: mm² of each pixel
    board_u8: Any = field(repr=False, default=None)      # uint8: 1 over the board
    art_quantiles: Any = field(repr=False, default=None) # the art's `quantiles` (low, 50, high) at board_idx
    mid_mm: tuple[float, float] = (0.0, 0.0)             # the middle of the table (board mm)
    seat_dirs: Any = field(repr=False, default=None)     # (seats, 2): unit direction from the middle to each seat area
    near_idx: Any = field(repr=False, default=None)      # flat indices of a sample of the table beside the board
    area_max: float = 0.0                                # the largest pixel's mm² (`_ends_sharply`'s exact bounds)
    # per-pixel weights of `region_features`' sums, flat float64 (once per registration rather than per frame):
    root_border: Any = field(repr=False, default=None)   # sqrt(mm²) on the picture's border, else 0
    root_flat: Any = field(repr=False, default=None)     # sqrt(mm²)
    area_board: Any = field(repr=False, default=None)    # mm² over the board, else 0
    ring_band: Any = field(repr=False, default=None)     # 1 in the ring (`ring_mm` out of the play area), else 0
    ring_band_mm: tuple[float, float] = (0.0, 0.0)       # ... for this `ring_mm`
    # the largest pixel mm² over 2^j consecutive rows (columns) from each row (column), j = 0, 1, ... (a sparse
    # table: the largest over any run of rows is the larger of two of its entries): bounds on a box's largest pixel
    area_rows_max: Any = field(repr=False, default=None)
    area_cols_max: Any = field(repr=False, default=None)
    art_planes: tuple[Any, ...] | None = field(repr=False, default=None)   # `art`'s three channel planes
    play_box: tuple[int, int, int, int] | None = None    # y0, y1, x0, x1 of the play area (None: it is empty)
    play_count: int | None = None                        # its pixels (None: not counted)
    area_core: Any = field(repr=False, default=None)     # flat: mm² in the play area without its margin (0 outside)
    log_art_planes: tuple[Any, ...] | None = field(repr=False, default=None)   # `log_art`'s three channel planes
    # `region_features`' per-pixel weights side by side (pixels x 7, float64): area_flat, area_in, root_border,
    # root_flat, area_board, ring_band, out_dist (gathered as one table)
    pixel_weights: Any = field(repr=False, default=None)


@dataclass(frozen=True)
class UsableVerdict:
    usable: bool
    reason: str | None = None
    hands: list[str | None] | None = None
    anomaly_mm2: float = 0.0
    gain: float | None = None
    arm_mask: Any = field(default=None, repr=False, compare=False)   # for overlays


_DEBUG = None
# `_components`: a mask with more than this share of foreground pixels takes OpenCV's statistics pass (the boxes
# from the foreground pixels cost in proportion to them; a speed switch only: both give the same integers)
_COMPONENTS_NP_SHARE = 0.25
_ROWS_COLS: dict = {}   # `_pixel_rows_cols`' tables, per picture size
_DEBUG_HAND = None     # scratch: (region, hand mm² in the play area, in all)
_DEBUG_EXTENT = None   # a list to collect each tried extent's (fill, robust fill) in, for scratch scripts


def _log_lut(offset: float) -> Any:
    """log(v + offset) for v = 0..255 (float32; read-only, kept per offset: every frame needs it)."""
    lut = _LOG_LUTS.get(offset)
    if lut is None:
        import numpy as np

        lut = np.log(np.arange(256, dtype=np.float32) + offset).astype(np.float32)
        lut.setflags(write=False)
        _LOG_LUTS[offset] = lut
    return lut


_LOG_LUTS: dict[float, Any] = {}


def _rect_distance(mm: Any, rect: tuple[float, float, float, float]) -> Any:
    """Distance (mm) of board-frame points from an axis-aligned rectangle (0 inside)."""
    import numpy as np

    x0, y0, x1, y1 = rect
    dx = np.maximum(np.maximum(x0 - mm[..., 0], mm[..., 0] - x1), 0)
    dy = np.maximum(np.maximum(y0 - mm[..., 1], mm[..., 1] - y1), 0)
    return np.hypot(dx, dy)


def _hull_distance(mm: Any, points: Any) -> Any:
    """Distance (mm) of board-frame points outside the convex hull of `points` (0 inside; the largest
    distance to an edge's line, exact but for points off a corner)."""
    import cv2
    import numpy as np

    hull = cv2.convexHull(points.reshape(-1, 1, 2)).reshape(-1, 2).astype(np.float64)
    out = np.zeros(mm.shape[:2], np.float32)
    n = len(hull)
    centre = hull.mean(axis=0)
    for i in range(n):
        a, b = hull[i], hull[(i + 1) % n]
        e = b - a
        normal = np.array([e[1], -e[0]]) / (np.hypot(*e) + 1e-9)
        if np.dot(centre - a, normal) > 0:
            normal = -normal           # pointing out of the hull
        d = (mm[..., 0] - a[0]) * normal[0] + (mm[..., 1] - a[1]) * normal[1]
        out = np.maximum(out, d.astype(np.float32))
    return out


def middle_rect(calibration: Mapping[str, Any], board: Any) -> tuple[float, float, float, float]:
    """The middle of the table in board mm: the board and whatever lies between the markers (the card
    game's draw and discard piles lie where a board would)."""
    xs, ys = [], []
    for item in (calibration.get("markers") or {}).get("items", []):
        xs.append(float(item["x"]))
        ys.append(float(item["y"]))
    if board is not None:
        bw, bh = board.size_mm
        xs += [0.0, float(bw)]
        ys += [0.0, float(bh)]
    if not xs:
        return (0.0, 0.0, 0.0, 0.0)
    return (min(xs), min(ys), max(xs), max(ys))


def inner_middle_rect(calibration: Mapping[str, Any], board: Any) -> tuple[float, float, float, float]:
    """The middle of the table without the markers' squares (board mm): the board and what lies between the
    markers' inner edges (`middle_rect` reaches to their centres; the squares themselves hold no pieces)."""
    items = (calibration.get("markers") or {}).get("items", [])
    xs, ys = [], []
    if items:
        half = max(float(item.get("size", 0.0)) for item in items) / 2.0
        x0, x1 = min(float(i["x"]) for i in items), max(float(i["x"]) for i in items)
        y0, y1 = min(float(i["y"]) for i in items), max(float(i["y"]) for i in items)
        if x1 - x0 > 2 * half and y1 - y0 > 2 * half:
            xs += [x0 + half, x1 - half]
            ys += [y0 + half, y1 - half]
    if board is not None:
        bw, bh = board.size_mm
        xs += [0.0, float(bw)]
        ys += [0.0, float(bh)]
    if not xs:
        return middle_rect(calibration, board)
    return (min(xs), min(ys), max(xs), max(ys))


def build_usable_model(config: UsableConfig, calibration: Mapping[str, Any], registration: Any, board: Any,
                       components: Any, seats: Iterable[str] | None = None,
                       players: Iterable[str] | None = None) -> UsableModel:
    """Precompute the small image's table geometry and, with a board, its art (see the module docstring).
    `seats`: the seats a hand may be named for (default: every seat of the calibration: an arm is named
    for the seat whose table edge it crosses, whether a player sits there or not). `players`: the seats
    in play, when the caller knows them; in the card game (no board) only their areas are play area
    (`free_seats_play`)."""
    import cv2
    import numpy as np

    W, H = registration.image_size
    sw, sh = config.size
    sx, sy = W / sw, H / sh
    gx, gy = np.meshgrid((np.arange(sw) + 0.5) * sx - 0.5, (np.arange(sh) + 0.5) * sy - 0.5)
    mm = registration.image_to_board(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(sh, sw, 2).astype(np.float32)
    gxx, gxy = np.gradient(mm[..., 0])
    gyx, gyy = np.gradient(mm[..., 1])
    area = np.abs(gxy * gyx - gxx * gyy).astype(np.float32)   # gradient order is (rows, cols)
    area = np.clip(area, 0, float(np.percentile(area, 99)) * 1.5)
    mm_per_px = float(np.sqrt(np.median(area)) + 1e-6)

    cal_seats = calibration.get("seats", {}) or {}
    in_play = tuple(s for s in (seats if seats is not None else cal_seats) if s in cal_seats) or tuple(cal_seats)
    mid = middle_rect(calibration, board)
    d_mid = _rect_distance(mm, mid)
    d_seat = []
    for s in in_play:
        r = cal_seats[s]
        x, y, w, h = (float(r[k]) for k in ("x", "y", "w", "h"))
        d_seat.append(_rect_distance(mm, (x, y, x + w, y + h)))
    # The play area: the hull of the middle and every seat area of the calibration. The piles of a board
    # game lie in a free seat's area or in a corner between two seats (FORMATS §4 does not place them);
    # only the seats in play vote for whose arm it is.
    corners = [(mid[0], mid[1]), (mid[2], mid[1]), (mid[2], mid[3]), (mid[0], mid[3])]
    for r in cal_seats.values():
        x, y, w, h = (float(r[k]) for k in ("x", "y", "w", "h"))
        corners += [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    play_seats = in_play
    if board is None and players is not None and not config.free_seats_play:
        chosen = set(players)
        play_seats = tuple(s for s in in_play if s in chosen) or in_play
    if config.play_hull:
        d_all = _hull_distance(mm, np.array(corners, np.float32))
    else:
        d_play = [d for s, d in zip(in_play, d_seat) if s in play_seats]
        d_all = np.minimum.reduce([d_mid, *d_play]) if d_play else d_mid
    margin = config.play_margin_mm
    play = d_all <= margin
    # the play area itself (`over_core`): the seat areas and the middle between the markers' inner edges, no margin
    if config.play_hull:
        core = d_all <= 0
    else:
        d_core = [d for s, d in zip(in_play, d_seat) if s in play_seats]
        core = np.minimum.reduce([_rect_distance(mm, inner_middle_rect(calibration, board)), *d_core]) <= 0
    out_dist = np.maximum(d_all - margin, 0).astype(np.float32)
    lo, hi = config.ring_mm
    ring = (d_all >= lo) & (d_all <= hi)
    step = max(1, config.sample_step)
    sample = np.zeros((sh, sw), bool)
    sample[::step, ::step] = True
    ring_idx = np.flatnonzero(ring & sample)
    # the table beside the board (or between the markers' middle and the seats in the card game), off the markers
    if board is not None:
        bw, bh = board.size_mm
        d_near = _rect_distance(mm, (0.0, 0.0, float(bw), float(bh)))
    else:
        d_near = d_mid
    near = (d_near >= config.near_mm[0]) & (d_near <= config.near_mm[1])
    for item in (calibration.get("markers") or {}).get("items", []):
        half = float(item.get("size", 40.0)) * 0.75 + 15.0
        near &= (np.abs(mm[..., 0] - float(item["x"])) > half) | (np.abs(mm[..., 1] - float(item["y"])) > half)
    near_idx = np.flatnonzero(near & sample)
    u = (np.arange(sw * sh) % sw) / sw * 2 - 1.0
    v = (np.arange(sw * sh) // sw) / sh * 2 - 1.0
    full = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], 1)
    ring_basis = full[ring_idx]
    ring_pinv = np.linalg.pinv(ring_basis) if len(ring_idx) >= 20 else None
    full_basis = full.astype(np.float32)

    if d_seat:
        stack = np.stack(d_seat)
        label = np.argmin(stack, axis=0).astype(np.int16)
        # in the middle (nearer it than any seat area) the arm tells nothing of its seat
        label[(d_mid <= margin) & (d_mid < stack.min(axis=0))] = -1
    else:
        label = np.full((sh, sw), -1, np.int16)
    # the part farthest from the middle is the arm's root: it votes most (up to vote_mm outside)
    vote_weight = np.where(d_all <= config.vote_mm + margin, d_mid, 0).astype(np.float32) * area

    border = np.zeros((sh, sw), np.uint8)
    border[:2, :] = border[-2:, :] = 1
    border[:, :2] = 1
    border[:, -2:] = 1
    board_mask = board_idx = log_art = art_sample = small_art = None
    board_box = (0, 0, 0, 0)
    art_lum = 1.0
    art_img = components.image(f"board-{board.name}") if board is not None and components is not None else None
    if art_img is not None:
        bw, bh = board.size_mm
        inside = (mm[..., 0] >= 0) & (mm[..., 0] < bw) & (mm[..., 1] >= 0) & (mm[..., 1] < bh)
        art, _alpha = art_img
        ppm = components.board_ppm
        k = max(1, int(round(mm_per_px * ppm)))
        art_blur = cv2.blur(art, (k, k)) if k > 1 else art
        small_art = cv2.remap(art_blur, mm[..., 0] * ppm - 0.5, mm[..., 1] * ppm - 0.5, cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        log_art = np.log(small_art + config.offset).astype(np.float32)
        art_lum = float(np.median(small_art[inside].mean(axis=1))) if inside.any() else 1.0
        board_mask = inside
        board_idx = np.flatnonzero(inside & sample)
        art_sample = small_art.reshape(-1, 3)[board_idx]
        ys, xs = np.nonzero(inside)
        if len(ys):
            board_box = (int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1)
        y0, y1, x0, x1 = board_box
        small_art = np.ascontiguousarray(small_art[y0:y1, x0:x1])
        log_art = np.ascontiguousarray(log_art[y0:y1, x0:x1])
    model = UsableModel((sw, sh), mm_per_px, area, play, ring_idx, out_dist, in_play, label, vote_weight,
                       board_mask, board_idx, board_box, log_art, small_art, art_sample, art_lum,
                       (area * play).ravel().astype(np.float64), (area * ~play).ravel().astype(np.float64),
                       play.ravel().astype(np.float64), (~play).ravel().astype(np.float64), border,
                       play.astype(np.uint8), ring_basis, ring_pinv, full_basis, _middle_px(mm, mid),
                       (board_mask if board_mask is not None else np.zeros((sh, sw), bool)).ravel().astype(np.float64),
                       mm, _cached_region_net(config.region_weights) if config.learned_regions else None,
                       area.ravel().astype(np.float64),
                       (board_mask if board_mask is not None else np.zeros((sh, sw), bool)).astype(np.uint8),
                       np.percentile(art_sample, [config.quantiles[0], 50, config.quantiles[1]], axis=0)
                       if art_sample is not None and len(art_sample) else None,
                       ((mid[0] + mid[2]) / 2, (mid[1] + mid[3]) / 2), _seat_dirs(cal_seats, in_play, mid),
                       near_idx if len(near_idx) >= 20 else None, float(area.max()),
                       *_region_weights(config, area, border, board_mask, out_dist),
                       _sparse_max(area.max(axis=1)), _sparse_max(area.max(axis=0)),
                       tuple(cv2.split(small_art)) if small_art is not None else None,
                       _box(play), int(np.count_nonzero(play)),
                       (area * core).ravel().astype(np.float64),
                       tuple(cv2.split(log_art)) if log_art is not None else None)
    # (the table's columns stand for the separate weights: the same values, no second copy of them)
    table = np.stack([model.area_flat, model.area_in, model.root_border, model.root_flat, model.area_board,
                      model.ring_band, out_dist.ravel()], axis=1, dtype=np.float64)
    return replace(model, pixel_weights=table, area_flat=table[:, 0], area_in=table[:, 1], root_border=table[:, 2],
                   root_flat=table[:, 3], area_board=table[:, 4], ring_band=table[:, 5])


def _box(mask: Any) -> tuple[int, int, int, int] | None:
    """y0, y1, x0, x1 (ends exclusive) of a mask's nonzero pixels; None without any."""
    import numpy as np

    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


def _sparse_max(values: Any) -> Any:
    """Row j: the largest of `values` over 2^j consecutive entries from each (float64; the tail keeps the last
    full run's values, never read by `_run_max`)."""
    import numpy as np

    rows = [np.asarray(values, np.float64)]
    while 2 ** len(rows) <= len(values):
        prev, half = rows[-1], 2 ** (len(rows) - 1)
        rows.append(np.concatenate([np.maximum(prev[:-half], prev[half:]), prev[len(prev) - half:]]))
    return np.stack(rows)


def _run_max(table: Any, start: Any, length: Any) -> Any:
    """The largest value over each run `start`, `length` (arrays; length >= 1) of a `_sparse_max` table."""
    import numpy as np

    # (floor(log2(length)) from a table of the integers' bit lengths: the same j, without three float passes; a run
    # longer than the table — a small picture over 8191 px — raises IndexError)
    j = _FLOOR_LOG2[np.maximum(length, 1)]
    return np.maximum(table[j, start], table[j, start + length - (1 << j)])


# 3 x 3 and 5 x 5 structuring elements of ones (read-only; every frame needs them)
_K3 = __import__("numpy").ones((3, 3), "uint8")
_K5 = __import__("numpy").ones((5, 5), "uint8")
_K3.flags.writeable = _K5.flags.writeable = False
_FLOOR_LOG2 = __import__("numpy").array([max(i, 1).bit_length() - 1 for i in range(1 << 13)], dtype="intp")


def _region_weights(config: UsableConfig, area: Any, border: Any, board_mask: Any, out_dist: Any) -> tuple[Any, ...]:
    """`UsableModel.root_border`, `root_flat`, `area_board`, `ring_band`: the weights `region_features` gathers at
    the not-table pixels, computed as it computed them per pixel (the same values)."""
    import numpy as np

    area_flat = area.ravel().astype(np.float64)
    root = np.sqrt(area_flat)
    board = (board_mask if board_mask is not None else np.zeros(area.shape, bool)).ravel()
    lo, hi = config.ring_mm
    od = out_dist.ravel()
    return (root * (border.ravel() > 0), root, area_flat * board,
            ((od > lo) & (od < hi)).astype(np.float64), (lo, hi))


def _seat_dirs(cal_seats: Mapping[str, Any], seats: tuple[str, ...], mid: tuple[float, float, float, float]) -> Any:
    """Unit directions (board mm) from the middle of the table to the middle of each seat's area."""
    import numpy as np

    cx, cy = (mid[0] + mid[2]) / 2, (mid[1] + mid[3]) / 2
    out = []
    for s in seats:
        r = cal_seats[s]
        dx = float(r["x"]) + float(r["w"]) / 2 - cx
        dy = float(r["y"]) + float(r["h"]) / 2 - cy
        n = float(np.hypot(dx, dy)) or 1.0
        out.append((dx / n, dy / n))
    return np.asarray(out, np.float64).reshape(-1, 2)


def _middle_px(mm: Any, mid: tuple[float, float, float, float]) -> tuple[float, float]:
    """Where the middle of the table lies in the small image (the pixel whose board mm is nearest it)."""
    import numpy as np

    cx, cy = (mid[0] + mid[2]) / 2, (mid[1] + mid[3]) / 2
    d = (mm[..., 0] - cx) ** 2 + (mm[..., 1] - cy) ** 2
    y, x = np.unravel_index(int(np.argmin(d)), d.shape)
    return float(x), float(y)


def small_image(config: UsableConfig, image: Any) -> Any:
    import cv2

    if (image.shape[1], image.shape[0]) == tuple(config.size):
        return image
    w = config.size[0]
    if image.shape[1] > config.still_shrink * w:
        # a full-resolution still: averaging every pixel of 12 megapixels costs ~50 ms here; every
        # pixel of a 4x-the-target picture sampled from it keeps 16 samples per small pixel (~5 ms)
        k = 4 * w / image.shape[1]
        image = cv2.resize(image, None, fx=k, fy=k, interpolation=cv2.INTER_NEAREST)
    return cv2.resize(image, config.size, interpolation=cv2.INTER_AREA)


def judge_usable(config: UsableConfig, model: UsableModel | None, image: Any, previous: Any = None,
                 reference: float | None = None) -> UsableVerdict:
    """The verdict on one frame (any size; it is resized to `config.size` first; see `judge_small`)."""
    small = small_image(config, image)
    prev = small_image(config, previous) if previous is not None else None
    return judge_small(config, model, small, prev, reference)


def sharpness(model: UsableModel, small: Any) -> float:
    """How sharp the play area is, in its blurriest direction: mean |second derivative| over mean |first
    derivative| along x and along y, the smaller (a motion blur lowers it along the motion; exposure and
    white balance cancel out). Compared with the same table's reference, never with a constant."""
    import cv2

    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    m = model.play_u8
    out = []
    for dx, dy in ((1, 0), (0, 1)):
        d1 = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, dx, dy, ksize=3))
        d2 = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 2 * dx, 2 * dy, ksize=3))
        out.append(cv2.mean(d2, m)[0] / max(cv2.mean(d1, m)[0], 1e-3))
    return float(min(out))


def play_contrast(config: UsableConfig, model: UsableModel, grey: Any) -> float:
    """The play area's strongest local contrast in grey levels: the `dark_contrast_pct` percentile of |grey - its
    local mean| (a `dark_contrast_box` square) over the play area (`dark_contrast`). A smooth veil of light (a
    lamp's glare, the fall-off) adds none; the print of cards and board and the pieces' outlines make it."""
    import cv2
    import numpy as np

    k = config.dark_contrast_box
    d = cv2.absdiff(grey, cv2.blur(grey, (k, k)))
    # (a histogram of the uint8 differences: far cheaper than numpy's percentile of the play area's pixels)
    hist = cv2.calcHist([d], [0], model.play_u8, [256], [0, 256]).ravel()
    total = float(hist.sum())
    if total <= 0:
        return float("inf")
    return float(np.searchsorted(np.cumsum(hist), config.dark_contrast_pct / 100.0 * total))


def low_contrast(config: UsableConfig, model: UsableModel, grey: Any) -> bool:
    """`play_contrast(...) < config.dark_contrast`, counted instead of sorted: the percentile (a whole grey level)
    is under the threshold exactly when at most 1 - `dark_contrast_pct` % of the play area's pixels differ from
    their local mean by `ceil(dark_contrast)` levels or more (cheaper than `calcHist` with a mask)."""
    box = _contrast_box(config, model, grey.shape)
    if box is None:
        return False
    y0, y1, x0, x1 = box
    return _low_contrast_box(config, model, grey[y0:y1, x0:x1], box)


def _contrast_box(config: UsableConfig, model: UsableModel, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The part of the picture `low_contrast` reads: the play area's box widened by the local mean's reach
    (`dark_contrast_box` // 2; the picture's edge where it is nearer), so that every local mean over the play
    area is the one over the whole picture (the same sums, the same border where the box meets the picture's
    edge). None when the play area is empty; the whole picture for a model without the box."""
    if model.play_count is None:
        return 0, shape[0], 0, shape[1]
    if model.play_box is None:
        return None
    # (a k x k mean reaches k // 2 pixels before a pixel and (k - 1) // 2 after it)
    r = config.dark_contrast_box // 2
    y0, y1, x0, x1 = model.play_box
    return max(y0 - r, 0), min(y1 + r, shape[0]), max(x0 - r, 0), min(x1 + r, shape[1])


def _low_contrast_box(config: UsableConfig, model: UsableModel, grey: Any, box: tuple[int, int, int, int]) -> bool:
    """`low_contrast` of the grey picture's part `box` (`_contrast_box`), given that part alone."""
    import cv2

    k = config.dark_contrast_box
    d = cv2.absdiff(grey, cv2.blur(grey, (k, k)))
    level = max(0, min(256, math.ceil(config.dark_contrast)))
    if level == 0:
        return False
    y0, y1, x0, x1 = box
    play = model.play_u8[y0:y1, x0:x1]
    strong = cv2.bitwise_and(cv2.compare(d, level, cv2.CMP_GE), play)   # (255 & 1: 1 where both)
    total = model.play_count if model.play_count is not None else cv2.countNonZero(model.play_u8)
    if total == 0:
        return False
    return cv2.countNonZero(strong) <= (1.0 - config.dark_contrast_pct / 100.0) * total


def _percentile_below(values: Any, q: float, level: float) -> bool:
    """`float(np.percentile(values, q)) < level` (linear interpolation) for integer `values`, counted: the samples under
    `level` are the first `c` in sorted order, so the percentile, which lies between the two samples around its
    position, is under it when both are among them and not when neither is; only when they straddle it is numpy's
    percentile taken (its partition and overhead cost ~0.05 ms on the card game's 14 400 samples)."""
    import numpy as np

    n = values.size
    if n == 0:
        return float(np.percentile(values, q)) < level
    pos = q / 100.0 * (n - 1)
    i = math.floor(pos)
    if abs(pos - round(pos)) < 1e-9:     # (at a sample, or a hair off one: numpy's own rounding decides)
        return float(np.percentile(values, q)) < level
    c = int(np.count_nonzero(values < level))
    if i + 1 < c:
        return True
    if i >= c:
        return False
    return float(np.percentile(values, q)) < level


def update_reference(config: UsableConfig, reference: float | None, value: float) -> float:
    """The sharpness reference after a settled (usable) frame."""
    if reference is None:
        return value
    w = config.reference_weight
    return (1 - w) * reference + w * value


def judge_small(config: UsableConfig, model: UsableModel | None, small: Any, previous: Any = None,
                reference: float | None = None) -> UsableVerdict:
    """The verdict on a frame already at `config.size` (the part the 2 ms budget covers). `previous`: the
    previous frame at the same size, when the caller has a stream (it tells a moving arm); `reference`:
    the table's sharpness on settled frames of this registration (`sharpness`), when the caller keeps one
    (it tells a blurred picture)."""
    import cv2
    import numpy as np

    dark = False
    grey = None
    if model is None or model.board_mask is None:
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        dark = _percentile_below(grey[::2, ::2], 99, config.dark_level)
        if dark and (model is None or not config.dark_arms):
            return UsableVerdict(False, "too-dark")
        if model is None:
            return UsableVerdict(True)
    # (with `dark_arms` a frame too dark by its contrast is still searched for an arm, and the contrast decides only a
    # frame without one: tested then, after the arm search — the same verdicts, the test skipped where an arm is found)
    contrast_later = not dark and config.dark_contrast is not None and config.dark_arms
    if not dark and config.dark_contrast is not None and not config.dark_arms:
        if _contrast_dark(config, model, small, grey):
            return UsableVerdict(False, "too-dark")
    px = not_table_pixels(config, model, small, dark_ok=config.dark_arms)
    if px.gain is not None and px.gain < config.dark_gain:
        dark = True
        if px.mask is None:
            return UsableVerdict(False, "too-dark", gain=px.gain)
    mask, hull_mask, edge_zone, gain = px.mask, px.hull, px.edge_zone, px.gain

    # (of a bool view: numpy's nonzero of a uint8 mask takes ~5x as long)
    idx = np.flatnonzero(mask.view(bool))     # (the mask holds 0 and 1)
    # (BBDT: the same labels as the default algorithm, about 3x faster here; the statistics from `idx`)
    shared: dict = {}     # (the labels at `idx` and the parts' pixel counts, for `_region_features`)
    n, labels, stats, order = _components_sorted(mask, idx, shared)
    arms: list[int] = []
    anomaly = 0.0
    if model.region_net is not None:
        keep, feats, lab, area_in = _region_features(config, model, px, labels, stats, n, idx, order, **shared)
        # per region (not the background: only the regions' own pixels are counted)
        if lab is None:
            lab = labels.ravel()[idx]
        if area_in is None:
            area_in = np.bincount(lab, weights=model.area_in[idx], minlength=n)
        if keep:
            p = model.region_net.prob(feats)
            # (the area over the play area without its margin is at most the area with it: counted only when a
            # region the net does not dismiss has enough of the latter)
            over_area = area_in
            if (config.over_core and model.area_core is not None
                    and bool(np.any((area_in[keep] >= config.arm_over_min_mm2)
                                    & (p >= min(model.region_net.threshold, config.hand_find_p))))):
                over_area = np.bincount(lab, weights=model.area_core[idx], minlength=n)
            over = over_area[keep] >= config.arm_over_min_mm2
            if config.hand_beyond_sleeve:
                # (feature columns: "nearest" in 100 mm, "toward_middle" a cosine, "log_length" of 100 mm)
                over |= ((feats[:, _NEAREST] * 100.0 <= config.hand_gap_mm)
                         & (feats[:, _TOWARD] >= config.hand_toward)
                         & (np.exp(feats[:, _LENGTH]) * 100.0 >= config.sleeve_len_mm))
            arms = [keep[i] for i in np.argsort(-p) if p[i] >= model.region_net.threshold and over[i]]
            if not arms and config.hand_hysteresis:
                # (only where nothing rejected the frame yet: a sleeve whose hand is pale — under the threshold, a
                # long one near the play area; at or above it, any that stops within `hand_sure_gap_mm` of it)
                thr = model.region_net.threshold
                for i in np.argsort(-p):
                    sure = p[i] >= thr
                    if sure and config.hand_sure_gap_mm is None:
                        continue
                    if (p[i] >= config.hand_find_p
                            and over_area[keep[i]] < config.arm_over_min_mm2
                            and ((feats[i, _NEAREST] * 100.0 <= config.hand_sure_gap_mm
                                  and feats[i, _TOWARD] >= config.hand_toward
                                  and np.exp(feats[i, _AREA]) * 1000.0 >= config.arm_area_mm2) if sure else
                                 (feats[i, _NEAREST] * 100.0 <= config.hand_gap_mm
                                  and np.exp(feats[i, _LENGTH]) * 100.0 >= config.sleeve_len_mm))
                            and _pale_hand_mm2(config, model, px, labels, stats, keep[i]) >= config.hand_over_min_mm2):
                        arms = [keep[i]]
                        break
            if _DEBUG is not None:
                _DEBUG.extend(dict(zip(REGION_FEATURES, map(float, f)), p=float(q), box=tuple(stats[k, :4]),
                                   area_in=float(area_in[k])) for k, f, q in zip(keep, feats, p))
        # (which regions come in from an edge is needed only for an arm's seat: counted then. A pixel's play-area
        # weights inside + outside are 1 and 0, so their sums over a region's edge pixels are > 0 exactly when the
        # region has an edge pixel)
        rooted = None
        if arms:
            rooted = np.bincount(lab[edge_zone.ravel()[idx] > 0], minlength=n) > 0
        anomaly = float(max(area_in[1:].max(), 0.0)) if n > 1 else 0.0
    elif n > 1:
        lab = labels.ravel()
        area_in = np.bincount(lab, weights=model.area_in, minlength=n)
        area_out = np.bincount(lab, weights=model.area_out, minlength=n)
        at_edge = edge_zone.ravel() > 0
        edge_out = np.bincount(lab[at_edge], weights=model.outside[at_edge], minlength=n)
        edge_in = np.bincount(lab[at_edge], weights=model.inside[at_edge], minlength=n)
        rooted = (edge_out + edge_in) > 0
        for k in range(1, n):
            total = area_in[k] + area_out[k]
            if total < config.arm_area_mm2:
                continue
            x, y, w, h = (int(v) for v in stats[k, :4])
            sel = labels[y:y + h, x:x + w] == k
            out_d = model.out_dist[y:y + h, x:x + w][sel]
            from_edge = edge_out[k] > 0 or edge_in[k] > 0
            over = area_in[k] >= config.arm_in_min_mm2
            far_out = area_out[k] >= config.arm_out_min_mm2 and float(out_d.max()) >= config.arm_reach_mm
            near = float(out_d.min()) <= config.side_arm_near_mm
            # an arm comes from a body beyond the table: out of the picture or the table's edge, or from far
            # out of the play area; it lies over the play area or reaches for it
            if not ((over and (from_edge or far_out)) or (from_edge and near and config.side_arms)):
                continue
            length, width = _extent_mm(model.area[y:y + h, x:x + w], sel)
            if _DEBUG is not None:
                _DEBUG.append(dict(length=length, width=width, total=float(total), area_in=float(area_in[k]),
                                   area_out=float(area_out[k]), from_edge=bool(from_edge), over=bool(over),
                                   far_out=bool(far_out), near=bool(near), box=(x, y, w, h),
                                   fill=float(total) / max(length * width, 1.0),
                                   reach=float(out_d.max())))
            # a thing (mug, phone, card box) is compact and fills its rectangle, an arm is long or ragged
            compact = (length < config.compact_len_mm and length < config.compact_aspect * width
                       and total >= config.compact_fill * length * width)
            if length >= config.arm_len_mm and width >= config.arm_width_mm and not compact:
                arms.append(k)
        anomaly = float(max(area_in[1:].max(), 0.0))
    if not arms:
        if dark or (contrast_later and _contrast_dark(config, model, small, grey)):
            return UsableVerdict(False, "too-dark", anomaly_mm2=anomaly, gain=gain)
        if reference is not None and sharpness(model, small) < config.blur_ratio * reference:
            return UsableVerdict(False, "motion", anomaly_mm2=anomaly, gain=gain)
        return UsableVerdict(True, anomaly_mm2=anomaly, gain=gain)
    arm_mask = labels == arms[0]
    for k in arms[1:]:
        arm_mask |= labels == k
    seats = _arm_seats(config, model, labels, arms, area_in, rooted, edge_zone)
    reason = "motion" if _moving(config, model, small, previous, arm_mask) else "occluded"
    return UsableVerdict(False, reason, seats, anomaly_mm2=anomaly, gain=gain, arm_mask=arm_mask)



def _contrast_dark(config: UsableConfig, model: UsableModel, small: Any, grey: Any = None) -> bool:
    """Too dark by the play area's contrast (`dark_contrast`; `low_contrast`). Only the play area's box is read: grey
    of that part alone, when there is no whole grey picture (`grey`) yet."""
    import cv2

    box = _contrast_box(config, model, small.shape)
    if box is None:
        return False
    y0, y1, x0, x1 = box
    part = grey[y0:y1, x0:x1] if grey is not None else cv2.cvtColor(small[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    return _low_contrast_box(config, model, part, box)


def _pale_hand_mm2(config: UsableConfig, model: UsableModel, px: "TablePixels", labels: Any, stats: Any,
                   k: int) -> float:
    """mm² of the play area covered by the pale hand beyond region `k`'s tip (`hand_hysteresis`): the pixels off
    the table by `hand_weak` of its thresholds, within `hand_reach_mm` of the tip, off the board and every other
    region, connected to region `k` through such pixels."""
    import cv2
    import numpy as np

    sh, sw = labels.shape
    x, y, w, h = (int(v) for v in stats[k, :4])
    sel = labels[y:y + h, x:x + w] == k
    # the tip: the region's pixel nearest the middle of the table (an arm reaches toward it, the hand beyond its
    # end; the pixel nearest the play area may lie on the sleeve's side where it runs along a seat area)
    mx, my = model.middle_px
    yy, xx = np.nonzero(sel)
    j = int(np.argmin((xx + x - mx) ** 2 + (yy + y - my) ** 2))
    ty, tx = y + int(yy[j]), x + int(xx[j])
    # (a box around the tip that holds every pixel within reach: the smallest pixel near the tip bounds the scale)
    r = int(np.ceil(config.hand_reach_mm / max(float(np.sqrt(model.area[ty, tx])) * 0.5, 1e-3)))
    y0, y1, x0, x1 = max(min(ty - r, y), 0), min(max(ty + r + 1, y + h), sh), max(min(tx - r, x), 0), \
        min(max(tx + r + 1, x + w), sw)
    lab = labels[y0:y1, x0:x1]
    thr_c, thr_l = px.thresholds
    wc, wl = config.hand_weak * thr_c, config.hand_weak * thr_l
    weak = (px.chroma2[y0:y1, x0:x1] > wc * wc) | (px.lum[y0:y1, x0:x1] > wl)
    d = model.mm[y0:y1, x0:x1] - model.mm[ty, tx]
    zone = weak & (lab == 0) & (px.hull[y0:y1, x0:x1] > 0) & (d[..., 0] ** 2 + d[..., 1] ** 2
                                                              <= config.hand_reach_mm ** 2)
    if model.board_mask is not None:
        zone &= ~model.board_mask[y0:y1, x0:x1]
    # (the seed widened by 2 px: between a dark sleeve and a paler hand the blurred picture passes through the
    # table's brightness, a one-pixel seam that would part them)
    seed = cv2.dilate((lab == k).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    n, comp = cv2.connectedComponents((zone | seed).astype(np.uint8), connectivity=8)
    ids = np.unique(comp[seed])
    grown = zone & np.isin(comp, ids[ids > 0])
    # (over the play area itself with `over_core`, as a region's own area is measured)
    cover = model.area_core if config.over_core and model.area_core is not None else model.area_in
    area_in = cover.reshape(sh, sw)[y0:y1, x0:x1]
    total = float(model.area[y0:y1, x0:x1][grown].sum())
    if _DEBUG_HAND is not None:
        _DEBUG_HAND.append((k, float(area_in[grown].sum()), total))
    # (grown past a hand's size: the weak pixels are the table's own shading — a lamp's pool, its fall-off)
    return float(area_in[grown].sum()) if total <= config.hand_max_mm2 else 0.0


@dataclass(frozen=True, eq=False)
class TablePixels:
    """What the pixel stage found in a small frame (`not_table_pixels`)."""

    mask: Any            # uint8: not table (nor the board's art), within the table's extent
    hull: Any            # uint8: the table's extent (the hull of its largest table-coloured region)
    edge_zone: Any       # uint8: where an arm comes into the table's picture (its edge, the image's border)
    gain: float | None   # the board's exposure relative to its art (None without art)
    lum: Any = None      # |brightness off the table's| (log), before thresholds
    chroma2: Any = None  # squared colour difference to the table's (log)
    thresholds: Any = None   # (chroma, brightness) thresholds used


def not_table_pixels(config: UsableConfig, model: UsableModel, small: Any, dark_ok: bool = False) -> TablePixels:
    """Pixels that are neither the table (its colour measured on the ring around the play area) nor the
    board's art (over the board), within the table's extent; `mask` is None when too dark to judge (unless
    `dark_ok`: an arm is still looked for in a frame too dark to read)."""
    import cv2
    import numpy as np

    sh, sw = small.shape[:2]
    flat = small.reshape(-1, 3)
    small_planes = cv2.split(small)     # (once, for both glare-veil tests)
    gain = None
    board_anomaly = None
    if model.board_mask is not None and len(model.board_idx):
        px = flat[model.board_idx].astype(np.float32)
        art_px = model.art_sample
        lo, hi = config.quantiles
        qv = percentiles(px, (lo, 50, hi))
        qa = (model.art_quantiles if model.art_quantiles is not None
              else np.percentile(art_px, [lo, 50, hi], axis=0))
        gain = float(medians(px @ np.full(3, 1 / 3, np.float32))) / max(model.art_lum, 1.0)
        if gain < config.dark_gain and not dark_ok:
            return TablePixels(None, None, None, gain, None, None, None)
        gain_c = (qv[2] - qv[0]) / np.maximum(qa[2] - qa[0], 1.0)
        off_c = qv[1] - gain_c * qa[1]
        # the frame mapped onto the art's exposure: a LUT per channel (uint8 in, log out)
        v = np.arange(256, dtype=np.float32)[:, None]
        lut = np.log(np.maximum(v - off_c[None], 0) / np.maximum(gain_c[None], 1e-3) + config.offset)
        y0, y1, x0, x1 = model.board_box
        crop = small[y0:y1, x0:x1]
        crop_planes = [p[y0:y1, x0:x1] for p in small_planes]
        # a table per channel, per channel plane (OpenCV's 3-channel float lookup costs ~3x three 1-channel ones),
        # less the art's log planes: `_lum_chroma(cv2.LUT(crop, lut), model.log_art)`, the same float32 operations
        lut32 = lut.astype(np.float32)
        log_art_planes = model.log_art_planes if model.log_art_planes is not None else cv2.split(model.log_art)
        lum, chroma = _lum_chroma_of([cv2.subtract(cv2.LUT(cp, np.ascontiguousarray(lut32[:, c])), la)
                                      for c, (cp, la) in enumerate(zip(crop_planes, log_art_planes))])
        a = (chroma > config.chroma_min ** 2) | (lum < np.log(config.dark_ratio)) | (lum > np.log(config.bright_ratio))
        # (the art at this exposure per channel plane: the same values as over the 3-channel art, without its split)
        g32, o32 = gain_c.astype(np.float32), off_c.astype(np.float32)
        if model.art_planes is not None:
            expected = [plane * g32[c] + o32[c] for c, plane in enumerate(model.art_planes)]
        else:
            expected = model.art * g32 + o32
        a &= ~_veiled(config, crop, expected, crop_planes)
        board_anomaly = a & model.board_mask[y0:y1, x0:x1]

    # the table's colour, from the ring around the play area (an arm covers a minority of it)
    # (the 3x3 mean of each channel plane: the same values as of the 3-channel picture, without a second split)
    blurred_planes = [cv2.blur(p, (3, 3)) for p in small_planes]
    log_lut = _log_lut(config.offset)
    bflat = _PlaneRows(blurred_planes)
    ring_idx = model.ring_idx
    if len(ring_idx) >= 20:
        table = medians(log_lut[bflat[ring_idx]])
        if config.ring_check and model.near_idx is not None:
            ring_idx, table = _ring_on_table(config, model, log_lut, bflat, table)
    else:
        table = medians(log_lut[bflat[::7]])
    # each pixel's log colour less the table's, by one table lookup per channel (as log(v + offset) - table)
    lum, chroma2 = _lum_chroma_lut(None, log_lut[:, None] - table.astype(np.float32)[None, :], blurred_planes)
    # off the table's brightness: neither its middle value nor its fall-off across the picture explains it
    lum_raw = lum
    # (|lum - fall-off| by OpenCV's absdiff, |lum - s| in one pass, and its min in place: the same float32
    # operations, cheaper than numpy's for two whole-picture operands)
    off_fall = cv2.absdiff(lum, _lum_surface(config, model, lum, ring_idx))
    lum = np.abs(lum)
    cv2.min(lum, off_fall, dst=lum)
    if len(ring_idx) >= 20:
        spread_c, spread_l = (float(percentiles(v.ravel()[ring_idx], (75,))[0]) for v in (chroma2, lum))
        spread_c = max(spread_c, 0.0) ** 0.5
    else:
        spread_c = spread_l = 0.0
    k = config.table_spread
    thr_c = min(max(k * spread_c, config.table_chroma[0]), config.table_chroma[1])
    thr_l = min(max(k * spread_l, config.table_lum[0]), config.table_lum[1])
    off_colour = (chroma2 > thr_c * thr_c) | (lum > thr_l)
    veil, veiled = _veil(config, small, np.exp(table).astype(np.float32) - config.offset, small_planes)
    if config.glare_fade is not None:
        # a glare fades out, a pale thing ends: veiled parts whose edge drops to the table are things
        # (a & ~b of bool arrays as a > b: one pass)
        np.greater(veiled, _ends_sharply(config, model, off_colour & veiled, veil, off_colour), out=veiled)
    not_table = np.greater(off_colour, veiled)

    def over_board(a: Any) -> None:
        """Over the board, `a` takes the board's own anomaly (its art, not the table's colour, is the reference)."""
        if board_anomaly is not None:
            y0, y1, x0, x1 = model.board_box
            np.copyto(a[y0:y1, x0:x1], board_anomaly, where=model.board_mask[y0:y1, x0:x1])

    over_board(off_colour)
    over_board(not_table)
    # the table's own extent: the hull of its largest table-coloured region (the floor beyond is no arm), by its
    # colour alone (glare_not_extent)
    extent_not = off_colour if config.glare_not_extent else not_table
    ring_share = config.extent_ring_share if len(ring_idx) >= 20 else None
    hull_mask, fill = _table_extent(extent_not, ring_idx, ring_share)
    # a table top is convex: a region filling its hull this poorly is the table joined to the floor beyond it, which
    # the ring's floor samples made table-coloured; the same test against a fall-off that no minority of the ring
    # bends (extent_robust) separates them, and its extent is taken when its region is the more convex one
    surface = None
    if config.extent_robust and fill < config.extent_min_fill and len(ring_idx) >= 20:
        surface = _robust_surface(config, model, lum_raw, ring_idx)
    if surface is not None:
        robust_not = (chroma2 > thr_c * thr_c) | (np.minimum(np.abs(lum_raw), np.abs(lum_raw - surface)) > thr_l)
        over_board(robust_not)
        if not config.glare_not_extent:
            robust_not &= not_table
        hull_r, fill_r = _table_extent(robust_not, ring_idx, ring_share)
        if _DEBUG_EXTENT is not None:
            _DEBUG_EXTENT.append((fill, fill_r))
        if fill_r > fill:
            hull_mask = hull_r
    # (bool arrays and 0/1 masks viewed as one another: the same bytes, no copy)
    mask = cv2.morphologyEx(np.logical_and(not_table, hull_mask.view(bool)).view(np.uint8), cv2.MORPH_OPEN, _K3)
    # where an arm comes into the table's picture: the image's border or the table's edge
    edge_zone = cv2.dilate(1 - hull_mask, _K5) | model.frame_border

    return TablePixels(mask, hull_mask, edge_zone, gain, lum, chroma2, (thr_c, thr_l))


def _table_extent(not_table: Any, ring_idx: Any = None, ring_share: float | None = None) -> tuple[Any, float]:
    """The hull of the largest table-coloured region (uint8 mask; the whole picture when there is none) and how
    well that region fills it (its solidity: a table top is convex, the floor joined to it is not). With `ring_idx`
    (flat indices of the table's ring samples) and `ring_share`, the hull of that region and of every other
    table-coloured region holding at least `ring_share` of the ring's table-coloured samples (`extent_ring_share`:
    the table cut in parts by an arm across it), and how well those regions fill it together."""
    import cv2
    import numpy as np

    table_like = cv2.morphologyEx(np.logical_not(not_table).view(np.uint8), cv2.MORPH_OPEN, _K3)
    contours, _h = cv2.findContours(table_like, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull_mask = np.zeros(not_table.shape[:2], np.uint8)
    if not contours:
        hull_mask[:] = 1
        return hull_mask, 0.0      # (no table-coloured region: the whole picture, and the robust view may find one)
    areas = [cv2.contourArea(c) for c in contours]
    big = int(np.argmax(areas))
    parts = [big]
    if ring_share is not None and ring_idx is not None and len(contours) > 1:
        parts = _ring_parts(table_like, contours, areas, big, ring_idx, ring_share)
    points = contours[big] if len(parts) == 1 else np.vstack([contours[k] for k in parts])
    hull = cv2.convexHull(points)
    cv2.fillConvexPoly(hull_mask, hull, 1)
    return hull_mask, float(sum(areas[k] for k in parts)) / max(float(cv2.contourArea(hull)), 1.0)


def _ring_parts(table_like: Any, contours: Any, areas: list[float], big: int, ring_idx: Any,
                ring_share: float) -> list[int]:
    """The contours (indices) of the table-coloured parts that make the table's extent (`extent_ring_share`): the
    largest (`big`) and each other part holding at least `ring_share` of the ring samples that are table-coloured.
    Most frames end at the first count: the largest part holds all but a few of the samples. A part holds no more
    samples than pixels, so a contour whose box has fewer pixels than that is not drawn."""
    import cv2
    import numpy as np

    on = ring_idx[table_like.ravel()[ring_idx] > 0]
    need = ring_share * len(on)
    if not len(on):
        return [big]
    filled = np.zeros_like(table_like)
    cv2.drawContours(filled, contours, big, 1, cv2.FILLED)
    on = on[filled.ravel()[on] == 0]       # (the samples outside the largest part)
    if len(on) < need:
        return [big]
    boxes = {k: cv2.boundingRect(contours[k]) for k in range(len(contours)) if k != big}
    cand = [k for k, (_x, _y, w, h) in boxes.items() if w * h >= need]
    if not cand:
        return [big]
    ys, xs = np.divmod(on, table_like.shape[1])
    out = [big]
    for k in cand:
        x, y, w, h = boxes[k]
        part = np.zeros((h, w), np.uint8)
        cv2.drawContours(part, [contours[k]], 0, 1, cv2.FILLED, offset=(-x, -y))
        sel = (ys >= y) & (ys < y + h) & (xs >= x) & (xs < x + w)
        inside = int(np.count_nonzero(part[ys[sel] - y, xs[sel] - x]))
        if inside >= need:
            out.append(k)
    return out


REGION_FEATURES = ("log_area", "share_in", "log_area_in", "log_length", "log_width", "fill", "solidity",
                   "border_mm", "table_edge_mm", "reach", "nearest", "share_board", "strength_lum",
                   "strength_chroma", "toward_middle", "root_out", "share_ring")
_NEAREST, _TOWARD = REGION_FEATURES.index("nearest"), REGION_FEATURES.index("toward_middle")
_LENGTH = REGION_FEATURES.index("log_length")
_AREA = REGION_FEATURES.index("log_area")   # log of mm² / 1000


def region_features(config: UsableConfig, model: UsableModel, px: TablePixels, labels: Any, stats: Any,
                    n: int, idx: Any = None) -> tuple[list[int], Any]:
    """See `_region_features` (which also returns what `judge_small` shares)."""
    keep, feats, _rl, _area_in = _region_features(config, model, px, labels, stats, n, idx)
    return keep, feats


def _region_features(config: UsableConfig, model: UsableModel, px: TablePixels, labels: Any, stats: Any,
                     n: int, idx: Any = None, order: Any = None, rl: Any = None,
                     count: Any = None) -> tuple[list[int], Any, Any, Any]:
    """The regions (connected parts of `px.mask`, `labels`/`stats` from cv2) worth judging, at least
    `region_min_mm2` large, and their measurements (`REGION_FEATURES`, one row each): sizes in mm and
    shares, never colours (the table's own colour is the reference; see `not_table_pixels`).

    Sums and means over every region at once (bincount over the labels of the not-table pixels only);
    the shape (smallest rectangle, hull, the point farthest from the middle)
    from each region's outer contour, whose hull is the hull of all its pixels. `idx`: the mask's flat
    indices, when the caller has them (`order`: their stable sort by label, when it has that too, as
    `_components_sorted` makes it; `rl`, `count`: the labels at `idx` and each label's pixel count, when it has
    those). Also returned: the regions' labels at those pixels and each region's mm²
    over the play area (None when no region is kept), which `judge_small` needs too."""
    import cv2
    import numpy as np

    empty = np.zeros((0, len(REGION_FEATURES)), np.float32)
    if n <= 1:
        return [], empty, None, None
    lab = labels.ravel()
    # every not-table pixel, by region (the regions are the mask's parts: label 0 is all the rest)
    if idx is None:
        idx = np.flatnonzero(px.mask.view(bool))
    if rl is None:
        rl = lab[idx]
    thr_c, thr_l = px.thresholds
    # (the registration's per-pixel weights gathered at once, one row of the model's table a pixel: ~3x cheaper than
    # seven gathers; the same values — out_dist's float32 held exactly in float64)
    ring_ok = model.ring_band is not None and tuple(model.ring_band_mm) == tuple(config.ring_mm)
    gathered = np.take(model.pixel_weights, idx, axis=0).T if model.pixel_weights is not None and ring_ok else None
    if gathered is not None:
        area, w_in, w_border, w_root, w_board, w_ring, out_d = gathered
    else:
        area = model.area_flat[idx]
        out_d = model.out_dist.ravel()[idx]
    # (the labels as intp once: bincount casts int32 labels on every call)
    rl_i = rl.astype(np.intp)
    total = np.bincount(rl_i, weights=area, minlength=n)
    keep = (np.flatnonzero(total[1:] >= config.region_min_mm2) + 1).tolist()
    if not keep:
        return [], empty, rl, None
    mx, my = model.middle_px
    if count is None:
        count = np.bincount(rl_i, minlength=n)

    def per_region(weights: Any) -> Any:
        return np.bincount(rl_i, weights=weights, minlength=n)

    # (the per-pixel weights are the model's, gathered: area x (out_d <= 0) is `area_in`, the play area's mm²)
    if gathered is None:
        w_in, w_border, w_root, w_board = (model.area_in[idx], model.root_border[idx], model.root_flat[idx],
                                           model.area_board[idx])
        w_ring = model.ring_band[idx] if ring_ok else None
    area_in = per_region(w_in)
    border_mm = per_region(w_border)
    edge_mm = per_region(w_root * (px.edge_zone.ravel()[idx] > 0)) - border_mm
    board = per_region(w_board)
    count1 = np.maximum(count, 1)
    lum = per_region(np.minimum(px.lum.ravel()[idx] / thr_l, 4.0)) / count1
    chroma = np.sqrt(np.maximum(px.chroma2.ravel()[idx], 0))
    chroma = per_region(np.minimum(chroma / thr_c, 4.0)) / count1
    if ring_ok:
        ring = per_region(w_ring) / count1
    else:      # (a config whose ring differs from the model's)
        lo, hi = config.ring_mm
        ring = per_region(((out_d > lo) & (out_d < hi)).astype(np.float64)) / count1
    # each region's outer contour (RETR_EXTERNAL follows 8-connected borders, as the labels do)
    contours, _h = cv2.findContours(px.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline: dict[int, Any] = {}
    if contours:
        # (each contour's region from its first point, all at once; only the kept regions' are used)
        first_pts = np.array([c[0, 0] for c in contours])
        kept = set(keep)
        for c, k in zip(contours, labels[first_pts[:, 1], first_pts[:, 0]].tolist()):
            if k not in kept:
                continue
            if k in outline:   # (never two outer contours for one region; kept whole if so)
                outline[k] = np.concatenate([outline[k], c])
            else:
                outline[k] = c
    # a region lying in a hole of another (a hand inside a ring of shadow) has no outer contour of
    # the whole mask: its own, from its own pixels
    for k in keep:
        if k not in outline:
            x, y, w, h = (int(v) for v in stats[k, :4])
            own, _h = cv2.findContours((labels[y:y + h, x:x + w] == k).astype(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
            outline[k] = np.concatenate(own) + np.array([x, y], dtype=own[0].dtype)
    out_dist = model.out_dist
    # each region's farthest and nearest pixel from the play area, all regions at once: its pixels are
    # one run of the pixels ordered by label (every label 1..n-1 has pixels: the labels are the mask's)
    # (a stable sort of 16-bit labels is a radix sort: the same order, ~3x faster than of 32-bit ones)
    if order is None:
        order = np.argsort(rl.astype(np.uint16) if n <= 65536 else rl, kind="stable")
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))[1:]
    kk = np.array(keep)
    out_sorted = out_d[order]
    d_max = np.maximum.reduceat(out_sorted, starts)[kk - 1].astype(np.float64)
    d_min = np.minimum.reduceat(out_sorted, starts)[kk - 1].astype(np.float64)
    # the root (each region's outline point farthest from the middle: the first such, as argmax takes it) lies how far
    # out of the play area; all kept regions' outlines at once
    pts_all = np.concatenate([outline[k].reshape(-1, 2) for k in keep]).astype(np.float32)
    lens = np.array([len(outline[k]) for k in keep])
    first = np.concatenate(([0], np.cumsum(lens)[:-1]))
    d2 = (pts_all[:, 0] - mx) ** 2 + (pts_all[:, 1] - my) ** 2
    far_d2 = np.maximum.reduceat(d2, first)
    at_far = np.flatnonzero(d2 == np.repeat(far_d2, lens))
    far = at_far[np.searchsorted(at_far, first)]
    root_out = out_dist[pts_all[far, 1].astype(np.intp), pts_all[far, 0].astype(np.intp)].astype(np.float64)
    shape = []   # per kept region: the rectangle's sides and angle, its centre, hull area
    for a, b in zip(first.tolist(), (first + lens).tolist()):
        # (the rectangle of the outline's hull: minAreaRect takes the hull of its points first, and the hull of a
        # hull is itself — the same rectangle, one hull computed instead of two)
        hull_pts = cv2.convexHull(pts_all[a:b])
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(hull_pts)
        shape.append((max(rw, rh), min(rw, rh), ang if rw >= rh else ang + 90.0, cx, cy, cv2.contourArea(hull_pts)))
    # the measurements of all kept regions at once
    long_px, short_px, ang, cx, cy, hull = np.array(shape, np.float64).T
    tot, cnt, a_in = total[kk], count[kk].astype(np.float64), area_in[kk]
    scale = np.sqrt(tot / cnt)
    length, width = long_px * scale + scale, short_px * scale + scale
    # the long axis against the direction to the middle: an arm points at it
    a = np.deg2rad(ang)
    to_x, to_y = mx - cx, my - cy
    toward = np.abs(np.cos(a) * to_x + np.sin(a) * to_y) / (np.hypot(to_x, to_y) + 1e-6)
    cols = (np.log(tot / 1000.0), a_in / tot, np.log1p(a_in / 1000.0), np.log(length / 100.0),
            np.log(width / 100.0), tot / np.maximum(length * width, 1.0), cnt / np.maximum(hull + cnt * 0.5, 1.0),
            np.log1p(border_mm[kk] / 10.0), np.log1p(np.maximum(edge_mm[kk], 0.0) / 10.0), d_max / 100.0,
            d_min / 100.0, board[kk] / tot, lum[kk], chroma[kk], toward, root_out / 100.0, ring[kk])
    # (the columns side by side as rows of one float64 array, transposed into a C-ordered float32 copy: the same
    # values as np.stack(cols, axis=1).astype(np.float32), for half its overhead)
    return keep, np.ascontiguousarray(np.array(cols).T, dtype=np.float32), rl, area_in


@dataclass(frozen=True, eq=False)
class RegionNet:
    """A small classifier of regions (arm or not) on their `REGION_FEATURES`: standardised, one hidden
    tanh layer, a logistic output. Trained by scripts/train_usable.py on simulator frames."""

    mean: Any
    std: Any
    w1: Any
    b1: Any
    w2: Any
    b2: Any
    threshold: float = 0.5

    def prob(self, features: Any) -> Any:
        import numpy as np

        z = (features - self.mean) / self.std
        h = np.tanh(z @ self.w1 + self.b1)
        return 1.0 / (1.0 + np.exp(-(h @ self.w2 + self.b2)))


DEFAULT_REGION_WEIGHTS = Path(__file__).resolve().parent / "models" / "usable.npz"


def _cached_region_net(path: str | None) -> RegionNet | None:
    key = str(path or DEFAULT_REGION_WEIGHTS)
    if key not in _REGION_NETS:
        _REGION_NETS[key] = load_region_net(key)
    return _REGION_NETS[key]


_REGION_NETS: dict[str, RegionNet | None] = {}


def load_region_net(path: str | Path | None = DEFAULT_REGION_WEIGHTS) -> RegionNet | None:
    """The region classifier in `path`, or None when there is none (the hand-set rules decide then)."""
    import numpy as np

    if path is None or not Path(path).is_file():
        return None
    with np.load(path) as z:
        names = tuple(str(v) for v in z["features"])
        if names != REGION_FEATURES:
            raise ValueError(f"{path}: region features {names} differ from this code's {REGION_FEATURES}")
        return RegionNet(z["mean"], z["std"], z["w1"], z["b1"], z["w2"], z["b2"], float(z["threshold"]))

def _extent_mm(area: Any, sel: Any) -> tuple[float, float]:
    """Length and width (mm) of a region (`sel`, with each pixel's `area` in mm²): its smallest
    enclosing rectangle."""
    import cv2
    import numpy as np

    ys, xs = np.nonzero(sel)
    (_cx, _cy), (w, h), _a = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    scale = float(np.sqrt(np.mean(area[ys, xs])))     # mm per pixel here
    return max(w, h) * scale, min(w, h) * scale


def _ends_sharply(config: UsableConfig, model: UsableModel, veiled: Any, veil: Any, off_colour: Any) -> Any:
    """Of the parts of `veiled` (bool: off the table's colour, but brighter than it by about the same amount in every
    channel), those that end sharply: the veil (`veil`, grey levels above the table) on the table (not `off_colour`) in
    a band 2 px outside the part (its median) is below `glare_fade` of the veil inside it (its mean). On a grey table a white sleeve is brighter by the same amount in every
    channel as a glare would be (the colour cannot tell them), but a glare or a lamp's pool fades out into the table
    around it, while a sleeve, a paper or a white card ends at its outline, the table beside it as dark as elsewhere.
    Only parts as long as a sleeve that fill their rectangle and are no larger than an arm are tried
    (`glare_thing_len_mm`, `glare_thing_fill`, `glare_thing_max_mm2`);
    parts under `region_min_mm2` are left as they are (they are judged no region anyway). A bool mask."""
    import cv2
    import numpy as np

    part = veiled.view(np.uint8)     # (bool viewed as 0/1 bytes)
    n, labels, stats = _components(part, np.flatnonzero(veiled))
    out = np.zeros(veiled.shape, bool)
    if n <= 1:
        return out
    # (no part is longer than its box's diagonal: those too short for a sleeve's stub are left before any crop.) A
    # part's size is at most its pixel count times the largest pixel's area, so its box's diagonal at most
    # hypot(w, h) * sqrt(that area): parts failing these bounds (most: markers, cards, specks) fail the exact tests below
    # too, and are never summed (a bincount over every veiled pixel cost ~0.15 ms; the bounds carry a 1e-6 margin
    # against the sums' rounding)
    count = stats[:, 4]
    box_diag = np.hypot(stats[:, 2], stats[:, 3])
    if model.area_rows_max is not None:
        # (the largest pixel in the box's rows and the largest in its columns: both bound its box's largest)
        amax = np.minimum(_run_max(model.area_rows_max, stats[:, 1], stats[:, 3]),
                          _run_max(model.area_cols_max, stats[:, 0], stats[:, 2])) * (1.0 + 1e-6)
    else:
        amax = float(model.area_max) * (1.0 + 1e-6)
    maybe = (count * amax >= config.region_min_mm2) & (box_diag * np.sqrt(amax) >= config.glare_thing_border_len_mm)
    maybe[0] = False
    sh, sw = veiled.shape
    k3, k5 = _K3, _K5
    # (Python numbers for the per-part tests: numpy scalars cost ~1 µs an operation; the same IEEE values — hypot is
    # numpy's in both)
    st = stats.tolist()
    diags = box_diag.tolist()
    rect_diags = np.hypot(stats[:, 2] - 1, stats[:, 3] - 1).tolist()
    for k in np.flatnonzero(maybe).tolist():
        x, y, w, h, cnt = st[k]
        # (the same bounds with the largest pixel in the part's own box: one small max)
        amax_k = float(model.area[y:y + h, x:x + w].max()) * (1.0 + 1e-6)
        if cnt * amax_k < config.region_min_mm2 or diags[k] * math.sqrt(amax_k) < config.glare_thing_border_len_mm:
            continue
        # (a part whose box stays off the picture's 2 px border has no pixel on it)
        near_border = x <= 1 or y <= 1 or x + w >= sw - 1 or y + h >= sh - 1
        # (the rectangle's bound below, with the largest pixel for its mean pixel, before the part is summed: its
        # scale is at most sqrt(amax_k); near the border either shortest length may apply, so the smaller)
        shortest_min = min(config.glare_thing_border_len_mm, config.glare_thing_len_mm) if near_border \
            else config.glare_thing_len_mm
        if (rect_diags[k] + 1.0) * math.sqrt(amax_k) * (1.0 + 1e-5) < shortest_min:
            continue
        # (each part in its own box, 2 px wider: most parts are markers and cards, and a few whole-picture passes
        # cost more than these crops)
        x0, y0, x1, y1 = max(x - 2, 0), max(y - 2, 0), min(x + w + 2, sw), min(y + h + 2, sh)
        sel = labels[y0:y1, x0:x1] == k
        # its size in mm², summed in the pixels' row order as a bincount over the whole picture sums it (the same value)
        size_k = float(np.bincount(np.zeros(cnt, np.intp), weights=model.area[y0:y1, x0:x1][sel], minlength=1)[0])
        diag = diags[k] * math.sqrt(size_k / max(cnt, 1))
        if not (config.region_min_mm2 <= size_k <= config.glare_thing_max_mm2
                and diag >= config.glare_thing_border_len_mm):
            continue
        scale = math.sqrt(size_k / cnt)     # mm per pixel here
        # (a sleeve's stub where the arm comes into the picture may be shorter than a sleeve; longer than a card)
        at_border = near_border and bool(model.frame_border[y0:y1, x0:x1][sel].any())
        shortest = config.glare_thing_border_len_mm if at_border else config.glare_thing_len_mm
        # (a rectangle's sides are projections of the part, no longer than its diameter, at most its box's pixel
        # diagonal: a part too short by that bound skips the rectangle; 1e-5 margin for the rectangle's float32)
        if (rect_diags[k] + 1.0) * scale * (1.0 + 1e-5) < shortest:
            continue
        # (the smallest rectangle of the part's outer outline: its hull is the hull of all its pixels, which
        # minAreaRect takes first; the outline has far fewer points)
        m = sel.view(np.uint8)
        outline, _h = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        (_cx, _cy), (rw, rh), _a = cv2.minAreaRect(np.concatenate(outline).reshape(-1, 2).astype(np.float32))
        fill = cnt / max((rw + 1.0) * (rh + 1.0), 1.0)
        length = (max(rw, rh) + 1.0) * scale
        if length < shortest or fill < config.glare_thing_fill:
            continue
        # the band 2 px out (1 px out is half the part's own pixels after the 3x3 blur the colour test uses), where it
        # is table (a lamp's hot spot cut off by the table's edge ends sharply against the floor); its median (a sleeve
        # may pass beside a hot spot, which brightens part of its band)
        band = (cv2.dilate(m, k5) > 0) & (cv2.dilate(m, k3) == 0) & ~off_colour[y0:y1, x0:x1]
        if not band.any():
            continue
        v = np.maximum(veil[y0:y1, x0:x1], 0.0)
        inside = float(v[sel].mean())
        around = float(medians(v[band]))     # (numpy's median without its overhead: the same value)
        thing = around < config.glare_fade * inside
        if _DEBUG is not None:
            _DEBUG.append(dict(veil_part=int(k), box=(x, y, w, h), mm2=size_k, inside=inside, around=around,
                               length=length, fill=fill, thing=thing))
        if thing:
            out[y0:y1, x0:x1] |= sel
    return out


def _pixel_rows_cols(sh: int, sw: int) -> tuple[Any, Any]:
    """Each flat pixel index's row and column in an sh x sw picture (int32, read-only; kept per size)."""
    import numpy as np

    key = (sh, sw)
    if key not in _ROWS_COLS:
        rows, cols = (a.ravel().astype(np.int32) for a in np.indices((sh, sw)))
        rows.flags.writeable = cols.flags.writeable = False
        _ROWS_COLS[key] = (rows, cols)
    return _ROWS_COLS[key]


def _components(mask: Any, idx: Any = None) -> tuple[int, Any, Any]:
    """(n, labels, stats) exactly as `cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, CV_32S, CCL_BBDT)`
    returns them (every row of the stats, the background's too; the centroids are not made). `mask`: uint8 holding
    0 and 1; `idx`: its nonzero flat indices, when the caller has them. OpenCV's statistics pass visits every
    pixel (~0.07 ms here, more than the labelling without it); a few percent of the small picture are foreground,
    so the boxes and areas are taken from those pixels alone: the same integers. A mask mostly foreground takes
    OpenCV's own pass (`_COMPONENTS_NP_SHARE`: no cheaper then)."""
    return _components_sorted(mask, idx)[:3]


def _components_sorted(mask: Any, idx: Any = None, shared: dict | None = None) -> tuple[int, Any, Any, Any]:
    """`_components`, and the stable sort by label of `idx` it made (None when OpenCV's pass was taken). `shared`: a
    dict to leave the labels at `idx` and each label's pixel count in (`rl`, `count`: `_region_features` takes them)
    when this pass made them."""
    import cv2
    import numpy as np

    sh, sw = mask.shape
    if idx is None:
        idx = np.flatnonzero(mask.view(bool))     # (0/1 bytes viewed as bool: ~5x faster than of uint8)
    N = len(idx)
    if N == 0 or N == sh * sw or N > _COMPONENTS_NP_SHARE * sh * sw:
        n, labels, stats, _c = cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
        return n, labels, stats, None
    # (the same algorithm without the statistics: the same labels)
    n, labels = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)
    rl = labels.ravel()[idx]
    # each label's pixels in flat order, one run per label (every label 1..n-1 has pixels); a stable radix sort
    order = np.argsort(rl.astype(np.uint16) if n <= 65536 else rl, kind="stable")
    rows, cols = _pixel_rows_cols(sh, sw)
    sidx = idx[order]
    ys, xs = rows[sidx], cols[sidx]     # (gathered from tables: numpy's divmod costs ~4x)
    count = np.bincount(rl, minlength=n)
    if shared is not None:
        shared.update(rl=rl, count=count)
    ends = np.cumsum(count[1:])
    starts = ends - count[1:]
    stats = np.empty((n, 5), np.int32)
    # (in flat order a run's first pixel lies on its top row and its last on its bottom row)
    top = ys[starts]
    left = np.minimum.reduceat(xs, starts)
    stats[1:, 0] = left
    stats[1:, 1] = top
    stats[1:, 2] = np.maximum.reduceat(xs, starts) - left + 1
    stats[1:, 3] = ys[ends - 1] - top + 1
    stats[1:, 4] = count[1:]
    # the background (label 0: every 0 pixel). A row wholly foreground is one part as wide as the picture, a column
    # one as tall: without such a part every row and column holds background
    if int(stats[1:, 2].max()) < sw and int(stats[1:, 3].max()) < sh:
        stats[0] = (0, 0, sw, sh, sh * sw - N)
    else:
        row_bg = np.flatnonzero(np.bincount(ys, minlength=sh) < sw)
        col_bg = np.flatnonzero(np.bincount(xs, minlength=sw) < sh)
        x0, y0 = int(col_bg[0]), int(row_bg[0])
        stats[0] = (x0, y0, int(col_bg[-1]) - x0 + 1, int(row_bg[-1]) - y0 + 1, sh * sw - N)
    return n, labels, stats, order


def _veiled(config: UsableConfig, small: Any, expected: Any, small_planes: Any = None) -> Any:
    """`_veil`'s mask alone."""
    return _veil(config, small, expected, small_planes)[1]


def _veil(config: UsableConfig, small: Any, expected: Any, small_planes: Any = None) -> tuple[Any, Any]:
    """Pixels of `small` (BGR uint8) brighter than `expected` (one BGR colour, or a BGR float image of
    the same size) by about the same amount in every channel: a glare's veil over the table or board,
    not something lying on it."""
    import cv2
    import numpy as np

    # `expected`: also a list of three float32 planes
    planes = expected if isinstance(expected, list) else None
    if planes is None and getattr(expected, "ndim", 1) == 3:
        planes = cv2.split(expected)
    # per channel by OpenCV (numpy's reductions over a last axis of 3 are slow)
    # (`small_planes`: `small`'s channel planes, when the caller has split it already)
    if small_planes is None:
        small_planes = cv2.split(small)
    if planes is None:
        c0, c1, c2 = (cv2.subtract(c, float(e), dtype=cv2.CV_32F) for c, e in zip(small_planes, expected))
    else:
        c0, c1, c2 = (cv2.subtract(c, e, dtype=cv2.CV_32F) for c, e in zip(small_planes, planes))
    veil = cv2.min(cv2.min(c0, c1), c2)
    spread = cv2.max(cv2.max(c0, c1), c2)
    cv2.subtract(spread, veil, dst=spread)
    # (float32 throughout, as `glare_tint * veil + glare_tol` computes it; in place)
    limit = veil * np.float32(config.glare_tint)
    limit += np.float32(config.glare_tol)
    out = spread < limit
    out &= veil > 0
    return veil, out


class _PlaneRows:
    """Rows of a picture's pixels (uint8, n x 3) gathered from its three channel planes: `rows[idx]` is what
    `picture.reshape(-1, 3)[idx]` gives (the same values, C order), without merging the planes back into one."""

    __slots__ = ("flat",)

    def __init__(self, planes: Any) -> None:
        self.flat = [p.reshape(-1) for p in planes]

    def __getitem__(self, idx: Any) -> Any:
        import numpy as np

        return np.stack([f[idx] for f in self.flat], axis=1)


def _ring_on_table(config: UsableConfig, model: UsableModel, log_lut: Any, bflat: Any, table: Any) -> tuple[Any, Any]:
    """The table's samples and colour (log BGR): the ring's, unless the ring is not the table. The table
    beside the board is (the board lies on it; cards beside it are a minority): when less than
    `ring_agree_min` of those pixels lie near the ring's colour, the ring lies on something else (the floor
    beyond a table smaller than the seat areas), and the table's colour is the near pixels' own (their part
    within the same limits of their median), its samples those near pixels and the ring pixels that agree."""
    import numpy as np

    near = log_lut[bflat[model.near_idx]]

    def agree(samples: Any, colour: Any) -> Any:
        d = samples - colour
        lum = d.mean(axis=1)
        chroma2 = (d * d).sum(axis=1) - 3 * lum * lum
        return (chroma2 < config.agree_chroma ** 2) & (np.abs(lum) < config.agree_lum)

    if float(agree(near, table).mean()) >= config.ring_agree_min:
        return model.ring_idx, table
    colour = medians(near)
    ok = agree(near, colour)
    if ok.sum() >= 20:
        colour = medians(near[ok])
        ok = agree(near, colour)
    ring = log_lut[bflat[model.ring_idx]]
    ring_ok = agree(ring, colour)
    idx = np.concatenate([model.ring_idx[ring_ok], model.near_idx[ok]])
    if len(idx) < 20:
        return model.ring_idx, table
    return idx, medians(log_lut[bflat[idx]])


def _lum_surface(config: UsableConfig, model: UsableModel, lum: Any, ring_idx: Any = None) -> Any:
    """The table's brightness over the picture: a quadratic in x, y fitted to the ring around the play
    area (a lamp's fall-off, vignetting), refitted without the ring pixels far off it (an arm, a glare).
    `ring_idx`: the table's samples when they are not the ring's (`_ring_on_table`)."""
    import numpy as np

    if ring_idx is None or ring_idx is model.ring_idx:
        ring_idx, basis, pinv = model.ring_idx, model.ring_basis, model.ring_pinv
    else:
        basis = model.full_basis[ring_idx].astype(np.float64)
        pinv = np.linalg.pinv(basis) if len(ring_idx) >= 20 else None
    if len(ring_idx) < 20 or pinv is None:
        return np.zeros_like(lum)
    y = lum.ravel()[ring_idx].astype(np.float64)
    coef = pinv @ y
    keep = np.abs(y - basis @ coef) < config.surface_outlier
    if keep.sum() >= 20:
        # least squares by its normal equations (6 x 6; the basis is 1, u, v and their products on [-1, 1],
        # well conditioned): lstsq's SVD costs ten times as much here
        b = basis[keep]
        try:
            coef = np.linalg.solve(b.T @ b, b.T @ y[keep])
        except np.linalg.LinAlgError:
            coef = np.linalg.lstsq(b, y[keep], rcond=None)[0]
    return _quadratic(model, coef, lum.shape)


def _robust_surface(config: UsableConfig, model: UsableModel, lum: Any, ring_idx: Any) -> Any:
    """The table's brightness fall-off (as `_lum_surface`) fitted to the majority of the table's samples only
    (`extent_robust`): none of a minority far off the majority's brightness (the floor beyond a small table's
    edge) bends it. None when too few samples are kept."""
    import numpy as np

    if ring_idx is model.ring_idx:
        basis = model.ring_basis
    else:
        basis = model.full_basis[ring_idx].astype(np.float64)
    y = lum.ravel()[ring_idx].astype(np.float64)
    resid = y - medians(y)     # first around the samples' median: the table is the ring's majority
    keep = None
    coef = None
    for _ in range(1 + max(0, config.extent_refits)):
        a = np.abs(resid if keep is None else resid[keep])
        # the robust deviation: the median absolute deviation scaled to a normal distribution's sigma
        dev = max(1.4826 * float(medians(a)), config.extent_dev_min)
        keep = np.abs(resid) < config.extent_mad * dev
        if keep.sum() < 20:
            return None
        b = basis[keep]
        try:
            coef = np.linalg.solve(b.T @ b, b.T @ y[keep])
        except np.linalg.LinAlgError:
            coef = np.linalg.lstsq(b, y[keep], rcond=None)[0]
        resid = y - basis @ coef
    return _quadratic(model, coef, lum.shape)


def _quadratic(model: UsableModel, coef: Any, shape: tuple[int, int]) -> Any:
    """The fall-off 1, u, v, u², uv, v² with `coef` at every pixel of the small image, by rows and columns (1, u,
    u² per column; 1, v, v² per row) rather than as (pixels x 6) @ 6: a third of the time, the same values to
    float32 rounding."""
    import numpy as np

    c = np.asarray(coef).astype(np.float32)
    h, w = shape
    u = model.full_basis[:w, 1]
    v = model.full_basis[::w, 2][:h]
    rows = c[0] + c[2] * v + c[5] * (v * v)
    cols = c[1] * u + c[3] * (u * u)
    # ((rows + cols) + c4 v u, the same float32 operations in place)
    out = np.add.outer(rows, cols)
    out += np.multiply.outer(c[4] * v, u)
    return out


def _lum_chroma(logs: Any, ref: Any) -> tuple[Any, Any]:
    """Brightness and squared colour difference (log space) of an image to a reference colour or image:
    lum = mean of the channel differences d, chroma² = |d - lum|² = |d|² - 3 lum²."""
    import cv2
    import numpy as np

    d = logs - ref
    ones = np.ones((1, 3), np.float32)
    total = cv2.transform(d, ones)            # d0 + d1 + d2, one channel
    sq = cv2.transform(d * d, ones)
    lum = total * np.float32(1.0 / 3.0)
    return lum, sq - total * lum


def _lum_chroma_lut(image: Any, diff_lut: Any, planes: Any = None) -> tuple[Any, Any]:
    """`_lum_chroma` of a uint8 BGR image whose per-channel difference to the reference is a table lookup
    (`diff_lut`, 256 x 3 float32): the differences and their squares come straight from two lookups. `planes`: the
    image's three channel planes instead of the image, when the caller has them."""
    import cv2
    import numpy as np

    d_lut = np.ascontiguousarray(diff_lut, np.float32)
    # per channel plane (OpenCV's lookup of a 3-channel image in a 3-channel float table costs ~3x three 1-channel
    # lookups), summed in float32 as (d0 + d1) + d2: what cv2.transform with a row of ones computes, exactly
    if planes is None:
        planes = cv2.split(image)
    # (the squares multiplied, float32, as a table of squares would hold them: the same values; a float lookup costs
    # ~2x a multiply here)
    return _lum_chroma_of([cv2.LUT(p, np.ascontiguousarray(d_lut[:, c])) for c, p in enumerate(planes)])


def _lum_chroma_of(d: Any) -> tuple[Any, Any]:
    """`_lum_chroma` of the channel differences `d` (three float32 planes, consumed): summed as (d0 + d1) + d2, as
    cv2.transform with a row of ones sums them, the squares the same way; lum = total / 3, chroma² = sq - total lum."""
    import cv2
    import numpy as np

    q = [cv2.multiply(dc, dc) for dc in d]
    # (into the first plane's buffers: each sum is taken element by element, so in place changes nothing)
    total = cv2.add(cv2.add(d[0], d[1], dst=d[0]), d[2], dst=d[0])
    sq = cv2.add(cv2.add(q[0], q[1], dst=q[0]), q[2], dst=q[0])
    lum = total * np.float32(1.0 / 3.0)
    cv2.multiply(total, lum, dst=total)
    cv2.subtract(sq, total, dst=sq)
    return lum, sq


def percentiles(values: Any, qs: Iterable[float]) -> Any:
    """numpy's `percentile(values, qs, axis=0)` (linear interpolation) by one sort, without its overhead
    (~0.1 ms a call, as much as the sort itself on the few hundred samples used here)."""
    import numpy as np

    a = np.sort(values, axis=0)
    n = a.shape[0]
    out = []
    for q in qs:
        pos = q / 100.0 * (n - 1)
        i = int(np.floor(pos))
        t = np.float64(pos - i)
        lo_v = a[i]
        hi_v = a[min(i + 1, n - 1)]
        # numpy's _lerp: the difference in the samples' type, the interpolation in float64, from the nearer
        # end (t = 0 and t = 1 give the samples exactly)
        diff = hi_v - lo_v
        out.append(lo_v + diff * t if t < 0.5 else hi_v - diff * (1 - t))
    return np.asarray(out)


def medians(values: Any) -> Any:
    """numpy's `median(values, axis=0)` by one sort (the mean of the two middle samples, in their type,
    when their count is even)."""
    import numpy as np

    a = np.sort(values, axis=0)
    n = a.shape[0]
    k = n // 2
    return a[k] if n % 2 else (a[k - 1] + a[k]) / 2


def _log_image(small: Any, offset: float) -> Any:
    import cv2

    return cv2.LUT(small, _log_lut(offset).reshape(1, 256))   # one table for all three channels


def _root_seat(config: UsableConfig, model: UsableModel, sel: Any, edge_zone: Any) -> str | None:
    """The seat whose table edge the arm (`sel`, flat bool) crosses: its root is where it comes into the
    picture (its pixels on the picture's border or the table's edge; else its `root_share` farthest from
    the middle), in board mm, and the seat is the one whose direction from the middle is nearest the
    root's. (Following the arm's long axis on beyond the root toward the shoulder was tried: a raised
    arm's axis seen from above is bent by its height, and it named fewer seats right.)"""
    import numpy as np

    if model.seat_dirs is None or not len(model.seat_dirs):
        return None
    idx = np.flatnonzero(sel)
    if not len(idx):
        return None
    mm = model.mm.reshape(-1, 2)[idx].astype(np.float64)
    w = model.area_flat[idx] + 1e-9
    mid = np.asarray(model.mid_mm, np.float64)
    at_edge = edge_zone.ravel()[idx] > 0
    if at_edge.any():
        root = np.average(mm[at_edge], axis=0, weights=w[at_edge])
    else:
        d = np.hypot(mm[:, 0] - mid[0], mm[:, 1] - mid[1])
        far = d >= np.quantile(d, 1.0 - config.root_share)
        root = np.average(mm[far], axis=0, weights=w[far])
    to = root - mid
    score = model.seat_dirs @ (to / (np.hypot(*to) + 1e-9))
    return model.seats[int(np.argmax(score))]


def _arm_seats(config: UsableConfig, model: UsableModel, labels: Any, arms: list[int], weight: Any,
               rooted: Any, edge_zone: Any = None) -> list[str | None]:
    """One seat per arm: the seat area its pixels lie nearest to, the root (far from the middle) weighing
    most. Arms are taken by `weight` (how much of each lies over the play area: the hand is there), those
    `rooted` (coming in from the picture's or the table's edge) first; one with less than
    `second_arm_share` of the first's weight, or not rooted beside a rooted one (a piece of the same arm
    cut off by a card, a pool of light beside the table), names no second seat."""
    import numpy as np

    ns = len(model.seats)
    lab = labels.ravel()
    seat_lab = model.seat_label.ravel()
    found: list[tuple[float, str | None]] = []
    for k in arms:
        if config.seat_from_root and edge_zone is not None and ns:
            found.append((bool(rooted[k]), float(weight[k]), _root_seat(config, model, lab == k, edge_zone)))
            continue
        sel = (lab == k) & (seat_lab >= 0)
        if not sel.any() or not ns:
            found.append((bool(rooted[k]), float(weight[k]), None))
            continue
        votes = np.bincount(seat_lab[sel], weights=model.vote_weight.ravel()[sel], minlength=ns)
        found.append((bool(rooted[k]), float(weight[k]), model.seats[int(np.argmax(votes))] if votes.max() > 0 else None))
    found.sort(key=lambda f: (not f[0], -f[1]))
    first_rooted, strongest = found[0][0], found[0][1]
    out: list[str | None] = []
    for is_rooted, v, seat in found:
        if out and (v < config.second_arm_share * strongest or (first_rooted and not is_rooted)):
            continue
        if seat not in out:
            out.append(seat)
    return out


def _moving(config: UsableConfig, model: UsableModel, small: Any, previous: Any, arm_mask: Any) -> bool:
    """Is the arm moving? Only told with the previous frame of a stream: a palm's worth of its region
    changed since.
    (One frame alone: the arm's motion blur was tried against the rest of the frame's edge sharpness at
    320×180 and did not tell a moving arm from a still one; every hand is then `occluded`.)"""
    import cv2
    import numpy as np

    if previous is None or previous.shape != small.shape:
        return False
    lut = _log_lut(config.offset).reshape(1, 256)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    pg = cv2.cvtColor(previous, cv2.COLOR_BGR2GRAY)
    diff = cv2.absdiff(cv2.LUT(grey, lut), cv2.LUT(pg, lut))
    changed = float(model.area[arm_mask & (diff > config.change_lum)].sum())
    return changed >= config.change_area_mm2


def overlay(config: UsableConfig, model: UsableModel | None, small: Any, verdict: UsableVerdict) -> Any:
    """The small frame (x2) with the play area (yellow), the table ring (grey) and the arm (red)."""
    import cv2
    import numpy as np

    out = small.copy()
    if model is not None:
        edge = cv2.morphologyEx(model.play.astype(np.uint8), cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
        out[edge] = (0, 255, 255)
    if verdict.arm_mask is not None:
        out[verdict.arm_mask] = (0.5 * out[verdict.arm_mask] + (0, 0, 128)).astype(np.uint8)
    out = cv2.resize(out, (2 * small.shape[1], 2 * small.shape[0]), interpolation=cv2.INTER_NEAREST)
    cv2.putText(out, f"{verdict.reason or 'usable'} {verdict.hands or ''}", (8, 24), cv2.FONT_HERSHEY_SIMPLEX,
                0.7, (0, 0, 255), 2)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the usable-frame decision alone on one frame."""
    import time

    import cv2

    from .components import load_components
    from .stagecli import load_stage_inputs, stage_parser

    parser = stage_parser("vision.usable", main.__doc__)
    parser.add_argument("--previous", help="the previous frame of a stream (tells a moving arm)")
    args = parser.parse_args(argv)
    inputs = load_stage_inputs(args)
    if inputs is None:
        return 2
    image, cal, board, reg = inputs
    model = build_usable_model(DEFAULT_CONFIG, cal, reg, board, load_components(args.components)) if reg.ok else None
    small = small_image(DEFAULT_CONFIG, image)
    prev = None
    if args.previous:
        from .stagecli import read_image

        prev = small_image(DEFAULT_CONFIG, read_image(args.previous))
    t0 = time.perf_counter()
    verdict = judge_small(DEFAULT_CONFIG, model, small, prev)
    ms = (time.perf_counter() - t0) * 1000
    if not reg.ok and verdict.usable:
        verdict = UsableVerdict(False, "no-board")
    print(f"usable={verdict.usable} reason={verdict.reason} hands={verdict.hands} "
          f"anomaly={verdict.anomaly_mm2:.0f}mm² gain={verdict.gain} ({ms:.2f} ms)")
    if args.overlay:
        cv2.imwrite(args.overlay, overlay(DEFAULT_CONFIG, model, small, verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
