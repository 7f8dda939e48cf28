"""The observed state of FORMATS §2: what one camera frame shows, as typed, validated values.

Unknown extra fields are kept (FORMATS lets every part add fields) and written back unchanged.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .cards import COLOURS, PLAYER_COLOURS, SEATS, Card, parse_row_code
from .jsontext import read_json_file
from .errors import ObservationError, check_format
from .games import GAMES, GameRegistry

FORMAT = "keltis-observation/1"
TILE_CODES = ("clover", "points-1", "points-2", "points-3", "discard",
              *(f"wish-{c}" for c in COLOURS), "wish-any")
WISH_COLOURS = (*COLOURS, "any")


@dataclass(frozen=True)
class PawnObservation:
    """One pawn standing on a stone (the start stone included)."""

    stone: str
    player: str
    big: bool


@dataclass(frozen=True)
class SeatObservation:
    """What lies in front of one seat: card rows, points row, wish stones and wish cards."""

    player: str
    rows: dict[str, tuple[str, ...]] = field(default_factory=dict)
    points_row: int = 0
    wish: dict[str, int] = field(default_factory=dict)
    wish_cards: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def row_cards(self, colour: str) -> tuple[Card, ...]:
        """The row of `colour` as cards (empty when the seat has no such row)."""
        return tuple(parse_row_code(code, colour) for code in self.rows.get(colour, ()))


@dataclass(frozen=True)
class Observation:
    """One frame's reading of the table (FORMATS §2)."""

    game: str
    board: str | None
    usable: bool = True
    reason: str | None = None
    pawns: tuple[PawnObservation, ...] | None = None
    tiles: dict[str, str | None] | None = None
    seats: dict[str, SeatObservation] = field(default_factory=dict)
    discard_tops: dict[str, str | None] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict, compare=False)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def element_shares(self, group: str, unit: str) -> tuple[float, dict[str, float]] | None:
        """The reader's per-element confidence of one group (extra "element_confidence", docs/formats-extensions.md):
        (the share read right of the elements not named, {element: share} of those named under `unit`), or None
        when the reading gives none (parse_observation has refused malformed ones)."""
        raw = (self.extra.get("element_confidence") or {}).get(group)
        if not isinstance(raw, dict) or not isinstance(raw.get("others"), (int, float)):
            return None
        return float(raw["others"]), {e: float(v) for e, v in (raw.get(unit) or {}).items()}

    def seat_of_player(self, player: str) -> str | None:
        """The seat where the pawn colour `player` sits, if any."""
        return next((s for s, obs in self.seats.items() if obs.player == player), None)

    def to_json(self) -> dict[str, Any]:
        """The FORMATS §2 JSON object, extra fields included."""
        out: dict[str, Any] = {"format": FORMAT, "game": self.game, "board": self.board,
                               "usable": self.usable, "reason": self.reason}
        out["pawns"] = None if self.pawns is None else [
            {"stone": p.stone, "player": p.player, "big": p.big} for p in self.pawns]
        out["tiles"] = None if self.tiles is None else dict(self.tiles)
        out["seats"] = {
            seat: {"player": s.player, "rows": {c: list(r) for c, r in s.rows.items()},
                   "points_row": s.points_row, "wish": dict(s.wish), "wish_cards": list(s.wish_cards),
                   **s.extra}
            for seat, s in self.seats.items()}
        out["discard_tops"] = dict(self.discard_tops)
        out["confidence"] = dict(self.confidence)
        out.update(self.extra)
        return out


_TOP_FIELDS = {"format", "game", "board", "usable", "reason", "pawns", "tiles", "seats", "discard_tops", "confidence"}
_SEAT_FIELDS = {"player", "rows", "points_row", "wish", "wish_cards"}


def _fail(msg: str, source: str, fld: str) -> ObservationError:
    return ObservationError(msg, source=source, field=fld)


