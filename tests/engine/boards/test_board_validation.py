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


def in_row(d: dict, row: int, *, skip: tuple[str, ...] = (), **want) -> dict:
    """The first plain stone (not an end stone, no wish pile) of a row with the wanted fields, by id:
    the NWNZ mutations find their stones by property, so they survive a corrected board file."""
    for s in sorted(d["stones"], key=lambda s: s["id"]):
        if (s["kind"] == "stone" and s["row"] == row and not s["end"] and not s["wish_pile"]
                and s["id"] not in skip and all(s.get(k) == v for k, v in want.items())):
            return s
    raise LookupError(f"no stone in row {row} with {want}")


def where(d: dict, **want) -> dict:
    """The first stone (by id) with the wanted fields."""
    return next(s for s in sorted(d["stones"], key=lambda s: s["id"])
                if all(s.get(k) == v for k, v in want.items()))


def end_stone(d: dict, colour: str) -> dict:
    return where(d, end=True, color=colour)


def plain_of(d: dict, colour: str) -> dict:
    """The first stone (by id) of this colour that is neither an end stone nor a wish pile."""
    return where(d, kind="stone", color=colour, end=False, wish_pile=None)


# Each NWNZ mutation returns the id of the stone the error must name (or None).
def _dup_id(d):
    s = in_row(d, 5)
    d["stones"].append(dict(s))
    return s["id"]


def _unknown_next(d):
    s = in_row(d, 5)
    s["next"].append("zz9")
    return s["id"]


def _backward_step(d):
    s = in_row(d, 6)
    s["next"] = [in_row(d, 5)["id"]]
    return s["id"]


def _cycle(d):
    s = in_row(d, 11)
    before = next(t for t in d["stones"] if s["id"] in t["next"])
    s["next"].append(before["id"])  # row 10 -> row 11 -> back to row 10
    return s["id"]


def _same_row_step(d):
    s = in_row(d, 5)
    s["next"] = [in_row(d, 5, skip=(s["id"],))["id"]]
    return s["id"]


def _skip_row(d):
    s = in_row(d, 5)
    s["next"] = [in_row(d, 7)["id"]]
    return s["id"]


def _unreachable(d):
    add_stone(d, id="lost5", row=5, value=in_row(d, 5)["value"], next=[in_row(d, 6)["id"]])
    return "lost5"


def _dead_end(d):
    s = in_row(d, 8)
    s["next"] = []
    return s["id"]


def _end_value(d):
    s = end_stone(d, "red")
    s["value"] = 9
    return s["id"]


def _end_colours(d):
    end_stone(d, "red")["color"] = "yellow"


def _end_with_next(d):
    s = in_row(d, 11)
    s["end"] = True  # still leads on to the last row
    return s["id"]


def _wish_pile_colour(d):
    s = plain_of(d, "yellow")
    s["wish_pile"] = "blue"
    return s["id"]


def _tile_count(d):
    d["tile_set"]["clover"] = 6


def _tile_spot_count(d):
    in_row(d, 5, tile_spot=False)["tile_spot"] = True


def _row_value(d):
    s = [t for t in d["stones"] if t["kind"] == "stone" and t["row"] == 5][-1]  # not the one read first
    s["value"] = 3  # row 5 is worth 2
    return s["id"]


def _unknown_colour(d):
    s = in_row(d, 5)
    s["color"] = "purple"
    return s["id"]


def _no_row(d):
    s = in_row(d, 5)
    del s["row"]
    return s["id"]


def _bad_radius(d):
    s = in_row(d, 5)
    s["r"] = -3
    return s["id"]


def _missing_x(d):
    s = in_row(d, 5)
    s["x"] = "12"
    return s["id"]


def _two_starts(d):
    d["stones"].append({"id": "start2", "kind": "start", "x": 20, "y": 380, "r": 10,
                        "next": [in_row(d, 1)["id"]]})


def _bad_kind(d):
    s = in_row(d, 5)
    s["kind"] = "rock"
    return s["id"]


