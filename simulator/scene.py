"""Where everything lies on the table: the layout of a game's pieces from an observed state.

`TableLayout` takes a calibration (FORMATS §4: markers, seat rectangles with facing) and the board
(or none, for the card game) and places the pieces of an `Observation` (FORMATS §2):

- the board at the origin of the board frame, tiles on their spots, wish-stone piles on their
  stones, pawns on their stones (several on one stone stand side by side);
- each seat's cards inside its seat rectangle exactly as FORMATS §4 says: rows side by side, each
  starting at the edge nearest the board and growing toward the player, every card covering the
  previous one but for its top strip; points row, wish cards and wish stones beside the rows;
- the draw pile and discard piles beside the board (card game: in the middle of the table);
- the calibration's markers, and optional distractors (a mug, a phone, the card box, a pen, a score
  pad) placed by `place_distractors` beside the play area.

Every piece gets a small random rotation and offset that is fixed for that piece (seeded by the
layout seed and the piece's place), so a card does not wander between frames.
"""
from __future__ import annotations

import json
import math
import random
import zlib
from dataclasses import dataclass, field
from typing import Any, Mapping

import cv2
import numpy as np

from engine.board import Board
from engine.cards import COLOURS, SEATS
from engine.observation import Observation

from .components import (BOARD_THICKNESS, CARD_H, CARD_THICKNESS, CARD_W, MARKER_QUIET, TILE_D,
                         TILE_THICKNESS, WISH_STONE_D, WISH_STONE_THICKNESS, CardFace, face_from_code)

CARD_PILES = (*COLOURS, "points")  # card game discard piles (FORMATS §2 discard_tops keys)
STRIP = 18.0          # mm of each covered card left showing (its numerals are 2.5–15.5 mm from the top)
MIN_STRIP = 13.0
COLUMN_GAP = 8.0
WISH_GAP = 10.0       # card game: between the points row and the wish cards after it
SEAT_MARGIN = 6.0
PAWN_ROOM = 52.0      # mm above the board a camera must see for a big pawn (50 mm) on an edge stone


