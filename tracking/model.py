"""The tracked game: the table, the turns so far and what the rules engine says of them.

`GameModel` is what the tracker believes at one moment: the table (as read, with corrections),
the turns (moves) so far, the discard piles' cards, points-tile points, the phase of the game.
The turn decoder's reading of the game (tracking/decoded.py) is folded into it one whole turn at
a time (`apply_turn`): the engine judges each turn, the score and the game's end follow.
Corrections from the page (`correct`) change the table or state a fact of the game.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from engine.cards import COLOURS, parse_row_code
from engine.errors import MalformedInput, ObservationError
from engine.events import ChangeReport
from engine.games import GAMES, GameRegistry
from engine.observation import TILE_CODES, Observation, PawnObservation, SeatObservation
from engine.setup import Setup
from engine.violations import Violation

from .config import TrackingConfig
from .games import GameRules
from .inference import (DEFERRED_CODES, SILENT_FACTS, UNKNOWN_CARD, TopChange, TurnFacts, own_violations,
                        reconcile, revealed_depth, turn_facts)
from .stability import FieldKey, changed_fields, fields_to_observation, observation_fields

CORRECTION_KINDS = ("pawn", "row", "tile", "seats", "end", "turn", "points", "wish", "discard", "discarded", "took")

class CorrectionError(MalformedInput):
    """A correction that cannot apply to this game (names the field)."""


# ---------------------------------------------------------------------------------------------
# Turns


@dataclass(frozen=True)
class TurnRecord:
    """One move of the history: a player's turn as seen on the table (possibly still going on)."""

    move_id: int
    seat: str
    base: Observation                 # the table when the turn began
    end: Observation                  # the table now (or when the turn ended)
    report: ChangeReport              # the engine's check of base → end
    tops: tuple[TopChange, ...]
    skipped: tuple[str, ...]
    facts: TurnFacts
    own: tuple[Violation, ...]
    open: bool
    phase: str                        # the game's phase when the turn was played
    t_start: float
    t: float
    frame: int | None
    confidence: float = 1.0
    note: str | None = None
    totals: Mapping[str, int] = field(default_factory=dict)
    silent: bool = False              # left no trace: a hand came and went (a card onto its twin?)

    def violations(self) -> list[Violation]:
        """What this turn broke, as known now (what is still missing counts once the turn is over)."""
        out = [v for v in self.report.violations if not (self.open and v.code in DEFERRED_CODES)]
        codes = {(v.code, v.seat) for v in out}
        out.extend(v for v in self.own if (v.code, v.seat) not in codes
                   and not (self.open and v.code in DEFERRED_CODES))
        return out


def _stone_words(rules: GameRules, stone_id: str | None) -> str:
    board = rules.board
    if board is None or stone_id is None or stone_id not in board.stones:
        return str(stone_id)
    stone = board.stones[stone_id]
    if stone.kind == "start":
        return "the start"
    colour = "joker" if stone.color == "joker" else stone.color
    return f"{colour} {stone.value:+d} ({stone.id})" if stone.value < 0 else f"{colour} {stone.value} ({stone.id})"


def _card_words(code: str | None, pile: str | None = None) -> str:
    if code is None:
        return "nothing"
    if code == "E":
        return f"the {pile} end card" if pile else "an end card"
    if code.startswith("P"):
        return f"the points card {code[1:]}"
    v = int(code)
    if pile and pile != "points":
        return f"a {pile} {v}"
    return f"{'an' if v in (8, 11) else 'a'} {v}"


