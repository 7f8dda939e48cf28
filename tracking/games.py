"""One face for both games: what tracking asks of the rules engine (check a change, score a table,
count cards), so inference and the tracker never branch on the game beyond this module.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

from engine.board import Board, bundled_board
from engine.cards import COLOURS, HAND_SIZE, SEATS, TWO_PLAYER_REMOVED, board_game_deck, card_game_deck
from engine.errors import MalformedInput
from engine.events import ChangeReport
from engine.games import GAMES, GameRegistry
from engine.observation import Observation
from engine.scoring import ScoreSheet


@dataclass(frozen=True)
class Setup:
    """Who plays what: the game, the board, the seats (seat → player colour), names and rule settings."""

    game: str
    board: str | None
    seats: dict[str, str]
    names: dict[str, str] = dataclasses.field(default_factory=dict)
    rules: dict[str, Any] = dataclasses.field(default_factory=dict)
    first: str | None = None

    @property
    def order(self) -> tuple[str, ...]:
        """Seats in turn order (south → west → north → east, RULES §1 Turn)."""
        return tuple(s for s in SEATS if s in self.seats)

    def name(self, seat: str | None) -> str:
        """How the page calls the player at a seat: their name, else "south (black)"."""
        if seat is None:
            return "someone"
        if self.names.get(seat):
            return self.names[seat]
        player = self.seats.get(seat)
        return f"{seat} ({player})" if player else seat

    def to_json(self) -> dict[str, Any]:
        """The setup as docs/tracking-api.md new_game() takes it."""
        out: dict[str, Any] = {"game": self.game, "board": self.board, "seats": dict(self.seats),
                               "names": dict(self.names), "rules": dict(self.rules)}
        if self.first:
            out["first"] = self.first
        return out

    @classmethod
    def from_json(cls, data: Any, source: str = "setup", games: GameRegistry = GAMES) -> "Setup":
        """Validate a setup object; MalformedInput names the bad field."""
        from engine.cards import PLAYER_COLOURS

        if not isinstance(data, dict):
            raise MalformedInput(f"expected an object, got {data!r}", source=source)
        game = data.get("game", games.default)
        info = games.get(game, source=source)
        board = data.get("board")
        if info.has_board:
            board = board or info.default_board
            if not isinstance(board, str):
                raise MalformedInput(f"expected a board name, got {board!r}", source=source, field="board")
            try:
                bundled_board(board)
            except MalformedInput as exc:
                raise MalformedInput(str(exc), source=source, field="board") from None
        else:
            board = None
        seats = data.get("seats")
        if not isinstance(seats, dict) or not 2 <= len(seats) <= 4:
            raise MalformedInput(f"expected 2 to 4 seats (seat → player colour), got {seats!r}", source=source,
                                 field="seats")
        for seat, player in seats.items():
            if seat not in SEATS:
                raise MalformedInput(f"unknown seat {seat!r} (expected {', '.join(SEATS)})", source=source,
                                     field="seats")
            if player not in PLAYER_COLOURS:
                raise MalformedInput(f"unknown player colour {player!r} at {seat}", source=source, field="seats")
        if len(set(seats.values())) != len(seats):
            raise MalformedInput(f"two seats have the same player colour: {seats}", source=source, field="seats")
        names = data.get("names") or {}
        if not isinstance(names, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items()):
            raise MalformedInput(f"expected seat → name, got {names!r}", source=source, field="names")
        unknown = sorted(set(names) - set(seats))
        if unknown:
            raise MalformedInput(f"names for seats nobody sits at: {unknown}", source=source, field="names")
        rules = data.get("rules") or {}
        if not isinstance(rules, dict):
            raise MalformedInput(f"expected an object, got {rules!r}", source=source, field="rules")
        first = data.get("first")
        if first is not None and first not in seats:
            raise MalformedInput(f"the first player must sit at one of {sorted(seats)}, got {first!r}",
                                 source=source, field="first")
        setup = cls(game, board, {s: seats[s] for s in SEATS if s in seats},
                    {k: v.strip()[:40] for k, v in names.items() if v.strip()}, dict(rules), first)
        GameRules(setup, games)  # validates the rule settings
        return setup


class GameRules:
    """The rules engine behind one tracked game (board game or card game)."""

    def __init__(self, setup: Setup, games: GameRegistry = GAMES):
        self.setup = setup
        self.game = setup.game
        self.info = games.get(setup.game, source="setup")
        self.module = self.info.observed()
        self.settings: Any = self.info.settings(setup.rules, "setup.rules")
        if self.info.has_board:
            self.board: Board | None = bundled_board(setup.board or self.info.default_board)
            deck = len(board_game_deck())
            self.piles: tuple[str, ...] = COLOURS
        else:
            from engine.cardgame.rules import PILES

            self.board = None
            deck = len(card_game_deck())
            self.piles = PILES
        n = len(setup.seats)
        #: Cards in the draw pile once the hands are dealt (RULES §1, §3: 30 go back with 2 players).
        self.draw_pile_start = deck - HAND_SIZE * n - (TWO_PLAYER_REMOVED if n == 2 else 0)

    @property
    def is_board(self) -> bool:
        """True for a game played on a board."""
        return self.info.has_board

    def validate(self, obs: Observation) -> None:
        """Raise ObservationError when a state cannot belong to this game (unknown stone, ...)."""
        if obs.game != self.game:
            from engine.errors import ObservationError
            raise ObservationError(f"the table shows {obs.game!r}, but the game is {self.game!r}", field="game")
        if self.is_board:
            self.module.validate_observation(obs)
            if obs.board != self.setup.board:
                from engine.errors import ObservationError
                raise ObservationError(f"the table shows board {obs.board!r}, but the game is on "
                                       f"{self.setup.board!r}", field="board")

    def check(self, before: Observation, after: Observation) -> ChangeReport:
        """The engine's check of one change between two table states (no turn order: tracking's job)."""
        if self.is_board:
            return self.module.check_change(before, after, self.settings)
        return self.module.check_change(before, after, settings=self.settings)

    def score(self, table: Observation, points: Mapping[str, int], final: bool) -> ScoreSheet:
        """Everyone's score on this table (points: points-tile points per seat, board game only)."""
        if self.is_board:
            sheet = self.module.score_observation(table, {s: n for s, n in points.items() if s in table.seats})
        else:
            sheet = self.module.score_observation(table)
        return dataclasses.replace(sheet, final=final)

    def pawns_in_goal(self, table: Observation) -> int:
        """Board game: pawns standing in the goal area."""
        if not self.is_board or self.board is None:
            return 0
        return sum(1 for p in table.pawns or () if p.stone in self.board.stones and self.board.in_goal(p.stone))

    def end_cards_reached(self, table: Observation) -> bool:
        """Card game: do the end cards on the table meet the end condition (RULES §3 End)?"""
        if self.is_board:
            return False
        stripped = dataclasses.replace(table, extra={})
        return self.module.end_reached(stripped, self.settings) == "end-cards"
