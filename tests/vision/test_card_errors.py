"""bench/card_errors.py's classes (vision.card_errors): a row aligned by fewest edits, so one card
missed in the middle counts once, as missing, and a row read under another colour is named so."""
from __future__ import annotations

from vision.card_errors import align, card_error_classes


def _obs(rows=None, points_row=0, wish_cards=()):
    return {"seats": {"south": {"rows": rows or {}, "points_row": points_row, "wish_cards": list(wish_cards)}}}


def test_align_counts_a_card_missed_in_the_middle_once():
    ops = align(["3", "5", "7", "9"], ["3", "7", "9"])
    assert [op for op, _t, _r in ops] == ["same", "del", "same", "same"]
    assert [op for op, _t, _r in align(["10", "0"], ["0", "0"])] == ["sub", "same"]
    assert [op for op, _t, _r in align([], ["4"])] == ["ins"]


def test_classes_and_confusions():
    truth = _obs(rows={"red": ["10", "0", "5"], "blue": ["2", "3"], "green": ["6", "9"], "pink": ["1"]},
                 points_row=2, wish_cards=[3, 7])
    read = _obs(rows={"red": ["0", "0", "5", "8"], "yellow": ["2", "3"], "green": ["6"], "pink": ["1"]},
                points_row=3, wish_cards=[7])
    classes, confusions = card_error_classes(truth, read)
    assert classes == {"wrong value": 1, "extra card": 1, "row colour": 2, "missing card": 1,
                       "points more": 1, "wish missing": 1}
    assert confusions == {"10→0": 1}
    classes, _ = card_error_classes(truth, _obs(rows={"red": ["10", "0", "5"]}, points_row=2, wish_cards=[3, 7]))
    assert classes == {"row missing": 5}
    assert card_error_classes(truth, truth)[0] == {}
