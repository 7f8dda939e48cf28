"""The tracked game as a fold over its inputs: accepted table states, corrections and undos.

`GameModel` is what the tracker believes at one moment: the table (as read, with corrections),
the turns (moves) so far, the discard piles' cards, points-tile points, the phase of the game.
`Journal` holds the inputs that count (an undo or a revision takes inputs out) with the model
after each, so that undoing, revising a misread and re-reading a change in the light of the next
one are all "go back to a checkpoint and fold again". The same fold rebuilds a game from the
database after a restart, so a resumed game is exactly the game that was running.
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
from engine.observation import TILE_CODES, Observation, PawnObservation, SeatObservation, parse_observation
from engine.setup import Setup
from engine.violations import Violation

from .config import TrackingConfig
from .games import GameRules
from .inference import (DEFERRED_CODES, NEED_ACTIVE, NEED_NONE, NEED_REACH, SILENT_FACTS, UNKNOWN_CARD,
                        Inference, Segment, TopChange, TurnContext, TurnFacts, classify_top, hand_cost, infer_moves,
                        own_violations, reconcile, revealed_depth, turn_facts)
from .stability import (FieldKey, Reach, changed_fields, field_default, fields_equal, fields_to_observation,
                        observation_fields)

CORRECTION_KINDS = ("pawn", "row", "tile", "seats", "end", "turn", "points", "wish", "discard", "discarded")
#: Findings about what the whole turn allows (cards played against allowed, piles changed, a row's
#: top card taken back): a later part may show what allows more (a discard-a-card tile landed on —
#: players do things in any order), so they are judged on the whole turn as seen now, never kept
#: from an earlier part.
WHOLE_TURN_CODES = frozenset({"two-cards", "discard-mismatch", "row-changed"})


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
        self.raw: Observation | None = None     # the last accepted reading, as read
        self.turns: list[TurnRecord] = []
        self.piles: dict[str, tuple[str, ...]] = {}
        self.phase = "play"                     # "play", "final" (card game's last plays), "over"
        self.end_reason: str | None = None
        self.final_queue: tuple[str, ...] = ()
        self.draw_pile_found = 0                # cards the count missed (a draw seen after it ran out)
        self.turn_override: str | None = None   # "turn" correction: whose turn it is
        self.points_adjust: dict[str, int] = {}
        self.last_t: float | None = None
        self.last_frame: int | None = None
        self.notes: list[str] = []              # what the tracker wants the players to know
        self.step: Inference | None = None       # how the last accepted change was explained
        self.rejected = 0

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
            if t.phase != "play" or t.facts.from_hand <= 0:
                continue  # (no drawing in the card game's last plays)
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

    def _context(self, target: int | None) -> TurnContext:
        open_turn = self.open_turn()
        if self.turn_override is not None:
            return TurnContext(self.turn_override, self.table, (), False, self.phase, self.piles, target)
        if open_turn is not None:
            return TurnContext(open_turn.seat, open_turn.base, open_turn.tops, True, self.phase, self.piles, target,
                               open_turn.skipped, final_queue=self.final_queue,
                               hidden=(open_turn.facts.hidden_plays, open_turn.facts.hidden_draws),
                               known=frozenset(v.code for v in open_turn.report.violations)
                               | frozenset(v.code for v in open_turn.own),
                               after=() if self.phase == "final" else (self.seat_after(open_turn),))
        if self.turns:
            seat = self.final_queue[0] if self.phase == "final" and self.final_queue else \
                self.seat_after(self.turns[-1])
            return TurnContext(seat, self.table, (), False, self.phase, self.piles, target,
                               final_queue=self.final_queue[1:] if self.phase == "final" else ())
        return TurnContext(self.setup.first, self.table, (), False, self.phase, self.piles, target)

    def _record(self, seg: Segment, *, move_id: int, t_start: float, t: float, frame: int | None,
                skipped: Sequence[str], phase: str, inference: Inference | None, open_: bool = True) -> TurnRecord:
        if seg.silent:
            return TurnRecord(move_id, seg.seat, seg.before, seg.after, seg.report, (), (), seg.facts, (), False,
                              phase, t_start, t, frame, inference.confidence if inference else 1.0,
                              inference.note if inference else None, silent=True)
        facts = turn_facts(self.rules, seg.seat, seg.report, seg.tops, phase, seg.facts.hidden_plays,
                           seg.facts.hidden_draws)
        own = tuple(own_violations(self.rules, self.setup, seg.seat, seg.report, facts, skipped, phase, seg.tops))
        report = reconcile(seg.report, own, facts, phase)
        return TurnRecord(move_id, seg.seat, seg.before, seg.after, report, seg.tops, tuple(skipped), facts, own,
                          open_, phase, t_start, t, frame,
                          inference.confidence if inference else 1.0, inference.note if inference else None)

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

    def _apply_segments(self, inference: Inference, t: float, frame: int | None) -> None:
        for seg in inference.segments:
            self._check_draw_pile_not_empty(seg)
            last = self.turns[-1] if self.turns else None
            new_tops = [self._top_of(key, seg) for key in seg.keys if key[0] == "top"]
            if seg.silent:
                self._close_open_turn()
                self._check_draw_pile_end()
                if self.phase == "final" and seg.seat in self.final_queue:
                    self.final_queue = self.final_queue[self.final_queue.index(seg.seat) + 1:]
                self._append_silent(seg, t, frame, inference)
                continue
            if (seg.continues and last is not None and last.open and last.seat == seg.seat
                    and self.turn_override is None):
                rec = self._record(seg, move_id=last.move_id, t_start=last.t_start, t=t, frame=frame,
                                   skipped=last.skipped, phase=last.phase, inference=inference)
                # A rule the turn broke in an earlier part stays broken, though the check of the whole
                # turn may no longer show it (a card laid against the rules, then discarded from the
                # row by the discard tile) — unless this part proved that earlier reading a misread.
                if not any(tp.kind == "misread" for tp in seg.tops) and not _reread_card(last.end, seg.after, seg.keys):
                    now = {v.code for v in rec.violations()}
                    kept = tuple(v for v in last.violations() if v.code not in now and v.code not in DEFERRED_CODES
                                 and v.code not in WHOLE_TURN_CODES)
                    if kept:
                        rec = dataclasses.replace(rec, own=rec.own + kept)
                self.turns[-1] = rec
            else:
                self._close_open_turn()
                self._check_draw_pile_end()
                phase = self.phase
                if phase == "final":
                    if seg.seat in self.final_queue:
                        self.final_queue = self.final_queue[self.final_queue.index(seg.seat) + 1:]
                    else:
                        self.phase = phase = "over"
                        self.end_reason = self.end_reason or "last plays made"
                skipped = seg.skipped
                self.turn_override = None
                rec = self._record(seg, move_id=len(self.turns) + 1, t_start=t, t=t, frame=frame, skipped=skipped,
                                   phase=phase, inference=inference)
                self.turns.append(rec)
            for top in new_tops:
                if top is not None:
                    self._apply_top(top)
            self._hide_pair_card(rec, seg)
            self._stamp_totals(len(self.turns) - 1)
            self._check_end(rec)

    def _append_silent(self, seg: Segment, t: float, frame: int | None, inference: Inference | None) -> None:
        """Record a turn that left no trace (a hand came and went)."""
        self.turns.append(self._record(seg, move_id=len(self.turns) + 1, t_start=t, t=t, frame=frame, skipped=(),
                                       phase=self.phase, inference=inference))
        self._stamp_totals(len(self.turns) - 1)

    def _top_of(self, key: tuple, seg: Segment) -> TopChange | None:
        pile = key[1]
        for top in reversed(seg.tops):
            if top.pile == pile:
                return top
        return None

    def _hide_pair_card(self, rec: TurnRecord, seg: Segment) -> None:
        """Card game: both cards of a pair discarded onto one pile show as one change; the first
        lies under the second, unseen (UNKNOWN_CARD: even a pair for a wish card may be mismatched),
        so that drawing the top later is read as a draw, not as a new card discarded."""
        if rec.facts.discards != 1 or not any(k[0] == "wish_cards" for k in seg.keys):
            return
        top = next(t for t in rec.tops if t.kind == "discard")
        stack = list(self.piles.get(top.pile, ()))
        if not stack or stack[-1] != top.new:
            return
        self.piles[top.pile] = tuple(stack[:-1] + [UNKNOWN_CARD, stack[-1]])

    def _apply_top(self, top: TopChange) -> None:
        stack = list(self.piles.get(top.pile, ()))
        if top.kind == "misread":  # the misread card off the pile, the card read now on it (if not there)
            if stack and stack[-1] == top.old:
                stack.pop()
            if top.new is not None and (not stack or stack[-1] != top.new):
                stack.append(top.new)
            self.piles[top.pile] = tuple(stack)
            return
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

    def _check_draw_pile_not_empty(self, seg: Segment) -> None:
        """The tracker's own count ended the card game's play ("draw-pile", replays), yet a card is
        drawn from a discard pile: the game was not at its end — a draw that left no trace (a card
        taken off its twin) made the count run out early. Play goes on (RULES §3 End)."""
        if (self.rules.is_board or not self.config.auto_end_on_empty_draw_pile or self.end_reason != "draw-pile"
                or self.phase not in ("final", "over") or not any(tp.kind == "draw" for tp in seg.tops)):
            return
        self.phase, self.end_reason, self.final_queue = "play", None, ()
        # (at least one card was left when the count said none: count on from there)
        self.draw_pile_found += 1 - min(0, self.draw_pile_left(closed_only=True))

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

    def accept(self, raw: Observation, t: float, frame: int | None, target: int | None = None,
               quiet: int = 0, interval: float = 0.0, pause: float | None = None,
               reaches: Sequence[Reach] = (), exclude: frozenset[str] = frozenset()) -> None:
        """Take a newly accepted table reading (the stability filter's output)."""
        self.step = None
        if self.raw is None or self.table is None:
            try:
                self.rules.validate(raw)
            except ObservationError as exc:
                self.rejected += 1
                self._note(f"table state at frame {frame} cannot be used: {exc}")
                return
            self.table, self.raw = raw, raw
            self.piles = {p: (code,) for p, code in raw.discard_tops.items() if code is not None}
            self.last_t, self.last_frame = t, frame
            return
        table = apply_delta(self.table, self.raw, raw)
        try:
            self.rules.validate(table)
        except ObservationError as exc:
            self.rejected += 1
            self._note(f"table state at frame {frame} cannot be used: {exc}")
            return
        self.raw = raw
        self.last_t, self.last_frame = t, frame
        if fields_equal(observation_fields(table), observation_fields(self.table)):
            self.table = table
            return
        open_turn = self.open_turn()
        pending = 0
        if open_turn is not None and open_turn.phase == "play":
            pending = max(0, open_turn.facts.from_hand - open_turn.facts.all_draws)
        cfg = self.config
        split = cfg.split_cost_fast if 0 < interval < cfg.slow_frame_seconds else cfg.split_cost_slow
        ctx = dataclasses.replace(self._context(target), quiet=quiet, pending_draws=pending, split_cost=split,
                                  pause=pause, turn_pause=cfg.turn_pause_seconds,
                                  pause_margin=cfg.pause_margin_seconds, pause_cost=cfg.pause_cost,
                                  reaches=tuple(reaches),
                                  last_seat=self.turns[-1].seat if self.turns else None, exclude=exclude)
        inference = infer_moves(self.table, table, ctx, self.rules, self.setup, self.config)
        self.step = inference
        self._apply_segments(inference, t, frame)
        self.table = table

    def apply_turn(self, seat: str, after: Observation, tops: Sequence[TopChange], t: float, frame: int | None,
                   *, keys: Sequence[FieldKey] = (), hidden_draws: int = 0, skipped: Sequence[str] = ()) -> None:
        """One whole turn as the decoder read it (tracking.decoder): `seat` changed the table to
        `after` (discarding and drawing `tops`); the engine judges it, the score and the game's end follow."""
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
            and any(tp.kind == "draw" for tp in tops) else 0   # (its card went onto its twin: no trace)
        facts = SILENT_FACTS if silent else TurnFacts(0, 0, 0, 0, 1, 0, False, hidden_plays, hidden_draws)
        seg = Segment(seat, False, tuple(keys), before, after, report, tuple(tops), tuple(skipped), facts, (), True,
                      silent)
        self._apply_segments(Inference((seg,), 0, 1.0, (), None), t, frame)
        self.table = self.raw = after
        self.last_t, self.last_frame = t, frame

    def _note(self, text: str) -> None:
        self.notes = (self.notes + [text])[-20:]

    def reevaluate_open_turn(self, t: float | None = None) -> None:
        """Check the open turn again against the table (after a correction)."""
        turn = self.open_turn()
        if turn is None or self.table is None:
            return
        report = self.rules.check(turn.base, self.table)
        seg = Segment(turn.seat, True, (), turn.base, self.table, report, turn.tops, turn.skipped,
                      turn_facts(self.rules, turn.seat, report, turn.tops, turn.phase, turn.facts.hidden_plays,
                                 turn.facts.hidden_draws), (), True)
        self.turns[-1] = self._record(seg, move_id=turn.move_id, t_start=turn.t_start,
                                      t=turn.t if t is None else t, frame=turn.frame, skipped=turn.skipped,
                                      phase=turn.phase, inference=None)
        self._stamp_totals(len(self.turns) - 1)

    def correct(self, c: Mapping[str, Any], t: float | None = None, traceless: Sequence[str] = ()) -> str:
        """Apply a player's correction (docs/tracking-api.md correct); returns a sentence saying what changed.
        `traceless`: for an "end", the seats whose hands came and went, leaving no trace, before the
        players said it (Journal._step): turns played before the end."""
        kind = c.get("kind")
        if kind not in CORRECTION_KINDS:
            raise CorrectionError(f"unknown correction {kind!r} (known: {', '.join(CORRECTION_KINDS)})",
                                  source="correction", field="kind")
        if kind == "discarded":
            raise CorrectionError("who discarded a card is an answer to the decoder's question (TrackingConfig.decoder)",
                                  source="correction", field="kind")
        if kind == "seats":
            return self._correct_seats(c)
        if kind == "end":
            return self._correct_end(c, traceless)
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
        if self.raw is not None:
            self.raw = _relabel(self.raw, setup)
        return "seats: " + ", ".join(f"{s} {setup.seats[s]}" + (f" ({setup.names[s]})" if s in setup.names else "")
                                     for s in setup.order)

    def _correct_end(self, c: Mapping[str, Any], traceless: Sequence[str] = ()) -> str:
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
        for seat in traceless:
            # A hand that came and went before the players said it, at the seat whose turn it was: a
            # turn that left no trace (its card onto its twin, the draw pile's last card drawn), so the
            # last plays begin after it, not with it.
            if not self.turns or seat != self.seat_after(self.turns[-1]):
                break
            self._close_open_turn()
            table = self.table if self.table is not None else self.turns[-1].end
            self._append_silent(Segment(seat, False, (), table, table, ChangeReport((), ()), (), (), SILENT_FACTS, (),
                                        False, True), self.last_t or 0.0, self.last_frame, None)
            last = seat
        self._start_final(last, reason)
        return f"the game has ended ({reason}): the last plays follow"


def _reread_card(before: Observation, after: Observation, keys: Sequence[tuple]) -> bool:
    """Does a row of `keys` show its last card as another card now (a re-read of a misread card)?"""
    fb, fa = observation_fields(before), observation_fields(after)
    for key in keys:
        if key[0] != "row":
            continue
        old, new = tuple(fb.get(key, ())), tuple(fa.get(key, ()))
        if old and len(old) == len(new) and old[:-1] == new[:-1] and old[-1] != new[-1]:
            return True
    return False


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


def apply_delta(table: Observation, old_raw: Observation, new_raw: Observation) -> Observation:
    """The corrected table after the camera's reading went from old_raw to new_raw.

    Fields the camera reads the same as before keep their corrected value; fields it reads
    differently follow the camera: a row that grew keeps its corrected start and gets the new
    cards, a player's pawns lose and gain what the reading lost and gained, anything else takes
    the new reading. Without corrections this is simply new_raw.
    """
    fo, fn, ft = observation_fields(old_raw), observation_fields(new_raw), observation_fields(table)
    if fo == ft:
        return new_raw
    out = dict(ft)
    for key in changed_fields(fo, fn):
        old, new = fo.get(key), fn.get(key)
        cur = ft.get(key)
        value: Any = new
        if key[0] == "row" and old and new and tuple(new[:len(old)]) == tuple(old) and cur is not None:
            value = tuple(cur) + tuple(new[len(old):])
        elif key[0] == "pawns" and cur is not None:
            from collections import Counter
            lost = Counter(old or ()) - Counter(new or ())
            gained = Counter(new or ()) - Counter(old or ())
            have = Counter(cur)
            if not (lost - have):
                value = tuple(sorted((have - lost + gained).elements()))
        if value is None and key[0] not in ("tile", "top", "player", "meta"):
            out.pop(key, None)
        else:
            out[key] = value
    return fields_to_observation(out, new_raw)


# ---------------------------------------------------------------------------------------------
# The journal: inputs with checkpoints

# The journal's re-reading settings (how far back, which margins, what a misread costs) are
# TrackingConfig's reread_chain, second_opinion*, read_otherwise_*, hindsight_* and pile_record_rereads.


def _last_card_reread(key: tuple, held: Any, cur: Any) -> bool:
    """A row whose newest card reads as another card now (same length, only the last differs)."""
    return (key[0] == "row" and isinstance(held, tuple) and isinstance(cur, tuple) and len(held) == len(cur) > 0
            and held[:-1] == cur[:-1] and held[-1] != cur[-1])


def _owed_at_end(model: GameModel, plays: int, bonus: int) -> int:
    """What it costs (Journal._target) to end the open turn after `plays` cards when a discard-a-card
    tile let it play 1 + `bonus`: the card it owes went onto its twin unseen at best, and is a rule
    break when every discard pile is empty (nothing could hide it). Nothing with owed_discards off."""
    if not model.rules.is_board or plays >= 1 + bonus or not model.config.owed_discards:
        return 0
    return (1 + bonus - plays) * (10 if not any(model.piles.values()) else model.config.cost_twin)


def _recent_violations(model: GameModel, since: int) -> int:
    """Rule breaks known in the moves from index `since` on."""
    return sum(len(t.violations()) for t in model.turns[since:])


def _field_words(key: tuple) -> str:
    """A field of the table in words (for notes)."""
    if key[0] == "row":
        return f"{key[2]} row of {key[1]}"
    if key[0] == "top":
        return f"{key[1]} discard pile"
    if key[0] == "pawns":
        return f"pawns of {key[1]}"
    if key[0] == "tile":
        return f"tile on {key[1]}"
    return " ".join(str(k) for k in key)


@dataclass
class Input:
    """One input of the fold: an accepted state, a correction or the game's setup."""

    id: int | None
    kind: str                           # "state" or "correction"
    payload: dict[str, Any]
    raw: Observation | None = None      # parsed payload["raw"] for a state
    owners: tuple[str, ...] = ()        # seats whose things changed since the previous state (raw)
    discard_only: bool = False          # only discard-pile tops changed since the previous state
    #: Earlier readings this state proved misread (Journal._hindsight): (index, the input as it was),
    #: put back when this input is taken out again.
    patches: list[tuple[int, "Input"]] = field(default_factory=list)
    #: Set on an input whose reading a later state proved misread: what was read again (for notes).
    reread: str | None = None
    #: Explanations of this change that the next state proved wrong (Journal._second_opinion).
    exclude: frozenset[str] = frozenset()

    @property
    def reaches(self) -> tuple[Reach, ...]:
        """The hands over the table before this state (payload "reaches"; none in older databases)."""
        raw = self.payload.get("reaches") if self.kind == "state" else None
        return tuple(Reach.from_json(r) for r in raw) if isinstance(raw, list) else ()


def _owners(prev: Input | None, inp: Input, setup: Setup) -> tuple[tuple[str, ...], bool]:
    """Seats whose own things changed between two readings, and whether only discard tops did."""
    if prev is None or prev.raw is None or inp.raw is None:
        return (), False
    keys = changed_fields(observation_fields(prev.raw), observation_fields(inp.raw))
    player_seat = {p: s for s, p in setup.seats.items()}
    owners: list[str] = []
    for key in keys:
        seat = key[1] if key[0] in ("row", "points_row", "wish", "wish_cards", "player") else \
            player_seat.get(key[1]) if key[0] == "pawns" else None
        if seat is not None and seat not in owners:
            owners.append(seat)
    return tuple(owners), bool(keys) and all(key[0] == "top" for key in keys)


class Journal:
    """The inputs that count, with the model after each (models[i] follows inputs[:i])."""

    def __init__(self, setup: Setup, config: TrackingConfig | None = None, games: GameRegistry = GAMES):
        self.config = config or TrackingConfig()
        self.inputs: list[Input] = []
        self.models: list[GameModel] = [GameModel(setup, self.config, games)]

    @property
    def model(self) -> GameModel:
        """The model after every input."""
        return self.models[-1]

    def _last_state(self, before: int | None = None) -> Input | None:
        items = self.inputs if before is None else self.inputs[:before]
        return next((i for i in reversed(items) if i.kind == "state"), None)

    def _classify(self, inp: Input) -> None:
        prev = self._last_state()
        inp.owners, inp.discard_only = _owners(prev, inp, self.model.setup)

    def make_state(self, payload: dict[str, Any], id: int | None = None) -> Input:
        """Parse a "state" payload ({"raw", "t", "frame", "hand"[, "revises"]})."""
        raw = parse_observation(payload["raw"], f"state event {id}")
        return Input(id, "state", payload, raw)

    def revision_target(self, hand: bool) -> Input | None:
        """A state read with no hand over the table since the last one replaces that one: a
        misread that held, or a change too small to see a hand for (see StableStateFilter)."""
        if hand or not self.inputs or self.inputs[-1].kind != "state" or self.inputs[-1].id is None:
            return None
        return self.inputs[-1]

    def add(self, inp: Input) -> None:
        """Fold one more input (re-reading trailing discards when this change shows who acted)."""
        prior = self.model
        if inp.kind == "state" and self._before_the_end(inp):
            # The table was still before the players said the game is over: the move was made before
            # that (its state was taken late: a misread, a slow camera), so it comes before the end.
            end = self.inputs.pop()
            self.add(inp)
            self.inputs.append(end)
            self.refold(len(self.inputs) - 1)
            return
        if inp.kind == "state":
            self._classify(inp)
        self.inputs.append(inp)
        start = len(self.inputs) - 1
        if start > 0 and self.inputs[start - 1].kind == "correction" and self._traceless_before(start - 1):
            start -= 1  # (the end said after those hands: read it again knowing them)
        if inp.kind == "state" and (inp.owners or inp.discard_only):
            # Read the discard-only changes just before this one again, now that more is known
            # (who acts next, or at least how the chain goes on). A chain is re-read at most
            # config.reread_chain back; older readings stay.
            k = start
            while (k > 0 and start - k < self.config.reread_chain and self.inputs[k - 1].kind == "state"
                   and self.inputs[k - 1].discard_only):
                k -= 1
            start = k
        self.refold(start)
        if inp.kind == "state":
            self._hindsight(len(self.inputs) - 1)
            self._second_opinion(len(self.inputs) - 1)
            self._read_otherwise(len(self.inputs) - 1, prior)

    def _second_opinion(self, k: int) -> None:
        """Who played is chosen one change at a time; a close call can start a chain of turns given to
        the wrong players (a reach misread as the neighbour's, then every later reach "wrong").
        When state k's explanation is costly and the state before it had a runner-up within
        config.second_opinion_margin (and state k's cost is config.second_opinion_trigger or more),
        the two are read again with that runner-up; the reading whose two explanations cost less in
        all wins. Kept as the earlier input's `exclude`, put back when state k is taken out (like a
        misread found by hindsight). Off with config.second_opinion False."""
        cfg = self.config
        if not cfg.second_opinion or k == 0 or self.inputs[k - 1].kind != "state" or self.inputs[k - 1].raw is None:
            return
        now, before = self.models[k + 1].step, self.models[k].step
        if now is None or before is None or before.runner_up is None or not before.text:
            return
        if now.cost < cfg.second_opinion_trigger or before.runner_up - before.cost > cfg.second_opinion_margin:
            return
        original = before.cost + now.cost
        broken = len(before.violations) + len(now.violations)
        saved_inputs, saved_models = self.inputs, self.models
        trial = list(saved_inputs)
        trial[k - 1] = dataclasses.replace(trial[k - 1], exclude=trial[k - 1].exclude | {before.text})
        better = False
        try:
            self.inputs, self.models = trial, saved_models[:k]
            self.refold(k - 1)
            a, b = self.models[k].step, self.models[k + 1].step
            # (cheaper in all, and no rule break read away: hands never outweigh a rule break)
            better = a is not None and b is not None and a.cost + b.cost < original \
                and len(a.violations) + len(b.violations) >= broken
        finally:
            if not better:
                self.inputs, self.models = saved_inputs, saved_models
        if better:
            trial[k].patches = list(trial[k].patches) + [(k - 1, saved_inputs[k - 1])]

    def _read_otherwise(self, k: int, prior: GameModel) -> None:
        """Each change is explained as it comes; a later one can prove a close call wrong (which of
        two players drew a card, a pile's card drawn or its twin discarded): the next changes then
        read as a rule break. When state k adds rule breaks to the recent moves, each of the
        config.read_otherwise_states states before it (0: none) whose best other reading (other players,
        or another reading of a pile) cost at most config.read_otherwise_margin more is read with that one; the fold
        with fewer rule breaks and a lower cost in all (rule breaks included), and no more turns
        that left no trace, wins. Kept as that
        input's `exclude`, put back when state k is taken out (like _second_opinion). `prior`: the
        model before state k came (its coming may have read the changes before it again)."""
        states = self.config.read_otherwise_states
        if self.inputs[k].kind != "state" or k < 1 or states <= 0:
            return
        lo = k - 1
        while lo > 0 and k - lo < states and self.inputs[lo - 1].kind == "state":
            lo -= 1
        since = max(0, len(self.models[lo].turns) - 1)
        bad = _recent_violations(self.models[k + 1], since)
        if bad == 0 or bad <= _recent_violations(prior, since):
            return  # (no rule break new with this state)

        def cost(models: list[GameModel], first: int) -> int:
            return sum(m.step.cost for m in models[first + 1:k + 2] if m.step is not None)

        def traceless(model: GameModel) -> int:
            return sum(1 for t in model.turns[since:] if t.silent)

        saved_inputs, saved_models = self.inputs, self.models
        best: tuple[int, int, int, list[Input], list[GameModel]] | None = None
        try:
            for j in range(k - 1, lo - 1, -1):
                step = saved_models[j + 1].step
                if (saved_inputs[j].kind != "state" or step is None or step.runner_up_reading is None
                        or step.runner_up_reading - step.cost > self.config.read_otherwise_margin):
                    continue
                trial = list(saved_inputs)
                trial[j] = dataclasses.replace(trial[j], exclude=trial[j].exclude | {step.signature})
                self.inputs, self.models = trial, saved_models[:j + 1]
                self.refold(j)
                broken = _recent_violations(self.models[-1], since)
                total, before = cost(self.models, j), cost(saved_models, j)
                # (a turn nobody saw is no way out of a rule break: a misread hand makes one cheaply)
                if traceless(self.models[-1]) > traceless(saved_models[-1]):
                    continue
                if broken < bad and total < before and (best is None or (broken, total - before) < best[:2]):
                    best = (broken, total - before, j, trial, self.models)
        finally:
            self.inputs, self.models = saved_inputs, saved_models
        if best is None:
            return
        _, _, j, trial, models = best
        trial[k].patches = list(trial[k].patches) + [(j, saved_inputs[j])]
        self.inputs, self.models = trial, models

    def _traceless_before(self, k: int) -> tuple[str, ...]:
        """For an "end" correction (input k): the seats of the hands that came and went leaving no
        trace before the players said it — reaches of the next state that were gone by then."""
        payload = self.inputs[k].payload
        frame_t = payload.get("frame_t")
        if ((payload.get("correction") or {}).get("kind") != "end" or not isinstance(frame_t, (int, float))
                or k + 1 >= len(self.inputs) or self.inputs[k + 1].kind != "state"):
            return ()
        out: list[str] = []
        for r in self.inputs[k + 1].reaches:
            if r.end is None or r.end > float(frame_t) + 1e-6:
                break
            if r.quiet and r.seat is not None:
                out.append(r.seat)
        return tuple(out)

    def _before_the_end(self, inp: Input) -> bool:
        """Is `inp` a state whose table was still before the "end" correction just before it?"""
        if not self.inputs or self.inputs[-1].kind != "correction":
            return False
        last = self.inputs[-1].payload
        if (last.get("correction") or {}).get("kind") != "end":
            return False
        frame_t, seen = last.get("frame_t"), inp.payload.get("since_hand")
        return isinstance(frame_t, (int, float)) and isinstance(seen, (int, float)) \
            and float(seen) <= float(frame_t) + 1e-6

    def pop(self, ids: Sequence[int]) -> None:
        """Take inputs out (an undo, a revision) and fold again from the first one taken."""
        idset = set(ids)
        first = next((k for k, i in enumerate(self.inputs) if i.id in idset), None)
        if first is None:
            return
        # Readings that the inputs taken out had proved misread are as read again (newest first).
        for k in range(len(self.inputs) - 1, first - 1, -1):
            if self.inputs[k].id in idset:
                for index, original in reversed(self.inputs[k].patches):
                    if index < len(self.inputs):
                        self.inputs[index] = original
                        first = min(first, index)
        self.inputs = [i for i in self.inputs if i.id not in idset]
        for k in range(first, len(self.inputs)):
            if self.inputs[k].kind == "state":
                self._reclassify(k)
        self.refold(first)

    def _hindsight(self, k: int) -> None:
        """A new state that makes recent moves break rules may instead prove an earlier reading wrong.

        A misread can hold for a whole still moment (until the next hand), and so be taken as the
        table. When state k's change touches a field whose reading had changed only in the last
        config.hindsight_states states (0: never), the tracker tries reading it there as it reads now, or as it read
        before (the reading came and went), for each such field alone and for all of them together;
        the fold with the fewest rule breaks in the recent moves wins, and only when it has fewer
        than the fold as read (a real rule break stays one: a misread that explains it away must
        explain away more than it costs). The readings are kept as read (payload), so the same
        inputs fold to the same model after a restart; taking state k out puts them back."""
        inp = self.inputs[k]
        cfg = self.config
        if inp.raw is None or k == 0 or self.inputs[k - 1].kind != "state" or cfg.hindsight_states <= 0:
            return
        came_and_went, other = cfg.hindsight_came_and_went, cfg.hindsight_other
        span_start = k - 1
        while (span_start > 0 and k - span_start < cfg.hindsight_states
               and self.inputs[span_start - 1].kind == "state"):
            span_start -= 1
        if span_start == 0 or self.inputs[span_start - 1].kind != "state":
            span_start += 1  # (the reading before the span must be known)
        if span_start >= k or self.inputs[span_start - 1].raw is None:
            return
        since = max(0, len(self.models[span_start].turns) - 1)
        bad = _recent_violations(self.models[k + 1], since)
        if bad == 0:
            return
        fields = [observation_fields(i.raw) if i.raw is not None else None for i in self.inputs[span_start - 1:k + 1]]
        if any(f is None for f in fields):
            return
        now, last = fields[-1], fields[-2]
        # field -> [(first patched index, end (not patched), value, how unlikely that misread is)]
        options: dict[FieldKey, list[tuple[int, int, Any, float]]] = {}
        tail = inp.payload.get("tail") or {}
        for key in changed_fields(last, now):
            d = field_default(key)
            held = last.get(key, d)
            if key[0] == "top":
                # A discard pile's top comes and goes in play (a card discarded, then drawn by the next
                # player): only the frames say it was a misread — the last ones before the hand read
                # the pile as it reads now (StableStateFilter._tail_readings) — or the pile's record
                # (below).
                if key[1] in tail and tail[key[1]] != held:
                    # (as it reads now, or as the tail read it when it changed again since)
                    options[key] = [(k - 1, k, tail[key[1]], came_and_went)]
                continue
            j = k - 1  # the reading `held` began at input j
            while j > span_start and fields[j - 1 - (span_start - 1)].get(key, d) == held:
                j -= 1
            before = fields[j - 1 - (span_start - 1)].get(key, d)
            if before == held or key[0] in ("meta", "player"):
                continue  # held longer than the span: no short misread
            cur = now.get(key, d)
            opts: dict[Any, float] = {}
            # The reading came and went (reads as before again): a misread's own signature.
            # (not for a row: the NWNZ discard tile takes a row's top card back off legally)
            opts[before] = came_and_went if cur == before and key[0] != "row" else other
            if cur != before:
                opts[cur] = came_and_went if _last_card_reread(key, held, cur) else other
            if key[0] == "row" and isinstance(cur, tuple) and isinstance(held, tuple) and len(cur) > len(held):
                start = cur[:len(held)]  # (the row has grown since: its start as read now)
                opts.setdefault(start, came_and_went if _last_card_reread(key, held, start)
                                else other)
            options[key] = [(j, k, v, c) for v, c in opts.items() if v != held]
        rereads = self._top_rereads(span_start, k, fields, since) if cfg.pile_record_rereads else {}
        for key, opts in rereads.items():
            options.setdefault(key, []).extend(o for o in opts if o not in options.get(key, []))
        if not options:
            return
        candidates = [{key: opt} for key, opts in options.items() for opt in opts]
        if len(options) > 1:
            for pick in (0, 1):
                candidates.append({key: opts[min(pick, len(opts) - 1)] for key, opts in options.items()})
        best: tuple[float, list[Input], list[GameModel], dict] | None = None
        saved_inputs, saved_models = self.inputs, self.models
        try:
            for cand in candidates:
                first = min(j for j, _, _, _ in cand.values())
                trial = list(saved_inputs)
                for i in range(first, k):
                    if trial[i].kind != "state" or trial[i].raw is None:
                        continue
                    f = dict(observation_fields(trial[i].raw))
                    for key, (j, end, value, _) in cand.items():
                        if j <= i < end:
                            if value == field_default(key) and key[0] not in ("tile", "top", "meta", "player"):
                                f.pop(key, None)
                            else:
                                f[key] = value
                    words = ", ".join(_field_words(key) for key in cand)
                    trial[i] = dataclasses.replace(trial[i], raw=fields_to_observation(f, trial[i].raw),
                                                   reread=words if i == first else None)
                self.inputs, self.models = trial, saved_models[:first + 1]
                for i in range(first, k + 1):
                    if trial[i].kind == "state":
                        self._reclassify(i)
                self.refold(first)
                score = _recent_violations(self.models[-1], since) + sum(c for _, _, _, c in cand.values())
                if score < bad and (best is None or score < best[0]):
                    best = (score, trial, self.models, cand)
        finally:
            self.inputs, self.models = saved_inputs, saved_models
            self._reclassify(k)
        if best is None:
            return
        _, trial, models, cand = best
        first = min(j for j, _, _, _ in cand.values())
        trial[k].patches = [(i, saved_inputs[i]) for i in range(first, k) if trial[i] is not saved_inputs[i]]
        self.inputs, self.models = trial, models
        self._reclassify(k)

    def _top_rereads(self, span_start: int, k: int, fields: list[Fields], since: int) -> dict[FieldKey, list[tuple]]:
        """Discard-pile readings in states span_start..k-1 that look like a misread of a draw, by the
        pile's record: for one state the pile showed the card under its top (a draw's look) and then
        its old top again (nothing was drawn: the top was misread), or it showed a card that made a
        rule break as read and then the one under its old top (that top was drawn: the card between
        was misread). In play either takes a second copy of a card coming back at once, or a rule
        break; a misread held for a still moment does it alone. (Not the first in the card game: a
        card drawn and its twin discarded at once is how a pair for a wish card is made.)
        Options as in _hindsight: (first patched input, end, value, cost). Used only with
        config.pile_record_rereads."""
        out: dict[FieldKey, list[tuple]] = {}
        came = self.config.hindsight_came_and_went
        base = span_start - 1
        keys = {key for f in fields for key in f if key[0] == "top"}
        for key in keys:
            d = field_default(key)
            seq = [f.get(key, d) for f in fields]
            a = 1
            while a < len(seq) - 1:
                if seq[a] == seq[a - 1]:
                    a += 1
                    continue
                b = a
                while b + 1 < len(seq) - 1 and seq[b + 1] == seq[a]:
                    b += 1
                before, held, after = seq[a - 1], seq[a], seq[b + 1]
                # (one state only: a card drawn and discarded back later is play, not a misread)
                if a == b and after != held and before is not None:
                    stack = self.models[base + a].piles.get(key[1], ())
                    if (after == before and held is not None and self.models[base + a].rules.is_board
                            and revealed_depth(stack, before, held) is not None):
                        out.setdefault(key, []).append((base + a, base + b + 1, before, came))
                    elif (after not in (before, None) and revealed_depth(stack, before, after) is not None
                          and _recent_violations(self.models[base + a + 1], since)
                          > _recent_violations(self.models[base + a], since)):
                        # (... when the card between made a rule break as read: a draw misread as a play)
                        out.setdefault(key, []).append((base + a, base + b + 1, after, came))
                a = b + 1
        return out

    def _reclassify(self, k: int) -> None:
        inp = self.inputs[k]
        inp.owners, inp.discard_only = _owners(self._last_state(k), inp,
                                               self.models[min(k, len(self.models) - 1)].setup)

    def refold(self, start: int) -> None:
        """Recompute the models from input `start` on."""
        del self.models[start + 1:]
        for k in range(start, len(self.inputs)):
            self.models.append(self._step(self.models[k], k))

    def _target(self, k: int, model: GameModel) -> int | None:
        """For a change that shows only discard-pile tops, the turn it most likely belongs to, once a
        later change shows who played (the next change that touches a seat's own things).

        The discard-only changes up to that one are read together: each is either more of the
        open turn (a card drawn from a pile, or an extra card: two cards in one turn) or the next
        seat's turn (a discard; a pile showing its old top again is then a twin card discarded),
        possibly after turns that left no trace (a hand that came and went). The cheapest reading
        in rule breaks wins, as in infer_moves; the answer is the slot for input k (0: the open
        turn, 1: the next seat, 1 + s: after s traceless turns)."""
        if not self.inputs[k].discard_only or model.phase != "play":
            return None  # (the last plays and after the end follow no seat order)
        events: list[tuple] = []  # (discards, draw-looking changes, quiet hands, takes back, rest before)
        open_turn = model.open_turn()
        just_discarded = {t.pile: t.new for t in (open_turn.tops if open_turn is not None else ())
                          if t.kind == "discard"}
        owners: tuple[str, ...] = ()
        quiet_last = 0
        owner_input: Input | None = None
        owner_prev: Input | None = None
        piles = {p: list(v) for p, v in model.piles.items()}
        shown_last: dict[str, str | None] = {}
        prev = self._last_state(k)
        for j in range(k, len(self.inputs)):
            inp = self.inputs[j]
            if inp.kind != "state":
                continue
            quiet = int(inp.payload.get("quiet") or 0)
            if not inp.discard_only:
                owners, quiet_last = inp.owners, quiet
                owner_input, owner_prev = inp, prev
                break
            discards = drawlike = emptied = maybe = 0
            back = redraw = False
            discarded_now: dict[str, str | None] = {}
            shown_now: dict[str, str | None] = {}
            if prev is not None and prev.raw is not None and inp.raw is not None:
                for pile in set(prev.raw.discard_tops) | set(inp.raw.discard_tops):
                    old, new = prev.raw.discard_tops.get(pile), inp.raw.discard_tops.get(pile)
                    if old == new:
                        continue
                    stack = piles.setdefault(pile, [])
                    top = classify_top(pile, old, new, stack)
                    depth = revealed_depth(stack, old, new)
                    if top.kind == "discard" and depth is not None and stack[-depth - 1] == UNKNOWN_CARD:
                        # the card under the top is one the tracker does not know (under a pair's
                        # second card): a draw that uncovers it, or a card discarded — either
                        maybe += 1
                        del stack[len(stack) - depth:]
                        stack[-1] = new  # type: ignore[call-overload]
                        shown_now[pile] = new
                    elif top.kind == "draw":
                        drawlike += 1
                        if new is None:
                            emptied += 1  # an emptied pile was drawn from: no twin card can explain it
                            stack.clear()
                        back = back or just_discarded.get(pile) == old
                        # (the card a pile showed again last time drawn now: if that was a twin
                        # discarded, its player took it back)
                        redraw = redraw or shown_last.get(pile) == old
                        shown_now[pile] = new
                        del stack[len(stack) - min(depth or 1, len(stack)):]
                        if stack and stack[-1] == UNKNOWN_CARD and new is not None:
                            stack[-1] = new
                    else:
                        discards += 1
                        discarded_now[pile] = new
                        stack.append(new)  # type: ignore[arg-type]
            events.append((discards, drawlike, quiet, back, inp.payload.get("pause"), emptied, inp.reaches, redraw,
                           maybe))
            just_discarded, shown_last = discarded_now, shown_now
            prev = inp
        if not events:
            return None
        order = model.setup.order
        n = len(order)
        seat = open_turn.seat if open_turn is not None else model._context(None).seat
        if seat not in order or (open_turn is not None and model.seat_after(open_turn) != model.next_seat(seat)):
            return None  # (after a turn out of turn, the order resumes elsewhere: no hint)
        i0 = order.index(seat)
        x: int | None = None
        nxt = None
        if owners:
            nxt = min(owners, key=lambda s: (order.index(s) - i0) % n if s in order else n)
            if nxt not in order:
                return None
            x = order.index(nxt)
        # Does the next change start a new play (a card laid, a wish card), or only go on with one?
        new_play = True
        if owner_prev is not None and owner_input is not None and owner_prev.raw is not None \
                and owner_input.raw is not None:
            keys = changed_fields(observation_fields(owner_prev.raw), observation_fields(owner_input.raw))
            new_play = any(k[0] in ("row", "points_row", "wish_cards") and k[1] == nxt for k in keys)
        plays0 = open_turn.facts.plays if open_turn is not None else 0
        draws0 = open_turn.facts.all_draws if open_turn is not None else 0
        # Extra plays the open turn may make (a discard-a-card tile; a pair for a wish card).
        bonus0 = max(0, open_turn.facts.allowance - 1) if open_turn is not None else 0
        memo: dict[tuple[int, int, int, int, bool], tuple[int, tuple[int, ...]]] = {}

        def best(i: int, cur: int, plays: int, draws: int, twin: bool = False) -> tuple[int, tuple[int, ...]]:
            # twin: the last change was read as this seat's twin card discarded
            key = (i, cur, min(plays, 3), min(draws, 3), twin)
            if key in memo:
                return memo[key]
            if i == len(events):
                if x is None:  # nobody known to act next: no constraint at the end
                    memo[key] = (0, ())
                    return memo[key]
                d = (x - cur) % n
                if d == 0 and (plays == 0 or not new_play):
                    result = (0, ())
                else:
                    d = d or n  # the same player again: after a round of turns that left no trace?
                    skipped = d - 1
                    spare = max(0, quiet_last - max(0, plays - draws))
                    cfg = self.config
                    result = (cfg.cost_quiet * min(skipped, spare) + cfg.cost_quiet_unused * max(0, spare - skipped)
                              + (cfg.cost_violation if skipped > spare else 0), ())
                memo[key] = result
                return result
            discards, drawlike, quiet, back, pause, emptied, reaches, redraw, maybe = events[i]
            if maybe:  # (a change that is a draw or a discard: the cheaper reading for each option)
                variants = [best_of(i, cur, plays, draws, twin, discards + maybe, drawlike),
                            best_of(i, cur, plays, draws, twin, discards, drawlike + maybe)]
                memo[key] = min(variants)
                return memo[key]
            memo[key] = best_of(i, cur, plays, draws, twin, discards, drawlike)
            return memo[key]

        def best_of(i: int, cur: int, plays: int, draws: int, twin: bool, discards: int,
                    drawlike: int) -> tuple[int, tuple[int, ...]]:
            _, _, quiet, back, pause, emptied, reaches, redraw, _ = events[i]
            hands = any(r.read for r in reaches)
            cfg = self.config
            rest = 0 if pause is None else (1 if float(pause) >= cfg.turn_pause_seconds + cfg.pause_margin_seconds
                                            else -1 if float(pause) <= cfg.turn_pause_seconds - cfg.pause_margin_seconds
                                            else 0)
            pc = self.config.pause_cost
            options = []
            # more of the open turn: draw-looking changes are draws, discards are extra cards
            spare_here = max(0, quiet - max(0, plays - draws))  # reaches beyond the open turn's draws
            p2, d2 = plays + discards, draws + drawlike
            allowed = 1 + (bonus0 if cur == i0 else 0)  # (approximately: the open seat's turn)
            rule = cfg.cost_violation
            cost = rule * (max(0, p2 - allowed) - max(0, plays - allowed)) \
                + rule * (max(0, d2 - p2) - max(0, draws - plays))  # (more cards drawn than played)
            cost += rule if back or (twin and redraw) else 0  # drawing back the card just discarded breaks a rule
            if hands:  # whose hands came and went is known: weigh them (inference.hand_cost)
                cost += hand_cost(reaches, [(order[cur], NEED_ACTIVE)], order, cfg)
            else:
                cost += cfg.cost_quiet_unused * spare_here     # reaches that left no trace, left unexplained
            cost += pc if rest > 0 else 0  # a long rest, yet the same turn
            sub = best(i + 1, cur, p2, d2)
            options.append((cost + sub[0], (0, *sub[1])))
            # the next seat's turn (after s traceless turns): its discard, and maybe its draw
            firsts = []
            if discards:
                firsts.append((cfg.cost_turn + rule * (discards - 1) + rule * max(0, drawlike - discards), discards,
                               drawlike, False))
            elif drawlike and not emptied:  # a pile showing its old top again: a twin card discarded
                firsts.append((cfg.cost_turn + cfg.cost_twin * drawlike + rule * (drawlike - 1), drawlike, 0, True))
            if not discards and drawlike >= 2 and drawlike > emptied:
                # one pile showing its old top again is the twin card discarded, the rest were drawn
                firsts.append((cfg.cost_turn + cfg.cost_twin + rule * max(0, drawlike - 2), 1, drawlike - 1, True))
            if not discards and drawlike and hands and any(r.quiet for r in reaches):
                # a hand came and went, then a card was drawn from a pile: the next player's card went
                # onto its twin (no trace) and they drew
                firsts.append((cfg.cost_turn + cfg.cost_twin + rule * (drawlike - 1), 1, drawlike, False))
            if cur == i0:
                owed = _owed_at_end(model, plays, bonus0)
                firsts = [(f[0] + owed, *f[1:]) for f in firsts]
            for first in firsts:
                for s in range(0, spare_here + 1):
                    sub = best(i + 1, (cur + 1 + s) % n, first[1], first[2], first[3])
                    if hands:
                        actors = [(order[cur], NEED_NONE)] + [(order[(cur + 1 + j) % n], NEED_REACH)
                                                              for j in range(s)] + [(order[(cur + 1 + s) % n], NEED_ACTIVE)]
                        evidence = cfg.cost_quiet * s + hand_cost(reaches, actors, order, cfg)
                    else:
                        evidence = cfg.cost_quiet * s + cfg.cost_quiet_unused * (spare_here - s)
                    options.append((first[0] + evidence + (pc if rest < 0 else 0) + sub[0], (1 + s, *sub[1])))
            return min(options)

        return best(0, i0, plays0, draws0)[1][0]

    def _step(self, before: GameModel, k: int) -> GameModel:
        inp = self.inputs[k]
        model = before.clone()
        if inp.kind == "state":
            assert inp.raw is not None
            t = float(inp.payload.get("t") or 0.0)
            frame = inp.payload.get("frame")
            taken_back = self._taken_back(k, model, inp.raw)
            if taken_back is not None:
                restored = taken_back.clone()
                restored.raw, restored.table = inp.raw, apply_delta(restored.table, restored.raw, inp.raw) \
                    if restored.table is not None and restored.raw is not None else inp.raw
                restored.last_t, restored.last_frame = t, frame
                restored.step = None
                restored._note(f"move {len(model.turns)} was taken back on the table")
                return restored
            if inp.reread:
                model._note(f"read again: the {inp.reread} as read at frame {frame} was a misread "
                            "(a later state shows it otherwise)")
            pause = inp.payload.get("pause")
            model.accept(inp.raw, t, frame, self._target(k, model), int(inp.payload.get("quiet") or 0),
                         float(inp.payload.get("interval") or 0.0), None if pause is None else float(pause),
                         inp.reaches, inp.exclude)
        elif inp.kind == "correction":
            try:
                model.correct(inp.payload["correction"], inp.payload.get("t"), self._traceless_before(k))
            except (MalformedInput, ValueError, LookupError) as exc:
                # Checked before it was stored, so this only happens when an earlier input changed.
                model._note(f"correction no longer applies: {exc}")
        return model

    def _taken_back(self, k: int, model: GameModel, raw: Observation) -> GameModel | None:
        """The model before the last move when the table is back exactly as it was then.

        Only for a move that laid cards or moved pawns: a discard pile showing its old top again
        is as likely a second copy of that card discarded by the next player."""
        if not model.turns or model.table is None or model.raw is None:
            return None
        last = model.turns[-1]
        if not any(k2[0] != "top" for k2 in changed_fields(observation_fields(last.base),
                                                            observation_fields(last.end))):
            return None
        n = len(model.turns)
        for m in reversed(self.models[:k + 1]):
            if len(m.turns) < n:
                if m.table is None or m.raw is None:
                    return None
                if fields_equal(observation_fields(apply_delta(model.table, model.raw, raw)),
                                observation_fields(m.table)):
                    return m
                return None
        return None
