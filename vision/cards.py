"""Card rows: every seat's rows of cards, found from what the seat view shows, and each card read.

    seat view (vision.seatview) ─ normalise by the cards' own cream ─ field colour per pixel
      → bands: a row is a column of card field ~52 mm wide (found, not assumed: any order, any place)
      → straightened band (its centre line fitted, so a crooked row reads upright)
      → card tops: the cream top border of each card crosses the band's middle as a bright ridge;
        the last card is whole (its top lies a card's height above the row's end)
      → each card: its field kind (a colour, points, wish) from the strip's middle, its value from
        both top corners against the numeral templates of that kind (vision.cardart), each corner
        searched a few mm around where it should be; a corner hidden or unclear counts less.

Every card gets a confidence: the margin between its best and second-best value (6/9, 1/7, 0/8,
10/0 are the close pairs); a row's confidence is its least sure card's.

    python -m vision.cards FRAME.jpg --overlay out.png [--game keltis-card]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from engine.cards import COLOURS

from .cardart import FIELD_KINDS, CardArt, _whiteness
from .seatview import SeatView, SeatViewConfig

NUMBER_KINDS = set(COLOURS)


@dataclass(frozen=True)
class CardConfig:
    """Every threshold of the card reader. The figures in mm that follow from the card's own size
    (marked "card": a field's width, a card's middle columns, a covered strip, ...) are given for a
    card of `card_mm`; sized_for() scales them to the components folder's card size."""

    card_mm: tuple[float, float] = (56.0, 87.0)   # (w, h) of the card the "card" figures are for
    view: SeatViewConfig = SeatViewConfig(ppm=2.5, margin_mm=14.0)
    cream_fractions: tuple[float, ...] = (0.001, 0.004, 0.015)   # the whitest pixels of a seat view: card stock
    cream_hue_dist: float = 0.12        # log-chroma distance of a pixel to the stock's hue under the paper's light
    cream_quantiles: tuple[float, ...] = (0.7, 0.9, 0.995)   # brightness of the stock among pixels of its hue (guesses)
    hue_max_rad: float = 0.5            # a coloured field's hue within this angle of its art's
    min_sat_ratio: float = 0.3          # and at least this part of its saturation (glare washes colours out)
    grey_sat: float = 0.25              # log-chroma norm below which a colour counts as grey
    stock_margin: float = 0.12          # a grey field is at least this much (log) darker than the stock
    brightness_weight: float = 0.15     # brightness counts less than hue (shade, glare, dim light)
    erode_mm: float = 2.5               # rows part from table of their colour
    open_mm: float = 3.5                # table speckle smaller than this is no field
    close_mm: float = 7.0               # bridge the cream top borders between the strips of one row
    band_width_mm: tuple[float, float] = (36.0, 64.0)   # card: a row's field is ~52 mm wide
    row_width_mm: tuple[float, float] = (46.0, 59.0)    # card: pixel rows of a band that show its whole width
    table_share: float = 0.45          # the commonest colours making up this much of a seat view are table
    table_fraction: float = 0.2         # a field colour covering this much of a seat view is the table's
    band_min_height_mm: float = 50.0    # card: at least most of one whole card
    centre_mm: tuple[float, float] = (19.0, 37.0)   # card: the card's middle columns: no numerals there
    ridge_min: float = 0.10             # a top border is this much whiter than the field around it
    min_strip_mm: float = 8.0           # card: covered cards show at least this much
    first_top_slack_mm: float = 9.0     # card: a ridge this near the field's start is the first card's top
    border_mm: float = 2.2              # card: the stock's border above a field (as the camera blurs it)
    last_card_slack_mm: float = 17.0    # card: the last card's field may end this much short of a whole card
    corner_slack_mm: float = 2.5        # search around each numeral box
    # the two corners of one card lie a fixed distance apart (the art's boxes): their numerals are found together,
    # one shift of the card for both (the sum of the two corners' correlation with the mean glyph), each then moved
    # at most this many view pixels from it (a card turned ~1 degree moves one corner ~0.6 mm against the other).
    # Found apart, a numeral whose width differs from most values' (right-aligned "10" in the top-right corner) is
    # matched by the mean glyph a digit's width off and cut (session 35: 10 read 1, 0 or 5 there). None: apart
    corner_joint_refine_px: int | None = 1
    # an end card ("E") has a round dot in each top corner, not a numeral: where the caller asks (a discard pile
    # whose middle is the end card's picture: DiscardConfig.end_by_picture), the corners are classified where the
    # end symbol's own template fits when it fits better (summed correlation over the corners) than the mean numeral
    # glyph does (session 35: end cards on discard piles read "6" at the mean glyph's places). False: the mean
    # glyph's places only (main before)
    end_symbol_placed: bool = True
    min_corner_mm: float = 6.0          # a corner needs this much of its box visible to count
    kind_min_fraction: float = 0.35     # of a strip's middle to name its field kind
    points_chroma_share: float = 0.5    # a points card on a colour row is at most this coloured (of the row's most)
    # card game: a strip of a colour row (not its first: a points card is laid on a card) whose middle labels as
    # neither kind (none reaching kind_min_fraction) is a points card when it is at most points_chroma_share as
    # coloured as the strip before it (dev D83790: the P1, P4, P7 of three rows showed 0-3 % points labels at
    # 0.12-0.13 of their rows' chroma and were read as their colour). False: such a strip is its row's colour
    points_by_chroma: bool = True
    # rows from the cards' outlines (find_bands_outlined)
    border_open_mm: float = 6.0         # a border is a line thinner than this ...
    border_tophat: float = 0.12         # ... this much whiter than what lies either side
    border_white: float = 0.85          # or simply this white (a table as pale as the stock)
    border_step: float = 0.35           # or (beside a table nearly as pale) this much whiter than the darkest
    border_step_white: float = 0.6      # pixel within border_open_mm, and at least this white
    border_noise_share: float = 0.2     # when the whiteness' pixel noise exceeds this share of border_tophat
    border_smooth_px: float = 0.7       # (dim light: high gain, a warm lamp's weak blue channel) it is first
                                        # smoothed with this Gaussian sigma (half-view px): noise then
                                        # speckles the fields with "borders"; a 2 mm border stays a ridge
    white_local_mm: float = 30.0        # "simply white" is border_white of the whitest stock-hued pixel within
                                        # this (mm): under a glare's veil, of the veiled stock
    field_width_mm: tuple[float, float] = (38.0, 60.0)   # card: an outlined field piece is about a card's field wide
    min_piece_mm: float = 4.0           # and at least this tall (a covered strip shows 18-25 mm)
    leak_min_mm: float = 30.0           # card: a wider piece this tall may be a card's field leaking into the table
    leak_max_mm: float = 1e4            # (wider: the table itself)
    leak_cover: float = 0.6             # a leaking field goes on past its straight sides while its rows span
                                        # it and cover this much of its width (numerals are holes), one
                                        # side straight (_trim_leak)
    leak_closed: float = 0.5            # and is closed where a row beyond each end (within chain_gap_mm)
                                        # lies at most this much within its sides (a card's border, or the
                                        # piece ends): it may then start a row
    piece_fill: float = 0.4             # of its bounding box (a field, not a table's loop)
    piece_field_fraction: float = 0.3   # of its pixels of a field colour (vision.cardart)
    chain_shift_mm: float = 8.0         # pieces of one row: centres this near
    chain_gap_mm: float = 8.0           # and no more than this apart (a top border between)
    strip_above_mm: float = 26.0        # card: a covered strip above a row's first piece is looked for this far
    # the outermost strip's top on a table darker than the stock: a step up of at least this whiteness from
    # the table to the border, where the field below is too pale for a ridge (points cards; None: ridges only)
    strip_top_table_step: float | None = 0.35
    strips_above: int = 2               # up to this many such strips, one above the other (the straightened
                                        # band is padded for all of them: it had room for one, so a second was
                                        # never found; 1 reads as before)
    strip_above_chroma: float = 0.2     # its field's log-chroma this near the first card's
    strip_above_confidence: float = 0.3  # and its numerals read at least this surely
    # a covered card whose top border shows no ridge (its field washed out as white as the border by gloss or
    # glare: pink, the palest colour, first) still shows its value in both top corners. Its top is then where
    # both corners show a numeral at one height: the outline of the glyphs (the gradient of the whiteness) is
    # matched with the kind's mean glyph's, not their fill, which a washed-out field no longer sets apart. A
    # match of at least this (normalised correlation, the lower of the two corners; None: not looked for) is
    # a candidate top, kept only when both corners, each seen over `numeral_seen` of its box, read the same
    # value at least `strip_above_confidence` surely (docs/vision.md, session 29)
    numeral_top_min: float | None = 0.4
    numeral_pair_mm: float = 2.0        # (the two corners' glyphs this near in height: a card turned a few degrees)
    numeral_seen: float = 0.5
    # looked for where a row's tops leave room for one: a strip taller than this between two tops found (card:
    # a covered strip shows 18-25 mm), the last card's top more than `min_strip_mm` above where the row's end puts
    # it, and above the first card when no top border is found there (_strip_above)
    numeral_tall_mm: float = 28.0
    # a hand lays a row at a steady pitch: where the row's tops found by their borders give one (the median of
    # their strips), a top found by its numerals makes strips within this of it (mm; none known: any strip from
    # `min_strip_mm` to `numeral_tall_mm`). Wood grain and a plain field read as "0" in both corners
    numeral_pitch_mm: float = 4.0
    chain_far_gap_mm: float = 60.0      # card: pieces of one kind in one column may lie this far apart (the
    chain_far_shift_mm: float = 4.0     # strips between lost their outlines to noise or glare: their top
    chain_far_width_mm: float = 5.0     # borders are then found as ridges), centres and widths this near
    min_row_field_mm: float = 40.0      # card: a row shows at least most of its last card's field
    max_slope: float = 0.15             # a row crooked by at most ~8 degrees
    piece_veils: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0)
    piece_max_chroma_dist: float = 0.35  # a piece's log-chroma at most this far from its kind's washed out
    veil_shade: float = 0.25            # a veil lightens: a piece more than this (log) darker than its kind
    veil_dark_weight: float = 1.0       # under a veil would be, less shading, costs this per log unit of it
                                        # (a grey points card is no veiled pink: a veil that greys a
                                        # colour also brings it near the stock's brightness)
    side_border_mm: float = 5.0         # card: a card's side border looked for this far in from the band's edges
    # a row (or wish row) of one card shows its side borders this much whiter (None: not required). Off:
    # the bundled demo's real one-card rows score 0.00-0.01 (0.06 dropped their first cards: 81 -> 76 of 95
    # turns; 0.01 too), dev phantoms -0.02-0.04: no margin on either side (docs/vision.md, session 15)
    single_sides_min: float | None = None
                                        # than its field (whiteness over the stock; a patch of table: ~0)
    # a row (or wish row) of one card shows its kind's centre picture (CardArt.symbols; normalised correlation
    # over the stock, searched symbol_slack_mm round) at least this well (None: not required): patches of pale
    # wood outlined by their grain, named a colour, score 0.06-0.36; rows read right 0.64-0.98 on the 18 dev stills
    # of session 24 (docs/vision.md). The points row too (session 25): grey patches of a pale cloth read as one
    # points card score 0.13-0.23 on 40 dev stills, real one-card points rows 0.71-0.94 on 80
    single_symbol_min: float | None = 0.5
    # a one-card row without its picture may be a longer row cut short on its first card's strip (the next
    # strips' outline lost): its kind's picture (or, card game, a points card's) searched up to this far beyond
    # its end, and where one matches at least single_symbol_min the row is read again down to that card's end
    # (None: not searched). A card's height: a row cut on a strip ends within one more card
    single_reach_mm: float | None = 87.0
    # and one whose picture is not its kind's but another's (at least single_symbol_min, better by symbol_margin)
    # is that kind's row: a field's colour misnamed under warm light (a red card taken for pink)
    single_rename: bool = True
    # two rows read of one colour (a red row's field named pink under warm light beside the real pink row): each is
    # renamed to a colour no row was read for when its last card's centre picture (card game: or that colour's end
    # card's) is plainly that colour's — at least single_symbol_min and better than its named colour's by
    # symbol_margin, the tests of single_rename. Else seat_reading kept the longer and lost the other row whole
    # (False: not looked at)
    claim_rename: bool = True
    # ... and a row of a colour claimed once whose last card's picture is not its colour's (under
    # single_symbol_min) but plainly a colour's no row was read for (the same tests; card game: not when the points or
    # wish cards' picture matches better): a red row named pink while the pink row was not found (False: not looked at).
    # Off in session 30 (its cost: every row's last card straightened and scored, ~+10-30 ms a frame); on since session
    # 31 behind the half-view screen below (dev hard light 83790 and 84100: the red rows named pink, 40/north, 17/north)
    row_rename: bool = True
    # ... each row claimed once first screened on the half view (_own_picture_half): a last card showing its colour's
    # picture at least this well there is not straightened and scored (None: every such row is). Without the screen
    # row_rename cost ~20-30 ms a frame (session 31, loaded machine); with it only rows whose picture is unclear pay
    rename_screen_min: float | None = 0.5
    # card game: a seat with no points row found is searched for the points cards' centre picture (the ring of
    # dots, CardArt.symbols) over its half view, the rows found masked out; where it matches at least this, a
    # points band one card tall is laid there and read like any (its strips above, the one-card picture rule at
    # full resolution, a colour strip above making it that colour's row). A washed-out points field (glare,
    # overexposure, a pale table) shows no outline and no grey label, but its picture (None: not searched).
    # single_symbol_min's figure: searched in grey at half the view's ppm, the dev frames' points rows missed
    # outright scored 0.50-0.94 where their last card lies (46 seats; 6 more covered by a row or cut), the best
    # place of seats without points cards 0.50 at most but one (a colour row's last points card, its row lost:
    # 0.81); a place found is then read at full resolution, where the one-card picture rule holds again
    points_search_min: float | None = 0.5
    # ... and, with a points row found, searched again where a colour has no row: a colour row whose last card is a
    # points card shows no colour picture for picture_bands, and when its strips and that card lose their outlines
    # (blur, a veil) the row is missed whole; a points picture outside the rows read, with a strip of that colour
    # above it (read_band's _colour_above / _coloured_strips), is that colour's row (False: not searched)
    points_search_colour_rows: bool = True
    points_search_tries: int = 2        # the best places tried, best first, this many (a colour row's last points
                                        # card, its row lost, may outscore the points row's)
    # such a row's covered strips are as washed out as its last card: no ridge between them, but the stack's top is
    # where the table ends — above a strip found so, the table at least this much less white than the strip, and
    # the strip itself as white as the card below it within the same (whiteness over the stock; the numerals
    # and the field's colour checked as for any strip above). None: the ridges and steps of _strip_top only
    points_search_step: float | None = 0.05
    # a stack of three or more washed out alike shows the table's end two or more strips above its last card: its
    # top is looked for up to this many strips (`strip_above_mm` each) above, and as many strips read (the dev
    # truth's largest points row: 6 cards). The span to the table's end is split into the fewest strips no taller
    # than `strip_above_mm` each (no ridge between them to place them by); each strip then checked as any strip
    points_search_strips: int = 5
    # a points band read as one card whose field runs on past that card's end (`points_split_min_mm`): a stack
    # washed out alike (no ridge between its strips, the field one grey piece) — its last card's top lies a card
    # above the field's end, the span above split into the fewest strips no taller than `strip_above_mm`; kept
    # only when the last card's centre picture is there (`single_symbol_min`) and every strip's numerals read at
    # `strip_above_confidence` (single_symbol_min None: never split). False: read as one card
    points_stack_split: bool = True
    # ... and only when the field runs on at least this far (mm): a one-card points row's grey label may run on
    # into a shadow or the table below it (dev 82500/2 south and west: 8.6 and 10.2 mm, each split into a phantom
    # strip at min_strip_mm), while the stacks split on dev ran on 18.2-59.4 mm (14 halfway; set once, not swept)
    points_split_min_mm: float = 14.0
    # card game: the points row and the wish cards may lie in one column, one after the other. A card read above
    # the first card of the lower one (a strip above, _strip_above) whose top lies before the upper one's last
    # card ends, or within this (mm) after, is that card's bottom border taken for a strip's top: dropped (dev
    # 83570: four wish rows under a washed-out points row each got such a strip, 1.2-2.2 mm before the points
    # card's end; a wish card laid after a gap of 2 mm or more keeps its own). None: kept
    column_end_slack_mm: float | None = 1.0
    # a colour no row was read for is looked for by its cards' centre picture (CardArt.symbols) outside the rows
    # read: a field washed out by glare, gloss or overexposure (as white as the stock: no outline, no colour label),
    # or a veil that leaves its borders no contrast, still shows its picture. A match of at least this (normalised
    # correlation over the stock, as single_symbol_min; None: not looked for), better than every other colour's
    # picture there by symbol_margin, is that colour's last card; the row is read up from it (docs/vision.md,
    # session 27)
    picture_row_min: float | None = 0.6
    picture_coarse_min: float = 0.45    # the search's first pass (an eighth of the view's ppm) keeps spots this good
    unveil_stock_q: float = 0.95        # (its stock: this quantile of the last card's whiteness, borders included)
    unveil_max: float = 0.9             # (a veil's share taken off at most: the rest is noise)
    # and shows at least this contrast there (its most varied channel's standard deviation over the stock): a smooth
    # patch of cloth matched a pink card's ring at 0.67 with 0.011; the pictures of washed-out and veiled dev rows
    # showed 0.028-0.16 (docs/vision.md, session 27)
    picture_contrast_min: float = 0.02
    picture_apart: float = 0.9          # (a picture's centre this share of a card's width from a row read is not its)
    picture_spots: int = 3              # the best few spots of that pass (apart by a picture's size) looked at closer
    # only rows read with cards keep the search away (a band found by its field but read empty — its field washed out,
    # its line fitted askew — is no row: it hid its own last card's picture; False: every band, as before). Off: it
    # changed no reading on two dev sets (docs/vision.md, session 30)
    picture_apart_read_only: bool = False
    # card game: an end card's picture is the same disc on every colour's field (the correlation, its mean taken off,
    # hardly sees the field), so a washed row ending in one lost to another colour's end card by under symbol_margin
    # (0.07-0.12 on dev). Where a colour's row is read already (or found by its picture) it has no other end card in
    # the seat's rows (one row a colour, RULES), so its end cards are no rivals on a second look at the spots that
    # failed only that test. Off: the rival test is also what keeps a wish stone or a discard top's disc from being
    # read as a missing colour's end card — on, D83790's rows went 125 -> 149 errors (phantom one-card "E" rows in
    # normal light; docs/vision.md, session 36). False: every colour's end cards are rivals, as before
    picture_end_rivals_read: bool = False
    # two rows still read of one colour after the renames (claim_rename): seat_reading kept the longer, and a
    # phantom of two or more strips (a patch beside the board or below a row, its "last card" showing no picture,
    # 0.15-0.23) beat the true one-card row (0.80-0.95). Where one of them shows its colour's picture (card game:
    # its end card's or the points picture too) at least single_symbol_min at its last card, the ones that do not
    # are dropped. False: the longer kept, as before
    claim_by_picture: bool = True
    # the check at half the view's ppm (picture_row_min again) is made on the match with the view's pixel noise
    # taken out: noise of variance n over a window of variance w lowers a true picture's correlation by
    # sqrt((w - n) / w) (attenuation), so the score is divided by that, by at most this factor (the window's own
    # variance at least the noise's). A dim frame's noise pulled real washed pictures from 0.63-0.66 to 0.48-0.57
    # at half the ppm while they held at a quarter (docs/vision.md, session 36). Only the colour's own picture: an
    # end card's plain disc also matches a wish stone (a phantom row on dev). None: the raw score, as before
    picture_noise_gain_max: float | None = 1.4142
    # a colour band found by its outlined pieces whose middle columns label as none of its kinds (a veil or a warm
    # cast washed its fields out of the colour table; read empty before) is read between its pieces, as a points
    # band is, when its last card shows a colour's centre picture at least this well (single_symbol_min's figure:
    # a picture plainly there; that colour's, or another's better by symbol_margin: the band renamed). None: read
    # empty, as before (docs/vision.md, session 31)
    washed_row_symbol_min: float | None = 0.5
    # card game: a colour row's last card of its colour (the only card whose centre picture shows) is an end card or
    # a number card as its picture says when that is plain: the end card's or its colour's number cards' picture at
    # least this well (single_symbol_min's figure) and better than the other's by symbol_margin. An end card's
    # corners hold a disc, not a numeral, which the numeral net read "6" or "5" at p ~ 1 (dev D83790: 5 of 11 wrong
    # kinds). (Points cards are left to their strip's colour: points_by_chroma.) None: the corners only
    last_card_picture_min: float | None = 0.5
    last_card_picture_slack_mm: float = 4.0   # (its picture searched this far round the card's centre)
    last_card_picture_scale: float = 0.5      # (and matched at this share of the seat view's resolution)
    picture_end_slack_mm: float = 5.0   # (its last card's top within this of a whole card above the picture's end:
                                        # a ridge lower down is its own picture or numerals, unveiled)
    picture_strips_above: int = 10      # such a row's covered strips looked for above its last card (a row of 11)
    # such a row is judged before it is trusted (picture_row_check; docs/vision.md, session 28): a card prints its
    # value in both top corners, and a patch of table read as a card gives two unrelated reads. A card is unsure
    # when its corners, each seen over at least this share of its numeral box, read different values (None: no
    # check, main's reading)
    picture_corner_seen: float | None = 0.5
    # its cards lie within the seat rectangle but for this (None: anywhere): dev rows found by picture begin 2-13 mm
    # inside it; the strips climbed into the table above a row or a phantom began 8-15 mm outside it
    picture_outside_mm: float | None = 6.0
    picture_sure_share: float = 0.5      # dropped when fewer of its strips than this share are sure, and ...
    # ... its strips' visible heights spread more than this (a hand lays a row at a steady pitch: 0-4.8 mm on the
    # 29 dev rows found by picture with two strips or more, 7.6 and 10 mm on the two phantom rows of several strips)
    picture_pitch_spread_mm: float = 6.0
    kind_piece_cap_mm: float = 25.0     # card: a piece votes for its row's kind at most this tall
    points_grey_margin: float = 0.05     # a piece named a colour but this near the points' grey too is points,
    points_grey_chroma: float | None = 0.05  # when it shows at most this much more colour (log-chroma) than the
                                         # points' art field (None: any). A pale pink strip can be as near the
                                         # grey as its pink (dev still 80000/60: 0.147 / 0.145) but shows 0.20;
                                         # the grey under a clipped paper's light shows 0.07 (points art 0.12)
    leaked_points_on_row: bool = True    # card game: a leaked points piece may end a colour row (a points card
                                         # laid last on it, its border lost on a wood table)
    ends_from_pieces: bool = False       # card game: a wish band whose labels show no wish field (washed out
                                         # below grey_sat) is read between its outlined pieces, as a points
                                         # band is (not colour bands: patches of table read as one-card rows).
                                         # Off: on fresh seed 80500 it read 3 more wish cards right and made
                                         # 4 up (light wood outlined and named wish); docs/vision.md session 16
    symbol_slack_mm: float = 8.0         # the last card's centre picture searched this far round (and, card
    symbol_margin: float = 0.15          # game, a wish row and its rival colour's renamed when the other's
                                         # picture correlates better by this: kind_by_symbol)
    # ... and matches at least this itself (None: any). A yellow row whose band ran on past its last card (the
    # picture looked for a card's height above a wrong end) scored yellow 0.23, wish 0.47 and was read as wish
    # cards (dev 83690/23 north; 83570/168 north: 0.18 / 0.43); the yellowed wish rows renamed right on dev
    # scored 0.76-0.91 (docs/vision.md, session 29). single_symbol_min's figure: a picture plainly there
    symbol_rename_min: float | None = 0.5
    # card game: a wish band whose last card shows the wish cards' centre picture at least this well (named wish,
    # or renamed so, by kind_by_symbol) is read between its outlined pieces (first piece's top to its end) when
    # its labels show no wish field, as a points band is. Glare, an overexposure or a warm lamp washes the orange
    # field out of the wish labels, or a stock guess too dim names field and table alike the points' grey: the
    # band was found and named, its cards never read (17 of the 27 wish cards missed on dev 83690 and 83570,
    # their pictures 0.76-0.97; docs/vision.md, session 29). Unlike ends_from_pieces (off: light wood outlined
    # and named wish read as wish cards) the picture rules such patches out: single_symbol_min's figure (None:
    # labels only, as before)
    wish_ends_symbol_min: float | None = 0.5
    # ... and better than its rival colour's picture there (symbol_rival: yellow) by at least this: a washed-out
    # yellow card's sun, its rays lost, is a round blob like the stone (dev 83690/118 north, a yellow row of one card
    # renamed wish: wish 0.60, yellow 0.42, read as a wish card 5); the 17 wish rows of dev read so: wish better by
    # 0.51-0.70 (set near halfway, once)
    wish_ends_margin: float = 0.3
    # such a band's last card's top is where its picture (the card's middle) says, when the top found from its
    # pieces and ridges lies more than this (mm) from there (None: as found). Dev 83570/257 west: the piece began
    # 7 mm under the top (the border lost beside the numerals on pale wood, no ridge), its 8 read as 1
    wish_top_from_picture_mm: float | None = 3.0
    lut_cream_step: float = 0.01         # field_labels' colour tables are kept per cream to 1 %
    second_colour_max_dist: float = 0.6  # a row that loses its colour to another takes one at most this far
    cream_guess: int | None = None        # with the markers' paper, only this guess of the stock (None: try all)
    colour_finder_min_mm2: float = 1000.0   # card: the colour finder runs where this much field lies outside the rows
    row_finder: str = "both"            # "outline", "colour" (find_bands) or both (colour where no outline)
    cream_choice: str = "pieces"        # of the stock guesses: most field-wide pieces ("pieces") or most rows
    cream_near_top: float = 0.9         # the brightest guess outlining at least this share of the most


