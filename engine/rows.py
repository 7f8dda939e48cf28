"""The order of a card row (RULES §1 Card rows, §3 Turn), shared by both games.

A row is the cards one player laid in one colour, first laid first. The first card is free; the
first different value fixes the direction; equal values are always allowed. In the card game a
row turns round when it reaches a limit card (0 or 10), end cards close it, and a points card may
follow a card of the same value.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .cards import Card
from .violations import Violation

ASCENDING, UNDECIDED, DESCENDING = 1, 0, -1
_DIRECTION_WORD = {ASCENDING: "ascending", DESCENDING: "descending", UNDECIDED: "undecided"}


@dataclass(frozen=True)
class RowState:
    """Where a row stands: last value, direction and how many end cards closed it."""

    last: int | None = None
    direction: int = UNDECIDED
    ends: int = 0
    length: int = 0
    recent: tuple[int, ...] = ()  # the last few values, for messages

    @property
    def direction_word(self) -> str:
        """"ascending", "descending" or "undecided"."""
        return _DIRECTION_WORD[self.direction]


def _article(value: int) -> str:
    return "an" if value in (8, 11) else "a"


def follow(state: RowState, card: Card, colour: str, *, turn_at_limits: bool = False,
           seat: str | None = None) -> tuple[RowState, Violation | None]:
    """Lay `card` on a row of `colour` in `state`: the new state and the rule it breaks, if any.

    The new state is returned even when the card breaks a rule, so that a whole row with a
    mistake in it can still be followed to its end.
    """
    if state.ends >= 2:
        return (RowState(state.last, state.direction, state.ends, state.length + 1, state.recent),
                Violation("row-closed", f"the {colour} row was closed by its second end card", seat,
                          {"colour": colour, "card": card.row_code}))
    if card.kind == "end":
        if card.colour not in (None, colour):
            return (RowState(state.last, state.direction, state.ends + 1, state.length + 1, state.recent),
                    Violation("wrong-colour", f"a {card.colour} end card cannot close the {colour} row", seat,
                              {"colour": colour, "card": "E"}))
        return RowState(state.last, state.direction, state.ends + 1, state.length + 1, state.recent), None
    if card.kind not in ("number", "points") or card.value is None:
        raise ValueError(f"{card} cannot be laid in a row")
    if card.kind == "number" and card.colour not in (None, colour):
        v = card.value
        return (state, Violation("wrong-colour", f"a {card.colour} {v} cannot be laid in the {colour} row", seat,
                                 {"colour": colour, "card": card.row_code}))
    value = card.value
    moved = RowState(value, state.direction, state.ends, state.length + 1, (state.recent + (value,))[-3:])
    if state.ends:
        return (moved, Violation("row-ended", f"after the {colour} end card only the second end card may follow, "
                                 f"not {_article(value)} {value}", seat, {"colour": colour, "card": card.row_code}))
    if card.kind == "points" and state.last != value:
        last = "no card" if state.last is None else f"{_article(state.last)} {state.last}"
        return (moved, Violation("points-card-mismatch", f"a points card {value} can only follow a {value}, "
                                 f"but the {colour} row ends with {last}", seat,
                                 {"colour": colour, "card": card.row_code}))
    if state.last is None:
        return moved, None
    direction = state.direction
    violation = None
    if direction == UNDECIDED:
        if value != state.last:
            direction = ASCENDING if value > state.last else DESCENDING
    elif (value - state.last) * direction < 0:
        violation = Violation(
            "row-order",
            f"{colour} row is {_DIRECTION_WORD[direction]} ({', '.join(str(v) for v in state.recent)}): "
            f"{_article(value)} {value} cannot follow",
            seat, {"colour": colour, "card": card.row_code, "direction": _DIRECTION_WORD[direction]})
    if turn_at_limits and violation is None:
        if value == 10 and direction == ASCENDING:
            direction = DESCENDING
        elif value == 0 and direction == DESCENDING:
            direction = ASCENDING
    if violation is not None:
        return RowState(state.last, state.direction, state.ends, state.length + 1, state.recent), violation
    return RowState(value, direction, state.ends, state.length + 1, moved.recent), None


def replay_row(cards: Sequence[Card], colour: str, *, turn_at_limits: bool = False,
               seat: str | None = None) -> tuple[RowState, list[Violation]]:
    """Follow a whole row from empty: its final state and every rule broken on the way."""
    state = RowState()
    problems: list[Violation] = []
    for card in cards:
        state, problem = follow(state, card, colour, turn_at_limits=turn_at_limits, seat=seat)
        if problem is not None:
            problems.append(problem)
    return state, problems