def _parse_seat(seat: str, raw: Any, source: str) -> SeatObservation:
    where = f"seats.{seat}"
    if seat not in SEATS:
        raise _fail(f"unknown seat {seat!r} (expected one of {', '.join(SEATS)})", source, where)
    if not isinstance(raw, dict):
        raise _fail(f"expected an object, got {raw!r}", source, where)
    player = raw.get("player")
    if player not in PLAYER_COLOURS:
        raise _fail(f"unknown player colour {player!r}", source, f"{where}.player")
    rows_raw = raw.get("rows") or {}
    if not isinstance(rows_raw, dict):
        raise _fail(f"expected an object of rows, got {rows_raw!r}", source, f"{where}.rows")
    rows: dict[str, tuple[str, ...]] = {}
    for colour, cards in rows_raw.items():
        if colour not in COLOURS:
            raise _fail(f"unknown colour {colour!r}", source, f"{where}.rows")
        if not isinstance(cards, list):
            raise _fail(f"expected a list of cards, got {cards!r}", source, f"{where}.rows.{colour}")
        for i, code in enumerate(cards):
            try:
                parse_row_code(code, colour)
            except ValueError as exc:
                raise _fail(str(exc), source, f"{where}.rows.{colour}[{i}]") from None
        if cards:
            rows[colour] = tuple(cards)
    points_row = raw.get("points_row", 0) or 0
    if not isinstance(points_row, int) or isinstance(points_row, bool) or points_row < 0:
        raise _fail(f"expected a count ≥ 0, got {points_row!r}", source, f"{where}.points_row")
    wish_raw = raw.get("wish") or {}
    if not isinstance(wish_raw, dict):
        raise _fail(f"expected an object of counts, got {wish_raw!r}", source, f"{where}.wish")
    wish: dict[str, int] = {}
    for colour, n in wish_raw.items():
        if colour not in WISH_COLOURS:
            raise _fail(f"unknown wish colour {colour!r}", source, f"{where}.wish")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise _fail(f"expected a count ≥ 0, got {n!r}", source, f"{where}.wish.{colour}")
        if n:
            wish[colour] = n
    cards_raw = raw.get("wish_cards") or []
    if not isinstance(cards_raw, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 9 for v in cards_raw):
        raise _fail(f"expected a list of values 1–9, got {cards_raw!r}", source, f"{where}.wish_cards")
    extra = {k: v for k, v in raw.items() if k not in _SEAT_FIELDS}
    return SeatObservation(player, rows, points_row, wish, tuple(cards_raw), extra)


