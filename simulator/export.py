"""`keltis-cam sim components DIR`: every component image of the simulator's art set, and components.json.

The folder is the art set as data (FORMATS: `sim components`): the readers learn how cards,
tiles, wish stones and pawns look from such a folder, so a group can swap in photos of its own.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.model import default_calibration
from engine.board import bundled_board
from engine.cards import COLOURS, PLAYER_COLOURS

from .components import (TILE_CODES, all_card_faces, board_art, card_art, catalogue, marker_art, tile_art,
                         wish_stone_art)
from .pawns import pawn_side_view


def _write_png(path: Path, img: np.ndarray) -> None:
    # PNG is lossless at any level: 1 writes the set several times faster than 6 for a little more disk
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise OSError(f"cannot encode {path.name}")
    path.write_bytes(buf.tobytes())


def export_components(folder: str | Path, boards: tuple[str, ...] = ("base", "nwnz")) -> dict[str, Any]:
    """Write every component image and components.json into `folder`; returns the JSON written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for face in all_card_faces():
        _write_png(out / f"{face.name}.png", card_art(face))
        files[face.name] = f"{face.name}.png"
    for code in TILE_CODES:
        _write_png(out / f"tile-{code}.png", tile_art(code))
        files[f"tile-{code}"] = f"tile-{code}.png"
    for colour in (*COLOURS, "back"):
        _write_png(out / f"wish-{colour}.png", wish_stone_art(colour))
        files[f"wish-{colour}"] = f"wish-{colour}.png"
    cat = catalogue()
    cat["board"]["boards"] = {}
    for name in boards:
        board = bundled_board(name)
        _write_png(out / f"board-{name}.png", board_art(name))
        files[f"board-{name}"] = f"board-{name}.png"
        cat["board"]["boards"][name] = {"size": list(board.size_mm), "title": board.title}
    for player in PLAYER_COLOURS:
        for big in (False, True):
            key = f"pawn-{player}-{'big' if big else 'small'}"
            _write_png(out / f"{key}.png", pawn_side_view(player, big))
            files[key] = f"{key}.png"
    cal = default_calibration(boards[0] if boards else None)
    for item in cal["markers"]["items"]:
        key = f"marker-{item['id']}"
        _write_png(out / f"{key}.png", marker_art(cal["markers"]["dictionary"], item["id"], item["size"]))
        files[key] = f"{key}.png"
    cat["marker"]["dictionary"] = cal["markers"]["dictionary"]
    cat["marker"]["size"] = cal["markers"]["items"][0]["size"]
    cat["files"] = files
    (out / "components.json").write_text(json.dumps(cat, indent=1) + "\n", encoding="utf-8")
    return cat
