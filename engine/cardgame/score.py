"""Card-game scoring (RULES.md §3 Scoring), from what lies in front of a seat.

Both the game engine and the observed-state scorer call `seat_parts`, so a score computed from the
engine's state and from the camera's reading of the same table are the same by construction.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..cards import COLOURS
from ..scoring import ScorePart
from ..tables import CARD_POINTS_ROW_EACH, CARD_ROW_BY_LENGTH, CARD_WISH_BY_COUNT, lookup


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def seat_parts(rows: Mapping[str, Sequence[object]], points_row: int,
               wish_cards: Sequence[int]) -> tuple[ScorePart, ...]:
    """A seat's score lines: each coloured row by its length (every card in it counts, end and
    points cards included), the points row at 1 per card, and the wish cards by count.

    Every category gets at least one line, so a score sheet always shows all three.
    """
    parts: list[ScorePart] = []
    for colour in COLOURS:
        n = len(rows.get(colour, ()))
        if n:
            parts.append(ScorePart("rows", f"{colour} row, {_cards(n)}", lookup(CARD_ROW_BY_LENGTH, n)))
    if not parts:
        parts.append(ScorePart("rows", "no coloured rows", 0))
    parts.append(ScorePart("points_row", f"points row, {_cards(points_row)}", points_row * CARD_POINTS_ROW_EACH))
    held = sorted(wish_cards)
    if held:
        word = "wish card" if len(held) == 1 else "wish cards"
        label = f"{word} {', '.join(str(v) for v in held)} ({_cards(len(held))})"
    else:
        label = "no wish cards"
    parts.append(ScorePart("wish_cards", label, lookup(CARD_WISH_BY_COUNT, len(held))))
    return tuple(parts)
