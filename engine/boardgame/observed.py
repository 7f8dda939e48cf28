"""The board game as a camera sees it (RULES §1–2, FORMATS §2): scoring one observed state and
checking the change between two observed states.

The check is stateless: it knows only the two observations (and, optionally, the rule settings
and whose turn it is). It reports what is *visible*: a camera never sees hands, the draw pile or
points-tile points, so a card appearing in a row is "laid", and a discard pile whose top changed
was discarded on or drawn from. Whatever a legal turn could explain is not a violation; whatever
no legal turn explains is reported with a stable code (engine/violations.py) and a sentence.

How a change is explained: for each player the pawns that left a stone are paired with the pawns
that arrived (fewest steps first); each forward move is a chain of one-stone steps. Each step must
be paid for, in some order, by a card laid this turn (its colour must be the colour of the stone
entered; NWNZ joker stones take any colour; on the base board a card whose path is finished may
move another pawn) or by a clover landed on earlier in the turn. A small search finds the order
that breaks the fewest rules, and its steps decide which tiles and wish stones the turn gives.
"""
from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass
from itertools import product
from typing import Any, Iterable, Mapping, Sequence

from ..board import Board, bundled_board
from ..cards import COLOURS, SEATS, number
from ..errors import MalformedInput, ObservationError
from ..events import ChangeReport, Event
from ..observation import Observation
from ..rows import follow, replay_row
from ..scoring import ScorePart, ScoreSheet, sheet
from ..violations import Violation
from .rules import lay_targets
from .score import pawn_parts, points_parts, wish_parts
from .settings import Settings
from .state import COLOUR_INDEX, board_info

#: Five pawns in the goal area (all players together) end the game (RULES §1 End, §2 End).
GAME_END_PAWNS = 5
#: Every player has this many pawns (RULES §1 Components).
PAWNS_PER_PLAYER = 5
# Search limits: a change bigger than this is hopeless anyway; keep the check fast.
_MAX_ROUTES_PER_PAWN = 16
_MAX_ROUTE_COMBOS = 64
_MAX_ASSIGN = 7
_MAX_SEARCH_STEPS = 10
# Search costs: each broken rule costs _FAULT; an unpaid step that continues a pawn's move costs a
# little less, so that "one pawn went too far" is preferred to "another pawn moved without a card".
_FAULT = 4


# ---------------------------------------------------------------------------------------------
# Validation


def board_of(obs: Observation, source: str | None = None) -> Board:
    """The board an observation names (a bundled name or a board-file path)."""
    if not isinstance(obs.board, str):
        raise ObservationError(f"a board game observation needs a board, got {obs.board!r}", source=source,
                               field="board")
    try:
        return bundled_board(obs.board)
    except MalformedInput as exc:
        raise ObservationError(f"cannot load board {obs.board!r}: {exc}", source=source, field="board") from None


_VALIDATED: dict[int, tuple[weakref.ref, Board]] = {}


def validate_observation(obs: Observation, source: str | None = None) -> Board:
    """Check an observed board-game state against its board; returns the board.

    Raises ObservationError naming the field (e.g. pawns[3].stone) and the bad value: unknown
    stones, pawns of a colour no seat plays, cards that do not belong to the board game.
    An observation already checked is not checked again (a tracker compares each state twice).
    """
    hit = _VALIDATED.get(id(obs))
    if hit is not None and hit[0]() is obs:
        return hit[1]
    board = _validate(obs, source)
    if len(_VALIDATED) > 4096:  # many observations kept alive: forget, they are checked again if needed
        _VALIDATED.clear()
    key = id(obs)
    _VALIDATED[key] = (weakref.ref(obs, lambda _ref, key=key: _VALIDATED.pop(key, None)), board)
    return board


def _validate(obs: Observation, source: str | None) -> Board:
    if obs.game != "keltis":
        raise ObservationError(f"not a board game observation (game {obs.game!r})", source=source, field="game")
    if not obs.usable:
        raise ObservationError(f"the frame is marked unusable ({obs.reason}); it shows no state",
                               source=source, field="usable")
    board = board_of(obs, source)
    players = {s.player for s in obs.seats.values()}
    for i, p in enumerate(obs.pawns or ()):
        if p.stone not in board.stones:
            raise ObservationError(f"unknown stone {p.stone!r} (not on the {board.name} board)", source=source,
                                   field=f"pawns[{i}].stone")
        if p.player not in players:
            raise ObservationError(f"no seat plays {p.player!r} (seated: {', '.join(sorted(players)) or 'none'})",
                                   source=source, field=f"pawns[{i}].player")
    for stone, code in (obs.tiles or {}).items():
        if stone not in board.stones or board.stones[stone].kind == "start":
            raise ObservationError(f"unknown stone {stone!r} for a tile (not on the {board.name} board)",
                                   source=source, field=f"tiles.{stone}")
        if code == "wish-any" and board.ruleset != "base":
            raise ObservationError(f"the {board.name} board has no colourless wish tiles: {code!r}",
                                   source=source, field=f"tiles.{stone}")
        if code is not None and code.startswith("wish-") and code != "wish-any" and board.ruleset == "base":
            raise ObservationError(f"the base board's wish tiles have no colour: {code!r} (use 'wish-any')",
                                   source=source, field=f"tiles.{stone}")
    for seat, s in obs.seats.items():
        for colour, row in s.rows.items():
            for i, code in enumerate(row):
                if not code.isdigit():
                    raise ObservationError(f"{code!r} is a card-game card; board-game rows hold 0–10",
                                           source=source, field=f"seats.{seat}.rows.{colour}[{i}]")
    for pile, code in obs.discard_tops.items():
        if pile not in COLOURS:
            raise ObservationError(f"unknown discard pile {pile!r} (expected one of {', '.join(COLOURS)})",
                                   source=source, field=f"discard_tops.{pile}")
        if code is not None and not code.isdigit():
            raise ObservationError(f"{code!r} is not a board-game card (0–10)", source=source,
                                   field=f"discard_tops.{pile}")
    return board


def _settings(settings: Settings | Mapping[str, Any] | None) -> Settings:
    if settings is None:
        return Settings()
    if isinstance(settings, Settings):
        return settings
    return Settings.from_json(dict(settings))


# ---------------------------------------------------------------------------------------------
# Scoring


def score_observation(obs: Observation, points: Mapping[str, int] | None = None) -> ScoreSheet:
    """Score an observed state (RULES §1 Scoring, §2 Scoring) with the game model's part builders.

    points: seat → points-tile points scored so far (the camera cannot see them), added as
    category "tiles". The sheet is final when five pawns stand in the goal area.
    """
    board = validate_observation(obs)
    points = dict(points or {})
    unknown = sorted(set(points) - set(obs.seats))
    if unknown:
        raise MalformedInput(f"no such seat in the state: {', '.join(unknown)}", field="points")
    rows = []
    for seat in _seat_order(obs.seats):
        s = obs.seats[seat]
        parts = pawn_parts(board, ((p.stone, p.big) for p in obs.pawns or () if p.player == s.player))
        parts += points_parts(board, [(None, int(points.get(seat, 0)))])
        hidden = _hidden_wish(board, s)
        if board.ruleset == "base":
            parts += wish_parts("base", s.wish)
        else:
            parts += wish_parts(board.ruleset, {c: n for c, n in s.wish.items() if c in COLOURS})
            if hidden:
                # Face-down stones (variant wish_face_down): colours unknown to the camera, so they
                # are listed but not scored; the tracker scores them from the moves that took them.
                parts.append(ScorePart("wish", f"{hidden} face-down wish stone{'s' * (hidden != 1)}: colours not "
                                               "visible, not scored here", 0))
        rows.append((seat, s.player, parts))
    final = sum(1 for p in obs.pawns or () if board.in_goal(p.stone)) >= GAME_END_PAWNS
    return sheet(rows, final=final)


