"""Rule problems as data: a stable code plus a sentence a player understands (never an exception)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Every stable code the engine may report, with what it means. Codes never change meaning.
CODES: dict[str, str] = {
    # cards and rows (both games)
    "row-order": "a card breaks the ascending or descending order of its row",
    "wrong-colour": "a card of one colour was used for another colour (row or stone)",
    "two-cards": "more cards were played than the turn allows",
    "no-card": "a pawn moved without a card being laid",
    "card-not-in-hand": "a card was played that the player does not hold",
    "row-changed": "cards already laid in a row were removed or changed",
    "row-ended": "a number card followed an end card",
    "row-closed": "a card was laid on a row closed by its second end card",
    "points-card-mismatch": "a points card was laid on a row whose last card has another value",
    "no-wish-card": "a pair was discarded for a wish card that is no longer in the middle",
    "pair-mismatch": "the two cards discarded for a wish card differ in value",
    "draw-own-discard": "a card discarded this turn was drawn back",
    "draw-count": "the player drew more or fewer cards than the turn allows",
    "discard-mismatch": "a discard pile changed in a way no discard explains",
    # pawns and the board
    "pawn-backwards": "a pawn moved backwards",
    "two-steps": "a pawn moved more than one stone for one card",
    "pawn-not-adjacent": "a pawn jumped to a stone that is not one step away",
    "second-pawn-on-path": "a player brought a second pawn onto the same path (base board)",
    "pawn-appeared": "a pawn appeared or disappeared",
    "big-pawn-changed": "a pawn changed from small to big or back",
    "end-stone-overflow": "a card of an end stone's colour moved another pawn where the board does not allow it",
    "no-pawn-to-move": "a card was laid for a move that no pawn can make",
    "pawn-not-moved": "a card was laid in a row but no pawn moved for it",
    # tiles and wish stones
    "tile-not-taken": "a tile that must be taken or applied was not",
    "tile-removed": "a tile left the board without being taken by the player landing on it",
    "tile-changed": "a tile changed on the board",
    "wish-not-taken": "a wish stone was not taken from a pile the pawn landed on",
    "wish-unexplained": "wish stones changed without a move that gives them",
    "points-unexplained": "a player's points changed without a points tile",
    "clover-not-used": "a clover step was not made",
    "discard-tile-not-used": "the discard-a-card tile was not obeyed",
    # turns and the game
    "out-of-turn": "a player played when it was not their turn",
    "game-over": "play went on after the game had ended",
    "unexplained-change": "the table changed in a way no move explains",
}


@dataclass(frozen=True)
class Violation:
    """One broken rule: a stable code, a player-readable sentence and who broke it."""

    code: str
    message: str
    seat: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown violation code {self.code!r}")

    def to_json(self) -> dict[str, Any]:
        """The JSON form used by the command line, the tracker and the web page."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.details:
            out["details"] = dict(self.details)
        return out
