"""The state of a Keltis board game (RULES §1–2) and the seeded deal that starts one.

`GameState` is a frozen dataclass of tuples: per-seat data is a tuple indexed like `seats`,
per-colour data a tuple indexed like `engine.cards.COLOURS`. A move never mutates a state; it
builds a new one that shares every tuple it did not change (see `evolve`), so states are cheap
to keep for a whole game and compare with `==`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping

from ..board import Board, bundled_board
from ..cards import COLOURS, HAND_SIZE, PLAYER_COLOURS, SEATS, TWO_PLAYER_REMOVED, Card, board_game_deck
from ..errors import MalformedInput
from ..rows import RowState
from .moves import BIG, CARD, PAWNS_PER_PLAYER
from .settings import Settings

#: Index of each card colour in per-colour tuples.
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
#: Keys of a seat's wish-stone counts: the five colours, then "any" (base board's colourless stones).
WISH_KEYS: tuple[str, ...] = (*COLOURS, "any")
WISH_INDEX: dict[str, int] = {c: i for i, c in enumerate(WISH_KEYS)}
#: Phases of a turn: which step `apply_move` expects next (moves.py explains the steps).
PHASES = ("play", "clover", "discard-tile", "draw", "over")
#: Pawns in the goal area (all players together) that end the game (RULES §1 End).
GOAL_PAWNS_TO_END = 5

#: The 110 cards (RULES §1 Components) as the shared CARD objects, in engine.cards' deck order.
_DECK: tuple[Card, ...] = tuple(CARD[(c.colour, c.value)] for c in board_game_deck())  # type: ignore[index]
_CARD_KEY: dict[Card, int] = {card: COLOUR_INDEX[c] * 11 + v for (c, v), card in CARD.items()}


def hand_sorted(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    """A hand in its canonical order (by colour, then value): hands are sets, order is display."""
    return tuple(sorted(cards, key=_CARD_KEY.__getitem__))


class BoardInfo:
    """Everything the rules ask of a board, computed once per board (stones, paths, tiles, labels)."""

    def __init__(self, board: Board):
        self.board = board
        self.ruleset = board.ruleset
        self.base = board.ruleset == "base"
        self.start = board.start.id
        self.stones = board.stones
        self.next: dict[str, tuple[str, ...]] = {s.id: s.next for s in board.stones.values()}
        self.colour: dict[str, str | None] = {s.id: s.color for s in board.stones.values()}
        self.value: dict[str, int] = {s.id: s.value for s in board.stones.values()}
        self.goal: frozenset[str] = frozenset(s.id for s in board.stones.values()
                                              if s.kind == "stone" and board.in_goal(s.id))
        self.end_of: dict[str, str] = dict(board.end_stones)
        self.end_stones: frozenset[str] = frozenset(self.end_of.values())
        self.tile_spots: tuple[str, ...] = board.tile_spots
        self.spot_index: dict[str, int] = {sid: k for k, sid in enumerate(self.tile_spots)}
        self.pile_colour: dict[str, str] = {sid: c for c, sid in board.wish_piles.items()}
        self.label: dict[str, str] = {sid: self._label(s) for sid, s in board.stones.items()}
        # entries[stone][colour index]: next stones a card of that colour may enter (NWNZ: the
        # stone's colour or a joker; base: the same path, or the colour's first stone from the start).
        self.entries: dict[str, tuple[tuple[str, ...], ...]] = {}
        for sid, s in board.stones.items():
            self.entries[sid] = tuple(
                tuple(n for n in s.next if self.colour[n] in (c, "joker")) for c in COLOURS)
        # Base board: the first stone of each colour's path (entered from the start).
        self.first: dict[str, str] = {self.colour[n]: n for n in self.next[self.start]}  # type: ignore[misc]
        self._steps_cache: dict[tuple[str, str], int | None] = {}

    @staticmethod
    def _label(stone: Any) -> str:
        if stone.kind == "start":
            return "the start"
        name = "joker stone" if stone.color == "joker" else stone.color
        return f"{name} {stone.value} ({stone.id})"

    def steps(self, frm: str, to: str) -> int | None:
        """Fewest forward steps from `frm` to `to`, or None if `to` is not ahead of `frm`."""
        key = (frm, to)
        if key not in self._steps_cache:
            self._steps_cache[key] = self.board.steps(frm, to)
        return self._steps_cache[key]


_INFO: dict[int, BoardInfo] = {}


def board_info(board: Board) -> BoardInfo:
    """The precomputed BoardInfo of a board (kept for the life of the process)."""
    info = _INFO.get(id(board))
    if info is None or info.board is not board:
        info = _INFO[id(board)] = BoardInfo(board)
    return info


@dataclass(frozen=True)
class GameState:
    """One moment of a board game: table, hands, piles, whose turn, and the id of this state."""

    board: Board
    settings: Settings
    seed: int
    seats: tuple[str, ...]                          # seats playing, in turn order (SEATS order)
    players: tuple[str, ...]                        # pawn colour at each seat
    hands: tuple[tuple[Card, ...], ...]             # per seat: dealt sorted, drawn cards appended
    rows: tuple[tuple[tuple[Card, ...], ...], ...]  # per seat, per colour: cards laid, first laid first
    row_states: tuple[tuple[RowState, ...], ...]    # per seat, per colour: engine.rows.follow state
    pawns: tuple[tuple[str, ...], ...]              # per seat: stone of pawn 0 (big) .. 4 (small)
    draw_pile: tuple[Card, ...]                     # the top card is the last
    discards: tuple[tuple[Card, ...], ...]          # per colour, the top card is the last
    box: tuple[Card, ...]                           # cards put back unseen (2 players, RULES §1)
    tiles: tuple[str | None, ...]                   # tile code on each of board.tile_spots, None if empty
    wish_piles: tuple[int, ...]                     # per colour: wish stones left on that pile
    wish: tuple[tuple[int, ...], ...]               # per seat, per WISH_KEYS: wish stones held
    points: tuple[tuple[tuple[str, int], ...], ...]  # per seat: (stone, value) of each points tile scored
    turn_index: int                                 # index into seats of the seat to act
    phase: str                                      # one of PHASES
    turn_number: int                                # 1 for the first turn, +1 each time the turn passes
    turn_discards: tuple[tuple[int, int], ...]      # (colour index, pile position) discarded this turn
    goal_pawns: int                                 # pawns (all players) in the goal area
    game_over: bool
    end_reason: str | None
    id: int

    def __repr__(self) -> str:  # the generated one would print the whole board
        return f"GameState({self.summary()})"

    # ---- convenient reading -------------------------------------------------------------------
    @property
    def turn(self) -> str:
        """The seat to act (the seat that ended the game, once it is over)."""
        return self.seats[self.turn_index]

    @property
    def ruleset(self) -> str:
        """"base" or "nwnz": which movement and wish rules apply (from the board)."""
        return self.board.ruleset

    def seat_index(self, seat: str) -> int:
        """Index of a seat in the per-seat tuples; ValueError if the seat does not play."""
        return self.seats.index(seat)

    def player_of(self, seat: str) -> str:
        """The pawn colour playing at a seat."""
        return self.players[self.seats.index(seat)]

    def hand(self, seat: str) -> tuple[Card, ...]:
        """The cards in a seat's hand."""
        return self.hands[self.seats.index(seat)]

    def row(self, seat: str, colour: str) -> tuple[Card, ...]:
        """A seat's row of one colour, first laid first."""
        return self.rows[self.seats.index(seat)][COLOUR_INDEX[colour]]

    def pawn_stones(self, seat: str) -> tuple[str, ...]:
        """Stone of each of a seat's pawns: index 0 is the big pawn."""
        return self.pawns[self.seats.index(seat)]

    def wish_held(self, seat: str) -> dict[str, int]:
        """Wish stones a seat holds, by colour ("any" on the base board); zero counts left out."""
        return {k: n for k, n in zip(WISH_KEYS, self.wish[self.seats.index(seat)]) if n}

    def points_of(self, seat: str) -> int:
        """Points a seat scored from points tiles."""
        return sum(v for _, v in self.points[self.seats.index(seat)])

    def tiles_on_board(self) -> dict[str, str | None]:
        """Tile spot → tile code lying there (None where it was taken)."""
        return dict(zip(self.board.tile_spots, self.tiles))

    def discard_top(self, colour: str) -> Card | None:
        """The top card of a colour's discard pile, if any."""
        pile = self.discards[COLOUR_INDEX[colour]]
        return pile[-1] if pile else None

    @property
    def discarded_this_turn(self) -> tuple[Card, ...]:
        """Cards discarded in the current turn (they cannot be drawn back this turn, RULES §1)."""
        return tuple(self.discards[ci][pos] for ci, pos in self.turn_discards if pos < len(self.discards[ci]))

    def all_cards(self) -> list[Card]:
        """Every card of the game wherever it lies (hands, rows, piles, box): always 110."""
        out = [c for h in self.hands for c in h]
        out += [c for seat_rows in self.rows for r in seat_rows for c in r]
        out += list(self.draw_pile) + [c for p in self.discards for c in p] + list(self.box)
        return out

    def summary(self) -> str:
        """A one-line description: game, seats, turn and phase."""
        seats = ", ".join(f"{s} {p}" for s, p in zip(self.seats, self.players))
        status = f"over: {self.end_reason}" if self.game_over else f"{self.turn} to {self.phase}"
        return f"Keltis on {self.board.name} [{seats}] state {self.id}, turn {self.turn_number}, {status}"


