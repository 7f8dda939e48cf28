"""Keltis: Das Kartenspiel as pure functions (RULES.md §3): state, legal moves, moves, end and scoring.

A turn is a play step then draw steps (`state.phase` "play", then "draw" until the hand holds 8
again). Rule breaks that can happen on a real table are applied and reported as violations;
only moves that cannot happen at all (a card the player does not hold, an empty pile) raise
MoveError.

Decisions where the texts are silent (RULES §3, seeds/card-game-it-colours.txt, -runes.txt):

* First player: the first seat in turn order (south, west, north, east) — the texts pick "whoever
  last visited Ireland, or the oldest", which a program cannot know.
* Drawing back to 8: one draw per card played (RULES §3 Turn "draw back to 8"); a draw from a
  discard pile never takes a card discarded this turn (colour edition: "non può prendere una carta
  che ha scartato nel medesimo turno").
* The end. It comes at once when the end cards out meet `Settings.end_trigger` (checked after
  every card laid in a row) or when the last card of the draw pile is drawn (RULES §3 End "at
  once"; a second draw still due after a pair is then not made). The player who ended the game
  does not draw (RULES §3 End; colour edition: "il giocatore che ha concluso la partita non pesca
  più alcuna carta"; rune edition: "salta la fase di Reintegro della mano").
* Who plays the final cards, and in what order [decision]: every player, the one who ended the
  game included — colour edition "Alla fine del gioco, ogni giocatore può ancora piazzare fino a
  due carte", rune edition "Alla fine del gioco, ogni giocatore esegue un intero turno". Neither
  text gives an order; play goes clockwise ("Il gioco prosegue quindi in senso orario"), so the
  final plays go in turn order starting with the player after the one who ended the game, and
  that player plays last, after seeing everyone else's. The same holds for both ways to end.
  With `final_play` "two-cards" (default) a final play is up to two cards laid in rows (coloured
  rows or the points row, by the usual row rules), with no discards and no drawing; with
  "full-turn" it is one ordinary play (discard one, discard a pair for a wish card, or lay one)
  without drawing. A player may `Pass` to stop early; players with no cards left are skipped.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Literal, Mapping, Sequence

from ..cards import (COLOURS, HAND_SIZE, PLAYER_COLOURS, SEATS, TWO_PLAYER_REMOVED, Card, card_game_deck,
                     card_game_wish_cards)
from ..errors import MalformedInput, MoveError
from ..events import Event
from ..play import GameRecord, Transition
from ..observation import Observation, SeatObservation
from ..rows import RowState, follow, replay_row
from ..scoring import ScoreSheet, sheet
from ..settings import parse_settings
from ..violations import Violation
from .moves import MOVE_TYPES, Discard, DiscardPair, Draw, Lay, Move, Pass, move_from_json
from .rules import (PILES, POINTS_ROW, WISH_VALUES, Settings, end_condition_met, end_condition_text,
                    final_play_text, pile_of)
from .score import seat_parts

__all__ = ["Settings", "GameState", "Transition", "GameRecord", "Move", "Lay", "Discard", "DiscardPair", "Draw",
           "Pass", "move_from_json", "new_game", "legal_moves", "apply_move", "random_illegal_move", "observe",
           "score", "play_random_game", "replay", "arrange", "random_policy", "uniform_policy", "Policy", "DRAW_PILE"]

#: `Draw.source` for the face-down draw pile (the discard piles are named as in rules.PILES).
DRAW_PILE = "pile"
Phase = Literal["play", "draw", "final", "over"]

_COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
_PILE_INDEX = {p: i for i, p in enumerate(PILES)}
_FINAL_CARDS = {"two-cards": 2, "full-turn": 1}


@dataclass(frozen=True, repr=False)
class GameState:
    """The whole table at one moment: hands, rows, piles, wish cards, whose step is next."""

    id: int
    seed: int
    settings: Settings
    order: tuple[str, ...]                       # seats in play, in turn order
    players: tuple[str, ...]                     # player colour per seat (parallel to order)
    hands: tuple[tuple[Card, ...], ...]          # per seat, sorted
    rows: tuple[tuple[tuple[Card, ...], ...], ...]   # per seat, per colour (COLOURS order), first laid first
    row_states: tuple[tuple[RowState, ...], ...]     # per seat, per colour: where each row stands
    points_rows: tuple[tuple[Card, ...], ...]    # per seat
    wish_cards: tuple[tuple[int, ...], ...]      # per seat, in the order taken
    draw_pile: tuple[Card, ...]                  # face down; the last card is the top
    piles: tuple[tuple[Card, ...], ...]          # discard piles in PILES order; the last card is the top
    fresh: tuple[int, ...]                       # per pile: how many top cards were discarded this turn
    wish_middle: tuple[int, ...]                 # wish cards still in the middle
    removed: tuple[Card, ...]                    # the 30 cards back in the box (2 players)
    turn: str                                    # the seat whose step is next (the last mover once over)
    phase: Phase
    end_reason: str | None = None                # "end-cards" or "draw-pile" once the end has come
    ended_by: str | None = None
    final_queue: tuple[str, ...] = ()            # seats still to make their final play, current first
    final_left: int = 0                          # cards the current final player may still play
    final_steps: int = 0                         # final-play moves made so far

    @property
    def game_over(self) -> bool:
        """True once every final play is made and the score is final."""
        return self.phase == "over"

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats in play, in turn order (the board game's name for `order`)."""
        return self.order

    @property
    def turn_index(self) -> int:
        """Position of the seat to act in the turn order."""
        return self.order.index(self.turn)

    def index(self, seat: str) -> int:
        """Position of `seat` in the turn order; MoveError for a seat not in this game."""
        try:
            return self.order.index(seat)
        except ValueError:
            raise MoveError(f"seat {seat!r} is not in this game (seats: {', '.join(self.order)})") from None

    def player_of(self, seat: str) -> str:
        """The player colour at `seat`."""
        return self.players[self.index(seat)]

    def hand_of(self, seat: str) -> tuple[Card, ...]:
        """The cards `seat` holds."""
        return self.hands[self.index(seat)]

    def row_of(self, seat: str, colour: str) -> tuple[Card, ...]:
        """The row of `colour` in front of `seat`, first laid first."""
        return self.rows[self.index(seat)][_COLOUR_INDEX[colour]]

    def row_state_of(self, seat: str, colour: str) -> RowState:
        """Where that row stands (last value, direction, end cards)."""
        return self.row_states[self.index(seat)][_COLOUR_INDEX[colour]]

    def points_row_of(self, seat: str) -> tuple[Card, ...]:
        """The points cards in `seat`'s points row."""
        return self.points_rows[self.index(seat)]

    def wish_cards_of(self, seat: str) -> tuple[int, ...]:
        """The wish cards `seat` has taken."""
        return self.wish_cards[self.index(seat)]

    def pile_top(self, pile: str) -> Card | None:
        """The face-up top card of a discard pile, or None when it is empty."""
        cards = self.piles[_PILE_INDEX[pile]]
        return cards[-1] if cards else None

    def rows_with_end_card(self) -> list[tuple[str, str]]:
        """Every (seat, colour) row that holds an end card."""
        return [(seat, colour) for i, seat in enumerate(self.order) for colour, row in zip(COLOURS, self.rows[i])
                if any(c.kind == "end" for c in row)]

    def __repr__(self) -> str:
        return (f"GameState(id={self.id}, turn={self.turn!r}, phase={self.phase!r}, "
                f"draw_pile={len(self.draw_pile)}, seats={self.order})")


