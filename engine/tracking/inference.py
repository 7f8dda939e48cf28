"""Move inference: which turn(s) explain the change between two accepted table states.

The camera never sees hands or the draw pile, so a turn is known by what it leaves on the table:
cards appearing in a row, pawns moving, tiles and wish stones taken, discard-pile tops changing.
The change is cut into field changes. Those that belong to a seat (its rows, wish stones, its
player's pawns) say who acted; the others (discard tops, tiles) are given to a turn by trying each
way. Every way of cutting the change into consecutive turns of the seat order (continuing the open
turn, then the next seats) is judged with the rules engine's check of each turn
(`check_change`) plus what only a history knows: turn order, how many cards a turn plays, whether
a discard-pile change is a discard or a draw (the tracker keeps each pile's cards), the game
being over. The cheapest explanation wins; when another one is as cheap the inference says so.

A turn that is still going on (the last part) does not yet count what is missing from it — a
pawn not yet moved, a wish stone not yet taken — since players do things in any order: those
codes (DEFERRED_CODES) are reported when the turn closes, i.e. when the next player acts.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..events import ChangeReport
from ..observation import Observation
from ..violations import Violation
from .games import GameRules, Setup
from .stability import FieldKey, Fields, changed_fields, field_default, fields_to_observation, observation_fields

#: Violations about something a turn has not done *yet*: reported once the turn is over.
DEFERRED_CODES = frozenset({"no-card", "pawn-not-moved", "no-pawn-to-move", "tile-not-taken", "wish-not-taken",
                            "clover-not-used", "discard-tile-not-used", "draw-count", "no-wish-card"})
# Costs of an explanation (in "rule breaks"): lower is likelier.
COST_VIOLATION = 10
COST_PENDING = 2
COST_TURN = 1
COST_ODD_DRAW = 4
COST_HINT = 15
COST_QUIET = 1
COST_QUIET_UNUSED = 3  # a reach that left no trace and is not read as a turn or a draw
_MAX_TOP_CHOICES = 3  # beyond this many changed discard piles, all go to one turn (a very odd change)


@dataclass(frozen=True)
class TopChange:
    """A discard pile whose top changed: a card discarded onto it, or its top card drawn."""

    pile: str
    old: str | None
    new: str | None
    kind: str  # "discard" or "draw"

    @property
    def card(self) -> str | None:
        """The card discarded (new top) or drawn (old top)."""
        return self.new if self.kind == "discard" else self.old

    def to_json(self) -> dict[str, Any]:
        """JSON for logs."""
        return {"pile": self.pile, "old": self.old, "new": self.new, "kind": self.kind}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TopChange":
        """Inverse of to_json."""
        return cls(d["pile"], d.get("old"), d.get("new"), d["kind"])


def classify_top(pile: str, old: str | None, new: str | None, stack: Sequence[str]) -> TopChange:
    """Discard or draw? A draw uncovers the card below the top (known from the pile's history)."""
    if new is None:
        return TopChange(pile, old, new, "draw")
    if len(stack) >= 2 and stack[-1] == old and stack[-2] == new:
        return TopChange(pile, old, new, "draw")
    return TopChange(pile, old, new, "discard")


@dataclass(frozen=True)
class TurnContext:
    """What the tracker knows when a new table state comes: the open turn and the piles."""

    seat: str | None                     # whose turn is open (None: nobody has played yet)
    base: Observation | None             # the table when the open turn began
    tops: tuple[TopChange, ...] = ()     # discards and draws already seen in the open turn
    started: bool = False                # has the open turn changed the table yet?
    phase: str = "play"                  # "play", "final" (card game's last plays) or "over"
    piles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target: int | None = None            # re-read of a discard: the turn (slot) it most likely belongs to
    skipped: tuple[str, ...] = ()        # seats the open turn skipped (it was played out of turn)
    quiet: int = 0                       # hands over the table that changed nothing since the last state
    pending_draws: int = 0               # cards the open turn has still to draw (reaches that change nothing)
    split_cost: int = 0                  # cost of reading one accepted change as several turns
    pause: float | None = None           # rest before the first reach of this change (seconds)
    turn_pause: float = 1.4              # a longer rest hints at a new player
    pause_margin: float = 0.4
    pause_cost: int = 0


@dataclass(frozen=True)
class TurnFacts:
    """What a turn (so far) did, counted from the engine's events and the discard changes."""

    lays: int
    discards: int
    row_discards: int
    draws: int
    allowance: int
    points: int
    wish_pair: bool

    @property
    def plays(self) -> int:
        """Cards played: laid in rows plus discarded."""
        return self.lays + self.discards

    @property
    def from_hand(self) -> int:
        """Cards that left the hand (row tops discarded by the NWNZ tile did not)."""
        return self.lays + self.discards - self.row_discards


def turn_facts(rules: GameRules, seat: str, report: ChangeReport, tops: Sequence[TopChange], phase: str) -> TurnFacts:
    """Count a turn's plays, draws, allowance (cards it may play) and points-tile points."""
    lays = row_discards = landings = points = 0
    wish_pair = False
    for e in report.changes:
        if e.seat != seat:
            continue
        if e.kind == "card-laid":
            lays += int(e.data.get("count", 1) or 1)
        elif e.kind == "row-card-discarded":
            row_discards += 1
        elif e.kind == "discard-tile":
            landings += 1
        elif e.kind == "points-tile":
            points += int(e.data.get("points", 0) or 0)
        elif e.kind == "wish-taken":
            wish_pair = True
    discards = sum(1 for t in tops if t.kind == "discard")
    draws = sum(1 for t in tops if t.kind == "draw")
    if rules.is_board:
        allowance = 1 + landings
    elif phase == "final":
        allowance = 2 if getattr(rules.settings, "final_play", "two-cards") == "two-cards" else 1
        allowance = max(allowance, 2 if wish_pair else allowance)
    else:
        allowance = 2 if wish_pair else 1
    return TurnFacts(lays, discards, row_discards, draws, allowance, points, wish_pair)


#: What a turn that left no trace is assumed to have done: discarded a card onto its twin, drawn one.
SILENT_FACTS = TurnFacts(0, 1, 0, 0, 1, 0, False)


def own_violations(rules: GameRules, setup: Setup, seat: str, report: ChangeReport, facts: TurnFacts,
                   skipped: Sequence[str], phase: str, tops: Sequence[TopChange]) -> list[Violation]:
    """The rules only a history can see: turn order, cards per turn across states, the game's end."""
    who = setup.name(seat)
    codes = {v.code for v in report.violations}
    out: list[Violation] = []
    if phase == "over":
        if "game-over" not in codes:
            out.append(Violation("game-over", f"the game was already over, but {who} still played", seat))
        return out
    if skipped:
        turn = setup.name(skipped[0])
        out.append(Violation("out-of-turn", f"{who} played, but it was {turn}'s turn", seat,
                             {"expected": skipped[0]}))
    discarded_here: dict[str, list[str | None]] = {}
    for top in tops:
        if top.kind == "discard":
            discarded_here.setdefault(top.pile, []).append(top.new)
        elif top.old is not None and discarded_here.get(top.pile) and discarded_here[top.pile][-1] == top.old:
            discarded_here[top.pile].pop()
            if "draw-own-discard" not in codes:
                out.append(Violation("draw-own-discard", f"{who} took back {_card_text(top.old, top.pile)} "
                                     f"discarded this turn from the {top.pile} discard pile", seat,
                                     {"pile": top.pile, "card": top.old}))
    pair_without_card = False
    if not rules.is_board:
        # Card game: a wish card is taken with two discarded cards of its value (RULES §3 Turn).
        taken = [int(e.data.get("wish", 0)) for e in report.changes if e.kind == "wish-taken" and e.seat == seat]
        values = [_value(t.new) for t in tops if t.kind == "discard"]
        for v in taken:
            odd = [x for x in values if x is not None and x != v]
            if odd and "pair-mismatch" not in codes:
                out.append(Violation("pair-mismatch", f"{who} took the wish card {v} but discarded "
                                     + " and ".join(f"a {x}" for x in odd) + f": it takes two cards of value {v}",
                                     seat, {"wish": v, "discarded": odd}))
        if not taken and len(values) == 2 and values[0] == values[1] and values[0] is not None \
                and 1 <= values[0] <= 9:
            pair_without_card = True
            out.append(Violation("no-wish-card", f"{who} discarded two {values[0]}s but took no wish card: the "
                                 f"wish card {values[0]} is no longer in the middle", seat, {"wish": values[0]}))
    if facts.plays > facts.allowance + (1 if pair_without_card else 0) and "two-cards" not in codes:
        what = []
        if facts.lays:
            what.append(f"laid {facts.lays} card{'s' if facts.lays > 1 else ''}")
        discarded = [t for t in tops if t.kind == "discard"]
        if discarded:
            what.append("discarded " + ", ".join(_card_text(t.new or "", t.pile) for t in discarded))
        out.append(Violation("two-cards", f"{who} {' and '.join(what)} in one turn: a turn plays one card",
                             seat, {"plays": facts.plays, "allowed": facts.allowance}))
    return out


def _value(code: str | None) -> int | None:
    if code is None or code == "E":
        return None
    return int(code[1:]) if code.startswith("P") else int(code)


def _card_text(code: str, pile: str) -> str:
    if code.startswith("P"):
        return f"the points card {code[1:]}"
    if code == "E":
        return f"the {pile} end card"
    return f"the {pile} {code}"


@dataclass(frozen=True)
class Segment:
    """One turn's part of a change: who, which fields, and the engine's check of that whole turn."""

    seat: str
    continues: bool                      # continues the open turn (else starts a new one)
    keys: tuple[FieldKey, ...]
    before: Observation                  # the table when this turn began
    after: Observation                   # the table after this part
    report: ChangeReport                 # engine check of the whole turn so far
    tops: tuple[TopChange, ...]          # every discard/draw of the whole turn so far
    skipped: tuple[str, ...]             # seats whose turn passed unseen before this one
    facts: TurnFacts
    own: tuple[Violation, ...]           # tracker's own findings (turn order, cards per turn, game over)
    final: bool                          # the last part: this turn may still go on
    silent: bool = False                 # a turn that left no trace (a hand came and went)


@dataclass(frozen=True)
class Inference:
    """The chosen explanation of a change, how sure it is, and the runners-up."""

    segments: tuple[Segment, ...]
    cost: int
    confidence: float
    alternatives: tuple[str, ...]
    note: str | None

    @property
    def violations(self) -> list[Violation]:
        """Every violation known now (deferred ones of the still-open last turn left out)."""
        out: list[Violation] = []
        for s in self.segments:
            out.extend(v for v in s.report.violations if not (s.final and v.code in DEFERRED_CODES))
            out.extend(s.own)
        return out


def _owner(key: FieldKey, player_seat: Mapping[str, str]) -> str | None:
    kind = key[0]
    if kind in ("row", "points_row", "wish", "wish_cards", "player"):
        return key[1]
    if kind == "pawns":
        return player_seat.get(key[1])
    return None


def _landed(key: FieldKey, fb: Fields, fa: Fields, spot: str) -> bool:
    before = {s for s, _ in fb.get(key, ())}
    return any(s == spot for s, _ in fa.get(key, ())) and spot not in before


def _describe(slots: Sequence[tuple[str, bool, tuple[str, ...]]], setup: Setup) -> str:
    parts = []
    for seat, continues, skipped in slots:
        text = (setup.name(seat) if seat in setup.seats else seat) + (" (same turn)" if continues else "")
        if skipped:
            text += f" after skipping {', '.join(setup.name(s) for s in skipped)}"
        parts.append(text)
    return " then ".join(parts) or "no turn"


def infer_moves(prev: Observation, new: Observation, ctx: TurnContext, rules: GameRules,
                setup: Setup) -> Inference:
    """Explain the change prev → new as a sequence of turns (TRACKING_API.md infer_moves)."""
    fb, fa = observation_fields(prev), observation_fields(new)
    changed = changed_fields(fb, fa)
    order = setup.order
    n = len(order)
    player_seat = {p: s for s, p in setup.seats.items()}
    owned: dict[str, list[FieldKey]] = {}
    tops: list[FieldKey] = []
    tiles: list[FieldKey] = []
    loose: list[FieldKey] = []
    for key in changed:
        seat = _owner(key, player_seat)
        if seat is not None and seat in setup.seats:
            owned.setdefault(seat, []).append(key)
        elif key[0] == "top":
            tops.append(key)
        elif key[0] == "tile":
            tiles.append(key)
        else:
            loose.append(key)
    # A pile showing the card below its top again was drawn from — or a second copy of that card
    # was discarded onto it (every board-game card exists twice): both are tried.
    top_options: dict[FieldKey, list[TopChange]] = {}
    for key in tops:
        first = classify_top(key[1], fb.get(key), fa.get(key), ctx.piles.get(key[1], ()))
        top_options[key] = [first]
        if first.kind == "draw" and first.new is not None:
            top_options[key].append(TopChange(first.pile, first.old, first.new, "discard"))
    kind_choices = list(itertools.product(*(top_options[key] for key in tops))) if tops else [()]

    # The slots: the open turn (index 0), then the seats after it in order, once round the table.
    if ctx.seat is not None:
        starts = [order.index(ctx.seat)]
    elif owned:  # nobody has played yet: whoever acts first may be the first player
        starts = [order.index(s) for s in order if s in owned]
    else:
        starts = [order.index(setup.first) if setup.first in order else 0]
    candidates: list[tuple[int, list[tuple[int, str, tuple[FieldKey, ...]]], dict[FieldKey, TopChange]]] = []
    for i0 in starts:
        slot_seats = [order[(i0 + k) % n] for k in range(n + 1)]
        seat_options = []
        for seat in owned:
            seat_options.append([k for k, s in enumerate(slot_seats) if s == seat])
        for seat_slots in itertools.product(*seat_options):
            assigned = dict(zip(owned, seat_slots))
            if len(set(seat_slots)) != len(seat_slots):
                continue
            used = set(seat_slots) or {0}
            # (up to one turn after the last seat that acted, more when reaches left no trace)
            top_range = list(range(0, min(n, max(used) + 1 + ctx.quiet) + 1))
            if len(tops) > _MAX_TOP_CHOICES:
                top_assignments = [tuple(k for _ in tops) for k in top_range]
            else:
                top_assignments = list(itertools.product(top_range, repeat=len(tops)))
            for top_slots in top_assignments:
                slots: dict[int, list[FieldKey]] = {}
                for seat, k in assigned.items():
                    slots.setdefault(k, []).extend(owned[seat])
                for key, k in zip(tops, top_slots):
                    slots.setdefault(k, []).append(key)
                # Tiles go with the turn whose pawn landed on their stone (else the first turn).
                for key in tiles:
                    k = next((assigned[s] for s in owned for pk in owned[s]
                              if pk[0] == "pawns" and _landed(pk, fb, fa, key[1])), min(slots) if slots else 0)
                    slots.setdefault(k, []).append(key)
                if loose:
                    slots.setdefault(min(slots) if slots else 0, []).extend(loose)
                if not slots:
                    slots[0] = []
                if ctx.seat is None and min(slots) != 0:
                    continue  # the first player is the one who acts first
                for kinds in kind_choices:
                    candidates.append((i0, [(k, slot_seats[k], tuple(slots[k])) for k in sorted(slots)],
                                       dict(zip(tops, kinds))))

    cache: dict[tuple[frozenset, frozenset], ChangeReport] = {}

    def check(before_f: Fields, before: Observation, after_f: Fields, after: Observation) -> ChangeReport:
        key = (frozenset(before_f.items()), frozenset(after_f.items()))
        if key not in cache:
            cache[key] = rules.check(before, after)
        return cache[key]

    base = ctx.base if ctx.base is not None else prev
    base_f = observation_fields(base)
    judged: list[tuple[int, int, Inference, str]] = []
    for i0, slots, top_changes in candidates:
        cur_f = dict(fb)
        cur = prev
        segments: list[Segment] = []
        cost = 0
        last_k = 0 if (ctx.seat is not None and ctx.started) else -1
        # Reaches that left the table as it was: first the open turn's draws from the draw pile;
        # any beyond those may be turns that left no trace (a card discarded onto its twin).
        quiet_left = max(0, ctx.quiet - ctx.pending_draws)
        new_turns = 0
        describe = []
        for idx, (k, seat, keys) in enumerate(slots):
            nxt_f = dict(cur_f)
            for key in keys:
                d = field_default(key)
                value = fa.get(key, d)
                if value == d and key[0] not in ("tile", "top", "meta", "player"):
                    nxt_f.pop(key, None)
                else:
                    nxt_f[key] = value
            nxt = fields_to_observation(nxt_f, new)
            continues = k == 0 and ctx.seat is not None
            if continues:
                t_before, t_before_f = base, base_f
                skipped: tuple[str, ...] = ctx.skipped
            else:
                first = ctx.seat is None and idx == 0
                passed = [] if first else [order[(i0 + j) % n] for j in range(last_k + 1, k)]
                # Seats whose turn passed: a hand that left no trace may have been theirs.
                silent, passed = passed[:quiet_left], passed[quiet_left:]
                quiet_left -= len(silent)
                for quiet_seat in silent:
                    segments.append(Segment(quiet_seat, False, (), cur, cur, ChangeReport((), ()), (), (),
                                            SILENT_FACTS, (), False, True))
                    describe.append((quiet_seat + " (no visible change)", False, ()))
                    cost += COST_QUIET
                skipped = tuple(passed)
                t_before, t_before_f = cur, cur_f
            prior = ctx.tops if continues else ()
            seg_tops = prior + tuple(top_changes[key] for key in keys if key[0] == "top")
            report = check(t_before_f, t_before, nxt_f, nxt)
            final = idx == len(slots) - 1
            phase = ctx.phase
            facts = turn_facts(rules, seat, report, seg_tops, phase)
            own = tuple(own_violations(rules, setup, seat, report, facts, skipped, phase, seg_tops))
            shown = [v for v in report.violations if not (final and v.code in DEFERRED_CODES)]
            pending = [v for v in report.violations if final and v.code in DEFERRED_CODES]
            cost += COST_VIOLATION * (len(shown) + len(own)) + COST_PENDING * len(pending)
            if idx == 0 and ctx.pause is not None and ctx.pause_cost and ctx.seat is not None and ctx.started:
                if ctx.pause >= ctx.turn_pause + ctx.pause_margin and continues:
                    cost += ctx.pause_cost   # a long rest, yet the same turn
                elif ctx.pause <= ctx.turn_pause - ctx.pause_margin and not continues:
                    cost += ctx.pause_cost   # a quick reach, yet a new player
            if not continues:
                cost += COST_TURN
                if new_turns:
                    cost += ctx.split_cost  # one still table read as two turns: a still moment missed
                new_turns += 1
            if facts.draws > max(facts.from_hand, 0):
                cost += COST_ODD_DRAW * (facts.draws - max(facts.from_hand, 0))
            if ctx.target is not None and final and not owned and k != ctx.target:
                # A re-read knowing who acted next (Journal.discard_target): follow it.
                cost += COST_HINT
            segments.append(Segment(seat, continues, keys, t_before, nxt, report, seg_tops, skipped, facts, own,
                                    final))
            describe.append((seat, continues, skipped))
            cur_f, cur = nxt_f, nxt
            last_k = k
        cost += COST_QUIET_UNUSED * quiet_left
        inference = Inference(tuple(segments), cost, 1.0, (), None)
        judged.append((cost, len(segments), inference, _describe(describe, setup)))
    judged.sort(key=lambda j: (j[0], j[1]))
    best_cost, _, best, best_text = judged[0]
    runners = [(c, text) for c, _, _, text in judged[1:] if text != best_text]
    tied = [text for c, text in runners if c == best_cost]
    close = [text for c, text in runners if c < best_cost + COST_ODD_DRAW]
    if tied:
        confidence = 1.0 / (1 + len(set(tied)))
        note = f"ambiguous: {best_text} fits as well as {'; '.join(dict.fromkeys(tied))}; chose the first"
    elif close:
        confidence = 0.8
        note = None
    else:
        confidence = 1.0
        note = None
    alternatives = tuple(dict.fromkeys(f"{text} (cost {c})" for c, text in runners[:3]))
    return Inference(best.segments, best_cost, confidence, alternatives, note)
