"""The Keltis board game engine's public API (docs/engine-api.md), RULES.md §1 (base) and §2 (NWNZ).

    state = new_game({"south": "black", "north": "white"}, Settings(), seed=7, board=bundled_board("nwnz"))
    t = apply_move(state, legal_moves(state)[0])      # Transition(state, events, violations)
    score(t.state).to_json()

The same names exist in engine.cardgame.game, so tools (demo, bench, simulator) treat both alike.
"""
from __future__ import annotations

import random
from typing import Callable, Mapping, Sequence

from ..board import Board
from ..cards import COLOURS
from ..events import Event
from ..play import GameRecord
from ..observation import Observation, PawnObservation, SeatObservation
from ..violations import Violation
from .moves import (BIG, CARD, DRAW_PILE, MOVE_KINDS, CloverStep, Discard, Draw, LayCard, Move, SkipClover,
                    SkipTileDiscard, TileDiscard, move_from_json)
from .rules import Transition, apply_move, clover_targets, fits, lay_targets, legal_moves
from .score import score
from .settings import Settings
from .state import COLOUR_INDEX, GOAL_PAWNS_TO_END, WISH_KEYS, GameState, board_info, new_game

#: A policy picks the next move: (state, legal moves, rng) -> one of the moves.
Policy = Callable[[GameState, Sequence[Move], random.Random], Move]
#: Safety net for policies that never end a game (a legal game ends within a few hundred moves).
MAX_MOVES = 20_000


#: How often random_policy picks each kind of step when it has the choice: a rough imitation of real
#: play (players lay more than they discard and mostly draw from the draw pile; a clover is always
#: worth using). Uniform weights would make half the draws come from the discard piles and the game
#: drag on for twice as many turns.
POLICY_WEIGHTS: dict[str, int] = {"lay": 3, "discard": 1, "draw-pile": 3, "draw": 1, "clover": 3,
                                  "skip-clover": 1, "tile-discard": 3, "skip-tile-discard": 1}


def random_policy(state: GameState, moves: Sequence[Move], rng: random.Random) -> Move:
    """Seeded random play: pick a kind of step by POLICY_WEIGHTS, then one move of that kind uniformly."""
    if len(moves) == 1:
        return moves[0]
    groups: dict[str, list[Move]] = {}
    for m in moves:
        kind = m.kind
        if kind == "draw" and m.source == DRAW_PILE:  # type: ignore[union-attr]
            kind = "draw-pile"
        group = groups.get(kind)
        if group is None:
            groups[kind] = [m]
        else:
            group.append(m)
    if len(groups) == 1:
        return moves[rng.randrange(len(moves))]
    kinds = sorted(groups)
    pick = rng.randrange(sum(POLICY_WEIGHTS[k] for k in kinds))
    for kind in kinds:
        pick -= POLICY_WEIGHTS[kind]
        if pick < 0:
            group = groups[kind]
            return group[rng.randrange(len(group))]
    raise AssertionError("unreachable")


def steady_policy(state: GameState, moves: Sequence[Move], rng: random.Random) -> Move:
    """Seeded random play that looks like a person playing: lay a card that keeps its row tight
    (a gap of at most 2, or a 0-2 / 8-10 to open a row), else discard a card that no longer fits;
    take a discard-pile top that fits a row snugly, else draw from the pile; clover steps go to the
    best stone. Ties are broken with `rng`. Used by the demo and as a second player type in tests."""
    i = state.turn_index
    phase = state.phase
    if len(moves) == 1:
        return moves[0]
    if phase == "play":
        row_states = state.row_states[i]
        best: list[Move] = []
        fallback: list[tuple[int, Move]] = []
        for m in moves:
            if isinstance(m, LayCard):
                rs = row_states[COLOUR_INDEX[m.card.colour]]  # type: ignore[index]
                v = m.card.value
                gap = min(v, 10 - v) if rs.last is None else abs(v - rs.last)  # type: ignore[operator]
                if gap <= 2:
                    best.append(m)
                else:
                    fallback.append((gap, m))
        if best:
            return rng.choice(best)
        layable = {m.card for _, m in fallback}
        dead = [m for m in moves if isinstance(m, Discard) and m.card not in layable]
        if dead:
            return rng.choice(dead)
        if fallback and rng.random() < 0.5:
            return min(fallback, key=lambda gm: gm[0])[1]
        return rng.choice([m for m in moves if isinstance(m, Discard)] or list(moves))
    if phase == "draw":
        row_states = state.row_states[i]
        for m in moves:
            if isinstance(m, Draw) and m.source != DRAW_PILE:
                top = state.discards[COLOUR_INDEX[m.source]][-1]
                rs = row_states[COLOUR_INDEX[m.source]]
                if rs.last is not None and fits(rs, top.value) and abs(top.value - rs.last) <= 1:  # type: ignore[arg-type]
                    return m
        pile = [m for m in moves if isinstance(m, Draw) and m.source == DRAW_PILE]
        return pile[0] if pile else rng.choice(moves)
    if phase == "clover":
        info = board_info(state.board)
        steps = [m for m in moves if isinstance(m, CloverStep)]
        if steps:
            top = max(info.value[m.to] for m in steps)
            return rng.choice([m for m in steps if info.value[m.to] == top])
    if phase == "discard-tile":
        row_states = state.row_states[i]
        hand = [m for m in moves if isinstance(m, TileDiscard) and not m.from_row]
        dead = [m for m in hand if not fits(row_states[COLOUR_INDEX[m.card.colour]], m.card.value)]  # type: ignore
        if dead or hand:
            return rng.choice(dead or hand)
    return rng.choice(moves)