#: CardConfig's figures that scale with the card's width and with its height (sized_for)
_ALONG_WIDTH = ("band_width_mm", "row_width_mm", "centre_mm", "field_width_mm", "border_mm", "side_border_mm")
_ALONG_HEIGHT = ("kind_piece_cap_mm", "band_min_height_mm", "min_strip_mm", "first_top_slack_mm", "last_card_slack_mm",
                 "leak_min_mm", "min_row_field_mm", "chain_far_gap_mm", "strip_above_mm", "single_reach_mm",
                 "points_split_min_mm", "numeral_tall_mm")


@lru_cache(maxsize=32)
def sized_for(config: CardConfig, card_mm: tuple[float, float]) -> CardConfig:
    """`config` for cards of `card_mm` (w, h): its card figures scaled from config.card_mm (a
    components folder's cards of another size — a group's own deck — are read with no code change)."""
    sw, sh = card_mm[0] / config.card_mm[0], card_mm[1] / config.card_mm[1]
    if sw == 1.0 and sh == 1.0:
        return config

    def scaled(value: Any, k: float) -> Any:
        if value is None:
            return None
        return tuple(v * k for v in value) if isinstance(value, tuple) else value * k

    changes = {name: scaled(getattr(config, name), sw) for name in _ALONG_WIDTH}
    changes.update({name: scaled(getattr(config, name), sh) for name in _ALONG_HEIGHT})
    changes["colour_finder_min_mm2"] = config.colour_finder_min_mm2 * sw * sh
    return replace(config, card_mm=(float(card_mm[0]), float(card_mm[1])), **changes)


@dataclass
class CardRead:
    """One card of a row: where its top lies (band mm), its field kind and code, how sure."""

    top: float
    visible: float
    kind: str
    code: str
    confidence: float
    scores: dict[str, float] = field(default_factory=dict)


@dataclass
class Band:
    """One row as seen: its field kind (majority), centre line in seat mm (u = a + b·v), extent."""

    kind: str
    a: float
    b: float
    v0: float
    v1: float
    cards: list[CardRead] = field(default_factory=list)
    field_tops: list[float] = field(default_factory=list)   # seat v where outlined field pieces begin
    colour_dist: dict[str, float] = field(default_factory=dict)   # each colour's distance to its fields' hue
    sides: float | None = None      # a one-card band (as outlined): how much whiter than its field its side borders are
    symbol: float | None = None     # a one-card band (as outlined): how well its card's centre picture matches its kind's
    above: float = 0.0              # a one-card band: the share of its kind's field in a strip's height above it
    by_picture: bool = False        # found by its last card's centre picture (picture_bands), not by its field
    check: dict | None = None       # found by its picture: what picture_row_check judged (per card: its corners' reads)

    def centre_u(self, v: float) -> float:
        return self.a + self.b * v


@dataclass
class SeatCards:
    """What one seat view shows of cards: its bands, read."""

    seat: str
    bands: list[Band]
    cream: Any = None
    small: Any = field(default=None, repr=False)    # the seat view at half resolution (for the wish stones)
    timings: dict[str, float] = field(default_factory=dict)   # CPU ms: warp, rows (found), read (cards read)
    card_mm: tuple[float, float] = (56.0, 87.0)                # the cards' size (the components folder's)

    def rows_mask(self, sv: SeatView, scale: float | None = None, margin_mm: float = 3.0) -> Any:
        """Where the rows' cards lie in the view at `scale` of its ppm (None: the half view's) — no token lies there."""
        import cv2
        import numpy as np

        mask = np.zeros(self.small.shape[:2], np.uint8)
        p = sv.ppm * (sv.half_scale if scale is None else scale)
        for b in self.bands:
            top = (b.cards[0].top if b.cards else b.v0) - margin_mm
            bottom = b.v1 + margin_mm
            pts = []
            for v, side in ((top, -1), (top, 1), (bottom, 1), (bottom, -1)):
                u = b.centre_u(v) + side * (self.card_mm[0] / 2 + margin_mm)
                pts.append(((u + sv.margin) * p, (v + sv.margin) * p))
            cv2.fillPoly(mask, [np.round(np.array(pts)).astype(np.int32)], 1)
        return mask


# ----------------------------------------------------------------------------- colour

def paper_points(calibration: Any, registration: Any, quiet: float = 0.25) -> Any:
    """Frame pixels (N×2 int) in the middle of every marker's white quiet zone (built once)."""
    import numpy as np

    pts = []
    for m in (calibration.get("markers") or {}).get("items", []):
        r = m["size"] * (0.5 + quiet / 2)
        for k in range(24):
            a = 2 * np.pi * k / 24
            # a square ring: the quiet zone is a square band around the black square
            c, si = np.cos(a), np.sin(a)
            f = r / max(abs(c), abs(si))
            pts.append((m["x"] + f * c, m["y"] + f * si))
    if not pts:
        return np.zeros((0, 2), np.int32)
    return np.round(registration.board_to_image(np.array(pts))).astype(np.int32)


#: a channel this bright is taken as clipped (the camera's 255 less JPEG's ringing)
PAPER_CLIPPED = 250.0


def paper_white(image: Any, points: Any, clipped: float = PAPER_CLIPPED) -> Any | None:
    """The light's colour: the median BGR of the markers' paper (its brighter half: a shadow or a
    hand on one marker does not count), or None when no marker paper is in the frame.

    Where that median has a channel at `clipped` or more (an exposure bright enough to clip the paper
    in the light's strongest channel), 255 says nothing of the light's colour there: the colour is then
    that of the paper's pixels with no channel clipped (if at least 8: its dimmer parts, the same light),
    brought up to the median's brightness in the channels not clipped; the clipped ones come out above
    255, as the light has them."""
    import numpy as np

    h, w = image.shape[:2]
    ok = (points[:, 0] >= 0) & (points[:, 0] < w) & (points[:, 1] >= 0) & (points[:, 1] < h)
    if ok.sum() < 8:
        return None
    every = image[points[ok, 1], points[ok, 0]].astype(np.float32)
    lum = every.sum(axis=1)
    white = np.median(every[lum >= np.median(lum)], 0)
    high = white >= clipped
    if high.any() and not high.all():
        fine = every[every.max(axis=1) < clipped]
        if len(fine) >= 8:
            hue = np.maximum(np.median(fine, 0), 1.0)
            white = hue * float(np.max(white[~high] / hue[~high]))
    return white


def seat_creams(config: CardConfig, view: Any, white: Any | None, art: CardArt) -> list[Any]:
    """Guesses of the card stock's BGR (the seat's white reference). With the markers' paper, the
    stock's hue is known (the art's cream under this light) and only its brightness is guessed: from
    the brightest pixels of that hue. Without it, the whitest pixels (by smallest channel and by sum)."""
    import numpy as np

    # every other pixel each way: quantiles of a seat's hundred thousand pixels need no more
    sub = view[::2, ::2]
    out = []
    if white is not None:
        hue = np.maximum(white, 1.0) * art.cream / 255.0          # the stock under this light
        # per channel (numpy is slow along a short last axis): log-colour over the stock's, its mean
        # (brightness) and its distance from the stock's hue
        lc = [_log_over(sub[..., i], np.float32(hue[i])) for i in range(3)]
        m = (lc[0] + lc[1] + lc[2]) / 3
        near = ((lc[0] - m) ** 2 + (lc[1] - m) ** 2 + (lc[2] - m) ** 2) < config.cream_hue_dist ** 2
        if near.sum() >= 20:
            lum = m[near]
            for q in config.cream_quantiles:
                out.append(np.maximum(hue * float(np.exp(np.quantile(lum, q))), 8.0).astype(np.float32))
            return out
    px = sub.reshape(-1, 3).astype(np.float32)
    for key in (px.min(axis=1), px.sum(axis=1)):
        order = np.argsort(key)
        for frac in config.cream_fractions:
            top = px[order[-max(20, int(len(px) * frac)):]]
            out.append(np.maximum(np.median(top, 0), 8.0).astype(np.float32))
    return out


def _log_over(plane: Any, d: Any) -> Any:
    """np.log(np.maximum(plane.astype(np.float32), 1.0) / d) (`d` a float32): of a byte plane, the same 256 values
    worked out once and looked up (cv2.LUT) rather than a logarithm per pixel; else numpy's."""
    import cv2
    import numpy as np

    if plane.dtype == np.uint8 and plane.ndim == 2 and plane.size and isinstance(d, np.float32):
        return cv2.LUT(np.ascontiguousarray(plane), np.log(np.maximum(np.arange(256, dtype=np.float32), 1.0) / d))
    return np.log(np.maximum(plane.astype(np.float32), 1.0) / d)


def field_labels(config: CardConfig, view: Any, cream: Any, art: CardArt) -> Any:
    """Per pixel the index in FIELD_KINDS of its field colour, or -1 (card stock, table, ink).

    Colours are compared over the cream (the card stock under this light): a coloured field by its
    hue — the direction of its log-chroma — with its saturation and brightness counting a little (a
    washed-out or shaded field keeps its hue); a grey field (points cards) by being nearly
    colourless and darker than the stock, which is the colourless brightest. A table of all 32³
    colours (5 bits a channel) is worked out for this cream, then looked up per pixel. The cream is
    first rounded to `lut_cream_step` (log): a table steady in its light reuses its tables frame
    after frame (the colours are looked up at 5 bits a channel, ~3 %, anyway)."""
    import numpy as np

    step = config.lut_cream_step
    q = tuple(int(v) for v in np.round(np.log(np.maximum(np.asarray(cream, np.float64), 1.0)) / step))
    key = (config, id(art), q)
    lut = _LUTS.get(key)
    if lut is None:
        lut = _field_lut(config, np.exp(np.asarray(q, np.float64) * step), art)
        if len(_LUTS) >= 64:
            _LUTS.pop(next(iter(_LUTS)))      # the oldest
        _LUTS[key] = lut
    return np.take(lut, colour_index(view, 3))


def colour_index(view: Any, drop: int) -> Any:
    """Per pixel of a BGR uint8 view its colour at 8 - `drop` bits a channel as one uint16 (B highest):
    built a plane at a time in 16 bits, a quarter of the time of int32 arithmetic over the view."""
    import cv2
    import numpy as np

    bits = 8 - drop
    if view.dtype != np.uint8 or view.ndim != 3 or view.shape[2] != 3:
        v = view >> drop
        return (v[..., 0].astype(np.int32) << (2 * bits)) | (v[..., 1].astype(np.int32) << bits) | v[..., 2]
    b, g, r = cv2.split(view)
    idx = np.right_shift(b, drop, dtype=np.uint16) << (2 * bits)
    idx |= np.right_shift(g, drop, dtype=np.uint16) << bits
    idx |= r >> drop
    return idx


_LUTS: dict[Any, Any] = {}


def _field_lut(config: CardConfig, cream: Any, art: CardArt) -> Any:
    """field_labels' table: the label of every colour at 5 bits a channel, for this cream."""
    import numpy as np

    q = (np.arange(32, dtype=np.float32) * 8 + 4)
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    cols = np.stack([b.ravel(), g.ravel(), r.ravel()], 1) / np.asarray(cream, np.float32)
    lg = np.log(np.maximum(cols, 0.02))
    m = lg.mean(axis=1)
    c = lg - m[:, None]
    sat = np.linalg.norm(c, axis=1)
    best = np.full(len(cols), np.inf, np.float32)
    lut = np.full(len(cols), -1, np.int8)
    for k, kind in enumerate(FIELD_KINDS):
        ref = art.fields.get(kind)
        if ref is None:
            continue
        lr = np.log(np.maximum(ref, 0.02))
        mr = float(lr.mean())
        cr = lr - mr
        sr = float(np.linalg.norm(cr))
        if sr < config.grey_sat:
            # colourless field: near its brightness, clearly darker than the stock
            ok = (sat < config.grey_sat + 0.08) & (m < -config.stock_margin) & (np.abs(m - mr) < 0.6)
            score = np.where(ok, sat + 0.3 * np.abs(m - mr), np.inf)
        else:
            cosang = (c @ cr) / (sat * sr + 1e-6)
            ang = np.arccos(np.clip(cosang, -1, 1))
            ratio = sat / sr
            ok = (ang < config.hue_max_rad) & (ratio > config.min_sat_ratio) & (sat > config.grey_sat)
            score = np.where(ok, ang + config.brightness_weight * np.abs(m - mr)
                             + 0.2 * np.abs(np.log(np.maximum(ratio, 1e-3))), np.inf)
        better = score < best
        best[better] = score[better]
        lut[better] = k
    return lut


# ----------------------------------------------------------------------------- rows

def label_counts(labels: Any) -> Any:
    """How many pixels of each field kind field_labels found (int64, len(FIELD_KINDS); -1 not counted): on its
    bytes by OpenCV's histogram (exact below 2^24 pixels), else numpy's count."""
    import cv2
    import numpy as np

    n = len(FIELD_KINDS)
    if labels.dtype == np.int8 and labels.size < (1 << 24) and labels.size:
        hist = cv2.calcHist([np.ascontiguousarray(labels).view(np.uint8)], [0], None, [256], [0, 256])
        return hist.ravel()[:n].astype(np.int64)
    return np.bincount(labels[labels >= 0].astype(np.int64), minlength=n)


def _index_counts(idx: Any, n: int) -> Any:
    """np.bincount(idx.ravel(), minlength=n) of a uint16 index image with values below n (int64, the same counts):
    by OpenCV's histogram (exact below 2^24 pixels; half numpy's time over a seat view)."""
    import cv2
    import numpy as np

    if idx.dtype == np.uint16 and idx.ndim == 2 and 0 < idx.size < (1 << 24) and n <= 65536:
        got = cv2.calcHist([np.ascontiguousarray(idx)], [0], None, [n], [0, n]).ravel().astype(np.int64)
        if int(got.sum()) == idx.size:      # (every value below n: else numpy's count, which says so)
            return got
    return np.bincount(idx.ravel(), minlength=n)


def _label_lookup(labels: Any, table: Any) -> Any:
    """table[labels + 1] as bytes (`table`: bool, len(FIELD_KINDS) + 1, entry 0 for -1): on field_labels' bytes
    a byte look-up (-1 is byte 255), else numpy's."""
    import cv2
    import numpy as np

    if labels.dtype == np.int8 and labels.size:
        lut = np.zeros(256, np.uint8)
        lut[:len(table) - 1] = table[1:]
        lut[255] = table[0]
        return cv2.LUT(np.ascontiguousarray(labels).view(np.uint8), lut)
    return table[labels.astype(np.int64) + 1].view(np.uint8)


def table_mask(config: CardConfig, view: Any) -> Any:
    """Pixels of the table's own colours: the most common colours of the seat view (16 levels a
    channel) that together make up `table_share` of it — most of a seat is table."""
    import numpy as np

    idx = colour_index(view, 4)
    hist = _index_counts(idx, 4096)
    order = np.argsort(hist)[::-1]
    cum = np.cumsum(hist[order])
    n = int(np.searchsorted(cum, config.table_share * idx.size)) + 1
    is_table = np.zeros(4096, bool)
    is_table[order[:n]] = True
    return np.take(is_table, idx)


def find_bands(config: CardConfig, labels: Any, sv: SeatView, scale: float = 1.0, table: Any = None,
               card_game: bool = True) -> list[Band]:
    """Columns of card field: each a row of cards (its kind the majority of its field pixels).
    `labels` is the seat view's label map resized by `scale`. A board game's rows hold colour cards
    only: there the points cards' grey and the wish cards' colour are no field (under a warm lamp the
    stock's border and a wood table take them, which widens a row past a field's width and joins rows
    side by side through the table between them)."""
    import cv2
    import numpy as np

    p = sv.ppm * scale
    back = FIELD_KINDS.index("back")
    if labels.dtype == np.int8 and labels.ndim == 2 and labels.size and (
            table is None or (table.dtype == bool and table.shape == labels.shape)):
        # the same mask as below (0/1 bytes) by byte look-ups and OpenCV's logic and histogram
        allowed = np.zeros(len(FIELD_KINDS) + 1, bool)
        allowed[1:] = [k != back if card_game else k < len(COLOURS) for k in range(len(FIELD_KINDS))]
        free = None if table is None else cv2.compare(np.ascontiguousarray(table).view(np.uint8), 0, cv2.CMP_EQ)

        def field_mask() -> Any:
            m = _label_lookup(labels, allowed)
            return m if free is None else cv2.bitwise_and(m, free)

        mask = field_mask()
        counts = cv2.calcHist([np.ascontiguousarray(labels).view(np.uint8)], [0], mask, [256], [0, 256]).ravel()
        # (as integers, as numpy's count: a float32 count against the float threshold would round it)
        over = np.nonzero(counts[:len(FIELD_KINDS)].astype(np.int64) > config.table_fraction * labels.size)[0]
        if over.size:
            allowed[over + 1] = False
            mask = field_mask()
    else:
        mask = (labels >= 0) & (labels != back) if card_game else (labels >= 0) & (labels < len(COLOURS))
        if table is not None:
            mask &= ~table
        # a table of a card's colour beyond its commonest shades: that colour everywhere is the table
        counts = np.bincount(labels[mask].astype(np.int64), minlength=len(FIELD_KINDS))
        for k in np.nonzero(counts > config.table_fraction * labels.size)[0]:
            mask &= labels != k
        mask = mask.astype(np.uint8)
    # speckles of table that pass for a field go first (a row's field is solid), then the cream
    # borders between the strips of a row are bridged
    o = max(3, int(round(config.open_mm * p)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (o, o)))
    k = max(3, int(round(config.close_mm * p)) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (1, k)))
    # a row touching table of its colour (a reddish wood under a red row) hangs on by thin links:
    # eroded, they part; the extents are grown back by as much below
    e = max(1, int(round(config.erode_mm * p)))
    mask = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * e + 1, 2 * e + 1)))
    grow = e / p
    # (labelled within the mask's box: only the pieces' own boxes of the map are looked at below)
    n, comp, stats = _pieces_in_box(mask, 8)
    bands: list[Band] = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if h < config.band_min_height_mm * p or w > config.band_width_mm[1] * p * 2.2:
            continue
        sub = comp[y:y + h, x:x + w] == i
        rows = np.nonzero(sub.sum(axis=1) >= config.band_width_mm[0] * p * 0.6)[0]
        if len(rows) < config.band_min_height_mm * p * 0.5:
            continue
        lefts = np.argmax(sub[rows], axis=1).astype(np.float64) - e
        rights = (w - 1 - np.argmax(sub[rows, ::-1], axis=1)).astype(np.float64) + e
        widths = rights - lefts + 1
        # the centre line only from pixel rows where the whole field width shows
        ok = (widths >= config.row_width_mm[0] * p) & (widths <= config.row_width_mm[1] * p)
        if ok.sum() < config.band_min_height_mm * p * 0.5:
            continue
        centres = (lefts[ok] + rights[ok]) / 2 + x
        vv = rows[ok] + y
        # a crooked row: the centre line by a robust straight fit
        b, a = np.polyfit(vv, centres, 1) if len(vv) > 10 else (0.0, float(np.median(centres)))
        res = centres - (a + b * vv)
        keep = np.abs(res) < max(2.0, 3 * np.median(np.abs(res)) + 1)
        if keep.sum() > 10:
            b, a = np.polyfit(vv[keep], centres[keep], 1)
        lab = labels[y:y + h, x:x + w][sub]
        lab = lab[lab >= 0]
        kinds = np.bincount(lab.astype(np.int64), minlength=len(FIELD_KINDS))
        numbers = kinds[:len(COLOURS)]
        kind = FIELD_KINDS[int(np.argmax(numbers))] if numbers.max() > 0.25 * kinds.sum() else \
            FIELD_KINDS[int(np.argmax(kinds))]
        # centre column = a + b·row (view px) → u = a/p + b·(v + margin) - margin (seat mm)
        m = sv.margin
        bands.append(Band(kind, float(a / p + b * m - m), float(b), float((rows[0] + y) / p - m - grow),
                          float((rows[-1] + y + 1) / p - m + grow)))
    bands.sort(key=lambda bd: bd.centre_u(0.0))
    return bands


def whiteness(view: Any, cream: Any) -> Any:
    """The smallest of B, G, R over the cream's (float32): 1 on the card stock, low on any colour."""
    import cv2
    import numpy as np

    c = np.maximum(np.asarray(cream, np.float64), 1.0)
    b, g, r = cv2.split(view)
    return cv2.min(cv2.min(cv2.multiply(b, 1.0 / c[0], dtype=cv2.CV_32F),
                           cv2.multiply(g, 1.0 / c[1], dtype=cv2.CV_32F)),
                   cv2.multiply(r, 1.0 / c[2], dtype=cv2.CV_32F))


