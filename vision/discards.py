"""Discard piles: the top card of each colour's pile (card game: and of the points pile), wherever the
players put them on the table — outside the seat areas and the board, nowhere assumed.

    table view (the table around board and seats at `ppm` ≈ 3 mm a pixel; its fixed-point maps and
    mask built once per registration) ─ each pixel's card field kind (vision.cards' colours over the
    card stock; the colour table cached per stock colour) ─ one component pass over the pile kinds,
    pixels at a change of kind left out (piles side by side stay apart) ─ a blob larger than a card (a
    table of a pile's colour) cut at its strong colour steps, what the table's rest leaves kept ─ blobs
    the size of a card's field up to the whole card (~52×83 to 56×87 mm, any turn) and as slender ─ each: its field seen again at 1 px/mm (a card cut upright by a
    homography fitted to the registration around it) places the card exactly, or shows no card (a
    field that runs on past the card is table) ─ the card cut at `card_ppm`, the way up whose corners
    hold the ink ─ its value from both corners (vision.cards.read_corners, vision.numerals). Of two
    blobs of one colour the one most like a whole field is the pile.

Piles the colours miss are then looked for by their outlines (the stock's border), by a frame of border
lines (card game), and last by their centre picture alone (a field a veil washed out: _pictured_piles).

The draw pile (backs) and the card game's wish cards are not discard piles and are left out. A
colour with no such card on the table is an empty (or absent) pile: null.

    python -m vision.discards FRAME.jpg --overlay out.png
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from engine.cards import COLOURS

from .cardart import FIELD_KINDS, CardArt, _whiteness
from .cards import CardConfig, _greater, _pieces, colour_index, field_labels, read_corners


@dataclass(frozen=True)
class DiscardConfig:
    ppm: float = 0.33                # table view pixels per mm (a card's field is ~17×27 px; piles side by side stay apart)
    around_mm: float = 420.0         # how far beyond board and seats the table is searched
    seat_margin_mm: float = 8.0      # seat rectangles grown by this before they are masked
    field_size_mm: tuple[float, float] = (51.6, 82.6)
    size_tolerance: float = 0.25     # a blob's sides within this fraction of a card field's (below) or the whole card's (above:
                                     # a border near the stock's colour may take the field's label)
    min_area: float = 0.4            # a blob covers at least this much of a field (its symbol, numerals and glare do not count)
    min_fill: float = 0.4            # and of its own turned rectangle
    card_ppm: float = 2.5            # the card cut upright from the frame
    refine_ppm: float = 1.0          # each card's field seen again at this many px/mm to place it exactly
    refine_margin_mm: float = 8.0    # around the card as first placed
    cream_step: float = 0.03         # the colour table is rebuilt when the stock's colour moves this much (log)
    aspect_slack: float = 0.1        # a blob's short side over its long one at most the card's (art) plus this (a cup, a
                                     # coin: ~1)
    edge_over_median: float = 4.0    # a blob larger than a card (a table of the pile's colour) is cut where its colour's
    edge_floor: float = 12.0         # ... step (3×3, any channel) is this many times its median step, and at least this
    edge_close_px: int = 3           # ... those edges' gaps up to this many px closed (0: off)
    # glare: a veil of the lamp's light adds the same to every channel of a colour divided by the stock's, which
    # leaves its linear chroma (the colour less its mean) as it was; colours the log-hue test loses are named by it
    glare_hue_max_rad: float = 0.3   # that chroma's direction within this angle of a field kind's
    glare_chroma_ratio: tuple[float, float] = (0.45, 1.6)   # its size this part of the kind's (shade to bright light)
    glare_min_veil: float = 0.08     # and the colour at least this much brighter than the field would be (a veil)
    glare_first: bool = True         # the linear chroma names a colour even where the log hue names another
    # piles the colours miss (glare washing a field out, a pile against a pile): found by their outlines too — the
    # stock's border round every card's field, seen in a second table view at this many px/mm (0: off)
    outline_ppm: float = 0.66
    outline_fill: float = 0.7        # an outlined field fills this much of its turned rectangle
    outline_keep: float = 0.8        # and lies this much where a pile may lie
    outline_close_px: int = 3        # where piles are still missing, outlines' gaps up to this many px closed where a
                                     # field joins the table (0: off)
    outline_tries: int = 3           # of each kind this many such pieces read, the likest a whole field first, until
                                     # one shows a pile's middle (the draw pile may be the likest)
    # piles still missing: a card's border seen on some sides only (the stock as pale as the table beside it on one
    # side: the field leaks into the table, no piece closes) still draws a frame of a card's size — the border lines
    # as one thin piece; the card there is read and kept only if its middle shows its kind's picture (as any pile)
    frame_tries: int = 4             # this many such frames read, those nearest a card's outline first (0: off)
    frame_max_fill: float = 0.5      # a frame's lines cover at most this much of its turned rectangle (not a blob)
    frame_kind_min: float = 0.5      # the frame's inside (its middle ~60 %) this much of one missing kind's colour
    frame_join_px: int = 3           # the lines' gaps up to this many px joined first (a border broken at a corner)
    frame_side_min: float = 0.4      # each frame's card moved to its sides' lines seen at refine_ppm, a side taken
                                     # where its line runs along this much of the side's middle (0: not moved)
    frame_board_games: bool = False  # the pass in the board games too (dev F82561/21: a board's stones and paths made a
                                     # card-sized frame read as a green pile, its middle 0.73 like a green card's;
                                     # the misses it is for were all the card game's points piles)
    frame_table_fields: float = 4.0  # only for kinds the table itself takes (their colour over this many fields' area
                                     # of the table view): elsewhere a field stands out from the table by its colour
    frame_rect_step_deg: float = 2.0  # a frame's turned rectangle: every turn by this tried (_frame_rect) ...
    frame_rect_points: int = 400     # ... on at most this many of its lines' pixels (evenly taken) ...
    frame_rect_on_px: float = 1.5    # ... a pixel within this of the rectangle's side lies on it
    local_white_mm: float = 30.0     # and again judged against the whitest near it (within this, channel by channel)
                                     # where that is whiter than paper: a lamp's hot spot, a glare's veil (0: off)
    local_white_over: float = 0.1    # (only where that white is this much whiter than white paper in some channel)
    local_kind_margin: float = 0.05  # a piece so judged named only when no other kind fits within this (log-chroma)
    end_by_picture: bool = True      # card game: a pile top's corners are tried where the end card's dot fits
                                     # (CardConfig.end_symbol_placed) only when its middle fits the end card's centre
                                     # picture at least as well as its kind's own (the two pictures differ wholly): a
                                     # washed numeral card, whose corners fit neither numeral nor dot, was read "E"
                                     # there (session 35, wt35-eend: F84800/248 yellow 3 -> E). False: always tried
    local_min_ink: float = 0.12      # and read only when its numerals show this much ink (whiteness std in the top
                                     # glyph boxes' middles, summed: ~0.15-0.4 where piles are read, an end card ~0.06)
    ink_by_contrast: bool = True     # local_min_ink is for a kind printed with the art's usual contrast between its
                                     # field and the stock's white numerals (the median over the colours of 1 - the
                                     # field's whitest-to-darkest channel over the stock): a kind printed paler asks
                                     # for less ink by as much (ink_contrast_share; the second art set's pink shows
                                     # 0.43 against its colours' 0.80: its numerals' spread is that much smaller)
    ink_against_stock: bool = True   # that ink also measured over the stock's white, the larger kept: a local white
                                     # far brighter than the stock shrinks every whiteness and the ink's spread with
                                     # it (dev D83790: three piles of 0.13-0.17 over the stock, 0.09-0.11 over the local
                                     # white); over the stock alone a glare's colour shrank it (81960/38's red 8)
    # piles still missing whose colour a veil washed out: a card-sized part the colours name nothing (or a blob that
    # showed no pile of its colour) named by its centre picture alone (_pictured_piles)
    picture_tries: int = 6           # this many such candidates looked at, those nearest a card's area first (0: off)
    picture_tries_card_game: int = 15  # in the card game: its 9 wish-stone cards lie in the middle (RULES §3), card-
                                       # sized, the wish cards' colour or named yellow, and each may take a try (dev
                                       # game card-3p-84518: they took every try, its pink and blue piles missed)
    picture_min: float = 0.5         # a missing kind's picture fits at least this (piles read right: 0.5-0.99)
    picture_slack_mm: float = 8.0    # the picture searched this far round the candidate's middle (a piece joined to
                                     # its neighbour places it a few mm off); the card then moved to where it is
    picture_margin: float = 0.15     # and better by this than every other picture of the art (washed dev piles: their
                                     # own 0.6-0.94, the next best 0.15-0.6, most often the wish cards')
    picture_sparse_area: float = 0.5  # and outlined pieces down to this part of the least field area (the size
                                      # tolerance's) whose turned rectangle is card-sized and min_fill full: a field
                                      # whose washed or noisy pixels passed the border tests, holey but spanning its
                                      # rectangle (dev: 52x83 mm rectangles 0.49-0.55 full; 1: off)
    picture_close_shade: bool = True  # and of the wish cards' and the backs' colours (a yellow in shade is the wish
                                      # cards' olive; looked at last)
    picture_close_px: int = 3        # candidates also from each missing kind's colour labels closed over gaps up to
                                     # this many px: a field that noise or a veil speckles with unnamed pixels (or a
                                     # near kind's: a dim red's pink) makes no blob of its own, closed it is one (0: off)
    # a pile is told from the draw pile and from things of the points cards' grey by its middle (CardArt.symbols)
    symbol_slack_mm: float = 3.0     # the middle's picture searched this far round the placed card's centre
    symbol_ppm: float = 1.25         # at this many px/mm (the pictures' shapes stay; a quarter of the cut's pixels)
    back_margin: float = 0.15        # no pile where the middle is more like the backs' than its kind's by this
    points_symbol_min: float = 0.4   # and no points pile where it matches their picture (every points card has it) less
    symbol_min: float | None = 0.4   # and no pile of any kind whose middle matches its kind's picture (or its end
                                     # card's) less: a patch of wood of a pile's colour cut card-sized by its planks
                                     # scores 0.12-0.28, piles read right 0.50-0.99 on the dev frames (None: off)
    # the board games have no wish cards (RULES): their field colour is left out of the board games' colour table,
    # as the points cards' grey is, so a field near it in hue is not split between two kinds (the second art set's
    # yellow lies 5 degrees from its wish cards' orange: a yellow pile's pixels went half to the wish cards)
    board_games_without_wish: bool = True
    # a blob larger than a card (a table its colour table names a pile's kind: the second art set's paler yellow names
    # warm wood yellow) is also cut where it has the table's own colours: the commonest colours of the table view (16
    # levels a channel) that together make up this share of it, as the seats' rows do (CardConfig.table_share); the
    # card-sized parts that leaves are candidates besides the edge cut's (0: off)
    table_colours_share: float = 0.45
    # piles still missing that a glossy sheen or a hot spot washed whole (the field as white as the border, named no
    # kind, no outline inside the card): the card still stands apart from the table round it. The card-sized parts of
    # what differs from the table's median round it (_off_table_blobs; the cards found already taken out, opened by
    # this many px: specks go) are picture-pass candidates (0: off)
    picture_off_table_px: int = 3
    picture_skip_wish_cards: bool = True  # (the card game) no picture-pass candidate where the colour pass found a
                                          # wish card by its picture (of the yellow the wish cards' orange is named:
                                          # the open wish cards took every try, dev game card-3p-84518's pink 5)
    picture_off_table_mm: float = 180.0   # the table round a place: the view's median over this (three piles side by
                                          # side cover under half of it) ...
    picture_off_table_scale: float = 0.125  # ... at this part of the view's resolution (a card ~2x4 px there: the
                                            # table's light changes over far more)
    picture_off_table_over: float = 4.0   # a pixel stands apart where it differs from that by this many times the
                                          # median difference (the table's grain and noise), as the edge cut's steps
    picture_off_table_rank: float = 0.5   # tried after the colour and outline passes' candidates (0: where those
                                          # find a pile they place it by its field), before the backs' and wish
                                          # cards' colours (1) ...
    picture_off_table_named_rank: float = 1.5   # ... those mostly of a kind not missing (named) after them
    picture_off_table_lazy: bool = True   # those parts worked out only once the picture pass's other candidates
    # ranked before them are tried and a pile is still missing with tries left (the same tries: saves their cost)
    picture_off_table_fill: float = 0.8   # a part fills this much of its turned rectangle (a card; wood grain's and
                                          # shadows' patches are ragged)


@dataclass(frozen=True, eq=False)
class TableView:
    """The table outside seats and board, seen from above: the remap and what to leave out."""

    origin: tuple[float, float]      # board mm of view pixel (0, 0)'s corner
    ppm: float
    map_x: Any = field(repr=False)   # fixed-point maps (cv2.convertMaps): CV_16SC2 ...
    map_y: Any = field(repr=False)   # ... and CV_16UC1
    keep: Any = field(repr=False)    # 1 where a pile may lie
    outline: "TableView | None" = None   # the same table at DiscardConfig.outline_ppm (piles by their outlines)

    def warp(self, image: Any) -> Any:
        import cv2

        return cv2.remap(image, self.map_x, self.map_y, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


@dataclass
class PileFind:
    pile: str
    centre: tuple[float, float]      # board mm
    angle: float                     # degrees, the card's up turned from north toward east
    code: str | None
    confidence: float


def build_table_view(config: DiscardConfig, calibration: Mapping[str, Any], registration: Any,
                     board_size: tuple[float, float] | None, seats: tuple[str, ...] | None) -> TableView:
    """The table view's remap and mask (once per registration)."""
    import cv2
    import numpy as np

    pts = [(0.0, 0.0)]
    if board_size:
        pts += [(board_size[0], board_size[1])]
    for s, rect in (calibration.get("seats") or {}).items():
        pts += [(rect["x"], rect["y"]), (rect["x"] + rect["w"], rect["y"] + rect["h"])]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    a = config.around_mm if board_size else 120.0
    x0, y0 = min(xs) - a, min(ys) - a
    x1, y1 = max(xs) + a, max(ys) + a
    p = config.ppm
    w, h = int((x1 - x0) * p), int((y1 - y0) * p)
    step = 4
    gw, gh = w // step + 2, h // step + 2
    gx, gy = np.meshgrid(x0 + (np.arange(gw) * step + 0.5) / p, y0 + (np.arange(gh) * step + 0.5) / p)
    coarse = registration.board_to_image(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(gh, gw, 2).astype(np.float32)
    size = registration.image_size
    # the full maps, a band of rows at a time: their float form (and the look-up grids) never all at once
    map1 = np.empty((h, w, 2), np.int16)
    map2 = np.empty((h, w), np.uint16)
    keep = np.empty((h, w), np.uint8)
    ix = np.repeat((np.arange(w, dtype=np.float32) / step)[None, :], min(h, 64), 0)
    for r0 in range(0, h, 64):
        r1 = min(h, r0 + 64)
        iy = np.repeat((np.arange(r0, r1, dtype=np.float32) / step)[:, None], w, 1)
        full = cv2.remap(coarse, ix[:r1 - r0], iy, cv2.INTER_LINEAR)
        keep[r0:r1] = (full[..., 0] >= 0) & (full[..., 1] >= 0) & (full[..., 0] < size[0] - 1) & \
            (full[..., 1] < size[1] - 1)
        # fixed-point maps: a quarter less memory and a faster remap every frame
        map1[r0:r1], map2[r0:r1] = cv2.convertMaps(full[..., 0], full[..., 1], cv2.CV_16SC2)
    m = config.seat_margin_mm
    for s, rect in (calibration.get("seats") or {}).items():
        if seats is not None and s not in seats:
            continue
        r0 = (int((rect["x"] - m - x0) * p), int((rect["y"] - m - y0) * p))
        r1 = (int((rect["x"] + rect["w"] + m - x0) * p), int((rect["y"] + rect["h"] + m - y0) * p))
        cv2.rectangle(keep, r0, r1, 0, -1)
    if board_size:
        cv2.rectangle(keep, (int((-5 - x0) * p), int((-5 - y0) * p)),
                      (int((board_size[0] + 5 - x0) * p), int((board_size[1] + 5 - y0) * p)), 0, -1)
    outline = None
    if config.outline_ppm > 0 and config.outline_ppm != config.ppm:
        import dataclasses

        outline = build_table_view(dataclasses.replace(config, ppm=config.outline_ppm, outline_ppm=0.0),
                                   calibration, registration, board_size, seats)
    return TableView((x0, y0), p, map1, map2, keep, outline)


def upright_card(image: Any, registration: Any, centre: tuple[float, float], angle: float, size: tuple[float, float],
                 ppm: float, pad: float) -> Any:
    """The card at `centre` turned by `angle` cut from the frame upright: x 0..w mm, y -pad..h+pad mm.

    Over one card the registration (lens included) is as good as a homography: one is fitted to a
    5×5 grid of its points and the card warped with it."""
    import cv2
    import numpy as np

    w, h = size
    cols, rows = int(round(w * ppm)), int(round((h + 2 * pad) * ppm))
    gu, gv = np.meshgrid(np.linspace(0, cols, 5), np.linspace(0, rows, 5))
    u = gu / ppm - w / 2
    v = gv / ppm - pad - h / 2
    a = math.radians(angle)
    # the card's "up" is north turned toward east by `angle`: its x axis is east turned the same
    x = centre[0] + u * math.cos(a) - v * math.sin(a)
    y = centre[1] + u * math.sin(a) + v * math.cos(a)
    px = registration.board_to_image(np.stack([x.ravel(), y.ravel()], 1)).astype(np.float32)
    hom, _ = cv2.findHomography(np.stack([gu.ravel(), gv.ravel()], 1).astype(np.float32), px, 0)
    return cv2.warpPerspective(image, hom, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


@lru_cache(maxsize=8)
def _field_table(config: DiscardConfig, card_config: CardConfig, cream_key: tuple[int, int, int], step: float,
                 art: CardArt) -> Any:
    """vision.cards.field_labels' colour table (32³ colours → field kind) for a stock colour, kept while
    the light stays (the stock's colour rounded to `step` in log)."""
    import numpy as np

    cream = np.exp(np.asarray(cream_key, np.float32) * step)
    q = np.arange(32, dtype=np.uint8) * 8 + 4
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    every = np.stack([b.ravel(), g.ravel(), r.ravel()], 1).reshape(32, 1024, 3)
    labels = field_labels(card_config, every, cream, art).ravel()
    return _glare_labels(config, every.reshape(-1, 3), cream, art, labels)


def _glare_labels(config: DiscardConfig, colours: Any, cream: Any, art: CardArt, labels: Any) -> Any:
    """`labels` with the colours the log-hue test left unnamed named by their linear chroma where it fits a
    coloured field under a veil of the lamp's light (see DiscardConfig.glare_*)."""
    import numpy as np

    if config.glare_hue_max_rad <= 0:
        return labels
    lin = colours.astype(np.float32) / np.asarray(cream, np.float32)
    mean = lin.mean(axis=1)
    chroma = lin - mean[:, None]
    size = np.linalg.norm(chroma, axis=1)
    best = np.full(len(lin), np.inf, np.float32)
    out = labels.copy()
    lo, hi = config.glare_chroma_ratio
    for k, kind in enumerate(FIELD_KINDS):
        ref = art.fields.get(kind)
        if ref is None or kind in ("back", "points"):
            continue
        cf = ref - ref.mean()
        sf = float(np.linalg.norm(cf))
        if sf < 0.15:
            continue
        cos = (chroma @ cf) / (size * sf + 1e-6)
        ang = np.arccos(np.clip(cos, -1, 1))
        ratio = size / sf
        veil = mean - ratio * float(ref.mean())
        free = np.ones(len(lin), bool) if config.glare_first else labels < 0
        ok = free & (ang < config.glare_hue_max_rad) & (ratio > lo) & (ratio < hi) & \
            (veil > config.glare_min_veil)
        better = ok & (ang < best)
        best[better] = ang[better]
        out[better] = k
    return out


def _lut(config: DiscardConfig, card_config: CardConfig, cream: Any, art: CardArt) -> Any:
    import numpy as np

    key = tuple(int(round(float(np.log(max(float(c), 1.0))) / config.cream_step)) for c in cream)
    return _field_table(config, card_config, key, config.cream_step, art)


def table_labels(config: DiscardConfig, card_config: CardConfig, view: Any, cream: Any, art: CardArt) -> Any:
    """Per pixel (of the table view, or any BGR image) the index in FIELD_KINDS of its field colour, or -1."""
    import numpy as np

    lut = _lut(config, card_config, cream, art)
    return np.take(lut, colour_index(view, 3))


def _card_sized(config: DiscardConfig, card_size: tuple[float, float], short_mm: float, long_mm: float) -> bool:
    """A field's sides, or up to the whole card's (its border may take the field's colour), within tolerance,
    and as slender as a card."""
    fw, fh = config.field_size_mm
    tol = config.size_tolerance
    return (fw * (1 - tol) <= short_mm <= card_size[0] * (1 + tol)
            and fh * (1 - tol) <= long_mm <= card_size[1] * (1 + tol)
            and short_mm <= long_mm * (min(card_size) / max(card_size) + config.aspect_slack))


def _cut_at_edges(config: DiscardConfig, view: Any, mask: Any) -> Any:
    """`mask` without its pixels at a strong step of colour: a card on a table of its own colour still shows
    its outline (the stock's border, its shadow) against the table; steps are measured against the mask's
    own median step (the table's grain and noise) so no colour or light is assumed."""
    import cv2
    import numpy as np

    k = np.ones((3, 3), np.uint8)
    step = cv2.morphologyEx(view, cv2.MORPH_GRADIENT, k)
    if step.ndim == 3:
        b, g, r = cv2.split(step)       # (the largest a plane at a time: numpy is slow along a last axis of 3)
        step = cv2.max(cv2.max(b, g), r)
    inside = step[mask > 0]
    if inside.size == 0:
        return mask
    thr = max(config.edge_floor, config.edge_over_median * float(np.median(inside)))
    return (mask > 0) & (step < thr)


def table_colours(config: DiscardConfig, view: Any, keep: Any) -> Any:
    """Pixels of the table's own colours (bool, or None when `table_colours_share` is 0): the commonest colours of
    the table view's kept pixels (16 levels a channel) that together make up `table_colours_share` of them."""
    import numpy as np

    from .cards import _index_counts

    if config.table_colours_share <= 0:
        return None
    idx = colour_index(view, 4)
    hist = _index_counts(idx[keep > 0], 4096)
    total = int(hist.sum())
    if total == 0:
        return None
    order = np.argsort(hist)[::-1]
    n = int(np.searchsorted(np.cumsum(hist[order]), config.table_colours_share * total)) + 1
    is_table = np.zeros(4096, bool)
    is_table[order[:n]] = True
    return np.take(is_table, idx)


def _card_sized_parts(config: DiscardConfig, mask: Any, field_px: float) -> list[tuple[Any, int]]:
    """The pieces of `mask` (uint8) of a card's field's area (min_area to 1.5 fields): (bool mask, area) each."""
    import cv2

    m, pcomp, pstats = _pieces(mask, boxes=False)
    out = []
    for j in range(1, m):
        pa = int(pstats[j, cv2.CC_STAT_AREA])
        if config.min_area * field_px <= pa <= 1.5 * field_px:
            out.append((pcomp == j, pa))
    return out


def _card_blobs(config: DiscardConfig, view: Any, mask: Any, field_px: float,
                own: Any = None) -> list[tuple[Any, Any, int]]:
    """The parts of `mask` (uint8) that may be one card's field: its pieces up to 1.5 fields' area, and of the
    larger ones (a table of the mask's colour, the pile lying in it) the card-sized parts its strong colour
    steps cut off, and (with `own`: table_colours' mask, or a function giving it) those left where the table's
    own colours are taken out. (xs, ys, area) in view pixels."""
    import cv2
    import numpy as np

    n, comp, stats = _pieces(mask, config.min_area * field_px)
    blobs: list[tuple[Any, Any, int]] = []
    for i in range(1, n):
        area = int(stats[i, cv2.CC_STAT_AREA])
        if area < config.min_area * field_px:
            continue
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        sub = comp[y:y + bh, x:x + bw] == i
        if area <= 1.5 * field_px:
            ys, xs = np.nonzero(sub)
            blobs.append((xs + x, ys + y, area))
            continue
        # larger than a card: a table (cloth, wood) of a pile's colour, the pile lying in it — cut it at its
        # strong edges and look for card-sized parts
        cut = _cut_at_edges(config, view[y:y + bh, x:x + bw], sub).astype(np.uint8)
        if config.edge_close_px > 1:
            # the edges closed over gaps of a pixel or two (a corner, a border as pale as the table beside it):
            # else the field leaks into the table there and no card-sized part comes apart
            edges = cv2.morphologyEx(sub.astype(np.uint8) - cut, cv2.MORPH_CLOSE,
                                     cv2.getStructuringElement(cv2.MORPH_RECT, (config.edge_close_px,) * 2))
            cut = sub.astype(np.uint8) & (1 - edges)
        m, pcomp, pstats = _pieces(cut, boxes=False)
        # what stays of the table is what is still too large; the rest of the blob (a card's field cut up by its
        # own symbol and numerals, with its outline) lies apart from it
        table = np.isin(pcomp, [j for j in range(1, m) if pstats[j, cv2.CC_STAT_AREA] > 1.5 * field_px])
        # opened: the thin rims of the table left along other things' outlines do not join a card to them
        inner = cv2.morphologyEx((sub & ~table).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        cut_parts = np.zeros(sub.shape, bool)
        for part, pa in _card_sized_parts(config, inner, field_px):
            cut_parts |= part
            ys, xs = np.nonzero(part)
            blobs.append((xs + x, ys + y, pa))
        if callable(own):
            own = own()            # (worked out once, and only where a blob is larger than a card)
        if own is not None:
            # the table's own colours taken out (opened: its speckles of the pile's kind go), the card-sized parts
            # the edge cut did not give already (mostly outside its parts)
            rest = cv2.morphologyEx((sub & ~own[y:y + bh, x:x + bw]).astype(np.uint8), cv2.MORPH_OPEN,
                                    np.ones((3, 3), np.uint8))
            for part, pa in _card_sized_parts(config, rest, field_px):
                if np.count_nonzero(part & cut_parts) > 0.5 * pa:
                    continue
                ys, xs = np.nonzero(part)
                blobs.append((xs + x, ys + y, pa))
    return blobs


_ART_IN_PLAY: dict[tuple[int, tuple[str, ...]], tuple[CardArt, CardArt]] = {}


def art_in_play(art: CardArt, card_game: bool, without_wish: bool = False) -> CardArt:
    """The art whose field colours a pile may have: the board games have no points cards, so a pale or
    shaded field is not lost to the points cards' grey (its pixels split between two kinds); with
    `without_wish` (DiscardConfig.board_games_without_wish) nor wish cards, so a field near their colour is
    not split with it either."""
    import dataclasses

    gone = ("points", "wish") if without_wish else ("points",)
    if card_game or not any(k in art.fields for k in gone):
        return art
    key = (id(art), gone)
    hit = _ART_IN_PLAY.get(key)
    if hit is None or hit[0] is not art:
        if len(_ART_IN_PLAY) > 8:
            _ART_IN_PLAY.clear()
        hit = (art, dataclasses.replace(art, fields={k: v for k, v in art.fields.items() if k not in gone}))
        _ART_IN_PLAY[key] = hit
    return hit[1]


def read_discards(config: DiscardConfig, card_config: CardConfig, image: Any, tv: TableView, registration: Any,
                  art: CardArt, cream: Any, model: Any, card_game: bool) -> list[PileFind]:
    """Every discard pile's top card seen on the table (see the module docstring)."""
    import cv2
    import numpy as np

    art = art_in_play(art, card_game, config.board_games_without_wish)
    view = tv.warp(image)
    labels = table_labels(config, card_config, view, cream, art)
    labels[tv.keep == 0] = -1
    allowed = [FIELD_KINDS.index(k) for k in (*COLOURS, *(("points",) if card_game else ()))]
    fw, fh = config.field_size_mm
    p = tv.ppm
    # one pass over every pile kind: a pixel whose right or lower neighbour is of another pile's kind is
    # left out, so piles of different colours side by side stay apart
    # (a byte table over the labels' bytes: -1 is 255 there, never a pile kind)
    is_pile = np.zeros(256, np.uint8)
    is_pile[allowed] = 1
    pile = cv2.LUT(labels.view(np.uint8), is_pile).view(bool)
    ok = pile.copy()
    ok[:, :-1] &= ~(pile[:, 1:] & (labels[:, :-1] != labels[:, 1:]))
    ok[:-1, :] &= ~(pile[1:, :] & (labels[:-1, :] != labels[1:, :]))
    field_px = fw * fh * p * p
    own_colours: list[Any] = []

    def own() -> Any:
        # the table's own colours, worked out once a frame and only when asked
        if not own_colours:
            own_colours.append(table_colours(config, view, tv.keep))
        return own_colours[0]
    blobs = _card_blobs(config, view, ok.view(np.uint8), field_px, own)
    finds: dict[str, PileFind] = {}
    best: dict[str, float] = {}
    refused: list[tuple[float, float, float, float, float, float]] = []   # card-sized blobs that showed no pile
    wish_cards: list[tuple[float, float]] = []   # (the card game) blobs whose middle named a wish card: not piles
    outlined: list[tuple] = []          # outlined card-sized pieces of no missing pile's colour (_pictured_piles)
    for xs, ys, area in blobs:
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
        # the blob's pixels are whole pixels: their rectangle is a pixel short each way
        short, long_ = sorted((rw + 1, rh + 1))
        if not _card_sized(config, art.size, short / p, long_ / p) or area < config.min_fill * rw * rh:
            continue
        kind = FIELD_KINDS[int(labels[ys[0], xs[0]])]
        named = len(wish_cards)
        f = _read_pile(config, card_config, image, registration, art, cream, model, kind, tv, cx, cy, rw, rh, ang,
                       card_game, wish_cards if config.picture_skip_wish_cards else None)
        if f is None and len(wish_cards) > named:
            continue        # a wish card of the card game (its picture said so): no washed pile for the picture pass
        if f is None:
            refused.append((abs(1 - area / field_px), cx, cy, rw, rh, ang))
            continue
        # of two blobs of one colour the pile is the one most like a whole field (a thing of its colour,
        # a row card astray or a patch of table shows less of one)
        whole = area / (fw * fh * p * p)
        if kind not in finds or whole > best[kind]:
            finds[kind], best[kind] = f, whole
    if tv.outline is not None and len(finds) < len(allowed):
        # the kinds whose colour the table itself has (the frame pass looks for those piles only; counted only
        # where that pass may run)
        table_kinds: set[str] = set()
        if config.frame_tries > 0 and (card_game or config.frame_board_games):
            counts = np.bincount(labels.view(np.uint8).ravel(), minlength=256)
            table_kinds = {FIELD_KINDS[i] for i in allowed if counts[i] > config.frame_table_fields * field_px}
        for f in _outlined_piles(config, card_config, image, tv.outline, registration, art, cream, model, card_game,
                                 set(finds), table_kinds, outlined):
            finds[f.pile] = f
    if config.picture_tries > 0 and len(finds) < len(allowed):
        if config.picture_close_px > 1:
            refused += _closed_kind_blobs(config, art, labels, [i for i in allowed if FIELD_KINDS[i] not in finds],
                                          field_px, p)
            if config.picture_close_shade:
                shade = [FIELD_KINDS.index(k) for k in ("wish", "back") if k in FIELD_KINDS]
                outlined += [(off, *_rect_on_table(tv, cx, cy, rw, rh, ang), True)
                             for off, cx, cy, rw, rh, ang in _closed_kind_blobs(config, art, labels, shade, field_px, p)]
        later, later_rank = None, math.inf
        if config.picture_off_table_px > 0:
            # (after the colour and outline passes' own candidates: where those find a pile, they place it by its
            # field; a part standing apart may hold its shadow or a neighbour's rim)
            missing = [i for i in allowed if FIELD_KINDS[i] not in finds]
            found = list(finds.values())

            def off_table() -> list[tuple]:
                # worked out only when the candidates ranked before these have left a pile missing and a try
                # (their rank is never below `later_rank`: the same order, the same tries, the same readings)
                return [(off, *_rect_on_table(tv, cx, cy, rw, rh, ang), rank)
                        for off, cx, cy, rw, rh, ang, rank in
                        _off_table_blobs(config, art, tv, view, found, field_px, labels, missing)]
            if config.picture_off_table_lazy:
                later, later_rank = off_table, min(config.picture_off_table_rank, config.picture_off_table_named_rank)
            else:
                outlined += off_table()
        for f in _pictured_piles(config, card_config, image, tv, registration, art, cream, model, card_game,
                                 list(finds.values()), refused, outlined, wish_cards, later, later_rank):
            finds[f.pile] = f
    return list(finds.values())


def _closed_kind_blobs(config: DiscardConfig, art: CardArt, labels: Any, kinds: list[int], field_px: float,
                       p: float) -> list[tuple[float, float, float, float, float, float]]:
    """The card-sized blobs of each missing kind's colour labels (`kinds`: FIELD_KINDS indices; `labels` -1 where no
    pile may lie) once closed over gaps up to `picture_close_px`: a field speckled by noise (dim light, high gain)
    or by a near kind's label (a veiled red's pink) is no blob of its own in the colour pass, closed it is one. As
    the colour pass's refused blobs, (how far from a field's area, centre x, y, w, h, turn: table view px) — for the
    picture pass only (its picture tells whether it is a pile, and of which kind)."""
    import cv2
    import numpy as np

    k = config.picture_close_px
    ker = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    lab8 = labels.view(np.uint8)
    out = []
    for i in kinds:
        mask = cv2.compare(lab8, int(i), cv2.CMP_EQ)
        if cv2.countNonZero(mask) < config.min_area * field_px:
            continue
        closed = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, ker)
        n, comp, stats = _pieces(closed, config.min_area * field_px, 1.5 * field_px)
        for j in np.nonzero((stats[1:, cv2.CC_STAT_AREA] >= config.min_area * field_px) &
                            (stats[1:, cv2.CC_STAT_AREA] <= 1.5 * field_px))[0] + 1:
            x, y, w, h, area = (int(v) for v in stats[j])
            ys, xs = np.nonzero(comp[y:y + h, x:x + w] == j)
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.stack([xs + x, ys + y], 1).astype(np.float32))
            short, long_ = sorted((rw + 1, rh + 1))
            if not _card_sized(config, art.size, short / p, long_ / p) or area < config.min_fill * rw * rh:
                continue
            out.append((abs(1 - area / field_px), cx, cy, rw, rh, ang))
    return out


def _off_table_blobs(config: DiscardConfig, art: CardArt, tv: TableView, view: Any, finds: list[PileFind],
                     field_px: float, labels: Any = None, missing: list[int] = ()
                     ) -> list[tuple[float, float, float, float, float, float, float]]:
    """The card-sized parts of the table view that stand apart from the table round them: a card washed whole by a
    sheen or a hot spot names no kind and shows no outline inside, but it still differs from the table beside it.
    The table round each place is the view's median over `picture_off_table_mm` (at `picture_off_table_scale` of the
    view's resolution; where no pile may lie and the cards found already filled first with the table's mean round
    them: a missing pile between found ones, or beside the board, is measured against the table); a pixel stands apart where some channel differs from it by
    `picture_off_table_over` times the median such difference over the table (its grain and noise; no colour is
    assumed). The found cards are taken out, the rest opened by `picture_off_table_px` (specks go); a part is kept
    when card-sized (a field's sides up to the whole card's) and `picture_off_table_fill` full of its turned
    rectangle. As _closed_kind_blobs' (how far from a card's area, centre x, y, w, h, turn: table view px) and the
    picture pass's rank: `picture_off_table_rank`, or `picture_off_table_named_rank` for a part whose pixels the
    colour `labels` name mostly a kind that is not `missing` (a wish card, the draw pile's backs, a row card astray;
    a washed pile's are named nothing or its own kind). For the picture pass only: its picture alone names a pile."""
    import cv2
    import numpy as np

    p = tv.ppm
    keep = tv.keep
    cards = np.zeros(view.shape[:2], np.uint8)
    for f in finds:
        cx, cy = (f.centre[0] - tv.origin[0]) * p, (f.centre[1] - tv.origin[1]) * p
        box = cv2.boxPoints(((cx, cy), ((art.size[0] + 4) * p, (art.size[1] + 4) * p), f.angle))
        cv2.fillConvexPoly(cards, np.round(box).astype(np.int32), 1)
    f = config.picture_off_table_scale
    small = cv2.resize(view, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    # where no pile may lie (the board, the seats) and the found cards: filled with the table's mean round them
    # (over the same reach), so the median sees the table there, not the board's or the cards' colours
    k = max(3, int(round(config.picture_off_table_mm * p * f)) | 1)
    table = cv2.resize(((keep > 0) & (cards == 0)).astype(np.float32), (small.shape[1], small.shape[0]),
                       interpolation=cv2.INTER_AREA) > 0.99
    if not table.all():
        w = table.astype(np.float32)
        sm = small.astype(np.float32) * w[..., None]
        mean = cv2.boxFilter(sm, -1, (k, k), normalize=False) / \
            np.maximum(cv2.boxFilter(w, -1, (k, k), normalize=False), 1e-3)[..., None]
        small = np.where(table[..., None], small, np.clip(mean, 0, 255).astype(np.uint8))
    bg = cv2.resize(cv2.medianBlur(small, k), (view.shape[1], view.shape[0]), interpolation=cv2.INTER_LINEAR)
    diff = cv2.absdiff(view, bg)
    b, g, r = cv2.split(diff)
    diff = cv2.max(cv2.max(b, g), r)
    hist = cv2.calcHist([diff], [0], keep, [256], [0, 256]).ravel()
    if hist.sum() == 0:
        return []
    median = float(np.searchsorted(np.cumsum(hist), hist.sum() / 2))
    thr = max(config.edge_floor, config.picture_off_table_over * median)
    mask = ((diff > thr) & (keep > 0) & (cards == 0)).astype(np.uint8)
    k = config.picture_off_table_px
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    card_px = art.size[0] * art.size[1] * p * p
    lo, hi = config.min_area * field_px, (1 + config.size_tolerance) * card_px
    n, comp, stats = _pieces(mask, lo, hi)
    out = []
    for j in np.nonzero((stats[1:, cv2.CC_STAT_AREA] >= lo) & (stats[1:, cv2.CC_STAT_AREA] <= hi))[0] + 1:
        x, y, w, h, area = (int(v) for v in stats[j])
        ys, xs = np.nonzero(comp[y:y + h, x:x + w] == j)
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.stack([xs + x, ys + y], 1).astype(np.float32))
        short, long_ = sorted((rw + 1, rh + 1))
        if not _card_sized(config, art.size, short / p, long_ / p) or \
                area < config.picture_off_table_fill * (rw + 1) * (rh + 1):
            continue
        rank = config.picture_off_table_rank
        if labels is not None:
            lab = labels[ys + y, xs + x]
            named = np.count_nonzero(lab >= 0) - int(np.isin(lab, missing).sum())
            if named > 0.5 * lab.size:
                rank = config.picture_off_table_named_rank
        out.append((abs(1 - area / card_px), cx, cy, rw, rh, ang, rank))
    return out


def _pictured_piles(config: DiscardConfig, card_config: CardConfig, image: Any, tv: TableView, registration: Any,
                    art: CardArt, cream: Any, model: Any, card_game: bool, finds: list[PileFind],
                    refused: list[tuple[float, float, float, float, float, float]],
                    outlined: list[tuple] = (), not_piles: list[tuple[float, float]] = (),
                    later: Any = None, later_rank: float = math.inf) -> list[PileFind]:
    """Piles still missing, found by their centre picture: a veil (a glare, a lamp's hot spot, a glossy card's
    sheen) washes a field toward the stock's white, so its colour names no kind or the wrong one (a washed red
    is pink, a washed yellow the wish cards'), or two kinds alike; its picture's shape stays, and normalised
    correlation ignores the veil's offset. Candidates, each place once and none where a pile was found: the
    colour pass's card-sized blobs that showed no pile of their colour (`refused`: table view px, as
    minAreaRect's, after how far from a field's area) and the outlined card-sized pieces of no missing kind's
    colour, of two kinds alike, or read as none (`outlined`: _outlined_piles', and the parts standing apart from
    the table: _off_table_blobs'), none where the colour pass named a wish card (`not_piles`); those named the backs' or the
    wish cards' colour last, else those nearest a field's area first, up to
    `picture_tries`, each lying whole in the frame. A candidate is a missing kind's pile where that kind's
    picture (or its end card's) fits at least `picture_min`, and better by `picture_margin` than every other
    picture of the art (other kinds', the backs', the wish cards'), searched `picture_slack_mm` round (the card
    then moved to where its picture is); read as any pile, its value only where its numerals show ink
    (`local_min_ink`: washed numerals give none). `later`, where given, is called for more candidates (as
    `outlined`'s, each of rank at least `later_rank`) only once every candidate ranked below `later_rank` has been
    tried and a pile is still missing with tries left: the candidates, their order and the tries are the same as
    with them given in `outlined` (each rank's candidates keep their order; `later`'s come last of their rank)."""
    import cv2
    import numpy as np

    piles = {*COLOURS, *(("points",) if card_game else ())} - {f.pile for f in finds}
    fw = config.field_size_mm[0]

    def rank_of(c: tuple) -> float:
        return float(c[3]) if len(c) > 3 else 0.0
    cands = [(off, *_rect_on_table(tv, cx, cy, rw, rh, ang)) for off, cx, cy, rw, rh, ang in refused] + list(outlined)
    # (those ranked where `later`'s may come wait for them: `later` is asked only if the tries reach that rank)
    rest = [c for c in cands if rank_of(c) >= later_rank] if later is not None else []
    if rest:
        cands = [c for c in cands if rank_of(c) < later_rank]
    # each place once, and not where a pile was found nor where the colour pass found a wish card (`not_piles`)
    taken: list[tuple[float, float]] = [f.centre for f in finds] + list(not_piles)

    def placed(cands: list[tuple]) -> list[tuple]:
        # (pieces whose colour is the backs' or the wish cards' after the rest: the draw pile,
        # the card game's wish cards; the sparse fields last: a candidate's fourth item is its rank, True or 2.0)
        cands = sorted(cands, key=lambda c: (rank_of(c), c[0]))
        kept = []
        for c in cands:
            if all(math.dist(c[1], t) >= fw / 2 for t in taken):
                kept.append(c)
                taken.append(c[1])
        return kept
    cands = placed(cands)
    q = config.card_ppm        # (the pictures are kept at the cut's resolution; _middle_scores scales both)
    # the middle's side: the picture's (all of one size) and the slack round it each way
    side = next(iter(art.symbols.values())).shape[0] / q + 2 * config.picture_slack_mm
    # (a board game has no end cards: their pictures neither name nor rival a pile there)
    kinds = tuple(k for k in art.symbols if card_game or not k.endswith("/E"))
    out: list[PileFind] = []
    tries = config.picture_tries_card_game if card_game and config.picture_tries > 0 else config.picture_tries
    todo = cands[:tries]
    i = 0
    while True:
        if i == len(todo):
            if later is None or not piles or len(todo) >= tries:
                break
            # every candidate ranked before `later`'s tried, a pile still missing and tries left: ask for them
            todo += placed(rest + later())[:tries - len(todo)]
            later = None
            continue
        _off, centre, theta, *_rank = todo[i]
        i += 1
        if not piles:
            break
        if not _card_in_image(registration, art, centre, theta):
            continue        # a card the frame's edge cuts: its picture and value half seen
        # only the card's middle, cut once: the other way up is the same cut turned half round; the missing kinds'
        # pictures first (either way up), the rest only where one of them fits
        mid = upright_card(image, registration, centre, theta, (side, side), q, 0.0)
        ups = ((theta, mid), (theta + 180.0, cv2.flip(mid, -1)))
        mine = tuple(k for k in kinds if k.split("/")[0] in piles)
        scores: dict[str, float] = {}
        at: dict[str, tuple[float, float, float]] = {}     # kind -> the way up and the picture's offset there
        for up, img in ups:
            where: dict[str, tuple[float, float]] = {}
            for k, v in _middle_scores(config, img, cream, art, q, mine, where).items():
                if v > scores.get(k, -1.0):
                    scores[k] = v
                    at[k] = (up, *where[k])
        own = {k: max(scores.get(k, -1.0), scores.get(f"{k}/E", -1.0)) for k in piles}
        if max(own.values()) < config.picture_min:
            continue
        # the rest of the art's pictures only where a missing kind's fits
        rivals = tuple(k for k in kinds if k not in mine)
        for _up, img in ups:
            for k, v in _middle_scores(config, img, cream, art, q, rivals).items():
                scores[k] = max(scores.get(k, -1.0), v)
        kind = max(own, key=lambda k: own[k])
        rival = max((v for k, v in scores.items() if k.split("/")[0] != kind), default=-1.0)
        if own[kind] < config.picture_min or own[kind] - rival < config.picture_margin:
            continue
        # the card moved to where its picture is (a candidate placed a few mm off: a piece joined to its neighbour)
        up, du, dv = at[kind] if scores.get(kind, -1.0) >= scores.get(f"{kind}/E", -1.0) else at[f"{kind}/E"]
        a = math.radians(up)
        centre = (centre[0] + du * math.cos(a) - dv * math.sin(a), centre[1] + du * math.sin(a) + dv * math.cos(a))
        f = _read_placed(config, card_config, image, registration, art, cream, model, kind, centre, theta, card_game,
                         config.local_min_ink)
        if f is None:
            continue
        out.append(f)
        piles.discard(kind)
    return out


def _outlined_piles(config: DiscardConfig, card_config: CardConfig, image: Any, tv: TableView, registration: Any,
                    art: CardArt, cream: Any, model: Any, card_game: bool, found: set[str],
                    table_kinds: set[str] = frozenset(),
                    unnamed: list[tuple] | None = None) -> list[PileFind]:
    """Piles found by their outlines (the stock's border round a card's field, whiter than both its sides
    whatever the table, and under glare as much as anywhere: vision.cards.outlined_fields), each named by its
    field's colour washed out by the best veil (vision.cards.piece_kind_distances) and read; only of the kinds
    not `found` already, and of each kind only the piece most like a whole field is read. Where something
    near is whiter than white paper (local_white: a lamp's hot spot, a glare) and piles are still missing, the
    pieces again with "simply white" and the piece's colour judged against that white: the stock there is
    as white as a pale table, and a pale field as white as the stock elsewhere (both passes: what the first
    finds at a hot spot's rim, where the white near a piece overshoots the light on it, the second may
    lose). Last, of the kinds still missing whose colour the table itself has (`table_kinds`), piles found by
    a frame of border lines (_framed_piles). `unnamed`, where given, gathers the card-sized pieces no pile was
    read from (_outlined_best's, and those read as none) for _pictured_piles: (off, centre, turn[, of the backs'
    or the wish cards' colour])."""
    import dataclasses

    import numpy as np

    from .cards import sized_for

    ccfg = sized_for(card_config, art.size)
    view = tv.warp(image)
    piles = {*COLOURS, *(("points",) if card_game else ())} - set(found)
    area_range = _piece_area_range(config, art, tv.ppm)
    # (the pieces boxed: down to the sparse fields the picture pass may look at, where it runs)
    box_range = (area_range[0] * min(1.0, config.picture_sparse_area) if unnamed is not None else area_range[0],
                 area_range[1])
    out: list[PileFind] = []
    local, part, part_tv = None, view, tv
    stock_comp = None
    for judged in ("stock", "local"):
        if judged == "local":
            # (the markers' paper is whiter than the stock: only what is whiter than paper is more light)
            got = local_white(config, view, cream, tv.ppm, tv.keep, np.asarray(cream, np.float64) * 255.0 / art.cream)
            if got is None:
                break
            # only the part of the table round where the white is whiter than paper
            local, (x0, y0, x1, y1) = got
            part = view[y0:y1, x0:x1]
            part_tv = dataclasses.replace(tv, origin=(tv.origin[0] + x0 / tv.ppm, tv.origin[1] + y0 / tv.ppm),
                                          keep=tv.keep[y0:y1, x0:x1], outline=None)
        comp, stats = _outlined_u8(ccfg, part, cream, tv.ppm, local, box_range)
        if local is None:
            stock_comp = comp           # (its borders: every pixel not a border lies in some piece)
        pieces: tuple[Any, Any] | None = (comp, stats)
        closed = False
        while pieces is not None and piles:
            best = _outlined_best(config, ccfg, part, part_tv, art, cream, local, card_game, piles, *pieces,
                                  unnamed=unnamed)
            for kind, tries in best.items():
                # the piece most like a whole field first; the next when its middle shows none of the kind's cards
                # (the draw pile's backs dimmed to the points cards' grey lie beside the piles, as whole as any)
                for off, centre, theta, white in tries:
                    f = _read_placed(config, card_config, image, registration, art, white, model, kind, centre, theta,
                                     card_game, config.local_min_ink if local is not None else 0.0,
                                     cream if config.ink_against_stock else None)
                    if f is not None:
                        out.append(f)
                        piles.discard(kind)
                        break
                    if unnamed is not None:
                        unnamed.append((off, centre, theta))     # its colour misnamed, maybe: its picture tells
            # piles still missing: the fields the outlines' small gaps joined to the table, split off (once)
            pieces = None if closed else _closed_pieces(config, comp, stats, area_range, box_range)
            closed = True
        if not piles:
            break
    if piles & table_kinds and stock_comp is not None and config.frame_tries > 0 and \
            (card_game or config.frame_board_games):
        out += _framed_piles(config, card_config, image, tv, registration, art, cream, model, card_game,
                             piles & table_kinds, view, stock_comp == 0)
    return out


def _framed_piles(config: DiscardConfig, card_config: CardConfig, image: Any, tv: TableView, registration: Any,
                  art: CardArt, cream: Any, model: Any, card_game: bool, piles: set[str], view: Any,
                  sep: Any) -> list[PileFind]:
    """Piles of the kinds in `piles` found by a frame of border lines (`sep`: the stock pass's borders in the
    outline view `view`) of a card's size: a border seen on three sides, the fourth as pale as the table, encloses
    no piece, but its lines are one thin piece whose turned rectangle is the card's. Each such frame (up to
    `frame_tries`, the nearest a card's outline first) is named by the colour inside it and read as a placed card;
    `_read_placed` keeps it only where its middle shows that kind's picture."""
    import cv2
    import numpy as np

    p = tv.ppm
    cw, ch = art.size
    labels_kinds = {FIELD_KINDS.index(k): k for k in piles}
    lines = sep.astype(np.uint8)
    if config.frame_join_px > 1:
        lines = cv2.dilate(lines, cv2.getStructuringElement(cv2.MORPH_RECT, (config.frame_join_px,) * 2))
    n, comp, stats, _ = cv2.connectedComponentsWithStats(lines, connectivity=8)
    fw, fh = config.field_size_mm
    lo = (1 - config.size_tolerance) * fw * p       # a frame's box at least a field's short side less the tolerance
    lo_long = (1 - config.size_tolerance) * fh * p
    hi = (1 + config.size_tolerance) * ch * p       # and at most a card's long side and the tolerance
    cands = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        # (a turned card's box: its larger side at least the card's long side, its smaller at least the short one;
        # a frame on two sides at least holds a long and a short side's pixels)
        if max(w, h) < lo_long or min(w, h) < lo or max(w, h) > hi * 1.5 or area < lo + lo_long or \
                area > config.frame_max_fill * w * h:
            continue
        ys, xs = np.nonzero(comp[y:y + h, x:x + w] == i)
        (cx, cy), (rw, rh), ang = _frame_rect(xs + x, ys + y, config.frame_rect_step_deg, config.frame_rect_points,
                                              config.frame_rect_on_px)
        short, long_ = sorted((rw, rh))
        if not _card_sized(config, art.size, short / p, long_ / p) or area > config.frame_max_fill * rw * rh:
            continue
        # where a pile may lie, as an outlined piece must (a row's card just outside its seat's mask is no pile)
        r_ = int(math.ceil(math.hypot(rw, rh) / 2)) + 1
        x0, y0 = max(0, int(cx) - r_), max(0, int(cy) - r_)
        x1, y1 = min(view.shape[1], int(cx) + r_ + 1), min(view.shape[0], int(cy) + r_ + 1)
        whole = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(whole, cv2.boxPoints(((cx - x0, cy - y0), (rw, rh), ang)).astype(np.int32), 1)
        if float(tv.keep[y0:y1, x0:x1][whole > 0].mean()) < config.outline_keep:
            continue
        # the inside's colour (the middle ~60 % of the rectangle, clear of the border and the table round it)
        box = cv2.boxPoints(((cx - x, cy - y), (rw * 0.6, rh * 0.6), ang)).astype(np.int32)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, box, 1)
        my, mx = np.nonzero(mask)
        if my.size == 0:
            continue
        lab = table_labels(config, card_config, view[y:y + h, x:x + w][my, mx][None], cream, art)[0]
        counts = {k: int(np.count_nonzero(lab == i_)) for i_, k in labels_kinds.items()}
        kind = max(counts, key=counts.get)
        if counts[kind] < config.frame_kind_min * my.size:
            continue
        off = abs(1 - short * long_ / (cw * ch * p * p))
        cands.append((off, kind, *_rect_on_table(tv, cx, cy, rw, rh, ang)))
    out: list[PileFind] = []
    for _off, kind, centre, theta in sorted(cands, key=lambda c: c[0])[:config.frame_tries]:
        if kind not in piles:
            continue
        if config.frame_side_min > 0:
            centre = _frame_shift(config, card_config, image, registration, art, cream, centre, theta)
        f = _read_placed(config, card_config, image, registration, art, cream, model, kind, centre, theta, card_game)
        if f is not None:
            out.append(f)
            piles.discard(kind)
    return out


