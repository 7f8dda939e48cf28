"""Score sheets shared by both games: per-player totals with a breakdown, and the winners."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class ScorePart:
    """One line of a player's score: what it is for (category and label) and its points."""

    category: str  # "pawns", "tiles", "wish", "bonus", "rows", "points_row", "wish_cards"
    label: str     # a player-readable line, e.g. "big pawn on blue 6 (×2)"
    points: int


@dataclass(frozen=True)
class PlayerScore:
    """A seat's total and the parts it adds up from."""

    seat: str
    player: str
    parts: tuple[ScorePart, ...]

    @property
    def total(self) -> int:
        """Sum of all parts."""
        return sum(p.points for p in self.parts)

    def by_category(self) -> dict[str, int]:
        """Points per category (every category that has a part, zero included)."""
        out: dict[str, int] = {}
        for p in self.parts:
            out[p.category] = out.get(p.category, 0) + p.points
        return out

    def to_json(self) -> dict[str, Any]:
        """{"total", "player", <category>: points ..., "parts": [...]}."""
        return {"total": self.total, "player": self.player, **self.by_category(),
                "parts": [{"category": p.category, "label": p.label, "points": p.points} for p in self.parts]}


@dataclass(frozen=True)
class ScoreSheet:
    """Everyone's score at one moment, and who leads (the winners once the game is over)."""

    scores: dict[str, PlayerScore]
    final: bool = False

    @property
    def winners(self) -> tuple[str, ...]:
        """Seats with the highest total; ties share the win (RULES §1, §3)."""
        return winners_of({s: p.total for s, p in self.scores.items()})

    def to_json(self) -> dict[str, Any]:
        """The shape printed by `keltis-cam score --json`."""
        return {"scores": {s: p.to_json() for s, p in self.scores.items()},
                "winners": list(self.winners), "final": self.final}


def winners_of(totals: dict[str, int]) -> tuple[str, ...]:
    """All seats sharing the highest total, in the order given."""
    if not totals:
        return ()
    best = max(totals.values())
    return tuple(s for s, t in totals.items() if t == best)


def sheet(players: Iterable[tuple[str, str, Iterable[ScorePart]]], final: bool = False) -> ScoreSheet:
    """Build a sheet from (seat, player, parts) triples."""
    return ScoreSheet({seat: PlayerScore(seat, player, tuple(parts)) for seat, player, parts in players}, final)