# ---------------------------------------------------------------------------------------------------
# setting up

def new_game(seats: Mapping[str, str], settings: Settings | Mapping | None = None, seed: int = 0, *,
             board: object = None) -> GameState:
    """Shuffle with `seed`, set 30 cards aside for two players, and deal 8 to each (RULES §3).

    `seats` maps seat → player colour; turn order is SEATS order. `board` is ignored (no board).
    """
    if settings is None:
        settings = Settings()
    elif not isinstance(settings, Settings):
        settings = parse_settings(Settings, dict(settings))
    if not isinstance(seats, Mapping) or not 2 <= len(seats) <= 4:
        raise MalformedInput(f"the card game needs 2 to 4 seats, got {seats!r}", field="seats")
    for seat, player in seats.items():
        if seat not in SEATS:
            raise MalformedInput(f"unknown seat {seat!r} (expected one of {', '.join(SEATS)})", field="seats")
        if player not in PLAYER_COLOURS:
            raise MalformedInput(f"unknown player colour {player!r} at {seat}", field="seats")
    if len(set(seats.values())) != len(seats):
        raise MalformedInput(f"two seats have the same player colour: {dict(seats)}", field="seats")
    order = tuple(s for s in SEATS if s in seats)
    deck = list(card_game_deck())
    rng = random.Random(seed)
    rng.shuffle(deck)
    removed: list[Card] = []
    if len(order) == 2:  # rune edition: "si prendono le prime 30 carte dal MAZZO DI PESCA"
        removed = [deck.pop() for _ in range(TWO_PLAYER_REMOVED)]
    hands: list[list[Card]] = [[] for _ in order]
    for _ in range(HAND_SIZE):
        for hand in hands:
            hand.append(deck.pop())
    empty_rows = tuple(() for _ in COLOURS)
    new_rows = tuple(RowState() for _ in COLOURS)
    return GameState(
        id=0, seed=seed, settings=settings, order=order, players=tuple(seats[s] for s in order),
        hands=tuple(tuple(sorted(h)) for h in hands), rows=tuple(empty_rows for _ in order),
        row_states=tuple(new_rows for _ in order), points_rows=tuple(() for _ in order),
        wish_cards=tuple(() for _ in order), draw_pile=tuple(deck), piles=tuple(() for _ in PILES),
        fresh=tuple(0 for _ in PILES), wish_middle=tuple(c.value for c in card_game_wish_cards()),  # type: ignore[misc]
        removed=tuple(removed), turn=order[0], phase="play")