def summarize(rules: GameRules, turn: TurnRecord) -> dict[str, Any]:
    """What a turn did, structured (for the move log, --check and the bench)."""
    lays: list[list[Any]] = []
    steps: list[dict[str, Any]] = []
    wish: list[str] = []
    wish_cards: list[int] = []
    row_discards: list[list[str]] = []
    for e in turn.report.changes:
        if e.seat != turn.seat:
            continue
        d = e.data
        if e.kind == "card-laid":
            if rules.is_board:
                lays.append([d.get("colour"), d.get("card")])
                if d.get("discarded"):  # laid and discarded again from the row (discard tile)
                    row_discards.append([d.get("colour"), d.get("card")])
            elif d.get("row") == "points" and "card" not in d:
                lays.extend(["points", "P"] for _ in range(int(d.get("count", 1) or 1)))
            else:
                lays.append([d.get("row"), d.get("card")])
        elif e.kind in ("pawn-moved", "pawn-entered") and "from" in d:
            step = {"big": bool(d.get("big")), "from": d.get("from"), "to": d.get("to"), "paid": d.get("paid")}
            prev = next((x for x in reversed(steps) if x["to"] == step["from"] and x["big"] == step["big"]), None)
            if step["paid"] == "none" and prev is not None:
                prev["to"] = step["to"]  # a pawn moved two stones for one card: one move, as made
                prev["stones"] = prev.get("stones", 1) + 1
            else:
                steps.append(step)
        elif e.kind == "wish-gained":
            wish.extend([d.get("colour")] * max(0, int(d.get("delta", 1))))
        elif e.kind == "wish-taken":
            wish_cards.append(int(d.get("wish")))
        elif e.kind == "row-card-discarded":
            row_discards.append([d.get("colour"), d.get("card")])
    return {"seat": turn.seat, "lays": lays, "steps": steps,
            "discards": [[t.pile, t.new] for t in turn.tops if t.kind == "discard"],
            "draws": [[t.pile, t.old] for t in turn.tops if t.kind == "draw"],
            "row_discards": row_discards, "wish": wish, "wish_cards": wish_cards, "points": turn.facts.points}


def turn_text(rules: GameRules, setup: Setup, turn: TurnRecord) -> str:
    """The move as one sentence: "Anna laid a blue 7, moved the big pawn to blue 6 (b6), took a wish stone"."""
    s = summarize(rules, turn)
    parts: list[str] = []
    for colour, code in s["lays"]:
        if rules.is_board:
            parts.append(f"laid {_card_words(code, colour)}")
        elif colour == "points":
            parts.append("laid a points card in the points row")
        else:
            where = f" on the {colour} row" if code.startswith("P") or code == "E" else ""
            parts.append(f"laid {_card_words(code, colour)}{where}")
    for step in s["steps"]:
        pawn = "the big pawn" if step["big"] else "a pawn"
        verb = "brought" if step["from"] == (rules.board.start.id if rules.board else None) else "moved"
        text = f"{verb} {pawn} {'onto' if verb == 'brought' else 'to'} {_stone_words(rules, step['to'])}"
        if step.get("paid") == "clover":
            text += " (clover step)"
        parts.append(text)
    for colour, code in s["row_discards"]:
        parts.append(f"discarded the {colour} {code} from the row (discard tile)")
    for pile, code in s["discards"]:
        if [pile, code] not in [[c, v] for c, v in s["row_discards"]]:
            parts.append(f"discarded {_card_words(code, pile)}")
    if s["wish"]:
        n = len(s["wish"])
        colours = [c for c in s["wish"] if c and c != "any"]
        what = f"{' and '.join(colours)} wish stone{'s' if n > 1 else ''}" if colours else \
            f"{'a' if n == 1 else n} wish stone{'s' if n > 1 else ''}"
        parts.append(f"took {'a ' + what if colours and n == 1 else what}")
    for v in s["wish_cards"]:
        parts.append(f"took the wish card {v}")
    if s["points"]:
        parts.append(f"scored {s['points']} on a points tile")
    for pile, code in s["draws"]:
        parts.append(f"drew {_card_words(code, pile)} from the {pile} discard pile")
    who = setup.name(turn.seat)
    if turn.silent:
        return (f"{who} played without a visible change (a hand came and went: a card discarded onto "
                f"its twin?) — assumed legal")
    body = ", ".join(parts) if parts else "changed the table"
    violations = turn.violations()
    verdict = "legal" if not violations else "; ".join(v.message for v in violations)
    if turn.open and not violations:
        verdict = "legal so far"
    return f"{who} {body} — {verdict}"


# ---------------------------------------------------------------------------------------------
# The model