def pixel_noise(w: Any) -> float:
    """A robust estimate of a picture's pixel-to-pixel noise (its sigma): the median absolute
    difference from a 3-px median (taken at every other pixel each way). Smooth shading, edges and a
    picture upsampled from fewer pixels count little."""
    import cv2
    import numpy as np

    if w.shape[0] < 3 or w.shape[1] < 3:
        return 0.0
    r = cv2.absdiff(w[::2, ::2], cv2.medianBlur(w, 3)[::2, ::2]).ravel()   # (only the pixels sampled)
    # the same median, with the zeros (most pixels of a clean picture) counted rather than partitioned:
    # numpy's selection slows ~10x on that many equal values (~4 ms a seat view)
    k = r.size // 2
    moved = r[r > 0]
    zeros = r.size - moved.size
    if k < zeros:
        return 0.0
    return 1.4826 * float(np.partition(moved, k - zeros)[k - zeros])


def border_contrast(config: CardConfig, view: Any, cream: Any, ppm: float) -> tuple[Any, Any, Any, Any]:
    """(whiteness, top-hat, step, local white): how white each pixel is over the cream, how much whiter
    than what lies either side within `border_open_mm`, and than the darkest pixel that near; and the
    whitest of the stock's hue within `white_local_mm` (or None). All scale with 1/brightness of the cream:
    guesses of the stock's brightness at one hue share them (outlined_fields' `scale`)."""
    import cv2

    w = whiteness(view, cream)
    if config.border_smooth_px > 0 and pixel_noise(w) > config.border_noise_share * config.border_tophat:
        w = cv2.GaussianBlur(w, (0, 0), config.border_smooth_px)
    k = max(3, int(round(config.border_open_mm * ppm)) | 1)
    ker = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    eroded = cv2.erode(w, ker)
    opened = cv2.dilate(eroded, ker)
    # (w - eroded: how much whiter than the darkest pixel near it — a border beside a pale table is
    # no whiter than the table, but much whiter than the field it outlines)
    return w, w - opened, w - eroded, local_white(config, view, w, cream, ppm)


def local_white(config: CardConfig, view: Any, w: Any, cream: Any, ppm: float) -> Any:
    """The whitest the stock's hue is near each pixel (within `white_local_mm`; at a quarter of the
    view's resolution, smoothed first so that noise does not count): under a glare's veil (the lamp's
    own colour, as the stock's) the stock there; a pale table of another hue does not count. None
    when `white_local_mm` is 0."""
    import cv2
    import numpy as np

    if config.white_local_mm <= 0:
        return None
    h, wd = w.shape
    q = cv2.pyrDown(cv2.pyrDown(w))
    v = cv2.pyrDown(cv2.pyrDown(view))
    c = np.maximum(np.asarray(cream, np.float32), 1.0)
    lg = [_log_over(v[..., i], c[i]) for i in range(3)]
    m = (lg[0] + lg[1] + lg[2]) / 3
    q[((lg[0] - m) ** 2 + (lg[1] - m) ** 2 + (lg[2] - m) ** 2) > config.cream_hue_dist ** 2] = 0.0
    k = max(3, int(round(2 * config.white_local_mm * ppm / 4)) | 1)
    q = cv2.dilate(q, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    return cv2.resize(q, (wd, h), interpolation=cv2.INTER_LINEAR)


def _pieces_in_box(mask: Any, connectivity: int) -> tuple[int, Any, Any]:
    """cv2.connectedComponentsWithStats(mask, connectivity) for callers that look at the component map only inside
    the pieces' own boxes (stats[1:]): the same n, the same labels and the same stats[1:] (boxes in `mask`'s
    coordinates), but labelled within the box of the mask's set pixels, its corner at even coordinates (OpenCV's
    8-connected labelling scans 2x2 blocks: so they are the same blocks, met in the same order). The map outside
    that box is background (0); stats[0] (the background) is of the box only. A seat view's row mask covers a
    quarter of it."""
    import cv2
    import numpy as np

    x, y, w, h = cv2.boundingRect(mask)
    x0, y0 = x - x % 2, y - y % 2
    comp = np.zeros(mask.shape, np.int32)
    if w == 0 or h == 0:
        n, stats = 1, np.array([[0, 0, mask.shape[1], mask.shape[0], mask.size]], np.int32)
        return n, comp, stats
    n, part, stats, _centroids = cv2.connectedComponentsWithStats(mask[y0:y + h, x0:x + w], connectivity=connectivity)
    comp[y0:y + h, x0:x + w] = part
    stats[1:, cv2.CC_STAT_LEFT] += x0
    stats[1:, cv2.CC_STAT_TOP] += y0
    return n, comp, stats


def _pieces(mask: Any, lo: float = 0.0, hi: float = float("inf"), *, boxes: bool = True) -> tuple[int, Any, Any]:
    """cv2.connectedComponentsWithStats(mask, connectivity=4), the same labels and areas, but the boxes only of
    the pieces whose area is within [lo, hi] (every other row's box 0; none with `boxes` false): only a few
    pieces of card size are ever looked at. (n, component map, stats).

    With boxes, OpenCV's own statistics (its labelling and statistics in one pass, ~2x the labelling alone)
    cost less than a mask and a bounding box per piece in range once two or more are (session 30: the
    outline table view of a still, 20 pieces in range, 32 -> 18 ms); without, the areas are counted."""
    import cv2
    import numpy as np

    if boxes:
        n, comp, found, _centroids = cv2.connectedComponentsWithStats(mask, connectivity=4)
        stats = np.zeros((n, 5), np.int32)
        area = found[:, cv2.CC_STAT_AREA]
        stats[:, cv2.CC_STAT_AREA] = area
        keep = (area >= lo) & (area <= hi)
        keep[0] = False
        stats[keep, :4] = found[keep, :4]
        return n, comp, stats
    n, comp = cv2.connectedComponents(mask, connectivity=4)
    area = np.zeros(n, np.int64)
    for r0 in range(0, comp.shape[0], 128):
        # (a band of rows at a time: bincount counts in 64-bit, and the whole map so would be 8 bytes a pixel)
        area += np.bincount(comp[r0:r0 + 128].ravel(), minlength=n)
    stats = np.zeros((n, 5), np.int32)
    stats[:, cv2.CC_STAT_AREA] = area
    return n, comp, stats


def outlined_fields(config: CardConfig, view: Any, cream: Any, ppm: float,
                    contrast: tuple[Any, Any, Any, Any, float] | None = None) -> tuple[Any, Any, Any]:
    """The card fields the cream borders enclose: (component map, stats, separators) of the view (stats: _pieces',
    the boxes of the pieces a field wide and `min_piece_mm` high, every other piece's box 0; separators: bytes,
    255 on a border).

    Every card has a light border round its printed field; every top border of a row crosses its
    strips. Whatever the table's colour, a border is a thin line whiter than both its sides (a
    top-hat of the whiteness), or, on a table as pale as the stock, simply white. The pixels that
    are neither split into pieces: each visible field of a card is one piece about a field wide.
    `contrast`: border_contrast of a cream of this hue, and this cream's brightness over it."""
    import cv2
    import numpy as np

    if contrast is None:
        w, tophat, step, white = border_contrast(config, view, cream, ppm)
        scale = 1.0
    else:
        w, tophat, step, white, scale = contrast
    # "simply white" is white for where it lies: under a glare's veil (whiter than the stock can be
    # without one) a washed-out field is whiter than the stock elsewhere, but not than the stock beside it
    bright = config.border_white * scale if white is None else \
        config.border_white * np.maximum(white, scale)
    # (as bytes, 255 where true: OpenCV's compares and logic, each exactly numpy's on these float32 arrays)
    sep = cv2.bitwise_or(cv2.bitwise_or(_greater(tophat, config.border_tophat * scale), _greater(w, bright)),
                         cv2.bitwise_and(_greater(step, config.border_step * scale),
                                         _greater(w, config.border_step_white * scale)))
    # (only pieces at least a field wide and `min_piece_mm` high are ever looked at: 4-connected, such a piece
    # has at least width + height - 1 pixels, and only those need their boxes)
    lo = math.ceil(config.field_width_mm[0] * ppm) + math.ceil(config.min_piece_mm * ppm) - 1
    n, comp, stats = _pieces(cv2.bitwise_not(sep), lo)
    return comp, stats, sep


def _greater(a: Any, t: Any) -> Any:
    """`a > t` as bytes (255 where true, else 0), exactly as numpy has it: OpenCV's compare where it is the same
    (a float32 or byte array against a Python number, which numpy rounds to float32 for a float32 array and OpenCV
    too; or against an array of a's type), numpy's otherwise. A few times faster over a seat view."""
    import cv2
    import numpy as np

    if a.ndim == 2 and a.dtype in (np.float32, np.uint8) and (type(t) in (float, int) or (
            isinstance(t, np.ndarray) and t.dtype == a.dtype and t.shape == a.shape)):
        return cv2.compare(a, t, cv2.CMP_GT)
    return (a > t).view(np.uint8) * np.uint8(255)


def field_piece_mm(config: CardConfig, stats: Any, ppm: float) -> float:
    """The summed height (mm) of the outlined pieces about a card's field wide and solid: how much
    card field a guess of the stock's brightness outlines (read_seat_cards' choice among guesses)."""
    import numpy as np

    w, h, area = stats[1:, 2], stats[1:, 3], stats[1:, 4]
    ok = (w >= config.field_width_mm[0] * ppm) & (w <= config.field_width_mm[1] * ppm) & \
        (h >= config.min_piece_mm * ppm) & (area >= config.piece_fill * w * h)
    return float(h[ok].sum()) / ppm


def piece_kind(config: CardConfig, view: Any, cream: Any, sub: Any, x: int, y: int, art: CardArt,
               card_game: bool) -> str | None:
    """The field kind of one outlined piece, or None (see piece_kind_distances)."""
    dists = piece_kind_distances(config, view, cream, sub, x, y, art, card_game)
    best = min(dists, key=dists.get) if dists else None
    return best if best is not None and dists[best] < config.piece_max_chroma_dist else None


def piece_kind_distances(config: CardConfig, view: Any, cream: Any, sub: Any, x: int, y: int, art: CardArt,
                         card_game: bool, kinds: tuple[str, ...] | None = None, field: Any = None) -> dict[str, float]:
    """The field kind of one outlined piece (`sub`: its mask in its box at (x, y)).

    Its median colour is taken over the seat's card stock (`cream`), so the light's colour cancels
    (the stock right round a piece would be better, but at ~1 px/mm its 2 mm borders blur into the
    field). Glare adds white light to both: a field of art
    colour f (over the stock) then shows (f + t) / (1 + t) for some veil t >= 0, its colour washed
    out but not turned. Each kind's best veil is searched; the kind whose washed-out colour matches
    the piece's hue (log-chroma) best names it; None when no kind comes near (no card field).
    A veil also lightens: the field then shows at least (f + t) / (1 + t) of the stock's brightness (more
    when the veil lies on the piece only, less by the light's shading). A veil that would make the piece
    brighter than it is by more than `veil_shade` (log) costs `veil_dark_weight` per log unit over that
    (never below the kind's unveiled brightness: a stock guess too bright darkens every piece alike): a
    grey points card, ~0.7 of the stock, is not a pink washed grey, which would be nearly as bright as
    the stock.
    Here: each kind's distance (log-chroma at its best veil); `kinds`: these kinds instead (e.g. the backs);
    `field`: the piece's piece_median when the caller has it."""
    import numpy as np

    field = piece_median(view, sub, x, y) if field is None else field
    lg = np.log(np.maximum(field, 1.0) / np.maximum(cream, 1.0))
    m = float(lg.mean())
    c = lg - m
    names, cw, bright, bare = _washed_fields(config.piece_veils, art,
                                             kinds if kinds is not None else
                                             (*COLOURS, *(("points", "wish") if card_game else ())))
    if not names:
        return {}
    # (kinds × veils) at once: the hue distance, plus what the veil's lightening costs
    floor = np.maximum(m + config.veil_shade, bare)[:, None]
    d = np.linalg.norm(cw - c, axis=2) + config.veil_dark_weight * np.maximum(0.0, bright - floor)
    return dict(zip(names, (float(v) for v in d.min(axis=1))))


_WASHED: dict[Any, Any] = {}


def _washed_fields(veils: tuple[float, ...], art: CardArt, kinds: tuple[str, ...]) -> tuple[Any, Any, Any, Any]:
    """For each of `kinds` the art has, its field over the stock under each veil t, (f + t) / (1 + t) in
    log: (names, log-chroma K×V×3, brightness K×V, brightness under no veil K); kept per art."""
    import numpy as np

    key = (id(art), veils, kinds)
    got = _WASHED.get(key)
    if got is not None and got[0] is art:
        return got[1]
    names = tuple(k for k in kinds if art.fields.get(k) is not None)
    t = np.asarray(veils, np.float32)[None, :, None]
    refs = np.asarray([np.maximum(np.asarray(art.fields[k], np.float32), 0.02) for k in names],
                      np.float32).reshape(len(names), 1, 3)
    washed = np.log(refs + t) - np.log1p(t)
    bright = washed.mean(axis=2)
    bare = bright[:, int(np.argmin(veils))] if len(veils) else np.zeros(len(names), np.float32)
    out = (names, washed - bright[:, :, None], bright, bare)
    if len(_WASHED) >= 64:
        _WASHED.pop(next(iter(_WASHED)))
    _WASHED[key] = (art, out)
    return out


def piece_median(view: Any, sub: Any, x: int, y: int) -> Any:
    """The median colour (float32, per channel) of an outlined piece (`sub`: its mask in its box at (x, y)):
    np.median(pixels.astype(float32), axis=0), on a byte view by a selection a channel at a time (the same
    values: the mean of two bytes is exact in float32; a third of numpy's median over the pixels' rows)."""
    import numpy as np

    h, w = sub.shape
    px = view[y:y + h, x:x + w][sub]
    n = px.shape[0]
    if view.dtype != np.uint8 or px.ndim != 2 or n == 0:
        return np.median(px.astype(np.float32), axis=0)
    ch = np.ascontiguousarray(px.T)
    k = n // 2
    if n % 2:
        return np.partition(ch, k, axis=1)[:, k].astype(np.float32)
    part = np.partition(ch, (k - 1, k), axis=1)
    return (part[:, k - 1].astype(np.float32) + part[:, k].astype(np.float32)) / np.float32(2.0)


def piece_chroma(view: Any, cream: Any, sub: Any, x: int, y: int, field: Any = None) -> float:
    """How coloured an outlined piece is: the log-chroma norm of its median colour over the stock (`field`: its
    piece_median when the caller has it)."""
    import numpy as np

    field = piece_median(view, sub, x, y) if field is None else field
    return log_chroma_norm(np.asarray(field, np.float64) / np.maximum(np.asarray(cream, np.float64), 1.0))


def log_chroma_norm(rel: Any) -> float:
    """The log-chroma norm of a colour given over the stock (0: the stock's hue, any brightness)."""
    import numpy as np

    lg = np.log(np.maximum(np.asarray(rel, np.float64), 0.02))
    return float(np.linalg.norm(lg - lg.mean()))


def grey_chroma_max(config: CardConfig, art: CardArt) -> float | None:
    """The most colour (log-chroma) a piece may show and still be taken for a washed-out points card by
    the points rule (_nearest_kind); None: no limit (or no points art)."""
    ref = art.fields.get("points")
    if config.points_grey_chroma is None or ref is None:
        return None
    return log_chroma_norm(ref) + config.points_grey_chroma


def _nearest_kind(config: CardConfig, dists: dict[str, float], chroma: float | None = None,
                  grey_max: float | None = None) -> tuple[str | None, dict[str, float]]:
    """The kind nearest `dists` (piece_kind_distances), None when none is near enough. `chroma`: the
    piece's (piece_chroma); `grey_max`: grey_chroma_max."""
    best = min(dists, key=dists.get) if dists else None
    if best in NUMBER_KINDS and "points" in dists and dists["points"] - dists[best] < config.points_grey_margin and \
            (chroma is None or grey_max is None or chroma <= grey_max):
        # every colour washed out by a strong enough veil turns grey: a piece about as near the
        # points cards' grey as its colour, and no more coloured than they are, shows no colour to go
        # by (card game)
        best = "points"
    return (best if best is not None and dists[best] < config.piece_max_chroma_dist else None), dists


def _trim_leak(config: CardConfig, sub: Any, ppm: float, field_h_mm: float) -> list[tuple[int, int, Any, bool]]:
    """The top of a too wide piece down to where it first grows wider than a field (a field leaking
    out under its bottom border or past a token on its side): [(x, y offsets in `sub`, mask, closed)].

    Where one side of the field stays straight and the rows still cover the field's width, the
    field goes on past the straight run (its border broken on the other side only: a pale table
    round it); cut at the field's sides. `closed`: the part ends at a border above and below it
    (the rows beyond, within its sides, lie mostly outside the piece) and is a whole card's field
    tall (`field_h_mm`, less `last_card_slack_mm`): a card whose border broke on one side, not table
    between two rows (whose ends run on)."""
    import numpy as np

    rows = np.nonzero(sub.any(axis=1))[0]
    if len(rows) == 0:
        return []
    left = np.argmax(sub, axis=1)
    right = sub.shape[1] - 1 - np.argmax(sub[:, ::-1], axis=1)
    width = np.where(sub.any(axis=1), right - left + 1, 0)
    ok = (width >= config.field_width_mm[0] * ppm) & (width <= config.field_width_mm[1] * ppm)
    if not ok.any():
        return []
    # a field's sides are straight: where a side moves off, the table begins; no field is taller
    # than a card's. Of the runs of field-wide rows with straight sides, the tallest.
    drift = config.chain_shift_mm / 2 * ppm
    max_h = int(field_h_mm * ppm)
    start, end, r = 0, 0, 0
    while r < len(ok):
        if not ok[r]:
            r += 1
            continue
        e = r + 1
        while e < len(ok) and e - r < max_h and ok[e] and abs(left[e] - left[r]) <= drift and \
                abs(right[e] - right[r]) <= drift:
            e += 1
        if e - r > end - start:
            start, end = r, e
        r = e
    x0, x1 = int(left[start:end].min()), int(right[start:end].max()) + 1

    def goes_on(r: int) -> bool:
        # row r still holds the field: it spans the field's width and covers most of it (numerals
        # and the picture are holes), one side where the field's is
        if not 0 <= r < sub.shape[0] or not sub[r, x0:x1].mean() >= config.leak_cover:
            return False
        if left[r] > x0 + drift or right[r] < x1 - 1 - drift:
            return False
        return bool(abs(left[r] - x0) <= drift or abs(right[r] - (x1 - 1)) <= drift)

    # (and past a top border, as the row's strips do: a row is one column)
    gap = int(round(config.chain_gap_mm * ppm))
    while True:
        up = next((g for g in range(1, gap + 2) if goes_on(start - g)), 0)
        if not up:
            break
        start -= up
    while True:
        down = next((g for g in range(0, gap + 1) if goes_on(end + g)), -1)
        if down < 0:
            break
        end += down + 1
    # the rounded top corners above the first full row belong to it too
    top = rows[0] if start - rows[0] < config.min_strip_mm * ppm / 2 else start

    def open_at(r: int) -> bool:
        return 0 <= r < sub.shape[0] and sub[r, x0:x1].mean() > config.leak_closed

    def shut(r: int, step: int) -> bool:
        # a border (or the piece's end) within a top border's reach beyond row r (its rounded corners
        # and the blur lie between)
        return any(not open_at(r + step * g) for g in range(gap + 1))

    # (and it shows a whole card's field at least, as a row's last card does: a patch of table between
    # rows, closed by their borders and the table's grain, is seldom that long)
    closed = end - top >= (field_h_mm - config.last_card_slack_mm) * ppm and shut(top - 1, -1) and shut(end, 1)
    part = sub[top:end].copy()
    part[:, :x0] = False
    part[:, x1:] = False
    return [(x0, int(top), part[:, x0:x1], closed)]


def _colour_parts(config: CardConfig, sub: Any, labels: Any, ppm: float, kinds: list[int]) -> list[tuple[int, int, Any]]:
    """The parts of a too wide piece that show a card's field colour (`kinds`, label indices), each
    about a field wide: (x, y offsets in `sub`, mask). Table speckle of a card's colour is opened away."""
    import cv2
    import numpy as np

    if not kinds or not sub.any():
        return []
    ys, xs = np.nonzero(sub.any(axis=1))[0], np.nonzero(sub.any(axis=0))[0]
    y0, x0 = int(ys[0]), int(xs[0])
    sub, labels = sub[y0:ys[-1] + 1, x0:xs[-1] + 1], labels[y0:ys[-1] + 1, x0:xs[-1] + 1]
    allowed = np.zeros(len(FIELD_KINDS) + 1, bool)
    allowed[np.asarray(kinds) + 1] = True
    mask = (sub & _label_lookup(labels, allowed).view(bool)).view(np.uint8)
    o = max(3, int(round(config.open_mm * ppm)) | 1)
    # (the opening as its erosion and dilation, as morphologyEx does it; nothing left, nothing more to do: the
    # labelling's statistics cost ~2 ms over a seat view even where it is empty, as the dilation does)
    if not cv2.countNonZero(mask):
        return []
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (o, o))
    mask = cv2.erode(mask, ker)
    if not cv2.countNonZero(mask):
        return []
    mask = cv2.dilate(mask, ker)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for j in range(1, n):
        x, y, w, h, _a = (int(v) for v in stats[j])
        if not (config.field_width_mm[0] * ppm <= w <= config.field_width_mm[1] * ppm) or h < config.min_piece_mm * ppm:
            continue
        out.append((x + x0, y + y0, lab[y:y + h, x:x + w] == j))
    return out


