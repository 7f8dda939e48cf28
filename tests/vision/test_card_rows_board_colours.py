"""A board game's card rows found by their colour where the outlines lose them (vision.cards.find_bands): its rows
hold colour cards only, so the points cards' grey and the wish cards' colour are no field there (docs/vision.md,
session 24)."""
from __future__ import annotations


import numpy as np

from vision.cardart import FIELD_KINDS
from vision.cards import CardConfig, find_bands
from vision_helpers import session_still


class _SeatView:
    ppm = 2.5
    margin = 14.0


def _labels_of_two_rows_on_wood() -> np.ndarray:
    """A half seat view's colour labels (1.25 px/mm): a red row and, 6 mm beside it, a pink one, each a card's
    field (52 × 80 mm) in a ring of its stock's border named the points cards' grey (as a warm lamp names it),
    on a wood table speckled with the wish cards' colour and the points' grey (as a warm lamp names it)."""
    p = 1.25
    rng = np.random.default_rng(3)
    # (in blotches of 5 px, 4 mm: the grain's, which the finder's opening keeps)
    blotch = rng.random((60, 80))
    blotch = np.where(blotch < 0.1, FIELD_KINDS.index("wish"), np.where(blotch < 0.2, FIELD_KINDS.index("points"), -1))
    labels = np.kron(blotch, np.ones((5, 5), np.int64)).astype(np.int16)
    # (and the wood between the two rows)
    labels[50:170, 60 + int(52 * p):60 + int((52 + 2 * 2.2 + 6) * p)] = FIELD_KINDS.index("wish")
    x = 60
    for kind in ("red", "pink"):
        x0, y0 = int(x), 60
        labels[y0 - 3:y0 + int(80 * p) + 3, x0 - 3:x0 + int(52 * p) + 3] = FIELD_KINDS.index("points")
        labels[y0:y0 + int(80 * p), x0:x0 + int(52 * p)] = FIELD_KINDS.index(kind)
        x += (52 + 2 * 2.2 + 6) * p
    return labels


def test_a_board_games_rows_beside_each_other_on_wood_named_grey_and_wish():
    labels = _labels_of_two_rows_on_wood()
    bands = find_bands(CardConfig(), labels, _SeatView(), 0.5,
                       None, card_game=False)
    assert [b.kind for b in bands] == ["red", "pink"]
    # (read as a card game's rows, grey and wish fields too, the two rows and the wood between them are one
    # piece wider than any row: none found — main's reading of the board game's rows, nwnz 83000)
    assert find_bands(CardConfig(), labels, _SeatView(), 0.5,
                      None, card_game=True) == []


def test_a_red_row_on_warm_lit_wood_found_by_its_colour(tmp_path):
    # nwnz 83000 (dev session of the camera path, session 24), frame 20: south's one red card on brown wood under a
    # dim warm lamp (3000 K); its border, barely whiter than the wood, has gaps (no outlined field), and its stock's
    # border and the wood take the points cards' grey: the colour finder's field was 61 mm wide, no row
    # (main: south's red row missed on frames 9-47, turns 1, 4 and 7 lost)
    from vision.cardart import card_art
    from vision.cards import paper_points, paper_white, read_seat_cards
    from vision.numerals import numeral_model_for
    from vision.reader import DEFAULT_READER_CONFIG
    from vision.seatview import build_seat_views

    options = {"game": "keltis", "board": "nwnz", "players": 3, "seed": 83000, "size": [2304, 1296], "fps": 1.0,
               "max_moves": 24, "illegal": 0, "hard": False, "quality": None, "distractors": True, "rules": {},
               "truth_render": "full", "stills": [4608, 2592]}
    still = session_still(tmp_path, options, 20)
    image, cal, reg, comps, seats = still.image, still.calibration, still.registration, still.components, still.seats
    config = DEFAULT_READER_CONFIG.cards
    sv = build_seat_views(config.view, cal, reg, tuple(seats))["south"]
    art = card_art(comps, sv.ppm, round(sv.px_per_mm, 1))
    white = paper_white(image, paper_points(cal, reg))
    sc = read_seat_cards(config, image, sv, art, white, numeral_model_for(comps), False)
    assert [(b.kind, [c.code for c in b.cards]) for b in sc.bands] == [("red", ["4"])]
