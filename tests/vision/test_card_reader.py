"""The card reader (vision.cards, vision.wishstones, vision.discards) on the hard cases of issue 16,
each a frame rendered with exactly the cards a test names (pinned camera, light and table: see
card_helpers). What it still gets wrong is marked xfail (strict) with what goes wrong."""
from __future__ import annotations

import pytest

from card_helpers import SEAT, move_pieces, read_cards, touch_wish_stones


def _rows(obs):
    return {c: list(v) for c, v in obs.seats[SEAT].rows.items()}


def test_a_six_and_a_nine():
    truth, got = read_cards(rows={"red": ["6", "9"], "blue": ["9", "6"], "green": ["9"], "yellow": ["6"]})
    assert _rows(got) == _rows(truth)


def test_a_ten_over_a_zero():
    truth, got = read_cards(rows={"pink": ["10", "0"], "green": ["0", "10"], "blue": ["1", "7"]})
    assert _rows(got) == _rows(truth)


@pytest.mark.parametrize("table_top", [("plain", (42, 100, 182)), ("cloth", (150, 40, 40))],
                         ids=["blue-plain", "red-cloth"])
def test_a_row_on_a_table_of_its_own_colour(table_top):
    """Rows are found by the cards' light borders, not by their colour standing out from the table."""
    truth, got = read_cards(rows={"red": ["2", "4"], "blue": ["3", "5", "8"], "green": ["7"]}, table_top=table_top)
    assert _rows(got) == _rows(truth)


def test_a_row_of_eleven():
    truth, got = read_cards(rows={"yellow": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"],
                                  "red": ["3"]})
    assert _rows(got) == _rows(truth)


def test_an_end_card_after_its_twin():
    truth, got = read_cards(game="keltis-card", rows={"green": ["3", "5", "7", "E", "E"], "red": ["4", "4"]},
                            points_row=0, wish_cards=[])
    assert _rows(got) == _rows(truth)


def test_two_wish_stones_of_one_colour_touching():
    truth, got = read_cards(rows={"red": ["5"]}, wish={"green": 2, "pink": 1},
                            edit=lambda scene: touch_wish_stones(scene, SEAT))
    assert got.seats[SEAT].wish == truth.seats[SEAT].wish == {"green": 2, "pink": 1}


def test_a_discard_pile_emptied():
    truth, got = read_cards(rows={"red": ["5"]}, discard_tops={"yellow": "7", "blue": "2"})
    assert got.discard_tops["yellow"] == "7" and got.discard_tops["blue"] == "2"
    truth, got = read_cards(rows={"red": ["5"]}, discard_tops={"yellow": None, "blue": "2"})
    assert truth.discard_tops["yellow"] is None
    assert got.discard_tops["yellow"] is None and got.discard_tops["blue"] == "2"


def test_a_row_touched_by_the_seat_rectangles_edge():
    """The leftmost row (the layout's choice of colour) pushed 16 mm past the seat rectangle's side."""
    rows = {"red": ["2", "4", "8"], "yellow": ["1"], "pink": ["3", "6"], "green": ["10"], "blue": ["5", "7"]}
    moved = []

    def edit(scene):
        cards = [f for f in scene.flats if f.truth and f.truth.get("seat") == SEAT and f.truth.get("kind") == "card"]
        first = min(cards, key=lambda f: f.centre[0]).truth["row"]
        moved.append(first)
        # south's u axis is +x: left is -x
        move_pieces(scene, lambda t: t.get("seat") == SEAT and t.get("kind") == "card" and t.get("row") == first,
                    -16.0, 0.0)

    truth, got = read_cards(rows=rows, edit=edit)
    assert moved
    assert _rows(got) == _rows(truth)


def test_piles_under_a_glare_found_by_their_outlines_and_named_by_their_washed_out_colour():
    """A lamp's reflection over the card game's piles washes their fields out: the colour finder alone
    loses the points pile under a faint glare and the green pile under a stronger one; found by the
    stock's border round each field and named by the colour the veil leaves, they are read."""
    from dataclasses import replace

    from simulator.conditions import Glare
    from vision.reader import DEFAULT_READER_CONFIG

    colour_only = replace(DEFAULT_READER_CONFIG, discards=replace(
        DEFAULT_READER_CONFIG.discards, outline_ppm=0.0, glare_hue_max_rad=0.0, picture_off_table_px=0))
    tops = {"red": "7", "yellow": "2", "pink": "3", "green": "5", "blue": "9", "points": "P4"}
    for intensity, pile in ((0.2, "points"), (0.4, "green")):
        glare = Glare(0.5, 0.5, 0.09, intensity, 1.3, 20.0)
        truth, got = read_cards(game="keltis-card", discard_tops=tops, glare=glare)
        _, before = read_cards(game="keltis-card", discard_tops=tops, glare=glare, config=colour_only)
        assert before.discard_tops[pile] is None
        assert got.discard_tops[pile] == truth.discard_tops[pile]
        # no pile read where the colour finder read one right, and no other colour's card taken for one
        for key, code in before.discard_tops.items():
            if code == truth.discard_tops[key]:
                assert got.discard_tops[key] == code
        assert all(code is None or code[0] != "P" or key == "points" for key, code in got.discard_tops.items())
