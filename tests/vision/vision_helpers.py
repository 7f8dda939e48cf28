"""Helpers for the vision tests: render one table state with the simulator at test time, with exactly
the pawns, tiles, light and hands a test names, and read it back."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from engine.board import bundled_board
from engine.observation import Observation, PawnObservation
from simulator.conditions import sample_conditions
from simulator.dataset import FrameSpec, _random_hand
from simulator.games import Game
from simulator.record import setup_table
from vision.reader import Reader

SIZE = (2304, 1296)


@dataclass
class Case:
    image: Any
    calibration: dict
    truth: Observation
    seats: dict[str, str]
    hand_seat: str | None
    render: dict

    def reader(self) -> Reader:
        return Reader(self.calibration, board=bundled_board(self.truth.board), seats=self.seats)

    def read(self):
        return self.reader().read(self.image)


def full_pawns(on_stones: list[tuple[str, str, bool]], players: list[str]) -> tuple[PawnObservation, ...]:
    """The pawns on stones plus every player's remaining pawns on "start" (1 big + 4 small each)."""
    out = [PawnObservation(s, p, b) for s, p, b in on_stones]
    for p in players:
        bigs = sum(1 for _s, q, b in on_stones if q == p and b)
        smalls = sum(1 for _s, q, b in on_stones if q == p and not b)
        out += [PawnObservation("start", p, True)] * (1 - bigs) + [PawnObservation("start", p, False)] * (4 - smalls)
    return tuple(out)


def render_case(*, board: str = "nwnz", players: int = 4, seed: int = 5, pawns=None, tiles=None,
                hard: bool = False, dark: bool = False, hand: str | None = None, camera=None) -> Case:
    """One frame of a table at its starting tiles (or `tiles`) with exactly `pawns` on the paths."""
    game = Game.new("keltis", board, players, seed)
    table = setup_table(game, seed, SIZE, hard=hard, distractors=False, camera=camera)
    obs = game.observe()
    seats = {s: o.player for s, o in obs.seats.items()}
    if pawns is not None:
        obs = replace(obs, pawns=full_pawns(pawns, list(seats.values())))
    if tiles is not None:
        obs = replace(obs, tiles={**obs.tiles, **tiles})
    cond = table.conditions
    if dark:
        cond = sample_conditions(np.random.default_rng([seed, 21]), dark=True)
    scene = table.layout.scene(obs, game.hints(), table.distractors)
    rng = np.random.default_rng([seed, 22])
    hands, hand_seat = [], None
    if hand:
        spec = FrameSpec(game="keltis", board=board, players=players, seed=seed, hand=hand)
        pose, hand_seat = _random_hand(table, scene, spec, rng)
        hands.append(pose)
    frame = table.renderer.frame(scene, cond, rng, hands=hands)
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    return Case(image, cal, obs, seats, hand_seat, frame.render)


def cover_marker(case: Case, marker_id: int) -> None:
    """Paint one table marker (and its paper) over with the table's colour next to it."""
    for item in case.render["items"]:
        if item.get("kind") == "marker" and item["id"] == marker_id:
            quad = np.array(item["corners"], np.float64)
            c = quad.mean(axis=0)
            big = c + (quad - c) * 1.8
            x, y = (c + (quad[0] - c) * 2.6).astype(int)
            colour = case.image[min(max(y, 0), case.image.shape[0] - 1), min(max(x, 0), case.image.shape[1] - 1)]
            cv2.fillPoly(case.image, [big.astype(np.int32)], [int(v) for v in colour])
            return
    raise AssertionError(f"marker {marker_id} not drawn")


def pawns_on_stones(obs: Observation) -> list[tuple[str, str, bool]]:
    return sorted((p.stone, p.player, p.big) for p in obs.pawns if p.stone != "start")


@lru_cache(maxsize=None)
def joker_and_red(board: str = "nwnz") -> tuple[str, str]:
    b = bundled_board(board)
    joker = next(s.id for s in b.stones.values() if s.color == "joker" and not s.tile_spot and not s.wish_pile)
    red = next(s.id for s in b.stones.values() if s.color == "red" and not s.tile_spot and not s.wish_pile
               and s.kind == "stone" and not s.end and s.row >= 3)
    return joker, red
