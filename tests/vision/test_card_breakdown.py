"""`keltis-cam eval`'s breakdown of the card groups' errors (vision.evaluation): rows by kind (a card
missed first, in the middle or last, the positions after it, a wrong value or kind, whole rows), wish
cards and points rows by kind, and the rows by light and by the seat's px/mm."""
from __future__ import annotations

import random

from vision.evaluation import (FrameResult, card_error_breakdown, count_points_row, count_rows, count_wish_cards,
                               explain_points_row, explain_rows, explain_wish_cards, frame_light,
                               seat_px_per_mm)


def _obs(rows=None, wish_cards=None, points_row=0):
    return {"seats": {"south": {"rows": rows or {}, "wish_cards": wish_cards or [], "points_row": points_row}}}


def _kinds(truth, read):
    return [k for k, _d in explain_rows(truth, read)]


def test_a_first_card_missed_is_named_and_the_positions_after_it_follow_it():
    truth = _obs({"red": ["3", "5", "7", "9"]})
    read = _obs({"red": ["5", "7", "9"]})
    assert count_rows(truth, read)[1] == 4
    assert _kinds(truth, read) == ["missing first card"] + ["after a missing card"] * 3


def test_a_middle_or_last_card_missed_a_wrong_value_and_a_wrong_kind():
    truth = _obs({"red": ["3", "5", "7", "9"], "blue": ["1", "2"], "green": ["4", "6"]})
    read = _obs({"red": ["3", "7", "9"], "blue": ["1"], "green": ["4", "P6"]})
    got = sorted(_kinds(truth, read))
    assert got == sorted(["missing middle card", "after a missing card", "after a missing card",
                          "missing last card", "wrong kind"])
    assert _kinds(_obs({"red": ["6", "9"]}), _obs({"red": ["6", "6"]})) == ["wrong value"]
    assert _kinds(_obs({"red": ["6"]}), _obs({"red": ["6", "2"]})) == ["extra last card"]


def test_whole_rows_missing_extra_and_read_under_another_colour():
    truth = _obs({"red": ["3", "5"], "pink": ["1", "2", "4"]})
    read = _obs({"yellow": ["7"], "blue": ["1", "2", "4"]})
    got = _kinds(truth, read)
    assert got.count("row missing") == 2 and got.count("row extra") == 1 and got.count("row colour") == 6
    assert len(got) == count_rows(truth, read)[1]


def test_every_rows_error_is_explained_once():
    """However a reading goes wrong, explain_rows names exactly the errors count_rows counts."""
    rng = random.Random(7)
    codes = [str(v) for v in range(11)] + ["P3", "E"]
    colours = ["red", "yellow", "pink", "green", "blue"]
    for _ in range(300):
        truth = {c: [rng.choice(codes) for _ in range(rng.randint(0, 6))] for c in rng.sample(colours, 3)}
        read = {}
        for c, row in truth.items():
            row = list(row)
            for _ in range(rng.randint(0, 3)):
                op = rng.random()
                if op < 0.3 and row:
                    row.pop(rng.randrange(len(row)))
                elif op < 0.6:
                    row.insert(rng.randint(0, len(row)), rng.choice(codes))
                elif row:
                    row[rng.randrange(len(row))] = rng.choice(codes)
            read[rng.choice(colours) if rng.random() < 0.15 else c] = row
        t, r = _obs(truth), _obs(read)
        assert len(explain_rows(t, r)) == count_rows(t, r)[1], (truth, read)


def test_wish_cards_and_points_rows_by_kind():
    t, r = _obs(wish_cards=[3, 7, 9]), _obs(wish_cards=[7, 4])
    assert sorted(k for k, _d in explain_wish_cards(t, r)) == ["card missed", "wrong value"]
    assert len(explain_wish_cards(t, r)) == count_wish_cards(t, r)[1]
    assert [k for k, _d in explain_points_row(_obs(points_row=3), _obs())] == ["row missed"]
    assert [k for k, _d in explain_points_row(_obs(points_row=3), _obs(points_row=2))] == ["fewer cards"]
    assert [k for k, _d in explain_points_row(_obs(), _obs(points_row=1))] == ["row where none"]
    assert count_points_row(_obs(points_row=3), _obs(points_row=2))[1] == 1


def test_the_light_and_the_seats_px_per_mm_come_from_the_render_truth():
    truth = {"render": {"spec": {"hard": True, "dark": False}, "conditions": {"glare": {"x": 0.5}},
                        "calibration": {"seats": {"south": {"x": 0, "y": 0, "w": 100, "h": 50}}},
                        "seats": {"south": [[0, 0], [200, 0], [200, 100], [0, 100]]}}}
    assert frame_light(truth) == "dim warm + glare"
    assert abs(seat_px_per_mm(truth)["south"] - 2.0) < 1e-9


def test_the_breakdown_lists_the_kinds_and_the_rows_by_light_and_px_per_mm():
    truth = _obs({"red": ["3", "5", "7"]}, wish_cards=[3], points_row=2)
    read = _obs({"red": ["5", "7"]}, wish_cards=[4], points_row=0)
    r = FrameResult("000001.jpg", game="keltis-card", light="normal", seat_ppm={"south": 0.8})
    r.errors = {"rows": explain_rows(truth, read), "wishcard": explain_wish_cards(truth, read),
                "pointrow": explain_points_row(truth, read)}
    r.seat_groups = {"south": {"rows": count_rows(truth, read), "wishcard": count_wish_cards(truth, read),
                               "pointrow": count_points_row(truth, read)}}
    text = "\n".join(card_error_breakdown([r]))
    assert "rows errors by kind (3): missing first card 1, after a missing card 2" in text
    assert "wishcard errors by kind (1): wrong value 1" in text
    assert "pointrow errors by kind (1): row missed 1" in text
    assert "card groups by light:" in text and "normal" in text
    assert "0.75-1.00" in text and "100.00% (3/3)" in text
