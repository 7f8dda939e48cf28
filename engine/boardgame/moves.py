"""Moves of the Keltis board game: the steps within one turn (RULES §1 Turn, §2 Tiles), with JSON forms.

A turn is: one `LayCard` or `Discard`; then, when the pawn landed on a tile that asks for it, a
`CloverStep` (or `SkipClover`) or a `TileDiscard` (or `SkipTileDiscard`); then `Draw` until the
hand holds 8 again. `GameState.phase` says which step is expected next.

Pawns are named by their index in the player's five: 0 is the big pawn, 1–4 the small ones.
A move names the stone a pawn goes to (`to`), so a rule-breaking move (two stones at once, a jump
to another path) can be written down and checked like any other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from ..cards import COLOURS, SEATS, Card, number
from ..errors import MoveError

#: Pawn index of the big pawn; 1..4 are the small pawns (RULES §1 Components).
BIG = 0
PAWNS_PER_PLAYER = 5
#: Where a Draw takes its card: the draw pile, or the discard pile of a colour.
DRAW_PILE = "pile"

# One Card object per colour and value, so cards compare and hash fast and are shared.
CARD: dict[tuple[str, int], Card] = {(c, v): number(c, v) for c in COLOURS for v in range(11)}


def pawn_name(pawn: int) -> str:
    """"the big pawn" or "a small pawn" (small pawns look alike on the table)."""
    return "the big pawn" if pawn == BIG else "a small pawn"


@dataclass(frozen=True, slots=True)
class LayCard:
    """Lay `card` in the player's row of its colour and move pawn `pawn` to stone `to`.

    `pawn`/`to` are None when no pawn moved. `take` is False when the player left a wish stone
    (tile or pile) that the landing gives them.
    """

    seat: str
    card: Card
    pawn: int | None
    to: str | None
    take: bool = True
    kind: ClassVar[str] = "lay"

    def to_json(self) -> dict[str, Any]:
        """{"move": "lay", "seat", "colour", "value", "pawn", "to"[, "take": false]}."""
        out = {"move": self.kind, "seat": self.seat, "colour": self.card.colour, "value": self.card.value,
               "pawn": self.pawn, "to": self.to}
        if not self.take:
            out["take"] = False
        return out

    def __str__(self) -> str:
        where = f", pawn {self.pawn} to {self.to}" if self.pawn is not None else ", no pawn"
        return f"{self.seat} lays {self.card}{where}{'' if self.take else ' (takes nothing)'}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard `card` from the hand face up onto its colour's discard pile (instead of laying it)."""

    seat: str
    card: Card
    kind: ClassVar[str] = "discard"

    def to_json(self) -> dict[str, Any]:
        """{"move": "discard", "seat", "colour", "value"}."""
        return {"move": self.kind, "seat": self.seat, "colour": self.card.colour, "value": self.card.value}

    def __str__(self) -> str:
        return f"{self.seat} discards {self.card}"


@dataclass(frozen=True, slots=True)
class CloverStep:
    """Move pawn `pawn` one more stone to `to` with no card, as a clover tile allows (RULES §1, §2)."""

    seat: str
    pawn: int
    to: str
    take: bool = True
    kind: ClassVar[str] = "clover"

    def to_json(self) -> dict[str, Any]:
        """{"move": "clover", "seat", "pawn", "to"[, "take": false]}."""
        out: dict[str, Any] = {"move": self.kind, "seat": self.seat, "pawn": self.pawn, "to": self.to}
        if not self.take:
            out["take"] = False
        return out

    def __str__(self) -> str:
        return f"{self.seat} clover-steps pawn {self.pawn} to {self.to}"


@dataclass(frozen=True, slots=True)
class SkipClover:
    """Decline the clover step (allowed on the base board; on NWNZ only when no pawn can move)."""

    seat: str
    kind: ClassVar[str] = "skip-clover"

    def to_json(self) -> dict[str, Any]:
        """{"move": "skip-clover", "seat"}."""
        return {"move": self.kind, "seat": self.seat}

    def __str__(self) -> str:
        return f"{self.seat} skips the clover"