class GameModel:
    """What the tracker believes at one moment (module docstring); cheap to clone."""

    def __init__(self, setup: Setup, config: TrackingConfig | None = None, games: GameRegistry = GAMES):
        self.setup = setup
        self.games = games
        self.rules = GameRules(setup, games)
        self.config = config or TrackingConfig()
        self.table: Observation | None = None   # the table as read, corrections applied
        self.turns: list[TurnRecord] = []
        self.piles: dict[str, tuple[str, ...]] = {}
        self.phase = "play"                     # "play", "final" (card game's last plays), "over"
        self.end_reason: str | None = None
        self.final_queue: tuple[str, ...] = ()
        self.draw_pile_found = 0                # cards the count missed (a draw seen after it ran out)
        #: card game, the end by the tracker's own count (auto_end_on_empty_draw_pile): the first turn of
        #: the last plays, when a turn came after the last plays were all made by the player who made it
        #: (the count ran out a turn early: tracking.decoded.DecodedGame folds again with one card more)
        self.count_early_at: int | None = None
        self.turn_override: str | None = None   # "turn" correction: whose turn it is
        self.points_adjust: dict[str, int] = {}
        self.last_t: float | None = None
        self.last_frame: int | None = None
        self.notes: list[str] = []              # what the tracker wants the players to know

    def clone(self) -> "GameModel":
        """A copy that can be changed without touching this one (records are immutable)."""
        other = copy.copy(self)
        other.turns = list(self.turns)
        other.piles = dict(self.piles)
        other.points_adjust = dict(self.points_adjust)
        other.notes = list(self.notes)
        return other

    # -- queries -----------------------------------------------------------------------------

    def open_turn(self) -> TurnRecord | None:
        """The last turn if it may still go on."""
        return self.turns[-1] if self.turns and self.turns[-1].open else None

    def next_seat(self, seat: str) -> str:
        """The seat after `seat` in turn order."""
        order = self.setup.order
        return order[(order.index(seat) + 1) % len(order)] if seat in order else order[0]

    def seat_after(self, turn: TurnRecord) -> str:
        """Who is expected after `turn`: the next seat — after a turn played out of turn, the player
        whose turn it was (a player out of turn does not take the turn away from them)."""
        if turn.skipped and any(v.code == "out-of-turn" for v in turn.own):
            return turn.skipped[0]
        return self.next_seat(turn.seat)

    def turn(self) -> str | None:
        """The seat expected to act: the open turn's player until their card is on the table."""
        if self.phase == "over":
            return None
        if self.turn_override:
            return self.turn_override
        if self.phase == "final":
            return self.final_queue[0] if self.final_queue else None
        last = self.turns[-1] if self.turns else None
        if last is None:
            return self.setup.first
        if last.open and last.facts.plays == 0:
            return last.seat
        return self.seat_after(last)

    def points(self, upto: int | None = None) -> dict[str, int]:
        """Points-tile points per seat (the camera cannot see them: counted from the moves)."""
        out = {s: 0 for s in self.setup.order}
        for t in self.turns[:upto]:
            if t.facts.points and t.seat in out:
                out[t.seat] += t.facts.points
        if upto is None:
            for s, n in self.points_adjust.items():
                out[s] = out.get(s, 0) + n
        return out

    def draw_pile_left(self, closed_only: bool = False) -> int:
        """Cards left in the draw pile by the tracker's count: dealt cards minus every card drawn
        to refill a hand (cards played from the hand, less those taken from discard piles) — by the
        turns over only, with closed_only (the open turn may still draw from a discard pile)."""
        drawn = 0
        for t in self.turns:
            if closed_only and t.open:
                continue
            if t.phase != "play" or t.facts.from_hand <= 0 or t.facts.no_draw:
                continue  # (no drawing in the card game's last plays, nor by a turn read as not drawing)
            drawn += max(0, t.facts.from_hand - t.facts.draws)
        return self.rules.draw_pile_start - drawn + self.draw_pile_found

    def score_sheet(self):
        """The live score of the table (final once the game is over)."""
        if self.table is None:
            return None
        return self.rules.score(self.table, self.points(), self.phase == "over")

    def totals(self) -> dict[str, int]:
        """Each seat's total now."""
        sheet = self.score_sheet()
        return {} if sheet is None else {s: p.total for s, p in sheet.scores.items()}

    # -- turns -------------------------------------------------------------------------------

    def _record(self, seat: str, before: Observation, after: Observation, report: ChangeReport,
                tops: Sequence[TopChange], skipped: Sequence[str], facts: TurnFacts, *, move_id: int,
                t_start: float, t: float, frame: int | None, phase: str, silent: bool = False) -> TurnRecord:
        if silent:
            return TurnRecord(move_id, seat, before, after, report, (), (), facts, (), False, phase, t_start, t,
                              frame, silent=True)
        facts = turn_facts(self.rules, seat, report, tops, phase, facts.hidden_plays, facts.hidden_draws, facts.no_draw)
        own = tuple(own_violations(self.rules, self.setup, seat, report, facts, skipped, phase, tops))
        return TurnRecord(move_id, seat, before, after, reconcile(report, own, facts, phase), tuple(tops),
                          tuple(skipped), facts, own, True, phase, t_start, t, frame)

    def _close_open_turn(self) -> None:
        if self.turns and self.turns[-1].open:
            self.turns[-1] = dataclasses.replace(self.turns[-1], open=False)
            self._stamp_totals(len(self.turns) - 1)

    def _stamp_totals(self, index: int) -> None:
        turn = self.turns[index]
        try:
            sheet = self.rules.score(turn.end, self.points(index + 1), False)
            totals = {s: p.total for s, p in sheet.scores.items()}
        except MalformedInput:
            totals = {}
        self.turns[index] = dataclasses.replace(turn, totals=totals)

    def _add_turn(self, seat: str, before: Observation, after: Observation, report: ChangeReport,
                  tops: Sequence[TopChange], skipped: Sequence[str], facts: TurnFacts, t: float, frame: int | None,
                  silent: bool = False, piles: set[str] = frozenset(), pair_on_pile: bool = False) -> None:
        """A new turn of `seat` (the open one closes): into the history, its `piles`' records, the score, the end."""
        self._close_open_turn()
        self._check_draw_pile_end()
        # (after the end check: the turn that would begin the last plays by the count, drawing from a
        # discard pile, shows the count ran out early — RULES §3 End: the last plays draw nothing)
        self._check_draw_pile_not_empty(tops, facts.hidden_draws)
        phase = self.phase
        if phase == "final":
            if seat in self.final_queue:
                self.final_queue = self.final_queue[self.final_queue.index(seat) + 1:]
            elif not silent:
                self.phase = phase = "over"
                self.end_reason = self.end_reason or "last plays made"
        if phase == "over" and not silent and self.count_early_at is None:
            self._check_count_early(seat)
        if not silent:
            self.turn_override = None
        rec = self._record(seat, before, after, report, tops, skipped, facts, move_id=len(self.turns) + 1,
                           t_start=t, t=t, frame=frame, phase=phase, silent=silent)
        self.turns.append(rec)
        if not silent:
            for pile in sorted(piles):
                top = next((tp for tp in reversed(tops) if tp.pile == pile), None)
                if top is not None:
                    self._apply_top(top)
            if pair_on_pile:
                self._hide_pair_card(rec)
        self._stamp_totals(len(self.turns) - 1)
        if not silent:
            self._check_end(rec)

    def _hide_pair_card(self, rec: TurnRecord) -> None:
        """Card game: both cards of a pair discarded onto one pile show as one change; the first
        lies under the second, unseen (UNKNOWN_CARD: even a pair for a wish card may be mismatched),
        so that drawing the top later is read as a draw, not as a new card discarded."""
        if rec.facts.discards != 1:
            return
        top = next(t for t in rec.tops if t.kind == "discard")
        stack = list(self.piles.get(top.pile, ()))
        if not stack or stack[-1] != top.new:
            return
        self.piles[top.pile] = tuple(stack[:-1] + [UNKNOWN_CARD, stack[-1]])

    def _apply_top(self, top: TopChange) -> None:
        stack = list(self.piles.get(top.pile, ()))
        if top.kind == "draw":
            if top.new is None:
                stack = []   # the pile is empty now, whatever the tracker believed lay in it
            depth = revealed_depth(stack, top.old, top.new)
            if depth is None and top.new is not None and top.new in stack[:-1]:
                # drawn down to a card believed deeper in the pile (the record missed a draw)
                del stack[len(stack) - 1 - stack[::-1].index(top.new, 1) + 1:]
            else:
                del stack[len(stack) - min(depth or 1, len(stack)):]
            if top.new is not None and stack and stack[-1] == UNKNOWN_CARD:
                stack[-1] = top.new   # the card under a pair, seen now
            elif top.new is not None and (not stack or stack[-1] != top.new):
                stack.append(top.new)  # the pile held more than we knew
        else:
            stack.append(top.new)  # type: ignore[arg-type]
        self.piles[top.pile] = tuple(stack)

    def _check_end(self, rec: TurnRecord) -> None:
        rules = self.rules
        if self.phase == "play":
            if rules.is_board and rules.pawns_in_goal(rec.end) >= 5:
                self._end("goal")
            elif not rules.is_board and rules.end_cards_reached(rec.end):
                self._start_final(rec.seat, "end-cards")
        elif self.phase == "final" and not self.final_queue and rec.open:
            cap = rec.facts.allowance
            if rec.facts.plays >= cap:
                self._end(self.end_reason or "end-cards")

    def _check_draw_pile_end(self) -> None:
        """With auto_end_on_empty_draw_pile (replays: nobody at the page to say it): the game ends
        with the turn that drew the last card — checked when that turn is over, for a turn goes on
        after its player reaches for a card (RULES §1 End, §3 End)."""
        if (self.phase != "play" or not self.config.auto_end_on_empty_draw_pile or not self.turns
                or self.rules.is_board):
            # (board game: the end is declared when the stream ends — GameTracker.finish. A card
            # drawn from a discard pile onto its twin leaves no trace and is counted as drawn from
            # the draw pile: the count runs out early, and the game's last turns would be "after
            # the end". The card game needs the end at once: its last plays follow other rules.)
            return
        last = self.turns[-1]
        if last.open or self.draw_pile_left(closed_only=True) > 0:
            return
        self._start_final(last.seat, "draw-pile")

    def _check_draw_pile_not_empty(self, tops: Sequence[TopChange], hidden_draws: int = 0) -> None:
        """The tracker's own count ended the card game's play ("draw-pile", replays), yet a card is
        drawn — from a discard pile, or from the draw pile (the turn's player seen reaching in again
        after their play, the table as it was: the decoder's `unseen_draws`): the game was not at its
        end — a draw that left no trace (a card taken off its twin) made the count run out early.
        Play goes on (RULES §3 End: the last plays draw nothing)."""
        if (self.rules.is_board or not self.config.auto_end_on_empty_draw_pile or self.end_reason != "draw-pile"
                or self.phase not in ("final", "over")
                or not (hidden_draws or any(tp.kind == "draw" for tp in tops))):
            return
        self.phase, self.end_reason, self.final_queue = "play", None, ()
        # (at least one card was left when the count said none: count on from there)
        self.draw_pile_found += 1 - min(0, self.draw_pile_left(closed_only=True))

    def _check_count_early(self, seat: str) -> None:
        """The card game's last plays, begun by the tracker's count of the draw pile (replays), are all
        made, and the player who made the first of them plays again: the last plays of a game whose last
        card that player drew (RULES §3 End: the one who triggers the end plays last) — the count ran out a
        turn early (a card taken off its twin is counted as drawn from the draw pile), not a play after
        the end. Noted in `count_early_at` (the first turn of the last plays, by index)."""
        if self.rules.is_board or not self.config.auto_end_on_empty_draw_pile or self.end_reason != "draw-pile":
            return
        first = next((i for i, t in enumerate(self.turns) if t.phase == "final" and not t.silent), None)
        if first is not None and self.turns[first].seat == seat:
            self.count_early_at = first

    def _end(self, reason: str) -> None:
        self.phase = "over"
        self.end_reason = reason
        self.turn_override = None
        self._close_open_turn()

    def _start_final(self, seat: str, reason: str) -> None:
        order = self.setup.order
        k = order.index(seat)
        self.phase = "final"
        self.end_reason = reason
        self.final_queue = tuple(order[k + 1:] + order[:k + 1])
        self._close_open_turn()

    # -- inputs ------------------------------------------------------------------------------

    def accept(self, raw: Observation, t: float, frame: int | None) -> None:
        """Take the game's first table (the decoder's reading of it); one no game can show is noted, not taken."""
        try:
            self.rules.validate(raw)
        except ObservationError as exc:
            self._note(f"table state at frame {frame} cannot be used: {exc}")
            return
        self.table = raw
        self.piles = {p: (code,) for p, code in raw.discard_tops.items() if code is not None}
        self.last_t, self.last_frame = t, frame

    def apply_turn(self, seat: str, after: Observation, tops: Sequence[TopChange], t: float, frame: int | None,
                   *, keys: Sequence[FieldKey] = (), hidden_draws: int = 0, skipped: Sequence[str] = (),
                   no_draw: bool = False) -> None:
        """One whole turn as the decoder read it (tracking.decoder): `seat` changed the fields `keys`
        of the table to `after` (discarding and drawing `tops`); the engine judges it, the score and
        the game's end follow."""
        if self.table is None:
            raise ValueError("no table yet: accept() the first table state before a turn")
        before = self.table
        silent = not keys and not tops and not hidden_draws
        try:
            report = self.rules.check(before, after)
        except MalformedInput as exc:   # a table the engine cannot judge: the move stands, unjudged
            self._note(f"move at frame {frame} could not be checked: {exc}")
            report = ChangeReport((), ())
        plays = sum(1 for tp in tops if tp.kind == "discard")
        hidden_plays = 1 if not silent and not plays and not any(k[0] in ("row", "points_row") for k in keys) \
            and (hidden_draws or any(tp.kind == "draw" for tp in tops)) else 0   # (its card went onto its twin: no trace)
        facts = SILENT_FACTS if silent else TurnFacts(0, 0, 0, 0, 1, 0, False, hidden_plays, hidden_draws, no_draw)
        piles = {k[1] for k in keys if k[0] == "top"}   # (a pile drawn and discarded back on shows no change)
        self._add_turn(seat, before, after, report, tops, skipped, facts, t, frame, silent=silent, piles=piles,
                       pair_on_pile=any(k[0] == "wish_cards" for k in keys))
        self.table = after
        self.last_t, self.last_frame = t, frame

    def _note(self, text: str) -> None:
        self.notes = (self.notes + [text])[-20:]

    def reevaluate_open_turn(self, t: float | None = None) -> None:
        """Check the open turn again against the table (after a correction)."""
        turn = self.open_turn()
        if turn is None or self.table is None:
            return
        self.turns[-1] = self._record(turn.seat, turn.base, self.table, self.rules.check(turn.base, self.table),
                                      turn.tops, turn.skipped, turn.facts, move_id=turn.move_id,
                                      t_start=turn.t_start, t=turn.t if t is None else t, frame=turn.frame,
                                      phase=turn.phase)
        self._stamp_totals(len(self.turns) - 1)

    def correct(self, c: Mapping[str, Any], t: float | None = None) -> str:
        """Apply a player's correction (docs/tracking-api.md correct); returns a sentence saying what changed."""
        kind = c.get("kind")
        if kind not in CORRECTION_KINDS:
            raise CorrectionError(f"unknown correction {kind!r} (known: {', '.join(CORRECTION_KINDS)})",
                                  source="correction", field="kind")
        if kind in ("discarded", "took"):
            raise CorrectionError("who discarded or took a card is an answer to the decoder's question (tracking.decoded)",
                                  source="correction", field="kind")
        if kind == "seats":
            return self._correct_seats(c)
        if kind == "end":
            return self._correct_end(c)
        if kind == "turn":
            seat = c.get("seat")
            if seat not in self.setup.seats:
                raise CorrectionError(f"nobody sits at {seat!r}", source="correction", field="seat")
            self._close_open_turn()
            self.turn_override = seat
            return f"it is {self.setup.name(seat)}'s turn"
        if kind == "points":
            seat, n = c.get("seat"), c.get("points")
            if seat not in self.setup.seats:
                raise CorrectionError(f"nobody sits at {seat!r}", source="correction", field="seat")
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 200:
                raise CorrectionError(f"expected points 0–200, got {n!r}", source="correction", field="points")
            if not self.rules.is_board:
                raise CorrectionError("the card game has no points tiles", source="correction", field="kind")
            counted = self.points(len(self.turns)).get(seat, 0)
            self.points_adjust[seat] = n - counted
            return f"{self.setup.name(seat)} has {n} points from points tiles"
        if self.table is None:
            raise LookupError("the camera has not seen the table yet: nothing to correct")
        before = self.table
        table = _corrected_table(self, c)
        self.rules.validate(table)
        self.table = table
        # A field the open turn did not change is fixed in the turn's starting table too, so the
        # fix is not mistaken for part of the turn.
        turn = self.open_turn()
        if turn is not None:
            fb, ft, fn = observation_fields(turn.base), observation_fields(before), observation_fields(table)
            base_f = dict(fb)
            for key in changed_fields(ft, fn):
                if fb.get(key) == ft.get(key):
                    if key in fn:
                        base_f[key] = fn[key]
                    else:
                        base_f.pop(key, None)
            if base_f != fb:
                self.turns[-1] = dataclasses.replace(turn, base=fields_to_observation(base_f, turn.base))
            self.reevaluate_open_turn(t)
        return _correction_text(self, c)

    def _correct_seats(self, c: Mapping[str, Any]) -> str:
        seats = c.get("seats", self.setup.seats)
        names = c.get("names", self.setup.names)
        data = {**self.setup.to_json(), "seats": seats, "names": names}
        if self.setup.first and self.setup.first not in (seats or {}):
            data.pop("first", None)
        setup = Setup.from_json(data, "correction", self.games)
        if set(setup.seats) != set(self.setup.seats) and self.turns:
            raise CorrectionError("seats cannot be added or removed once the game is under way; declare "
                                  "who sits where among the same seats, or start a new game",
                                  source="correction", field="seats")
        self.setup = setup
        self.rules = GameRules(setup, self.games)
        if self.table is not None:
            self.table = _relabel(self.table, setup)
        return "seats: " + ", ".join(f"{s} {setup.seats[s]}" + (f" ({setup.names[s]})" if s in setup.names else "")
                                     for s in setup.order)

    def _correct_end(self, c: Mapping[str, Any]) -> str:
        ended = c.get("ended", True)
        if not isinstance(ended, bool):
            raise CorrectionError(f"expected true or false, got {ended!r}", source="correction", field="ended")
        reason = c.get("reason") or "declared"
        if not isinstance(reason, str) or len(reason) > 40:
            raise CorrectionError(f"expected a short reason, got {reason!r}", source="correction", field="reason")
        if not ended:
            if self.phase == "play":
                raise ValueError("the game is not over")
            if self.end_reason in ("goal", "end-cards"):
                raise ValueError(f"the table itself ended the game ({self.end_reason}); undo the move instead")
            self.phase = "play"
            self.end_reason = None
            self.final_queue = ()
            return "the game goes on"
        if self.phase == "over":
            raise ValueError("the game is already over")
        if self.rules.is_board or self.phase == "final":
            self._end(reason)
            return f"the game is over ({reason})"
        last = self.turns[-1].seat if self.turns else self.setup.order[-1]
        self._start_final(last, reason)
        return f"the game has ended ({reason}): the last plays follow"


