"""`keltis-cam eval`'s card groups count what they say (vision.evaluation)."""
from __future__ import annotations

from vision.evaluation import (ELEMENT_GROUPS, count_discards, count_points_row, count_rows, count_wish_cards,
                               count_wish_held)


def _obs(rows=None, wish=None, wish_cards=None, points_row=0, discards=None):
    return {"game": "keltis", "board": "nwnz",
            "seats": {"south": {"player": "black", "rows": rows or {}, "wish": wish or {},
                                "wish_cards": wish_cards or [], "points_row": points_row}},
            "discard_tops": discards or {}}


def test_rows_count_position_by_position_with_missing_and_extra_cards():
    truth = _obs(rows={"red": ["3", "5", "5"], "blue": ["10"]})
    assert count_rows(truth, truth) == (4, 0)
    # one wrong card, one missing at the end
    assert count_rows(truth, _obs(rows={"red": ["3", "6"], "blue": ["10"]})) == (4, 2)
    # an extra card and a whole row that is not there
    assert count_rows(truth, _obs(rows={"red": ["3", "5", "5", "7"], "blue": ["10"], "green": ["1"]})) == (6, 2)


def test_wish_stones_held_count_each_stone_and_an_empty_seat():
    assert count_wish_held(_obs(wish={"green": 2}), _obs(wish={"green": 1, "pink": 1})) == (3, 2)
    assert count_wish_held(_obs(), _obs()) == (1, 0)
    assert count_wish_held(_obs(), _obs(wish={"any": 1})) == (1, 1)


def test_wish_cards_points_row_and_discard_tops():
    assert count_wish_cards(_obs(wish_cards=[3, 7]), _obs(wish_cards=[7, 4])) == (2, 1)
    assert count_points_row(_obs(points_row=2), _obs(points_row=3)) == (1, 1)
    truth = _obs(discards={"red": "7", "blue": None})
    assert count_discards(truth, _obs(discards={"red": "7", "blue": None})) == (2, 0)
    assert count_discards(truth, _obs(discards={"red": "1", "blue": "4"})) == (2, 2)


def test_eval_prints_the_card_groups():
    assert {"rows", "wish", "wishcard", "pointrow", "discards"} <= set(ELEMENT_GROUPS)


def test_teach_writes_weights_the_reader_loads(tmp_path):
    """`keltis-cam teach` on the bundled art (a few corners, one epoch: the command, not the accuracy)."""
    import shutil

    from keltis_cam.cli import main
    from vision.components import DEFAULT_DIR
    from vision.numerals import LABELS, load_numeral_model

    folder = tmp_path / "art"
    shutil.copytree(DEFAULT_DIR, folder)
    (folder / "numerals.npz").unlink()
    assert main(["teach", str(folder), "--per-face", "3", "--epochs", "1"]) == 0
    model = load_numeral_model(folder)
    assert model is not None and model.w2.shape[1] == len(LABELS)
