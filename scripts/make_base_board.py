"""Writes engine/boards/base.json: the base board's 5 straight paths (RULES §1).

Values and counts are the published ones; the stone positions and which stones are dark (carry a
tile at setup) are a reconstruction, so the file says "reconstructed": true.
"""
import json
from pathlib import Path

COLOURS = ("red", "yellow", "pink", "green", "blue")
VALUES = (-4, -3, -2, 1, 2, 3, 6, 7, 10)
# Four dark stones (tile spots) per path among positions 1..8; the end stone always has one.
DARK = {"red": (2, 4, 6, 8), "yellow": (1, 3, 5, 7), "pink": (2, 3, 6, 8),
        "green": (1, 4, 5, 7), "blue": (3, 4, 6, 8)}
W, H = 560, 395


def main() -> None:
    stones = [{"id": "start", "kind": "start", "x": W / 2, "y": 362, "r": 26,
               "next": [f"{c[0]}1" for c in COLOURS]}]
    for i, colour in enumerate(COLOURS):
        x0 = W / 2 + (i - 2) * 62          # the paths fan out from the start stone ...
        x_top = W / 2 + (i - 2) * 104      # ... and spread toward the top edge
        for pos, value in enumerate(VALUES, start=1):
            f = (pos - 1) / 8
            sid = f"{colour[0]}{pos}"
            stones.append({
                "id": sid, "kind": "stone", "row": pos, "value": value, "color": colour,
                "x": round(x0 + (x_top - x0) * f, 1), "y": round(318 - f * 282, 1), "r": 15,
                "next": [] if pos == 9 else [f"{colour[0]}{pos + 1}"],
                "tile_spot": pos == 9 or pos in DARK[colour], "wish_pile": None, "end": pos == 9})
    board = {
        "format": "keltis-board/1", "name": "base", "title": "Keltis (base board)", "ruleset": "base",
        "reconstructed": True,
        "notes": ("Five straight paths of 9 stones with the published values -4 -3 -2 1 2 3 6 7 10 and "
                  "25 tile spots (20 dark stones + 5 end stones). Which stones are dark and where the stones "
                  "lie are a reconstruction: measure your board and edit x, y, r and tile_spot (see docs/commands.md)."),
        "size_mm": [W, H],
        "tile_set": {"wish-any": 9, "clover": 9, "points-1": 2, "points-2": 3, "points-3": 2},
        "stones": stones,
    }
    out = Path(__file__).resolve().parent.parent / "engine" / "boards" / "base.json"
    out.write_text(json.dumps(board, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