def parse_observation(data: Any, source: str = "<observation>", games: GameRegistry = GAMES) -> Observation:
    """Validate a FORMATS §2 JSON object; raises ObservationError naming the source and field."""
    check_format(data, "keltis-observation", 1, source)
    game = data.get("game")
    if game not in games:
        raise _fail(f"unknown game {game!r} (expected one of {', '.join(games.ids())})", source, "game")
    has_board = games.get(game).has_board
    usable = data.get("usable", True)
    if not isinstance(usable, bool):
        raise _fail(f"expected true or false, got {usable!r}", source, "usable")
    reason = data.get("reason")
    board = data.get("board")
    if has_board and usable and not isinstance(board, str):
        raise _fail(f"a board game observation needs a board name, got {board!r}", source, "board")
    if not has_board and board is not None:
        raise _fail(f"the card game has no board, got {board!r}", source, "board")
    if not usable:
        return Observation(game, board if isinstance(board, str) else None, False,
                           reason if isinstance(reason, str) else "unknown",
                           extra={k: v for k, v in data.items() if k not in _TOP_FIELDS})
    pawns = None
    if has_board:
        raw_pawns = data.get("pawns")
        if not isinstance(raw_pawns, list):
            raise _fail(f"expected a list of pawns, got {raw_pawns!r}", source, "pawns")
        parsed = []
        for i, p in enumerate(raw_pawns):
            if not isinstance(p, dict) or not isinstance(p.get("stone"), str):
                raise _fail(f"expected {{'stone', 'player', 'big'}}, got {p!r}", source, f"pawns[{i}]")
            if p.get("player") not in PLAYER_COLOURS:
                raise _fail(f"unknown player colour {p.get('player')!r}", source, f"pawns[{i}].player")
            if not isinstance(p.get("big", False), bool):
                raise _fail(f"expected true or false, got {p.get('big')!r}", source, f"pawns[{i}].big")
            parsed.append(PawnObservation(p["stone"], p["player"], p.get("big", False)))
        pawns = tuple(parsed)
    tiles = None
    if has_board:
        raw_tiles = data.get("tiles") or {}
        if not isinstance(raw_tiles, dict):
            raise _fail(f"expected an object of tiles, got {raw_tiles!r}", source, "tiles")
        for stone, code in raw_tiles.items():
            if code is not None and code not in TILE_CODES:
                raise _fail(f"unknown tile {code!r}", source, f"tiles.{stone}")
        tiles = dict(raw_tiles)
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, dict):
        raise _fail(f"expected an object of seats, got {raw_seats!r}", source, "seats")
    seats = {seat: _parse_seat(seat, raw, source) for seat, raw in raw_seats.items()}
    players = [s.player for s in seats.values()]
    if len(set(players)) != len(players):
        raise _fail(f"two seats have the same player colour: {players}", source, "seats")
    tops_raw = data.get("discard_tops") or {}
    if not isinstance(tops_raw, dict):
        raise _fail(f"expected an object, got {tops_raw!r}", source, "discard_tops")
    for pile, code in tops_raw.items():
        if code is None:
            continue
        try:
            parse_row_code(code, pile if pile in COLOURS else "red")
        except ValueError as exc:
            raise _fail(str(exc), source, f"discard_tops.{pile}") from None
    confidence = data.get("confidence") or {}
    extra = {k: v for k, v in data.items() if k not in _TOP_FIELDS}
    if "element_confidence" in extra:
        _check_element_confidence(extra["element_confidence"], source)
    return Observation(game, board, True, None, pawns, tiles, seats, dict(tops_raw),
                       dict(confidence) if isinstance(confidence, dict) else {}, extra)


def _check_element_confidence(raw: Any, source: str) -> None:
    """The per-element confidence extension (docs/formats-extensions.md): {group: {"others": share,
    unit: {element id: share}}}, every share a number from 0 to 1."""
    def share(value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise _fail(f"expected a number from 0 to 1, got {value!r}", source, where)

    if not isinstance(raw, dict):
        raise _fail(f"expected an object, got {raw!r}", source, "element_confidence")
    for group, parts in raw.items():
        where = f"element_confidence.{group}"
        if not isinstance(parts, dict):
            raise _fail(f"expected an object, got {parts!r}", source, where)
        for unit, value in parts.items():
            if unit == "others":
                share(value, f"{where}.others")
            elif isinstance(value, dict):
                for element, v in value.items():
                    share(v, f"{where}.{unit}.{element}")
            else:
                raise _fail(f"expected an object of shares, got {value!r}", source, f"{where}.{unit}")


def load_observation(path: str | Path) -> Observation:
    """Read and validate an observed-state file; errors name the file."""
    path = Path(path)
    try:
        data = read_json_file(path, ObservationError)
    except OSError as exc:
        raise ObservationError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    return parse_observation(data, str(path))


def dump_observation(obs: Observation, path: str | Path) -> None:
    """Write an observed state as FORMATS §2 JSON."""
    Path(path).write_text(json.dumps(obs.to_json(), indent=1, sort_keys=False) + "\n", encoding="utf-8")


def seat_map(obs: Observation) -> Mapping[str, str]:
    """Seat → player colour."""
    return {seat: s.player for seat, s in obs.seats.items()}