@dataclass
class Flat:
    """A flat piece lying on the table: its art (sprite key), centre, rotation, bottom height, size.

    `angle` (degrees) turns the piece's "up" (the top edge as its owner reads it) from north toward
    east; `thickness` > 0.6 mm draws its sides (stacks, the board).
    """

    sprite: str
    centre: tuple[float, float]
    angle: float
    z: float
    size: tuple[float, float]
    thickness: float = 0.0
    side_rgb: tuple[int, int, int] = (230, 225, 210)
    truth: dict[str, Any] | None = None
    shade: float = 1.0

    def to_world(self, pts_obj: np.ndarray) -> np.ndarray:
        """Points in the piece's own frame (mm from its top-left corner) → table mm."""
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        w, h = self.size
        return (np.asarray(pts_obj, np.float64) - (w / 2, h / 2)) @ rot.T + self.centre

    def to_object(self, pts_world: np.ndarray) -> np.ndarray:
        """Table mm → the piece's own frame."""
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        w, h = self.size
        return (np.asarray(pts_world, np.float64) - self.centre) @ rot + (w / 2, h / 2)

    def corners(self) -> np.ndarray:
        """The four corners on the table (top-left, top-right, bottom-right, bottom-left of the piece)."""
        w, h = self.size
        return self.to_world(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    @property
    def top(self) -> float:
        return self.z + self.thickness


@dataclass
class Turned:
    """A 3-D turned piece (pawn, mug) standing on the table or on a piece `base` mm high."""

    kind: str                  # "pawn-small", "pawn-big", "mug"
    position: tuple[float, float]
    base: float
    rgb: tuple[int, int, int]
    seed: int
    truth: dict[str, Any] | None = None


@dataclass
class Scene:
    """Everything on the table in one state: flat pieces in drawing order, then 3-D pieces."""

    flats: list[Flat] = field(default_factory=list)
    turned: list[Turned] = field(default_factory=list)
    key: str = ""


def _jitter(*parts: Any) -> random.Random:
    """A generator fixed by the piece's identity (never by the frame)."""
    return random.Random("|".join(str(p) for p in parts))


@dataclass(frozen=True)
class SeatFrame:
    """A seat rectangle in the player's own view: origin at the corner nearest the board on the
    player's left, `u` toward the player's right, `v` toward the player; extents along u and v."""

    seat: str
    origin: np.ndarray
    u: np.ndarray
    v: np.ndarray
    width: float
    depth: float
    facing: float

    def point(self, pu: float, pv: float) -> tuple[float, float]:
        p = self.origin + pu * self.u + pv * self.v
        return float(p[0]), float(p[1])

    def corners(self) -> np.ndarray:
        return np.array([self.point(0, 0), self.point(self.width, 0), self.point(self.width, self.depth),
                         self.point(0, self.depth)])


def seat_frame(seat: str, rect: Mapping[str, Any]) -> SeatFrame:
    """The player's frame of a calibration seat rectangle (FORMATS §4 facing: south 0, west 90 ...)."""
    f = math.radians(float(rect["facing"]))
    u = np.array([math.cos(f), math.sin(f)])
    v = np.array([-math.sin(f), math.cos(f)])
    x, y, w, h = (float(rect[k]) for k in ("x", "y", "w", "h"))
    corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    du, dv = corners @ u, corners @ v
    # The corner with the smallest u and smallest v (both minimal at one corner of an axis-aligned
    # rectangle when facing is a multiple of 90°; otherwise the best compromise).
    origin = corners[np.argmin(du + dv)]
    width, depth = float(np.ptp(du)), float(np.ptp(dv))
    return SeatFrame(seat, origin, u, v, width, depth, float(rect["facing"]))


class TableLayout:
    """Positions of every piece for one table: a calibration, a board (None: card game), a seed."""

    def __init__(self, calibration: Mapping[str, Any], board: Board | None, seed: int = 0,
                 seats: tuple[str, ...] | None = None):
        self.calibration = calibration
        self.board = board
        self.seed = seed
        cal_seats = calibration["seats"]
        self.seats = tuple(s for s in SEATS if s in cal_seats and (seats is None or s in seats))
        self.frames = {s: seat_frame(s, cal_seats[s]) for s in self.seats}
        self.size = board.size_mm if board is not None else (560.0, 395.0)
        rng = _jitter(seed, "layout")
        # Which column each colour takes at each seat: the order the player likes, fixed per game.
        self.columns: dict[str, list[str]] = {}
        self.strip: dict[str, float] = {}
        for s in self.seats:
            order = list(COLOURS)
            _jitter(seed, "columns", s).shuffle(order)
            self.columns[s] = order
            self.strip[s] = STRIP + rng.uniform(-0.8, 1.2)
        self.piles = self._pile_positions()

    # ------------------------------------------------------------------ fixed places

    def _pile_positions(self) -> dict[str, tuple[float, float, float]]:
        """Centre and angle of the draw pile and each discard pile."""
        W, H = self.size
        out: dict[str, tuple[float, float, float]] = {}
        if self.board is None:
            # Card game: the middle of the table holds the draw pile, six discard piles, wish cards.
            out["draw"] = (W / 2 - 3.5 * 64, 95.0, 0.0)
            for k, p in enumerate(CARD_PILES):
                out[p] = (W / 2 + (k - 2.5) * 64, 95.0, 0.0)
            return out
        free = [s for s in ("north", "east", "west") if s not in self.seats and s in self.calibration["seats"]]
        names = ("draw", *COLOURS)
        if free:
            fr = seat_frame(free[0], self.calibration["seats"][free[0]])
            for k, name in enumerate(names):
                pu = fr.width / 2 + (k - 2.5) * 63
                if pu - CARD_W / 2 < 0 or pu + CARD_W / 2 > fr.width:
                    pu = fr.width / 2 + ((k % 3) - 1) * 63
                    pv = 20 + CARD_H / 2 + (k // 3) * (CARD_H + 8)
                else:
                    pv = 20 + CARD_H / 2
                x, y = fr.point(pu, pv)
                out[name] = (x, y, fr.facing)
            return out
        # All four seats play: the piles go in the south-east corner, clear of the marker.
        for k, name in enumerate(names):
            x = W + 65 + 35 + (k % 3) * 62
            y = H + 80 + 50 + (k // 3) * 95
            out[name] = (x, y, 0.0)
        return out

    def play_area(self) -> np.ndarray:
        """Table points the camera must see: board, seats in play, piles and markers (N×2 mm)."""
        pts = self.pieces_area()[:, :2].tolist()
        for m in self.marker_areas():
            pts.extend(m.tolist())
        return np.array(pts, np.float64)

    def play_regions(self) -> list[np.ndarray]:
        """The play area as polygons on the table (each N×2 mm): the board (card game: the middle of
        the table), each seat in play and each pile. An arm over any of them hides pieces."""
        W, H = self.size
        out = [np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)]
        out.extend(self.frames[s].corners() for s in self.seats)
        for x, y, _ in self.piles.values():
            out.append(np.array([[x - 45, y - 55], [x + 45, y - 55], [x + 45, y + 55], [x - 45, y + 55]], np.float64))
        return out

    def pieces_area(self) -> np.ndarray:
        """Board, seats in play and piles, without the markers (N×2 mm)."""
        W, H = self.size
        pts = [[0, 0], [W, 0], [W, H], [0, H]]
        for s in self.seats:
            pts.extend(self.frames[s].corners().tolist())
        for x, y, _ in self.piles.values():
            pts.extend([[x - 45, y - 55], [x + 45, y + 55]])
        return np.array(pts, np.float64)

    def board_volume(self) -> np.ndarray:
        """The board with room for a big pawn standing on it (N×3 mm, z down): what a camera that
        reads the board must see whole. Card game: the middle of the table (draw and discard piles)."""
        W, H = self.size
        top = 20.0 if self.board is None else BOARD_THICKNESS + PAWN_ROOM
        return np.array([[x, y, z] for x, y in ((0, 0), (W, 0), (W, H), (0, H)) for z in (0.0, -top)], np.float64)

    def marker_areas(self) -> list[np.ndarray]:
        """Each calibration marker's square with its white quiet zone (4×2 mm each)."""
        out = []
        for m in self.calibration["markers"]["items"]:
            half = m["size"] * (0.5 + MARKER_QUIET)
            x, y = m["x"], m["y"]
            out.append(np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half],
                                 [x - half, y + half]], np.float64))
        return out

    def table_rect(self, rng: np.random.Generator) -> tuple[float, float, float, float]:
        """A table top that holds the whole play area with some room (x0, y0, x1, y1)."""
        a = self.play_area()
        m = rng.uniform(60, 420, 4)
        return (float(a[:, 0].min() - m[0]), float(a[:, 1].min() - m[1]),
                float(a[:, 0].max() + m[2]), float(a[:, 1].max() + m[3]))

    # ------------------------------------------------------------------ cards

    def card(self, seat: str, column: float, index: int, n_in_row: int, face: CardFace, key: str,
             truth: dict | None, *, start: float = 0.0, strip: float | None = None) -> Flat:
        """One card of a seat's row `column` (0 = leftmost as the player sees it), `index` from the
        board; the row begins `start` mm from the seat's board edge, its cards `strip` mm apart."""
        fr = self.frames[seat]
        pitch = self.pitch(seat)
        if strip is None:
            strip = self.strip[seat]
            if n_in_row > 1:
                strip = max(MIN_STRIP, min(strip, (fr.depth - SEAT_MARGIN - CARD_H - 4) / (n_in_row - 1)))
        # A row is laid a little askew as a whole; single cards sit a little off within it.
        row_rng = _jitter(self.seed, "row", seat, key)
        ru, rv = _clip(row_rng.gauss(0, 1.0), 1.8), _clip(row_rng.gauss(0, 1.5), 3.0)
        ra = _clip(row_rng.gauss(0, 0.6), 1.0)
        crng = _jitter(self.seed, "card", seat, key, index)
        pu = SEAT_MARGIN + column * pitch + CARD_W / 2 + ru + _clip(crng.gauss(0, 0.4), 0.8)
        pv = SEAT_MARGIN + start + index * strip + CARD_H / 2 + rv + _clip(crng.gauss(0, 0.4), 0.8)
        # The row's slant moves later cards sideways a little too.
        pu += math.sin(math.radians(ra)) * index * strip
        x, y = fr.point(pu, pv)
        angle = fr.facing + ra + _clip(crng.gauss(0, 0.5), 1.0)
        return Flat(f"card:{face.name}", (x, y), angle, index * CARD_THICKNESS, (CARD_W, CARD_H),
                    thickness=0.0, truth=truth, shade=1.0 + crng.uniform(-0.04, 0.04))

    def pitch(self, seat: str) -> float:
        """Distance between the rows of a seat (a card plus a gap, less if the seat is narrow)."""
        fr = self.frames[seat]
        return min(CARD_W + COLUMN_GAP, (fr.width - 2 * SEAT_MARGIN - CARD_W) / max(1, self._n_columns(seat) - 1))

    def _n_columns(self, seat: str) -> int:
        n = len(COLOURS)
        if self.board is None:
            n += 1  # the card game's points row, with its wish cards after it
        return n

    # ------------------------------------------------------------------ the scene

    def scene(self, obs: Observation, hints: Mapping[str, Any] | None = None,
              distractors: tuple[str, ...] = ()) -> Scene:
        """All pieces for an observed state; `hints` adds what a frame shows but FORMATS §2 does
        not list: {"draw_pile": n, "discard_counts": {pile: n}, "wish_piles": {colour: n},
        "points_rows": {seat: [values]}, "wish_middle": [values]}."""
        hints = dict(hints or {})
        sc = Scene(key=format(zlib.crc32(json.dumps([obs.to_json(), hints, list(distractors), self.seed],
                                                    sort_keys=True, default=str).encode("utf-8")), "08x"))
        cal = self.calibration
        for m in cal["markers"]["items"]:
            side = m["size"] * (1 + 2 * MARKER_QUIET)
            sc.flats.append(Flat(f"marker:{cal['markers']['dictionary']}:{m['id']}:{m['size']}",
                                 (float(m["x"]), float(m["y"])), 0.0, 0.0, (side, side), 0.1,
                                 truth={"kind": "marker", "id": m["id"], "size": m["size"]}))
        if self.board is not None:
            self._board_pieces(sc, obs, hints)
        self._pile_pieces(sc, obs, hints)
        for seat in self.seats:
            if seat in obs.seats:
                self._seat_pieces(sc, seat, obs, hints)
        if distractors:
            self._distractors(sc, distractors)
        return sc

    def _board_pieces(self, sc: Scene, obs: Observation, hints: Mapping[str, Any]) -> None:
        board = self.board
        assert board is not None
        W, H = board.size_mm
        sc.flats.append(Flat(board_sprite_key(board), (W / 2, H / 2), 0.0, 0.0, (W, H), BOARD_THICKNESS,
                             side_rgb=(36, 40, 30), truth={"kind": "board", "name": board.name}))
        top = BOARD_THICKNESS
        height_at: dict[str, float] = {}
        for spot, code in (obs.tiles or {}).items():
            if code is None or spot not in board.stones:
                continue
            s = board.stones[spot]
            r = _jitter(self.seed, "tile", spot)
            sc.flats.append(Flat(f"tile:{code}", (s.x + r.gauss(0, 0.6), s.y + r.gauss(0, 0.6)), r.uniform(-25, 25),
                                 top, (TILE_D, TILE_D), TILE_THICKNESS, side_rgb=(200, 190, 160),
                                 truth={"kind": "tile", "spot": spot, "code": code}))
            height_at[spot] = top + TILE_THICKNESS
        piles = hints.get("wish_piles")
        if piles is None:
            piles = self._guess_wish_piles(obs)
        for colour, sid in board.wish_piles.items():
            n = int(piles.get(colour, 0))
            if n <= 0:
                continue
            s = board.stones[sid]
            r = _jitter(self.seed, "wishpile", sid)
            sc.flats.append(Flat(f"wish:{colour}", (s.x + r.gauss(0, 0.5), s.y + r.gauss(0, 0.5)), r.uniform(-40, 40),
                                 top, (WISH_STONE_D, WISH_STONE_D), n * WISH_STONE_THICKNESS,
                                 side_rgb=(70, 140, 80), truth={"kind": "wish-pile", "colour": colour, "count": n}))
            height_at[sid] = top + n * WISH_STONE_THICKNESS
        # Pawns: several on one stone stand side by side; the start stone holds a crowd.
        by_stone: dict[str, list[tuple[int, Any]]] = {}
        for i, p in enumerate(obs.pawns or ()):
            by_stone.setdefault(p.stone, []).append((i, p))
        for sid, group in by_stone.items():
            if sid not in board.stones:
                continue
            s = board.stones[sid]
            spots = pawn_spots(len(group), s.x, s.y, s.r, start=s.kind == "start", board_size=board.size_mm)
            group = sorted(group, key=lambda ip: (ip[1].player, not ip[1].big, ip[0]))
            for (i, p), (x, y) in zip(group, spots):
                r = _jitter(self.seed, "pawn", sid, p.player, p.big, i)
                sc.turned.append(Turned("pawn-big" if p.big else "pawn-small",
                                        (x + r.gauss(0, 0.5), y + r.gauss(0, 0.5)),
                                        height_at.get(sid, top), _pawn_rgb(p.player), r.randrange(1 << 30),
                                        truth={"kind": "pawn", "index": i, "stone": sid, "player": p.player,
                                               "big": p.big}))

    def _guess_wish_piles(self, obs: Observation) -> dict[str, int]:
        """Wish stones left on each pile when no hint says: the pile size minus those held."""
        assert self.board is not None
        per = self.board.wish_stones_per_pile
        held = {c: 0 for c in COLOURS}
        for s in obs.seats.values():
            for c, n in s.wish.items():
                if c in held:
                    held[c] += n
        taken_tiles = {c: 0 for c in COLOURS}
        on_board = set((obs.tiles or {}).values())
        for c in COLOURS:
            if f"wish-{c}" not in on_board and self.board.tile_set.get(f"wish-{c}"):
                taken_tiles[c] = self.board.tile_set[f"wish-{c}"]
        return {c: max(0, per - max(0, held[c] - taken_tiles[c])) for c in COLOURS}

    def _pile_pieces(self, sc: Scene, obs: Observation, hints: Mapping[str, Any]) -> None:
        draw_n = int(hints.get("draw_pile", obs.extra.get("draw_pile", 50)))
        counts = hints.get("discard_counts", {})
        x, y, a = self.piles["draw"]
        r = _jitter(self.seed, "pile", "draw")
        if draw_n > 0:
            sc.flats.append(Flat("card:card-back", (x + r.gauss(0, 1), y + r.gauss(0, 1)), a + r.gauss(0, 2), 0.0,
                                 (CARD_W, CARD_H), draw_n * CARD_THICKNESS, side_rgb=(236, 230, 214),
                                 truth={"kind": "draw-pile", "count": draw_n}))
        for pile, code in obs.discard_tops.items():
            if code is None or pile not in self.piles:
                continue
            n = int(counts.get(pile, 1))
            x, y, a = self.piles[pile]
            r = _jitter(self.seed, "pile", pile, n)
            face = face_from_code(code, pile if pile in COLOURS else None)
            sc.flats.append(Flat(f"card:{face.name}", (x + r.gauss(0, 1.5), y + r.gauss(0, 1.5)), a + r.gauss(0, 3),
                                 0.0, (CARD_W, CARD_H), max(0.0, (n - 1) * CARD_THICKNESS),
                                 side_rgb=(236, 230, 214),
                                 truth={"kind": "discard", "pile": pile, "code": code, "count": n}))
        if self.board is None:
            middle = hints.get("wish_middle")
            if middle is None:
                taken = {v for s in obs.seats.values() for v in s.wish_cards}
                middle = [v for v in range(1, 10) if v not in taken]
            W, _ = self.size
            for k, v in enumerate(sorted(middle)):
                r = _jitter(self.seed, "wishmiddle", v)
                sc.flats.append(Flat(f"card:card-wish-{v}", (W / 2 + (k - 4) * 59 + r.gauss(0, 1), 250 + r.gauss(0, 2)),
                                     r.gauss(0, 3), 0.0, (CARD_W, CARD_H),
                                     truth={"kind": "wish-card", "value": v, "where": "middle"}))

    def _seat_pieces(self, sc: Scene, seat: str, obs: Observation, hints: Mapping[str, Any]) -> None:
        so = obs.seats[seat]
        order = self.columns[seat]
        for colour in order:
            cards = so.rows.get(colour, ())
            for i, code in enumerate(cards):
                face = face_from_code(code, colour)
                sc.flats.append(self.card(seat, order.index(colour), i, len(cards), face, colour,
                                          {"kind": "card", "seat": seat, "row": colour, "index": i, "code": code}))
        n_col = len(COLOURS)
        if self.board is None:
            # The points row, then after a gap the wish cards, in one column beside the colour rows.
            values = list((hints.get("points_rows") or {}).get(seat, []))
            n_p, n_w = so.points_row, len(so.wish_cards)
            fr = self.frames[seat]
            strip = self.strip[seat]
            cards_n = n_p + n_w
            if n_p and n_w:
                room = fr.depth - SEAT_MARGIN - 2 * CARD_H - WISH_GAP - 4
                strip = max(MIN_STRIP - 2, min(strip, room / max(1, cards_n - 2)))
            elif cards_n > 1:
                strip = max(MIN_STRIP, min(strip, (fr.depth - SEAT_MARGIN - CARD_H - 4) / (cards_n - 1)))
            for i in range(n_p):
                v = values[i] if i < len(values) else _jitter(self.seed, "pts", seat, i).randrange(11)
                face = CardFace("points", None, v)
                sc.flats.append(self.card(seat, n_col, i, n_p, face, "points",
                                          {"kind": "card", "seat": seat, "row": "points", "index": i,
                                           "code": f"P{v}"}, strip=strip))
            start = (CARD_H + (n_p - 1) * strip + WISH_GAP) if n_p else 0.0
            for i, v in enumerate(so.wish_cards):
                face = CardFace("wish", None, v)
                sc.flats.append(self.card(seat, n_col, i, n_w, face, "wish",
                                          {"kind": "card", "seat": seat, "row": "wish", "index": i,
                                           "code": str(v)}, start=start, strip=strip))
            return
        # Wish stones: a small grid beside the rows (base board: the colourless wish tiles).
        fr = self.frames[seat]
        u0 = SEAT_MARGIN + (n_col - 1) * self.pitch(seat) + CARD_W + 10
        tokens: list[str] = []
        for colour in (*COLOURS, "any"):
            tokens += [colour] * int(so.wish.get(colour, 0))
        face_down = int(so.extra.get("wish_face_down", 0) or 0)
        tokens += ["back"] * face_down
        room = max(1, int((fr.width - u0 - 2) // 26))
        for k, colour in enumerate(tokens):
            r = _jitter(self.seed, "wishheld", seat, k)
            pu = u0 + (k % room) * 26 + 12 + r.gauss(0, 1.2)
            pv = SEAT_MARGIN + 14 + (k // room) * 27 + r.gauss(0, 1.2)
            x, y = fr.point(pu, pv)
            if colour == "any":
                sc.flats.append(Flat("tile:wish-any", (x, y), fr.facing + r.uniform(-30, 30), 0.0, (TILE_D, TILE_D),
                                     TILE_THICKNESS, side_rgb=(200, 190, 160),
                                     truth={"kind": "wish-held", "seat": seat, "colour": "any"}))
            else:
                sc.flats.append(Flat(f"wish:{colour}", (x, y), fr.facing + r.uniform(-30, 30), 0.0,
                                     (WISH_STONE_D, WISH_STONE_D), WISH_STONE_THICKNESS, side_rgb=(70, 140, 80),
                                     truth={"kind": "wish-held", "seat": seat, "colour": colour}))

    def _distractors(self, sc: Scene, placed: tuple["Distractor", ...]) -> None:
        """Everyday things beside the play area (never on it; see `place_distractors`)."""
        for d in placed:
            truth = {"kind": "distractor", "what": d.what}
            if d.what == "mug":
                sc.turned.append(Turned("mug", (d.x, d.y), 0.0, d.rgb, d.seed, truth=truth))
            else:
                w, h, thick = DISTRACTOR_SIZE[d.what]
                sc.flats.append(Flat(f"thing:{d.what}", (d.x, d.y), d.angle, 0.0, (w, h), thick, side_rgb=d.rgb,
                                     truth=truth))


#: Footprint (w, h) and height (mm) of each everyday thing: a mug (cup), a phone, the game's card
#: box, a score pad, a pen.
DISTRACTOR_SIZE = {"mug": (86.0, 86.0, 95.0), "phone": (72.0, 150.0, 8.0), "box": (124.0, 186.0, 42.0),
                   "pad": (105.0, 148.0, 3.0), "pen": (10.0, 140.0, 9.0)}
DISTRACTOR_SIDES = {"phone": (30, 30, 34), "box": (24, 60, 52), "pad": (240, 240, 236), "pen": (30, 60, 150)}
MUG_COLOURS = ((236, 232, 222), (170, 40, 40), (40, 70, 120), (230, 190, 60), (40, 40, 44))


@dataclass(frozen=True)
class Distractor:
    """An everyday thing placed on the table: what it is, where (mm), turned by `angle` degrees."""

    what: str
    x: float
    y: float
    angle: float
    rgb: tuple[int, int, int]
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {"what": self.what, "x": round(self.x, 1), "y": round(self.y, 1), "angle": round(self.angle, 1)}

    def volume(self, grow: float = 0.0) -> np.ndarray:
        """Corners of its bounding box (8×3 mm, z down), each side grown by `grow` mm."""
        w, h, z = DISTRACTOR_SIZE[self.what]
        if self.what == "mug":  # a round mug with its handle sticking out on any side
            w = h = w + 24.0
        a = math.radians(self.angle)
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        hw, hh = w / 2 + grow, h / 2 + grow
        c = np.array([self.x, self.y]) + np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]) @ np.stack([u, v])
        return np.vstack([np.hstack([c, np.zeros((4, 1))]), np.hstack([c, np.full((4, 1), -(z + grow))])])


def _hull(camera: Any, pts: np.ndarray) -> np.ndarray | None:
    """The image outline (convex hull, float32) of 3-D table points, or None if any is behind the lens."""
    if np.any(camera.depth(pts) <= 1.0):
        return None
    return cv2.convexHull(camera.project(pts).astype(np.float32))


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a, b)
    return area > 0.5