def _missing_pile(d):
    where(d, wish_pile="green")["wish_pile"] = None


def _two_piles_one_colour(d):
    plain_of(d, "yellow")["wish_pile"] = "yellow"  # another stone has the yellow pile


def _end_not_last_row(d):
    red_end = end_stone(d, "red")
    before = next(s for s in sorted(d["stones"], key=lambda s: s["id"]) if red_end["id"] in s["next"])
    for s in d["stones"]:
        s["next"] = [n for n in s["next"] if n != red_end["id"]]
    d["stones"].remove(red_end)                            # the red end moves down a row ...
    before.update(end=True, next=[], value=10, color="red")  # ... while the other ends stay in row 12
    return before["id"]


def _unknown_tile_code(d):
    d["tile_set"]["wish-purple"] = d["tile_set"].pop("wish-red")


def _per_pile(d):
    d["wish_stones_per_pile"] = "five"


def _bad_ruleset(d):
    d["ruleset"] = "chess"


def _bad_size(d):
    d["size_mm"] = [560]


# (mutation, does the message name a stone, words of the broken rule)
NWNZ_CASES = [
    (_dup_id, True, "used twice"),
    (_unknown_next, True, "unknown stone 'zz9'"),
    (_backward_step, True, "must reach row 7"),
    (_cycle, True, "must reach row 12"),
    (_same_row_step, True, "must reach row 6"),
    (_skip_row, True, "must reach row 6"),
    (_unreachable, True, "cannot be reached from the start"),
    (_dead_end, True, "must reach an end stone"),
    (_end_value, True, "end stone is worth 10, not 9"),
    (_end_colours, False, "one per colour"),
    (_end_with_next, True, "end stone cannot have next"),
    (_wish_pile_colour, True, "blue wish pile must lie on a blue stone, not a yellow one"),
    (_tile_count, False, "23 tiles for 22 tile spots"),
    (_tile_spot_count, False, "22 tiles for 23 tile spots"),
    (_row_value, True, "row 5 is worth 2"),
    (_unknown_colour, True, "color must be one of"),
    (_no_row, True, "row must be an integer"),
    (_bad_radius, True, "must be positive"),
    (_missing_x, True, "x must be a number"),
    (_two_starts, False, "exactly one start stone"),
    (_bad_kind, True, "kind must be"),
    (_missing_pile, False, "5 wish piles"),
    (_two_piles_one_colour, False, "two wish piles of one colour"),
    (_end_not_last_row, True, "last row 12"),
    (_unknown_tile_code, False, "unknown tile codes ['wish-purple']"),
    (_per_pile, False, "wish_stones_per_pile"),
    (_bad_ruleset, False, "unknown ruleset 'chess'"),
    (_bad_size, False, "size_mm must be"),
]


@pytest.mark.parametrize("mutate,names_stone,rule", NWNZ_CASES, ids=[c[0].__name__.strip("_") for c in NWNZ_CASES])
def test_mutated_nwnz_is_refused_naming_stone_and_rule(raw_board, mutate, names_stone, rule):
    data = raw_board("nwnz")
    parse_board(data, SOURCE)  # the unmutated copy is fine
    stone_id = mutate(data)
    assert bool(stone_id) == names_stone
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
    plain, spot = in_row(data, 5, tile_spot=False), in_row(data, 3, tile_spot=True)
    plain["tile_spot"], spot["tile_spot"] = True, False
    frm = in_row(data, 3)
    to = next(s for s in sorted(data["stones"], key=lambda s: s["id"]) if s["row"] == 4 and s["id"] not in frm["next"])
    frm["next"].append(to["id"])  # a step the reconstruction does not have
    board = load_board(write_board(data, "my-nwnz.json"))
    assert board.name == "my-nwnz" and not board.reconstructed
    assert plain["id"] in board.tile_spots and spot["id"] not in board.tile_spots
    assert board.steps(frm["id"], to["id"]) == 1 and board.steps(to["id"], frm["id"]) is None
    assert all(board.steps(board.start.id, e) == board.max_row for e in board.end_stones.values())