def arrange(state: GameState, *, hands: Mapping[str, Sequence[Card]] | None = None,
            rows: Mapping[str, Mapping[str, Sequence[Card]]] | None = None,
            points_rows: Mapping[str, Sequence[Card]] | None = None,
            wish_cards: Mapping[str, Sequence[int]] | None = None,
            piles: Mapping[str, Sequence[Card]] | None = None, draw_pile: Sequence[Card] | None = None,
            turn: str | None = None, phase: Phase | None = None) -> GameState:
    """A hand-made position: `state` with the named parts of the table replaced (tests, puzzles).

    Rows are given per seat and colour (first laid first); their row states are recomputed.
    Wish cards given to a seat leave the middle. Card counts are not checked against the deck.
    """
    def per_seat(given: Mapping[str, object] | None, current: tuple, convert) -> tuple:
        if given is None:
            return current
        return tuple(convert(given[seat]) if seat in given else current[i] for i, seat in enumerate(state.order))

    new_rows = per_seat(rows, state.rows, lambda by_colour: tuple(tuple(by_colour.get(c, ())) for c in COLOURS))
    row_states = tuple(tuple(replay_row(row, c, turn_at_limits=True)[0] for c, row in zip(COLOURS, seat_rows))
                       for seat_rows in new_rows)
    new_wishes = per_seat(wish_cards, state.wish_cards, tuple)
    taken = {v for held in new_wishes for v in held}
    new_piles = state.piles if piles is None else tuple(tuple(piles.get(p, ())) for p in PILES)
    return GameState(
        id=state.id, seed=state.seed, settings=state.settings, order=state.order, players=state.players,
        hands=per_seat(hands, state.hands, lambda h: tuple(sorted(h))), rows=new_rows, row_states=row_states,
        points_rows=per_seat(points_rows, state.points_rows, tuple), wish_cards=new_wishes,
        draw_pile=state.draw_pile if draw_pile is None else tuple(draw_pile), piles=new_piles,
        fresh=tuple(0 for _ in PILES), wish_middle=tuple(v for v in WISH_VALUES if v not in taken),
        removed=state.removed, turn=turn or state.turn, phase=phase or state.phase)


# ---------------------------------------------------------------------------------------------------
# legal moves

def _fits(rs: RowState, card: Card, colour: str) -> bool:
    return follow(rs, card, colour, turn_at_limits=True)[1] is None


def _lays(state: GameState, seat: str) -> list[Move]:
    i = state.index(seat)
    moves: list[Move] = []
    for card in dict.fromkeys(state.hands[i]):  # hands are kept sorted: distinct cards in order
        if card.kind == "points":
            for colour in COLOURS:
                if _fits(state.row_states[i][_COLOUR_INDEX[colour]], card, colour):
                    moves.append(Lay(seat, card, colour))
            moves.append(Lay(seat, card, POINTS_ROW))
        elif card.kind in ("number", "end"):
            colour = card.colour
            assert colour is not None
            if _fits(state.row_states[i][_COLOUR_INDEX[colour]], card, colour):
                moves.append(Lay(seat, card, colour))
    return moves


def _discards(state: GameState, seat: str) -> list[Move]:
    hand = state.hand_of(seat)  # sorted, so each pair below comes out in order, first card first
    moves: list[Move] = [Discard(seat, c) for c in dict.fromkeys(hand)]
    valued = [c for c in hand if c.kind in ("number", "points") and c.value in state.wish_middle]
    pairs: dict[tuple[Card, Card], None] = {}
    for a in range(len(valued)):
        for b in range(a + 1, len(valued)):
            if valued[a].value == valued[b].value:
                pairs[(valued[a], valued[b])] = None
    moves.extend(DiscardPair(seat, p, p[0].value) for p in pairs)  # type: ignore[arg-type]
    return moves


def legal_moves(state: GameState) -> list[Move]:
    """Every legal next step for the seat to act (empty once the game is over)."""
    seat = state.turn
    if state.phase == "over":
        return []
    if state.phase == "draw":
        moves: list[Move] = [Draw(seat, DRAW_PILE)] if state.draw_pile else []
        moves.extend(Draw(seat, p) for k, p in enumerate(PILES) if state.piles[k] and not state.fresh[k])
        return moves
    if state.phase == "final":
        if not state.hand_of(seat):
            return [Pass(seat)]
        plays = _lays(state, seat)
        if state.settings.final_play == "full-turn":
            plays += _discards(state, seat)
        return plays + [Pass(seat)]
    return _lays(state, seat) + _discards(state, seat)


# ---------------------------------------------------------------------------------------------------
# applying moves

def _card_words(card: Card) -> str:
    if card.kind == "number":
        return f"a {card.colour} {card.value}"
    if card.kind == "end":
        return f"a {card.colour} end card"
    return f"the points card {card.value}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _row_words(colour: str, rs: RowState, length: int) -> str:
    how = "closed" if rs.ends >= 2 else "ended" if rs.ends else "" if rs.direction == 0 else rs.direction_word
    return f"{colour} row{' ' + how if how else ''}, {_plural(length, 'card')}"


def _value_words(value: int | None) -> str:
    return "end cards" if value is None else f"{value}s"