def find_bands_outlined(config: CardConfig, view: Any, cream: Any, sv: SeatView, art: CardArt,
                        card_game: bool = True, scale: float = 1.0, contrast: tuple[Any, Any, Any, Any, float] | None = None,
                        memo: dict | None = None, fields: tuple[Any, Any] | None = None,
                        labels: Any = None) -> list[Band]:
    """Rows as chains of outlined card fields (outlined_fields) one under the other, each about a
    field wide; a row's kind is its fields' majority colour (a coloured row may hold points cards).
    `view` is the seat view resized by `scale`. Guesses of the stock's brightness at one hue share
    `contrast` (outlined_fields) and `memo`: a piece found again (same box and area) is the same
    piece, and its kind and leak parts do not depend on the brightness (the kind compares hues).
    `labels`: field_labels of `view`; with them a piece leaking into the table also gives up its
    parts of a card's colour (a first strip whose top border a pale table swallows)."""
    import numpy as np

    p = sv.ppm * scale
    memo = {} if memo is None else memo
    grey_max = grey_chroma_max(config, art) if card_game else None
    comp, stats = fields if fields is not None else outlined_fields(config, view, cream, p, contrast)[:2]
    pieces, leaked, leaking = [], [], []

    def add_piece(x: int, y: int, mask: Any, area: int, was_leaked: bool) -> None:
        """A field piece of a card kind (its colour nearest one; memoised by box and area) joins."""
        h, w = mask.shape
        key = ("kind", x, y, w, h, area, round(float(np.sum(cream)), 1))
        if key not in memo:
            field = piece_median(view, mask, x, y)
            memo[key] = (piece_kind_distances(config, view, cream, mask, x, y, art, card_game, field=field),
                         piece_chroma(view, cream, mask, x, y, field) if card_game else None)
        kind, dists = _nearest_kind(config, memo[key][0], memo[key][1], grey_max)
        if kind is not None:
            pieces.append({"x": x, "y": y, "w": w, "h": h, "mask": mask, "cx": x + w / 2, "kind": kind,
                           "area": area, "leaked": was_leaked, "dists": dists})

    field_kinds: list[int] = []
    if labels is not None:
        # the card colours a leaking piece may give up: not one the table itself shows everywhere
        kinds = [FIELD_KINDS.index(k) for k in (*COLOURS, *(("points", "wish") if card_game else ()))]
        counts = label_counts(labels)
        field_kinds = [k for k in kinds if counts[k] <= config.table_fraction * labels.size]
    big = np.nonzero((stats[:, 2] >= config.field_width_mm[0] * p) & (stats[:, 3] >= config.min_piece_mm * p))[0]
    for i in big[big > 0]:
        x, y, w, h, area = (int(v) for v in stats[i])
        if w > config.field_width_mm[1] * p:
            if h >= config.leak_min_mm * p and w <= config.leak_max_mm * p:
                # a field leaking into the table through a gap in its border (a token touching the
                # card, glare, a pale table): its top down to where it widens, and (below) its parts
                # of a card's colour, may join a row found anyway
                key = ("leak", x, y, w, h, area)
                if key not in memo:
                    memo[key] = _trim_leak(config, comp[y:y + h, x:x + w] == i, p, art.size[1] - 3.0)
                leaked.extend((x + dx, y + dy, part, closed) for dx, dy, part, closed in memo[key])
                if labels is not None:
                    leaking.append(i)
            continue
        if area < config.piece_fill * w * h:
            continue
        add_piece(x, y, comp[y:y + h, x:x + w] == i, area, False)
    for i in leaking:
        # a leaking piece's parts of a card's colour (they may only join a row found anyway)
        x, y, w, h, area = (int(v) for v in stats[i])
        key = ("leak colour", x, y, w, h, area)
        if key not in memo:
            memo[key] = _colour_parts(config, comp[y:y + h, x:x + w] == i, labels[y:y + h, x:x + w], p, field_kinds)
        leaked.extend((x + dx, y + dy, part, False) for dx, dy, part in memo[key])
    for px, py, part, closed in leaked:
        ph, pw = part.shape
        area = int(part.sum())
        if not (config.field_width_mm[0] * p <= pw <= config.field_width_mm[1] * p) or \
                ph < config.min_piece_mm * p or area < config.piece_fill * pw * ph:
            continue
        # (a side on the view's edge is the picture's cut, no border)
        on_edge = px <= 0 or py <= 0 or px + pw >= comp.shape[1] or py + ph >= comp.shape[0]
        add_piece(px, py, part, area, not closed or on_edge)
    # pieces of one row: centres near (a crooked row drifts a little with the distance) and no more
    # than a top border apart (overlapping: one piece may have leaked into the table below)
    parent = list(range(len(pieces)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, q in enumerate(pieces):
        for j in range(i):
            r = pieces[j]
            gap = max(q["y"], r["y"]) - min(q["y"] + q["h"], r["y"] + r["h"])
            dy = abs((q["y"] + q["h"] / 2) - (r["y"] + r["h"] / 2))
            shift = abs(q["cx"] - r["cx"])
            if gap < config.chain_gap_mm * p and shift < config.chain_shift_mm * p + config.max_slope * dy:
                parent[root(i)] = root(j)
            elif gap < config.chain_far_gap_mm * p and _far_kinds(q, r, card_game) and \
                    shift < config.chain_far_shift_mm * p + config.max_slope * dy and \
                    abs(q["w"] - r["w"]) < config.chain_far_width_mm * p:
                # one column of one colour with a gap: strips in between whose outlines were lost
                # (card game: or a colour's strips and, below them, a points card laid on the row)
                parent[root(i)] = root(j)
    groups: dict[int, list[dict]] = {}
    for i, q in enumerate(pieces):
        groups.setdefault(root(i), []).append(q)
    # a leaked part only adds to a row of clean pieces of its kind (alone it may be a piece of table)
    for key in list(groups):
        g = groups[key]
        clean = [q for q in g if not q["leaked"]]
        if not clean:
            del groups[key]
            continue
        kinds = {q["kind"] for q in clean}
        if card_game and config.leaked_points_on_row and kinds & NUMBER_KINDS:
            # (a colour row may end in a points card: its field, leaked, joins below the row's pieces)
            bottom = max(q["y"] + q["h"] for q in clean)
            groups[key] = clean + [q for q in g if q["leaked"] and (q["kind"] in kinds or (
                q["kind"] == "points" and q["y"] + q["h"] / 2 > bottom))]
            continue
        groups[key] = clean + [q for q in g if q["leaked"] and q["kind"] in kinds]
    chains = [sorted(g, key=lambda q: q["y"]) for g in groups.values()]
    if card_game:
        # the points row and the wish row may lie one above the other in one column (close enough to
        # chain); neither holds the other's cards, so a chain is split where points meet wish cards
        chains = [part for ch in chains for part in _split_points_wish(ch)]
    bands: list[Band] = []
    m = sv.margin
    for ch in chains:
        kind = _chain_kind(ch, config.kind_piece_cap_mm * p)
        if kind in NUMBER_KINDS:
            # a row holds its colour's cards (and, card game, points cards): a piece named another
            # colour at either end is no card of it but the table beyond, outlined by the end card's
            # border and the view's edge or the table's grain (wood named yellow above a pink row)
            while len(ch) > 1 and ch[0]["kind"] in NUMBER_KINDS and ch[0]["kind"] != kind:
                ch = ch[1:]
            while len(ch) > 1 and ch[-1]["kind"] in NUMBER_KINDS and ch[-1]["kind"] != kind:
                ch = ch[:-1]
        if sum(q["h"] for q in ch) < config.min_row_field_mm * p:
            continue
        vv, centres = [], []
        for q in ch:
            sub = q["mask"]
            rows = np.nonzero(sub.any(axis=1))[0]
            lefts = np.argmax(sub[rows], axis=1).astype(np.float64)
            rights = (q["w"] - 1 - np.argmax(sub[rows, ::-1], axis=1)).astype(np.float64)
            ok = (rights - lefts + 1) >= config.field_width_mm[0] * p
            vv.extend(rows[ok] + q["y"])
            centres.extend((lefts[ok] + rights[ok] + 1) / 2 + q["x"])
        vv, centres = np.array(vv, np.float64), np.array(centres, np.float64)
        if len(vv) < 3:
            continue
        # a crooked row: its centre line by a robust straight fit over every piece's full-width rows
        b, a = np.polyfit(vv, centres, 1) if np.ptp(vv) > 10 else (0.0, float(np.median(centres)))
        res = centres - (a + b * vv)
        keep = np.abs(res) < max(1.5, 3 * np.median(np.abs(res)) + 0.5)
        if keep.sum() > 10 and np.ptp(vv[keep]) > 10:
            b, a = np.polyfit(vv[keep], centres[keep], 1)
        if abs(b) > config.max_slope:
            b, a = 0.0, float(np.median(centres))
        y0 = min(q["y"] for q in ch)
        y1 = max(q["y"] + q["h"] for q in ch)
        # how near each colour the row's coloured pieces are (area-weighted): a second choice when two
        # rows claim one colour (seat_reading)
        coloured = [q for q in ch if q["kind"] in NUMBER_KINDS]
        weight = sum(q["area"] for q in coloured)
        colour_dist = {c: sum(q["area"] * q["dists"].get(c, 9.0) for q in coloured) / weight
                       for c in (*COLOURS, *(("wish",) if card_game else ()))} if weight else {}
        # view px → seat mm: u = (a + b·row)/p - m with row = (v + m)·p
        # (a + b·row) is in pixel edges, row r spans v = r/p - m ... so u = (a + b·((v + m)·p - ½))/p - m
        bands.append(Band(kind, float((a - 0.5 * b) / p + b * m - m), float(b), float(y0 / p - m),
                          float(y1 / p - m), field_tops=[q["y"] / p - m for q in ch], colour_dist=colour_dist))
    bands.sort(key=lambda bd: bd.centre_u(0.0))
    return bands


def _far_kinds(q: dict, r: dict, card_game: bool) -> bool:
    """Whether two pieces of one column a gap apart may be one row by their kinds: of one kind, or (card
    game) a colour's piece and, below it, a points piece (a points card laid on that colour's row)."""
    if q["kind"] == r["kind"]:
        return True
    if not card_game:
        return False
    upper, lower = (q, r) if q["y"] < r["y"] else (r, q)
    return upper["kind"] in NUMBER_KINDS and lower["kind"] == "points"


def _split_points_wish(ch: list[dict]) -> list[list[dict]]:
    """A chain of pieces (top to bottom) cut where its points pieces meet its wish pieces: runs of
    one of the two kinds (other colours' pieces stay with the run they lie in). A single piece
    between two runs of the other kind is taken for a misnamed strip of theirs, not cut out."""
    tags = [q["kind"] if q["kind"] in ("points", "wish") else None for q in ch]
    named = [i for i, t in enumerate(tags) if t is not None]
    for n, i in enumerate(named[1:-1], 1):
        before, after = tags[named[n - 1]], tags[named[n + 1]]
        if before == after != tags[i]:
            tags[i] = before
    cuts = [i for a, i in zip(named, named[1:]) if tags[a] != tags[i]]
    if not cuts:
        return [ch]
    parts, start = [], 0
    for i in cuts:
        parts.append(ch[start:i])
        start = i
    parts.append(ch[start:])
    return parts


def _chain_kind(ch: list[dict], cap_px: float) -> str:
    """A chain of pieces' field kind: its pieces' majority by area, each piece counted at most
    `cap_px` tall (one card one vote, whether the last card's whole field or a covered strip); a
    colour row may hold points cards (card game), so a colour covering a quarter of them and the
    points names the row."""
    import numpy as np

    kinds = np.zeros(len(FIELD_KINDS))
    for q in ch:
        kinds[FIELD_KINDS.index(q["kind"])] += q["area"] * min(1.0, cap_px / max(1, q["h"]))
    numbers = kinds[:len(COLOURS)]
    # (against the points cards it may hold; a wish row holds wish cards only: plain majority there)
    points, wish = kinds[FIELD_KINDS.index("points")], kinds[FIELD_KINDS.index("wish")]
    return FIELD_KINDS[int(np.argmax(numbers))] if numbers.max() > 0.25 * (numbers.sum() + points) and \
        numbers.max() >= wish else FIELD_KINDS[int(np.argmax(kinds))]


def straighten(band: Band, image: Any, sv: SeatView, width_mm: float, pad_mm: float,
               nearest: bool = False, from_frame: bool = False, pad_above_mm: float | None = None,
               first_row: int = 0) -> tuple[Any, float]:
    """The band remapped upright at the view's ppm: x 0 = the card's left edge, y 0 = `v0 - pad`
    (`pad_above_mm` when given). `image` is the seat view, or with `from_frame` the frame itself (the
    band's points taken through the view's maps: no whole view warped). Returns (image, v of row 0
    in seat mm). With `first_row` only the rows from that one down are remapped (the image returned
    begins there; v of row 0 is still the whole image's), each pixel exactly as in the whole image."""
    import cv2
    import numpy as np

    p = sv.ppm
    above = pad_mm if pad_above_mm is None else pad_above_mm
    v_start = band.v0 - above
    h = int(round((band.v1 - band.v0 + pad_mm + above) * p))
    w = int(round(width_mm * p))
    vv = v_start + (np.arange(first_row, max(first_row, h), dtype=np.float32) + 0.5) / p
    uu = (np.arange(w, dtype=np.float32) + 0.5) / p - width_mm / 2
    gu = uu[None, :] + (band.a + band.b * vv)[:, None]
    if gu.dtype == np.float32 and vv.dtype == np.float32:
        # (sv.to_view of every pixel's seat u, v in float32, as below, worked out in place; v is one per row)
        mx = gu
        mx += sv.margin
        mx *= sv.ppm
        rows = sv.to_view(0.0, vv)[1]
        if from_frame:
            # where the view would be sampled, through the view's (smooth) maps: the same points of the frame
            mx, my = sv.frame_maps(mx, rows, in_place=True)
        else:
            my = np.repeat(rows[:, None], w, axis=1)
    else:
        gv = np.repeat(vv[:, None], w, axis=1)
        mx, my = sv.to_view(gu, gv)
        mx, my = mx.astype(np.float32), my.astype(np.float32)
        if from_frame:
            mx, my = sv.frame_maps(mx, my)
    out = cv2.remap(image, mx, my,
                    cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out, v_start


def _upright(config: CardConfig, band: Band, view: Any, sv: SeatView, width_mm: float, pad_mm: float,
             above_mm: float, from_frame: bool, cream: Any, art: CardArt, skip: int) -> tuple[Any, Any, Any, float]:
    """The band straightened (straighten), its field labels and whiteness, and v of row 0; the top `skip` rows
    left out (black, no field, whiteness 0: read_band reads none of them)."""
    import numpy as np

    upright, v_start = straighten(band, view, sv, width_mm, pad_mm, from_frame=from_frame, pad_above_mm=above_mm,
                                  first_row=skip)
    lb = field_labels(config, upright, cream, art)
    wb = whiteness(upright, cream)
    if band.by_picture:
        # found by its picture (its field washed out, or its borders without contrast): its whiteness unveiled
        # by its last card, its field's extent from that card (its colour labels are not to be trusted there)
        wb = _unveiled(config, wb, band, v_start + skip / sv.ppm, sv.ppm, art)
        lb = np.full(lb.shape, -1, lb.dtype)
    if skip:
        upright = np.concatenate([np.zeros((skip, *upright.shape[1:]), upright.dtype), upright])
        lb = np.concatenate([np.full((skip, *lb.shape[1:]), -1, lb.dtype), lb])
        wb = np.concatenate([np.zeros((skip, *wb.shape[1:]), wb.dtype), wb])
    return upright, lb, wb, v_start


def _unveiled(config: CardConfig, white: Any, band: Band, v_start: float, ppm: float, art: CardArt) -> Any:
    """A band's whiteness (straightened: row 0 at `v_start`) with the veil over its last card (band.v0-v1, its
    field) taken off: glare or haze adds light alike to the stock, S, and the field, F, so F/S = k + (1 - k)·f for
    the art's field whiteness f (its smallest channel over the stock) and the veil's share k; (w/S - k)/(1 - k) is
    then the whiteness without it, where a top border's ridge and the numerals show their usual contrast. S is
    the card's brightest (`unveil_stock_q` of its pixels), F its middle columns' median; unchanged where the card
    shows no veil."""
    import numpy as np

    ref = art.fields.get(band.kind)
    y0, y1 = int(round((band.v0 - v_start) * ppm)), int(round((band.v1 - v_start) * ppm))
    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    card = white[max(0, y0):max(0, y1)]
    if ref is None or card.size < 16:
        return white
    f = float(np.min(ref))
    stock = float(np.quantile(card, config.unveil_stock_q))
    fld = float(np.median(card[:, c0:c1]))
    if stock <= 0 or f >= 0.9:
        return white
    k = min(config.unveil_max, (fld / stock - f) / (1.0 - f))
    if k <= 0:
        return white
    return ((white / stock - k) / (1.0 - k)).astype(np.float32)


def card_tops(config: CardConfig, white: Any, labels: Any, ppm: float, card_h: float, pad_mm: float,
              kinds: tuple[str, ...] = (), field_tops: tuple[float, ...] = (),
              field_end: float | None = None, end_at_least: float | None = None,
              last_slack_mm: float | None = None,
              more: Callable[[float, float, float | None], float | None] | None = None,
              last_shown: Callable[[float], bool] | None = None) -> list[float]:
    """Tops of the cards in a straightened band (mm from its row 0), first laid first.

    Every card's top border crosses the band's middle columns as a whiter ridge; the last card's
    own picture may make ridges too, but only well below its top, and the row ends a card's height
    below the last top: the last top is the latest ridge a whole card still fits under. Where the
    field begins and ends comes from the colour labels of the middle columns; where they show none of
    the band's kinds and `field_end` is given, from its outlined pieces: the first one's top
    (`field_tops`) and the last one's end (`field_end`). (read_band gives it for a points row: the
    colour table names a grey field by its being darker than the stock guess, which a guess too dim
    for the seat denies; a coloured field's label does not hang on the guess's brightness.)
    `end_at_least`: the last field ends no earlier (a last card's picture seen there: a points card laid last
    need not label as points, read_band). `last_slack_mm`: how far short of a whole card the last field may end
    (default `last_card_slack_mm`; less where the end is known from the last card's picture). `more(lo, hi,
    next_top)`: a top found otherwise between lo and hi (mm; its card covered by the one at next_top, None: the
    last card) or None — asked where the ridges leave room for a card (_fill_tops: its numerals, read_band);
    `last_shown(top)`: whether a last card at that top shows its centre picture."""
    import numpy as np

    h = white.shape[0]
    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    mid = labels[:, c0:c1]
    if kinds:
        # (np.isin(mid, kinds' labels) as a byte look-up: the same 0/1 per pixel, the same row means)
        table = np.zeros(len(FIELD_KINDS) + 1, bool)
        table[[FIELD_KINDS.index(k) + 1 for k in kinds]] = True
        inside = _label_lookup(mid, table).mean(axis=1)
    else:
        inside = ((mid >= 0) & (mid != FIELD_KINDS.index("back"))).mean(axis=1)
    field_rows = np.nonzero(inside > 0.5)[0]
    # the row begins `pad_mm` down (above: room for a lost strip, _strip_above, not a field start)
    field_rows = field_rows[field_rows >= int((pad_mm - 6.0) * ppm)]
    if len(field_rows):
        first = field_rows[0] / ppm          # the first card's field begins under its top border
        last = (field_rows[-1] + 1) / ppm    # the last card's field ends above its bottom border (or a little before)
    elif field_tops and field_end is not None and field_end > min(field_tops):
        first, last = min(field_tops), field_end
    else:
        return []
    if end_at_least is not None:
        last = max(last, end_at_least)
    border = config.border_mm
    prof = np.median(white[:, c0:c1], axis=1)
    r = max(1, int(round(1.0 * ppm)))
    lo = max(1, int(round(2.6 * ppm)))
    # for each y: the mean of prof[y:y+r+1] less the larger of the means of the r rows `lo` above
    # and `lo` below it (running sums: one pass)
    cs = np.concatenate([[0.0], np.cumsum(prof, dtype=np.float64)])
    ys = np.arange(lo, h - lo - r - 1)
    cand = []
    if len(ys):
        peak = (cs[ys + r + 1] - cs[ys]) / (r + 1)
        above = (cs[ys - lo + r] - cs[ys - lo]) / r
        below = (cs[ys + lo + r + 1] - cs[ys + lo + 1]) / r
        score = peak - np.maximum(above, below)
        order = np.lexsort((-ys, -score))       # best first (of equal scores the later row)
        order = order[score[order] >= config.ridge_min]
        cand = list(zip(score[order].tolist(), ys[order].tolist()))
    # a field piece outlined on its own (find_bands_outlined) begins under a card's top border
    ridges: list[float] = []
    for t in sorted(field_tops):
        if all(abs(t - border - r) >= config.min_strip_mm for r in ridges):
            ridges.append(t - border)
    for sc, y in cand:
        if sc < config.ridge_min:
            break
        top = (y + r / 2) / ppm - 0.6     # the ridge's middle lies ~1.1 mm below the top edge
        if all(abs(top - t) >= config.min_strip_mm for t in ridges):
            ridges.append(top)
    ridges.sort()
    # the first card's top: where its field begins (the colour labels), or its outlined piece's top
    # when that lies higher (a strip washed out by glare or warm light need not label as its colour)
    t0 = min([first] + [t for t in field_tops if t >= 0]) - border
    # the first card: its ridge, or (a table as pale as the stock) where its field begins
    ridges = [t for t in ridges if t >= t0 - 3.0]
    if not ridges or ridges[0] > t0 + config.first_top_slack_mm:
        ridges.insert(0, t0)
    end = last + border
    slack = config.last_card_slack_mm if last_slack_mm is None else last_slack_mm
    fits = [t for t in ridges if t <= end - card_h + slack]
    if not fits:
        return [ridges[0]]
    if more is not None:
        pitch = row_pitch(fits)
        tol = config.numeral_pitch_mm
        # ridges past the last that still fits: the row goes on where each lies at the row's pitch below the one
        # before and shows a numeral in both corners, alike (the last card's field washed out by a glare: the row's
        # end seen too early; its own picture's ridges show no numerals in its corners)
        for t in ridges[len(fits):] if pitch is not None else ():
            if abs(t - fits[-1] - pitch) > tol or \
                    more(t - config.numeral_pair_mm, t + config.numeral_pair_mm, None) is None:
                break
            fits.append(t)
        fits = _fill_tops(config, fits, end - card_h, slack, pitch, more, last_shown)
    return fits


def row_pitch(tops: list[float]) -> float | None:
    """The median strip of a row's tops (mm), None with fewer than two."""
    import numpy as np

    return float(np.median(np.diff(tops))) if len(tops) >= 2 else None


def _fill_tops(config: CardConfig, tops: list[float], last_at: float, slack: float, pitch: float | None,
               more: Callable[[float, float, float | None], float | None],
               last_shown: Callable[[float], bool] | None = None) -> list[float]:
    """`tops` (first laid first, mm) with the tops `more` finds where they leave room for a card whose top border
    showed no ridge: a strip taller than `numeral_tall_mm` (a covered strip shows 18-25 mm: two strips, or more),
    and below the last top when the row's end puts the last card's top (`last_at`) more than `min_strip_mm` lower
    (up to `slack` below it, as card_tops' last card). Each top found lies a strip's `pitch` (within
    `numeral_pitch_mm`; unknown: `min_strip_mm` to `numeral_tall_mm`) below the one before and splits its span,
    which is looked at again. The tops found below the last are kept only when the last of them shows a last
    card's picture (`last_shown`): a table of the row's colour runs the row's end on."""
    out = list(tops)
    gap = config.min_strip_mm
    lo_d, hi_d = (gap, config.numeral_tall_mm) if pitch is None else \
        (max(gap, pitch - config.numeral_pitch_mm), pitch + config.numeral_pitch_mm)
    n_before = len(out)
    i = 0
    while i < len(out):
        if i + 1 < len(out):
            nxt: float | None = out[i + 1]
            lo, hi = out[i] + lo_d, min(out[i] + hi_d, out[i + 1] - gap)
            ask = out[i + 1] - out[i] > config.numeral_tall_mm
        else:
            nxt = None
            lo, hi = out[i] + lo_d, min(out[i] + hi_d, last_at + slack)
            ask = last_at - out[i] > gap
        t = more(lo, hi, nxt) if ask and hi > lo else None
        if t is not None and lo <= t <= hi:
            out.insert(i + 1, t)
            continue
        i += 1
    if last_shown is not None and len(out) > n_before and out[-1] != tops[-1] and not last_shown(out[-1]):
        # (the tops found below the last one given: dropped with it)
        out = [t for t in out if t <= tops[-1]]
    return out


def read_band(config: CardConfig, band: Band, view: Any, cream: Any, sv: SeatView, art: CardArt,
              model: Any = None, card_game: bool = True, from_frame: bool = False, renamed: bool = False,
              extended: str | None = None, washed: bool = False) -> None:
    """Find and read the cards of one band (fills band.cards); `view` is the seat view, or with
    `from_frame` the frame (see straighten). A points band under a covered strip of a colour is that
    colour's row ending in a points card (_colour_above; `renamed`: it was, and is read again). A band
    read as one card without its picture is read again down to a picture found beyond its end
    (_picture_beyond; `extended`: it was, by a picture of this kind)."""
    import cv2
    import numpy as np

    p = sv.ppm
    cw, ch = art.size
    pad = 6.0
    # above the row's first outlined piece: room for a first strip whose outline was lost
    n_above = config.picture_strips_above if band.by_picture else \
        max(config.strips_above, config.points_search_strips) if washed else config.strips_above
    above_mm = pad + max(1, n_above) * config.strip_above_mm
    # what is read above the first card found: a strip search a strip's height up, its top's ridge window
    # (2.6 + 1 mm) and the corners' slack (1.4 mm); card_tops' ridges down to 3 mm above the field's start,
    # itself at most first_top_slack_mm above the first top, each shadowed by one up to min_strip_mm above
    # (its window 3.6 mm): nothing above this far over the first card is read
    reach = max(config.strip_above_mm + 5.0, config.min_strip_mm + config.first_top_slack_mm + 3.0 + 3.6)
    # the rows of the room above that only a second strip search reads (the first card found lies at least
    # above_mm - pad - border_mm - 3 down: card_tops) are straightened only when one is made; every position is
    # the whole band's, each pixel as there (a first card found higher: straightened whole at once)
    # (a washed-out stack is straightened whole: its top is looked for up to points_search_strips strips above)
    lazy = max(0, int((above_mm - pad - config.border_mm - 3.0 - reach) * p)) if n_above > 1 and not washed else 0
    named = band.kind
    for skip in dict.fromkeys((lazy, 0)):
        upright, lb, wb, v_start = _upright(config, band, view, sv, cw, pad, above_mm, from_frame, cream, art, skip)
        band.kind = named
        symbol: dict[str, float] = {}
        if card_game:
            band.kind, symbol = kind_symbol_scores(config, band.kind, upright, cream, band.v1 - v_start, art, p,
                                                   config.symbol_rename_min)
        # a wish band showing the wish cards' picture: its ends from its outlined pieces where its labels show no
        # wish field (washed out, or named the points' grey with the table)
        wish_shown = band.kind == "wish" and config.wish_ends_symbol_min is not None and \
            symbol.get("wish", -1.0) >= config.wish_ends_symbol_min and \
            all(v <= symbol["wish"] - config.wish_ends_margin for k, v in symbol.items() if k != "wish")
        more = last_shown = None
        if config.numeral_top_min is not None:
            def more(lo: float, hi: float, nxt: float | None, wb: Any = wb) -> float | None:
                return numeral_top(config, wb, lo, hi, nxt, band.kind, art, p, model, () if card_game else ("E",))

            def last_shown(top: float, upright: Any = upright) -> bool:
                if config.single_symbol_min is None:
                    return True
                kinds = (band.kind, *((f"{band.kind}/E", "points") if card_game else ()))
                got = last_symbol_scores(config, kinds, upright, cream, top + ch - config.border_mm, art, p)
                return max(got.values(), default=-1.0) >= config.single_symbol_min
        tops = card_tops(config, wb, lb, p, ch, above_mm,
                         tuple(dict.fromkeys((band.kind, named, *(("points",) if band.kind in NUMBER_KINDS else ())))),
                         tuple(t - v_start for t in band.field_tops),
                         band.v1 - v_start if _colourless(config, art, band.kind) or band.by_picture or wish_shown or (
                             config.ends_from_pieces and card_game and band.kind not in NUMBER_KINDS) else None,
                         band.v1 - v_start if extended is not None else None,
                         config.picture_end_slack_mm if band.by_picture else None, more, last_shown)
        if not tops and band.kind in NUMBER_KINDS and not band.by_picture and band.field_tops and \
                config.washed_row_symbol_min is not None:
            # a colour band whose middle columns label as none of its kinds (a veil or a warm cast washed its fields
            # out of the colour table, their outlines kept): read between its outlined pieces when its last card
            # shows a colour's centre picture plainly (that colour's, or — better by symbol_margin — another's: the
            # pieces' colour misnamed under the cast, the band renamed)
            kinds = tuple(k for c in COLOURS for k in (c, *((f"{c}/E",) if card_game else ())))
            got = last_symbol_scores(config, kinds, upright, cream, band.v1 - v_start, art, p)
            by_colour: dict[str, float] = {}
            for k, v in got.items():
                c = k.split("/")[0]
                by_colour[c] = max(v, by_colour.get(c, -1.0))
            best = max(by_colour, key=by_colour.get) if by_colour else None
            if best is not None and by_colour[best] >= config.washed_row_symbol_min and (
                    best == band.kind or by_colour[best] > by_colour.get(band.kind, -1.0) + config.symbol_margin):
                band.kind = best
                tops = card_tops(config, wb, lb, p, ch, above_mm, (band.kind, "points"),
                                 tuple(t - v_start for t in band.field_tops), band.v1 - v_start,
                                 band.v1 - v_start if extended is not None else None, None, more, last_shown)
        if wish_shown and tops and config.wish_top_from_picture_mm is not None:
            # the last card's top from its picture (at the card's middle): the outlined piece's top may lie
            # well below it, its border lost beside the numerals on a pale table (no ridge there either)
            at: dict[str, float] = {}
            last_symbol_scores(config, ("wish",), upright, cream, band.v1 - v_start, art, p, at)
            if "wish" in at:
                t_pic = at["wish"] - ch / 2
                if abs(tops[-1] - t_pic) > config.wish_top_from_picture_mm and \
                        (len(tops) < 2 or t_pic - tops[-2] >= config.min_strip_mm):
                    tops = [*tops[:-1], t_pic]
        if not tops or tops[0] >= skip / p + reach:
            break
    cards: list[CardRead] = []
    c0, c1 = (int(round(v * p)) for v in config.centre_mm)
    spans = []
    for i, top in enumerate(tops):
        visible = (tops[i + 1] - top) if i + 1 < len(tops) else ch
        spans.append((top, visible, int(round((top + 3.0) * p)), int(round((top + min(visible, ch) - 1.0) * p))))
    mixed = band.kind in NUMBER_KINDS and card_game
    if mixed:
        # how coloured each strip's middle is (log-chroma over the stock); the row's most coloured strip
        # is of its colour: a points card's grey field is much less coloured than that under the same
        # light (glare washes both out alike, so it is their ratio that counts)
        cream_f = np.maximum(np.asarray(cream, np.float32), 1.0)

        def colourfulness(y0: int, y1: int) -> float:
            part = upright[max(0, y0):max(y0 + 1, y1), c0:c1].reshape(-1, 3).astype(np.float32)
            lg = np.log(np.maximum(np.median(part, 0), 1.0) / cream_f)
            return float(np.linalg.norm(lg - lg.mean()))

        chroma = [colourfulness(y0, y1) for _t, _v, y0, y1 in spans]
        most = max(chroma, default=0.0)
    for i, (top, visible, y0, y1) in enumerate(spans):
        mid = lb[max(0, y0):max(y0 + 1, y1), c0:c1]
        # a colour row holds its colour's cards and points cards laid on it (card game)
        allowed = [band.kind, "points"] if mixed else [band.kind]
        votes = {k: int((mid == FIELD_KINDS.index(k)).sum()) for k in allowed}
        kind = max(votes, key=votes.get) if max(votes.values()) >= config.kind_min_fraction * max(1, mid.size) \
            else band.kind
        if kind == "points" and mixed and chroma[i] > config.points_chroma_share * most:
            kind = band.kind
        elif mixed and config.points_by_chroma and i and \
                max(votes.values()) < config.kind_min_fraction * max(1, mid.size) and \
                chroma[i] <= config.points_chroma_share * chroma[i - 1]:
            # a strip whose middle labels as neither its row's colour nor points (a grey field the colour table
            # names as neither under this light) and is at most points_chroma_share as coloured as the strip it
            # lies on: a points card (RULES: laid on a card of the row, never first; a light that washes the row's
            # end out washes the strips next to each other alike)
            kind = "points"
        if extended == "points" and mixed and i == len(spans) - 1:
            kind = "points"    # its picture ended the row (a points card's grey may not label as points)
        code, conf, scores = read_corners(config, wb, top, visible, kind, art, p, model,
                                          () if card_game else ("E",))
        cards.append(CardRead(top + v_start, visible, kind, code, conf, scores))
    if card_game and band.kind in COLOURS and cards and config.last_card_picture_min is not None:
        last = _last_card_by_picture(config, band.kind, cards[-1], upright, wb, cream, v_start, art, p, model)
        if last is not None:
            cards[-1] = last
    if card_game and band.kind == "points" and cards and not renamed:
        # a points card laid last on a colour row whose own strips gave no piece (a wood table of
        # their colour): above it a covered strip of a colour, not a points row's grey. The band is
        # that colour's row, read again from the strip's top (its further strips: _strip_above)
        # (or its covered strips are of one colour: a colour row's strips and its last card, a points
        # card, outlined as one piece through the table)
        colour = _coloured_strips(config, upright, lb, cream, spans, c0, c1, p)
        above = None if colour is not None else \
            _colour_above(config, upright, lb, wb, cream, cards[0].top - v_start, art, p, model)
        if colour is not None or above is not None:
            if above is not None:
                colour, top = above
                band.v0 = top + v_start + config.border_mm
                band.field_tops = [band.v0, *band.field_tops]
            band.kind = colour
            # (a band the points search found, washed out, keeps its search's room above: a colour row's covered
            # strips as many as a points stack's)
            read_band(config, band, view, cream, sv, art, model, card_game, from_frame, renamed=True,
                      extended=extended, washed=washed and config.points_search_colour_rows)
            return
    if card_game and band.kind == "points" and len(cards) == 1 and config.points_stack_split:
        split = _split_stack(config, upright, wb, cream, cards[0].top - v_start, band.v1 - v_start, art, p, model)
        if split is not None:
            cards = [CardRead(t + v_start, vis, "points", code, conf, scores)
                     for t, vis, code, conf, scores in split]
    # a band read as one card is judged as outlined (its side borders, its centre picture, renamed or read on
    # to a picture beyond), before any strip is looked for above it: a points band the one-card rules drop (a
    # patch of grey table or cloth) gets none — a strip above, matched by its grey field, which the table shows
    # as well, would make it two cards and let it escape them (fresh 83530/24 west). Not colour bands: a strip
    # above must show the first card's colour; measured, 3 real two-card rows on dev whose last card's picture
    # matched under single_symbol_min (an end card, 0.48) were dropped so, and no phantom seen (docs/vision.md)
    if len(cards) == 1:
        band.sides = _side_borders(config, wb, cards[0].top - v_start, min(cards[0].visible, ch), p)
        if config.single_symbol_min is not None and not band.by_picture:
            # (a band found by its picture keeps that match: an end card's own picture among them)
            band.symbol = last_symbol_scores(config, (band.kind,), upright, cream, band.v1 - v_start, art,
                                             p).get(band.kind)
            if (band.symbol is not None and band.symbol < config.single_symbol_min and extended is None
                    and config.single_rename and band.kind != "points"):
                # its field's colour misnamed (warm light: red taken for pink) while its picture is plainly
                # another kind's: that kind's row (the same test as for its own, and as kind_by_symbol's margin)
                others = tuple(k for k in (*COLOURS, *(("wish",) if card_game else ())) if k != band.kind)
                score = last_symbol_scores(config, others, upright, cream, band.v1 - v_start, art, p)
                if score:
                    rival = max(score, key=score.get)
                    if score[rival] >= config.single_symbol_min and score[rival] > band.symbol + config.symbol_margin:
                        for c in cards:
                            c.kind = rival if c.kind == band.kind else c.kind
                        band.kind, band.symbol = rival, score[rival]
            if (band.symbol is not None and band.symbol < config.single_symbol_min and extended is None
                    and config.single_reach_mm is not None and band.kind != "points"):
                found = _picture_beyond(config, band, view, cream, sv, art, card_game, from_frame)
                if found is not None:
                    end, kind = found
                    # the card whose picture was found: its field begins a card's height above the new end
                    # (a points card laid last on a colour row may show no outline or ridge of its own)
                    band.v1 = end
                    band.field_tops = sorted([*band.field_tops, end - ch + 2 * config.border_mm])
                    read_band(config, band, view, cream, sv, art, model, card_game, from_frame, renamed,
                              extended=kind)
                    return
    if cards and not (band.kind == "points" and single_dropped(config, band, len(cards))):
        for i in range(n_above):
            if i and skip:
                # a second strip searched for: the room above straightened whole
                upright, lb, wb, _ = _upright(config, band, view, sv, cw, pad, above_mm, from_frame, cream, art, 0)
                skip = 0
            got = _strip_above(config, upright, wb, cream, cards[0].top - v_start, band.kind, art, p, model,
                               () if card_game else ("E",), washed, row_pitch([c.top for c in cards]))
            if got is None:
                break
            top, visible, code, conf, scores = got
            cards.insert(0, CardRead(top + v_start, visible, band.kind, code, conf, scores))
    band.cards = cards
    if band.by_picture and cards:
        band.check = _picture_row_features(config, band, wb, v_start, art, p, model, () if card_game else ("E",))
    if len(cards) == 1:
        t = cards[0].top - v_start
        above = lb[max(0, int(round((t - config.strip_above_mm) * p))):max(0, int(round((t - 2.0) * p))), c0:c1]
        band.above = float((above == FIELD_KINDS.index(band.kind)).mean()) if above.size and band.kind in FIELD_KINDS else 0.0


def _last_card_by_picture(config: CardConfig, colour: str, card: CardRead, upright: Any, white: Any, cream: Any,
                          v_start: float, art: CardArt, ppm: float, model: Any) -> CardRead | None:
    """A colour row's last card (card game) named again by its centre picture (`last_card_picture_min`): its colour's
    end card ("E") or a number card of its colour, when that picture matches at least last_card_picture_min and better
    than the picture of what its corners read by symbol_margin (a number card: its value read again without "E").
    None: as read (and a points card: its kind is its strip's, read_band)."""
    if card.kind != colour:
        return None
    import cv2
    import numpy as np

    cw, ch = art.size
    top = card.top - v_start
    end_k = f"{colour}/E"
    if colour not in art.symbols or end_k not in art.symbols:
        return None
    # the picture's centre is the card's (its top found, the band straightened to the card's width): searched only
    # last_card_picture_slack_mm round it (last_symbol_scores searches symbol_slack_mm round a row's end, the whole
    # band's width: ~10 ms a card-game frame for this)
    side = art.symbols[colour].shape[0]
    s = config.last_card_picture_slack_mm
    cy, cx = (top + ch / 2) * ppm, cw / 2 * ppm
    y0, y1 = max(0, int(round(cy - side / 2 - s * ppm))), min(upright.shape[0], int(round(cy + side / 2 + s * ppm)))
    x0, x1 = max(0, int(round(cx - side / 2 - s * ppm))), min(upright.shape[1], int(round(cx + side / 2 + s * ppm)))
    if y1 - y0 < side or x1 - x0 < side:
        return None
    region = upright[y0:y1, x0:x1].astype(np.float32) / np.maximum(np.asarray(cream, np.float32), 1.0)
    # (at half the view's resolution: the two pictures differ in their large shapes, and a quarter of the pixels
    # costs ~0.2 ms a card instead of ~1 ms)
    k_s = config.last_card_picture_scale
    region = cv2.resize(region, None, fx=k_s, fy=k_s, interpolation=cv2.INTER_AREA)
    got = {}
    for k in (colour, end_k):
        t = cv2.resize(art.symbols[k], None, fx=k_s, fy=k_s, interpolation=cv2.INTER_AREA)
        if region.shape[0] < t.shape[0] or region.shape[1] < t.shape[1]:
            return None
        got[k] = float(cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))[1])
    now = end_k if card.code == "E" else colour
    best = max(got, key=got.get)
    if best == now or got[best] < config.last_card_picture_min or got[best] <= got[now] + config.symbol_margin:
        return None
    if best == end_k:
        return CardRead(card.top, card.visible, colour, "E", card.confidence, card.scores)
    code, conf, scores = read_corners(config, white, top, card.visible, colour, art, ppm, model, ("E",))
    return CardRead(card.top, card.visible, colour, code, conf, scores)


def _values(codes: list[str]) -> list[int]:
    """The number values among card codes (points and end cards, "?" left out)."""
    return [int(c) for c in codes if c.isdigit()]


def _monotone(values: list[int]) -> bool:
    """Whether values never rise and never fall both (a row in order: equal, then one way only)."""
    ups = any(b > a for a, b in zip(values, values[1:]))
    downs = any(b < a for a, b in zip(values, values[1:]))
    return not (ups and downs)


def picture_row_check(config: CardConfig, band: Band, seat_mm: tuple[float, float]) -> bool:
    """Whether a row found by its picture (picture_bands) is trusted; its implausible covered strips are cut
    first (band.cards, from the first such strip up: a strip is read only above the one below it). Judged on:
    - where its cards lie: within the seat rectangle (`seat_mm`: width, depth) but for `picture_outside_mm` — a
      strip above that, or a last card beyond it, belongs to no row of this seat (the strip search climbs on
      into the table's grain; a patch of table beyond the seat's edge matched a picture);
    - each card's two corners (`picture_corner_seen`): read alike, the card is sure; apart, unsure;
    - the order: an unsure strip out of order with the sure cards below it is cut with the strips above it.
      Order alone cuts nothing (a player may lay a card out of order: the table must show it, the tracker warns);
    - the whole row is dropped when nothing in it reads as a row: its last card unsure, fewer than
      `picture_sure_share` of its strips sure, its values out of order and its strips' heights spread by more
      than `picture_pitch_spread_mm` (a hand lays a row's cards at a steady pitch)."""
    if config.picture_corner_seen is None or not band.check or not band.cards:
        return True
    cw, ch = band.check["card"]
    out = config.picture_outside_mm
    cards = band.cards
    last = cards[-1]
    u = band.centre_u(last.top + ch / 2)
    if out is not None and (u - cw / 2 < -out or u + cw / 2 > seat_mm[0] + out or last.top < -out
                            or last.top + ch > seat_mm[1] + out):
        band.check["dropped"] = "outside"
        return False
    sure = []
    for reads in band.check["corners"]:
        seen = [lb for lb, wt in reads if wt >= config.picture_corner_seen]
        sure.append(None if len(seen) < 2 else len(set(seen)) == 1)
    keep = len(cards) - 1
    for i in range(len(cards) - 2, -1, -1):
        if out is not None and cards[i].top < -out:
            break
        below = [c.code for c, ok in zip(cards[i + 1:], sure[i + 1:]) if ok]    # (all kept so far)
        if sure[i] is False and not _monotone(_values([cards[i].code, *below])):
            break
        keep = i
    band.check["sure"] = sure
    band.check["cut"] = keep
    band.cards = cards = cards[keep:]
    sure = sure[keep:]
    strips = cards[:-1]
    if (sure[-1] is False and strips
            and sum(1 for ok in sure[:-1] if ok) < config.picture_sure_share * len(strips)
            and not _monotone(_values([c.code for c in cards]))
            and max(c.visible for c in strips) - min(c.visible for c in strips) > config.picture_pitch_spread_mm):
        band.check["dropped"] = "no row"
        return False
    return True


def _picture_row_features(config: CardConfig, band: Band, white: Any, v_start: float, art: CardArt, ppm: float,
                          model: Any, exclude: tuple[str, ...]) -> dict:
    """What picture_row_check judges a row found by its picture on: each card's two corners read on their own
    ((label, share of its numeral box seen) per corner; a card prints its value in both, a patch of table read as
    a card's numerals gives two unrelated reads) and the card's size (mm)."""
    per = []
    for c in band.cards:
        got: list = []
        read_corners(config, white, c.top - v_start, c.visible, c.kind, art, ppm, model, exclude, got)
        per.append([(lb, wt) for _corner, lb, wt in got])
    return {"corners": per, "card": tuple(art.size)}


def single_dropped(config: CardConfig, band: Band, n_cards: int) -> bool:
    """Whether the one-card rules drop a band read as `n_cards` cards: one card whose side borders are not
    `single_sides_min` whiter than its field (not a points band: its grey field is nearly as light as its border),
    or whose centre picture matches its kind's less than `single_symbol_min` (band.sides / band.symbol, set by
    read_band on the band as outlined; None: not measured, kept)."""
    if n_cards != 1:
        return False
    if (config.single_sides_min is not None and band.kind != "points" and band.sides is not None
            and band.sides < config.single_sides_min):
        return True
    return config.single_symbol_min is not None and band.symbol is not None and band.symbol < config.single_symbol_min


def _picture_beyond(config: CardConfig, band: Band, view: Any, cream: Any, sv: SeatView, art: CardArt,
                    card_game: bool, from_frame: bool) -> tuple[float, str] | None:
    """Where (seat v) a one-card band would end if its row went on to a card showing its kind's centre picture
    (card game, a colour row: or a points card's, laid last on it) within `single_reach_mm` beyond the band's end,
    matching at least `single_symbol_min`, and that picture's kind; None when none does. The next card covers the
    first one's picture, so a row whose outline stopped on the first card's strip shows its picture only further
    on; a patch of wood taken for a card shows none there either."""
    import cv2
    import numpy as np

    kinds = tuple(k for k in (band.kind, *(("points",) if card_game and band.kind in NUMBER_KINDS else ()))
                  if k in art.symbols)
    if not kinds:
        return None
    p = sv.ppm
    cw, ch = art.size
    side = art.symbols[kinds[0]].shape[0] / p
    # from just past where the band's own picture was looked for, to the reach (centres of the picture)
    first = band.v1 - ch / 2 + config.border_mm + config.symbol_slack_mm
    last = band.v1 + config.single_reach_mm - ch / 2 + config.border_mm
    span = Band(band.kind, band.a, band.b, first - side / 2, last + side / 2)
    upright, v_start = straighten(span, view, sv, cw, 0.0, from_frame=from_frame, pad_above_mm=0.0)
    region = np.ascontiguousarray(upright.astype(np.float32) / np.maximum(np.asarray(cream, np.float32), 1.0))
    best, centre, kind = -1.0, None, band.kind
    for k in kinds:
        t = art.symbols[k]
        if region.shape[0] < t.shape[0] or region.shape[1] < t.shape[1]:
            continue
        _, score, _, loc = cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))
        if score > best:
            best, centre, kind = float(score), v_start + (loc[1] + t.shape[0] / 2) / p, k
    if centre is None or best < config.single_symbol_min:
        return None
    return centre + ch / 2 - config.border_mm, kind