def _frame_shift(config: DiscardConfig, card_config: CardConfig, image: Any, registration: Any, art: CardArt,
                 cream: Any, centre: tuple[float, float], theta: float) -> tuple[float, float]:
    """A frame's card moved to where its border lines lie, seen closer (`refine_ppm`): the outline view places it
    only to a pixel and a half (~2 mm), too coarse for its numerals. Each side's line is the column (row) of
    the card cut upright with the most border pixels within `refine_margin_mm` of where it should be, taken
    only where it runs along `frame_side_min` of the side (a side as pale as the table shows none); the card
    moves by the mean of the sides' offsets, each way (a missing side's offset is its opposite's)."""
    import numpy as np

    from .cards import sized_for

    q, m = config.refine_ppm, config.refine_margin_mm
    w, h = art.size
    crop = upright_card(image, registration, centre, theta, (w + 2 * m, h), q, m)
    comp, _stats = _outlined_u8(sized_for(card_config, art.size), crop, cream, q)
    lines = comp == 0
    b = card_config.border_mm / 2           # the border's middle, in from the card's edge
    shift = []
    for axis, lo_e, hi_e, span in ((1, m + b, m + w - b, (m + 0.2 * h, m + 0.8 * h)),
                                   (0, m + b, m + h - b, (m + 0.2 * w, m + 0.8 * w))):
        # axis 1: the left and right sides (columns), counted over the side's middle rows; axis 0: top and bottom
        a0, a1 = int(span[0] * q), int(span[1] * q)
        prof = (lines[a0:a1, :] if axis == 1 else lines[:, a0:a1]).sum(axis=0 if axis == 1 else 1)
        offs = []
        for e in (lo_e, hi_e):
            i0, i1 = max(0, int((e - m) * q)), min(prof.size, int((e + m) * q) + 1)
            if i1 <= i0:
                continue
            j = i0 + int(np.argmax(prof[i0:i1]))
            if prof[j] >= config.frame_side_min * (a1 - a0):
                offs.append((j + 0.5) / q - e)
        shift.append(float(np.mean(offs)) if offs else 0.0)
    du, dv = shift
    a = math.radians(theta)
    return (centre[0] + du * math.cos(a) - dv * math.sin(a), centre[1] + du * math.sin(a) + dv * math.cos(a))


