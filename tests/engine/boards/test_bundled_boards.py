"""The two bundled board files meet RULES.md §1 (base) and §2 (nwnz) and FORMATS §1."""
from __future__ import annotations

import importlib.util
import json
import math
import statistics
from collections import Counter
from pathlib import Path

import pytest

from engine.board import BOARDS_DIR, Board, bundled_board, load_board
from engine.cards import COLOURS

ROOT = Path(__file__).resolve().parents[3]


def routes(board: Board) -> list[list[str]]:
    """Every start-to-end route (start excluded)."""
    out: list[list[str]] = []

    def walk(sid: str, path: list[str]) -> None:
        if not board.stones[sid].next:
            out.append(path)
        for n in board.stones[sid].next:
            walk(n, path + [n])

    walk(board.start.id, [])
    return out


def predecessors(board: Board) -> dict[str, list[str]]:
    preds: dict[str, list[str]] = {sid: [] for sid in board.stones}
    for s in board.stones.values():
        for n in s.next:
            preds[n].append(s.id)
    return preds


def row_values(board: Board) -> list[int]:
    """The value of rows 1..max_row (each row has exactly one value)."""
    values = {}
    for s in board.stones.values():
        if s.kind == "stone":
            assert values.setdefault(s.row, s.value) == s.value, f"row {s.row} has two values"
    return [values[r] for r in range(1, board.max_row + 1)]


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_bundled_board_loads_by_name_and_by_path(name):
    board = load_board(name)
    assert board.name == name and board.ruleset == name
    by_path = load_board(BOARDS_DIR / f"{name}.json")
    assert by_path.stones == board.stones
    assert bundled_board(name) is bundled_board(name)  # loaded once per process


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_geometry_fits_the_board_and_stones_do_not_touch(name):
    """FORMATS §1: centres in the board frame (origin top-left from the south seat), start in the south."""
    board = load_board(name)
    w, h = board.size_mm
    stones = list(board.stones.values())
    for s in stones:
        assert s.r <= s.x <= w - s.r and s.r <= s.y <= h - s.r, f"{s.id} sticks out of the board"
    assert board.start.y == max(s.y for s in stones), "the start stone is nearest the south edge"
    mean_y = [statistics.mean(s.y for s in stones if s.kind == "stone" and s.row == r)
              for r in range(1, board.max_row + 1)]
    assert mean_y == sorted(mean_y, reverse=True), "rows go north (up) from the start"
    if name == "nwnz":  # base.json is the lead's file; its start stone sits 3 mm from p1 (reported)
        for i, a in enumerate(stones):
            for b in stones[i + 1:]:
                assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r + 4, f"{a.id} and {b.id} overlap"


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_every_stone_reaches_an_end_stone_forward_only(name):
    board = load_board(name)
    ends = set(board.end_stones.values())
    for sid, s in board.stones.items():
        assert any(board.steps(sid, e) is not None for e in ends), sid
        for n in s.next:
            assert board.stones[n].row == s.row + 1
    for route in routes(board):
        assert len(route) == board.max_row and route[-1] in ends


# --- base board, RULES §1 -------------------------------------------------------------------------

def test_base_has_five_straight_paths_of_nine_stones():
    """RULES §1: one start stone; 5 straight paths, one per colour, 9 stones each."""
    board = load_board("base")
    assert len(board.start.next) == 5
    for colour in COLOURS:
        path = board.path_of(colour)
        assert len(path) == 9
        assert path[0] in board.start.next
        for a, b in zip(path, path[1:]):
            assert board.stones[a].next == (b,)
        assert board.end_stones[colour] == path[-1]
        assert [board.stones[s].value for s in path] == [-4, -3, -2, 1, 2, 3, 6, 7, 10]
    assert len(board.stones) == 1 + 5 * 9
    assert not any(s.color == "joker" for s in board.stones.values())


def test_base_goal_area_and_tiles():
    """RULES §1: positions 7–9 are the goal area; 25 tile spots = 20 dark stones + 5 end stones."""
    board = load_board("base")
    assert board.goal_rows == frozenset({7, 8, 9})
    assert len(board.tile_spots) == 25
    assert set(board.end_stones.values()) <= set(board.tile_spots)
    assert board.tile_set == {"wish-any": 9, "clover": 9, "points-1": 2, "points-2": 3, "points-3": 2}
    assert sum(board.tile_set.values()) == 25
    assert board.reconstructed and board.wish_piles == {}


# --- nwnz board, RULES §2 -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nwnz() -> Board:
    return load_board("nwnz")


def test_nwnz_identity(nwnz):
    assert nwnz.ruleset == "nwnz" and nwnz.title == "Neue Wege, neue Ziele"
    assert nwnz.reconstructed is True
    assert "reconstruct" in nwnz.notes.lower() and "board show" in nwnz.notes
    assert 11 <= nwnz.max_row <= 13
    w, h = nwnz.size_mm
    assert w >= 560 and h >= 395


def test_nwnz_four_paths_branch_and_merge(nwnz):
    """RULES §2: one start stone; four paths leave it, branch and merge."""
    assert [s.id for s in nwnz.stones.values() if s.kind == "start"] == [nwnz.start.id]
    assert len(nwnz.start.next) == 4
    splits = [s.id for s in nwnz.stones.values() if s.kind == "stone" and len(s.next) >= 2]
    joins = [sid for sid, p in predecessors(nwnz).items() if len(p) >= 2]
    assert len(splits) >= 4 and len(joins) >= 4, (splits, joins)
    assert len(routes(nwnz)) >= 2 * len(nwnz.start.next)  # many more routes than four straight paths