class _Table:
    """A mutable working copy of a GameState while one move is applied."""

    def __init__(self, s: GameState):
        self.s = s
        self.hands = list(s.hands)
        self.rows = [list(r) for r in s.rows]
        self.row_states = [list(r) for r in s.row_states]
        self.points_rows = list(s.points_rows)
        self.wish_cards = list(s.wish_cards)
        self.draw_pile = s.draw_pile
        self.piles = list(s.piles)
        self.fresh = list(s.fresh)
        self.wish_middle = s.wish_middle
        self.turn = s.turn
        self.phase: Phase = s.phase
        self.end_reason = s.end_reason
        self.ended_by = s.ended_by
        self.final_queue = s.final_queue
        self.final_left = s.final_left
        self.final_steps = s.final_steps
        self.events: list[Event] = []
        self.violations: list[Violation] = []

    def freeze(self) -> GameState:
        s = self.s
        return GameState(
            id=s.id + 1, seed=s.seed, settings=s.settings, order=s.order, players=s.players,
            hands=tuple(self.hands), rows=tuple(tuple(r) for r in self.rows),
            row_states=tuple(tuple(r) for r in self.row_states), points_rows=tuple(self.points_rows),
            wish_cards=tuple(self.wish_cards), draw_pile=self.draw_pile, piles=tuple(self.piles),
            fresh=tuple(self.fresh), wish_middle=self.wish_middle, removed=s.removed, turn=self.turn,
            phase=self.phase, end_reason=self.end_reason, ended_by=self.ended_by, final_queue=self.final_queue,
            final_left=self.final_left, final_steps=self.final_steps)

    # --- small helpers
    def idx(self, seat: str) -> int:
        return self.s.order.index(seat)

    def event(self, kind: str, seat: str | None, text: str, **data: object) -> None:
        self.events.append(Event(kind, seat, text, data))

    def violate(self, code: str, message: str, seat: str | None, **details: object) -> None:
        self.violations.append(Violation(code, message, seat, details))

    def next_seat(self, seat: str) -> str:
        order = self.s.order
        return order[(order.index(seat) + 1) % len(order)]

    def previous_seat(self, seat: str) -> str:
        order = self.s.order
        return order[(order.index(seat) - 1) % len(order)]

    def take_from_hand(self, seat: str, card: Card) -> None:
        i = self.idx(seat)
        hand = list(self.hands[i])
        hand.remove(card)
        self.hands[i] = tuple(hand)

    def pass_turn(self) -> None:
        self.turn = self.next_seat(self.turn)
        self.phase = "play"
        self.fresh = [0] * len(PILES)

    # --- physical effects: what happens on the table whoever does it
    def lay(self, seat: str, card: Card, row: str) -> None:
        i = self.idx(seat)
        self.take_from_hand(seat, card)
        if row == POINTS_ROW:
            self.points_rows[i] = self.points_rows[i] + (card,)
            n = len(self.points_rows[i])
            self.event("card-laid", seat, f"{seat} laid {_card_words(card)} in the points row ({_plural(n, 'card')})",
                       card=str(card), row=row, length=n)
            return
        k = _COLOUR_INDEX[row]
        rs, problem = follow(self.row_states[i][k], card, row, turn_at_limits=True, seat=seat)
        if problem is not None:
            self.violations.append(problem)
        self.row_states[i][k] = rs
        self.rows[i][k] = self.rows[i][k] + (card,)
        n = len(self.rows[i][k])
        where = "" if card.kind != "points" else f" on the {row} row"
        if card.kind == "number" and card.colour != row:
            where = f" in the {row} row"
        text = f"{seat} laid {_card_words(card)}{where} ({_row_words(row, rs, n)})"
        if card.kind == "end" and rs.ends == 2 and problem is None:
            text = f"{seat} laid the second {row} end card: the {row} row is closed ({_plural(n, 'card')})"
        self.event("card-laid", seat, text, card=str(card), row=row, length=n)

    def discard(self, seat: str, card: Card, fresh: bool) -> None:
        self.take_from_hand(seat, card)
        pile = pile_of(card)
        k = _PILE_INDEX[pile]
        self.piles[k] = self.piles[k] + (card,)
        if fresh:
            self.fresh[k] += 1

    def draw(self, seat: str, source: str) -> Card:
        i = self.idx(seat)
        if source == DRAW_PILE:
            card = self.draw_pile[-1]
            self.draw_pile = self.draw_pile[:-1]
            left = len(self.draw_pile)
            text = (f"{seat} drew a card from the draw pile ({left} left)" if left
                    else f"{seat} drew the last card of the draw pile")
        else:
            k = _PILE_INDEX[source]
            card = self.piles[k][-1]
            self.piles[k] = self.piles[k][:-1]
            text = f"{seat} took {_card_words(card)} from the {source} discard pile"
        self.hands[i] = tuple(sorted(self.hands[i] + (card,)))
        self.event("drew", seat, text, source=source, **({} if source == DRAW_PILE else {"card": str(card)}))
        return card

    def play(self, move: Move, fresh: bool) -> None:
        seat = move.seat
        if isinstance(move, Lay):
            self.lay(seat, move.card, move.row)
        elif isinstance(move, Discard):
            self.discard(seat, move.card, fresh)
            self.event("card-discarded", seat, f"{seat} discarded {_card_words(move.card)}",
                       card=str(move.card), pile=pile_of(move.card))
        elif isinstance(move, DiscardPair):
            self.discard_pair(move, fresh)

    def discard_pair(self, move: DiscardPair, fresh: bool) -> None:
        seat, (a, b), wish = move.seat, move.cards, move.wish
        for card in (a, b):
            self.discard(seat, card, fresh)
        cards = [str(a), str(b)]
        if a.value is None or a.value != b.value:
            self.violate("pair-mismatch", f"a wish card needs two cards of the same value, not {_card_words(a)} "
                         f"and {_card_words(b)}", seat, cards=cards, wish=wish)
        elif a.value != wish:
            self.violate("pair-mismatch", f"two {a.value}s take the wish card {a.value}, not the wish card {wish}",
                         seat, cards=cards, wish=wish)
        same = a.value is not None and a.value == b.value
        said = f"two {_value_words(a.value)}" if same else f"{_card_words(a)} and {_card_words(b)}"
        if wish in self.wish_middle:
            middle = list(self.wish_middle)
            middle.remove(wish)
            self.wish_middle = tuple(middle)
            i = self.idx(seat)
            self.wish_cards[i] = self.wish_cards[i] + (wish,)
            self.event("wish-taken", seat, f"{seat} discarded {said} and took the wish card {wish}",
                       cards=cards, wish=wish)
        else:
            holder = next((s for s, held in zip(self.s.order, self.wish_cards) if wish in held), None)
            where = f"{holder} has it" if holder else "it is not in the middle"
            self.violate("no-wish-card", f"the wish card {wish} is no longer in the middle ({where})", seat,
                         wish=wish, holder=holder)
            self.event("card-discarded", seat, f"{seat} discarded {said} but the wish card {wish} was gone",
                       cards=cards, wish=wish)

    # --- the end
    def check_end_cards(self, move: Move) -> bool:
        """After a play: start the final play if an end card just laid meets the end condition."""
        if not isinstance(move, Lay) or move.card.kind != "end" or self.phase not in ("play", "draw"):
            return False
        seat = move.seat
        rows = [(s, c) for i, s in enumerate(self.s.order) for c, row in zip(COLOURS, self.rows[i])
                if any(card.kind == "end" for card in row)]
        if not end_condition_met(self.s.settings, rows):
            return False
        self.start_final(seat, "end-cards", f"{end_condition_text(self.s.settings)}, so the game ends")
        return True

    def start_final(self, seat: str, reason: str, why: str) -> None:
        order = self.s.order
        k = order.index(seat)
        queue = order[k + 1:] + order[:k + 1]
        self.phase = "final"
        self.end_reason, self.ended_by = reason, seat
        self.final_queue = queue
        self.final_left = _FINAL_CARDS[self.s.settings.final_play]
        self.fresh = [0] * len(PILES)
        names = ", ".join(queue[:-1]) + f", then {queue[-1]}" if len(queue) > 1 else queue[0]
        self.event("end-triggered", seat, f"{why}. Last play: {final_play_text(self.s.settings)} — {names}.",
                   reason=reason, order=list(queue))
        self.turn = queue[0]
        self.skip_empty_hands()

    def skip_empty_hands(self) -> None:
        while self.phase == "final" and not self.hands[self.idx(self.final_queue[0])]:
            self.event("final-skipped", self.final_queue[0], f"{self.final_queue[0]} has no cards left to lay")
            self.advance_final(skip=False)

    def advance_final(self, skip: bool = True) -> None:
        self.final_queue = self.final_queue[1:]
        if not self.final_queue:
            self.phase = "over"
            self.final_left = 0
            self.finish()
            return
        self.turn = self.final_queue[0]
        self.final_left = _FINAL_CARDS[self.s.settings.final_play]
        if skip:
            self.skip_empty_hands()

    def finish(self) -> None:
        scores = {seat: sum(p.points for p in seat_parts(
            {c: self.rows[i][k] for k, c in enumerate(COLOURS)}, len(self.points_rows[i]), self.wish_cards[i]))
            for i, seat in enumerate(self.s.order)}
        best = max(scores.values())
        winners = [s for s, t in scores.items() if t == best]
        if len(winners) == 1:
            text = f"the game is over: {winners[0]} wins with {best} points"
        else:
            text = f"the game is over: {' and '.join(winners)} share the win with {best} points"
        self.event("game-ended", None, text, scores=scores, winners=winners)


