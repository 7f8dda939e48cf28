"""Card-game rule data shared by the game engine and the observed-state checker (RULES.md §3).

Settings (the two variants of §3 End), the six discard piles, and the end condition, written once
so that `game.py` (which knows every card) and `observed.py` (which sees only the table) agree.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal

from ..cards import COLOURS, Card

#: Discard piles: one per colour for number and end cards, one for points cards (RULES §3 Turn).
POINTS_PILE = "points"
PILES: tuple[str, ...] = (*COLOURS, POINTS_PILE)
#: The points row in front of a player, as a `Lay.row` (the coloured rows are named by colour).
POINTS_ROW = "points"
#: Rows an end trigger counts: "five rows, any colours and owners" (RULES §3 End, colour edition).
FIVE_ROWS = 5
#: Wish-stone card values that exist (RULES §3 Components): a pair of 0s or 10s takes nothing.
WISH_VALUES: tuple[int, ...] = tuple(range(1, 10))

EndTrigger = Literal["five-rows", "every-colour"]
FinalPlay = Literal["two-cards", "full-turn"]


@dataclass(frozen=True)
class Settings:
    """The card game's rule variants (RULES §3 End), defaults as RULES.md states them."""

    end_trigger: EndTrigger = "five-rows"
    final_play: FinalPlay = "two-cards"


#: What each setting value means, in the words of RULES.md (shown on the phone page).
SETTING_TEXT: dict[str, dict[str, str]] = {
    "end_trigger": {
        "five-rows": "five rows, any colours and owners, each with an end card",
        "every-colour": "one end card of every colour",
    },
    "final_play": {
        "two-cards": "each player lays up to two more cards, without drawing",
        "full-turn": "each player takes one more full turn without drawing",
    },
}


def pile_of(card: Card) -> str:
    """The discard pile a card goes on: its colour's pile, or the points pile."""
    if card.kind in ("number", "end"):
        return card.colour  # type: ignore[return-value]
    if card.kind == "points":
        return POINTS_PILE
    raise ValueError(f"a {card} is never discarded")


def pile_accepts(pile: str, card: Card) -> bool:
    """True when `card` belongs on discard pile `pile`."""
    return card.kind in ("number", "end", "points") and pile_of(card) == pile


def end_condition_met(settings: Settings, rows_with_end_card: Iterable[tuple[str, str]]) -> bool:
    """Whether the end cards out end the game (RULES §3 End).

    `rows_with_end_card` names each (seat, colour) row holding at least one end card; a row with
    both end cards is named once, so "two end cards in one row count once" holds by construction.
    """
    rows = set(rows_with_end_card)
    if settings.end_trigger == "five-rows":
        return len(rows) >= FIVE_ROWS
    return {colour for _, colour in rows} >= set(COLOURS)


def end_condition_text(settings: Settings) -> str:
    """The end condition as a clause for the move history."""
    if settings.end_trigger == "five-rows":
        return f"{FIVE_ROWS} rows now hold an end card"
    return "every colour now has an end card in a row"


def final_play_text(settings: Settings) -> str:
    """What the final play allows, for the move history."""
    return SETTING_TEXT["final_play"][settings.final_play]
