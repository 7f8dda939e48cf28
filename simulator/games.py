"""One interface over both rules engines for the simulator: deal, play (legal or injected illegal
moves), observe, and the extra things a frame shows that an observed state does not list.

Both engines expose the same names (notes/ENGINE_API.md); this module only picks the engine,
the board and the seats, and reads pile sizes from the engine's state for drawing.
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from engine.board import Board, bundled_board, load_board
from engine.cards import COLOURS, PLAYER_COLOURS, SEATS
from engine.errors import MalformedInput
from engine.games import GAMES, GameInfo, GameRegistry
from engine.observation import Observation

#: Which seats play for each player count: two players sit opposite each other.
SEATS_FOR = {2: ("south", "north"), 3: ("south", "west", "north"), 4: SEATS}


def seats_for(players: int, seed: int) -> dict[str, str]:
    """Seat → pawn colour for `players` players (colours dealt out by the seed)."""
    if players not in SEATS_FOR:
        raise MalformedInput(f"players must be 2, 3 or 4, got {players!r}", field="--players")
    colours = list(PLAYER_COLOURS)
    random.Random(f"sim-colours-{seed}").shuffle(colours)
    return {s: colours[i] for i, s in enumerate(SEATS_FOR[players])}


@dataclass
class Game:
    """A game being played: its engine module, board, seats and current state."""

    game: str
    board: Board | None
    seats: dict[str, str]
    module: Any
    state: Any
    seed: int

    @classmethod
    def new(cls, game: str = "keltis", board: str | None = "nwnz", players: int = 3, seed: int = 0,
            rules: dict[str, Any] | None = None, games: GameRegistry = GAMES) -> "Game":
        """Deal a new game of the registry (a board game on a board name or board file, or a board-less one)."""
        info: GameInfo = games.get(game, field="--game")
        seats = seats_for(players, seed)
        module = info.rules()
        settings = info.settings(rules) if rules else None
        if info.has_board:
            board = board or info.default_board
            b = bundled_board(board) if board in info.boards else load_board(board)
            state = module.new_game(seats, settings, seed, board=b)
        else:
            b = None
            state = module.new_game(seats, settings, seed)
        return cls(game, b, seats, module, state, seed)

    @property
    def board_name(self) -> str | None:
        return self.board.name if self.board is not None else None

    def rules_json(self) -> dict[str, Any]:
        """The rule settings in play, defaults included."""
        return dataclasses.asdict(self.state.settings)

    def observe(self, state: Any = None) -> Observation:
        return self.module.observe(self.state if state is None else state)

    def legal_moves(self) -> list:
        return self.module.legal_moves(self.state)

    def choose(self, rng: random.Random):
        """A legal move picked like the engine's own random play (None when the game is over)."""
        moves = self.module.legal_moves(self.state)
        if not moves:
            return None
        return self.module.random_policy(self.state, moves, rng)

    def illegal(self, rng: random.Random) -> tuple[Any, str] | None:
        """A physically possible rule-breaking move and the violation code it should raise."""
        return self.module.random_illegal_move(self.state, rng)

    def apply(self, move: Any):
        """Apply a move (legal or not); returns the engine's Transition and keeps its state."""
        t = self.module.apply_move(self.state, move)
        self.state = t.state
        return t

    @property
    def over(self) -> bool:
        return bool(self.state.game_over)

    def hints(self, state: Any = None) -> dict[str, Any]:
        """What the table shows beyond FORMATS §2: pile sizes, wish piles, points-card values."""
        s = self.state if state is None else state
        if self.board is not None:
            return {"draw_pile": len(s.draw_pile),
                    "discard_counts": {c: len(p) for c, p in zip(COLOURS, s.discards)},
                    "wish_piles": dict(zip(COLOURS, s.wish_piles))}
        piles = getattr(self.module, "PILES", (*COLOURS, "points"))
        seats = s.order
        return {"draw_pile": len(s.draw_pile),
                "discard_counts": {p: len(c) for p, c in zip(piles, s.piles)},
                "points_rows": {seat: [c.value for c in s.points_rows[i]] for i, seat in enumerate(seats)},
                "wish_middle": list(s.wish_middle)}


def play_to(game: Game, moves: int, rng: random.Random) -> Game:
    """Play up to `moves` legal moves (fewer if the game ends)."""
    for _ in range(moves):
        m = game.choose(rng)
        if m is None:
            break
        game.apply(m)
    return game