def _side_borders(config: CardConfig, white: Any, top: float, visible: float, ppm: float) -> float:
    """How much whiter than its field a card's side borders are (the lesser side; median over its
    visible rows): a card shows its light border on both sides of its field, a patch of table taken for
    a field does not. `white`: the straightened band's whiteness (x 0 = the card's left edge)."""
    import numpy as np

    y0 = max(0, int(round((top + config.border_mm + 2.0) * ppm)))
    y1 = min(white.shape[0], int(round((top + visible - 3.0) * ppm)))
    if y1 - y0 < 3:
        return 0.0
    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    w = max(1, int(round(config.side_border_mm * ppm)))
    rows = white[y0:y1]
    field = np.median(rows[:, c0:c1], axis=1)
    left = rows[:, :w].max(axis=1) - field
    right = rows[:, -w:].max(axis=1) - field
    return float(min(np.median(left), np.median(right)))


def _log_chroma(upright: Any, cream: Any, y0: float, y1: float, c0: int, c1: int, ppm: float) -> Any:
    """The log-chroma over the stock of the straightened band's middle columns between y0 and y1 (mm),
    or None where too few rows lie there."""
    import numpy as np

    part = upright[max(0, int(round(y0 * ppm))):int(round(y1 * ppm)), c0:c1].reshape(-1, 3).astype(np.float32)
    if len(part) < 4:
        return None
    lg = np.log(np.maximum(np.median(part, 0), 1.0) / np.maximum(np.asarray(cream, np.float32), 1.0))
    return lg - lg.mean()


