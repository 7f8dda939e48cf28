"""vision.cards' row bookkeeping on bands made by hand (no frame)."""
from __future__ import annotations

from vision.cards import Band, CardConfig, settle_colours


def _band(kind, dists, length=60.0, u=0.0):
    return Band(kind, u, 0.0, 0.0, length, colour_dist=dists)


def test_two_rows_claiming_one_colour_share_the_colours_by_their_hues():
    """A red row washed out toward pink next to the pink row: both claim pink; the pink one keeps it
    (its fields lie nearer pink than the red one's lie to red... and the red one nearer red)."""
    pink = _band("pink", {"pink": 0.10, "red": 0.50, "yellow": 0.9, "green": 0.9, "blue": 0.9})
    washed_red = _band("pink", {"pink": 0.20, "red": 0.15, "yellow": 0.9, "green": 0.9, "blue": 0.9}, u=70.0)
    blue = _band("blue", {"pink": 0.9, "red": 0.9, "yellow": 0.9, "green": 0.9, "blue": 0.05}, u=140.0)
    settle_colours(CardConfig(), [pink, washed_red, blue])
    assert (pink.kind, washed_red.kind, blue.kind) == ("pink", "red", "blue")


def test_a_row_with_no_colour_near_enough_keeps_its_claim():
    a = _band("green", {"green": 0.1, "red": 0.9, "yellow": 0.9, "pink": 0.9, "blue": 0.9})
    b = _band("green", {"green": 0.2, "red": 0.8, "yellow": 0.95, "pink": 0.9, "blue": 0.9}, u=70.0)
    settle_colours(CardConfig(), [a, b])
    assert (a.kind, b.kind) == ("green", "green")
