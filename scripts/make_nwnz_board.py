"""Writes engine/boards/nwnz.json: the expansion board "Neue Wege, neue Ziele" (RULES §2).

No public source shows the real stone graph, so this is a reconstruction that meets every
constraint the rule texts give (RULES §2, FORMATS §1): one start stone, four paths leaving it that
branch and merge, five end stones (one per colour, value 10) in the last row, the first two rows
negative, the third 0, then positive, 8 just before the goal area, goal rows 7, 6, 10; colours
changing along a path in blocks of about three, a few grey jokers; 22 tile spots; 5 wish piles.

How the colour blocks are kept: the graph is made of straight runs of stones ("segments"), each one
colour block of two to four stones (a joker inside a run does not break it). Paths branch only at
the end of a segment and merge only where two segments end in the same row and lead into a new
block, or into a grey joker (which fits any colour); two consecutive blocks of a route always have
different colours. So along every route from the start to an end stone the colours come in blocks of
two to four stones: four blocks, three or four different colours, the last block the end stone's.
main() checks the outcome on every route (block lengths, their mean, the number of colours) and the
spacing of the stones before writing.

The file says "reconstructed": true. To correct it, edit GRID / EXTRA_NEXT / TILE_SPOTS /
WISH_PILES below and run again, or edit the JSON directly (README, "Board files").

Run: python scripts/make_nwnz_board.py [--out FILE]   (validates with engine.board before writing;
default FILE is engine/boards/nwnz.json)
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The NWNZ side is the back of the base board, so the board has the same size.
W, H = 560, 395
#: Score printed beside each row, row 1 first (RULES §2): 2 negative, 0, positive, 8, goal 7 6 10.
ROW_VALUES = (-4, -3, 0, 1, 2, 3, 4, 5, 8, 7, 6, 10)
LANES = "abcdefghi"          # nine lanes across the board, west to east; a stone's id is lane + row
LANE_PITCH = 58              # mm between lanes
ROW_PITCH = 28               # mm between rows (stones r=11 leave 6 mm of board between rows)
ROW1_Y, STONE_R = 340, 11
START = {"x": W / 2, "y": 370, "r": 20}
LETTERS = {"R": "red", "Y": "yellow", "P": "pink", "G": "green", "B": "blue", "J": "joker"}

#: Stones per row (north at the top, as seen from the south seat): lane:colour-letter.
#: R red (dark red), Y yellow, P pink, G green, B blue, J grey joker.
#: The segments (colour blocks) this spells, with the stones their last stone leads to:
#:   start paths  b1-b2 blue → a3, c3   d1-d3 red → e4      f1-f3 red → e4      h1-h3 pink → g4, i4
#:   middle       a3-a5 green → b6      c3-c5 yellow → b6, d6   e4 joker (merge), e5-e6 blue → d7, f7
#:                g4-g5 blue → f6, h6   i4-i5 yellow → h6   d6 / f6 jokers (cross-overs)
#:   upper        b6-b9 pink (joker b8) d7-d9 green   f7-f9 yellow   h6-h9 red (joker h7)
#:   goal lanes   a red, c yellow, e pink, g green, i blue (rows 10-12, the end stone's colour);
#:                b9 → a10, c10   d9 → c10, e10   f9 → e10, g10   h9 → g10, i10
GRID = """
12  a:R  c:Y  e:P  g:G  i:B
11  a:R  c:Y  e:P  g:G  i:B
10  a:R  c:Y  e:P  g:G  i:B
 9    b:P    d:G    f:Y    h:R
 8    b:J    d:G    f:Y    h:R
 7    b:P    d:G    f:Y    h:J
 6    b:P    d:J  e:B  f:J    h:R
 5  a:G  c:Y  e:B  g:B  i:Y
 4  a:G  c:Y  e:J  g:B  i:Y
 3  a:G  c:Y d:R    f:R    h:P
 2    b:B    d:R    f:R    h:P
 1    b:B    d:R    f:R    h:P
