"""Events: what a move did, as data for the move history (one sentence each) and the log."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """Something that happened in a move: a kind, who did it, details, and a sentence for players."""

    kind: str          # e.g. "card-laid", "pawn-moved", "tile-taken", "drew", "game-ended"
    seat: str | None
    text: str
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Any]:
        """JSON form for logs and the web page."""
        return {"kind": self.kind, "seat": self.seat, "text": self.text, **({"data": self.data} if self.data else {})}


@dataclass(frozen=True)
class ChangeReport:
    """What changed between two observed states (as events) and the rules the change breaks."""

    changes: tuple[Event, ...]
    violations: tuple["Violation", ...]

    @property
    def legal(self) -> bool:
        """True when no rule is broken."""
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        """The shape printed by `keltis-cam check --json`."""
        return {"changes": [c.to_json() for c in self.changes],
                "violations": [v.to_json() for v in self.violations],
                "legal": self.legal}


from .violations import Violation  # noqa: E402  (type used in the annotation above)