@dataclass(frozen=True, slots=True)
class TileDiscard:
    """Obey a discard-a-card tile (RULES §2): discard `card` from the hand, or the top of its row."""

    seat: str
    card: Card
    from_row: bool = False
    kind: ClassVar[str] = "tile-discard"

    def to_json(self) -> dict[str, Any]:
        """{"move": "tile-discard", "seat", "colour", "value", "from": "hand"|"row"}."""
        return {"move": self.kind, "seat": self.seat, "colour": self.card.colour, "value": self.card.value,
                "from": "row" if self.from_row else "hand"}

    def __str__(self) -> str:
        return f"{self.seat} discards {self.card} from the {'row' if self.from_row else 'hand'} (discard tile)"


@dataclass(frozen=True, slots=True)
class SkipTileDiscard:
    """Decline the discard-a-card tile (only when the variant makes it optional or nothing can go)."""

    seat: str
    kind: ClassVar[str] = "skip-tile-discard"

    def to_json(self) -> dict[str, Any]:
        """{"move": "skip-tile-discard", "seat"}."""
        return {"move": self.kind, "seat": self.seat}

    def __str__(self) -> str:
        return f"{self.seat} does not discard for the tile"


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card: from the draw pile (`source` "pile") or the top of a colour's discard pile."""

    seat: str
    source: str
    kind: ClassVar[str] = "draw"

    def to_json(self) -> dict[str, Any]:
        """{"move": "draw", "seat", "from": "pile"|<colour>}."""
        return {"move": self.kind, "seat": self.seat, "from": self.source}

    def __str__(self) -> str:
        where = "the draw pile" if self.source == DRAW_PILE else f"the {self.source} discard pile"
        return f"{self.seat} draws from {where}"


Move = Union[LayCard, Discard, CloverStep, SkipClover, TileDiscard, SkipTileDiscard, Draw]
MOVE_KINDS: dict[str, type] = {cls.kind: cls for cls in
                               (LayCard, Discard, CloverStep, SkipClover, TileDiscard, SkipTileDiscard, Draw)}


def _field(d: dict, name: str, typ: type, *, optional: bool = False) -> Any:
    value = d.get(name)
    if value is None:
        if optional:
            return None
        raise MoveError(f"missing {name!r} in move {d!r}", field=name)
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise MoveError(f"bad {name} {value!r} in move {d!r}", field=name)
    return value


def _card(d: dict) -> Card:
    colour, value = _field(d, "colour", str), _field(d, "value", int)
    card = CARD.get((colour, value))
    if card is None:
        raise MoveError(f"no such card {colour!r} {value!r} in move {d!r} (colours: {', '.join(COLOURS)}; "
                        f"values 0-10)", field="colour")
    return card


def move_from_json(d: Any) -> Move:
    """Read a move written by `to_json()`; raises MoveError quoting anything malformed."""
    if not isinstance(d, dict):
        raise MoveError(f"a move must be a JSON object, got {d!r}")
    kind = d.get("move")
    if kind not in MOVE_KINDS:
        raise MoveError(f"unknown move {kind!r} in {d!r} (known: {', '.join(MOVE_KINDS)})", field="move")
    seat = _field(d, "seat", str)
    if seat not in SEATS:
        raise MoveError(f"unknown seat {seat!r} in move {d!r}", field="seat")
    take = d.get("take", True)
    if not isinstance(take, bool):
        raise MoveError(f"bad take {take!r} in move {d!r}", field="take")
    if kind == "lay":
        pawn, to = _field(d, "pawn", int, optional=True), _field(d, "to", str, optional=True)
        if (pawn is None) != (to is None):
            raise MoveError(f"a lay names both a pawn and its stone, or neither: {d!r}", field="pawn")
        return LayCard(seat, _card(d), pawn, to, take)
    if kind == "discard":
        return Discard(seat, _card(d))
    if kind == "clover":
        return CloverStep(seat, _field(d, "pawn", int), _field(d, "to", str), take)
    if kind == "skip-clover":
        return SkipClover(seat)
    if kind == "tile-discard":
        source = d.get("from", "hand")
        if source not in ("hand", "row"):
            raise MoveError(f"bad from {source!r} in move {d!r} (expected 'hand' or 'row')", field="from")
        return TileDiscard(seat, _card(d), source == "row")
    if kind == "skip-tile-discard":
        return SkipTileDiscard(seat)
    source = _field(d, "from", str)
    if source != DRAW_PILE and source not in COLOURS:
        raise MoveError(f"bad from {source!r} in move {d!r} (expected 'pile' or a colour)", field="from")
    return Draw(seat, source)
