"""A card's two numeral corners are found together (vision.cards.read_corners, `corner_joint_refine_px`).

The bundled art right-aligns the numeral in the top-right corner, so a "10" there is a digit's width wider
to the left than most values. Found on its own, by the mean glyph of every value, the top-right box was
placed a digit's width off and cut the "0" away: on session 34's 500 fresh frames, cut by their truth
places, the top-right corner read 366 of 586 tens wrong ("1", "5"), and a "10" whose corners then disagreed
at equal certainty was read "1" by the labels' order (docs/vision.md "Session 35 (wt35-numer)"). The two
boxes lie a fixed distance apart on the card, so one shift for both, found from both maps, places them.
"""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.cardart import _base_art, card_art
from vision.cards import CardConfig, read_corners, sized_for, whiteness
from vision.components import load_components
from vision.numerals import numeral_model_for

WOOD = (60, 90, 120)


@pytest.fixture(scope="module")
def setup():
    comps = load_components(None)
    cream, _fields, faces = _base_art(comps)
    return comps, cream, faces, numeral_model_for(comps)


def card_face_seen(setup, kind: str, label: str, seen_ppm: float, shift_mm: float = 0.0, view_ppm: float = 2.5,
                   pad_mm: float = 6.0):
    """One card face as a straightened band (or a pile's upright crop) shows it: on a wood table, its place off by
    `shift_mm` in x and y from the one assumed, seen at `seen_ppm` frame pixels a mm (blurred a little), up to the
    view's ppm, whiteness over the stock; x 0 = the card's left edge, its top `pad_mm` down."""
    comps, cream, faces, _model = setup
    p = comps.card_ppm
    img = cv2.copyMakeBorder(faces[kind][label].astype(np.float32), *(4 * [int(pad_mm * p)]),
                             cv2.BORDER_CONSTANT, value=WOOD)
    if shift_mm:
        shift = np.float32([[1, 0, shift_mm * p], [0, 1, shift_mm * p]])
        img = cv2.warpAffine(img, shift, (img.shape[1], img.shape[0]), borderValue=WOOD)
    small = cv2.GaussianBlur(cv2.resize(img, None, fx=seen_ppm / p, fy=seen_ppm / p, interpolation=cv2.INTER_AREA),
                             (0, 0), 0.8)
    up = cv2.resize(small, None, fx=view_ppm / seen_ppm, fy=view_ppm / seen_ppm, interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(whiteness(up[:, int(round(pad_mm * view_ppm)):], cream)), pad_mm


def _read(setup, white, top, kind, seen_ppm, **change):
    comps, _cream, _faces, model = setup
    art = card_art(comps, 2.5, round(seen_ppm, 1))
    config = dataclasses.replace(sized_for(CardConfig(), art.size), **change)
    got: list = []
    code, _conf, _scores = read_corners(config, white, top, 87.0, kind, art, 2.5, model, ("E",), got)
    return code, {corner: label for corner, label, _wt in got}


@pytest.mark.parametrize("seen_ppm", [1.4, 1.7])
def test_a_ten_in_the_top_right_corner_is_read_ten_when_the_corners_are_found_together(setup, seen_ppm):
    white, top = card_face_seen(setup, "yellow", "10", seen_ppm)
    code, corners = _read(setup, white, top, "yellow", seen_ppm)
    assert code == "10"
    assert corners == {"top-left": "10", "top-right": "10"}
    # found apart (main before session 35), the top-right box cuts the "0" off
    _code, apart = _read(setup, white, top, "yellow", seen_ppm, corner_joint_refine_px=None)
    assert apart["top-left"] == "10" and apart["top-right"] == "1"


@pytest.mark.parametrize("kind,label", [("red", "6"), ("blue", "0"), ("green", "8"), ("pink", "1")])
def test_single_digits_read_alike_together_and_apart(setup, kind, label):
    white, top = card_face_seen(setup, kind, label, 2.0)
    together = _read(setup, white, top, kind, 2.0)
    apart = _read(setup, white, top, kind, 2.0, corner_joint_refine_px=None)
    assert together == apart == (label, {"top-left": label, "top-right": label})