def _frame_rect(xs: Any, ys: Any, step_deg: float, max_points: int,
                on_px: float) -> tuple[tuple[float, float], tuple[float, float], float]:
    """The turned rectangle whose sides the points (a frame's lines, px) lie on most: a frame seen on two or three
    sides only has a smaller rectangle round it than its own (cv2.minAreaRect turns to the missing side's
    diagonal). Every turn by `step_deg` tried at once, on at most `max_points` of the points (evenly taken); a
    point within `on_px` of a side lies on it.
    ((cx, cy), (w, h), angle in degrees, w along the angle: cv2.minAreaRect's convention)."""
    import numpy as np

    k = max(1, xs.size // max_points)
    x = xs[::k].astype(np.float32)[None, :]
    y = ys[::k].astype(np.float32)[None, :]
    a = np.radians(np.arange(0.0, 90.0, step_deg, dtype=np.float32))[:, None]
    c, s = np.cos(a), np.sin(a)
    u = x * c + y * s
    v = y * c - x * s
    u0, u1 = u.min(1, keepdims=True), u.max(1, keepdims=True)
    v0, v1 = v.min(1, keepdims=True), v.max(1, keepdims=True)
    on = np.minimum(np.minimum(u - u0, u1 - u), np.minimum(v - v0, v1 - v)) <= on_px
    j = int(np.argmax(on.sum(1)))
    um, vm = float(u0[j, 0] + u1[j, 0]) / 2, float(v0[j, 0] + v1[j, 0]) / 2
    cj, sj = float(c[j, 0]), float(s[j, 0])
    return ((um * cj - vm * sj, um * sj + vm * cj),
            (float(u1[j, 0] - u0[j, 0]) + 1, float(v1[j, 0] - v0[j, 0]) + 1), float(j * step_deg))


def _rect_on_table(tv: TableView, cx: float, cy: float, rw: float, rh: float,
                   ang: float) -> tuple[tuple[float, float], float]:
    """A turned rectangle of table view px (minAreaRect's) as a card's centre (board mm) and turn: its up is
    along the long side, one way or the other."""
    p = tv.ppm
    return (tv.origin[0] + (cx + 0.5) / p, tv.origin[1] + (cy + 0.5) / p), (ang if rh >= rw else ang + 90.0)


def _card_in_image(registration: Any, art: CardArt, centre: tuple[float, float], theta: float) -> bool:
    """Whether the whole card at `centre` turned by `theta` lies inside the frame."""
    import numpy as np

    w, h = art.size
    a = math.radians(theta)
    corners = [(centre[0] + u * math.cos(a) - v * math.sin(a), centre[1] + u * math.sin(a) + v * math.cos(a))
               for u in (-w / 2, w / 2) for v in (-h / 2, h / 2)]
    px = registration.board_to_image(np.asarray(corners, np.float64))
    size = registration.image_size
    return bool(np.all(px >= 0) and np.all(px[:, 0] < size[0]) and np.all(px[:, 1] < size[1]))


def _piece_area_range(config: DiscardConfig, art: CardArt, ppm: float) -> tuple[float, float]:
    """The outlined pieces' areas (px at `ppm`) that may be a card's field: a field's less the size tolerance up
    to the whole card's and that tolerance."""
    fw, fh = config.field_size_mm
    return ((1 - config.size_tolerance) ** 2 * fw * fh * ppm * ppm,
            (1 + config.size_tolerance) ** 2 * art.size[0] * art.size[1] * ppm * ppm)


def _closed_pieces(config: DiscardConfig, comp: Any, stats: Any,
                   area_range: tuple[float, float],
                   box_range: tuple[float, float] | None = None) -> tuple[Any, Any] | None:
    """The pieces larger than a card (`area_range`'s top, px: the table's, with any field its outline does not
    close off) cut again by the borders closed over gaps up to `outline_close_px`: at the outline view's
    resolution a pale border beside a pale table, or a dim one beside another card's, passes no border test for
    a pixel or two, and the field leaks into the table there. Every other piece is left out (it was already looked
    at). (component map, stats: _pieces'), or None when no piece is that large, closing is off, or closing changes
    nothing inside the large pieces (then no piece of them comes apart)."""
    import cv2
    import numpy as np

    big = np.nonzero(stats[1:, cv2.CC_STAT_AREA] > area_range[1])[0] + 1
    if config.outline_close_px < 2 or big.size == 0:
        return None
    k = config.outline_close_px
    sep = cv2.morphologyEx(cv2.compare(comp, 0, cv2.CMP_EQ), cv2.MORPH_CLOSE,
                           cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    # what is left of the large pieces once closed (a compare per large piece: there are one or two, and a
    # look-up through the whole component map costs more)
    keep = cv2.compare(comp, int(big[0]), cv2.CMP_EQ)
    for i in big[1:]:
        keep |= cv2.compare(comp, int(i), cv2.CMP_EQ)
    if not cv2.countNonZero(cv2.bitwise_and(keep, sep)):
        return None         # no gap closed inside them: nothing comes apart
    keep = cv2.bitwise_and(keep, cv2.bitwise_not(sep))     # (numpy's keep & ~sep, OpenCV's speed)
    _n, comp2, stats2 = _pieces(keep, *(box_range or area_range))
    return comp2, stats2


def _outlined_best(config: DiscardConfig, ccfg: CardConfig, view: Any, tv: TableView, art: CardArt, cream: Any,
                   local: Any, card_game: bool, piles: set[str], comp: Any,
                   stats: Any, unnamed: list[tuple] | None = None
                   ) -> dict[str, list[tuple[float, tuple[float, float], float, Any]]]:
    """Of each kind in `piles` the outlined pieces (`comp`, `stats`: _outlined_u8's) most like a whole field, up
    to `outline_tries`, the likest first: kind -> [(how far from a whole field, centre (board mm), turn, the white
    its colour was judged against)]. The card-sized pieces of no missing kind's colour (or the backs', or two
    kinds alike under a local white) are added to `unnamed` where given (see _outlined_piles)."""
    import cv2
    import numpy as np

    from .cards import _nearest_kind, grey_chroma_max, piece_chroma, piece_kind_distances, piece_median

    p = tv.ppm
    fw, fh = config.field_size_mm
    lo, hi = _piece_area_range(config, art, p)
    best: dict[str, list[tuple[float, tuple[float, float], float, Any]]] = {}
    for i in np.nonzero((stats[1:, cv2.CC_STAT_AREA] >= lo) & (stats[1:, cv2.CC_STAT_AREA] <= hi))[0] + 1:
        piece = _card_piece(config, art, tv, comp, stats, i, config.outline_fill)
        if piece is None:
            continue
        x, y, w, h, area, sub, (cx, cy, rw, rh, ang) = piece
        # the piece's colour over the white it was outlined against (a lamp's hot spot whitens the stock too)
        white = cream if local is None else np.median(local[y:y + h, x:x + w][sub], axis=0).astype(np.float32)
        field = piece_median(view, sub, x, y)      # (its median colour, once for the tests below)
        dists = piece_kind_distances(ccfg, view, white, sub, x, y, art, card_game, field=field)
        kind, _d = _nearest_kind(ccfg, dists, piece_chroma(view, white, sub, x, y, field) if card_game else None,
                                 grey_chroma_max(ccfg, art) if card_game else None)
        backs = kind in piles and \
            piece_kind_distances(ccfg, view, white, sub, x, y, art, card_game, ("back",),
                                 field).get("back", 1e9) <= dists[kind]
        off = abs(1 - area / (fw * fh * p * p))
        centre, theta = _rect_on_table(tv, cx, cy, rw, rh, ang)
        if kind not in piles or backs:
            # the draw pile's backs (or no card field) are no discard pile; a washed-out field's colour may be
            # another's: its picture tells (_pictured_piles)
            if unnamed is not None:
                unnamed.append((off, centre, theta, backs or kind in ("wish", "back")))
            continue
        if local is not None and \
                min((d for k, d in dists.items() if k != kind), default=1e9) - dists[kind] < config.local_kind_margin:
            # washed out by the light there, two kinds fit alike: no colour to go by (its picture may tell)
            if unnamed is not None:
                unnamed.append((off, centre, theta))
            continue
        best.setdefault(kind, []).append((off, centre, theta, white))
    if unnamed is not None and config.picture_sparse_area < 1.0:
        # sparse fields (holey, spanning a card-sized rectangle): for the picture pass only
        areas = stats[1:, cv2.CC_STAT_AREA]
        for i in np.nonzero((areas >= lo * config.picture_sparse_area) & (areas < lo))[0] + 1:
            piece = _card_piece(config, art, tv, comp, stats, i, config.min_fill)
            if piece is None:
                continue
            area, (cx, cy, rw, rh, ang) = piece[4], piece[6]
            unnamed.append((abs(1 - area / (fw * fh * p * p)), *_rect_on_table(tv, cx, cy, rw, rh, ang), 2.0))
    return {k: sorted(v, key=lambda c: c[0])[:max(1, config.outline_tries)] for k, v in best.items()}


def _card_piece(config: DiscardConfig, art: Any, tv: TableView, comp: Any, stats: Any, i: int, fill: float) -> Any:
    """Labelled piece `i` of `comp` (`stats`: its connectedComponentsWithStats row) when it lies on the kept table
    (`outline_keep`), is card-sized and fills at least `fill` of its rotated rectangle: (x, y, w, h of its box, area,
    its mask in that box, (cx, cy, w, h, angle) of that rectangle in view px); else None."""
    import cv2
    import numpy as np

    x, y, w, h, area = (int(v) for v in stats[i])
    if w == 0 or h == 0:
        return None
    sub = comp[y:y + h, x:x + w] == i
    if float(tv.keep[y:y + h, x:x + w][sub].mean()) < config.outline_keep:
        return None
    ys, xs = np.nonzero(sub)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.stack([xs + x, ys + y], 1).astype(np.float32))
    short, long_ = sorted((rw + 1, rh + 1))
    if not _card_sized(config, art.size, short / tv.ppm, long_ / tv.ppm) or area < fill * rw * rh:
        return None
    return x, y, w, h, area, sub, (cx, cy, rw, rh, ang)


#: whiteness 1.0 (the card stock) as a byte: room above it for glare and a brighter stock
_WHITE_BYTE = 200.0


def _outlined_u8(config: CardConfig, view: Any, cream: Any, ppm: float, local: Any = None,
                 area_range: tuple[float, float] = (0.0, float("inf"))) -> tuple[Any, Any]:
    """vision.cards.outlined_fields (the pieces the stock's borders enclose: a border is whiter than both its
    sides, or simply white, or much whiter than the darkest pixel near it) on whiteness held in bytes: the same
    tests at 1/200 of the stock's whiteness, in a quarter of the memory and a fraction of the time of the
    float version over a whole table view; "simply white" over `local` (local_white) where given. (component map,
    stats; the pieces' boxes only of those whose area is within `area_range`: _pieces)."""
    import cv2
    import numpy as np

    c = np.maximum(np.asarray(cream, np.float64), 1.0)
    b, g, r = cv2.split(view)
    w = cv2.min(cv2.min(cv2.convertScaleAbs(b, alpha=_WHITE_BYTE / c[0]), cv2.convertScaleAbs(g, alpha=_WHITE_BYTE / c[1])),
                cv2.convertScaleAbs(r, alpha=_WHITE_BYTE / c[2]))
    k = max(3, int(round(config.border_open_mm * ppm)) | 1)
    ker = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    eroded = cv2.erode(w, ker)
    tophat = cv2.subtract(w, cv2.dilate(eroded, ker))
    step = cv2.subtract(w, eroded)
    # (the tests as bytes, 255 where true: OpenCV's compares and logic, each exactly numpy's on bytes)
    if local is None:
        white = _greater(w, config.border_white * _WHITE_BYTE)
    else:
        # "simply white" for where it lies: every channel this much of the whitest near it, where that is
        # whiter than the stock (a lamp's hot spot, a glare's veil of any colour)
        bright = cv2.convertScaleAbs(local, alpha=config.border_white)
        white = cv2.min(cv2.min(cv2.compare(b, bright[..., 0], cv2.CMP_GT), cv2.compare(g, bright[..., 1], cv2.CMP_GT)),
                        cv2.compare(r, bright[..., 2], cv2.CMP_GT))
    sep = cv2.bitwise_or(cv2.bitwise_or(_greater(tophat, config.border_tophat * _WHITE_BYTE), white),
                         cv2.bitwise_and(_greater(step, config.border_step * _WHITE_BYTE),
                                         _greater(w, config.border_step_white * _WHITE_BYTE)))
    _n, comp, stats = _pieces(cv2.bitwise_not(sep), *area_range)
    return comp, stats


def local_white(config: DiscardConfig, view: Any, cream: Any, ppm: float, keep: Any,
                paper: Any) -> tuple[Any, tuple[int, int, int, int]] | None:
    """The whitest near each pixel of the view (within `local_white_mm`, channel by channel, at a quarter of
    its resolution, each pixel there the mean of 4×4: noise does not count), never less than the stock (`cream`): a
    card's border or a pale table under a lamp's hot spot or a glare's veil, the white a pile there is judged
    against. Only where a pile may lie (`keep`), 1.6 field lengths round where that white is whiter by
    `local_white_over` than white paper (`paper`, BGR) under the table's light can be: (uint8 BGR over that box,
    the box x0, y0, x1, y1 in view px), or None where nowhere is (or `local_white_mm` is 0)."""
    import cv2
    import numpy as np

    if config.local_white_mm <= 0:
        return None
    h, w = view.shape[:2]
    # (a whole quarter: the area resize's fast path)
    q = cv2.resize(view[:h - h % 4, :w - w % 4], (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    k = max(3, int(round(2 * config.local_white_mm * ppm / 4)) | 1)
    q = cv2.dilate(q, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    c = np.clip(np.asarray(cream, np.float64), 1, 255)
    thresholds = np.asarray(paper, np.float64) * (1 + config.local_white_over)
    if q.dtype == np.uint8 and q.ndim == 3 and q.shape[2] == 3 and thresholds.shape == (3,) and keep.dtype == np.uint8 and \
            np.isfinite(thresholds).all():
        # (OpenCV's compares a plane at a time: a byte is over t where it is over floor(t); numpy's any over a last
        # axis of 3 is its slowest reduction)
        whiter = cv2.compare(np.ascontiguousarray(keep[:h - h % 4:4, :w - w % 4:4]), 0, cv2.CMP_GT)
        over = None
        for plane, t in zip(cv2.split(q), thresholds):
            t = math.floor(float(t))
            m = cv2.compare(plane, t, cv2.CMP_GT) if 0 <= t < 255 else \
                np.full(plane.shape, 255 if t < 0 else 0, np.uint8)
            over = m if over is None else cv2.bitwise_or(over, m)
        whiter = cv2.bitwise_and(whiter, over)
    else:
        whiter = (q > thresholds).any(axis=2) & (keep[:h - h % 4:4, :w - w % 4:4] > 0)
    ys, xs = np.nonzero(whiter)
    if ys.size == 0:
        return None         # nowhere whiter than paper: no more light than on the markers
    grow = int(math.ceil(config.field_size_mm[1] * 1.6 * ppm / 4))     # (a piece partly there whole, and its outline)
    qx0, qy0 = max(0, int(xs.min()) - grow), max(0, int(ys.min()) - grow)
    qx1, qy1 = min(q.shape[1], int(xs.max()) + 1 + grow), min(q.shape[0], int(ys.max()) + 1 + grow)
    q = cv2.max(q[qy0:qy1, qx0:qx1], (*(float(v) for v in c), 0.0))
    return (cv2.resize(q, ((qx1 - qx0) * 4, (qy1 - qy0) * 4), interpolation=cv2.INTER_NEAREST),
            (qx0 * 4, qy0 * 4, qx1 * 4, qy1 * 4))


def _read_pile(config: DiscardConfig, card_config: CardConfig, image: Any, registration: Any, art: CardArt,
               cream: Any, model: Any, kind: str, tv: TableView, cx: float, cy: float, rw: float, rh: float,
               ang: float, card_game: bool = False, wish_cards: list | None = None) -> PileFind | None:
    """The top card of the pile whose field blob has this turned rectangle (table view px), or None when
    no card lies there (`_refine_pile`)."""
    import numpy as np

    centre, theta = _rect_on_table(tv, cx, cy, rw, rh, ang)
    placed = _refine_pile(config, card_config, image, registration, art, cream, kind, centre, theta)
    if placed is None:
        return None
    centre, theta = placed
    return _read_placed(config, card_config, image, registration, art, cream, model, kind, centre, theta, card_game,
                        wish_cards=wish_cards)


def _read_placed(config: DiscardConfig, card_config: CardConfig, image: Any, registration: Any, art: CardArt,
                 cream: Any, model: Any, kind: str, centre: tuple[float, float], theta: float,
                 card_game: bool = False, min_ink: float = 0.0, ink_cream: Any = None,
                 wish_cards: list | None = None) -> PileFind | None:
    """The top card of a pile placed on the table (its field's centre, board mm, and its long side's turn):
    which way up, then its value from both top corners. None for a card game's wish card taken for a pile
    of the colour nearest theirs (its centre picture tells: vision.cards.kind_by_symbol). No value where the
    top corners' ink (over `cream`, and over `ink_cream` where given: the larger) is below `min_ink`."""
    import numpy as np

    from .cards import kind_by_symbol, symbol_rival

    q = config.card_ppm
    # which way up: the numerals make the top corners far busier than the bottom ones
    img = upright_card(image, registration, centre, theta, art.size, q, 4.0)
    white = _whiteness(img.astype(np.float32), cream)
    top_ink = bottom_ink = 0.0
    for (bx, by, bw, bh) in art.boxes.values():
        # the middle of the glyph box only: its edges hold the card's border and frame lines
        gx, gy = bx + bw / 2, by + bh / 2
        a = white[int((4 + gy - 4) * q):int((4 + gy + 4) * q), int((gx - 3.5) * q):int((gx + 3.5) * q)]
        gyb, gxb = art.size[1] - gy, art.size[0] - gx
        b = white[int((4 + gyb - 4) * q):int((4 + gyb + 4) * q), int((gxb - 3.5) * q):int((gxb + 3.5) * q)]
        top_ink += float(a.std()) if a.size else 0.0
        bottom_ink += float(b.std()) if b.size else 0.0
    up = theta if top_ink >= bottom_ink else theta + 180.0
    if up != theta:
        img = upright_card(image, registration, centre, up, art.size, q, 4.0)
        white = _whiteness(img.astype(np.float32), cream)
    if card_game and symbol_rival(art, kind) == "wish" and \
            kind_by_symbol(card_config, kind, img, cream, 4.0 + art.size[1] - card_config.border_mm, art, q) == "wish":
        if wish_cards is not None:
            wish_cards.append(centre)
        return None
    sym: dict[str, float] = {}
    if not _middle_fits(config, img, cream, art, q, 4.0, kind, sym):
        return None
    # (end cards only in the card game, as on its rows: a board game's pile read "E" was no reading at all)
    # (its corners classified where the end dot fits only where the middle is the end card's picture rather than
    # its kind's: DiscardConfig.end_by_picture)
    end_places = card_game
    if card_game and config.end_by_picture:
        end_places = not (kind in sym and f"{kind}/E" in sym and sym[kind] > sym[f"{kind}/E"])
    code, conf, _scores = read_corners(card_config, white, 4.0, art.size[1], kind, art, q, model,
                                       () if card_game else ("E",), end_places=end_places)
    if min_ink > 0 and config.ink_by_contrast:
        min_ink *= ink_contrast_share(art, kind)
    if code != "E" and min_ink > 0 and ink_cream is not None and ink_cream is not cream and \
            max(top_ink, bottom_ink) < min_ink:
        # (the same boxes over the stock's white, the way up as found: the ink shows over either white — a
        # local white far brighter than the stock shrinks it, a glare's colour may shrink it over the stock)
        top_ink = max(top_ink, _corner_ink(_whiteness(img.astype(np.float32), ink_cream), art, q))
    if code != "E" and max(top_ink, bottom_ink) < min_ink:
        return PileFind(kind, centre, up % 360, None, 0.0)     # numerals washed out: the value cannot be told
    if code is not None and kind == "points":
        code = f"P{code}"
    return PileFind(kind, centre, up % 360, code, conf)


def ink_contrast_share(art: CardArt, kind: str) -> float:
    """How much contrast the art prints between `kind`'s field and the stock (1 - the field's smallest channel over
    the stock: the whiteness its numerals stand out from), as a share of the median over the colour kinds'
    (1.0 when the art does not say)."""
    import numpy as np

    def contrast(k: str) -> float | None:
        f = art.fields.get(k)
        return None if f is None else 1.0 - float(np.min(np.asarray(f, np.float64)))

    own = contrast(kind)
    usual = [c for c in (contrast(k) for k in COLOURS) if c is not None and c > 0]
    if own is None or not usual:
        return 1.0
    return max(own, 0.0) / float(np.median(usual))


def _corner_ink(white: Any, art: CardArt, q: float) -> float:
    """The top corners' ink of a card cut upright (whiteness at `q` px/mm, 4 mm above and below): the whiteness
    std in the middle of each glyph box, summed (as _read_placed judges which way up)."""
    ink = 0.0
    for (bx, by, bw, bh) in art.boxes.values():
        gx, gy = bx + bw / 2, by + bh / 2
        a = white[int((4 + gy - 4) * q):int((4 + gy + 4) * q), int((gx - 3.5) * q):int((gx + 3.5) * q)]
        ink += float(a.std()) if a.size else 0.0
    return ink


def _middle_fits(config: DiscardConfig, img: Any, cream: Any, art: CardArt, ppm: float, pad: float, kind: str,
                 scores: dict | None = None) -> bool:
    """Whether the card cut upright (`img`, `pad` mm above and below) has a `kind` pile's middle: not the
    backs' picture rather than its kind's (the draw pile, its backs' colour dimmed or veiled near a pile's),
    and for the points pile their picture, which every points card has (not a mug's shaded side, a grey
    thing); and for every kind, its own picture at all (not a patch of table of its colour)."""
    sym = _centre_scores(config, img, cream, art, ppm, pad, (kind, f"{kind}/E", "back"))
    if scores is not None:
        scores.update(sym)
    own = max(sym.get(kind, -1.0), sym.get(f"{kind}/E", -1.0))
    if sym.get("back", -1.0) > own + config.back_margin:
        return False
    if config.symbol_min is not None and own < config.symbol_min:
        return False
    return kind != "points" or sym.get(kind, 1.0) >= config.points_symbol_min


def _centre_scores(config: DiscardConfig, img: Any, cream: Any, art: CardArt, ppm: float, pad: float,
                   kinds: tuple[str, ...]) -> dict[str, float]:
    """How well the card's middle (`img`: the card cut upright at `ppm`, `pad` mm above and below) matches each
    kind's centre picture (CardArt.symbols, all of one size; normalised correlation over the stock: a veil's
    offset and the light's colour cancel; searched `symbol_slack_mm` round, at `symbol_ppm`)."""
    import cv2
    import numpy as np

    w, h = art.size
    temps = {k: art.symbols[k] for k in kinds if k in art.symbols}
    if not temps:
        return {}
    f = min(1.0, config.symbol_ppm / ppm)
    side = next(iter(temps.values())).shape[0] / ppm
    s = config.symbol_slack_mm
    y0, y1 = (max(0, int(round((pad + h / 2 + d) * ppm))) for d in (-side / 2 - s, side / 2 + s))
    x0, x1 = (max(0, int(round((w / 2 + d) * ppm))) for d in (-side / 2 - s, side / 2 + s))
    region = img[y0:y1, x0:x1].astype(np.float32) / np.maximum(np.asarray(cream, np.float32), 1.0)
    if f < 1.0:
        region = cv2.resize(region, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    out: dict[str, float] = {}
    for k, t in temps.items():
        if f < 1.0:
            t = cv2.resize(t, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        if region.shape[0] < t.shape[0] or region.shape[1] < t.shape[1]:
            continue
        out[k] = float(cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))[1])
    return out


_SMALL_PICTURES: dict[tuple[int, str, float], tuple[CardArt, Any]] = {}


def _small_picture(art: CardArt, kind: str, f: float) -> Any:
    """art.symbols[kind] scaled by `f` (kept per art: the picture pass scores several candidates a frame)."""
    import cv2

    key = (id(art), kind, f)
    hit = _SMALL_PICTURES.get(key)
    if hit is None or hit[0] is not art:
        if len(_SMALL_PICTURES) > 256:
            _SMALL_PICTURES.clear()
        hit = (art, cv2.resize(art.symbols[kind], None, fx=f, fy=f, interpolation=cv2.INTER_AREA))
        _SMALL_PICTURES[key] = hit
    return hit[1]


def _middle_scores(config: DiscardConfig, mid: Any, cream: Any, art: CardArt, ppm: float, kinds: tuple[str, ...],
                   where: dict[str, tuple[float, float]] | None = None) -> dict[str, float]:
    """_centre_scores on a card's middle cut alone (`mid`: a square round the card's centre, upright, at `ppm`): how
    well each kind's centre picture fits anywhere in it; `where` gets the picture's middle's offset from the cut's
    (card mm: x right, y down)."""
    import cv2
    import numpy as np

    temps = {k: art.symbols[k] for k in kinds if k in art.symbols}
    if not temps:
        return {}
    f = min(1.0, config.symbol_ppm / ppm)
    side = next(iter(temps.values())).shape[0] / ppm
    region = mid.astype(np.float32) / np.maximum(np.asarray(cream, np.float32), 1.0)
    if f < 1.0:
        region = cv2.resize(region, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    half = mid.shape[0] / ppm / 2
    out: dict[str, float] = {}
    for k, t in temps.items():
        if f < 1.0:
            t = _small_picture(art, k, f)
        if region.shape[0] < t.shape[0] or region.shape[1] < t.shape[1]:
            continue
        _lo, hi, _lo_at, at = cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))
        out[k] = float(hi)
        if where is not None:
            where[k] = (at[0] / f / ppm + side / 2 - half, at[1] / f / ppm + side / 2 - half)
    return out


def _refine_pile(config: DiscardConfig, card_config: CardConfig, image: Any, registration: Any, art: CardArt,
                 cream: Any, kind: str, centre: tuple[float, float],
                 theta: float) -> tuple[tuple[float, float], float] | None:
    """The card's centre and turn from its field seen closer (`refine_ppm`): the table view's blob places a
    card only to a pixel (3 mm) and a few degrees, too coarse for its numeral boxes. None when no card's
    field is there: its colour's largest patch not of a field's size, or running on past the card (a
    table, a cloth or a thing of that colour)."""
    import cv2
    import numpy as np

    q, m = config.refine_ppm, config.refine_margin_mm
    w, h = art.size
    crop = upright_card(image, registration, centre, theta, (w + 2 * m, h), q, m)
    mask = (table_labels(config, card_config, crop, cream, art) == FIELD_KINDS.index(kind)).astype(np.uint8)
    found = _largest_inside(mask)
    if found is None:
        # running on past the card: a table of the pile's colour, or the pile on one — cut at its edges
        found = _largest_inside(_cut_at_edges(config, crop, mask).astype(np.uint8))
    if found is None:
        return None
    xs, ys = found
    (fx, fy), (fw_, fh_), fa = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
    if not _card_sized(config, art.size, min(fw_, fh_) / q, max(fw_, fh_) / q):
        return None
    # the field's turn from upright in (-45, 45]; its centre's offset from the crop's (the card's) in card mm
    da = fa if fh_ >= fw_ else fa - 90.0
    da = (da + 45.0) % 90.0 - 45.0
    du = (fx + 0.5) / q - (w / 2 + m)
    dv = (fy + 0.5) / q - (h / 2 + m)
    a = math.radians(theta)
    c = (centre[0] + du * math.cos(a) - dv * math.sin(a), centre[1] + du * math.sin(a) + dv * math.cos(a))
    return c, theta + da


def _largest_inside(mask: Any) -> tuple[Any, Any] | None:
    """The pixels of the mask's largest part, or None when it touches the crop's edge (runs on past the card)."""
    import cv2
    import numpy as np

    n, comp, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, bw, bh = (int(v) for v in stats[i, :4])
    if x <= 0 or y <= 0 or x + bw >= mask.shape[1] or y + bh >= mask.shape[0]:
        return None
    ys, xs = np.nonzero(comp == i)
    return xs, ys


def discard_tops(finds: list[PileFind], card_game: bool) -> dict[str, str | None]:
    """FORMATS §2 `discard_tops`: every pile key, null where none was found."""
    keys = (*COLOURS, "points") if card_game else COLOURS
    out: dict[str, str | None] = {k: None for k in keys}
    for f in finds:
        if f.pile in out and f.code not in (None, "?"):
            out[f.pile] = f.code
    return out


def main(argv: list[str] | None = None) -> int:
    import cv2

    from .cardart import card_art
    from .cards import paper_points, paper_white, seat_creams
    from .components import load_components
    from .numerals import numeral_model_for
    from .stagecli import registered_inputs, seats_from_truth, stage_parser

    ap = stage_parser("vision.discards", __doc__)
    ap.add_argument("--game", default="keltis")
    args = ap.parse_args(argv)
    loaded = registered_inputs(args)
    if isinstance(loaded, int):
        return loaded
    image, cal, board, reg = loaded
    card_game = args.game != "keltis"
    seats = seats_from_truth(args.image)
    comps = load_components(args.components)
    cfg = DiscardConfig()
    tv = build_table_view(cfg, cal, reg, None if card_game or board is None else tuple(board.size_mm),
                          tuple(seats) if seats else None)
    art = card_art(comps, cfg.card_ppm, 1.2)
    white = paper_white(image, paper_points(cal, reg))
    cream = white * art.cream / 255.0 if white is not None else seat_creams(CardConfig(), tv.warp(image), None, art)[1]
    finds = read_discards(cfg, CardConfig(), image, tv, reg, art, cream, numeral_model_for(comps), card_game)
    print(discard_tops(finds, card_game))
    if args.overlay:
        out = tv.warp(image)
        out[tv.keep == 0] //= 3
        for f in finds:
            c = (int((f.centre[0] - tv.origin[0]) * tv.ppm), int((f.centre[1] - tv.origin[1]) * tv.ppm))
            cv2.putText(out, f"{f.pile} {f.code} {f.confidence:.2f}", c, cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 255, 255), 2)
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