def _coloured_strips(config: CardConfig, upright: Any, labels: Any, cream: Any, spans: list, c0: int, c1: int,
                     ppm: float) -> str | None:
    """The colour of a points band's covered strips (card game), when most of them are named one colour
    by the labels (`kind_min_fraction` of a strip's middle) and its last card's field is at most
    `points_chroma_share` as coloured as the most coloured of them: a colour row ending in a points
    card, not a points row. `spans`: read_band's (top, visible, y0, y1) per card."""
    import numpy as np

    if len(spans) < 2:
        return None
    named: list[str | None] = []
    for _t, _v, y0, y1 in spans[:-1]:
        mid = labels[max(0, y0):max(y0 + 1, y1), c0:c1]
        votes = {c: int((mid == FIELD_KINDS.index(c)).sum()) for c in COLOURS}
        best = max(votes, key=votes.get)
        named.append(best if votes[best] >= config.kind_min_fraction * max(1, mid.size) else None)
    colours = [c for c in named if c is not None]
    if not colours:
        return None
    colour = max(set(colours), key=colours.count)
    if 2 * colours.count(colour) <= len(named):
        return None
    strips = [_log_chroma(upright, cream, t + 3.0, t + v - 1.0, c0, c1, ppm)
              for (t, v, _y0, _y1), c in zip(spans[:-1], named) if c == colour]
    last_t = spans[-1][0]
    last = _log_chroma(upright, cream, last_t + 3.0, last_t + 20.0, c0, c1, ppm)
    most = max((float(np.linalg.norm(g)) for g in strips if g is not None), default=0.0)
    if last is None or most <= 0.0 or float(np.linalg.norm(last)) > config.points_chroma_share * most:
        return None
    return colour


def _colour_above(config: CardConfig, upright: Any, labels: Any, white: Any, cream: Any, first: float, art: CardArt,
                  ppm: float, model: Any) -> tuple[str, float] | None:
    """(colour, top in mm from row 0) of a covered strip of a colour above a points band's first card at
    `first` (card game): a top border a strip's height above it (_strip_top), its middle named one colour
    by the labels (`kind_min_fraction`), the points card's field at most `points_chroma_share` as
    coloured as the strip (the ratio holds under glare and warm light alike), and the strip's numerals
    read at least `strip_above_confidence` surely as that colour's."""
    import numpy as np

    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    top = _strip_top(config, white, first, ppm)
    if top is None:
        # (its top border lost to a table as pale as the stock: where the colour's field begins above
        # the card, a covered strip's height at least)
        lo = max(0, int(round((first - config.strip_above_mm) * ppm)))
        hi = max(lo, int(round((first - 1.0) * ppm)))
        mid = labels[lo:hi, c0:c1]
        if mid.size == 0:
            return None
        counts = {c: (mid == FIELD_KINDS.index(c)).mean(axis=1) for c in COLOURS}
        colour = max(counts, key=lambda c: counts[c].sum())
        run = hi - lo
        while run > 0 and counts[colour][run - 1] > 0.5:
            run -= 1
        start = (lo + run) / ppm
        if start - lo / ppm < 1.0 or first - start < config.min_strip_mm:
            return None
        top = start - config.border_mm
    mid = labels[max(0, int(round((top + 3.0) * ppm))):max(0, int(round((first - 1.0) * ppm))), c0:c1]
    if mid.size == 0:
        return None
    votes = {c: int((mid == FIELD_KINDS.index(c)).sum()) for c in COLOURS}
    colour = max(votes, key=votes.get)
    if votes[colour] < config.kind_min_fraction * mid.size:
        return None
    strip = _log_chroma(upright, cream, top + 3.0, first - 1.0, c0, c1, ppm)
    card = _log_chroma(upright, cream, first + 3.0, first + 3.0 + (first - top), c0, c1, ppm)
    if strip is None or card is None or \
            float(np.linalg.norm(card)) > config.points_chroma_share * float(np.linalg.norm(strip)):
        return None
    code, conf, _scores = read_corners(config, white, top, first - top, colour, art, ppm, model, ())
    if code == "?" or conf < config.strip_above_confidence:
        return None
    return colour, top


def _colourless(config: CardConfig, art: CardArt, kind: str) -> bool:
    """Whether the art's field of `kind` is grey (the points cards in the bundled art): field_labels
    names such a field by its brightness under the stock, not by its hue."""
    ref = art.fields.get(kind)
    return ref is not None and log_chroma_norm(ref) < config.grey_sat


def symbol_rival(art: CardArt, kind: str) -> str | None:
    """The kind a row of `kind` is most easily taken for by its colour: between the wish cards and
    the colour whose art field lies nearest theirs in hue (log-chroma; the bundled art: yellow, which
    a veil of glare or warm light makes look alike), or None."""
    import numpy as np

    def chroma(k: str) -> Any:
        lg = np.log(np.maximum(np.asarray(art.fields[k], np.float64), 0.02))
        return lg - lg.mean()

    if "wish" not in art.fields or not all(k in art.symbols for k in (*COLOURS, "wish")):
        return None
    nearest = min((c for c in COLOURS if c in art.fields),
                  key=lambda c: float(np.linalg.norm(chroma(c) - chroma("wish"))))
    return {"wish": nearest, nearest: "wish"}.get(kind)


def kind_by_symbol(config: CardConfig, kind: str, upright: Any, cream: Any, end: float, art: CardArt,
                   ppm: float, rename_min: float | None = None) -> str:
    """A wish row or a row of its rival colour (symbol_rival) named by its last card's centre picture
    instead of its colour: the wish cards' stone and the colour's sign tell them apart in any light.
    `upright`: the straightened band (BGR), `end`: where its last field ends (mm from row 0). The
    other kind only when its picture matches better by `symbol_margin` (a points card laid last
    shows neither) and at least `rename_min` (None: any)."""
    return kind_symbol_scores(config, kind, upright, cream, end, art, ppm, rename_min)[0]


def kind_symbol_scores(config: CardConfig, kind: str, upright: Any, cream: Any, end: float, art: CardArt,
                       ppm: float, rename_min: float | None = None) -> tuple[str, dict[str, float]]:
    """kind_by_symbol's kind, with the last card's picture scores it went by (empty: `kind` has no rival)."""
    rival = symbol_rival(art, kind)
    if rival is None:
        return kind, {}
    score = last_symbol_scores(config, (kind, rival), upright, cream, end, art, ppm)
    if len(score) < 2:
        return kind, score
    if score[rival] > score[kind] + config.symbol_margin and (rename_min is None or score[rival] >= rename_min):
        return rival, score
    return kind, score


def last_symbol_scores(config: CardConfig, kinds: tuple[str, ...], upright: Any, cream: Any, end: float,
                       art: CardArt, ppm: float, where: dict[str, float] | None = None) -> dict[str, float]:
    """How well the last card's centre picture matches each kind's (CardArt.symbols; the kinds without one, or
    a band too short for it, left out): normalised correlation over the stock. `upright`: the straightened band
    (BGR), `end`: where its last field ends (mm from row 0). `where`, when given, gets each kind's best match's
    centre (mm from row 0 down the band)."""
    import cv2
    import numpy as np

    kinds = tuple(k for k in kinds if k in art.symbols)
    if not kinds:
        return {}
    cw, chh = art.size
    side = art.symbols[kinds[0]].shape[0] / ppm
    # the last card's centre lies about half a card above its field's end; searched a few mm round
    cy = end - chh / 2 + config.border_mm
    s = config.symbol_slack_mm
    y0 = max(0, int(round((cy - side / 2 - s) * ppm)))
    y1 = min(upright.shape[0], int(round((cy + side / 2 + s) * ppm)))
    # over the stock, as the art's pictures (the light's colour cancels; a veil of glare is an offset
    # the correlation's mean removes)
    region = np.ascontiguousarray(upright[y0:y1].astype(np.float32) / np.maximum(np.asarray(cream, np.float32), 1.0))
    out = {}
    for k in kinds:
        t = art.symbols[k]
        if region.shape[0] >= t.shape[0] and region.shape[1] >= t.shape[1]:
            _, out[k], _, loc = cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))
            out[k] = float(out[k])
            if where is not None:
                where[k] = (y0 + loc[1] + t.shape[0] / 2) / ppm
    return out


def _strip_top(config: CardConfig, white: Any, first: float, ppm: float) -> float | None:
    """Where a covered strip's top lies above `first` (mm from the straightened band's row 0), from the
    whiteness of the card's middle columns: a top border ridge between `min_strip_mm` + 4 and
    `strip_above_mm` above it, or, on a table as pale as the stock, a step from white to the field, or (a field
    too pale for a ridge, `strip_top_table_step`) a step up from a darker table."""
    import numpy as np

    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    lo_mm, hi_mm = config.min_strip_mm + 4.0, config.strip_above_mm
    if first - hi_mm < 0.5:
        return None
    r = max(1, int(round(1.0 * ppm)))
    gap = max(1, int(round(2.6 * ppm)))
    # the ridge score of card_tops over the rows a strip's top may lie at (running sums)
    y_lo = max(gap, int(round((first - hi_mm) * ppm)))
    y_hi = int(round((first - lo_mm) * ppm))
    if y_hi < y_lo or y_hi + gap + r + 1 > white.shape[0]:
        return None
    prof = np.median(white[y_lo - gap:y_hi + gap + r + 1, c0:c1], axis=1)
    cs = np.concatenate([[0.0], np.cumsum(prof, dtype=np.float64)])
    ys = np.arange(gap, gap + y_hi - y_lo + 1)
    peak = (cs[ys + r + 1] - cs[ys]) / (r + 1)
    above = (cs[ys - gap + r] - cs[ys - gap]) / r
    below = (cs[ys + gap + r + 1] - cs[ys + gap + 1]) / r
    score = peak - np.maximum(above, below)
    # on a table as pale as the stock the top border is no ridge but a step: table and border alike
    # white above, the field below (its whiter side counted no whiter than the border)
    step = np.where(above >= config.border_white, np.minimum(peak, above) - below, -np.inf)
    score = np.maximum(score, step)
    j = int(np.argmax(score))
    if score[j] < config.ridge_min:
        if config.strip_top_table_step is None:
            return None
        # the first card laid, on a darker table: its top border is where the table ends, a step up that
        # its field below need not stand out from (a points card's grey field shows ~0.9 of the stock's
        # whiteness, its border ~0.97: no ridge) — the table above darker than the border by the step, and
        # below it nothing whiter than the step's top (_strip_above then asks for the first card's colour there
        # and numerals read surely)
        up = peak - above
        ok = (up >= config.strip_top_table_step) & (below <= peak)
        if not ok.any():
            return None
        j = int(np.argmax(np.where(ok, up, -np.inf)))
    return (y_lo + j + r / 2) / ppm - 0.6


def _stack_top(config: CardConfig, white: Any, first: float, ppm: float, strips: int = 1) -> float | None:
    """Where a washed-out stack of cards begins a covered strip above `first` (see `points_search_step`): the row
    between `min_strip_mm` + 4 and `strip_above_mm` above it where the whiteness steps up most from the table (the
    card's middle columns, 2.6 mm either side), by at least the step, the strip below as white as the card's
    field below `first` within the step; None when there is none. With `strips` > 1 the table's end is looked for up
    to that many strips above (`strip_above_mm` each), and the top of the strip just above `first` returned: the span
    split into the fewest strips no taller than `strip_above_mm`."""
    import numpy as np

    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    step = config.points_search_step
    gap = max(1, int(round(2.6 * ppm)))
    # (the room straightened above the band may hold fewer strips than asked: the search stops a gap below its top)
    reach = min(strips * config.strip_above_mm, first - gap / ppm)
    y_lo = int(round((first - reach) * ppm))
    y_hi = int(round((first - config.min_strip_mm - 4.0) * ppm))
    f0, f1 = int(round((first + 3.0) * ppm)), int(round((first + 15.0) * ppm))
    if y_lo - gap < 0 or y_hi < y_lo or f1 > white.shape[0]:
        return None
    prof = np.median(white[y_lo - gap:f1, c0:c1], axis=1)
    field = float(np.median(prof[f0 - (y_lo - gap):]))
    ys = np.arange(gap, gap + y_hi - y_lo + 1)
    cs = np.concatenate([[0.0], np.cumsum(prof, dtype=np.float64)])
    above = (cs[ys - 1] - cs[ys - gap]) / max(1, gap - 1)
    # the strip below the step, to the card found (its numerals excluded: the middle columns only)
    # (the mean, not the median: a strip that still holds some table is less white, so the rise is largest
    # where the table ends)
    end = int(round(first * ppm)) - (y_lo - gap) - 1
    strip = np.array([float(prof[y + gap:end].mean()) if end > y + gap else float(prof[y]) for y in ys])
    rise = strip - above
    ok = (rise >= step) & (np.abs(strip - field) <= step)
    if not ok.any():
        return None
    j = int(np.argmax(np.where(ok, rise, -np.inf)))
    # the top: where the whiteness first crosses halfway from the table to the strip (the argmax is the first
    # row of the plateau that any row within `gap` of the edge gives)
    y = int(ys[j])
    half = (above[j] + strip[j]) / 2.0
    cross = np.nonzero(prof[y - gap:y + gap + 1] >= half)[0]
    k = int(cross[0]) - gap if len(cross) else 0
    top = (y_lo + j + k) / ppm
    n = max(1, int(np.ceil((first - top) / config.strip_above_mm - 1e-6)))
    return first - (first - top) / n


def _split_stack(config: CardConfig, upright: Any, white: Any, cream: Any, first: float, end: float, art: CardArt,
                 ppm: float, model: Any) -> list[tuple[float, float, str, float, dict]] | None:
    """A points stack read as one card at `first` whose field runs on to `end` (mm from the straightened band's row
    0; see `points_stack_split`): its cards (top, visible, code, confidence, scores), first laid first, or None."""
    import numpy as np

    ch = art.size[1]
    last = end + config.border_mm - ch
    span = last - first
    # (no picture rule, no split: the picture is what tells a stack from a long patch of grey table)
    if span < max(config.min_strip_mm, config.points_split_min_mm) or config.single_symbol_min is None:
        return None
    if last_symbol_scores(config, ("points",), upright, cream, end, art, ppm).get("points", -1.0) < \
            config.single_symbol_min:
        return None
    n = max(1, int(np.ceil(span / config.strip_above_mm - 1e-6)))
    h = span / n
    out = []
    for i in range(n + 1):
        top = first + i * h
        visible = h if i < n else ch
        code, conf, scores = read_corners(config, white, top, visible, "points", art, ppm, model)
        if i < n and (code == "?" or conf < config.strip_above_confidence):
            return None
        out.append((top, visible, code, conf, scores))
    return out


def _strip_above(config: CardConfig, upright: Any, white: Any, cream: Any, first: float, kind: str, art: CardArt,
                 ppm: float, model: Any, exclude: tuple[str, ...],
                 washed: bool = False, pitch: float | None = None) -> tuple[float, float, str, float, dict] | None:
    """A covered card above the first one found (its strip's outline lost: a pale table swallowing its
    top border, glare): (top, visible, code, confidence, scores) when the straightened band shows,
    a strip's height above `first` (mm from row 0), a top border (_strip_top), between it and `first` the
    colour of the first card's own field (log-chroma over the stock), and numerals read surely. Where no top border
    shows, its numerals (numeral_top; at the row's `pitch` above `first` when known)."""
    import numpy as np

    c0, c1 = (int(round(v * ppm)) for v in config.centre_mm)
    top = _strip_top(config, white, first, ppm)
    if top is None and washed and config.points_search_step is not None:
        top = _stack_top(config, white, first, ppm, config.points_search_strips)

    def chroma(y0: float, y1: float) -> Any:
        part = upright[max(0, int(round(y0 * ppm))):int(round(y1 * ppm)), c0:c1].reshape(-1, 3).astype(np.float32)
        if len(part) < 4:
            return None
        lg = np.log(np.maximum(np.median(part, 0), 1.0) / np.maximum(np.asarray(cream, np.float32), 1.0))
        return lg - lg.mean()

    if top is None and config.numeral_top_min is not None:
        # no top border seen (a field washed out as white as it): where both corners show a numeral, read alike —
        # looked for only where the strip just above shows the first card's colour (mostly the table does not)
        lo, hi = (config.strip_above_mm, config.min_strip_mm) if pitch is None else \
            (pitch + config.numeral_pitch_mm, max(config.min_strip_mm, pitch - config.numeral_pitch_mm))
        near, own = chroma(first - hi, first - 1.0), chroma(first + 3.0, first + hi - 1.0)
        if near is not None and own is not None and float(np.linalg.norm(near - own)) <= config.strip_above_chroma:
            top = numeral_top(config, white, first - lo, first - hi, first, kind, art, ppm, model, exclude)
    if top is None:
        return None

    here, below = chroma(top + 3.0, first - 1.0), chroma(first + 3.0, first + 3.0 + (first - top) - 4.0)
    if here is None or below is None or float(np.linalg.norm(here - below)) > config.strip_above_chroma:
        return None
    code, conf, scores = read_corners(config, white, top, first - top, kind, art, ppm, model, exclude)
    if code == "?" or conf < config.strip_above_confidence:
        return None
    return top, first - top, code, conf, scores


def numeral_tops(config: CardConfig, white: Any, lo: float, hi: float, kind: str, art: CardArt,
                 ppm: float) -> list[tuple[float, float]]:
    """Where a card's top may lie between `lo` and `hi` (mm from the straightened band's row 0) by its numerals:
    (score, top), best first, every local best of at least `numeral_top_min`. Each top corner's column is matched
    with each of the kind's glyphs there, as outlines (the gradient magnitude of the whiteness: a field washed out
    as white as the glyphs' fill keeps their outline); a top's score is, for the value that scores best, the lower
    of its two corners' best within `numeral_pair_mm` (a card shows one value in both)."""
    import cv2
    import numpy as np

    if kind not in art.templates or config.numeral_top_min is None:
        return []
    s = config.corner_slack_mm
    pair = max(1, int(round(config.numeral_pair_mm * ppm)))
    y_lo, y_hi = max(0, int(round(lo * ppm))), min(white.shape[0], int(round(hi * ppm)) + 1)
    if y_hi <= y_lo:
        return []
    labels = list(art.templates[kind])
    both = None
    for corner, (bx, by, bw, bh) in art.boxes.items():
        temps = [_glyph_outline(art, kind, lb, corner) for lb in labels]
        th, tw = temps[0].shape
        # the rows a glyph may begin at (tops lo-pair .. hi+pair), the template's height below the last
        off = int(round(by * ppm))
        g0 = max(0, y_lo - pair + off)
        g1 = min(white.shape[0], y_hi + pair + off + th)
        x0 = max(0, int(round((bx - s) * ppm)))
        x1 = min(white.shape[1], int(round((bx + bw + s) * ppm)))
        if g1 - g0 < th + 1 or x1 - x0 < tw:
            return []
        region = _outline(white[g0:g1, x0:x1])
        # res[j]: a glyph beginning at row g0 + j, its card's top `by` above it; the best within `pair` rows
        j = np.arange(y_lo, y_hi) + off - g0
        ok = (j >= 0)
        rows = []
        for t in temps:
            res = cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED).max(axis=1)
            res = cv2.dilate(res.reshape(-1, 1), np.ones((2 * pair + 1, 1), np.uint8)).ravel()
            rows.append(np.where(ok & (j < len(res)), res[np.clip(j, 0, len(res) - 1)], -1.0))
        got = np.array(rows)
        both = got if both is None else np.minimum(both, got)
    if both is None:
        return []
    best = both.max(axis=0)
    out = []
    for k in range(len(best)):
        v = best[k]
        if v >= config.numeral_top_min and (k == 0 or v >= best[k - 1]) and (k + 1 == len(best) or v > best[k + 1]):
            out.append((float(v), (y_lo + k) / ppm))
    return sorted(out, reverse=True)


def numeral_top(config: CardConfig, white: Any, lo: float, hi: float, nxt: float | None, kind: str, art: CardArt,
                ppm: float, model: Any, exclude: tuple[str, ...]) -> float | None:
    """The best top between `lo` and `hi` (mm, straightened band) that numeral_tops finds, when its two corners,
    each seen over `numeral_seen` of its box, read the same value at least `strip_above_confidence` surely (the
    card covered by one at `nxt`; None: the last card); else None. Only the best: a weaker place a few mm off a
    real glyph reads the glyph cut, as some other value, alike in both corners."""
    tops = numeral_tops(config, white, lo, hi, kind, art, ppm)
    if not tops:
        return None
    t = tops[0][1]
    got: list = []
    code, conf, _ = read_corners(config, white, t, (nxt - t) if nxt is not None else art.size[1], kind, art, ppm,
                                 model, exclude, got)
    seen = [lb for _c, lb, wt in got if wt >= config.numeral_seen]
    if code != "?" and conf >= config.strip_above_confidence and len(seen) == 2 and seen[0] == seen[1] == code:
        return t
    return None


