"""Every validation rule of engine/board.py, exercised by a mutated copy of a bundled board file:
the error names the file, the stone (where there is one) and the broken rule (FORMATS §1)."""
from __future__ import annotations

import pytest

from engine.board import load_board, parse_board
from engine.errors import BoardFileError, FormatVersionError, MalformedInput

SOURCE = "mutated.json"


def stone(data: dict, sid: str) -> dict:
    return next(s for s in data["stones"] if s["id"] == sid)


def add_stone(data: dict, **fields) -> None:
    base = {"kind": "stone", "x": 5, "y": 5, "r": 5, "next": [], "color": "red", "tile_spot": False,
            "wish_pile": None, "end": False}
    data["stones"].append({**base, **fields})


def _dup_id(d):
    d["stones"].append(dict(stone(d, "c5")))


def _unknown_next(d):
    stone(d, "c5")["next"].append("zz9")


def _backward_step(d):
    stone(d, "d6")["next"] = ["c5"]


def _cycle(d):
    stone(d, "a11")["next"].append("a10")  # a10 -> a11 -> a10


def _same_row_step(d):
    stone(d, "c5")["next"] = ["d5"]


def _skip_row(d):
    stone(d, "c5")["next"] = ["d7"]


def _unreachable(d):
    add_stone(d, id="lost5", row=5, value=2, next=["d6"])


def _dead_end(d):
    stone(d, "d8")["next"] = []


def _end_value(d):
    stone(d, "a12")["value"] = 9


def _end_colours(d):
    stone(d, "a12")["color"] = "yellow"


def _end_with_next(d):
    stone(d, "e11")["end"] = True  # still leads on to e12


def _wish_pile_colour(d):
    stone(d, "c4")["wish_pile"] = "blue"  # c4 is yellow


def _tile_count(d):
    d["tile_set"]["clover"] = 6


def _tile_spot_count(d):
    stone(d, "d5")["tile_spot"] = True


def _row_value(d):
    stone(d, "c5")["value"] = 3  # row 5 is worth 2


def _unknown_colour(d):
    stone(d, "c5")["color"] = "purple"


def _no_row(d):
    del stone(d, "c5")["row"]


def _bad_radius(d):
    stone(d, "c5")["r"] = -3


def _missing_x(d):
    stone(d, "c5")["x"] = "12"


def _two_starts(d):
    d["stones"].append({"id": "start2", "kind": "start", "x": 20, "y": 380, "r": 10, "next": ["b1"]})


def _bad_kind(d):
    stone(d, "c5")["kind"] = "rock"


def _missing_pile(d):
    stone(d, "c9")["wish_pile"] = None


def _two_piles_one_colour(d):
    stone(d, "c3")["wish_pile"] = "yellow"  # c4 has the yellow pile


def _end_not_last_row(d):
    stone(d, "a11").update(end=True, next=[], value=10, color="red")  # the red end moves down a row ...
    d["stones"].remove(stone(d, "a12"))                   # ... while the other ends stay in row 12


def _unknown_tile_code(d):
    d["tile_set"]["wish-purple"] = d["tile_set"].pop("wish-red")


def _per_pile(d):
    d["wish_stones_per_pile"] = "five"


def _bad_ruleset(d):
    d["ruleset"] = "chess"


def _bad_size(d):
    d["size_mm"] = [560]


# (mutation, stone the message must name or None, words of the broken rule)
NWNZ_CASES = [
    (_dup_id, "c5", "used twice"),
    (_unknown_next, "c5", "unknown stone 'zz9'"),
    (_backward_step, "d6", "must reach row 7"),
    (_cycle, "a11", "must reach row 12"),
    (_same_row_step, "c5", "must reach row 6"),
    (_skip_row, "c5", "must reach row 6"),
    (_unreachable, "lost5", "cannot be reached from the start"),
    (_dead_end, "d8", "must reach an end stone"),
    (_end_value, "a12", "end stone is worth 10, not 9"),
    (_end_colours, None, "one per colour"),
    (_end_with_next, "e11", "end stone cannot have next"),
    (_wish_pile_colour, "c4", "blue wish pile must lie on a blue stone, not a yellow one"),
    (_tile_count, None, "23 tiles for 22 tile spots"),
    (_tile_spot_count, None, "22 tiles for 23 tile spots"),
    (_row_value, "c5", "row 5 is worth 2"),
    (_unknown_colour, "c5", "color must be one of"),
    (_no_row, "c5", "row must be an integer"),
    (_bad_radius, "c5", "must be positive"),
    (_missing_x, "c5", "x must be a number"),
    (_two_starts, None, "exactly one start stone"),
    (_bad_kind, "c5", "kind must be"),
    (_missing_pile, None, "5 wish piles"),
    (_two_piles_one_colour, None, "two wish piles of one colour"),
    (_end_not_last_row, "a11", "last row 12"),
    (_unknown_tile_code, None, "unknown tile codes ['wish-purple']"),
    (_per_pile, None, "wish_stones_per_pile"),
    (_bad_ruleset, None, "unknown ruleset 'chess'"),
    (_bad_size, None, "size_mm must be"),
]


