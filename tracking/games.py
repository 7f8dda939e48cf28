"""One face for both games: what tracking asks of the rules engine (check a change, score a table,
count cards), so inference and the tracker never branch on the game beyond this module. The setup
itself (who plays what) and its validation are the engine's: engine/setup.py.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from engine.board import Board, bundled_board
from engine.cards import COLOURS, HAND_SIZE, TWO_PLAYER_REMOVED, board_game_deck, card_game_deck
from engine.events import ChangeReport
from engine.games import GAMES, GameRegistry
from engine.observation import Observation
from engine.scoring import ScoreSheet
from engine.setup import Setup


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