def place_distractors(layout: TableLayout, camera: Any, kinds: tuple[str, ...], seed: int) -> tuple[Distractor, ...]:
    """Put each of `kinds` near the pieces but outside the play area, where the camera sees it over
    nothing that matters: not over the board (with a standing pawn's height), a seat in play or a
    pile, not over another thing, and over at most one of the four markers (so that at least
    three stay in sight whenever three were). A thing with no such place within reach is left out.

    Drawn from `seed` and fixed for the table: the places do not depend on the game's state."""
    r = _jitter(seed, "distractors")
    board = layout.board_volume()
    keep = [board]
    for s in layout.seats:
        c = layout.frames[s].corners()
        keep.append(np.vstack([np.hstack([c, np.zeros((4, 1))]), np.hstack([c, np.full((4, 1), -15.0)])]))
    for x, y, _ in layout.piles.values():
        c = np.array([[x - 50, y - 60], [x + 50, y - 60], [x + 50, y + 60], [x - 50, y + 60]])
        keep.append(np.vstack([np.hstack([c, np.zeros((4, 1))]), np.hstack([c, np.full((4, 1), -35.0)])]))
    keep_hulls = [h for h in (_hull(camera, k) for k in keep) if h is not None]
    # World footprints too: a thing never lies on the play area even where the camera cannot see it.
    keep_rects = [(k[:, 0].min() - 8, k[:, 1].min() - 8, k[:, 0].max() + 8, k[:, 1].max() + 8) for k in keep]
    markers = [np.hstack([m, np.full((4, 1), -0.1)]) for m in layout.marker_areas()]
    marker_hulls = [_hull(camera, m) for m in markers]
    w_img, h_img = camera.size
    seen = [m is not None and _inside(m, w_img, h_img) for m in marker_hulls]
    placed: list[Distractor] = []
    placed_hulls: list[np.ndarray] = []
    covered: set[int] = set()
    for what in kinds:
        w, h, _ = DISTRACTOR_SIZE[what]
        for _ in range(80):
            angle = r.uniform(0, 360)
            # A point on an edge of the board, a seat or a pile, pushed out by half the thing and a gap.
            x0, y0, x1, y1 = r.choice(keep_rects)
            side = r.randrange(4)
            gap = max(w, h) / 2 * r.uniform(0.4, 1.0) + r.uniform(0, 60)
            if side == 0:
                x, y = r.uniform(x0, x1), y0 - gap
            elif side == 1:
                x, y = x1 + gap, r.uniform(y0, y1)
            elif side == 2:
                x, y = r.uniform(x0, x1), y1 + gap
            else:
                x, y = x0 - gap, r.uniform(y0, y1)
            rgb = r.choice(MUG_COLOURS) if what == "mug" else DISTRACTOR_SIDES[what]
            d = Distractor(what, x, y, angle, rgb, r.randrange(1 << 30))
            vol = d.volume(grow=10.0)   # the sprite's soft contact shadow reaches ~8 mm out
            fx0, fy0, fx1, fy1 = vol[:, 0].min(), vol[:, 1].min(), vol[:, 0].max(), vol[:, 1].max()
            if any(fx0 < b[2] and fx1 > b[0] and fy0 < b[3] and fy1 > b[1] for b in keep_rects):
                continue
            hull = _hull(camera, vol)
            if hull is None:
                continue
            if any(_overlap(hull, k) for k in keep_hulls) or any(_overlap(hull, p) for p in placed_hulls):
                continue
            hits = {i for i, m in enumerate(marker_hulls) if m is not None and _overlap(hull, m)}
            now = covered | hits
            if len(now) > 1 or sum(1 for i, v in enumerate(seen) if v and i not in now) < 3:
                continue
            covered = now
            placed.append(d)
            placed_hulls.append(hull)
            break
    return tuple(placed)