def _hidden_wish(board: Board, seat: Any) -> int:
    """NWNZ: wish stones whose colour the camera cannot see ("any", or the face-down count)."""
    if board.ruleset == "base":
        return 0
    extra = seat.extra.get("wish_face_down", 0)
    return seat.wish.get("any", 0) + (extra if isinstance(extra, int) and not isinstance(extra, bool) else 0)


def _seat_order(seats: Iterable[str]) -> list[str]:
    return sorted(seats, key=lambda s: SEATS.index(s) if s in SEATS else len(SEATS))


# ---------------------------------------------------------------------------------------------
# Words


def _where(board: Board, stone_id: str) -> str:
    stone = board.stones[stone_id]
    if stone.kind == "start":
        return "the start"
    colour = "grey joker" if stone.color == "joker" else stone.color
    return f"{stone.id} ({colour}, {stone.value:+d})" if stone.value else f"{stone.id} ({colour}, 0)"


def _tile_name(code: str) -> str:
    if code == "clover":
        return "clover"
    if code.startswith("points-"):
        return f"{code[7:]}-points tile"
    if code == "discard":
        return "discard-a-card tile"
    if code == "wish-any":
        return "wish-stone tile"
    return f"{code[5:]} wish-stone tile"


def _cards_text(cards: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{c} {v}" for c, v in cards)


def _pawn_word(big: bool) -> str:
    return "big pawn" if big else "small pawn"


# ---------------------------------------------------------------------------------------------
# Pawn matching


@dataclass(frozen=True)
class _Token:
    """One pawn in one observation (implicit: not listed, assumed still on the start)."""

    stone: str
    big: bool
    implicit: bool = False


@dataclass(frozen=True)
class _Match:
    """A pawn seen before at `src` and after at `dst` (either may be None: vanished/appeared)."""

    player: str
    src: _Token | None
    dst: _Token | None


def _tokens(board: Board, pawns: Iterable[Any], player: str) -> list[_Token]:
    """A player's pawns; when fewer than five are listed and none on the start, the missing ones are
    taken to stand on the start (a camera may not make out a crowded start stone)."""
    own = [_Token(p.stone, p.big) for p in pawns if p.player == player]
    start = board.start.id
    if len(own) < PAWNS_PER_PLAYER and not any(t.stone == start for t in own):
        need_big = not any(t.big for t in own)
        for i in range(PAWNS_PER_PLAYER - len(own)):
            own.append(_Token(start, need_big and i == 0, True))
    return own


def _move_cost(board: Board, a: _Token, b: _Token) -> int:
    forward, backward = board.steps(a.stone, b.stone), board.steps(b.stone, a.stone)
    if forward is not None:
        cost = forward
    else:  # backwards, or to a stone no forward step reaches: both far less likely than a step
        cost = 60 + backward if backward is not None else 90
    if a.big != b.big:
        # A pawn read as the other size on the same stone is likelier than pawns jumping around.
        cost += 25 if a.stone == b.stone else 100
    if b.implicit and not a.implicit:
        cost += 80  # a pawn "returning" to an unseen start: rather call it vanished
    return cost


def _assign(board: Board, lost: list[_Token], gained: list[_Token]) -> list[tuple[_Token | None, _Token | None]]:
    """Pair lost with gained pawns at the least total cost; leftovers pair with None."""
    if not lost or not gained:
        return [(t, None) for t in lost] + [(None, t) for t in gained]
    flip = len(lost) > len(gained)
    small, large = (gained, lost) if flip else (lost, gained)
    cost = [[_move_cost(board, big, sm) if flip else _move_cost(board, sm, big) for big in large] for sm in small]
    if len(large) <= _MAX_ASSIGN:
        memo: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}

        def best(i: int, used: int) -> tuple[int, tuple[int, ...]]:
            if i == len(small):
                return 0, ()
            key = (i, used)
            if key not in memo:
                options = []
                for j in range(len(large)):
                    if not used & (1 << j):
                        c, rest = best(i + 1, used | (1 << j))
                        options.append((c + cost[i][j], (j, *rest)))
                memo[key] = min(options)
            return memo[key]

        choice = best(0, 0)[1]
    else:  # greedy for absurdly large differences
        taken: set[int] = set()
        picks = []
        for i in range(len(small)):
            j = min((j for j in range(len(large)) if j not in taken), key=lambda j: cost[i][j])
            taken.add(j)
            picks.append(j)
        choice = tuple(picks)
    pairs: list[tuple[_Token | None, _Token | None]] = []
    for i, j in enumerate(choice):
        pairs.append((large[j], small[i]) if flip else (small[i], large[j]))
    for j in range(len(large)):
        if j not in choice:
            pairs.append((large[j], None) if flip else (None, large[j]))
    return pairs


def _match_pawns(board: Board, before: Observation, after: Observation, player: str) -> list[_Match]:
    b_tokens, a_tokens = _tokens(board, before.pawns or (), player), _tokens(board, after.pawns or (), player)
    # Pawns on the same stone with the same size did not move (drop implicit/explicit distinction).
    b_count = Counter((t.stone, t.big) for t in b_tokens)
    a_count = Counter((t.stone, t.big) for t in a_tokens)
    lost: list[_Token] = []
    gained: list[_Token] = []
    for key, n in (b_count - a_count).items():
        same = [t for t in b_tokens if (t.stone, t.big) == key]
        lost.extend(sorted(same, key=lambda t: t.implicit)[:n])
    for key, n in (a_count - b_count).items():
        same = [t for t in a_tokens if (t.stone, t.big) == key]
        gained.extend(sorted(same, key=lambda t: t.implicit)[:n])
    lost.sort(key=lambda t: (t.stone, t.big))
    gained.sort(key=lambda t: (t.stone, t.big))
    return [_Match(player, src, dst) for src, dst in _assign(board, lost, gained)]


def _routes(board: Board, src: str, dst: str, k: int) -> list[tuple[str, ...]]:
    """Every chain of k forward steps from src to dst (the stones entered, in order)."""
    out: list[tuple[str, ...]] = []

    def walk(cur: str, left: int, acc: tuple[str, ...]) -> None:
        if len(out) >= _MAX_ROUTES_PER_PAWN:
            return
        if left == 0:
            if cur == dst:
                out.append(acc)
            return
        for nxt in board.stones[cur].next:
            if board.steps(nxt, dst) == left - 1:
                walk(nxt, left - 1, acc + (nxt,))

    walk(src, k, ())
    return out


# ---------------------------------------------------------------------------------------------
# Step search