def _outline(a: Any) -> Any:
    """The gradient magnitude of a whiteness picture (float32): the glyphs' outlines, whatever their fill."""
    import cv2

    a = a.astype("float32")
    return cv2.magnitude(cv2.Sobel(a, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(a, cv2.CV_32F, 0, 1, ksize=3))


_GLYPH_OUTLINES: dict[Any, Any] = {}


def _glyph_outline(art: CardArt, kind: str, label: str, corner: str) -> Any:
    """A glyph's outline (_outline of its corner template; kept per art)."""
    key = (id(art), kind, label, corner)
    got = _GLYPH_OUTLINES.get(key)
    if got is None or got[0] is not art:
        got = (art, _outline(art.templates[kind][label][corner]))
        if len(_GLYPH_OUTLINES) >= 4096:
            _GLYPH_OUTLINES.clear()
        _GLYPH_OUTLINES[key] = got
    return got[1]


def read_corners(config: CardConfig, white: Any, top: float, visible: float, kind: str, art: CardArt,
                 ppm: float, model: Any = None, exclude: tuple[str, ...] = (),
                 corners: list | None = None, end_places: bool = False) -> tuple[str, float, dict[str, float]]:
    """The card's value from both top corners: (label, confidence, score per label).

    Each corner's numeral is first found: the mean glyph of every value (cut to what the strip shows)
    correlated over the box and a few mm around it, both corners together (`corner_joint_refine_px`). There
    the numeral classifier (vision.numerals) gives a probability per value, the corners' log-probabilities add up (a corner partly hidden
    counts less). Without a classifier each value's template is correlated with what sets it apart
    from the mean glyph. `corners`, when given, gets each corner read on its own: (corner, its best label, the
    share of its box seen). With `end_places` (a discard pile whose middle is the end card's picture) and "E" a
    label, the corners are classified where the end card's dot fits when it fits better than the mean glyph
    (`end_symbol_placed`; not on rows: there it made numerals "E", card-game D83790 rows 100 -> 103 errors)."""
    import cv2
    import numpy as np

    from .numerals import LABELS, features

    temps = art.templates.get(kind)
    if not temps:
        return "?", 0.0, {}
    labels = [lb for lb in temps if lb not in exclude]   # (end cards only in the card game's rows)
    s = config.corner_slack_mm
    totals: dict[str, float] = {}
    weights = 0.0
    found = []     # (corner, box, region, x0, y0, th, wt, zs, mean_t, res)
    for corner, (bx, by, bw, bh) in art.boxes.items():
        seen_h = min(bh, visible - by - 0.3)
        if seen_h < config.min_corner_mm:
            continue
        x0 = max(0, int(round((bx - s) * ppm)))
        y0 = max(0, int(round((top + by - s) * ppm)))
        x1 = min(white.shape[1], int(round((bx + bw + s) * ppm)))
        y1 = min(white.shape[0], int(round((top + by + seen_h + min(s, max(0.0, visible - by - seen_h))) * ppm)))
        region = np.ascontiguousarray(white[y0:y1, x0:x1])
        th = int(round(seen_h * ppm))
        wt = seen_h / bh
        zs, mean_t = _corner_templates(art, kind, corner, th, tuple(labels))
        if region.shape[0] < mean_t.shape[0] or region.shape[1] < mean_t.shape[1]:
            continue
        res = cv2.matchTemplate(region, mean_t, cv2.TM_CCOEFF_NORMED)
        found.append((corner, (bx, by, bw, bh), region, x0, y0, th, wt, zs, mean_t, res))
    places = _corner_places(config, found, ppm)
    if config.end_symbol_placed and end_places and model is not None and "E" in labels and found:
        places = _end_symbol_places(config, found, places, zs_index=labels.index("E"), ppm=ppm)
    for (corner, (bx, by, bw, bh), region, x0, y0, th, wt, zs, mean_t, res), (px, py) in zip(found, places):
        weights += wt
        if model is not None:
            # the whole glyph box at the place found (below the strip: the next card, as in training)
            gy, gx = y0 + py, x0 + px
            box = white[gy:gy + int(round(bh * ppm)), gx:gx + int(round(bw * ppm))]
            if box.shape[0] < 4 or box.shape[1] < 4:
                weights -= wt
                continue
            prob = model.probabilities(features(box)[None, :])[0]
            idx = [LABELS.index(lb) for lb in labels]
            pr = prob[idx] / max(1e-9, prob[idx].sum())
            for lb, pv in zip(labels, pr):
                totals[lb] = totals.get(lb, 0.0) + wt * float(np.log(pv + 1e-6))
            if corners is not None:
                corners.append((corner, labels[int(np.argmax(pr))], wt))
            continue
        tw_, th_ = mean_t.shape[1], mean_t.shape[0]
        best = {lb: -1.0 for lb in labels}
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                yy, xx = py + dy, px + dx
                if yy < 0 or xx < 0 or yy + th_ > region.shape[0] or xx + tw_ > region.shape[1]:
                    continue
                patch = _zn(region[yy:yy + th_, xx:xx + tw_]) - mean_t
                for lb, z in zip(labels, zs):
                    d = z - mean_t
                    c = float((patch * d).sum() / (np.linalg.norm(patch) * np.linalg.norm(d) + 1e-6))
                    best[lb] = max(best[lb], c)
        for lb in labels:
            totals[lb] = totals.get(lb, 0.0) + wt * best[lb]
        if corners is not None:
            corners.append((corner, max(best, key=best.get), wt))
    if not totals or weights <= 0:
        return "?", 0.0, {}
    scores = {k: v / weights for k, v in totals.items()}
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, second = ranked[0], ranked[1] if len(ranked) > 1 else (None, 0.0)
    if model is not None:
        # the combined probability of the best value against the rest
        ex = np.exp(np.array([v for _, v in ranked]) - best[1])
        conf = 1.0 / float(ex.sum())
    else:
        conf = max(0.0, min(1.0, (best[1] - second[1]) * 2)) * max(0.0, min(1.0, best[1] / 0.5))
    return best[0], round(conf, 3), scores


def _corner_places(config: CardConfig, found: list, ppm: float) -> list[tuple[int, int]]:
    """Where each corner's numeral lies in its search region (read_corners' `found`: the correlation maps `res`):
    apart, each map's best; with `corner_joint_refine_px`, two corners by the best of their maps' sum over one
    shift of the card (each map indexed by its own region's origin against its box's place), then each moved to
    its map's best within that many pixels."""
    import cv2
    import numpy as np

    apart = [cv2.minMaxLoc(f[-1])[3] for f in found]
    r = config.corner_joint_refine_px
    if r is None or len(found) != 2:
        return apart
    (_ca, (bxa, bya, *_), _ra, x0a, y0a, *_restA), (_cb, (bxb, byb, *_), _rb, x0b, y0b, *_restB) = found
    res_a, res_b = found[0][-1], found[1][-1]
    # index in b's map of the same shift as index (i, j) in a's map: (i, j) + (dy, dx)
    dx = int(round((bxb - bxa) * ppm - (x0b - x0a)))
    dy = int(round((byb - bya) * ppm - (y0b - y0a)))
    ya0, ya1 = max(0, -dy), min(res_a.shape[0], res_b.shape[0] - dy)
    xa0, xa1 = max(0, -dx), min(res_a.shape[1], res_b.shape[1] - dx)
    if ya1 <= ya0 or xa1 <= xa0:
        return apart
    both = res_a[ya0:ya1, xa0:xa1] + res_b[ya0 + dy:ya1 + dy, xa0 + dx:xa1 + dx]
    _, _, _, (j, i) = cv2.minMaxLoc(both)
    out = []
    for res, (ci, cj) in ((res_a, (ya0 + i, xa0 + j)), (res_b, (ya0 + i + dy, xa0 + j + dx))):
        i0, i1 = max(0, ci - r), min(res.shape[0], ci + r + 1)
        j0, j1 = max(0, cj - r), min(res.shape[1], cj + r + 1)
        sub = res[i0:i1, j0:j1]
        k = int(np.argmax(sub))
        out.append((j0 + k % sub.shape[1], i0 + k // sub.shape[1]))
    return out


def _end_symbol_places(config: CardConfig, found: list, places: list, zs_index: int, ppm: float) -> list:
    """The places the corners are classified at when the end card ("E") is a possible label: an end card's corner
    holds a round dot, not a right-aligned numeral, so the mean numeral glyph has no true place on it and the
    corners found by it may cut the dot's edge into a numeral-like blob (session 35: end cards on discard piles read
    "6"). The end symbol's own template is correlated over the same regions and its places (found the same way,
    together or apart) are taken when their correlation (summed over the corners) beats the mean glyph's."""
    import cv2

    found_e = []
    for f in found:
        region, th = f[2], f[5]
        z = f[7][zs_index]
        if region.shape[0] < z.shape[0] or region.shape[1] < z.shape[1]:
            return places
        found_e.append(f[:-1] + (cv2.matchTemplate(region, z, cv2.TM_CCOEFF_NORMED),))
    places_e = _corner_places(config, found_e, ppm)

    def fit(fs: list, pl: list) -> float:
        return sum(float(f[-1][py, px]) * f[6] for f, (px, py) in zip(fs, pl))
    return places_e if fit(found_e, places_e) > fit(found, places) else places


_CORNER_TEMPLATES: dict[Any, Any] = {}


def _corner_templates(art: CardArt, kind: str, corner: str, rows: int, labels: tuple[str, ...]) -> tuple[list[Any], Any]:
    """Each label's corner template cut to its top `rows` (what the strip shows), zero mean and unit
    norm, and their mean glyph: the same for every card of this kind and strip (kept, not redone)."""
    import numpy as np

    key = (id(art), kind, corner, rows, labels)
    got = _CORNER_TEMPLATES.get(key)
    if got is None or got[0] is not art:        # (an id is only unique while its art lives)
        zs = [_zn(art.templates[kind][lb][corner][:rows]) for lb in labels]
        got = (art, zs, np.mean(zs, axis=0).astype(np.float32))
        if len(_CORNER_TEMPLATES) >= 4096:
            _CORNER_TEMPLATES.clear()
        _CORNER_TEMPLATES[key] = got
    return got[1], got[2]


def _zn(a: Any) -> Any:
    """Zero mean, unit norm."""
    import numpy as np

    a = a.astype(np.float32) - float(a.mean())
    return a / (float(np.linalg.norm(a)) + 1e-6)


def read_seat_cards(config: CardConfig, image: Any, sv: SeatView, art: CardArt, white: Any | None = None,
                    model: Any = None, card_game: bool = True) -> SeatCards:
    """Every row of one seat (see the module docstring)."""
    import time

    import cv2
    import numpy as np

    t0 = time.process_time()
    config = sized_for(config, art.size)    # the card figures for this art's cards
    # the rows are found at half the view's ppm, straight from the frame; each row is then read from
    # the frame at the full ppm (straighten): the whole view is never warped
    small = sv.warp_half(image)
    t1 = time.process_time()
    # The card stock is the white reference; a first guess from the brightest pixels (several ways:
    # under warm light or on a pale table no single one is always right), kept where most rows show
    # (too dim a guess makes the borders a pale field: of the guesses that find nearly the most rows,
    # the brightest)
    tried = []
    creams = seat_creams(config, small, white, art)
    if config.cream_guess is not None and white is not None:
        creams = [creams[min(config.cream_guess, len(creams) - 1)]]
    # guesses of one hue (with the markers' paper) differ only in brightness: their border contrast
    # is one computed once and scaled, and a piece one finds again is the same piece
    base = creams[0]
    p = sv.ppm * sv.half_scale
    labels = None
    memo: dict = {}
    if config.row_finder == "colour":
        guesses = [(cream, None) for cream in creams[:1]]
    else:
        shared = border_contrast(config, small, base, p)
        guesses = []
        for cream in creams:
            ratio = np.asarray(cream, np.float64) / np.maximum(np.asarray(base, np.float64), 1e-6)
            same_hue = float(ratio.max() - ratio.min()) <= 1e-4 * float(ratio.mean())
            guesses.append((cream, (*shared, float(ratio.mean())) if same_hue else None))
    if config.row_finder == "colour":
        cream, bands = creams[0], []
    elif config.cream_choice == "pieces" and len(guesses) > 1:
        # each guess judged by how much field-wide piece its borders outline (one labelling each),
        # the rows then found once, with the guess kept
        scored = []
        for cream, con in guesses:
            comp, stats, _sep = outlined_fields(config, small, cream, p, con)
            scored.append((field_piece_mm(config, stats, p), float(cream.sum()), cream, con, (comp, stats)))
        top = max(t[0] for t in scored)
        _, _, cream, con, fields = max((t for t in scored if t[0] >= config.cream_near_top * top), key=lambda t: t[1])
        labels = field_labels(config, small, cream, art)
        bands = find_bands_outlined(config, small, cream, sv, art, card_game, sv.half_scale, con, memo, fields, labels)
    else:
        for cream, con in guesses:
            bands = find_bands_outlined(config, small, cream, sv, art, card_game, sv.half_scale, con, memo)
            tried.append((sum(b.v1 - b.v0 for b in bands), float(cream.sum()), cream, bands))
        top = max(t[0] for t in tried)
        _, _, cream, bands = max((t for t in tried if t[0] >= 0.9 * top), key=lambda t: t[1])
    if config.row_finder != "outline":
        # the colour finder's rows where the outlines gave none (a border lost in blur or glare)
        if labels is None:
            labels = field_labels(config, small, cream, art)
        colour_rows = [] if _field_left_mm2(config, labels, bands, sv, sv.half_scale, card_game) < config.colour_finder_min_mm2 \
            else find_bands(config, labels, sv, sv.half_scale, table_mask(config, small), card_game)
        for extra in colour_rows:
            vm = (extra.v0 + extra.v1) / 2
            # (a row lies beside every other; in the card game the points and wish rows may lie one
            # above the other in one column)
            if all(abs(extra.centre_u(vm) - b.centre_u(vm)) > config.band_width_mm[0] * 0.6
                   or extra.v0 >= b.v1 or b.v0 >= extra.v1 for b in bands):
                bands.append(extra)
        bands.sort(key=lambda bd: bd.centre_u(0.0))
    settle_colours(config, bands)
    if card_game:
        bands = join_under_colour(config, bands)
    t2 = time.process_time()
    for band in bands:
        read_band(config, band, image, cream, sv, art, model, card_game, from_frame=True)
    # a row of one card must be a card: its light border seen on both sides of its field (a patch of
    # light table outlined beside a notepad or a box shows none). Not for the points row: a points card's
    # grey field is nearly as light as its border
    # nor may it lack its kind's centre picture (a patch of pale wood outlined by its grain and named a
    # colour shows none; a patch of grey cloth or table taken for a points card shows no ring of dots)
    bands = [b for b in bands if not single_dropped(config, b, len(b.cards))]
    if (config.claim_rename or config.row_rename) and config.single_symbol_min is not None:
        _rename_claims(config, bands, image, cream, sv, art, card_game, small)
        if config.claim_by_picture:
            _drop_claims_without_picture(config, bands, image, cream, sv, art, card_game)
    if config.picture_row_min is not None and config.row_finder != "colour":
        # a colour no row was read for: its last card found by its centre picture (a field washed out or without
        # contrast at its borders), the row read up from there
        read = {b.kind for b in bands if b.cards}
        missing = tuple(k for k in COLOURS if k not in read and k in art.symbols)
        apart = [b for b in bands if b.cards] if config.picture_apart_read_only else bands
        for band in picture_bands(config, small, cream, sv, art, missing, apart, card_game) if missing else ():
            read_band(config, band, image, cream, sv, art, model, card_game, from_frame=True, extended=band.kind)
            if band.cards and not single_dropped(config, band, len(band.cards)) \
                    and picture_row_check(config, band, (sv.frame.width, sv.frame.depth)):
                bands.append(band)
        bands.sort(key=lambda bd: bd.centre_u(0.0))
    if card_game and config.points_search_min is not None:
        if not any(b.kind == "points" for b in bands):
            bands += _points_by_picture(config, image, small, cream, sv, art, bands, model)
        elif config.points_search_colour_rows:
            # (one row a search; again while one is found: two colour rows may each end in a points card)
            while True:
                read = {b.kind for b in bands if b.cards}
                missing = tuple(k for k in COLOURS if k not in read)
                found = _points_by_picture(config, image, small, cream, sv, art, bands, model, missing) \
                    if missing else []
                if not found:
                    break
                bands += found
    if card_game and config.column_end_slack_mm is not None:
        # (after the points row found by its picture: the card above may be its)
        _drop_strips_on_card_above(config, bands)
    t3 = time.process_time()
    return SeatCards(sv.frame.seat, bands, cream, small,
                     {"warp": (t1 - t0) * 1000, "rows": (t2 - t1) * 1000, "read": (t3 - t2) * 1000},
                     tuple(float(v) for v in art.size))


def _rename_claims(config: CardConfig, bands: list[Band], image: Any, cream: Any, sv: SeatView, art: CardArt,
                   card_game: bool, small: Any = None) -> None:
    """Rows read of one colour (see `CardConfig.claim_rename`), or one whose last card does not show its colour's
    picture (`row_rename`): each renamed to a colour no row was read for whose centre picture its last card shows
    plainly (`single_symbol_min`, better than its named colour's by `symbol_margin`; card game: an end card's picture
    counts for its colour)."""
    cw, ch = art.size
    others = ("points", "wish") if card_game else ()
    for colour in COLOURS:
        claims = [b for b in bands if b.kind == colour and b.cards]
        free = [c for c in COLOURS if c in art.symbols and all(b.kind != c or not b.cards for b in bands)]
        multi = len(claims) >= 2 and config.claim_rename
        if not claims or not free or colour not in art.symbols or (not multi and not config.row_rename):
            continue
        plans = []
        for band in claims:
            if not multi and small is not None and config.rename_screen_min is not None and \
                    _own_picture_half(config, band, small, cream, sv, art, card_game) >= config.rename_screen_min:
                continue    # (its own picture plain on the half view: not looked at closer)
            # the last card straightened (its top to a card below it, a few mm round), its picture scored
            top = band.cards[-1].top
            end = top + ch - config.border_mm
            upright, v_start = straighten(Band(band.kind, band.a, band.b, top, end), image, sv, cw,
                                          config.symbol_slack_mm, from_frame=True)

            def scores(cs: tuple[str, ...]) -> dict[str, float]:
                kinds = tuple(k for c in cs for k in (c, *((f"{c}/E",) if card_game and c in COLOURS else ())))
                got = last_symbol_scores(config, kinds, upright, cream, end - v_start, art, sv.ppm)
                return {c: max((v for k, v in got.items() if k.split("/")[0] == c), default=-1.0) for c in cs}

            own = scores((colour,))[colour]
            if not multi and own >= config.single_symbol_min:
                continue
            score = scores((*free, *others))
            rival = max(free, key=lambda c: score[c])
            if score[rival] >= config.single_symbol_min and score[rival] > own + config.symbol_margin and \
                    (multi or all(score[rival] > score[k] for k in others)):
                plans.append((score[rival] - own, rival, band))
        # (the plainest first; of two rows claiming one colour, one keeps it)
        for _margin, rival, band in sorted(plans, key=lambda t: -t[0]):
            if (multi and sum(1 for b in bands if b.kind == colour and b.cards) < 2) or \
                    any(b.kind == rival and b.cards for b in bands):
                continue
            for c in band.cards:
                c.kind = rival if c.kind == colour else c.kind
            band.kind = rival


def _drop_claims_without_picture(config: CardConfig, bands: list[Band], image: Any, cream: Any, sv: SeatView,
                                 art: CardArt, card_game: bool) -> None:
    """Of two or more rows read of one colour (`CardConfig.claim_by_picture`), the ones whose last card does not
    show the colour's picture (card game: its end card's or the points picture) at least `single_symbol_min` are
    taken out of `bands` when one of them does."""
    cw, ch = art.size
    for colour in COLOURS:
        claims = [b for b in bands if b.kind == colour and b.cards]
        if len(claims) < 2 or colour not in art.symbols:
            continue
        kinds = tuple(k for k in (colour, *((f"{colour}/E", "points") if card_game else ())) if k in art.symbols)
        own = []
        if not all(_card_in_frame(sv, image, b.centre_u(b.cards[-1].top + ch / 2), b.cards[-1].top, cw, ch)
                   for b in claims):
            continue    # (a last card cut off by the picture's edge shows no picture: nothing to judge by)
        for band in claims:
            top = band.cards[-1].top
            end = top + ch - config.border_mm
            upright, v_start = straighten(Band(band.kind, band.a, band.b, top, end), image, sv, cw,
                                          config.symbol_slack_mm, from_frame=True)
            got = last_symbol_scores(config, kinds, upright, cream, end - v_start, art, sv.ppm)
            own.append(max(got.values(), default=-1.0))
        if max(own) < config.single_symbol_min:
            continue
        for band, score in zip(claims, own):
            if score < config.single_symbol_min:
                bands.remove(band)


def _card_in_frame(sv: SeatView, image: Any, u: float, top: float, cw: float, ch: float) -> bool:
    """Whether a card of the seat (its middle column at `u` mm, its top at `top` mm) lies whole in the frame."""
    import numpy as np

    us = np.array([u - cw / 2, u + cw / 2, u - cw / 2, u + cw / 2], np.float32)
    vs = np.array([top, top, top + ch, top + ch], np.float32)
    cols, rows = sv.to_view(us, vs)
    x, y = sv.frame_maps(np.asarray(cols, np.float32)[None, :], np.asarray(rows, np.float32)[None, :])
    h, w = image.shape[:2]
    return bool((x >= 0).all() and (x < w).all() and (y >= 0).all() and (y < h).all())


def _own_picture_half(config: CardConfig, band: Band, small: Any, cream: Any, sv: SeatView, art: CardArt,
                      card_game: bool) -> float:
    """How well a row's last card shows its colour's centre picture (card game: or its end card's) on the half view
    `small`, searched `symbol_slack_mm` round where the card's middle lies (-1: nothing to match)."""
    import numpy as np

    p = sv.ppm * sv.half_scale
    ch = art.size[1]
    v = band.cards[-1].top + ch / 2
    u = band.centre_u(v)
    inv = 1.0 / np.maximum(np.asarray(cream, np.float32), 1.0)
    pics = [art.symbols[k] for k in (band.kind, *((f"{band.kind}/E",) if card_game else ())) if k in art.symbols]
    slack = max(1, int(round(config.symbol_slack_mm * p)))
    return max((_picture_at(small, inv, t, (u + sv.margin) * p, (v + sv.margin) * p, slack) for t in pics),
               default=-1.0)


def _drop_strips_on_card_above(config: CardConfig, bands: list[Band]) -> None:
    """The points row and the wish cards in one column (card game): the lower band's leading cards whose tops lie
    before the upper band's last card ends (its field's end and bottom border), or within `column_end_slack_mm`
    after, are taken off (its last card kept): the upper card's bottom border was taken for a strip's top."""
    pair = ("points", "wish")
    for low in bands:
        if low.kind not in pair or len(low.cards) < 2:
            continue
        top = low.cards[0].top
        for up in bands:
            if up is low or up.kind not in pair or up.kind == low.kind or not up.cards or up.v1 >= low.v1:
                continue
            # one column: centres within half a field's width where the lower band begins
            if abs(up.centre_u(top) - low.centre_u(top)) > config.band_width_mm[0] / 2:
                continue
            end = up.v1 + config.border_mm + config.column_end_slack_mm
            while len(low.cards) > 1 and low.cards[0].top < end:
                low.cards.pop(0)


def _points_by_picture(config: CardConfig, image: Any, small: Any, cream: Any, sv: SeatView, art: CardArt,
                       bands: list[Band], model: Any, kinds: tuple[str, ...] | None = None) -> list[Band]:
    """A points row found by its last card's centre picture (see `CardConfig.points_search_min`): the
    picture searched over the half view `small` (the `bands` found masked out), a band of one card laid
    at the best places (up to `points_search_tries`) and read (read_band: strips above, a colour strip
    above making it that colour's row); the first that reads as a card and passes the one-card rules is
    returned (as a one-band list), if its kind has no band yet (`kinds`: and is one of these)."""
    import cv2
    import numpy as np

    t = art.symbols.get("points")
    if t is None:
        return []
    half = sv.ppm * sv.half_scale
    # in grey over the stock (the mean of its channels, as the picture's): the ring is colourless, and one
    # channel costs a fifth of three (~4 ms a seat view at half its ppm)
    th = cv2.resize(t.mean(axis=2), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    mix = (1.0 / 3.0) / np.maximum(np.asarray(cream, np.float32), 1.0)
    region = np.ascontiguousarray(cv2.transform(small.astype(np.float32), mix.reshape(1, 3).astype(np.float32)))
    if region.shape[0] < th.shape[0] or region.shape[1] < th.shape[1]:
        return []
    score = cv2.matchTemplate(region, th, cv2.TM_CCOEFF_NORMED)
    hh, ww = th.shape[:2]
    # a place whose picture's centre lies on a row found is that row's card (a points card laid on it)
    taken = SeatCards(sv.frame.seat, bands, cream, small, card_mm=art.size).rows_mask(sv, sv.half_scale)
    score[taken[hh // 2:hh // 2 + score.shape[0], ww // 2:ww // 2 + score.shape[1]] > 0] = -1.0
    cw, ch = art.size
    for _ in range(config.points_search_tries):
        _, best, _, loc = cv2.minMaxLoc(score)
        if best < config.points_search_min:
            break
        u = (loc[0] + ww / 2) / half - sv.margin
        v = (loc[1] + hh / 2) / half - sv.margin
        # no second try within a card of this one
        r = int(round(cw * half))
        score[max(0, loc[1] - r):loc[1] + r + 1, max(0, loc[0] - r):loc[0] + r + 1] = -1.0
        # the card's field: the picture sits at its middle
        v0, v1 = v - ch / 2 + config.border_mm, v + ch / 2 - config.border_mm
        band = Band("points", u, 0.0, v0, v1, field_tops=[v0])
        read_band(config, band, image, cream, sv, art, model, True, from_frame=True, washed=True)
        if not band.cards or single_dropped(config, band, len(band.cards)):
            continue
        if any(b.kind == band.kind for b in bands) or (kinds is not None and band.kind not in kinds):
            continue
        return [band]
    return []
def picture_bands(config: CardConfig, small: Any, cream: Any, sv: SeatView, art: CardArt, kinds: tuple[str, ...],
                  bands: list[Band], card_game: bool) -> list[Band]:
    """Rows of `kinds` (colours no row was read for) found by their last card's centre picture outside `bands`:
    for each kind its best match over the view (`small`: the view at half its ppm), first at an eighth of the
    view's ppm (spots of at least `picture_coarse_min`), then at a quarter round the best spot; kept when it
    matches at least `picture_row_min` and better by `symbol_margin` than every other colour's picture there (card
    game: and the points and wish cards'; a washed-out pink and red card differ in their pictures, not in their
    fields). Each is a band of one card (its
    field's extent from the picture's centre; `by_picture`: read_band reads its end from there and looks for
    its covered strips above it). The pictures are matched over the stock in colour, with the correlation's mean
    taken off: an added veil of glare and a lower contrast do not change the match."""
    import cv2
    import numpy as np

    p = sv.ppm * sv.half_scale
    cw, ch = art.size
    inv = 1.0 / np.maximum(np.asarray(cream, np.float32), 1.0)
    # (over the stock at a quarter of the view's ppm and less; at half it, only round a spot: see _picture_at)
    quarter = cv2.pyrDown(small).astype(np.float32) * inv
    eighth = cv2.pyrDown(quarter)
    # where a row read lies (its cards and a card's width round), scaled to the eighth
    taken = np.zeros(eighth.shape[:2], np.uint8)
    k8 = p / 4
    for b in bands:
        # (no card's centre lies within half a card of a row's cards: cards of two rows do not overlap; rows lie
        # about a card's width and a few mm apart, side by side)
        top = (b.cards[0].top if b.cards else b.v0) - ch / 2
        pts = []
        for v, side in ((top, -1), (top, 1), (b.v1 + ch / 2, 1), (b.v1 + ch / 2, -1)):
            u = b.centre_u(v) + side * cw * config.picture_apart
            pts.append(((u + sv.margin) * k8, (v + sv.margin) * k8))
        cv2.fillPoly(taken, [np.round(np.array(pts)).astype(np.int32)], 1)
    # every colour's picture (card game: an end card's too) at both scales
    # (card game: the points and wish cards' pictures are rivals too — a points card's ring of dots, a wish card's
    # stone, and a pink card's ring are all round)
    names, pics_of, temps = _picture_templates(art, card_game)
    out: list[Band] = []
    # spots that passed every test but the rivals' (picture_end_rivals_read): (kind, own, cx, cy)
    held: list[tuple[str, tuple[float, float, float], float, float]] = []
    relax = card_game and config.picture_end_rivals_read
    noise = None    # the half view's pixel noise variance (picture_noise_gain_max), worked out once when needed
    for kind in kinds:
        spots = []
        for t8, _t4 in temps.get(kind, ()):
            th, tw = t8.shape[:2]
            if eighth.shape[0] < th or eighth.shape[1] < tw:
                continue
            res = cv2.matchTemplate(eighth, t8, cv2.TM_CCOEFF_NORMED)
            # (a picture's centre inside a row read is that row's)
            res[taken[th // 2:th // 2 + res.shape[0], tw // 2:tw // 2 + res.shape[1]] > 0] = -1.0
            for _ in range(config.picture_spots):
                _, score, _, loc = cv2.minMaxLoc(res)
                if score < config.picture_coarse_min:
                    break
                spots.append((loc[0] + tw / 2, loc[1] + th / 2))
                # the next best elsewhere (another card's picture may match this one's about as well at this scale)
                res[max(0, loc[1] - th // 2):loc[1] + th // 2 + 1, max(0, loc[0] - tw // 2):loc[0] + tw // 2 + 1] = -1.0
        best = None
        for spot in spots:
            # round the spot at a quarter of the view's ppm: the kind's own picture, then (if it holds at half the
            # view's ppm too) every other kind's there
            cx, cy = spot[0] * 2, spot[1] * 2
            own = _picture_near(quarter, temps[kind], cx, cy)
            if own is None or own[0] < config.picture_row_min:
                continue
            # (at half the view's ppm too: a spot of shading or texture that passes for a picture at a quarter does
            # not at twice its resolution, a picture does)
            halves = [_picture_at(small, inv, t, own[1] * 2, own[2] * 2, 4) for t in pics_of[kind]]
            half = max(halves)
            if half < config.picture_row_min and config.picture_noise_gain_max is not None and halves[0] > 0.0:
                # (the colour's own picture only: an end card's plain disc matches any round thing, a wish stone)
                if noise is None:
                    noise = _view_noise_var(small, inv)
                half = max(half, halves[0] * _noise_gain(small, inv, noise, pics_of[kind][0], own[1] * 2, own[2] * 2,
                                                         config.picture_noise_gain_max))
            if half < config.picture_row_min:
                continue
            rival = max((r[0] for k in names if k != kind
                         for r in (_picture_near(quarter, temps[k], cx, cy),) if r is not None), default=-1.0)
            beaten = own[0] < rival + config.symbol_margin
            if beaten and not relax:
                continue
            # (a picture has contrast: a smooth patch of table, its shading and noise, may correlate with one as
            # well — normalised correlation does not see how faint the match is)
            th, tw = temps[kind][0][1].shape[:2]
            patch = quarter[max(0, int(own[2] - th / 2)):int(own[2] + th / 2), max(0, int(own[1] - tw / 2)):int(own[1] + tw / 2)]
            if patch.size == 0 or float(patch.reshape(-1, 3).std(axis=0).max()) < config.picture_contrast_min:
                continue
            if beaten:
                held.append((kind, own, cx, cy))
                continue
            if best is None or own[0] > best[0]:
                best = own
        if best is not None:
            _picture_band(config, out, kind, best, p, sv, cw, ch)
    if held:
        # a second look at the spots only the rivals failed: the end cards of colours whose row is read (or was
        # just found) are no rivals; their own colour's picture, and the other colours' and kinds' pictures, are
        taken_kinds = {b.kind for b in bands if b.cards} | {b.kind for b in out}
        for kind in kinds:
            if kind in taken_kinds:
                continue
            best = None
            for _k, own, cx, cy in (h for h in held if h[0] == kind):
                rival = max((r[0] for k in names if k != kind
                             for r in (_picture_near(quarter, temps[k][:1] if k in taken_kinds else temps[k], cx, cy),)
                             if r is not None), default=-1.0)
                if own[0] >= rival + config.symbol_margin and (best is None or own[0] > best[0]):
                    best = own
            if best is not None:
                _picture_band(config, out, kind, best, p, sv, cw, ch)
    return out


def _view_noise_var(small: Any, inv: Any) -> float:
    """The pixel noise variance of the half view over the stock (`inv`: 1 / its BGR), summed over its channels:
    from the median absolute residual of a 3 x 3 mean (every other row and column; robust to the edges of cards
    and pictures, a minority of the pixels). For white noise the residual's variance is 8/9 of the noise's."""
    import cv2
    import numpy as np

    sm = small.astype(np.float32) * inv
    res = (sm - cv2.blur(sm, (3, 3)))[::2, ::2].reshape(-1, sm.shape[2] if sm.ndim == 3 else 1)
    mad = np.median(np.abs(res - np.median(res, axis=0)), axis=0)
    return float(((1.4826 * mad) ** 2).sum() * 9.0 / 8.0)


def _noise_gain(small: Any, inv: Any, noise: float, symbol: Any, cx: float, cy: float, cap: float) -> float:
    """The factor that undoes the noise's attenuation of a correlation over the window of `symbol` (at twice the
    ppm of `small`) centred at (cx, cy): sqrt(w / (w - noise)), w the window's variance over the stock summed over
    its channels; at most `cap`."""
    import numpy as np

    th, tw = int(symbol.shape[0] * 0.5), int(symbol.shape[1] * 0.5)
    x0, y0 = int(round(cx - tw / 2)), int(round(cy - th / 2))
    win = small[max(0, y0):y0 + th, max(0, x0):x0 + tw].astype(np.float32) * inv
    if win.size == 0:
        return 1.0
    w = float(win.reshape(-1, win.shape[2] if win.ndim == 3 else 1).var(axis=0).sum())
    if w <= noise * cap * cap / (cap * cap - 1.0):
        return cap
    return math.sqrt(w / (w - noise))


def _picture_band(config: CardConfig, out: list[Band], kind: str, own: tuple[float, float, float], p: float,
                  sv: SeatView, cw: float, ch: float) -> None:
    """picture_bands' band of one card round a picture found at `own` (score, x, y at a quarter of the view's ppm),
    added to `out` unless a band there was found already."""
    u, v = own[1] * 2 / p - sv.margin, own[2] * 2 / p - sv.margin
    if any(abs(b.centre_u(v) - u) < cw / 2 and b.v0 - ch / 2 < v < b.v1 + ch / 2 for b in out):
        return
    v0, v1 = v - ch / 2 + config.border_mm, v + ch / 2 - config.border_mm
    out.append(Band(kind, float(u), 0.0, float(v0), float(v1), field_tops=[float(v0)], symbol=own[0],
                    by_picture=True))


_PICTURES: dict[Any, Any] = {}


def _picture_templates(art: CardArt, card_game: bool) -> tuple[list[str], dict[str, list[Any]], dict[str, list[Any]]]:
    """picture_bands' pictures: (the kinds, each kind's pictures (card game: an end card's too), each picture at an
    eighth and a quarter of the view's ppm), kept per art."""
    import cv2

    key = (id(art), card_game)
    got = _PICTURES.get(key)
    if got is not None and got[0] is art:
        return got[1]
    names = [k for k in (*COLOURS, *(("points", "wish") if card_game else ())) if k in art.symbols]
    pics_of = {k: [art.symbols[k]] + ([art.symbols[f"{k}/E"]] if card_game and f"{k}/E" in art.symbols else [])
               for k in names}
    temps = {k: [(cv2.resize(t, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA),
                  cv2.resize(t, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)) for t in pics]
             for k, pics in pics_of.items()}
    if len(_PICTURES) >= 64:
        _PICTURES.pop(next(iter(_PICTURES)))
    _PICTURES[key] = (art, (names, pics_of, temps))
    return names, pics_of, temps


def _picture_near(quarter: Any, temps: list[tuple[Any, Any]], cx: float, cy: float) -> tuple[float, float, float] | None:
    """The best match of a kind's pictures (picture_bands' templates at a quarter of the view's ppm) centred within
    3 px of (cx, cy) of `quarter`: (score, x, y of its centre), or None."""
    import cv2

    best = None
    for _t8, t4 in temps:
        th, tw = t4.shape[:2]
        x0, y0 = int(round(cx - tw / 2)) - 3, int(round(cy - th / 2)) - 3
        win = quarter[max(0, y0):y0 + th + 6, max(0, x0):x0 + tw + 6]
        if win.shape[0] < th or win.shape[1] < tw:
            continue
        _, score, _, loc = cv2.minMaxLoc(cv2.matchTemplate(win, t4, cv2.TM_CCOEFF_NORMED))
        if best is None or score > best[0]:
            best = (float(score), max(0, x0) + loc[0] + tw / 2, max(0, y0) + loc[1] + th / 2)
    return best


def _picture_at(small: Any, inv: Any, symbol: Any, cx: float, cy: float, slack: int) -> float:
    """The best match of `symbol` (at twice the ppm of `small`, the BGR view: resized by half) centred within `slack`
    px of (cx, cy) of `small`, over the stock (`inv`: 1 / its BGR)."""
    import cv2
    import numpy as np

    t = cv2.resize(symbol, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    th, tw = t.shape[:2]
    x0, y0 = int(round(cx - tw / 2)) - slack, int(round(cy - th / 2)) - slack
    win = small[max(0, y0):y0 + th + 2 * slack, max(0, x0):x0 + tw + 2 * slack].astype(np.float32) * inv
    if win.shape[0] < th or win.shape[1] < tw:
        return -1.0
    return float(cv2.minMaxLoc(cv2.matchTemplate(win, t, cv2.TM_CCOEFF_NORMED))[1])


def _field_left_mm2(config: CardConfig, labels: Any, bands: list[Band], sv: SeatView, scale: float,
                    card_game: bool) -> float:
    """How much of the view (mm²) shows a card's field colour outside the rows found: the colour
    finder (find_bands) can only add a row where at least a card's field is left (a colour the table
    shows everywhere does not count, as there)."""
    import cv2
    import numpy as np

    p = sv.ppm * scale
    back = FIELD_KINDS.index("back")
    counts = label_counts(labels)
    allowed = np.zeros(len(FIELD_KINDS) + 1, bool)
    for k in range(len(FIELD_KINDS)):
        allowed[k + 1] = k != back and counts[k] <= config.table_fraction * labels.size
    mask = _label_lookup(labels, allowed)
    for b in bands:
        pts = []
        for v, side in ((b.v0 - config.strip_above_mm, -1), (b.v0 - config.strip_above_mm, 1), (b.v1 + 6.0, 1),
                        (b.v1 + 6.0, -1)):
            u = b.centre_u(v) + side * (config.band_width_mm[1] / 2 + 3.0)
            pts.append(((u + sv.margin) * p, (v + sv.margin) * p))
        cv2.fillPoly(mask, [np.round(np.array(pts)).astype(np.int32)], 0)
    return float(np.count_nonzero(mask)) / (p * p)


def join_under_colour(config: CardConfig, bands: list[Band]) -> list[Band]:
    """A points band that continues a colour row (card game: its top within `chain_gap_mm` below the
    row's end, its centre within `chain_shift_mm` of the row's line there) is that row's last card, a
    points card laid on it: it joins the row instead of standing as a points row of its own."""
    out = list(bands)
    for pb in [b for b in bands if b.kind == "points"]:
        above = [b for b in out if b.kind in NUMBER_KINDS and -config.chain_gap_mm <= pb.v0 - b.v1 <= config.chain_gap_mm
                 and abs(pb.centre_u(pb.v0) - b.centre_u(pb.v0)) <= config.chain_shift_mm and b.v0 < pb.v0]
        if not above:
            continue
        row = min(above, key=lambda b: abs(pb.v0 - b.v1))
        row.v1 = max(row.v1, pb.v1)
        row.field_tops = sorted({*row.field_tops, *pb.field_tops})
        out.remove(pb)
    return out


def settle_colours(config: CardConfig, bands: list[Band]) -> None:
    """One row per colour (a seat has at most one): when rows claim one colour, one keeps it and
    each other takes the colour its fields lie nearest of those no row claims (a red washed out to
    pink by warm light next to the pink row), if near enough; which one keeps it is the choice with
    the least distance of all its rows' fields to their colours. A row with no colour near enough
    keeps its claim (seat_reading then keeps the longer). In the card game the wish row is one more
    kind to take when no row is named it (wish cards washed toward yellow beside the yellow row)."""
    for colour in COLOURS:
        claims = [b for b in bands if b.kind == colour]
        if len(claims) < 2 or any(not b.colour_dist for b in claims):
            continue
        # (card game: a row washed toward the wish cards' hue may be the wish row, when none is found)
        free = [c for c in (*COLOURS, "wish") if all(b.kind != c for b in bands)]
        best_total, best_plan = math.inf, None
        for keeper in claims:
            plan, taken, total = {}, set(), keeper.colour_dist.get(colour, math.inf)
            for band in sorted((b for b in claims if b is not keeper), key=lambda b: -(b.v1 - b.v0)):
                options = [c for c in free if c not in taken and band.colour_dist.get(c, math.inf)
                           < config.second_colour_max_dist]
                if options:
                    alt = min(options, key=lambda c: band.colour_dist[c])
                    plan[id(band)] = alt
                    taken.add(alt)
                    total += band.colour_dist[alt]
                else:
                    total += config.second_colour_max_dist
            if total < best_total:
                best_total, best_plan = total, plan
        for band in claims:
            band.kind = (best_plan or {}).get(id(band), band.kind)


def card_code(card: CardRead) -> str:
    """A row entry (FORMATS §2): "7", "P7" (a points card on a row), "E" (end card)."""
    if card.kind == "points":
        return f"P{card.code}"
    return card.code


@dataclass
class SeatReading:
    """One seat's part of an observed state (FORMATS §2), with the least sure card's confidence."""

    rows: dict[str, tuple[str, ...]]
    points_row: int
    wish_cards: tuple[int, ...]
    confidence: float
    wish_reads: tuple[CardRead, ...] = ()    # the wish cards as read (their scores), for distinct_values
    row_bands: tuple[Band, ...] = ()         # the bands read as colour rows (not a shorter one of a colour)


def seat_reading(seat_cards: SeatCards, card_game: bool) -> SeatReading:
    """The bands as rows by colour; in the card game a points band is the points row, a wish band
    holds the wish cards. Two bands of one colour cannot both be rows: the longer is kept."""
    rows: dict[str, tuple[str, ...]] = {}
    conf = 1.0
    points: list[Band] = []
    width = seat_cards.card_mm[0]
    wish: list[int] = []
    row_bands: list[Band] = []
    for band in sorted(seat_cards.bands, key=lambda b: -len(b.cards)):
        if not band.cards:
            continue
        c = min(card.confidence for card in band.cards)
        if band.kind in NUMBER_KINDS:
            if band.kind in rows:
                conf = min(conf, 0.3)
                continue
            # a card whose corners could not be read at all is left out (FORMATS has no "unknown" card):
            # the confidence says the row is not to be trusted
            codes = tuple(card_code(card) for card in band.cards if card.code != "?")
            if len(codes) < len(band.cards):
                c = 0.0
            if codes:
                rows[band.kind] = codes
                row_bands.append(band)
            conf = min(conf, c)
        elif band.kind == "points" and card_game:
            points.append(band)
        elif band.kind == "wish" and card_game:
            wish += [card for card in band.cards if card.code.isdigit()]
            conf = min(conf, c)
    # a seat has one points row: points bands in one column (a row whose middle strips lost their
    # outlines) add up; of bands in different columns (a colour row misnamed points beside it) the
    # column holding the most cards is the points row
    columns: list[list[Band]] = []
    for band in sorted(points, key=lambda b: b.v0):
        vm = (band.v0 + band.v1) / 2
        col = next((c for c in columns if abs(c[0].centre_u(vm) - band.centre_u(vm)) <= width / 2), None)
        if col is None:
            columns.append([band])
        else:
            col.append(band)
    points_row = max((sum(len(b.cards) for b in c) for c in columns), default=0)
    return SeatReading(rows, points_row, tuple(sorted(distinct_values(wish))), conf, tuple(wish), tuple(row_bands))


def distinct_values(cards: list[CardRead], held: tuple[int, ...] = ()) -> list[int]:
    """The values of wish cards (a seat's, or every seat's of one frame), each at most once: the card
    game has one wish card of each value (engine.cardgame.rules.WISH_VALUES). Where two cards read the
    same value, the one that loses least by it (its score for the value less its score for its best
    value no other card holds, nor `held`: values other seats are known to hold) takes that other value;
    a card with no scores keeps its reading."""
    codes = [card.code for card in cards]
    others = {str(v) for v in held}
    for _ in range(len(cards) * len(cards)):
        seen: dict[str, list[int]] = {}
        for i, code in enumerate(codes):
            seen.setdefault(code, []).append(i)
        best: tuple[float, int, str] | None = None
        for code, idx in seen.items():
            if len(idx) < 2:
                continue
            for i in idx:
                alts = [(v, lb) for lb, v in cards[i].scores.items()
                        if lb not in seen and lb not in others and lb.isdigit()]
                if not alts or code not in cards[i].scores:
                    continue
                v, lb = max(alts)
                loss = cards[i].scores[code] - v
                if best is None or loss < best[0]:
                    best = (loss, i, lb)
        if best is None:
            break
        codes[best[1]] = best[2]
    return [int(code) for code in codes]


def draw_seat_cards(view: Any, seat_cards: SeatCards, sv: SeatView) -> Any:
    """The seat view with every band's centre line, card tops and codes."""
    import cv2

    out = view.copy()
    for band in seat_cards.bands:
        for v in (band.v0, band.v1):
            x, y = sv.to_view(band.centre_u(v), v)
        p0 = tuple(int(c) for c in sv.to_view(band.centre_u(band.v0), band.v0))
        p1 = tuple(int(c) for c in sv.to_view(band.centre_u(band.v1), band.v1))
        cv2.line(out, p0, p1, (0, 255, 255), 1)
        for c in band.cards:
            u = band.centre_u(c.top)
            x0, y0 = sv.to_view(u - seat_cards.card_mm[0] / 2, c.top)
            x1, _ = sv.to_view(u + seat_cards.card_mm[0] / 2, c.top)
            cv2.line(out, (int(x0), int(y0)), (int(x1), int(y0)), (255, 0, 255), 1)
            txt = f"{c.kind[:2]} {c.code} {c.confidence:.2f}"
            cv2.putText(out, txt, (int(x0) + 2, int(y0) + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
            cv2.putText(out, txt, (int(x0) + 2, int(y0) + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 255, 255), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    import cv2
    import numpy as np

    from .cardart import card_art
    from .components import load_components
    from .numerals import numeral_model_for
    from .seatview import build_seat_views
    from .stagecli import registered_inputs, seats_from_truth, stage_parser

    ap = stage_parser("vision.cards", __doc__)
    ap.add_argument("--game", choices=("keltis", "keltis-card"), default="keltis",
                    help="the card game's rows may hold points cards, and it has points and wish rows")
    args = ap.parse_args(argv)
    loaded = registered_inputs(args)
    if isinstance(loaded, int):
        return loaded
    image, cal, _board, reg = loaded
    config = CardConfig()
    seats = seats_from_truth(args.image)
    views = build_seat_views(config.view, cal, reg, tuple(seats) if seats else None)
    comps = load_components(args.components)
    white = paper_white(image, paper_points(cal, reg))
    tiles = []
    for seat, sv in views.items():
        art = card_art(comps, sv.ppm, round(sv.px_per_mm, 1))
        sc = read_seat_cards(config, image, sv, art, white, numeral_model_for(comps), args.game != "keltis")
        for b in sc.bands:
            print(f"{seat} {b.kind:7s}: " + " ".join(f"{c.kind[:2]}:{c.code}({c.confidence:.2f})" for c in b.cards))
        tiles.append(draw_seat_cards(sv.warp(image), sc, sv))
    if args.overlay and tiles:
        h = max(t.shape[0] for t in tiles)
        out = np.hstack([cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, 4, cv2.BORDER_CONSTANT) for t in tiles])
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
