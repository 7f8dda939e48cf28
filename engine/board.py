"""Board files (FORMATS §1): loading, validation and graph queries for both board sides.

Beyond FORMATS §1 a board file may carry (extensions, all optional with defaults):
- "ruleset": "base" or "nwnz": which movement and wish-scoring rules the board uses (RULES §1/§2).
- "tile_set": {tile code: count}: the path tiles shuffled onto the tile spots at setup; the
  counts must add up to the number of tile spots.
- "wish_stones_per_pile": stones stacked on each wish-pile stone at setup (NWNZ: 5).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .cards import COLOURS
from .jsontext import read_json_file
from .errors import BoardFileError, check_format

BOARDS_DIR = Path(__file__).parent / "boards"
STONE_COLOURS = (*COLOURS, "joker")
RULESETS = ("base", "nwnz")
GOAL_ROWS = 3  # the goal area is the last three rows (FORMATS §1, RULES §1/§2)
#: Path-tile codes a tile_set may name (FORMATS §2; "wish-any" is the base board's colourless wish tile).
TILE_CODES = ("clover", "points-1", "points-2", "points-3", "discard", *(f"wish-{c}" for c in COLOURS), "wish-any")


@dataclass(frozen=True)
class Stone:
    """One stone of the board graph (the start stone has kind "start", row 0 and value 0)."""

    id: str
    kind: str
    x: float
    y: float
    r: float
    next: tuple[str, ...]
    row: int = 0
    value: int = 0
    color: str | None = None
    tile_spot: bool = False
    wish_pile: str | None = None
    end: bool = False


@dataclass(frozen=True, eq=False)
class Board:
    """A validated board side: stones by id plus the queries the rules need."""

    name: str
    title: str
    ruleset: str
    reconstructed: bool
    notes: str
    size_mm: tuple[float, float]
    stones: dict[str, Stone]
    tile_set: dict[str, int]
    wish_stones_per_pile: int
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @cached_property
    def start(self) -> Stone:
        """The single start stone."""
        return next(s for s in self.stones.values() if s.kind == "start")

    @cached_property
    def max_row(self) -> int:
        """The number of the last row (where the end stones are)."""
        return max(s.row for s in self.stones.values())

    @cached_property
    def goal_rows(self) -> frozenset[int]:
        """Row numbers of the goal area: the last three rows."""
        return frozenset(range(self.max_row - GOAL_ROWS + 1, self.max_row + 1))

    def in_goal(self, stone_id: str) -> bool:
        """Is this stone in the goal area?"""
        return self.stones[stone_id].row in self.goal_rows

    @cached_property
    def end_stones(self) -> dict[str, str]:
        """Colour → id of that colour's end stone."""
        return {s.color: s.id for s in self.stones.values() if s.end}  # type: ignore[misc]

    @cached_property
    def tile_spots(self) -> tuple[str, ...]:
        """Ids of the stones that carry a path tile at setup, in file order."""
        return tuple(s.id for s in self.stones.values() if s.tile_spot)

    @cached_property
    def wish_piles(self) -> dict[str, str]:
        """Colour → id of the stone carrying that colour's wish-stone pile."""
        return {s.wish_pile: s.id for s in self.stones.values() if s.wish_pile}

    @cached_property
    def _distances(self) -> dict[str, dict[str, int]]:
        # Forward step counts between every pair; boards have < 200 stones, so compute once.
        out: dict[str, dict[str, int]] = {}
        for sid in self.stones:
            dist = {sid: 0}
            queue = deque([sid])
            while queue:
                cur = queue.popleft()
                for nxt in self.stones[cur].next:
                    if nxt not in dist:
                        dist[nxt] = dist[cur] + 1
                        queue.append(nxt)
            out[sid] = dist
        return out

    def steps(self, from_id: str, to_id: str) -> int | None:
        """Fewest forward steps from one stone to another, or None if it cannot be reached."""
        return self._distances[from_id].get(to_id)

    def path_of(self, colour: str) -> tuple[str, ...]:
        """Base board: the stone ids of one colour's straight path, first row first."""
        return tuple(sorted((s.id for s in self.stones.values() if s.kind == "stone" and s.color == colour),
                            key=lambda i: self.stones[i].row))


def _err(msg: str, source: str, stone: str | None = None) -> BoardFileError:
    return BoardFileError(msg, source=source, field=f"stone {stone!r}" if stone else None)


