"""The engine's command line: `keltis-cam score` and `keltis-cam check` (README "Command line").

Board-game part: the example states in fixtures/states/ (base-midgame.json; nwnz-before.json →
nwnz-after-row-order.json) and malformed files, which must give exit status 2 and a one-line error
naming the file and the field.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import bundled_board
from keltis_cam.cli import main

STATES = Path(__file__).resolve().parents[2] / "fixtures" / "states"
BASE_MIDGAME = STATES / "base-midgame.json"
NWNZ_BEFORE = STATES / "nwnz-before.json"
NWNZ_AFTER = STATES / "nwnz-after-row-order.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- score (board game) ---------------------------------------------------------------------------------

def test_score_base_midgame_json(capsys):
    """RULES §1 Scoring, worked by hand for fixtures/states/base-midgame.json:
    south: big r2 (−3×2) + g1 −4 + y2 −3 + p1 −4 + b1 −4 = −21, 1 wish stone −3 → −24
    west:  big b2 (−3×2) + y3 −2 + g4 1 + p4 1 + r2 −3 = −9, 2 wish stones 2 → −7
    north: big p2 (−3×2) + r5 2 + b2 −3 + y4 1 + g2 −3 = −9, 1 wish stone −3 → −12"""
    code, out, err = run(capsys, "score", BASE_MIDGAME, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert {s: v["total"] for s, v in data["scores"].items()} == {"south": -24, "west": -7, "north": -12}
    assert data["winners"] == ["west"]
    south = data["scores"]["south"]
    assert (south["pawns"], south["tiles"], south["wish"]) == (-21, 0, -3)
    assert south["player"] == "black"
    assert sum(p["points"] for p in south["parts"]) == south["total"]
    assert data["final"] is False


def test_score_points_are_added(capsys):
    code, out, _ = run(capsys, "score", BASE_MIDGAME, "--json", "--points", "south=3")
    assert code == 0
    south = json.loads(out)["scores"]["south"]
    assert south["tiles"] == 3 and south["total"] == -21


def test_score_points_can_change_the_winner(capsys):
    code, out, _ = run(capsys, "score", BASE_MIDGAME, "--json", "--points", "south=20", "west=4")
    data = json.loads(out)
    assert data["scores"]["west"]["total"] == -3 and data["scores"]["south"]["total"] == -4
    assert data["winners"] == ["west"]
    code, out, _ = run(capsys, "score", BASE_MIDGAME, "--json", "--points", "south=21")
    assert json.loads(out)["winners"] == ["south"]


def test_score_text_lists_parts_and_winners(capsys):
    code, out, _ = run(capsys, "score", BASE_MIDGAME)
    assert code == 0
    assert "south (black): -24" in out
    assert "doubled" in out
    assert out.strip().endswith("winners: west")


def test_score_nwnz_state(capsys):
    code, out, _ = run(capsys, "score", NWNZ_BEFORE, "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data["scores"]) == {"south", "west"}


# ---- check (board game) ----------------------------------------------------------------------------------

def test_check_nwnz_row_order_json(capsys):
    """RULES §1 Card rows: the red row 0, 8 is ascending; a 2 cannot follow."""
    code, out, err = run(capsys, "check", NWNZ_BEFORE, NWNZ_AFTER, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["legal"] is False
    assert [v["code"] for v in data["violations"]] == ["row-order"]
    assert data["violations"][0]["message"] == "red row is ascending (0, 8): a 2 cannot follow"
    assert data["violations"][0]["seat"] == "south"
    kinds = [c["kind"] for c in data["changes"]]
    assert "card-laid" in kinds and "pawn-moved" in kinds
    moved = next(c for c in data["changes"] if c["kind"] == "pawn-moved")
    src, dst = _moved_pawn(NWNZ_BEFORE, NWNZ_AFTER)
    assert moved["seat"] == "south" and (moved["data"]["from"], moved["data"]["to"]) == (src, dst)
    board = bundled_board("nwnz")  # the pawn took one step onto a stone a red card may enter (RULES §2)
    assert dst in board.stones[src].next and board.stones[dst].color in ("red", "joker")


def _moved_pawn(before: Path, after: Path) -> tuple[str, str]:
    """(from, to) of the one pawn whose stone differs between two fixture files."""
    pairs = [(a["stone"], b["stone"]) for a, b in zip(_fixture(before)["pawns"], _fixture(after)["pawns"])
             if a["stone"] != b["stone"]]
    assert len(pairs) == 1, pairs
    return pairs[0]


def test_check_text(capsys):
    code, out, _ = run(capsys, "check", NWNZ_BEFORE, NWNZ_AFTER)
    assert code == 0
    assert "change: south (black) laid a red 2 in the red row" in out
    assert "VIOLATION row-order: red row is ascending (0, 8): a 2 cannot follow" in out


def test_check_same_state_is_legal(capsys):
    code, out, _ = run(capsys, "check", BASE_MIDGAME, BASE_MIDGAME)
    assert code == 0
    assert "no change" in out and "legal" in out
    code, out, _ = run(capsys, "check", BASE_MIDGAME, BASE_MIDGAME, "--json")
    assert json.loads(out) == {"changes": [], "violations": [], "legal": True}


# ---- malformed input: exit 2, one line naming the file and the field ---------------------------------------

def _write(tmp_path: Path, name: str, data) -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def _fixture(path: Path = BASE_MIDGAME) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name → (file, text the error must contain besides the file name)."""
    wrong_version = _fixture()
    wrong_version["format"] = "keltis-observation/2"
    bad_tile = _fixture()
    bad_tile["tiles"]["r4"] = "dragon"
    bad_colour = _fixture()
    bad_colour["pawns"][0]["player"] = "purple"
    bad_stone = _fixture()
    bad_stone["pawns"][3]["stone"] = "x42"
    bad_card = _fixture()
    bad_card["seats"]["west"]["rows"]["red"] = ["6", "eleven"]
    return {
        "missing": (tmp_path / "nowhere.json", "cannot read"),
        "not json": (_write(tmp_path, "broken.json", '{"format": "keltis-observation/1", "pawns": ['), "not valid JSON"),
        "wrong version": (_write(tmp_path, "v2.json", wrong_version), "format"),
        "unknown tile": (_write(tmp_path, "tile.json", bad_tile), "tiles.r4"),
        "unknown colour": (_write(tmp_path, "colour.json", bad_colour), "pawns[0].player"),
        "unknown stone": (_write(tmp_path, "stone.json", bad_stone), "pawns[3].stone"),
        "unknown card": (_write(tmp_path, "card.json", bad_card), "seats.west.rows.red[1]"),
    }