#: The policy the demo plays with (engine/demo.py uses a game module's DEMO_POLICY when it has one).
DEMO_POLICY: Policy = steady_policy


def play_random_game(seats: Mapping[str, str], settings: Settings | None = None, seed: int = 0, *,
                     board: Board | str | None = None, policy: Policy | None = None) -> GameRecord:
    """Deal with `seed` and play legal moves chosen by `policy` (default random_policy, seeded from
    `seed`) until the game ends. Same arguments, same game."""
    state = initial = new_game(seats, settings, seed, board=board)
    rng = random.Random(f"keltis-play-{seed}")
    choose = policy or random_policy
    moves: list[Move] = []
    transitions: list[Transition] = []
    while not state.game_over:
        if len(moves) >= MAX_MOVES:
            raise RuntimeError(f"game not over after {MAX_MOVES} moves: {state.summary()}")
        options = legal_moves(state)
        move = choose(state, options, rng)
        t = apply_move(state, move)
        moves.append(move)
        transitions.append(t)
        state = t.state
    return GameRecord(initial, tuple(moves), tuple(transitions))


def replay(initial: GameState, moves: Sequence[Move]) -> GameState:
    """Apply a log of moves to the state it started from: the same final state as when played."""
    state = initial
    for move in moves:
        state = apply_move(state, move).state
    return state


def observe(state: GameState) -> Observation:
    """What a perfect camera sees (FORMATS §2): pawns (start included), tiles, rows, wish stones, discard tops.

    Points scored from points tiles are not on the table's camera view (the caller passes them to
    scoring separately). With the `wish_face_down` variant the colours of wish stones are hidden:
    the seat's `wish` is left empty and the seat carries `"wish_face_down": <count>` instead.
    """
    board = state.board
    pawns = tuple(PawnObservation(stone, player, k == BIG)
                  for player, own in zip(state.players, state.pawns) for k, stone in enumerate(own))
    seats: dict[str, SeatObservation] = {}
    face_down = state.settings.wish_face_down and board.ruleset != "base"
    for i, seat in enumerate(state.seats):
        rows = {c: tuple(card.row_code for card in state.rows[i][ci]) for ci, c in enumerate(COLOURS)
                if state.rows[i][ci]}
        wish = {k: n for k, n in zip(WISH_KEYS, state.wish[i]) if n}
        extra = {}
        if face_down:
            extra["wish_face_down"] = sum(wish.values())
            wish = {}
        seats[seat] = SeatObservation(state.players[i], rows, 0, wish, (), extra)
    tops = {c: (pile[-1].row_code if pile else None) for c, pile in zip(COLOURS, state.discards)}
    extra = {"wish_face_down": True} if face_down else {}
    return Observation("keltis", board.name, True, None, pawns, state.tiles_on_board(), seats, tops,
                       {"pawns": 1.0, "tiles": 1.0, "rows": 1.0}, extra)


# ---- rule-breaking moves for tests and the simulator ------------------------------------------
def random_illegal_move(state: GameState, rng: random.Random) -> tuple[Move, str] | None:
    """A move that could happen on a real table but breaks a rule, and the violation code it must raise.

    Covers row-order, wrong-colour, end-stone-overflow, two-steps, second-pawn-on-path (base),
    pawn-not-moved, out-of-turn, tile-not-taken, wish-not-taken, draw-count, draw-own-discard,
    two-cards, clover-not-used, discard-tile-not-used, row-changed and game-over, as far as the
    state allows. A code is chosen uniformly among those possible, then a move for it.
    """
    cands = _illegal_candidates(state)
    if not cands:
        return None
    code = rng.choice(sorted(cands))
    return rng.choice(cands[code]), code