def test_nwnz_row_values(nwnz):
    """RULES §2: rows 1–2 negative, row 3 zero, then positive; 8 before the goal; goal rows 7, 6, 10."""
    values = row_values(nwnz)
    assert values[0] < 0 and values[1] < 0 and values[0] <= values[1]
    assert values[2] == 0
    assert all(v > 0 for v in values[3:])
    assert values[-4] == 8
    assert values[-3:] == [7, 6, 10]
    assert values[:-3] == sorted(values[:-3])  # the score rises until the goal area
    assert nwnz.goal_rows == frozenset(range(nwnz.max_row - 2, nwnz.max_row + 1))


def test_nwnz_end_stones(nwnz):
    """RULES §2: five end stones, one per colour, value 10, in the last row (and nothing else there)."""
    assert sorted(nwnz.end_stones) == sorted(COLOURS)
    for colour, sid in nwnz.end_stones.items():
        s = nwnz.stones[sid]
        assert s.color == colour and s.value == 10 and s.row == nwnz.max_row and s.end
    assert {s.id for s in nwnz.stones.values() if s.row == nwnz.max_row and s.kind == "stone"} == \
        set(nwnz.end_stones.values())


def test_nwnz_tiles_and_wish_piles(nwnz):
    """RULES §2: 22 tile spots and tiles (5 clover, 5 wish, 5×2 + 2×3 points, 5 discard); 5 wish piles."""
    assert len(nwnz.tile_spots) == 22
    assert nwnz.tile_set == {"clover": 5, "wish-red": 1, "wish-yellow": 1, "wish-pink": 1, "wish-green": 1,
                             "wish-blue": 1, "points-2": 5, "points-3": 2, "discard": 5}
    assert sum(nwnz.tile_set.values()) == 22
    assert sorted(nwnz.wish_piles) == sorted(COLOURS) and nwnz.wish_stones_per_pile == 5
    for colour, sid in nwnz.wish_piles.items():
        s = nwnz.stones[sid]
        assert s.color == colour, sid
        assert not s.tile_spot, f"{sid} carries both a pile and a tile"
        assert not nwnz.in_goal(sid), f"the {colour} pile is in the goal area"
    assert len(set(nwnz.wish_piles.values())) == 5


def colour_blocks(colours: list[str]) -> list[int]:
    """Lengths of the runs of one colour along a route; jokers are left out (a joker fits any colour)."""
    blocks: list[int] = []
    plain = [c for c in colours if c != "joker"]
    for i, c in enumerate(plain):
        if i and c == plain[i - 1]:
            blocks[-1] += 1
        else:
            blocks.append(1)
    return blocks


def test_colour_blocks_helper():
    assert colour_blocks(["red", "red", "joker", "red", "blue", "blue"]) == [3, 2]
    assert colour_blocks(["red", "joker", "blue", "red"]) == [1, 1, 1]


def test_nwnz_colours_and_jokers(nwnz):
    """RULES §2: stones in the five card colours plus grey jokers; all five colours are used on the board."""
    counts = Counter(s.color for s in nwnz.stones.values() if s.kind == "stone")
    assert set(counts) == {*COLOURS, "joker"}
    assert 3 <= counts["joker"] <= 10
    assert min(counts[c] for c in COLOURS) >= 6
    below_goal = {s.color for s in nwnz.stones.values() if s.kind == "stone" and not nwnz.in_goal(s.id)}
    assert set(COLOURS) <= below_goal, "every colour is needed before the goal area too"
    jokers_per_route = [sum(nwnz.stones[s].color == "joker" for s in r) for r in routes(nwnz)]
    assert max(jokers_per_route) <= 3


def test_nwnz_colours_change_in_blocks_of_about_three(nwnz):
    """RULES §2: colours change along a path "in blocks of about three": along every route from the start
    to an end stone the colour runs (jokers left out) are 2–4 stones long and average at least 2.5."""
    means = []
    for route in routes(nwnz):
        blocks = colour_blocks([nwnz.stones[s].color for s in route])
        assert min(blocks) >= 2, f"route {'-'.join(route)} has a single-stone colour block: {blocks}"
        assert max(blocks) <= 4, f"route {'-'.join(route)} has a colour block longer than four: {blocks}"
        assert statistics.mean(blocks) >= 2.5, f"route {'-'.join(route)} has short blocks: {blocks}"
        means.append(statistics.mean(blocks))
    assert min(means) >= 2.0 and statistics.mean(means) >= 2.5


def test_nwnz_every_route_needs_several_colours(nwnz):
    """A route of one or two colours would make the game trivial: every route needs at least three
    colours, and its last block is the end stone's colour (the goal stretch leads to its own end stone)."""
    for route in routes(nwnz):
        colours = [nwnz.stones[s].color for s in route]
        plain = [c for c in colours if c != "joker"]
        assert len(set(plain)) >= 3, f"route {'-'.join(route)} needs only {sorted(set(plain))}"
        end = nwnz.stones[route[-1]]
        assert plain[-1] == end.color and plain[-2] == end.color, f"route {'-'.join(route)} ends {plain[-3:]}"


def test_nwnz_file_is_what_the_generator_writes():
    """scripts/make_nwnz_board.py is the source of nwnz.json: editing one without the other fails here."""
    spec = importlib.util.spec_from_file_location("make_nwnz_board", ROOT / "scripts" / "make_nwnz_board.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    on_disk = json.loads((BOARDS_DIR / "nwnz.json").read_text(encoding="utf-8"))
    assert module.build() == on_disk
