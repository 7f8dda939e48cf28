"""The card game's points row and wish cards (session 14, wt14-cards): a grey points card is not a pink
washed out by a veil, a clipped marker paper still gives the light's colour, a points band is read where
the colour labels lose its grey, and a seat's wish cards are distinct values."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.cardart import card_art
from vision.cards import (CardConfig, CardRead, _nearest_kind, card_tops, distinct_values, paper_white,
                          piece_kind_distances)
from vision.components import load_components


def _art():
    return card_art(load_components(None), 2.5, 1.0)


def _named(config, field, cream, art):
    """The kind the rows name a flat piece of colour `field` over a stock of `cream` (piece_kind_distances,
    then _nearest_kind: a colour about as near the points' grey is points), and every kind's distance."""
    view = np.empty((20, 40, 3), np.uint8)
    view[:] = np.clip(np.round(field), 0, 255).astype(np.uint8)
    dists = piece_kind_distances(config, view, np.asarray(cream, np.float32), np.ones((20, 40), bool), 0, 0, art, True)
    return _nearest_kind(config, dists)[0], dists


def test_a_grey_points_card_in_warm_light_is_not_a_pink_washed_grey():
    # a points card's field and the seat's stock as a warm, bright frame showed them (dev frame 78200/23:
    # all three points rows were lost, their cards named pink or red). Its hue leans to red by a few
    # hundredths, so a pink under a veil of ~4.5 stocks matches its hue better than the points' grey; but
    # that veil would make it nearly as bright as the stock, and it is ~0.68 of it
    art = _art()
    cream, field = (189.9, 255.9, 264.7), (130.0, 164.0, 189.0)
    assert _named(CardConfig(), field, cream, art)[0] == "points"
    assert _named(CardConfig(veil_dark_weight=0.0), field, cream, art)[0] == "pink"     # the hue alone


def test_washed_out_colours_under_a_veil_keep_their_kind():
    # the brightness a veil implies must not cost a field that really lies under one: every colour of the
    # art under veils up to twice the stock, in the light of the stock guess (seat-wide) or brighter
    # (a glare on this piece only), keeps its kind
    art = _art()
    cream = np.array([150.0, 180.0, 190.0])
    config = CardConfig()
    for kind in ("red", "yellow", "pink", "green", "blue", "wish", "points"):
        f = np.asarray(art.fields[kind], np.float64)
        for t in (0.0, 0.3, 1.0, 2.0):
            for local in (False, True):
                field = cream * (f + t) / (1.0 if local else 1.0 + t)
                if field.max() > 255:
                    continue
                got, dists = _named(config, field, cream, art)
                assert got == kind, (kind, t, local, dists)


def test_paper_white_of_a_clipped_paper_gives_the_lights_colour():
    # a bright warm exposure: the paper's red is above the sensor's 255 in its bright half, not in its
    # dimmer parts (the quiet zone's inner edge, a marker in the frame's vignetted corner)
    light = np.array([200.0, 240.0, 300.0])
    image = np.zeros((10, 40, 3), np.uint8)
    for x in range(40):
        image[:, x] = np.clip(light * (0.75 if x % 2 else 1.0), 0, 255)
    points = np.array([(x, y) for x in range(40) for y in range(0, 10, 3)], np.int32)
    white = paper_white(image, points)
    assert np.allclose(white, light, rtol=0.02), white
    # unclipped, the bright half's median as before
    image2 = np.clip(image.astype(np.float32) * 0.8, 0, 255).astype(np.uint8)
    assert np.allclose(paper_white(image2, points), np.median(image2[:, ::2].reshape(-1, 3), 0), atol=1)


def test_a_points_band_whose_grey_the_labels_do_not_name_is_read_from_its_outlined_pieces():
    # a straightened points band of three cards (strips at 0, 20, 40 mm, the last card whole): the
    # whiteness shows the three top borders as ridges; the colour labels show no field at all (a stock
    # guess too dim: the grey is not darker than it). From the outlined pieces' tops and end, the
    # three cards are found; without them, none (as before)
    config = CardConfig()
    ppm, card_h, pad = 2.5, 87.0, 6.0 + config.strip_above_mm
    h = int((pad + 40 + card_h + 10) * ppm)
    white = np.full((h, 140), 0.6, np.float32)
    for top in (0.0, 20.0, 40.0):
        y = int(round((pad + top) * ppm))
        white[y:y + int(2 * ppm)] = 1.0
    labels = np.full(white.shape, -1, np.int8)
    field_tops = tuple(pad + t + config.border_mm for t in (0.0, 20.0, 40.0))
    end = pad + 40.0 + card_h - config.border_mm
    tops = card_tops(config, white, labels, ppm, card_h, pad, ("points",), field_tops, end)
    assert len(tops) == 3 and np.allclose(tops, [pad, pad + 20, pad + 40], atol=1.5), tops
    assert card_tops(config, white, labels, ppm, card_h, pad, ("points",), field_tops) == []


def _card(code, scores):
    return CardRead(0.0, 20.0, "wish", code, 0.5, {k: float(np.log(v)) for k, v in scores.items()})


def test_a_wish_value_read_twice_goes_to_the_card_least_sure_of_it():
    # two cards read 7: the second is nearly as sure of 1 (a 1 and a 7 at ~0.8 px/mm), so it takes 1
    a = _card("7", {"7": 0.9, "1": 0.05, "4": 0.05})
    b = _card("7", {"7": 0.5, "1": 0.45, "4": 0.05})
    c = _card("5", {"5": 0.9, "6": 0.1})
    assert sorted(distinct_values([a, b, c])) == [1, 5, 7]
    assert sorted(distinct_values([b, a, c])) == [1, 5, 7]
    # a value the other card holds is not taken: b's next best is 1, but a third card holds 1 surely
    d = _card("1", {"1": 0.95, "7": 0.05})
    assert sorted(distinct_values([a, b, d])) == [1, 4, 7]
    # distinct readings stay; a card without scores keeps its value
    assert sorted(distinct_values([a, c])) == [5, 7]
    assert sorted(distinct_values([replace(a, scores={}), replace(b, scores={})])) == [7, 7]


def test_a_wish_value_another_seat_holds_is_not_taken():
    # the frame's other seats are known to hold 1 (kept from an earlier reading): the card least sure of
    # the 7 both read takes its next value no one holds
    a = _card("7", {"7": 0.9, "1": 0.05, "4": 0.05})
    b = _card("7", {"7": 0.5, "1": 0.45, "4": 0.05})
    assert sorted(distinct_values([a, b], held=(1,))) == [4, 7]
    assert sorted(distinct_values([a, b])) == [1, 7]