def _inside(hull: np.ndarray, w: int, h: int) -> bool:
    p = hull.reshape(-1, 2)
    return bool(np.all((p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)))


_BOARDS: dict[str, Board] = {}


def board_sprite_key(board: Board) -> str:
    """The sprite key of a board's art: its name for a bundled board, name@checksum for a board
    file of one's own (so a measured "nwnz" never shares art with the bundled one)."""
    from engine.board import bundled_board
    from engine.errors import MalformedInput

    try:
        if bundled_board(board.name) is board or bundled_board(board.name).raw == board.raw:
            return f"board:{board.name}"
    except MalformedInput:  # not a bundled name
        pass
    key = f"board:{board.name}@{zlib.crc32(json.dumps(board.raw, sort_keys=True).encode('utf-8')):08x}"
    _BOARDS[key] = board
    return key


def board_for_key(key: str) -> Board:
    """The Board a board sprite key names (see board_sprite_key)."""
    from engine.board import bundled_board

    if key in _BOARDS:
        return _BOARDS[key]
    return bundled_board(key.split(":", 1)[1])


def _clip(v: float, limit: float) -> float:
    return max(-limit, min(limit, v))


def _pawn_rgb(player: str) -> tuple[int, int, int]:
    from .components import PAWN_RGB

    return PAWN_RGB[player]


def pawn_spots(n: int, x: float, y: float, r: float, *, start: bool = False,
               board_size: tuple[float, float] = (560.0, 395.0)) -> list[tuple[float, float]]:
    """Where `n` pawns stand on a stone at (x, y) of radius r: one in the middle, two or three side by
    side, more in a tight cluster (the start stone's crowd spreads around it, staying on the board)."""
    if n == 1:
        return [(x, y)]
    pitch = 16.5
    if n <= 3 and not start:
        d = 0.5 * pitch / math.sin(math.pi / n)
        return [(x + d * math.cos(2 * math.pi * k / n + 0.3), y + d * math.sin(2 * math.pi * k / n + 0.3))
                for k in range(n)]
    # Hexagonal packing around the stone, nearest first, kept inside the board.
    cand = []
    for i in range(-6, 7):
        for j in range(-6, 7):
            px = x + pitch * (i + 0.5 * (j % 2))
            py = y + pitch * 0.866 * j
            if 8 <= px <= board_size[0] - 8 and 8 <= py <= board_size[1] - 8:
                cand.append((math.hypot(px - x, py - y), px, py))
    cand.sort()
    return [(px, py) for _, px, py in cand[:n]]