def _check_physical(state: GameState, move: Move) -> None:
    """Raise MoveError for a move that cannot happen on a real table at all."""
    seat = move.seat
    hand = state.hand_of(seat)  # MoveError for an unknown seat
    if isinstance(move, Lay):
        if move.row != POINTS_ROW and move.row not in COLOURS:
            raise MoveError(f"no row {move.row!r} (rows: {', '.join(COLOURS)}, {POINTS_ROW})", source=repr(move))
        if move.card.kind not in ("number", "end", "points"):
            raise MoveError(f"a {move.card} is never laid in a row", source=repr(move))
        if move.row == POINTS_ROW and move.card.kind != "points":
            raise MoveError(f"only points cards lie in the points row, not a {move.card}", source=repr(move))
        cards: tuple[Card, ...] = (move.card,)
    elif isinstance(move, Discard):
        cards = (move.card,)
    elif isinstance(move, DiscardPair):
        cards = tuple(move.cards)
        if move.wish not in WISH_VALUES:
            raise MoveError(f"there is no wish card {move.wish} (they are 1 to 9)", source=repr(move))
    elif isinstance(move, Draw):
        if move.source == DRAW_PILE:
            if not state.draw_pile:
                raise MoveError("the draw pile is empty", source=repr(move))
        elif move.source in _PILE_INDEX:
            if not state.piles[_PILE_INDEX[move.source]]:
                raise MoveError(f"the {move.source} discard pile is empty", source=repr(move))
        else:
            raise MoveError(f"no pile {move.source!r} (piles: {DRAW_PILE}, {', '.join(PILES)})", source=repr(move))
        return
    else:
        return
    needed: dict[Card, int] = {}
    for c in cards:
        needed[c] = needed.get(c, 0) + 1
    for c, n in needed.items():
        if hand.count(c) < n:
            raise MoveError(f"{seat} does not hold {'two ' + str(c) + 's' if n > 1 else str(c)}", source=repr(move))


