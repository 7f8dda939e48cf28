"""The card game's rows on full-resolution stills (session 16, wt16-cards): a pale pink strip is no points
card because it is about as far from the points' grey as from its own pink, a points card laid last on
a colour row still ends the row when its outline leaks into the table, and a wish row washed out below
the colour labels' saturation is read between its outlined pieces. Each fails on main (d44d000)."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from vision.cardart import card_art
from vision.cards import (CardConfig, _nearest_kind, find_bands_outlined, grey_chroma_max, piece_chroma,
                          piece_kind_distances)
from vision.components import load_components

P = 1.25                       # px/mm of the half view the rows are found in
FIELD = (40, 106)              # the field's columns (66 px: 53 mm)


def _art():
    return card_art(load_components(None), 2.5, 1.0)


def _named(config, field, cream, art):
    """The kind the rows name a flat piece of colour `field` over a stock of `cream`, and every distance."""
    view = np.empty((20, 40, 3), np.uint8)
    view[:] = np.clip(np.round(field), 0, 255).astype(np.uint8)
    cream, sub = np.asarray(cream, np.float32), np.ones((20, 40), bool)
    dists = piece_kind_distances(config, view, cream, sub, 0, 0, art, True)
    return _nearest_kind(config, dists, piece_chroma(view, cream, sub, 0, 0), grey_chroma_max(config, art))[0], dists


def test_a_pale_pink_strip_is_no_points_card_but_a_clipped_lights_grey_is():
    # a pink strip and a points card of one seat about as a still showed them (dev frame 80000/60 north,
    # warm light on a blue table; its strips were 0.135-0.147 from their pink and 0.147-0.189 from the
    # points' grey): the points rule (a colour about as near the grey is points) named the pink row a
    # points row of 4. The strip shows a colour (log-chroma 0.20, the points' art field 0.12)
    art = _art()
    cream = np.array([159.4, 199.1, 226.6])
    pink, points = cream * [1.0, 0.77, 0.90], cream * [0.87, 0.76, 0.73]
    got, dists = _named(CardConfig(), pink, cream, art)
    assert got == "pink", dists
    assert dists["points"] > 0.1 and dists["points"] - dists["pink"] < CardConfig().points_grey_margin, dists
    assert _named(CardConfig(points_grey_chroma=None), pink, cream, art)[0] == "points"   # the rule before
    # the seat's points card itself stays points
    assert _named(CardConfig(), points, cream, art)[0] == "points"
    # a points card under a clipped paper's light (dev video frame 80001/22 west: the paper at 253/254/255,
    # the grey leaning red) is nearer a washed-out red (0.08) than the points' grey (0.11), but shows
    # hardly a colour (0.07): points, as before
    cream2 = np.array([233.3, 258.7, 268.6])
    got, dists = _named(CardConfig(), cream2 * [0.62, 0.65, 0.68], cream2, art)
    assert got == "points" and dists["red"] < dists["points"], dists


def _view_of(mask: np.ndarray, cream: np.ndarray, art) -> tuple:
    """A pale table view with `mask`'s labelled regions (1: pink strips, 2: the points card, 3: table
    joined to the card) painted in their art colours under `cream`, and its components."""
    view = np.empty(mask.shape + (3,), np.uint8)
    view[:] = (150, 170, 190)
    for code, kind in ((1, "pink"), (2, "points")):
        view[mask == code] = np.clip(np.round(cream * np.asarray(art.fields[kind], np.float32)), 0, 255).astype(np.uint8)
    _n, comp, stats, _c = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=4)
    return view, comp, stats


def test_a_points_card_leaking_into_the_table_still_ends_its_colour_row():
    # a pink row `8, 9, P9` on wood (dev frame 80000/47 south): the two pink strips outlined, 16 mm each,
    # the points card's outline open to the table beside it (a leaked piece). A leaked piece joined only
    # rows of its own kind, so the strips (32 mm) were too short to be a row and the row was lost
    art = _art()
    cream = np.array([200.0, 205.0, 210.0], np.float32)
    m = np.zeros((200, 180), np.uint8)
    m[20:40, FIELD[0]:FIELD[1]] = 1                 # strip 1 (16 mm)
    m[43:63, FIELD[0]:FIELD[1]] = 1                 # strip 2, a top border apart
    m[66:170, FIELD[0]:FIELD[1]] = 2                # the points card's field
    m[90:200, FIELD[1]:FIELD[1] + 40] = 3           # table joined through its lost right border ...
    m[170:200, :] = 3                               # ... and running on below the card (not closed)
    view, comp, stats = _view_of(m, cream, art)
    sv = SimpleNamespace(ppm=2.5, margin=14.0)

    def rows(config):
        return find_bands_outlined(config, view, cream, sv, art, True, 0.5, None, {}, (comp, stats), None)

    bands = rows(CardConfig())
    assert [b.kind for b in bands] == ["pink"], bands
    # from the first strip's top to the points card's end
    assert abs(bands[0].v0 - (20 / P - 14.0)) < 2.0 and abs(bands[0].v1 - (170 / P - 14.0)) < 3.0, bands[0]
    assert rows(CardConfig(leaked_points_on_row=False)) == []      # as before: no row
    # a board game has no points cards: the strips alone are no row there
    assert find_bands_outlined(CardConfig(), view, cream, sv, art, False, 0.5, None, {}, (comp, stats), None) == []


def test_a_wish_row_washed_out_in_a_bright_exposure_is_read():
    """(A rendered dev frame, 80000/39, a still: west's wish row `4, 8, 2` in a bright exposure (1.05, the
    markers' paper clipped) is outlined and named wish, but washed below the colour labels' saturation, so
    no card was read in it.) With `CardConfig.ends_from_pieces`, which is off by default: on a fresh seed
    it also read light wood as wish cards. Since session 29 the default reads it too: its last card shows the
    wish cards' stone (`CardConfig.wish_ends_symbol_min`)."""
    from dataclasses import replace
    from simulator.dataset import render_single, sample_spec
    from vision.reader import DEFAULT_READER_CONFIG, Reader

    jpeg, truth = render_single(sample_spec(80000, 39, (4608, 2592)))
    assert truth["game"] == "keltis-card" and sorted(truth["seats"]["west"]["wish_cards"]) == [2, 4, 8]
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    seats = {s: v["player"] for s, v in truth["seats"].items()}
    config = replace(DEFAULT_READER_CONFIG, cards=replace(DEFAULT_READER_CONFIG.cards, ends_from_pieces=True))
    reader = Reader(truth["render"]["calibration"], game=truth["game"], board=None, seats=seats, config=config)
    got = reader.read(image).observation
    assert sorted(got.seats["west"].wish_cards) == [2, 4, 8]
    reader = Reader(truth["render"]["calibration"], game=truth["game"], board=None, seats=seats)
    assert sorted(reader.read(image).observation.seats["west"].wish_cards) == [2, 4, 8]    # the default