def _illegal_candidates(state: GameState) -> dict[str, list[Move]]:
    info = board_info(state.board)
    i, seat = state.turn_index, state.turn
    hand, own = state.hands[i], state.pawns[i]
    out: dict[str, list[Move]] = {}

    def add(code: str, move: Move) -> None:
        out.setdefault(code, []).append(move)

    if state.game_over:
        for j, s in enumerate(state.seats):
            for card in dict.fromkeys(state.hands[j]):
                add("game-over", Discard(s, card))
        if state.draw_pile:
            add("game-over", Draw(seat, DRAW_PILE))
        return out
    for j, other in enumerate(state.seats):
        if j != i:
            for card in dict.fromkeys(state.hands[j]):
                add("out-of-turn", Discard(other, card))

    def lands_without_ending(frm: str, to: str) -> bool:
        # The fifth goal pawn ends the game before its tile acts (RULES §1 End).
        return not (to in info.goal and frm not in info.goal and state.goal_pawns + 1 >= GOAL_PAWNS_TO_END)

    def wish_code(frm: str, to: str) -> str | None:
        """The code for leaving the wish stone that landing on `to` gives, if any."""
        if not lands_without_ending(frm, to):
            return None
        k = info.spot_index.get(to)
        code = state.tiles[k] if k is not None else None
        if code is not None and code.startswith("wish-"):
            colour = code[5:]
            if info.base or colour == "any" or state.settings.wish_tile_taken:
                return "tile-not-taken"
            if state.wish_piles[COLOUR_INDEX[colour]] > 0:
                return "wish-not-taken"
        pile = info.pile_colour.get(to)
        if pile is not None and state.wish_piles[COLOUR_INDEX[pile]] > 0:
            return "wish-not-taken"
        return None

    phase = state.phase
    if phase == "play":
        if state.draw_pile:
            add("draw-count", Draw(seat, DRAW_PILE))
        for card in dict.fromkeys(hand):
            ci = COLOUR_INDEX[card.colour]  # type: ignore[index]
            targets = lay_targets(info, own, ci)
            in_order = fits(state.row_states[i][ci], card.value)  # type: ignore[arg-type]
            if not in_order:
                for pawn, to in targets:
                    add("row-order", LayCard(seat, card, pawn, to))
                continue
            if targets:
                add("pawn-not-moved", LayCard(seat, card, None, None))
            for pawn, to in targets:
                code = wish_code(own[pawn], to)
                if code:
                    add(code, LayCard(seat, card, pawn, to, take=False))
                for far in _two_ahead(info, to, card.colour):
                    add("two-steps", LayCard(seat, card, pawn, far))
            on_end = info.end_of[card.colour] in own
            if info.base:
                path_pawn = next((k for k, s in enumerate(own) if s != info.start and info.colour[s] == card.colour),
                                 None)
                if path_pawn is not None:
                    for k, s in _distinct_pawns(own):
                        if s == info.start:
                            add("second-pawn-on-path", LayCard(seat, card, k, info.first[card.colour]))
                if not on_end:
                    for k, s in enumerate(own):
                        if s != info.start and s not in info.end_stones and info.colour[s] != card.colour:
                            add("wrong-colour", LayCard(seat, card, k, info.next[s][0]))
            else:
                for k, s in _distinct_pawns(own):
                    for n in info.next[s]:
                        if info.colour[n] not in ("joker", card.colour):
                            add("end-stone-overflow" if on_end else "wrong-colour", LayCard(seat, card, k, n))
    elif phase == "draw":
        for card in dict.fromkeys(hand):
            add("two-cards", Discard(seat, card))
        for ci, pos in state.turn_discards:
            if pos == len(state.discards[ci]) - 1:
                add("draw-own-discard", Draw(seat, COLOURS[ci]))
    elif phase == "clover":
        if not info.base:
            add("clover-not-used", SkipClover(seat))
        for pawn, to in clover_targets(info, own):
            code = wish_code(own[pawn], to)
            if code:
                add(code, CloverStep(seat, pawn, to, take=False))
            for far in info.next[to]:
                add("two-steps", CloverStep(seat, pawn, far))
    elif phase == "discard-tile":
        if not state.settings.discard_tile_optional:
            add("discard-tile-not-used", SkipTileDiscard(seat))
        for row in state.rows[i]:
            for card in dict.fromkeys(row[:-1]):
                if card != row[-1]:
                    add("row-changed", TileDiscard(seat, card, True))
    return out


def _two_ahead(info, to: str, colour: str | None) -> list[str]:
    """Stones two steps from a pawn's legal target that a card of `colour` could name as its goal."""
    if info.base:
        return list(info.next[to][:1])
    return [n for n in info.next[to] if info.colour[n] in ("joker", colour)]


def _distinct_pawns(own: tuple[str, ...]) -> list[tuple[int, str]]:
    out, seen = [(BIG, own[BIG])], set()
    for k in range(1, len(own)):
        if own[k] not in seen:
            seen.add(own[k])
            out.append((k, own[k]))
    return out


__all__ = [
    "Settings", "GameState", "Transition", "GameRecord", "Move", "LayCard", "Discard", "CloverStep", "SkipClover",
    "TileDiscard", "SkipTileDiscard", "Draw", "MOVE_KINDS", "CARD", "new_game", "legal_moves", "apply_move",
    "random_illegal_move", "observe", "score", "play_random_game", "replay", "move_from_json", "random_policy",
    "steady_policy", "Policy", "DEMO_POLICY",
]