def _cards_played(move: Move) -> int:
    return 2 if isinstance(move, DiscardPair) else 1


def _apply_play(t: _Table, move: Move) -> None:
    seat = move.seat
    if t.phase == "over":
        t.violate("game-over", f"the game is over: {seat} cannot play any more cards", seat)
        t.play(move, fresh=False)
        return
    if t.phase == "final":
        if seat != t.turn:
            if seat not in t.final_queue:
                t.violate("two-cards", f"{seat} has already made their last play", seat)
            else:
                t.violate("out-of-turn", f"it is {t.turn}'s last play, not {seat}'s", seat)
            t.play(move, fresh=False)
            return
        if t.s.settings.final_play == "two-cards" and not isinstance(move, Lay):
            t.violate("game-over", f"the game has ended: in the last play cards are only laid in rows, "
                      f"not discarded", seat)
        t.play(move, fresh=False)
        t.final_steps += 1
        t.final_left -= _cards_played(move)
        if t.final_left <= 0 or not t.hands[t.idx(seat)]:
            t.advance_final()
        return
    if t.phase == "draw":
        if seat == t.turn:
            t.violate("two-cards", f"{seat} already played a card this turn and must now draw", seat)
            t.play(move, fresh=True)
            t.check_end_cards(move)
            return
        if seat != t.next_seat(t.turn):
            t.violate("out-of-turn", f"it is {t.turn}'s turn, not {seat}'s", seat)
            t.play(move, fresh=False)
            t.check_end_cards(move)
            return
        missing = HAND_SIZE - len(t.hands[t.idx(t.turn)])
        t.violate("draw-count", f"{t.turn} did not draw back to {HAND_SIZE} cards ({_plural(missing, 'card')} "
                  f"short)", t.turn)
        t.pass_turn()
    if seat != t.turn:
        t.violate("out-of-turn", f"it is {t.turn}'s turn, not {seat}'s", seat)
        t.play(move, fresh=False)
        t.check_end_cards(move)
        return
    t.play(move, fresh=True)
    if t.check_end_cards(move):
        return
    t.phase = "draw"
    if len(t.hands[t.idx(seat)]) >= HAND_SIZE:
        t.pass_turn()


def _apply_draw(t: _Table, move: Draw) -> None:
    seat, source = move.seat, move.source
    if t.phase == "over":
        t.violate("game-over", f"the game is over: {seat} cannot draw any more", seat)
        t.draw(seat, source)
        return
    if t.phase == "final":
        if seat == t.ended_by and t.final_steps == 0:
            t.violate("draw-count", f"{seat} ended the game and does not draw", seat)
        else:
            t.violate("game-over", "the game has ended: nobody draws in the last play", seat)
        t.draw(seat, source)
        return
    own_turn = t.phase == "draw" and seat == t.turn
    if not own_turn:
        if seat == t.turn:
            t.violate("draw-count", f"{seat} drew before playing a card", seat)
        elif t.phase == "play" and seat == t.previous_seat(t.turn):
            t.violate("draw-count", f"{seat} drew more cards than they played", seat)
        else:
            t.violate("out-of-turn", f"it is {t.turn}'s turn, not {seat}'s", seat)
    elif source != DRAW_PILE and t.fresh[_PILE_INDEX[source]]:
        card = t.piles[_PILE_INDEX[source]][-1]
        t.violate("draw-own-discard", f"{seat} took back {_card_words(card)} discarded this turn", seat,
                  card=str(card), pile=source)
        t.fresh[_PILE_INDEX[source]] -= 1
    t.draw(seat, source)
    if source == DRAW_PILE and not t.draw_pile:
        t.start_final(seat, "draw-pile", "the draw pile is empty, so the game ends")
        return
    if own_turn and len(t.hands[t.idx(seat)]) >= HAND_SIZE:
        t.pass_turn()


def _apply_pass(t: _Table, move: Pass) -> None:
    if t.phase != "final" or move.seat != t.turn:
        raise MoveError(f"{move.seat} cannot pass: passing only ends one's own last play after the end",
                        source=repr(move))
    t.event("passed", move.seat, f"{move.seat} lays no more cards")
    t.final_steps += 1
    t.advance_final()