@pytest.mark.parametrize("case", ["missing", "not json", "wrong version", "unknown tile", "unknown colour",
                                  "unknown stone", "unknown card"])
def test_score_bad_file_exit_2_one_line(capsys, tmp_path, case):
    path, field = _bad_files(tmp_path)[case]
    code, out, err = run(capsys, "score", path, "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and field in lines[0]


@pytest.mark.parametrize("case", ["missing", "not json", "wrong version", "unknown stone"])
def test_check_bad_file_names_the_bad_one(capsys, tmp_path, case):
    path, field = _bad_files(tmp_path)[case]
    for argv in (("check", path, BASE_MIDGAME), ("check", BASE_MIDGAME, path)):
        code, out, err = run(capsys, *argv)
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert str(path) in lines[0] and field in lines[0]
        assert str(BASE_MIDGAME) not in lines[0]


def test_unknown_stone_error_quotes_the_stone(capsys, tmp_path):
    path, _ = _bad_files(tmp_path)["unknown stone"]
    _, _, err = run(capsys, "score", path)
    assert "x42" in err


def test_points_for_a_seat_not_playing(capsys):
    code, _, err = run(capsys, "score", BASE_MIDGAME, "--points", "east=2")
    assert code == 2 and "east" in err and "--points" in err


def test_malformed_points(capsys):
    code, _, err = run(capsys, "score", BASE_MIDGAME, "--points", "south:2")
    assert code == 2 and "SEAT=N" in err


def test_check_states_of_different_boards(capsys):
    code, _, err = run(capsys, "check", BASE_MIDGAME, NWNZ_BEFORE)
    assert code == 2 and "different boards" in err


def test_unusable_frame_is_refused(capsys, tmp_path):
    data = {"format": "keltis-observation/1", "game": "keltis", "board": "base", "usable": False,
            "reason": "occluded"}
    path = _write(tmp_path, "hand.json", data)
    code, _, err = run(capsys, "score", path)
    assert code == 2 and str(path) in err and "unusable" in err
