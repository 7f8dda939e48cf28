"""Discard piles a sheen or a hot spot washed whole (session 34, wt34-piles): the card stands apart from the table
round it, and the card game's open wish cards no longer take the picture pass's tries."""
from __future__ import annotations

import numpy as np
import pytest

from test_discard_outlines import _tops_with


def _table(shape=(220, 320), seed=5):
    """A table view (0.33 px/mm) of a blue cloth lit unevenly: a hot spot brightening toward one corner, and noise."""
    rng = np.random.default_rng(seed)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    spot = 90.0 * np.exp(-((xx - 0.8 * w) ** 2 + (yy - 0.3 * h) ** 2) / (2 * 60.0 ** 2))
    base = np.stack([140 + spot, 84 + spot, 60 + spot], -1)          # BGR: a blue cloth
    return np.clip(base + rng.normal(0, 3, base.shape), 0, 255).astype(np.uint8)


def _card(view, cx, cy, bgr, art, p, angle=0.0):
    import cv2

    box = cv2.boxPoints(((cx, cy), (art.size[0] * p, art.size[1] * p), angle))
    cv2.fillConvexPoly(view, np.round(box).astype(np.int32), tuple(int(v) for v in bgr))


def test_a_card_washed_whole_stands_apart_from_the_table_as_a_picture_candidate():
    # a card washed white by a sheen names no kind and shows no outline inside, but it differs from the table round
    # it (measured against the table's own median there, a hot spot's gradient included): one card-sized candidate
    # where it lies. A found pile beside it is taken out (it neither joins it nor is a candidate again), a paper pad
    # larger than a card gives none, and a card whose colour names a kind not missing (a wish card) is ranked after.
    from vision.cardart import FIELD_KINDS, card_art
    from vision.components import load_components
    from vision.discards import DiscardConfig, PileFind, TableView, _off_table_blobs

    config = DiscardConfig()
    art = card_art(load_components(None), config.card_ppm, 1.2)
    p = config.ppm
    fw, fh = config.field_size_mm
    field_px = fw * fh * p * p
    view = _table()
    keep = np.ones(view.shape[:2], np.uint8)
    tv = TableView((0.0, 0.0), p, None, None, keep, None)
    _card(view, 200, 80, (250, 252, 255), art, p)                   # the washed card, in the hot spot's reach
    _card(view, 200 + 57 * p, 80, (70, 150, 60), art, p)            # a green pile found beside it, touching it
    _card(view, 60, 160, (40, 140, 235), art, p, 30.0)              # a wish card (orange), turned
    import cv2

    cv2.rectangle(view, (20, 20), (20 + int(100 * p), 20 + int(140 * p)), (235, 235, 235), -1)   # a paper pad
    found = PileFind("green", ((200 + 57 * p) / p, 80 / p), 0.0, "4", 1.0)
    labels = np.full(view.shape[:2], -1, np.int8)
    wish = FIELD_KINDS.index("wish")
    labels[cv2.boxPoints(((60, 160), (1, 1), 0)).astype(int)[0][1], 60] = wish   # (one pixel: not a majority)
    blobs = _off_table_blobs(config, art, tv, view, [found], field_px)
    centres = sorted((round(b[1]), round(b[2])) for b in blobs)
    assert len(blobs) == 2, blobs
    assert abs(centres[1][0] - 200) <= 2 and abs(centres[1][1] - 80) <= 2      # the washed card
    assert abs(centres[0][0] - 60) <= 2 and abs(centres[0][1] - 160) <= 2      # the wish card
    washed = next(b for b in blobs if abs(b[1] - 200) <= 2)
    assert sorted(washed[3:5]) == pytest.approx(sorted((art.size[0] * p, art.size[1] * p)), abs=2)
    assert all(b[6] == config.picture_off_table_rank for b in blobs)
    # the wish card's pixels named the wish cards' colour: ranked after the rest
    mask = np.zeros(view.shape[:2], np.uint8)
    _card(mask, 60, 160, (1, 1, 1), art, p, 30.0)
    labels[mask > 0] = wish
    ranks = {round(b[1]): b[6] for b in _off_table_blobs(config, art, tv, view, [found], field_px, labels,
                                                          [FIELD_KINDS.index("pink")])}
    assert ranks[60] == config.picture_off_table_named_rank and ranks[200] == config.picture_off_table_rank
    # without the found pile taken out the washed card and the green one are one piece of two cards: no candidate
    alone = _off_table_blobs(config, art, tv, view, [], field_px)
    assert not any(abs(b[1] - 200) <= 4 and abs(b[2] - 80) <= 4 for b in alone)


