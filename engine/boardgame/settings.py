"""Rule variants of the Keltis board game (RULES.md §2), each a named setting with its stated default.

The variants come from the expansion's editions (Italian text = defaults, Japanese text = the
alternatives). They change NWNZ-ruleset boards only: the base board plays RULES §1 as written
(wish tiles are always taken there and there are no discard tiles or wish piles).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..settings import parse_settings, settings_to_json


@dataclass(frozen=True)
class Settings:
    """The board game's rule variants (RULES §2) with their defaults."""

    #: "wish-tiles": wish-stone tiles are taken by the first player to land there, all other tiles
    #: stay (Italian, default); "none": every tile stays on the board (Japanese).
    tiles_taken: Literal["wish-tiles", "none"] = "wish-tiles"
    #: False: the discard-a-card tile must be obeyed when possible (Italian, default); True: optional.
    discard_tile_optional: bool = False
    #: "take-tile": the player takes the wish-stone tile itself (Italian, default); "from-pile": the
    #: tile is a marker that stays, and the player takes a stone of its colour from that colour's pile
    #: (Japanese). With tiles_taken="none" a tile cannot be taken, so "from-pile" applies as well.
    wish_tile: Literal["take-tile", "from-pile"] = "take-tile"
    #: False: wish stones lie face up (Italian, default); True: face down, colours hidden from the camera.
    wish_face_down: bool = False

    @property
    def wish_tile_taken(self) -> bool:
        """Does a player landing on an NWNZ wish tile take the tile (else: a stone from the pile)?"""
        return self.tiles_taken == "wish-tiles" and self.wish_tile == "take-tile"

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, source: str = "rules") -> "Settings":
        """Read settings from JSON; unknown names or values raise MalformedInput naming them."""
        return parse_settings(cls, data, source)

    def to_json(self) -> dict[str, Any]:
        """Every setting with its value, defaults included."""
        return settings_to_json(self)
