"""What both games' move functions return: one move's Transition and a whole GameRecord."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .events import Event
from .violations import Violation


@dataclass(frozen=True)
class Transition:
    """The result of applying one move: the new state, what happened, and the rules it broke."""

    state: Any
    events: tuple[Event, ...]
    violations: tuple[Violation, ...]

    @property
    def legal(self) -> bool:
        """True when the move broke no rule."""
        return not self.violations


@dataclass(frozen=True)
class GameRecord:
    """A played game: the dealt state, every move, and what each move did."""

    initial: Any
    moves: tuple[Any, ...]
    transitions: tuple[Transition, ...]

    @property
    def final(self) -> Any:
        """The state after the last move."""
        return self.transitions[-1].state if self.transitions else self.initial

    @property
    def states(self) -> tuple[Any, ...]:
        """The initial state and the state after each move."""
        return (self.initial, *(t.state for t in self.transitions))

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event of the game in order."""
        return tuple(e for t in self.transitions for e in t.events)

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every rule broken in the game (none in legal random play)."""
        return tuple(v for t in self.transitions for v in t.violations)
