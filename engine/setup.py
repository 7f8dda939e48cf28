"""Who plays what: a game's setup (docs/tracking-api.md new_game) and its one validation.

The tracker, the stored games and the phone page all read a setup through `Setup.from_json`, so a
setup the page accepts is exactly one the tracker accepts; MalformedInput names the bad field
("game", "board", "seats.north", "names.south", "rules", "first").
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .cards import PLAYER_COLOURS, SEATS
from .errors import MalformedInput
from .games import GAMES, GameInfo, GameRegistry

#: The longest player name (characters), so names fit the page's score table on a phone.
MAX_NAME = 24
#: The fields of a setup object.
SETUP_FIELDS = ("game", "board", "seats", "names", "rules", "first")


@dataclass(frozen=True)
class Setup:
    """The game, the board, the seats (seat → player colour), names, rule settings and first player."""

    game: str
    board: str | None
    seats: dict[str, str]
    names: dict[str, str] = dataclasses.field(default_factory=dict)
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    first: str | None = None

    @property
    def order(self) -> tuple[str, ...]:
        """Seats in turn order (south → west → north → east, RULES §1 Turn)."""
        return tuple(s for s in SEATS if s in self.seats)

    def name(self, seat: str | None) -> str:
        """How the page calls the player at a seat: their name, else "south (black)"."""
        if seat is None:
            return "someone"
        if self.names.get(seat):
            return self.names[seat]
        player = self.seats.get(seat)
        return f"{seat} ({player})" if player else seat

    def to_json(self) -> dict[str, Any]:
        """The setup as docs/tracking-api.md new_game() takes it."""
        out: dict[str, Any] = {"game": self.game, "board": self.board, "seats": dict(self.seats),
                               "names": dict(self.names), "rules": dict(self.rules)}
        if self.first:
            out["first"] = self.first
        return out

    @classmethod
    def from_json(cls, data: Any, source: str = "setup", games: GameRegistry = GAMES) -> "Setup":
        """Validate a setup object against the games of `games`; MalformedInput names the bad field.

        Missing parts take the registry's defaults: the default game, the game's default board.
        Names are trimmed (inner runs of spaces become one); empty names are dropped.
        """
        if not isinstance(data, dict):
            raise MalformedInput(f"expected an object, got {type(data).__name__}", source=source)
        info = games.get(data.get("game", games.default), source=source, field="game")
        board = _board(info, data.get("board"), source)
        seats = _seats(data.get("seats"), source)
        names = _names(data.get("names"), seats, source)
        rules = data.get("rules") or {}
        if not isinstance(rules, dict):
            raise MalformedInput(f"expected an object of rule settings, got {rules!r}", source=source, field="rules")
        info.settings(rules, f"{source}.rules")  # MalformedInput names the setting
        first = data.get("first")
        if first is not None and (not isinstance(first, str) or first not in seats):
            raise MalformedInput(f"the first player must sit at one of {sorted(seats)}, got {first!r}",
                                 source=source, field="first")
        return cls(info.id, board, {s: seats[s] for s in SEATS if s in seats}, names, dict(rules), first)


def _board(info: GameInfo, board: Any, source: str) -> str | None:
    if not info.has_board:
        if board not in (None, ""):
            raise MalformedInput(f"{info.title} has no board, got {board!r}", source=source, field="board")
        return None
    board = board or info.default_board
    if board not in info.boards:
        raise MalformedInput(f"{board!r} is not a bundled board {list(info.boards)}", source=source, field="board")
    return board


def _seats(seats: Any, source: str) -> dict[str, str]:
    if not isinstance(seats, dict):
        raise MalformedInput(f"expected an object seat → pawn colour, got {seats!r}", source=source, field="seats")
    for seat, colour in seats.items():
        if seat not in SEATS:
            raise MalformedInput(f"unknown seat {seat!r} (seats: {list(SEATS)})", source=source, field="seats")
        if colour not in PLAYER_COLOURS:
            raise MalformedInput(f"unknown pawn colour {colour!r} (colours: {list(PLAYER_COLOURS)})",
                                 source=source, field=f"seats.{seat}")
    if not 2 <= len(seats) <= 4:
        raise MalformedInput(f"2 to 4 players sit at the table, got {len(seats)}", source=source, field="seats")
    colours = list(seats.values())
    if len(set(colours)) != len(colours):
        raise MalformedInput(f"two seats have the same pawn colour: {colours}", source=source, field="seats")
    return seats


def _names(raw: Any, seats: dict[str, str], source: str) -> dict[str, str]:
    raw = raw or {}
    if not isinstance(raw, dict):
        raise MalformedInput(f"expected an object seat → name, got {raw!r}", source=source, field="names")
    names: dict[str, str] = {}
    for seat, name in raw.items():
        if seat not in seats:
            raise MalformedInput(f"a name for {seat!r}, where nobody sits", source=source, field="names")
        if not isinstance(name, str):
            raise MalformedInput(f"expected text, got {name!r}", source=source, field=f"names.{seat}")
        name = " ".join(name.split())
        if len(name) > MAX_NAME or any(not ch.isprintable() for ch in name):
            raise MalformedInput(f"a name is at most {MAX_NAME} printable characters, got {name!r}",
                                 source=source, field=f"names.{seat}")
        if name:
            names[seat] = name
    return names