def apply_move(state: GameState, move: Move) -> Transition:
    """Apply one step (pure): the new state, its events, and every rule it broke."""
    if not isinstance(move, MOVE_TYPES):
        raise MoveError(f"not a card-game move: {move!r}")
    _check_physical(state, move)
    t = _Table(state)
    if isinstance(move, Draw):
        _apply_draw(t, move)
    elif isinstance(move, Pass):
        _apply_pass(t, move)
    else:
        _apply_play(t, move)
    return Transition(t.freeze(), tuple(t.events), tuple(t.violations))


def replay(initial: GameState, moves: Sequence[Move]) -> GameState:
    """Apply a log of moves to the dealt state: the same state the game reached."""
    state = initial
    for move in moves:
        state = apply_move(state, move).state
    return state


# ---------------------------------------------------------------------------------------------------
# rule breaks a real table can show (for tests and the simulator)

def _row_breaks(state: GameState, seat: str) -> list[tuple[Move, str]]:
    i = state.index(seat)
    out: list[tuple[Move, str]] = []
    for card in sorted(set(state.hands[i])):
        if card.kind == "number":
            rs = state.row_states[i][_COLOUR_INDEX[card.colour]]  # type: ignore[index]
            if rs.ends >= 2:
                out.append((Lay(seat, card, card.colour), "row-closed"))  # type: ignore[arg-type]
            elif rs.ends == 1:
                out.append((Lay(seat, card, card.colour), "row-ended"))  # type: ignore[arg-type]
            elif follow(rs, card, card.colour, turn_at_limits=True)[1] is not None:  # type: ignore[arg-type]
                out.append((Lay(seat, card, card.colour), "row-order"))  # type: ignore[arg-type]
            for colour in COLOURS:
                if colour != card.colour and state.row_states[i][_COLOUR_INDEX[colour]].ends < 2:
                    out.append((Lay(seat, card, colour), "wrong-colour"))
        elif card.kind == "points":
            for colour in COLOURS:
                rs = state.row_states[i][_COLOUR_INDEX[colour]]
                if rs.ends == 0 and rs.last != card.value:
                    out.append((Lay(seat, card, colour), "points-card-mismatch"))
                elif rs.ends == 1:
                    out.append((Lay(seat, card, colour), "row-ended"))
                elif rs.ends >= 2:
                    out.append((Lay(seat, card, colour), "row-closed"))
    return out


def _pair_breaks(state: GameState, seat: str) -> list[tuple[Move, str]]:
    hand = [c for c in state.hand_of(seat) if c.kind in ("number", "points", "end")]
    out: list[tuple[Move, str]] = []
    for a in range(len(hand)):
        for b in range(a + 1, len(hand)):
            x, y = hand[a], hand[b]
            if x.value is not None and x.value == y.value and x.value in WISH_VALUES and \
                    x.value not in state.wish_middle:
                out.append((DiscardPair(seat, (x, y), x.value), "no-wish-card"))
            elif x.value != y.value:
                for v in (x.value, y.value):
                    if v in state.wish_middle:
                        out.append((DiscardPair(seat, (x, y), v), "pair-mismatch"))  # type: ignore[arg-type]
    return out


def _some_lay(state: GameState, seat: str) -> Move | None:
    """Any physically possible lay for `seat` (a legal one when there is one)."""
    lays = _lays(state, seat)
    if lays:
        return lays[0]
    hand = state.hand_of(seat)
    for card in hand:
        if card.kind == "points":
            return Lay(seat, card, POINTS_ROW)
        if card.kind in ("number", "end"):
            return Lay(seat, card, card.colour)  # type: ignore[arg-type]
    return None


def random_illegal_move(state: GameState, rng: random.Random) -> tuple[Move, str] | None:
    """A physically possible move that breaks a rule, and the code of the violation it must raise.

    The rule is chosen first (uniformly among those the state allows), then a move breaking it.
    """
    by_code: dict[str, list[Move]] = {}

    def add(move: Move | None, code: str) -> None:
        if move is not None:
            by_code.setdefault(code, []).append(move)

    seat, order = state.turn, state.order
    others = [s for s in order if s != seat]
    if state.phase == "over":
        for s in order:
            add(_some_lay(state, s), "game-over")
        if state.draw_pile:
            add(Draw(seat, DRAW_PILE), "game-over")
    elif state.phase == "final":
        for move, code in _row_breaks(state, seat):
            add(move, code)
        if state.settings.final_play == "two-cards":
            for card in sorted(set(state.hand_of(seat))):
                add(Discard(seat, card), "game-over")
        if state.draw_pile:
            drawer = state.ended_by if state.final_steps == 0 else seat
            add(Draw(drawer, DRAW_PILE), "draw-count" if state.final_steps == 0 else "game-over")  # type: ignore[arg-type]
        for s in others:
            add(_some_lay(state, s), "out-of-turn" if s in state.final_queue else "two-cards")
    elif state.phase == "play":
        for move, code in _row_breaks(state, seat) + _pair_breaks(state, seat):
            add(move, code)
        if state.draw_pile:
            add(Draw(seat, DRAW_PILE), "draw-count")
        for s in others:
            hand = state.hand_of(s)
            if hand:
                add(Discard(s, hand[0]), "out-of-turn")
    else:  # draw
        for k, pile in enumerate(PILES):
            if state.fresh[k]:
                add(Draw(seat, pile), "draw-own-discard")
        hand = state.hand_of(seat)
        if hand:
            add(Discard(seat, hand[0]), "two-cards")
        nxt = order[(order.index(seat) + 1) % len(order)]
        if nxt != seat:
            add(_some_lay(state, nxt), "draw-count")
        for s in others:
            if s != nxt and state.hand_of(s):
                add(Discard(s, state.hand_of(s)[0]), "out-of-turn")
    if not by_code:
        return None
    code = rng.choice(sorted(by_code))
    return rng.choice(by_code[code]), code