def _num(raw: dict, key: str, sid: str, source: str) -> float:
    v = raw.get(key)
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise _err(f"{key} must be a number, got {v!r}", source, sid)
    return float(v)


def parse_board(data: Any, source: str = "<board>") -> Board:
    """Validate a board file's JSON object; raises BoardFileError naming the stone and the rule."""
    check_format(data, "keltis-board", 1, source)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise BoardFileError(f"name must be a non-empty string, got {name!r}", source=source, field="name")
    ruleset = data.get("ruleset", "nwnz" if name == "nwnz" else "base")
    if ruleset not in RULESETS:
        raise BoardFileError(f"unknown ruleset {ruleset!r} (expected base or nwnz)", source=source, field="ruleset")
    raw_stones = data.get("stones")
    if not isinstance(raw_stones, list) or not raw_stones:
        raise BoardFileError("stones must be a non-empty list", source=source, field="stones")
    stones: dict[str, Stone] = {}
    for i, raw in enumerate(raw_stones):
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            raise BoardFileError(f"stone #{i} has no string id: {raw!r}", source=source, field="stones")
        sid = raw["id"]
        if sid in stones:
            raise _err("id is used twice (ids must be unique)", source, sid)
        kind = raw.get("kind")
        if kind not in ("start", "stone"):
            raise _err(f"kind must be 'start' or 'stone', got {kind!r}", source, sid)
        nxt = raw.get("next", [])
        if not isinstance(nxt, list) or not all(isinstance(n, str) for n in nxt):
            raise _err(f"next must be a list of stone ids, got {nxt!r}", source, sid)
        x, y, r = (_num(raw, k, sid, source) for k in ("x", "y", "r"))
        if r <= 0:
            raise _err(f"r (the stone's radius in mm) must be positive, got {raw['r']!r}", source, sid)
        if kind == "start":
            stones[sid] = Stone(sid, kind, x, y, r, tuple(nxt))
            continue
        row, value = raw.get("row"), raw.get("value")
        if not isinstance(row, int) or isinstance(row, bool) or row < 1:
            raise _err(f"row must be an integer ≥ 1, got {row!r}", source, sid)
        if not isinstance(value, int) or isinstance(value, bool):
            raise _err(f"value must be an integer, got {value!r}", source, sid)
        color = raw.get("color")
        if color not in STONE_COLOURS:
            raise _err(f"color must be one of {', '.join(STONE_COLOURS)}, got {color!r}", source, sid)
        wish_pile = raw.get("wish_pile")
        if wish_pile is not None and wish_pile not in COLOURS:
            raise _err(f"wish_pile must be a colour or null, got {wish_pile!r}", source, sid)
        if wish_pile is not None and wish_pile != color:
            raise _err(f"the {wish_pile} wish pile must lie on a {wish_pile} stone, not a {color} one", source, sid)
        tile_spot, end = raw.get("tile_spot", False), raw.get("end", False)
        if not isinstance(tile_spot, bool) or not isinstance(end, bool):
            raise _err("tile_spot and end must be true or false", source, sid)
        stones[sid] = Stone(sid, kind, x, y, r, tuple(nxt), row, value, color, tile_spot, wish_pile, end)

    starts = [s.id for s in stones.values() if s.kind == "start"]
    if len(starts) != 1:
        raise BoardFileError(f"exactly one start stone is needed, found {len(starts)}: {starts}", source=source)
    for s in stones.values():
        for n in s.next:
            if n not in stones:
                raise _err(f"next names an unknown stone {n!r}", source, s.id)
            if stones[n].row != s.row + 1:
                raise _err(f"next stone {n!r} is in row {stones[n].row}, but a step must reach row {s.row + 1}",
                           source, s.id)
        if s.end and s.next:
            raise _err("an end stone cannot have next stones", source, s.id)
        if not s.end and not s.next:
            raise _err("a stone that is not an end stone needs next stones (it must reach an end stone)", source, s.id)
        if s.end and s.value != 10:
            raise _err(f"an end stone is worth 10, not {s.value}", source, s.id)
    # Row numbers strictly increase along `next`, so the graph is a DAG by construction.
    reachable = {starts[0]}
    queue = deque(starts)
    while queue:
        for n in stones[queue.popleft()].next:
            if n not in reachable:
                reachable.add(n)
                queue.append(n)
    for sid in stones:
        if sid not in reachable:
            raise _err("cannot be reached from the start stone", source, sid)
    ends = [s for s in stones.values() if s.end]
    end_colours = sorted(s.color for s in ends if s.color)
    if end_colours != sorted(COLOURS):
        raise BoardFileError(f"five end stones are needed, one per colour; found {[(s.id, s.color) for s in ends]}",
                             source=source)
    max_row = max(s.row for s in stones.values())
    for s in ends:
        if s.row != max_row:
            raise _err(f"end stones must all lie in the last row {max_row}, this is in row {s.row}", source, s.id)
    for s in stones.values():
        if s.kind == "stone" and not s.end and s.row == max_row:
            raise _err("a stone in the last row must be an end stone", source, s.id)

    row_values: dict[int, Stone] = {}
    for s in stones.values():  # the value is the number printed beside the row: one per row
        if s.kind == "stone":
            first = row_values.setdefault(s.row, s)
            if s.value != first.value:
                raise _err(f"row {s.row} is worth {first.value} (stone {first.id!r}), but this stone says "
                           f"{s.value}: every stone of a row has the row's value", source, s.id)

    piles = [s for s in stones.values() if s.wish_pile]
    pile_colours = [s.wish_pile for s in piles]
    if len(set(pile_colours)) != len(pile_colours):
        raise BoardFileError(f"two wish piles of one colour: {[(s.id, s.wish_pile) for s in piles]}", source=source)
    if ruleset == "nwnz" and sorted(pile_colours) != sorted(COLOURS):  # type: ignore[type-var]
        raise BoardFileError(f"an nwnz board needs 5 wish piles, one per colour; found {pile_colours}", source=source)
    if ruleset == "base" and any(s.color == "joker" for s in stones.values()):
        raise BoardFileError("a base-ruleset board has no joker stones", source=source)

    n_spots = sum(1 for s in stones.values() if s.tile_spot)
    tile_set = data.get("tile_set") or {}
    if not isinstance(tile_set, dict) or not all(isinstance(v, int) and v >= 0 for v in tile_set.values()):
        raise BoardFileError(f"tile_set must map tile codes to counts, got {tile_set!r}", source=source,
                             field="tile_set")
    unknown_tiles = sorted(set(tile_set) - set(TILE_CODES))
    if unknown_tiles:
        raise BoardFileError(f"unknown tile codes {unknown_tiles} (known: {', '.join(TILE_CODES)})",
                             source=source, field="tile_set")
    if tile_set and sum(tile_set.values()) != n_spots:
        raise BoardFileError(f"tile_set has {sum(tile_set.values())} tiles for {n_spots} tile spots",
                             source=source, field="tile_set")
    size = data.get("size_mm", [0, 0])
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) for v in size)):
        raise BoardFileError(f"size_mm must be [width, height], got {size!r}", source=source, field="size_mm")
    per_pile = data.get("wish_stones_per_pile", 5 if piles else 0)
    if not isinstance(per_pile, int) or isinstance(per_pile, bool) or per_pile < 0:
        raise BoardFileError(f"wish_stones_per_pile must be a whole number ≥ 0, got {per_pile!r}",
                             source=source, field="wish_stones_per_pile")
    return Board(name, str(data.get("title", name)), ruleset, bool(data.get("reconstructed", False)),
                 str(data.get("notes", "")), (float(size[0]), float(size[1])), stones, dict(tile_set),
                 int(per_pile), data)


def load_board(name_or_path: str | Path) -> Board:
    """Load a bundled board by name ("base", "nwnz") or any board file by path."""
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        path = BOARDS_DIR / f"{name_or_path}.json"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in BOARDS_DIR.glob("*.json")))
            raise BoardFileError(f"no bundled board named {str(name_or_path)!r} (known: {known})",
                                 source=str(name_or_path))
    try:
        data = read_json_file(path, BoardFileError)
    except OSError as exc:
        raise BoardFileError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    return parse_board(data, str(path))


_CACHE: dict[str, Board] = {}


def bundled_board(name: str) -> Board:
    """A bundled board, loaded and validated once per process."""
    if name not in _CACHE:
        _CACHE[name] = load_board(name)
    return _CACHE[name]
