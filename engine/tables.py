"""Scoring tables as data (RULES.md §1, §2, §3). Index = count; the last entry holds for any larger count."""
from __future__ import annotations

from typing import Sequence

#: Base board: wish stones by count (RULES §1 Scoring).
BASE_WISH_BY_COUNT: tuple[int, ...] = (-4, -3, 2, 3, 6, 10)
#: NWNZ: wish stones by number of different colours (RULES §2 Scoring).
NWNZ_WISH_BY_COLOURS: tuple[int, ...] = (-4, -3, 2, 3, 6, 10)
#: NWNZ: bonus for each colour of which three or more stones are held (RULES §2 Scoring).
NWNZ_THREE_OF_A_COLOUR_BONUS = 10
#: Card game: a coloured row by its number of cards; no row scores 0 (RULES §3 Scoring).
CARD_ROW_BY_LENGTH: tuple[int, ...] = (0, -4, -3, -2, 1, 2, 3, 6, 7, 10)
#: Card game: wish-stone cards by count (RULES §3 Scoring).
CARD_WISH_BY_COUNT: tuple[int, ...] = (-4, -1, 0, 4, 6, 10)
#: Card game: each card in the points row scores this much (RULES §3 Scoring).
CARD_POINTS_ROW_EACH = 1


def lookup(table: Sequence[int], count: int) -> int:
    """Score of `count` in a table whose last entry holds for every larger count."""
    if count < 0:
        raise ValueError(f"negative count {count}")
    return table[min(count, len(table) - 1)]