def test_a_pile_a_sheen_washed_whole_is_found_standing_apart_from_the_table():
    # dev frame 84500/241 (base board, dim warm lamp, gloss 0.95, a plain table): the red 6 and the green 2 are washed
    # toward white (named pink and nothing over most of their fields) and no earlier pass cuts a piece for them; each
    # stands apart from the table round it, and its picture names it (main f1d32f3: both missed, as with
    # picture_off_table_px 0); the other tops unchanged
    from vision_helpers import sim_still

    still, truth = sim_still(84500, 241)
    on, off = _tops_with(still, truth, [{}, {"picture_off_table_px": 0}])
    assert on["red"] == "6" and on["green"] == "2"
    assert off["red"] is None and off["green"] is None
    assert {k: v for k, v in on.items() if k not in ("red", "green")} == \
        {k: v for k, v in off.items() if k not in ("red", "green")}


def test_the_card_games_open_wish_cards_leave_the_picture_pass_its_tries():
    # dev frame 84500/132 (card game, a plain table, gloss 0.77): the points P6 is washed whole and found only by the
    # picture pass, after the card game's open wish cards (RULES §3: up to 9 in the middle, card-sized, named yellow
    # or the wish cards' orange) — they took all of main's 6 tries. Either of the two changes alone leaves it a try:
    # the wish cards the colour pass named by their picture are no candidates, and the card game has 15 tries
    from vision_helpers import sim_still

    still, truth = sim_still(84500, 132)
    on, skip, more, neither = _tops_with(still, truth, [
        {}, {"picture_tries_card_game": 6}, {"picture_skip_wish_cards": False},
        {"picture_skip_wish_cards": False, "picture_tries_card_game": 6}])
    assert on["points"] == skip["points"] == more["points"] == "P6"
    assert neither["points"] is None
    assert {k: v for k, v in on.items() if k != "points"} == {k: v for k, v in neither.items() if k != "points"}


def test_the_parts_standing_apart_are_worked_out_only_when_the_tries_reach_their_rank(monkeypatch):
    # (session 34, wt34-plazy) the picture pass asks for the off-table candidates (`later`) only once every candidate
    # ranked before them has been tried and a pile is still missing with tries left; the candidates tried, and their
    # order, are those of the eager pass (the same candidates given in `outlined`): each place once, ranks kept
    import vision.discards as D
    from vision.cardart import card_art
    from vision.components import load_components

    config = D.DiscardConfig()
    art = card_art(load_components(None), config.card_ppm, 1.2)
    tried: list = []

    def nowhere(registration, art, centre, theta):
        tried.append(centre)
        return False            # (every candidate cut by the frame's edge: each takes a try, none is read)
    monkeypatch.setattr(D, "_card_in_image", nowhere)
    r, o, n = config.picture_off_table_rank, config.picture_off_table_named_rank, config.picture_tries
    early = [(0.3, (100.0, 0.0), 0.0), (0.1, (200.0, 0.0), 0.0, False)]
    late = [(0.2, (300.0, 0.0), 0.0, True), (0.0, (400.0, 0.0), 0.0, 2.0), (0.4, (500.0, 0.0), 0.0, True)]
    parts = [(0.5, (600.0, 0.0), 0.0, o), (0.1, (700.0, 0.0), 0.0, r),
             (0.0, (201.0, 0.0), 0.0, r),          # where an earlier candidate lies: not a place again
             (0.2, (800.0, 0.0), 0.0, r)]

    def visit(outlined, later=None):
        tried.clear()
        got = D._pictured_piles(config, None, None, None, None, art, None, None, False, [], [], outlined, [],
                                later, min(r, o))
        assert got == []
        return list(tried)
    eager = visit(early + late + parts)
    asked: list = []
    assert visit(early + late, lambda: asked.append(1) or list(parts)) == eager == \
        [(200.0, 0.0), (100.0, 0.0), (700.0, 0.0), (800.0, 0.0), (300.0, 0.0), (500.0, 0.0)][:n]
    assert asked == [1]

    def never():
        raise AssertionError("worked out though no try was left for them")
    many = [(0.01 * i, (100.0 * i, 0.0), 0.0) for i in range(n)]
    assert visit(many, never) == [c[1] for c in many]