def _relabel(obs: Observation, setup: Setup) -> Observation:
    seats = {}
    for seat in setup.order:
        s = obs.seats.get(seat)
        seats[seat] = dataclasses.replace(s, player=setup.seats[seat]) if s else SeatObservation(setup.seats[seat])
    return dataclasses.replace(obs, seats=seats)


def _corrected_table(model: GameModel, c: Mapping[str, Any]) -> Observation:
    table = model.table
    assert table is not None
    kind = c["kind"]
    setup, rules = model.setup, model.rules
    if kind == "pawn":
        if not rules.is_board or rules.board is None:
            raise CorrectionError("the card game has no pawns", source="correction", field="kind")
        player = c.get("player") or setup.seats.get(c.get("seat") or "")
        if player not in setup.seats.values():
            raise CorrectionError(f"no player {player!r} at this table", source="correction", field="player")
        to = c.get("to", c.get("stone"))  # "to", as the page writes it; "stone" still read (API clients)
        if to not in rules.board.stones:
            raise CorrectionError(f"no stone {to!r} on the {rules.board.name} board", source="correction",
                                  field="to")
        big = c.get("big", False)
        if not isinstance(big, bool):
            raise CorrectionError(f"expected true or false, got {big!r}", source="correction", field="big")
        pawns = list(table.pawns or ())
        mine = [i for i, p in enumerate(pawns) if p.player == player and p.big == big]
        frm = c.get("from")
        if frm is not None:
            mine = [i for i in mine if pawns[i].stone == frm]
            if not mine:
                raise CorrectionError(f"no {'big' if big else 'small'} {player} pawn stands on {frm!r}",
                                      source="correction", field="from")
        elif len({pawns[i].stone for i in mine}) > 1:
            where = sorted({pawns[i].stone for i in mine})
            raise CorrectionError(f"the {player} small pawns stand on {', '.join(where)}: say which one "
                                  "('from')", source="correction", field="from")
        if mine:
            pawns[mine[0]] = PawnObservation(to, player, big)
        else:
            pawns.append(PawnObservation(to, player, big))
        return dataclasses.replace(table, pawns=tuple(pawns))
    if kind == "row":
        seat, colour, cards = c.get("seat"), c.get("colour"), c.get("cards")
        if seat not in table.seats:
            raise CorrectionError(f"nobody sits at {seat!r}", source="correction", field="seat")
        if colour not in COLOURS:
            raise CorrectionError(f"unknown colour {colour!r}", source="correction", field="colour")
        if not isinstance(cards, list):
            raise CorrectionError(f"expected a list of cards, got {cards!r}", source="correction", field="cards")
        for i, code in enumerate(cards):
            try:
                parse_row_code(code, colour)
            except ValueError as exc:
                raise CorrectionError(str(exc), source="correction", field=f"cards[{i}]") from None
            if rules.is_board and not code.isdigit():
                raise CorrectionError(f"{code!r} is a card-game card; board-game rows hold 0–10",
                                      source="correction", field=f"cards[{i}]")
        s = table.seats[seat]
        rows = {k: v for k, v in s.rows.items() if k != colour}
        if cards:
            rows[colour] = tuple(cards)
        seats = dict(table.seats)
        seats[seat] = dataclasses.replace(s, rows={c2: rows[c2] for c2 in COLOURS if c2 in rows})
        return dataclasses.replace(table, seats=seats)
    if kind == "tile":
        if not rules.is_board or rules.board is None:
            raise CorrectionError("the card game has no tiles", source="correction", field="kind")
        stone, code = c.get("stone"), c.get("tile")
        if stone not in rules.board.stones or not rules.board.stones[stone].tile_spot:
            raise CorrectionError(f"{stone!r} is not a tile spot on the {rules.board.name} board",
                                  source="correction", field="stone")
        if code is not None and code not in TILE_CODES:
            raise CorrectionError(f"unknown tile {code!r}", source="correction", field="tile")
        return dataclasses.replace(table, tiles={**(table.tiles or {}), stone: code})
    if kind == "wish":
        seat, colour, count = c.get("seat"), c.get("colour"), c.get("count")
        if seat not in table.seats:
            raise CorrectionError(f"nobody sits at {seat!r}", source="correction", field="seat")
        if colour not in (*COLOURS, "any"):
            raise CorrectionError(f"unknown wish colour {colour!r}", source="correction", field="colour")
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 25:
            raise CorrectionError(f"expected a count 0–25, got {count!r}", source="correction", field="count")
        s = table.seats[seat]
        wish = {k: v for k, v in s.wish.items() if k != colour}
        if count:
            wish[colour] = count
        seats = dict(table.seats)
        seats[seat] = dataclasses.replace(s, wish=wish)
        return dataclasses.replace(table, seats=seats)
    if kind == "discard":
        pile, top = c.get("pile"), c.get("top")
        if pile not in rules.piles:
            raise CorrectionError(f"unknown discard pile {pile!r} (piles: {', '.join(rules.piles)})",
                                  source="correction", field="pile")
        if top is not None:
            try:
                parse_row_code(top, pile if pile in COLOURS else "red")
            except (ValueError, TypeError) as exc:
                raise CorrectionError(str(exc), source="correction", field="top") from None
        stack = list(model.piles.get(pile, ()))
        if stack:
            stack[-1] = top
        elif top is not None:
            stack = [top]
        model.piles[pile] = tuple(x for x in stack if x is not None)
        return dataclasses.replace(table, discard_tops={**table.discard_tops, pile: top})
    raise CorrectionError(f"unknown correction {kind!r}", source="correction", field="kind")


def _correction_text(model: GameModel, c: Mapping[str, Any]) -> str:
    kind = c["kind"]
    if kind == "pawn":
        return (f"{c.get('player') or c.get('seat')}'s {'big ' if c.get('big') else ''}pawn set on "
                f"{_stone_words(model.rules, c.get('to', c.get('stone')))}")
    if kind == "row":
        return f"{model.setup.name(c['seat'])}'s {c['colour']} row set to {', '.join(c['cards']) or 'nothing'}"
    if kind == "tile":
        return f"tile on {c['stone']} set to {c.get('tile') or 'none'}"
    if kind == "wish":
        return f"{model.setup.name(c['seat'])} holds {c['count']} {c['colour']} wish stones"
    if kind == "discard":
        return f"the {c['pile']} discard pile shows {c.get('top') or 'nothing'}"
    return kind


@dataclass
class Input:
    """A usable frame the decoder took, as DecodedGame.inputs lists them (payload["frame"])."""

    id: int | None
    kind: str
    payload: dict[str, Any]