@dataclass(frozen=True)
class _Step:
    """One stone of one pawn's move and what paid for it."""

    pawn: int            # index into the seat's forward moves
    src: str
    dst: str
    pay: str             # "card", "clover", "overflow" (base: a finished path's card) or "none"
    card: tuple[str, str] | None
    fault: str | None    # violation code for this step, if it breaks a rule
    applied: bool        # the tile / wish pile on dst acts (not for the game-ending step)
    ends_game: bool


@dataclass
class _SeatPlan:
    steps: tuple[_Step, ...]
    cost: int
    clover_unused: bool


class _Ctx:
    """What the step search of one seat needs to know."""

    def __init__(self, board: Board, tiles: Mapping[str, str | None], goal_before: int,
                 overflow_colours: frozenset[str], clover_must: bool, any_pawn_can_move: bool):
        self.board = board
        self.tiles = tiles
        self.goal_before = goal_before
        self.overflow_colours = overflow_colours
        self.clover_must = clover_must
        self.any_pawn_can_move = any_pawn_can_move


def _card_fault(ctx: _Ctx, card_colour: str, src: str, stone_id: str) -> tuple[str, str | None]:
    """How a card of `card_colour` pays for the step src → stone_id: (pay kind, fault code or None)."""
    colour = ctx.board.stones[stone_id].color
    if colour == card_colour or colour == "joker":
        return "card", None
    if card_colour in ctx.overflow_colours:
        # RULES §1: a finished path's colour moves another pawn already on a path (the game model's
        # reading: not one from the start); RULES §2: never on NWNZ.
        if ctx.board.ruleset == "base" and src != ctx.board.start.id:
            return "overflow", None
        return "card", "end-stone-overflow"
    return "card", "wrong-colour"


def _segments(srcs: Sequence[str], routes: Sequence[tuple[str, ...]], bigs: Sequence[bool],
              occupied: Mapping[bool, set[str]]) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """Cut each move where it passes a stone on which another own pawn of the same size stood.

    Pawns of one size look alike: "one pawn went a → b → c" is the same picture as "the pawn on b
    went to c, then the pawn on a went to b", in either order. Each piece is (move index, offset of
    its first step in the move, source stone, stones entered).
    """
    out = []
    for i, (src, route) in enumerate(zip(srcs, routes)):
        start, offset = src, 0
        for k, stone in enumerate(route[:-1]):
            if stone in occupied[bigs[i]]:
                out.append((i, offset, start, route[offset:k + 1]))
                start, offset = stone, k + 1
        out.append((i, offset, start, route[offset:]))
    return out


def _greedy(ctx: _Ctx, segments: Sequence[tuple[int, int, str, tuple[str, ...]]],
            cards: Sequence[tuple[str, str]]) -> _SeatPlan:
    """A plan for changes too big to search (no legal turn moves that much): steps in order, each
    paid by a clover credit, else a fitting card, else any card, else nothing."""
    steps, credits, unused_cards, cost = [], 0, list(cards), 0
    for move, offset, first, route in segments:
        src = first
        for p, dst in enumerate(route):
            pay, card, fault = "none", None, "two-steps" if p + offset else "no-card"
            if credits:
                pay, fault, credits = "clover", None, credits - 1
            elif unused_cards:
                ranked = sorted(unused_cards, key=lambda c: _card_fault(ctx, c[0], src, dst)[1] is not None)
                card = ranked[0]
                unused_cards.remove(card)
                pay, fault = _card_fault(ctx, card[0], src, dst)
            cost += _FAULT if fault else 0
            if ctx.tiles.get(dst) == "clover":
                credits += 1
            steps.append(_Step(move, src, dst, pay, card, fault, True, False))
            src = dst
    return _SeatPlan(tuple(steps), cost, False)


def _search(ctx: _Ctx, segments: Sequence[tuple[int, int, str, tuple[str, ...]]],
            cards: Sequence[tuple[str, str]]) -> _SeatPlan:
    """The order of steps and payments that breaks the fewest rules."""
    board = ctx.board
    if sum(len(seg[3]) for seg in segments) > _MAX_SEARCH_STEPS or len(cards) > 4:
        return _greedy(ctx, segments, cards)
    memo: dict[tuple, tuple[int, tuple[_Step, ...], bool]] = {}

    def go(progress: tuple[int, ...], credits: int, used: int, ended: bool, goal: int
           ) -> tuple[int, tuple[_Step, ...], bool]:
        key = (progress, credits, used, ended)
        hit = memo.get(key)
        if hit is not None:
            return hit
        best: tuple[int, tuple[_Step, ...], bool] | None = None
        for i, (move, offset, first, route) in enumerate(segments):
            p = progress[i]
            if p == len(route):
                continue
            src = first if p == 0 else route[p - 1]
            dst = route[p]
            enters = not board.in_goal(src) and board.in_goal(dst)
            new_goal = goal + (1 if enters else 0)
            ends = not ended and enters and new_goal >= GAME_END_PAWNS
            applied = not ended and not ends
            gain = 1 if applied and ctx.tiles.get(dst) == "clover" else 0
            late = _FAULT if ended else 0
            nxt_progress = progress[:i] + (p + 1,) + progress[i + 1:]
            options: list[tuple[int, str, tuple[str, str] | None, str | None, int, int]] = []
            if credits and (ctx.board.ruleset != "base" or src != board.start.id):
                # Base: a clover moves a pawn already on a path (RULES §1 Tiles); NWNZ: any pawn.
                options.append((0, "clover", None, None, credits - 1, used))
            seen_colours: set[str] = set()
            for j, card in enumerate(cards):
                if used & (1 << j) or card[0] in seen_colours:
                    continue
                seen_colours.add(card[0])
                pay, fault = _card_fault(ctx, card[0], src, dst)
                options.append((_FAULT if fault else 0, pay, card, fault, credits, used | (1 << j)))
            if p + offset > 0:  # an unpaid step that continues a move: the pawn went too far
                options.append((_FAULT - 1, "none", None, "two-steps", credits, used))
            else:
                options.append((_FAULT, "none", None, "no-card", credits, used))
            for cost, pay, card, fault, cr, us in options:
                sub = go(nxt_progress, cr + gain, us, ended or ends, new_goal)
                total = cost + late + sub[0]
                if best is not None and total >= best[0]:
                    continue
                step = _Step(move, src, dst, pay, card, fault if fault else ("game-over" if late else None),
                             applied, ends)
                best = (total, (step, *sub[1]), sub[2])
                if total == 0:
                    break
            if best is not None and best[0] == 0:
                break
        if best is None:  # every pawn arrived
            unused = bool(credits) and ctx.clover_must and not ended and ctx.any_pawn_can_move
            best = (_FAULT if unused else 0, (), unused)
        memo[key] = best
        return best

    cost, steps, unused = go(tuple(0 for _ in segments), 0, 0, ctx.goal_before >= GAME_END_PAWNS, ctx.goal_before)
    return _SeatPlan(steps, cost, unused)


# ---------------------------------------------------------------------------------------------
# The check