"""
#: Forward steps besides "same lane, next row" (which is implied whenever that stone exists).
#: The start stone leads to every row-1 stone: the four paths.
EXTRA_NEXT = {
    "b2": "a3 c3", "h3": "g4 i4",                       # the two outer paths split ...
    "d3": "e4", "f3": "e4",                             # ... the two inner ones merge on a joker
    "a5": "b6", "c5": "b6 d6", "g5": "f6 h6", "i5": "h6",
    "e6": "d7 f7", "d6": "d7", "f6": "f7",              # the middle splits; jokers cross over
    "b9": "a10 c10", "d9": "c10 e10", "f9": "e10 g10", "h9": "g10 i10",   # fan out to the five goal lanes
}
#: The 22 stones with a grey dot (a path tile at setup): two per row up to row 11, none on end stones.
TILE_SPOTS = ("b1 f1 d2 h2 a3 f3 c4 g4 a5 i5 b6 f6 d7 h7 b8 f8 d9 h9 c10 g10 a11 e11").split()
#: The five wish-stone piles, each on a stone of its colour outside the goal area and off the tile spots.
WISH_PILES = {"green": "a4", "yellow": "i4", "blue": "e5", "pink": "b7", "red": "h8"}
TILE_SET = {"clover": 5, "wish-red": 1, "wish-yellow": 1, "wish-pink": 1, "wish-green": 1, "wish-blue": 1,
            "points-2": 5, "points-3": 2, "discard": 5}
#: Playability limits main() checks on every start-to-end route (RULES §2 "blocks of about three").
MIN_BLOCK, MAX_BLOCK, MIN_MEAN_BLOCK, MIN_ROUTE_COLOURS = 2, 4, 2.5, 3

NOTES = (
    "Reconstruction: no public source shows the real stone graph of the 'Neue Wege, neue Ziele' side. "
    "Generated by scripts/make_nwnz_board.py to meet every constraint of the rule texts (RULES.md §2): one "
    "start stone with four paths that branch and merge, 12 rows (-4 -3 0 1 2 3 4 5 8, goal area 7 6 10), "
    "five end stones one per colour worth 10, colours in blocks of about three along every path (two to four "
    "stones; a grey joker fits any colour and does not break a block), so every route from the start to an "
    "end stone crosses four colour blocks in three or four colours, the last block in the end stone's "
    "colour; paths branch where a block ends and merge where two blocks end or on a joker; five grey "
    "jokers, 22 tile spots, five wish piles. Stone positions, colours, tile spots and pile places are "
    "guesses. The board size is the base "
    "board's (it is the same board's back). To correct it: measure your board (stone centres and radii in mm "
    "from the top-left corner seen from the south seat), copy this file, edit stones/next/values/tile_spot/"
    "wish_pile, check it with 'keltis-cam board show FILE --svg out.svg' and pass the file's path wherever a "
    "board name is taken (see docs/commands.md, 'Board files')."
)


def parse_grid(grid: str) -> dict[int, list[tuple[str, str]]]:
    """Row number → [(lane, colour)] from the GRID text."""
    rows: dict[int, list[tuple[str, str]]] = {}
    for line in grid.strip().splitlines():
        head, *cells = line.split()
        rows[int(head)] = [(cell[0], LETTERS[cell[2]]) for cell in cells]
    return rows


def stone_x(lane: str, row: int) -> float:
    """Lanes fan out from the start stone over the first rows, with a gentle wobble higher up."""
    offset = (LANES.index(lane) - 4) * LANE_PITCH
    spread = {1: 0.5, 2: 0.8}.get(row, 1.0)
    wobble = 5 * math.sin(row * 0.9 + LANES.index(lane) * 1.3) if row > 2 else 0.0
    return round(W / 2 + offset * spread + wobble, 1)


def build() -> dict:
    """The board file as a JSON-ready dict."""
    rows = parse_grid(GRID)
    assert sorted(rows) == list(range(1, len(ROW_VALUES) + 1)), "GRID rows must be 1..N"
    ids = {row: {f"{lane}{row}" for lane, _ in cells} for row, cells in rows.items()}
    last = max(rows)
    stones = [{"id": "start", "kind": "start", **START, "next": [f"{lane}1" for lane, _ in rows[1]]}]
    for row in sorted(rows):
        for lane, colour in rows[row]:
            sid = f"{lane}{row}"
            nxt = [f"{lane}{row + 1}"] if f"{lane}{row + 1}" in ids.get(row + 1, ()) else []
            nxt += [n for n in EXTRA_NEXT.get(sid, "").split() if n not in nxt]
            pile = next((c for c, s in WISH_PILES.items() if s == sid), None)
            stones.append({
                "id": sid, "kind": "stone", "row": row, "value": ROW_VALUES[row - 1], "color": colour,
                "x": stone_x(lane, row), "y": ROW1_Y - (row - 1) * ROW_PITCH, "r": STONE_R, "next": nxt,
                "tile_spot": sid in TILE_SPOTS, "wish_pile": pile, "end": row == last})
    return {
        "format": "keltis-board/1", "name": "nwnz", "title": "Neue Wege, neue Ziele", "ruleset": "nwnz",
        "reconstructed": True, "notes": NOTES, "size_mm": [W, H], "tile_set": TILE_SET,
        "wish_stones_per_pile": 5, "stones": stones,
    }


def routes(board) -> list[list[str]]:
    """Every start-to-end route as a list of stone ids (start excluded)."""
    out: list[list[str]] = []

    def walk(sid: str, path: list[str]) -> None:
        nxt = board.stones[sid].next
        if not nxt:
            out.append(path)
        for n in nxt:
            walk(n, path + [n])

    walk(board.start.id, [])
    return out


def colour_blocks(colours: list[str]) -> list[int]:
    """Lengths of the runs of one colour along a route, jokers left out (a joker fits any colour)."""
    blocks: list[int] = []
    prev = None
    for c in colours:
        if c == "joker":
            continue
        if c == prev:
            blocks[-1] += 1
        else:
            blocks.append(1)
        prev = c
    return blocks


def check(board) -> list[str]:
    """Playability and spacing problems of a parsed board (empty when it is fine)."""
    from engine.cards import COLOURS

    problems: list[str] = []
    used = {s.color for s in board.stones.values() if s.kind == "stone"}
    if set(COLOURS) - used:
        problems.append(f"the board never uses {sorted(set(COLOURS) - used)}")
    for route in routes(board):
        colours = [board.stones[s].color for s in route]
        blocks = colour_blocks(colours)
        name = "-".join(route)
        if len(set(colours) - {"joker"}) < MIN_ROUTE_COLOURS:
            problems.append(f"route {name} needs fewer than {MIN_ROUTE_COLOURS} colours")
        if not (MIN_BLOCK <= min(blocks) and max(blocks) <= MAX_BLOCK):
            problems.append(f"route {name} has colour blocks {blocks} (each must be {MIN_BLOCK}-{MAX_BLOCK})")
        if statistics.mean(blocks) < MIN_MEAN_BLOCK:
            problems.append(f"route {name} has blocks of {statistics.mean(blocks):.2f} on average "
                            f"(at least {MIN_MEAN_BLOCK})")
    stones = list(board.stones.values())
    for i, a in enumerate(stones):                  # stones must not touch: 4 mm of board between them
        for b in stones[i + 1:]:
            gap = math.dist((a.x, a.y), (b.x, b.y)) - a.r - b.r
            if gap < 4:
                problems.append(f"stones {a.id} and {b.id} are only {gap:.1f} mm apart")
    return problems


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "engine" / "boards" / "nwnz.json",
                        help="where to write the board file (default: engine/boards/nwnz.json)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from engine.board import parse_board

    data = build()
    board = parse_board(data, "make_nwnz_board")   # raises BoardFileError naming the stone and rule
    problems = check(board)
    if problems:
        raise SystemExit("\n".join(problems))
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    all_routes = routes(board)
    means = [statistics.mean(colour_blocks([board.stones[s].color for s in r])) for r in all_routes]
    print(f"wrote {args.out}: {len(board.stones)} stones, {len(all_routes)} routes, "
          f"{len(board.tile_spots)} tile spots; colour blocks per route: mean {min(means):.2f}-{max(means):.2f}")


if __name__ == "__main__":
    main()
