"""The one registry of games: everything that names a game (command line, tracker, simulator, page,
demo, benches) reads its list here, so adding a game is one entry in `GAMES`.

    from engine.games import GAMES
    GAMES.ids()                          # ("keltis", "keltis-card")
    info = GAMES.get("keltis-card")
    info.rules().new_game(seats)         # the engine API (docs/engine-api.md)
    info.score(observation)              # the scorer of observed states

Modules are named, not imported, so the registry stays at the bottom of the engine and a game's
code loads only when it is used.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterator, Mapping

from .errors import MalformedInput


@dataclass(frozen=True)
class GameInfo:
    """One game: its id (the "game" field of FORMATS §2/§3), title, and where its rules live."""

    id: str
    title: str
    #: True for games played on a board (pawns and stones); a board-less game has board null.
    has_board: bool
    #: Module with the engine API of docs/engine-api.md (new_game, legal_moves, apply_move, score, Settings).
    rules_module: str
    #: Module checking observed states (validate_observation, check_change, score_observation).
    observed_module: str
    #: Bundled boards the game is played on, in the order tools list them; () for a board-less game.
    boards: tuple[str, ...] = ()
    #: The board a setup gets when it names none (None for a board-less game).
    default_board: str | None = None

    def rules(self) -> ModuleType:
        """The rules engine module (docs/engine-api.md)."""
        return importlib.import_module(self.rules_module)

    def observed(self) -> ModuleType:
        """The module that validates, checks and scores observed states of this game."""
        return importlib.import_module(self.observed_module)

    def settings_class(self) -> type:
        """The game's rule settings dataclass (RULES.md variants with their defaults)."""
        return self.rules().Settings

    def settings(self, data: Mapping[str, Any] | None = None, source: str = "rules") -> Any:
        """Rule settings from JSON, defaults filled in; MalformedInput names a bad setting."""
        from .settings import parse_settings

        return parse_settings(self.settings_class(), dict(data or {}), source)

    def validate(self, obs: Any, source: str = "<observation>") -> None:
        """Raise ObservationError when an observed state cannot be a table of this game."""
        self.observed().validate_observation(obs, source)

    def check(self, before: Any, after: Any, settings: Any = None) -> Any:
        """What changed between two observed states and the rules it breaks (a ChangeReport)."""
        return self.observed().check_change(before, after, settings=settings)

    def score(self, obs: Any, points: Mapping[str, int] | None = None) -> Any:
        """The scorer: everyone's score on an observed table (points: points-tile points per seat)."""
        return self.observed().score_observation(obs, points=points)

    def tables(self) -> tuple[tuple[str, str | None], ...]:
        """(game, board) for each table this game is played on: one per board, or (id, None)."""
        return tuple((self.id, b) for b in self.boards) if self.has_board else ((self.id, None),)


@dataclass(frozen=True)
class GameRegistry:
    """The known games, in the order tools list them. Immutable: `with_game` returns a new registry."""

    games: tuple[GameInfo, ...]
    #: The game a setup or command plays when it names none.
    default: str

    def __post_init__(self) -> None:
        ids = [g.id for g in self.games]
        if len(set(ids)) != len(ids):
            raise ValueError(f"two games share an id: {ids}")
        if self.default not in ids:
            raise ValueError(f"the default game {self.default!r} is not one of {ids}")

    def ids(self) -> tuple[str, ...]:
        """Every game id, in order."""
        return tuple(g.id for g in self.games)

    def __iter__(self) -> Iterator[GameInfo]:
        return iter(self.games)

    def __contains__(self, game: object) -> bool:
        return any(g.id == game for g in self.games)

    def get(self, game: Any, *, source: str | None = None, field: str | None = "game") -> GameInfo:
        """The game with this id; MalformedInput (naming source and field) for an unknown one."""
        for g in self.games:
            if g.id == game:
                return g
        raise MalformedInput(f"unknown game {game!r} (expected one of {', '.join(self.ids())})",
                             source=source, field=field)

    def with_game(self, info: GameInfo) -> "GameRegistry":
        """A registry with one more game (or `info` replacing the game of the same id)."""
        kept = tuple(g for g in self.games if g.id != info.id)
        return GameRegistry(kept + (info,), self.default)

    def tables(self) -> tuple[tuple[str, str | None], ...]:
        """(game, board) of every kind of table, game by game: what benches and synthetic runs cover."""
        return tuple(t for g in self.games for t in g.tables())


KELTIS = GameInfo("keltis", "Keltis", True, "engine.boardgame.game", "engine.boardgame.observed",
                  boards=("base", "nwnz"), default_board="nwnz")
KELTIS_CARD = GameInfo("keltis-card", "Keltis: Das Kartenspiel", False, "engine.cardgame.game",
                       "engine.cardgame.observed")
#: The games this build knows. Add a game here and every tool offers it.
GAMES = GameRegistry((KELTIS, KELTIS_CARD), default="keltis")