@dataclass
class _SeatChange:
    """What one seat visibly did."""

    seat: str
    player: str
    laid: list[tuple[str, str]]                      # (colour, value) in row order
    row_faults: list[Violation]
    row_removed: list[tuple[str, str]]               # NWNZ: top cards gone from a row
    moves: list[_Match]                              # forward moves (src/dst both set)
    pawn_faults: int = 0                             # pawns that vanished, appeared or jumped
    plan: _SeatPlan | None = None
    phantom: tuple[str, str] | None = None           # NWNZ: card laid and discarded again

    @property
    def active(self) -> bool:
        return bool(self.laid or self.row_faults or self.row_removed or self.moves or self.pawn_faults)


class _Checker:
    """One check_change run (holds the two observations and collects changes and violations)."""

    def __init__(self, before: Observation, after: Observation, settings: Settings, turn: str | None):
        self.board = validate_observation(before)
        board_after = validate_observation(after)
        if board_after.name != self.board.name:
            raise ObservationError(f"the states show different boards ({self.board.name} vs {board_after.name})",
                                   field="board")
        self.before, self.after = before, after
        self.settings = settings
        self.turn = turn
        self.nwnz = self.board.ruleset == "nwnz"
        self.changes: list[Event] = []
        self.violations: list[Violation] = []

    # -- helpers -----------------------------------------------------------------------------
    def who(self, seat: str | None, player: str | None = None) -> str:
        if seat is None:
            return f"the {player} player (no seat)" if player else "someone"
        return f"{seat} ({self.after.seats.get(seat, self.before.seats.get(seat)).player})"  # type: ignore[union-attr]

    def change(self, kind: str, seat: str | None, text: str, **data: Any) -> None:
        self.changes.append(Event(kind, seat, text, data))

    def violate(self, code: str, seat: str | None, text: str, **details: Any) -> None:
        self.violations.append(Violation(code, text, seat, details))

    def seat_of(self, player: str) -> str | None:
        return self.before.seat_of_player(player) or self.after.seat_of_player(player)

    # -- the parts ---------------------------------------------------------------------------
    def run(self) -> ChangeReport:
        board, before, after = self.board, self.before, self.after
        goal_before = sum(1 for p in before.pawns or () if board.in_goal(p.stone))
        goal_after = sum(1 for p in after.pawns or () if board.in_goal(p.stone))
        self.check_seats()
        seat_changes = {seat: self.rows_of(seat) for seat in _seat_order(before.seats) if seat in after.seats}
        self.pawns(seat_changes)
        self.plan_seats(seat_changes, goal_before)
        self.cards_without_pawns(seat_changes)
        landings = self.describe_steps(seat_changes)
        self.tiles_and_wish(seat_changes, landings)
        self.discards(seat_changes, landings)
        self.who_played(seat_changes)
        if goal_before < GAME_END_PAWNS <= goal_after:
            self.change("game-ended", None, f"{goal_after} pawns stand in the goal area: the game is over")
        if goal_before >= GAME_END_PAWNS and self.changes:
            # RULES §1 End: nothing may change after the fifth pawn entered the goal area.
            what = "; ".join(c.text for c in self.changes[:3]) + ("; …" if len(self.changes) > 3 else "")
            self.violations = []  # one sentence says it all
            self.violate("game-over", None, f"the game was already over ({goal_before} pawns in the goal area), "
                                            f"but the table changed: {what}", pawns_in_goal=goal_before)
        return ChangeReport(tuple(self.changes), tuple(_dedupe(self.violations)))

    def check_seats(self) -> None:
        b, a = self.before.seats, self.after.seats
        for seat in _seat_order(set(b) | set(a)):
            if seat not in a:
                self.violate("unexplained-change", seat, f"the seat {seat} ({b[seat].player}) is no longer seen")
            elif seat not in b:
                self.violate("unexplained-change", seat, f"a player appeared at the {seat} seat ({a[seat].player})")
            elif a[seat].player != b[seat].player:
                self.violate("unexplained-change", seat,
                             f"the {seat} seat changed player colour from {b[seat].player} to {a[seat].player}")

    def rows_of(self, seat: str) -> _SeatChange:
        """Cards laid, and rows changed, at one seat (RULES §1 Card rows)."""
        b, a = self.before.seats[seat], self.after.seats[seat]
        change = _SeatChange(seat, a.player, [], [], [], [])
        for colour in COLOURS:
            old, new = b.rows.get(colour, ()), a.rows.get(colour, ())
            if old == new:
                continue
            if new[:len(old)] == old:
                state, _ = replay_row([number(colour, int(v)) for v in old], colour, seat=seat)
                for v in new[len(old):]:
                    state, problem = follow(state, number(colour, int(v)), colour, seat=seat)
                    change.laid.append((colour, v))
                    self.change("card-laid", seat, f"{self.who(seat)} laid a {colour} {v} in the {colour} row",
                                colour=colour, card=v, row=list(new))
                    if problem is not None:
                        self.violations.append(problem)
            elif self.nwnz and new == old[:-1]:
                # NWNZ discard tile: the top card of a row may be discarded (checked with the landings).
                change.row_removed.append((colour, old[-1]))
                self.change("row-card-discarded", seat,
                            f"{self.who(seat)} took the top card {old[-1]} off the {colour} row",
                            colour=colour, card=old[-1], row=list(new))
            else:
                extra = len(new) - len(old)
                if extra > 0:  # the cards beyond the old length were played this turn
                    change.laid.extend((colour, v) for v in new[len(old):])
                text = (f"{self.who(seat)}'s {colour} row changed from {', '.join(old) or 'nothing'} to "
                        f"{', '.join(new) or 'nothing'}")
                self.change("row-changed", seat, text, colour=colour, before=list(old), after=list(new))
                change.row_faults.append(Violation(
                    "row-changed", f"{text}: cards already laid stay where they are", seat,
                    {"colour": colour, "before": list(old), "after": list(new)}))
        self.violations.extend(change.row_faults)
        return change

    def pawns(self, seat_changes: dict[str, _SeatChange]) -> None:
        """Pair the pawns of each player and report those that cannot have moved legally."""
        board = self.board
        players = {s.player for s in self.before.seats.values()} | {s.player for s in self.after.seats.values()}
        for player in sorted(players):
            seat = self.seat_of(player)
            holder = seat_changes.get(seat) if seat else None
            resized: list[str] = []
            for m in _match_pawns(board, self.before, self.after, player):
                src, dst = m.src, m.dst
                who = self.who(seat, player)
                if src is None or dst is None or (dst.implicit and not src.implicit):
                    gone = src if dst is None or dst.implicit else None
                    if gone is not None:
                        text = f"{who}'s {_pawn_word(gone.big)} on {_where(board, gone.stone)} is gone"
                        self.change("pawn-vanished", seat, text, stone=gone.stone, big=gone.big)
                    else:
                        assert dst is not None
                        text = f"a new {player} {_pawn_word(dst.big)} stands on {_where(board, dst.stone)}"
                        self.change("pawn-appeared", seat, text, stone=dst.stone, big=dst.big)
                    self.violate("pawn-appeared", seat, f"{text}: every player has exactly 5 pawns "
                                 f"(1 big, 4 small), and pawns never leave the board", player=player)
                    if holder is not None:
                        holder.pawn_faults += 1
                    continue
                if src.big != dst.big:
                    text = (f"the {_pawn_word(src.big)} on {_where(board, src.stone)} became a "
                            f"{_pawn_word(dst.big)}" + (f" on {_where(board, dst.stone)}" if dst.stone != src.stone
                                                        else ""))
                    resized.append(text)
                    if dst.stone == src.stone:
                        self.change("pawn-changed", seat, f"{who}: {text}", stone=src.stone)
                        continue
                k = board.steps(src.stone, dst.stone)
                if k is not None and k > 0:
                    if holder is not None:
                        holder.moves.append(m)
                    continue
                # Not forward: backwards, or to a stone no forward step reaches.
                word = _pawn_word(src.big)
                text = f"{who}'s {word} went from {_where(board, src.stone)} to {_where(board, dst.stone)}"
                self.change("pawn-moved", seat, text, **{"from": src.stone, "to": dst.stone}, big=dst.big)
                if board.steps(dst.stone, src.stone) is not None:
                    self.violate("pawn-backwards", seat, f"{text}: pawns only move forward, never back toward "
                                 "the start", **{"from": src.stone, "to": dst.stone})
                else:
                    self.violate("pawn-not-adjacent", seat, f"{text}: that stone is not ahead of it on "
                                 f"{'its path' if board.ruleset == 'base' else 'any path'}; a pawn moves one "
                                 "stone forward along the lines", **{"from": src.stone, "to": dst.stone})
                if holder is not None:
                    holder.pawn_faults += 1
            if resized:
                self.violate("big-pawn-changed", seat, f"{self.who(seat, player)}: {'; '.join(resized)}: each player "
                             "has one big pawn, chosen when it enters a path, and it stays big", player=player)
        if board.ruleset == "base":
            self.second_pawn_on_path()

    def second_pawn_on_path(self) -> None:
        """RULES §1 Turn: a player has at most one pawn per path (base board)."""
        board = self.board

        def per_path(obs: Observation) -> Counter:
            return Counter((p.player, board.stones[p.stone].color) for p in obs.pawns or ()
                           if board.stones[p.stone].kind != "start")

        b, a = per_path(self.before), per_path(self.after)
        for (player, colour), n in sorted(a.items()):
            if n > 1 and n > b.get((player, colour), 0):
                seat = self.seat_of(player)
                stones = sorted(p.stone for p in self.after.pawns or ()
                                if p.player == player and board.stones[p.stone].color == colour)
                self.violate("second-pawn-on-path", seat,
                             f"{self.who(seat, player)} has {n} pawns on the {colour} path ({', '.join(stones)}): "
                             "a player has at most one pawn per path", colour=colour, stones=stones)

    def cards_without_pawns(self, seat_changes: dict[str, _SeatChange]) -> None:
        """A card laid with no pawn moved (RULES §1 Turn: lay it and move a pawn one stone)."""
        board = self.board
        info = board_info(board)
        for change in seat_changes.values():
            if not change.laid or change.moves or change.pawn_faults or change.phantom:
                continue
            tokens = _tokens(board, self.before.pawns or (), change.player)
            tokens.sort(key=lambda t: not t.big)
            own = tuple(t.stone for t in tokens[:PAWNS_PER_PLAYER])
            # (a table showing the player without one big and four small pawns — a misread — cannot
            # say which pawn could have moved: the card is taken as one that should have moved one)
            whole = len(own) == PAWNS_PER_PLAYER and tokens[0].big and not any(t.big for t in tokens[1:])
            who = self.who(change.seat)
            for colour, v in change.laid[:1]:
                if not whole or lay_targets(info, own, COLOUR_INDEX[colour]):
                    self.violate("pawn-not-moved", change.seat, f"{who} laid a {colour} {v} but moved no pawn: "
                                 "the card moves a pawn one stone (RULES §1 Turn)", card=v, colour=colour)
                else:
                    self.violate("no-pawn-to-move", change.seat, f"{who} laid a {colour} {v}, but no pawn can move "
                                 "with it: the card should have been discarded", card=v, colour=colour)

    def plan_seats(self, seat_changes: dict[str, _SeatChange], goal_before: int) -> None:
        """Find, for each seat that moved pawns, how its cards and clovers paid for the steps."""
        board, tiles = self.board, self.before.tiles or {}
        for change in seat_changes.values():
            if not change.moves and not change.laid:
                continue
            mine = [p for p in self.before.pawns or () if p.player == change.player]
            overflow = frozenset(c for c, sid in board.end_stones.items() if any(p.stone == sid for p in mine))
            still = [p for p in self.after.pawns or () if p.player == change.player]
            can_move = (any(board.stones[p.stone].next for p in still)
                        or len(still) < PAWNS_PER_PLAYER)  # unseen pawns wait on the start
            ctx = _Ctx(board, tiles, goal_before, overflow, self.nwnz, can_move)
            srcs = [m.src.stone for m in change.moves]  # type: ignore[union-attr]
            options = [_routes(board, m.src.stone, m.dst.stone,  # type: ignore[union-attr]
                               board.steps(m.src.stone, m.dst.stone) or 0) for m in change.moves]  # type: ignore[union-attr]
            bigs = [m.src.big for m in change.moves]  # type: ignore[union-attr]
            occupied = {size: {p.stone for p in mine if p.big == size} for size in (True, False)}
            best: _SeatPlan | None = None
            for combo in _limited_product(options):
                plan = _search(ctx, _segments(srcs, combo, bigs, occupied), change.laid)
                plan.cost += _FAULT * self.landing_cost(change, plan)
                if best is None or plan.cost < best.cost:
                    best = plan
                if best.cost == 0:
                    break
            if best is not None and best.cost > 0 and self.nwnz and not change.laid:
                # NWNZ: a card laid and discarded again from the row top (discard tile) leaves no trace
                # in the row; its value is then the top of that colour's discard pile (which may look
                # unchanged, when the other copy of that card lay on top before).
                for colour in COLOURS:
                    top_a = self.after.discard_tops.get(colour)
                    if top_a is None:
                        continue
                    row = self.after.seats[change.seat].rows.get(colour, ())
                    state, _ = replay_row([number(colour, int(v)) for v in row], colour)
                    if follow(state, number(colour, int(top_a)), colour)[1] is not None:
                        continue
                    for combo in _limited_product(options):
                        plan = _search(ctx, _segments(srcs, combo, bigs, occupied), [(colour, top_a)])
                        lands_on_discard = any(s.applied and tiles.get(s.dst) == "discard" for s in plan.steps)
                        plan.cost += _FAULT * self.landing_cost(change, plan)
                        if lands_on_discard and plan.cost < best.cost:
                            best, change.phantom = plan, (colour, top_a)
            change.plan = best

    def landing_cost(self, change: _SeatChange, plan: _SeatPlan) -> int:
        """How many tile/wish rules a plan's landings would break (to choose between routes)."""
        tiles_b, tiles_a = self.before.tiles or {}, self.after.tiles or {}
        cost = 0
        for s in plan.steps:
            code = tiles_b.get(s.dst)
            if not s.applied or code is None:
                continue
            if self.tile_taken(code):
                cost += tiles_a.get(s.dst) is not None
            else:
                cost += tiles_a.get(s.dst) != code
        return cost

    def tile_taken(self, code: str) -> bool:
        """Does landing take this tile off the board (RULES §1 Tiles; §2 variant tiles_taken)?"""
        if not code.startswith("wish-"):
            return False
        return self.board.ruleset == "base" or self.settings.wish_tile_taken

    def describe_steps(self, seat_changes: dict[str, _SeatChange]) -> dict[str, list[_Step]]:
        """Events for every step, and the violations of the chosen plans. Returns landings per seat."""
        board = self.board
        landings: dict[str, list[_Step]] = {}
        for change in seat_changes.values():
            plan = change.plan
            if plan is None:
                continue
            seat, who = change.seat, self.who(change.seat)
            if change.phantom:
                colour, v = change.phantom
                self.change("card-laid", seat, f"{who} laid a {colour} {v} and discarded it again from the row "
                            "(discard-a-card tile)", colour=colour, card=v, discarded=True)
            bigs = {i: m.src.big for i, m in enumerate(change.moves)}  # type: ignore[union-attr]
            faults_by_pawn: dict[int, list[_Step]] = {}
            for s in plan.steps:
                word = _pawn_word(bigs[s.pawn])
                frm, to = _where(board, s.src), _where(board, s.dst)
                if s.src == board.start.id:
                    text = f"{who} brought a {word} from the start onto {to}"
                    kind = "pawn-entered"
                else:
                    text = f"{who} moved the {word} from {frm} to {to}"
                    kind = "pawn-moved"
                if s.pay == "clover":
                    text += " (clover step)"
                elif s.pay == "overflow":
                    text += f" with the {s.card[0]} card: the {s.card[0]} path is finished"  # type: ignore[index]
                self.change(kind, seat, text, **{"from": s.src, "to": s.dst}, big=bigs[s.pawn], paid=s.pay,
                            card=list(s.card) if s.card else None)
                if s.pay == "overflow":
                    self.change("end-stone-overflow", seat,
                                f"{who}'s {s.card[0]} pawn stands on the {s.card[0]} end stone, so the "  # type: ignore[index]
                                f"{s.card[0]} {s.card[1]} moved another pawn", colour=s.card[0])  # type: ignore[index]
                if s.fault:
                    faults_by_pawn.setdefault(s.pawn, []).append(s)
                if s.ends_game:
                    tile = (self.before.tiles or {}).get(s.dst)
                    self.change("goal-reached", seat, f"the fifth pawn entered the goal area on {to}: the game ends"
                                + (f" (the {_tile_name(tile)} there does not act)" if tile else ""), stone=s.dst)
            for pawn, faults in faults_by_pawn.items():
                self.report_step_faults(change, pawn, faults, bigs[pawn])
            if plan.clover_unused:
                last = next((s for s in reversed(plan.steps) if (self.before.tiles or {}).get(s.dst) == "clover"),
                            None)
                where = f" on {_where(board, last.dst)}" if last else ""
                self.violate("clover-not-used", seat, f"{who} landed on a clover{where} but made no clover step: "
                             "on this board the clover step must be made (RULES §2 Tiles)")
            landings[seat] = [s for s in plan.steps if s.applied]
        return landings

    def report_step_faults(self, change: _SeatChange, pawn: int, faults: list[_Step], big: bool) -> None:
        board, seat, who = self.board, change.seat, self.who(change.seat)
        m = change.moves[pawn]
        src, dst = m.src.stone, m.dst.stone  # type: ignore[union-attr]
        k = board.steps(src, dst)
        word = _pawn_word(big)
        route = f"{_where(board, src)} → {_where(board, dst)}"
        for s in faults:
            if s.fault in ("wrong-colour", "end-stone-overflow"):
                colour, v = s.card  # type: ignore[misc]
                stone = board.stones[s.dst]
                if s.fault == "end-stone-overflow":
                    self.violate("end-stone-overflow", seat,
                                 f"{who} used the {colour} {v} to move the {word} onto {_where(board, s.dst)}: "
                                 f"unlike the base game, a pawn on the {colour} end stone does not let {colour} "
                                 "cards move other pawns (RULES §2 Movement)", card=[colour, v], stone=s.dst)
                elif board.ruleset == "base":
                    self.violate("wrong-colour", seat,
                                 f"{who} laid a {colour} {v} but moved the {word} on the {stone.color} path "
                                 f"({_where(board, s.src)} → {_where(board, s.dst)}): a card moves the pawn on "
                                 "its own colour's path", card=[colour, v], stone=s.dst)
                else:
                    self.violate("wrong-colour", seat,
                                 f"{who} laid a {colour} {v} but the {word} entered a {stone.color} stone "
                                 f"({_where(board, s.dst)}): the card must match the colour of the stone entered "
                                 "(grey joker stones take any)", card=[colour, v], stone=s.dst)
        unpaid = [s for s in faults if s.fault in ("no-card", "two-steps")]
        if unpaid:
            paid = any(s.pawn == pawn and s.pay != "none" for s in change.plan.steps)  # type: ignore[union-attr]
            if k is not None and k > 1 and (paid or all(s.fault == "two-steps" for s in unpaid)):
                self.violate("two-steps", seat,
                             f"{who}'s {word} moved {k} stones ({route}) for one card: a card moves a pawn one "
                             "stone, and a further step needs a clover landed on this turn",
                             **{"from": src, "to": dst}, steps=k)
            else:
                cards = ("no card was laid" if not change.laid
                         else f"the card laid ({_cards_text(change.laid)}) paid for another step")
                self.violate("no-card", seat,
                             f"{who}'s {word} moved ({route}) but {cards} and no clover explains it",
                             **{"from": src, "to": dst}, steps=k)
        for s in faults:
            if s.fault == "game-over":
                self.violate("game-over", seat, f"{who}'s {word} moved on to {_where(board, s.dst)} after the fifth "
                             "pawn had entered the goal area: the game was over", stone=s.dst)

    def tiles_and_wish(self, seat_changes: dict[str, _SeatChange], landings: dict[str, list[_Step]]) -> None:
        """Tiles taken, left, removed or changed; wish stones gained (RULES §1 Tiles, §2 Tiles)."""
        board, settings = self.board, self.settings
        tiles_b, tiles_a = self.before.tiles or {}, self.after.tiles or {}
        expected = dict(tiles_b)
        landed_by: dict[str, str] = {}
        gains: dict[str, list[tuple[str, str, str, bool]]] = {}  # seat → (colour, why, stone, certain)
        pile_left = self.pile_stock()
        for seat, steps in landings.items():
            for s in steps:
                code = expected.get(s.dst)
                who = self.who(seat)
                if code is not None and code.startswith("points-"):
                    self.change("points-tile", seat, f"{who} landed on the {_tile_name(code)} on "
                                f"{_where(board, s.dst)}: +{code[7:]} points (not visible to the camera)",
                                stone=s.dst, points=int(code[7:]))
                elif code == "clover":
                    self.change("clover", seat, f"{who} landed on the clover on {_where(board, s.dst)}: one more step",
                                stone=s.dst)
                elif code == "discard":
                    self.change("discard-tile", seat, f"{who} landed on the discard-a-card tile on "
                                f"{_where(board, s.dst)}: one card must be discarded", stone=s.dst)
                elif code is not None and code.startswith("wish-"):
                    colour = "any" if code == "wish-any" else code[5:]
                    if self.tile_taken(code):
                        expected[s.dst] = None
                        landed_by[s.dst] = seat
                        gains.setdefault(seat, []).append((colour, "tile", s.dst, True))
                    else:  # Japanese variant: the tile stays; a stone of its colour comes from the pile
                        left = pile_left.get(colour)
                        if left is None or left > 0:
                            gains.setdefault(seat, []).append((colour, "tile-pile", s.dst, left is not None))
                            if left:
                                pile_left[colour] = left - 1
                pile = board.stones[s.dst].wish_pile
                if pile:
                    left = pile_left.get(pile)
                    if left is None or left > 0:
                        gains.setdefault(seat, []).append((pile, "pile", s.dst, left is not None))
                        if left:
                            pile_left[pile] = left - 1
        touched = {st for st in set(tiles_b) | set(tiles_a)
                   if tiles_b.get(st) != tiles_a.get(st) or expected.get(st) != tiles_a.get(st)}
        for stone in sorted(touched, key=lambda st: (board.stones[st].row, st)):
            b, a, e = tiles_b.get(stone), tiles_a.get(stone), expected.get(stone)
            where = _where(board, stone)
            if a == e:
                if b != a and b is not None:
                    seat = landed_by.get(stone)
                    self.change("tile-taken", seat, f"{self.who(seat)} took the {_tile_name(b)} from {where}",
                                stone=stone, tile=b)
                continue
            if b is not None and a == b and e is None:
                seat = landed_by.get(stone)
                self.violate("tile-not-taken", seat, f"{self.who(seat)} landed on {where} but the {_tile_name(b)} "
                             "is still there: wish-stone tiles are taken by the player who lands there",
                             stone=stone, tile=b)
                # The stone itself may still have been taken: do not also call it "not taken".
                mine = gains.get(seat or "", [])
                for n, g in enumerate(mine):
                    if g[2] == stone and g[1] == "tile":
                        mine[n] = (g[0], g[1], g[2], False)
                        break
            elif b is not None and a is None:
                self.change("tile-gone", None, f"the {_tile_name(b)} on {where} left the board", stone=stone, tile=b)
                why = ("only wish-stone tiles are taken; the others stay" if not b.startswith("wish-")
                       else "no pawn landed there" if settings.wish_tile_taken or board.ruleset == "base"
                       else "with these rules every tile stays on the board")
                self.violate("tile-removed", None, f"the {_tile_name(b)} on {where} left the board: {why}",
                             stone=stone, tile=b)
            elif b is None:
                self.change("tile-appeared", None, f"a {_tile_name(a)} appeared on {where}", stone=stone, tile=a)
                self.violate("tile-changed", None, f"a {_tile_name(a)} appeared on {where}: tiles are only laid "
                             "at setup", stone=stone, tile=a)
            else:
                self.change("tile-changed", None, f"the {_tile_name(b)} on {where} became a {_tile_name(a)}",
                            stone=stone, before=b, after=a)
                self.violate("tile-changed", None, f"the {_tile_name(b)} on {where} became a {_tile_name(a)}: "
                             "tiles never change", stone=stone, before=b, after=a)
        self.wish(seat_changes, gains)

    def pile_stock(self) -> dict[str, int | None]:
        """NWNZ: wish stones surely left on each colour's pile (None when the camera cannot tell
        whether any is left: face-down stones, or a board without a tile set)."""
        board = self.board
        if not board.wish_piles:
            return {}
        seats = self.before.seats.values()
        hidden = sum(_hidden_wish(board, s) for s in seats)
        out: dict[str, int | None] = {}
        tiles = self.before.tiles or {}
        for colour in board.wish_piles:
            if not board.tile_set:
                out[colour] = None
                continue
            held = sum(s.wish.get(colour, 0) for s in seats)
            on_board = sum(1 for code in tiles.values() if code == f"wish-{colour}")
            tiles_taken = board.tile_set.get(f"wish-{colour}", 0) - on_board if self.settings.wish_tile_taken else 0
            left = board.wish_stones_per_pile - (held - tiles_taken)
            if hidden:
                # Some of the hidden stones may be of this colour: only a lower bound is known.
                left = left - hidden
                out[colour] = left if left > 0 else None
            else:
                out[colour] = left
        return out

    def wish(self, seat_changes: dict[str, _SeatChange], gains: dict[str, list[tuple[str, str, str, bool]]]) -> None:
        board = self.board
        tiles_a = self.after.tiles or {}
        for seat in _seat_order(set(self.before.seats) & set(self.after.seats)):
            sb, sa = self.before.seats[seat], self.after.seats[seat]
            b, a = dict(sb.wish), dict(sa.wish)
            hb, ha = _hidden_wish(board, sb), _hidden_wish(board, sa)
            if board.ruleset != "base":
                b.pop("any", None)
                a.pop("any", None)
                if hb or ha:
                    b["face-down"], a["face-down"] = hb, ha
            who = self.who(seat)
            for colour in sorted(set(b) | set(a), key=lambda c: (c in ("any", "face-down"), c)):
                d = a.get(colour, 0) - b.get(colour, 0)
                if d:
                    name = "wish stone" if colour == "any" else f"{colour} wish stone"
                    verb = "took" if d > 0 else "lost"
                    self.change("wish-gained" if d > 0 else "wish-lost", seat,
                                f"{who} {verb} {abs(d)} {name}{'s' if abs(d) > 1 else ''} "
                                f"({b.get(colour, 0)} → {a.get(colour, 0)})", colour=colour, delta=d)
            mine = gains.get(seat, [])
            if board.ruleset == "base" or "face-down" in a:
                # Base board (colourless) or face-down stones: only the count can be checked.
                observed = {"*": sum(a.values()) - sum(b.values())}
                wanted = [("*", why, stone, certain) for _, why, stone, certain in mine]
            else:
                observed = {c: a.get(c, 0) - b.get(c, 0) for c in set(a) | set(b)}
                wanted = mine
            for colour in sorted(set(observed) | {w[0] for w in wanted}):
                d = observed.get(colour, 0)
                lo = sum(1 for w in wanted if w[0] == colour and w[3])
                hi = sum(1 for w in wanted if w[0] == colour)
                name = "wish stones" if colour == "*" else f"{colour} wish stones"
                if d < 0:
                    self.violate("wish-unexplained", seat, f"{who}'s {name} went down by {-d}: wish stones taken "
                                 "are kept to the end", colour=colour, delta=d)
                elif d < lo:
                    for _, why, stone, _c in [w for w in wanted if w[0] == colour and w[3]][d:]:
                        where = _where(board, stone)
                        if why == "pile":
                            text = (f"{who}'s pawn entered the {board.stones[stone].wish_pile} wish pile on {where} "
                                    f"but {who}'s {name} did not grow: the top stone of the pile is taken")
                        elif why == "tile" and tiles_a.get(stone) is None:
                            text = f"the wish-stone tile on {where} left the board but {who}'s {name} did not grow"
                        else:
                            text = f"{who} landed on the wish-stone tile on {where} but {who}'s {name} did not grow"
                        self.violate("wish-not-taken", seat, text, colour=colour, stone=stone)
                elif d > hi:
                    got = "none" if hi == 0 else str(hi)
                    self.violate("wish-unexplained", seat, f"{who}'s {name} grew by {d}, but this turn's landings "
                                 f"give {got}", colour=colour, delta=d, expected=hi)

    def discards(self, seat_changes: dict[str, _SeatChange], landings: dict[str, list[_Step]]) -> None:
        """Discard piles: changes, and more changes than one turn can make (RULES §1 Turn, §2 Tiles)."""
        b, a = self.before.discard_tops, self.after.discard_tops
        changed = []
        for colour in COLOURS:
            old, new = b.get(colour), a.get(colour)
            if old == new:
                continue
            changed.append(colour)
            text = (f"the {colour} discard pile now shows {new}" if new is not None
                    else f"the {colour} discard pile is now empty") + (f" (was {old})" if old is not None else "")
            self.change("discard-changed", None, text, colour=colour, before=old, after=new)
        tiles = self.before.tiles or {}
        discard_landings = sum(1 for steps in landings.values() for s in steps if tiles.get(s.dst) == "discard")
        removed = [(c.seat, col, v) for c in seat_changes.values() for col, v in c.row_removed]
        phantom = [c for c in seat_changes.values() if c.phantom]
        laid = sum(len(c.laid) for c in seat_changes.values()) + len(phantom)
        # Row tops discarded (NWNZ discard tile): one per landing, shown on the pile.
        if removed and len(removed) + len(phantom) > discard_landings:
            for seat, colour, v in removed[max(0, discard_landings - len(phantom)):]:
                self.violate("row-changed", seat, f"{self.who(seat)} took the {v} off the {colour} row: cards laid "
                             "stay, unless a discard-a-card tile lets you discard a row's top card",
                             colour=colour, card=v)
        else:
            for seat, colour, v in removed:
                if a.get(colour) != v:
                    self.violate("discard-mismatch", seat, f"{self.who(seat)} took the {v} off the {colour} row, but "
                                 f"the {colour} discard pile shows {a.get(colour) or 'nothing'}: the card goes onto "
                                 "its colour's discard pile", colour=colour, card=v)
        # A pile that was empty and now shows a card was surely discarded on; one that became empty
        # was surely drawn from. Other changes may be either.
        filled = [c for c in changed if b.get(c) is None]
        emptied = [c for c in changed if a.get(c) is None]
        who = " and ".join(self.who(c.seat) for c in seat_changes.values() if c.laid or c.phantom) or "the player"
        if laid:
            # One draw; per discard tile one discard (and a second draw when it came from the hand).
            bound, discards_allowed = 1 + 2 * discard_landings, discard_landings
            if len(filled) > discards_allowed or (discard_landings == 0 and len(changed) > bound):
                shown = filled[discards_allowed:] if len(filled) > discards_allowed else changed
                self.violate("two-cards", None, f"{who} laid a card, and the discard piles show "
                             f"{'a discard' if len(shown) == 1 else 'discards'} as well "
                             f"({', '.join(f'{c} {a.get(c)}' if c in filled else c for c in shown)}): "
                             "a turn plays one card"
                             + (" (plus one discard per discard-a-card tile)" if discard_landings else ""),
                             piles=changed)
            elif len(changed) > bound:
                self.violate("discard-mismatch", None, f"{len(changed)} discard piles changed "
                             f"({', '.join(changed)}): this turn allows at most {discards_allowed} discard"
                             f"{'s' * (discards_allowed != 1)} and {1 + discard_landings} draws", piles=changed)
        elif len(filled) > 1:
            self.violate("two-cards", None, f"cards were discarded onto {len(filled)} empty discard piles "
                         f"({', '.join(f'{c} {a.get(c)}' for c in filled)}): a turn plays one card", piles=filled)
        elif len(changed) > 2:
            self.violate("discard-mismatch", None, f"{len(changed)} discard piles changed ({', '.join(changed)}): "
                         "a turn discards one card and draws one", piles=changed)
        if len(emptied) > 1 + discard_landings:
            self.violate("draw-count", None, f"{len(emptied)} discard piles were emptied ({', '.join(emptied)}): "
                         f"a turn draws {1 + discard_landings} card{'s' * (discard_landings > 0)} at most",
                         piles=emptied)
        if (discard_landings and not self.settings.discard_tile_optional and not changed and not removed
                and not phantom and all(b.get(c) is None for c in COLOURS)):
            # Every pile was empty and still is: no card was discarded (a discard would show).
            seat = next(s for s, steps in landings.items() if any(tiles.get(x.dst) == "discard" for x in steps))
            self.violate("discard-tile-not-used", seat, f"{self.who(seat)} landed on a discard-a-card tile but "
                         "discarded nothing: a card must be discarded at once (RULES §2 Tiles)")

    def who_played(self, seat_changes: dict[str, _SeatChange]) -> None:
        """Which seat played; two seats, or the wrong seat, break the turn order (RULES §1 Turn)."""
        active = [c for c in seat_changes.values() if c.active or c.phantom]
        for c in active:
            if len(c.laid) > 1:
                self.violate("two-cards", c.seat, f"{self.who(c.seat)} laid {len(c.laid)} cards "
                             f"({_cards_text(c.laid)}): a turn plays one card", cards=[list(x) for x in c.laid])
        if self.turn is not None:
            for c in active:
                if c.seat != self.turn:
                    self.violate("out-of-turn", c.seat, f"{self.who(c.seat)} played "
                                 f"({self.summary(c)}), but it is {self.turn}'s turn", expected=self.turn)
        elif len(active) > 1:
            names = " and ".join(f"{self.who(c.seat)} ({self.summary(c)})" for c in active)
            laid = sum(len(c.laid) for c in active)
            code = "two-cards" if laid > 1 else "out-of-turn"
            self.violate(code, None, f"{len(active)} players changed the table: {names}; only one player plays a "
                         "turn", seats=[c.seat for c in active])

    def summary(self, c: _SeatChange) -> str:
        parts = []
        if c.laid:
            parts.append(f"laid {_cards_text(c.laid)}")
        if c.moves:
            parts.append(f"moved {len(c.moves)} pawn{'s' if len(c.moves) > 1 else ''}")
        if c.row_removed:
            parts.append("took a card off a row")
        if c.row_faults and not parts:
            parts.append("changed a row or a pawn")
        return ", ".join(parts) or "changed the table"


def _limited_product(options: list[list[tuple[str, ...]]]) -> Iterable[tuple[tuple[str, ...], ...]]:
    for n, combo in enumerate(product(*options)):
        if n >= _MAX_ROUTE_COMBOS:
            return
        yield combo


def _dedupe(violations: Iterable[Violation]) -> list[Violation]:
    seen: set[tuple[str, str]] = set()
    out = []
    for v in violations:
        if (v.code, v.message) not in seen:
            seen.add((v.code, v.message))
            out.append(v)
    return out


def check_change(before: Observation, after: Observation, settings: Settings | Mapping[str, Any] | None = None,
                 *, turn: str | None = None) -> ChangeReport:
    """What changed between two observed states, as events, and the rules the change breaks.

    settings: the board game's rule variants (default: RULES.md defaults). turn: the seat expected
    to play, when known; without it, a single player acting out of turn cannot be seen.
    Raises ObservationError for malformed states (unknown stones, different boards).
    """
    if turn is not None and turn not in SEATS:
        raise MalformedInput(f"unknown seat {turn!r}", field="turn")
    return _Checker(before, after, _settings(settings), turn).run()
