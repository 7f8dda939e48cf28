"""Cards, colours, seats and player colours shared by the board game and the card game."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: The five card colours (RULES §1 Components), in a fixed order used everywhere.
COLOURS: tuple[str, ...] = ("red", "yellow", "pink", "green", "blue")
#: Pawn / player colours (RULES §1 Components).
PLAYER_COLOURS: tuple[str, ...] = ("black", "white", "grey", "brown")
#: Seats in clockwise order as seen from above with south at the bottom: the order of turns.
SEATS: tuple[str, ...] = ("south", "west", "north", "east")

CardKind = Literal["number", "points", "end", "wish"]


@dataclass(frozen=True, order=True)
class Card:
    """One card: a coloured number card, a points card (card game), an end card or a wish card."""

    kind: CardKind
    value: int | None  # None only for end cards
    colour: str | None  # None for points and wish cards

    def __str__(self) -> str:
        if self.kind == "number":
            return f"{self.colour} {self.value}"
        if self.kind == "points":
            return f"points {self.value}"
        if self.kind == "end":
            return f"{self.colour} end card"
        return f"wish {self.value}"

    @property
    def row_code(self) -> str:
        """How this card is written in an observed row (FORMATS §2): "7", "P7" or "E"."""
        if self.kind == "number":
            return str(self.value)
        if self.kind == "points":
            return f"P{self.value}"
        if self.kind == "end":
            return "E"
        raise ValueError(f"a {self.kind} card is never laid in a row")


def number(colour: str, value: int) -> Card:
    """A coloured number card."""
    return Card("number", value, colour)


def points(value: int) -> Card:
    """A grey points card (card game)."""
    return Card("points", value, None)


def end(colour: str) -> Card:
    """An end card of a colour (card game)."""
    return Card("end", None, colour)


def wish(value: int) -> Card:
    """An orange wish-stone card (card game)."""
    return Card("wish", value, None)


def parse_row_code(code: str, colour: str) -> Card:
    """Read one entry of an observed row ("0"–"10", "P0"–"P10", "E") as the card it names.

    Raises ValueError quoting the entry when it is none of these.
    """
    if not isinstance(code, str):
        raise ValueError(f"row entry {code!r} is not a string")
    if code == "E":
        return end(colour)
    body, kind = (code[1:], "points") if code.startswith("P") else (code, "number")
    if not body.isdigit() or not 0 <= int(body) <= 10 or (len(body) > 1 and body[0] == "0"):
        raise ValueError(f"row entry {code!r} is not a card (expected '0'..'10', 'P0'..'P10' or 'E')")
    return Card(kind, int(body), colour if kind == "number" else None)


def parse_card(text: str) -> Card:
    """Read a card written as str(Card) ("red 7", "points 7", "red end card", "wish 7"), e.g. in move logs.

    Raises ValueError quoting the text when it names no card.
    """
    words = text.split() if isinstance(text, str) else []
    try:
        if len(words) == 3 and words[1:] == ["end", "card"] and words[0] in COLOURS:
            return end(words[0])
        if len(words) == 2 and words[1].isdigit() and str(int(words[1])) == words[1]:
            value = int(words[1])
            if words[0] in COLOURS and 0 <= value <= 10:
                return number(words[0], value)
            if words[0] == "points" and 0 <= value <= 10:
                return points(value)
            if words[0] == "wish" and 1 <= value <= 9:
                return wish(value)
    except ValueError:
        pass
    raise ValueError(f"{text!r} is not a card (expected e.g. 'red 7', 'points 7', 'red end card', 'wish 7')")


def board_game_deck() -> tuple[Card, ...]:
    """The 110 cards of the board game: 5 colours × 0–10 × 2 (RULES §1 Components)."""
    return tuple(number(c, v) for c in COLOURS for v in range(11) for _ in range(2))


def card_game_deck() -> tuple[Card, ...]:
    """The 101 draw cards of the card game (RULES §3 Components); wish cards lie apart."""
    cards: list[Card] = []
    for c in COLOURS:
        for v in range(11):
            cards.extend([number(c, v)] * (2 if 3 <= v <= 7 else 1))
        cards.extend([end(c)] * 2)
    cards.extend(points(v) for v in range(11))
    return tuple(cards)


def card_game_wish_cards() -> tuple[Card, ...]:
    """The nine wish-stone cards 1–9 that lie in the middle (RULES §3 Components)."""
    return tuple(wish(v) for v in range(1, 10))


#: With two players this many cards go back to the box unseen (RULES §1, §3).
TWO_PLAYER_REMOVED = 30
#: Hand size in both games.
HAND_SIZE = 8
