"""An end card on a discard pile reads "E" (vision.cards.read_corners, `CardConfig.end_symbol_placed`).

An end card's top corners hold a round dot, not a right-aligned numeral. The numeral corners are found by the
mean glyph of every value, which has no true place on a dot: found together (`corner_joint_refine_px`) the two
boxes could settle where they cut the dot's edge, and the classifier read that blob "6" with confidence ~1 (the
lead's fresh frames of session 35, mostly blue and green end cards on discard piles; dev F84800/000049 green).
Where "E" is a possible label, the end symbol's own template is correlated over the same regions and its places
taken when they fit better (docs/vision.md "Session 35 (wt35-eend)").
"""
from __future__ import annotations

import dataclasses

import pytest

from vision.cardart import card_art
from vision.cards import CardConfig, read_corners, sized_for

from test_card_numeral_corners import card_face_seen, setup  # noqa: F401 (the fixture)


def _read(setup, white, top, kind, seen_ppm, **change):
    comps, _cream, _faces, model = setup
    art = card_art(comps, 2.5, round(seen_ppm, 1))
    config = dataclasses.replace(sized_for(CardConfig(), art.size), **change)
    code, _conf, _scores = read_corners(config, white, top, art.size[1], kind, art, 2.5, model, (), end_places=True)
    return code


@pytest.mark.parametrize("kind,seen_ppm,shift_mm", [("blue", 1.0, 0.0), ("blue", 1.2, -1.0), ("green", 1.2, -1.0)])
def test_an_end_card_on_a_pile_reads_end_where_its_dot_fits(setup, kind, seen_ppm, shift_mm):
    white, top = card_face_seen(setup, kind, "E", seen_ppm, shift_mm)
    assert _read(setup, white, top, kind, seen_ppm) == "E"
    # at the mean numeral glyph's places only (main before), the boxes cut the dot into a "6"
    assert _read(setup, white, top, kind, seen_ppm, end_symbol_placed=False) == "6"


@pytest.mark.parametrize("kind,label", [("blue", "6"), ("green", "0"), ("yellow", "10"), ("pink", "8")])
def test_numerals_read_alike_where_the_end_card_is_a_possible_label(setup, kind, label):
    white, top = card_face_seen(setup, kind, label, 1.2, -1.0)
    assert _read(setup, white, top, kind, 1.2) == _read(setup, white, top, kind, 1.2, end_symbol_placed=False) == label