def evolve(state: GameState, **changes: Any) -> GameState:
    """A copy of `state` with some fields replaced (fast: no validation, tuples shared)."""
    new = object.__new__(GameState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def put(items: tuple, index: int, value: Any) -> tuple:
    """`items` with the entry at `index` replaced."""
    return items[:index] + (value,) + items[index + 1:]


def check_seats(seats: Mapping[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Seats in turn order and their player colours; MalformedInput naming a bad seat or colour."""
    if not isinstance(seats, Mapping):
        raise MalformedInput(f"seats must map seat to player colour, got {seats!r}", field="seats")
    for seat, player in seats.items():
        if seat not in SEATS:
            raise MalformedInput(f"unknown seat {seat!r} (seats: {', '.join(SEATS)})", field="seats")
        if player not in PLAYER_COLOURS:
            raise MalformedInput(f"unknown player colour {player!r} at {seat} (colours: {', '.join(PLAYER_COLOURS)})",
                                 field="seats")
    if not 2 <= len(seats) <= 4:
        raise MalformedInput(f"Keltis is for 2 to 4 players, got {len(seats)}: {dict(seats)}", field="seats")
    if len(set(seats.values())) != len(seats):
        raise MalformedInput(f"two seats play the same colour: {dict(seats)}", field="seats")
    order = tuple(s for s in SEATS if s in seats)
    return order, tuple(seats[s] for s in order)


def new_game(seats: Mapping[str, str], settings: Settings | None = None, seed: int = 0, *,
             board: Board | str | None = None) -> GameState:
    """Set up a game (RULES §1 Components, §2 Preparation): shuffle and deal, lay the tiles and piles.

    `seats` maps seat → player colour; turns go in SEATS order and the first seat starts. `board`
    is a Board or a bundled board name (default: the base board). Everything random comes from
    `random.Random(seed)`, so the same arguments always give the same game.
    """
    order, players = check_seats(seats)
    settings = Settings() if settings is None else settings
    if isinstance(board, str) or board is None:
        board = bundled_board(board or "base")
    info = board_info(board)
    rng = random.Random(seed)
    deck = list(_DECK)
    rng.shuffle(deck)
    box: tuple[Card, ...] = ()
    if len(order) == 2:  # 30 cards back into the box unseen (RULES §1 Components)
        box, deck = tuple(deck[:TWO_PLAYER_REMOVED]), deck[TWO_PLAYER_REMOVED:]
    hands: list[list[Card]] = [[] for _ in order]
    for _ in range(HAND_SIZE):  # one card at a time around the table, from the top of the pile
        for hand in hands:
            hand.append(deck.pop())
    tiles = [code for code, n in board.tile_set.items() for _ in range(n)]
    rng.shuffle(tiles)
    tiles += [None] * (len(info.tile_spots) - len(tiles))  # a board without a tile set: empty spots
    piles = tuple(board.wish_stones_per_pile if c in board.wish_piles else 0 for c in COLOURS)
    n = len(order)
    empty_rows = tuple(() for _ in COLOURS)
    return GameState(
        board=board, settings=settings, seed=seed, seats=order, players=players,
        hands=tuple(hand_sorted(h) for h in hands),
        rows=tuple(empty_rows for _ in range(n)),
        row_states=tuple(tuple(RowState() for _ in COLOURS) for _ in range(n)),
        pawns=tuple((info.start,) * PAWNS_PER_PLAYER for _ in range(n)),
        draw_pile=tuple(deck), discards=empty_rows, box=box, tiles=tuple(tiles), wish_piles=piles,
        wish=tuple((0,) * len(WISH_KEYS) for _ in range(n)), points=tuple(() for _ in range(n)),
        turn_index=0, phase="play", turn_number=1, turn_discards=(), goal_pawns=0,
        game_over=False, end_reason=None, id=0)


__all__ = ["GameState", "BoardInfo", "board_info", "new_game", "evolve", "put", "hand_sorted", "check_seats",
           "COLOUR_INDEX", "WISH_KEYS", "WISH_INDEX", "PHASES", "GOAL_PAWNS_TO_END", "BIG"]
