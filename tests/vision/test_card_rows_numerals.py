"""Covered strips whose top border shows no ridge are found by their numerals (CardConfig.numeral_top_min,
numeral_pair_mm, numeral_seen, numeral_tall_mm, numeral_pitch_mm; vision.cards.numeral_tops / numeral_top /
_fill_tops; docs/vision.md, session 29, wt29-rows): a field washed out by gloss or glare as white as its border (pink,
the palest colour, first) leaves no ridge between the strips, but both top corners still show the card's value.
Dev frames of `keltis-cam sim frames --n 500 --seed 83690` (4608 × 2592; the lead's frames of session 28, dev data
since) rendered again, and synthetic tops."""
from __future__ import annotations

from vision_helpers import seat_rows

from vision.cards import CardConfig, _fill_tops


def test_a_washed_out_pink_row_is_read_between_its_first_card_and_its_end():
    # board game, glare: north's pink strips as white as their borders (ridges 0.04-0.05 of ridge_min's 0.10); the
    # row's end lies a card and two strips below the only top found: its three missing tops found by their numerals
    truth, got = seat_rows(83690, 33, "north")
    assert got["pink"] == truth["pink"] == ["10", "4", "1", "0"]
    _truth, before = seat_rows(83690, 33, "north", numeral_top_min=None)
    assert before["pink"] == ["10"]


def test_washed_out_strips_above_the_last_card_are_found():
    # south's pink row found by its last card only (`8`); the two strips above it show no top border
    truth, got = seat_rows(83690, 331, "south")
    assert got["pink"] == truth["pink"] == ["4", "8", "8"]
    _truth, before = seat_rows(83690, 331, "south", numeral_top_min=None)
    assert before["pink"] == ["8"]


def test_a_strip_three_strips_tall_is_split():
    # card game, glare on a white table: south's red row read `0` over 54 mm (two strips lost, one of them a points
    # card); the numerals split it and every later card keeps its place
    truth, got = seat_rows(83690, 148, "south")
    assert got["red"] == truth["red"] == ["0", "P0", "1", "2", "3", "5", "7"]
    _truth, before = seat_rows(83690, 148, "south", numeral_top_min=None)
    assert before["red"] == ["0", "2", "3", "5", "7"]


def _finder(found: dict[tuple[float, float], float]):
    """A stand-in for read_band's numeral search: the top it finds in each (lo, hi) asked, from `found`'s places."""
    asked = []

    def more(lo: float, hi: float, nxt: float | None) -> float | None:
        asked.append((round(lo, 1), round(hi, 1), nxt))
        hits = [t for t in found if lo <= t <= hi]
        return max(hits, key=found.get) if hits else None

    return more, asked


def test_synthetic_a_tall_strip_split_at_the_rows_pitch():
    config = CardConfig()
    more, asked = _finder({46.0: 0.6, 52.0: 0.9})
    # tops 10, 28 (pitch 18) and 64: the 36 mm strip holds one more top, at the pitch (46, not 52)
    assert _fill_tops(config, [10.0, 28.0, 64.0], 64.0, 17.0, 18.0, more) == [10.0, 28.0, 46.0, 64.0]
    # a strip no taller than numeral_tall_mm is not looked into
    more, asked = _finder({19.0: 0.9})
    assert _fill_tops(config, [10.0, 28.0], 28.0, 17.0, 18.0, more) == [10.0, 28.0]
    assert asked == []


def test_synthetic_tops_below_the_last_kept_only_with_a_last_cards_picture():
    config = CardConfig()
    more, _ = _finder({28.0: 0.9, 46.0: 0.9})
    # the row's end puts the last card at 46: found below the one top given, pitch unknown
    assert _fill_tops(config, [10.0], 46.0, 17.0, None, more, lambda t: True) == [10.0, 28.0, 46.0]
    # no last card's picture where the last one found lies (a table of the row's colour ran the end on): dropped
    assert _fill_tops(config, [10.0], 46.0, 17.0, None, more, lambda t: False) == [10.0]
