"""Discard piles with another art set (docs/vision.md, session 33 wt33-alt): the board games leave the wish cards'
colour out as they do the points cards' grey, and a pile lying in a table its colour table names the pile's kind
is cut from it where the table has its own colours."""
from __future__ import annotations

import numpy as np

from vision.cardart import FIELD_KINDS, card_art
from vision.cards import CardConfig
from vision.discards import DiscardConfig, _card_blobs, art_in_play, table_colours, table_labels


def _every_colour() -> np.ndarray:
    q = np.arange(32, dtype=np.uint8) * 8 + 4
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    return np.stack([b.ravel(), g.ravel(), r.ravel()], 1).reshape(32, 1024, 3)


def _second_art_set():
    """The bundled art with the second art set's field colours (simulator.components.ART_STYLES["alt"], over its
    cream, BGR), as a folder written by `sim components --style alt` gives them (without writing one)."""
    import dataclasses

    from simulator.components import ART_STYLES
    from vision.components import load_components

    alt = ART_STYLES["alt"]
    cream = np.array(alt["CREAM"][::-1], np.float32)
    rgb = {**alt["CARD_RGB"], "points": alt["POINTS_RGB"], "wish": alt["WISH_CARD_RGB"], "back": alt["BACK_RGB"]}
    fields = {k: np.array(v[::-1], np.float32) / cream for k, v in rgb.items()}
    return dataclasses.replace(card_art(load_components(), 2.5, 1.2), cream=cream, fields=fields)


def test_board_games_leave_the_wish_cards_colour_out():
    """The second art set's yellow lies a few degrees from its wish cards' orange: in the board games (no wish
    cards) no colour is the wish cards', and colours neither wish nor points keep their labels."""
    art = _second_art_set()
    every = _every_colour()
    cream = np.array([150.0, 170.0, 180.0], np.float32)
    cfg = DiscardConfig()
    full = table_labels(cfg, CardConfig(), every, cream, art)
    old = table_labels(cfg, CardConfig(), every, cream, art_in_play(art, card_game=False))
    new = table_labels(cfg, CardConfig(), every, cream, art_in_play(art, False, without_wish=True))
    wish, yellow, pts = FIELD_KINDS.index("wish"), FIELD_KINDS.index("yellow"), FIELD_KINDS.index("points")
    assert (old == wish).any() and not (new == wish).any() and not (new == pts).any()
    keep = (full != wish) & (full != pts)
    assert np.array_equal(new[keep], full[keep])
    assert (new[old == wish] == yellow).any()          # colours the wish cards took go to the yellow field
    assert art_in_play(art, card_game=True, without_wish=True) is art


def _yellow_table_with_a_pile(seed: int = 3):
    """A table view at 0.33 px/mm: warm wood (noisy) whose colours the colour table half names the pile's kind,
    a yellow pile's field (17x27 px) lying on it, touching it on every side."""
    rng = np.random.default_rng(seed)
    h, w = 140, 160
    view = np.clip(np.array([26, 56, 95], np.float32) + rng.normal(0, 4, (h, w, 3)), 0, 255).astype(np.uint8)
    y0, x0, fh, fw = 50, 60, 27, 17
    view[y0:y0 + fh, x0:x0 + fw] = np.clip(np.array([27, 90, 129], np.float32)
                                           + rng.normal(0, 4, (fh, fw, 3)), 0, 255).astype(np.uint8)
    # the labels: the field all of the pile's kind, the table's pixels every other one (speckle)
    mask = (rng.random((h, w)) < 0.6).astype(np.uint8)
    mask[y0:y0 + fh, x0:x0 + fw] = 1
    return view, mask, (y0, x0, fh, fw)


def test_a_pile_in_a_table_of_its_labelled_kind_is_cut_out_by_the_tables_own_colours():
    cfg = DiscardConfig()
    view, mask, (y0, x0, fh, fw) = _yellow_table_with_a_pile()
    p = cfg.ppm
    field_px = cfg.field_size_mm[0] * cfg.field_size_mm[1] * p * p
    keep = np.ones(mask.shape, np.uint8)

    def card_sized_at_pile(blobs):
        out = []
        for xs, ys, area in blobs:
            cx, cy = xs.mean(), ys.mean()
            if abs(cx - (x0 + fw / 2)) < 3 and abs(cy - (y0 + fh / 2)) < 3 and 0.8 * fw * fh <= area <= 1.2 * fw * fh:
                out.append(area)
        return out

    assert card_sized_at_pile(_card_blobs(cfg, view, mask, field_px)) == []      # the edge cut alone: lost
    own = table_colours(cfg, view, keep)
    assert own[y0 + 3:y0 + fh - 3, x0 + 3:x0 + fw - 3].mean() < 0.05 and own[:40].mean() > 0.4
    assert len(card_sized_at_pile(_card_blobs(cfg, view, mask, field_px, own))) == 1
    assert len(card_sized_at_pile(_card_blobs(cfg, view, mask, field_px, lambda: own))) == 1
    off = DiscardConfig(table_colours_share=0.0)
    assert table_colours(off, view, keep) is None


def test_the_ink_a_pile_must_show_follows_the_contrast_its_art_prints():
    """A kind printed paler than the art's usual colours (its field nearer the stock's white) asks for less ink in
    its corners, by as much: the second art set's pink about half its colours', the bundled strong colours 1."""
    from vision.components import load_components
    from vision.discards import ink_contrast_share

    bundled = card_art(load_components(), 2.5, 1.2)
    for kind in ("red", "yellow", "blue"):
        assert 0.95 <= ink_contrast_share(bundled, kind) <= 1.05
    alt = _second_art_set()
    assert 0.45 < ink_contrast_share(alt, "pink") < 0.6 < ink_contrast_share(bundled, "pink") < 0.8
    assert ink_contrast_share(alt, "yellow") < ink_contrast_share(bundled, "yellow")
    assert ink_contrast_share(alt, "nonesuch") == 1.0
    assert DiscardConfig().ink_by_contrast
