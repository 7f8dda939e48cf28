"""Card-game moves: the steps of a turn (RULES.md §3 Turn) as small frozen values with a JSON form.

A turn is one play step (`Lay`, `Discard` or `DiscardPair`) followed by one `Draw` per card played;
the final play after the end uses `Lay` (and, in the "full-turn" variant, any play) and `Pass`.
Cards are written as str(Card) in JSON ("red 7", "points 7", "red end card").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from ..cards import SEATS, Card, parse_card
from ..errors import MoveError


@dataclass(frozen=True, slots=True)
class Lay:
    """Lay a card from the hand in a row: `row` is a colour, or "points" for the points row."""

    seat: str
    card: Card
    row: str
    kind: ClassVar[str] = "lay"

    def to_json(self) -> dict[str, Any]:
        """{"move": "lay", "seat", "card", "row"}."""
        return {"move": self.kind, "seat": self.seat, "card": str(self.card), "row": self.row}

    def __str__(self) -> str:
        return f"{self.seat} lays {self.card} in the {self.row} row"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one card face up on its pile (its colour's pile, or the points pile)."""

    seat: str
    card: Card
    kind: ClassVar[str] = "discard"

    def to_json(self) -> dict[str, Any]:
        """{"move": "discard", "seat", "card"}."""
        return {"move": self.kind, "seat": self.seat, "card": str(self.card)}

    def __str__(self) -> str:
        return f"{self.seat} discards {self.card}"


@dataclass(frozen=True, slots=True)
class DiscardPair:
    """Discard two cards of one value and take the wish card `wish` from the middle."""

    seat: str
    cards: tuple[Card, Card]
    wish: int
    kind: ClassVar[str] = "discard-pair"

    def to_json(self) -> dict[str, Any]:
        """{"move": "discard-pair", "seat", "cards": [two cards], "wish"}."""
        return {"move": self.kind, "seat": self.seat, "cards": [str(c) for c in self.cards], "wish": self.wish}

    def __str__(self) -> str:
        return f"{self.seat} discards {self.cards[0]} and {self.cards[1]} for the wish card {self.wish}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card: from the draw pile ("pile") or the top of a discard pile (a colour or "points")."""

    seat: str
    source: str
    kind: ClassVar[str] = "draw"

    def to_json(self) -> dict[str, Any]:
        """{"move": "draw", "seat", "from": "pile"|<pile>} ("from", as the board game's draw writes it)."""
        return {"move": self.kind, "seat": self.seat, "from": self.source}

    def __str__(self) -> str:
        return f"{self.seat} draws from the {'draw pile' if self.source == 'pile' else self.source + ' discard pile'}"


@dataclass(frozen=True, slots=True)
class Pass:
    """End one's final play without laying (more) cards."""

    seat: str
    kind: ClassVar[str] = "pass"

    def to_json(self) -> dict[str, Any]:
        """{"move": "pass", "seat"}."""
        return {"move": self.kind, "seat": self.seat}

    def __str__(self) -> str:
        return f"{self.seat} passes"


Move = Union[Lay, Discard, DiscardPair, Draw, Pass]
MOVE_TYPES = (Lay, Discard, DiscardPair, Draw, Pass)


def _card(d: dict[str, Any], key: str, value: Any) -> Card:
    try:
        return parse_card(value)
    except ValueError as exc:
        raise MoveError(str(exc), source=f"move {d!r}", field=key) from None


def move_from_json(d: Any) -> Move:
    """Read a move written by `to_json`; MoveError quotes the move and names the bad field."""
    if not isinstance(d, dict):
        raise MoveError(f"expected a move object, got {d!r}")
    kind, seat = d.get("move"), d.get("seat")
    where = f"move {d!r}"
    if seat not in SEATS:
        raise MoveError(f"unknown seat {seat!r}", source=where, field="seat")
    if kind == "lay":
        row = d.get("row")
        if not isinstance(row, str):
            raise MoveError(f"expected a row name, got {row!r}", source=where, field="row")
        return Lay(seat, _card(d, "card", d.get("card")), row)
    if kind == "discard":
        return Discard(seat, _card(d, "card", d.get("card")))
    if kind == "discard-pair":
        cards, wish = d.get("cards"), d.get("wish")
        if not isinstance(cards, list) or len(cards) != 2:
            raise MoveError(f"expected two cards, got {cards!r}", source=where, field="cards")
        if not isinstance(wish, int) or isinstance(wish, bool):
            raise MoveError(f"expected a wish card value, got {wish!r}", source=where, field="wish")
        return DiscardPair(seat, (_card(d, "cards", cards[0]), _card(d, "cards", cards[1])), wish)
    if kind == "draw":
        # "source" is how moves were written before the one spelling: stored games and recorded
        # sessions' truth/events.jsonl still hold it.
        key = "from" if "from" in d or "source" not in d else "source"
        source = d.get(key)
        if not isinstance(source, str):
            raise MoveError(f"expected a pile, got {source!r}", source=where, field=key)
        return Draw(seat, source)
    if kind == "pass":
        return Pass(seat)
    raise MoveError(f"unknown move {kind!r} (expected lay, discard, discard-pair, draw or pass)",
                    source=where, field="move")
