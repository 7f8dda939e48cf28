"""Helpers for the card reader's tests: one frame of a table whose seats hold exactly the rows, wish
stones and discard piles a test names, under a pinned camera, light and table (vision_helpers.PINNED)."""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable

import cv2
import numpy as np

from engine.board import bundled_board
from engine.observation import Observation
from simulator.camera import make_camera
from simulator.games import Game
from simulator.record import setup_table
from simulator.render import Renderer
from vision.reader import Reader

from vision_helpers import PINNED, SIZE

SEAT = "south"


def render_cards(*, game: str = "keltis", rows: dict[str, list[str]] | None = None, wish: dict[str, int] | None = None,
                 discard_tops: dict[str, str | None] | None = None, points_row: int | None = None,
                 wish_cards: list[int] | None = None, edit: Callable[[Any], None] | None = None,
                 seed: int = 5, table_top: tuple[str, tuple[int, int, int]] | None = None,
                 sprites: Any = None, glare: Any = None, conditions: Any = None,
                 size: tuple[int, int] = SIZE) -> tuple[Any, dict, Observation, dict[str, str], str | None]:
    """(image, calibration, truth, seats, board) of the pinned 4-player table with SEAT's part replaced.

    `edit(scene)` may move pieces before the frame is drawn (the truth stays what it says);
    `table_top` = (kind, rgb) replaces the pinned table's top ("wood", "cloth" or "plain");
    `sprites` (a simulator.render.SpriteBank) draws the pieces instead of the default bank;
    `glare` (a simulator.conditions.Glare) lays a reflection of the lamp over the picture;
    `conditions` (simulator.conditions.Conditions) replaces the pinned light and sensor altogether;
    `size` (w, h): the frame's pixels (the pinned camera's view at another resolution, e.g. a still)."""
    board = "nwnz" if game == "keltis" else None
    g = Game.new(game, board, 4, seed)
    pinned = PINNED[(5, False)]
    camera = make_camera(size, **pinned.camera) if game == "keltis" else None
    table = setup_table(g, seed, size, distractors=False, camera=camera)
    table.style, table.conditions = pinned.table, pinned.conditions
    if conditions is not None:
        table.conditions = conditions
    if glare is not None:
        table.conditions = replace(table.conditions, glare=glare)
    if table_top is not None:
        table.style = replace(pinned.table, kind=table_top[0], rgb=tuple(table_top[1]))
    table.renderer = Renderer(table.camera, table.layout, table.style, seed=seed, sprites=sprites)
    obs = g.observe()
    seat = obs.seats[SEAT]
    seat = replace(seat, rows={c: tuple(v) for c, v in (rows if rows is not None else seat.rows).items() if v},
                   wish=dict(wish) if wish is not None else seat.wish,
                   points_row=seat.points_row if points_row is None else points_row,
                   wish_cards=tuple(wish_cards) if wish_cards is not None else seat.wish_cards)
    obs = replace(obs, seats={**obs.seats, SEAT: seat},
                  discard_tops={**obs.discard_tops, **(discard_tops or {})})
    scene = table.layout.scene(obs, g.hints(), ())
    if edit is not None:
        edit(scene)
    frame = table.renderer.frame(scene, table.conditions, np.random.default_rng([seed, 22]))
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    seats = {s: o.player for s, o in obs.seats.items()}
    return image, cal, obs, seats, board


def read_cards(game: str = "keltis", config: Any = None, **kw) -> tuple[Observation, Observation]:
    """(truth, reading) of one rendered frame (see render_cards), read with `config` (a ReaderConfig) or
    the default one."""
    image, cal, truth, seats, board = render_cards(game=game, **kw)
    extra = {"config": config} if config is not None else {}
    reader = Reader(cal, game=game, board=bundled_board(board) if board else None, seats=seats, **extra)
    return truth, reader.read(image).observation


def move_pieces(scene: Any, match: Callable[[dict], bool], dx_mm: float, dy_mm: float) -> int:
    """Shift every flat piece whose truth matches by (dx, dy) table mm; how many moved."""
    n = 0
    for f in scene.flats:
        if f.truth and match(f.truth):
            f.centre = (f.centre[0] + dx_mm, f.centre[1] + dy_mm)
            n += 1
    return n


def touch_wish_stones(scene: Any, seat: str) -> None:
    """Push the seat's wish stones together along the row they lie in: each touches the one before."""
    stones = [f for f in scene.flats if f.truth and f.truth.get("kind") == "wish-held" and f.truth.get("seat") == seat]
    for prev, cur in zip(stones, stones[1:]):
        dx, dy = cur.centre[0] - prev.centre[0], cur.centre[1] - prev.centre[1]
        d = math.hypot(dx, dy) or 1.0
        gap = prev.size[0] * 1.0    # centre to centre one diameter: touching
        cur.centre = (prev.centre[0] + dx / d * gap, prev.centre[1] + dy / d * gap)