# ---------------------------------------------------------------------------------------------------
# what the camera sees, and the score

def observe(state: GameState) -> Observation:
    """What a perfect camera sees (FORMATS §2, game "keltis-card"); hands and the draw pile's cards stay hidden.

    Adds one field beyond FORMATS §2: "draw_pile", the number of cards left in it.
    """
    seats = {}
    for i, seat in enumerate(state.order):
        rows = {c: tuple(card.row_code for card in row) for c, row in zip(COLOURS, state.rows[i]) if row}
        seats[seat] = SeatObservation(state.players[i], rows, len(state.points_rows[i]), {}, state.wish_cards[i])
    tops = {p: (cards[-1].row_code if cards else None) for p, cards in zip(PILES, state.piles)}
    return Observation("keltis-card", None, True, None, None, None, seats, tops,
                       extra={"draw_pile": len(state.draw_pile)})


def score(state: GameState) -> ScoreSheet:
    """Live score at any moment (RULES §3 Scoring); final once the game is over."""
    return sheet(((seat, state.players[i],
                   seat_parts({c: row for c, row in zip(COLOURS, state.rows[i])}, len(state.points_rows[i]),
                              state.wish_cards[i]))
                  for i, seat in enumerate(state.order)), final=state.game_over)


# ---------------------------------------------------------------------------------------------------
# random games

#: A policy picks the next move: (state, legal moves, rng) -> one of the moves.
Policy = Callable[[GameState, Sequence[Move], random.Random], Move]
#: Safety net for policies that never end a game (legal games end within a few hundred moves).
MAX_MOVES = 20_000


def uniform_policy(state: GameState, moves: Sequence[Move], rng: random.Random) -> Move:
    """Any legal move, each as likely."""
    return rng.choice(moves)


def _worth(state: GameState, move: Move) -> float:
    """A rough worth of a legal move for the player making it (a plausible player, not a strong one)."""
    seat = move.seat
    final = state.phase == "final"
    if isinstance(move, Lay):
        card = move.card
        if move.row == POINTS_ROW:
            return 1.0
        rs = state.row_state_of(seat, move.row)
        if card.kind == "points":
            return 3.0
        if card.kind == "end":
            if rs.length == 0:
                return -3.0
            return 2.5 if final or rs.length >= 6 or rs.ends else -1.0
        if rs.length == 0:
            return -2.0 if final else (0.8 if card.value in (0, 1, 2, 8, 9, 10) else 0.1)
        return 3.0 - 0.5 * abs(card.value - rs.last) if rs.last is not None else 1.0  # type: ignore[operator]
    if isinstance(move, DiscardPair):
        return 2.0
    if isinstance(move, Draw):
        if move.source == DRAW_PILE:
            return 0.5
        top = state.pile_top(move.source)
        if top is None or top.kind != "number":
            return 0.0
        rs = state.row_state_of(seat, top.colour)  # type: ignore[arg-type]
        if rs.last is None or rs.ends or not _fits(rs, top, top.colour):  # type: ignore[arg-type]
            return -0.5
        return 2.0 - 0.5 * abs(top.value - rs.last)  # type: ignore[operator]
    if isinstance(move, Discard):
        return -0.2 if move.card.kind in ("end", "points") else 0.0
    return 0.0  # Pass


def random_policy(state: GameState, moves: Sequence[Move], rng: random.Random) -> Move:
    """Seeded random play that looks like real play: the move of highest rough worth plus random noise."""
    return max(moves, key=lambda m: _worth(state, m) + rng.random() * 1.5)


def play_random_game(seats: Mapping[str, str], settings: Settings | Mapping | None = None, seed: int = 0, *,
                     board: object = None, policy: Policy | None = None) -> GameRecord:
    """Deal with `seed` and play legal moves chosen by `policy` (default `random_policy`, seeded from `seed`)
    until the game ends. Same arguments, same game. `policy(state, legal_moves, rng)` returns one of the moves.
    """
    state = initial = new_game(seats, settings, seed)
    choose = policy or random_policy
    rng = random.Random(f"keltis-card-play/{seed}")
    moves: list[Move] = []
    transitions: list[Transition] = []
    while not state.game_over:
        if len(moves) >= MAX_MOVES:
            raise RuntimeError(f"random game {seed} did not end within {MAX_MOVES} moves: {state!r}")
        move = choose(state, legal_moves(state), rng)
        step = apply_move(state, move)
        moves.append(move)
        transitions.append(step)
        state = step.state
    return GameRecord(initial, tuple(moves), tuple(transitions))