@pytest.mark.parametrize("mutate,stone_id,rule", NWNZ_CASES, ids=[c[0].__name__.strip("_") for c in NWNZ_CASES])
def test_mutated_nwnz_is_refused_naming_stone_and_rule(raw_board, mutate, stone_id, rule):
    data = raw_board("nwnz")
    parse_board(data, SOURCE)  # the unmutated copy is fine
    mutate(data)
    with pytest.raises(BoardFileError) as info:
        parse_board(data, SOURCE)
    msg = str(info.value)
    assert SOURCE in msg
    assert rule in msg
    if stone_id:
        assert f"stone {stone_id!r}" in msg
    assert "\n" not in msg  # one line, for the CLI


def test_base_ruleset_refuses_jokers(raw_board):
    data = raw_board("base")
    stone(data, "p4")["color"] = "joker"
    with pytest.raises(BoardFileError, match="no joker stones"):
        parse_board(data, SOURCE)


def test_last_row_holds_only_end_stones(raw_board):
    """A plain stone in the last row can lead nowhere, so it is refused as a dead end."""
    data = raw_board("base")
    add_stone(data, id="extra9", row=9, value=10, color="red")
    stone(data, "r8")["next"].append("extra9")
    with pytest.raises(BoardFileError, match="stone 'extra9'.*not an end stone needs next stones"):
        parse_board(data, SOURCE)


def test_end_colours_message_lists_the_end_stones(raw_board):
    data = raw_board("base")
    stone(data, "b9")["color"] = "green"
    with pytest.raises(BoardFileError) as info:
        parse_board(data, SOURCE)
    assert "('b9', 'green')" in str(info.value) and "('g9', 'green')" in str(info.value)


@pytest.mark.parametrize("fmt", ["keltis-board/2", "keltis-board/9.1"])
def test_unknown_format_version_names_file_and_version(raw_board, write_board, fmt):
    data = raw_board("nwnz")
    data["format"] = fmt
    path = write_board(data, "future-board.json")
    with pytest.raises(FormatVersionError) as info:
        load_board(path)
    assert str(path) in str(info.value) and repr(fmt) in str(info.value)


@pytest.mark.parametrize("fmt", [None, "keltis-board", "keltis-observation/1"])
def test_missing_or_foreign_format_is_refused(raw_board, fmt):
    data = raw_board("base")
    data["format"] = fmt
    with pytest.raises(FormatVersionError, match=SOURCE):
        parse_board(data, SOURCE)


def test_not_json_names_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "keltis-board/1",\n  "stones": [\n', encoding="utf-8")
    with pytest.raises(BoardFileError, match=r"broken\.json.*not valid JSON.*line 3"):
        load_board(path)


def test_missing_file_and_unknown_bundled_name():
    with pytest.raises(BoardFileError, match="no bundled board named 'moon'.*known: base, nwnz"):
        load_board("moon")
    with pytest.raises(BoardFileError, match="nowhere.json.*cannot read"):
        load_board("/nowhere/nowhere.json")


def test_board_errors_are_malformed_input_value_errors(raw_board):
    data = raw_board("nwnz")
    data["stones"] = []
    with pytest.raises(MalformedInput):
        parse_board(data, SOURCE)
    assert issubclass(BoardFileError, ValueError)


def test_a_measured_board_loads_without_code_changes(raw_board, write_board):
    """A player's corrected file (moved stones, other tile spots, other graph) is taken as it is."""
    data = raw_board("nwnz")
    data["name"], data["reconstructed"] = "my-nwnz", False
    for s in data["stones"]:
        s["x"] = round(s["x"] * 1.02, 1)
    stone(data, "d5")["tile_spot"], stone(data, "d3")["tile_spot"] = True, False
    stone(data, "c3")["next"].append("e4")  # a step the reconstruction does not have
    board = load_board(write_board(data, "my-nwnz.json"))
    assert board.name == "my-nwnz" and not board.reconstructed
    assert "d5" in board.tile_spots and "d3" not in board.tile_spots
    assert board.steps("c3", "e4") == 1 and board.steps("b2", "d6") == 4 and board.steps("d6", "b2") is None
