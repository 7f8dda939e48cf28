"""Move inference: which turn(s) explain the change between two accepted table states.

The camera never sees the cards in a hand or the draw pile, so a turn is known by what it leaves
on the table (and, when the observer reads them, by whose arm reached over it):
cards appearing in a row, pawns moving, tiles and wish stones taken, discard-pile tops changing.
The change is cut into field changes. Those that belong to a seat (its rows, wish stones, its
player's pawns) say who acted; the others (discard tops, tiles) are given to a turn by trying each
way. Every way of cutting the change into consecutive turns of the seat order (continuing the open
turn, then the next seats) is judged with the rules engine's check of each turn
(`check_change`) plus what only a history knows: turn order, how many cards a turn plays, whether
a discard-pile change is a discard or a draw (the tracker keeps each pile's cards), the game
being over. The cheapest explanation wins; when another one is as cheap the inference says so.

When the observer says whose arm reached over the table (the "hands" extension, read from the
table edge the arm crosses), every explanation is also held against the reaches seen since the
last state (`hand_cost`): a reach clearly naming a seat that the explanation does not have acting
at that moment costs cost_hand_*, a turn with no reach seen for it cost_no_reach (TrackingConfig). This is strong
evidence for who dropped a card on a discard pile, and for who made a reach that changed nothing
visible (a draw, or a card discarded onto its twin) — but never certainty: a rule break still
outweighs one misread reach, and turn order decides when the hands say nothing. With hands read,
a pile the open turn discarded on that reads otherwise later (or shows its old top again), with no
one else's hand in between, may also be that discard misread (config.cost_misread).

A turn that is still going on (the last part) does not yet count what is missing from it — a
pawn not yet moved, a wish stone not yet taken — since players do things in any order: those
codes (DEFERRED_CODES) are reported when the turn closes, i.e. when the next player acts.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from engine.cardgame.observed import _copies as deck_copies
from engine.events import ChangeReport
from engine.observation import Observation
from engine.setup import Setup
from engine.violations import Violation

from .config import TrackingConfig
from .games import GameRules
from .stability import (FieldKey, Fields, Reach, changed_fields, field_default, fields_to_observation,
                        observation_fields)

#: Violations about something a turn has not done *yet*: reported once the turn is over.
#: (A wish stone or tile taken before its pawn is seen landing — the pawn misread for a moment — is
#: the same: "wish-unexplained" and "tile-removed" wait for the rest of the turn.)
DEFERRED_CODES = frozenset({"no-card", "pawn-not-moved", "no-pawn-to-move", "tile-not-taken", "wish-not-taken",
                            "clover-not-used", "discard-tile-not-used", "draw-count", "no-wish-card",
                            "wish-unexplained", "tile-removed"})
#: Deferred findings a discard seen later can still settle: a card the turn owes a discard pile. An
#: explanation that ends the turn without it pays for the rule break at once (other deferred
#: findings are judged when the turn is over, whatever explains the change).
OWED_CODES = frozenset({"discard-tile-not-used"})
# The costs of an explanation (in "rule breaks": lower is likelier) are TrackingConfig's cost_* settings.


@dataclass(frozen=True)
class TopChange:
    """A discard pile whose top changed: a card discarded onto it, or its top card drawn."""

    pile: str
    old: str | None
    new: str | None
    kind: str  # "discard", "draw", or "misread" (the open turn's discard there proved misread: `new` replaces `old`)

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


#: A card the tracker knows lies in a discard pile without knowing which (under a pair's second card).
UNKNOWN_CARD = "?"


def revealed_depth(stack: Sequence[str], old: str | None, new: str | None) -> int | None:
    """How many cards a draw took off a pile showing `old` to show `new` (known from the pile's
    history): 1 normally; more when the top's twins lay right under it (drawing a twin changes
    nothing to see); None when no draw explains it."""
    if not stack or stack[-1] != old:
        return None
    k = 2
    while k <= len(stack) and stack[-k] == old:
        k += 1
    if k <= len(stack) and stack[-k] in (new, UNKNOWN_CARD):
        return k - 1
    return None


def _kind(option: "TopChange | tuple[TopChange, ...]") -> str:
    """The kind of a pile's reading in an explanation (two draws off one pile: "draw")."""
    return option[0].kind if isinstance(option, tuple) else option.kind


def _drop_misread(tops: Sequence[TopChange]) -> tuple[TopChange, ...]:
    """A turn's pile changes with the discards its "misread" changes prove wrong corrected: the card
    discarded is the one read now (none, if the pile shows its old top again). The "misread" stays,
    for the pile's bookkeeping: it replaces the misread card on the tracker's pile."""
    out = list(tops)
    for t in [t for t in out if t.kind == "misread"]:
        for j in range(out.index(t) - 1, -1, -1):
            if out[j].kind == "discard" and out[j].pile == t.pile and out[j].new == t.old:
                if out[j].old == t.new:
                    del out[j]
                elif t.new is None:  # (the pile reads empty now: its old top was drawn, nothing discarded)
                    out[j] = TopChange(t.pile, out[j].old, None, "draw")
                else:
                    out[j] = TopChange(t.pile, out[j].old, t.new, "discard")
                break
    return tuple(out)


def classify_top(pile: str, old: str | None, new: str | None, stack: Sequence[str]) -> TopChange:
    """Discard or draw? A draw uncovers the card below the top (known from the pile's history; a
    card the tracker knows is there without knowing which, UNKNOWN_CARD, does not make a draw)."""
    if new is None:
        return TopChange(pile, old, new, "draw")
    depth = revealed_depth(stack, old, new)
    if depth is not None and stack[-depth - 1] == new:
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
    reaches: tuple[Reach, ...] = ()      # hands over the table since the last state (seats read, quiet or not)
    hidden: tuple[int, int] = (0, 0)     # the open turn's hidden plays and draws so far (TurnFacts)
    known: frozenset[str] = frozenset()  # codes the open turn has broken already (not counted again)
    last_seat: str | None = None         # who played last (may still be drawing when nobody's turn is open)
    after: tuple[str, ...] = ()          # who else may come after the open turn than the next seat
    final_queue: tuple[str, ...] = ()    # card game's last plays: the seats still to make theirs
    exclude: frozenset[str] = frozenset()  # explanations (by their text) a later state proved wrong


#: What an actor of an explanation needs from the reaches: nothing (the open turn's player going on
#: or not), a reach (a turn that left no trace), a reach after which the table had changed (a turn
#: that changed the table: changes only happen under reaches not marked quiet).
NEED_NONE, NEED_REACH, NEED_ACTIVE = 0, 1, 2


def hand_cost(reaches: Sequence[Reach], actors: Sequence[tuple[str, int]], at_table: Sequence[str],
              config: TrackingConfig, cap: int | None = None) -> int:
    """How badly an explanation's actors (in order: (seat, NEED_*)) fit the reaches seen.

    The reaches are shared out in order: each goes to the actor acting at that moment. A reach
    given to a player whose seat its frames named less often than another seat at the table costs
    config.cost_hand_per_frame per frame of difference (at most `cap`, default config.cost_hand_max:
    one reach never outweighs a rule break); an actor whose need is not met costs
    config.cost_no_reach. Frames naming no seat, or a seat where nobody sits, say nothing; when no
    reach was read at all (an observer without hands) the cost is 0."""
    if not actors or not any(r.read for r in reaches):
        return 0
    cap = config.cost_hand_max if cap is None else cap
    per_frame, no_reach = config.cost_hand_per_frame, config.cost_no_reach
    m, k = len(reaches), len(actors)
    memo: dict[tuple[int, int, int], int] = {}
    votes = [{s: n for s, n in r.votes if s in at_table} for r in reaches]
    level = [NEED_REACH if r.quiet else NEED_ACTIVE for r in reaches]

    def mismatch(i: int, seat: str) -> int:
        v = votes[i]
        if not v:
            return 0
        return min(cap, per_frame * (max(v.values()) - v.get(seat, 0)))

    def f(i: int, j: int, has: int) -> int:
        key = (i, j, has)
        if key in memo:
            return memo[key]
        left = 0 if has >= actors[j][1] else no_reach
        if i == m:
            out = left + sum(no_reach for _, need in actors[j + 1:] if need)
        else:
            out = mismatch(i, actors[j][0]) + f(i + 1, j, max(has, level[i]))
            if j + 1 < k:
                out = min(out, left + f(i, j + 1, NEED_NONE))
        memo[key] = out
        return out

    return f(0, 0, NEED_NONE)


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
    hidden_plays: int = 0    # cards discarded onto their twins (a reach that changed nothing, then a draw)
    hidden_draws: int = 0    # cards drawn from the draw pile (the player's reaches that changed nothing)

    @property
    def plays(self) -> int:
        """Cards played: laid in rows plus discarded (seen or not)."""
        return self.lays + self.discards + self.hidden_plays

    @property
    def from_hand(self) -> int:
        """Cards that left the hand (row tops discarded by the NWNZ tile did not)."""
        return self.plays - self.row_discards

    @property
    def all_draws(self) -> int:
        """Cards drawn: from the discard piles (seen) and from the draw pile (reaches seen)."""
        return self.draws + self.hidden_draws


def turn_facts(rules: GameRules, seat: str, report: ChangeReport, tops: Sequence[TopChange], phase: str,
               hidden_plays: int = 0, hidden_draws: int = 0) -> TurnFacts:
    """Count a turn's plays, draws, allowance (cards it may play) and points-tile points."""
    lays = row_discards = landings = points = 0
    wish_pair = False
    passed = _jumped_over(rules, report)
    for e in report.changes:
        if e.seat != seat:
            continue
        if e.kind == "card-laid":
            lays += int(e.data.get("count", 1) or 1)
        elif e.kind == "row-card-discarded":
            row_discards += 1
        elif e.kind == "discard-tile":
            landings += 1
        elif e.kind == "points-tile" and e.data.get("stone") not in passed:
            points += int(e.data.get("points", 0) or 0)
        elif e.kind == "wish-taken":
            wish_pair = True
    discards = sum(1 for t in tops if t.kind == "discard")
    draws = sum(1 for t in tops if t.kind == "draw")
    if wish_pair and not rules.is_board and lays == 0 and discards == 1:
        discards += 1  # (the pair's other card lies under it, on the same pile: unseen, yet played)
    if rules.is_board:
        allowance = 1 + landings
    elif phase == "final":
        allowance = 2 if getattr(rules.settings, "final_play", "two-cards") == "two-cards" else 1
        allowance = max(allowance, 2 if wish_pair else allowance)
    else:
        allowance = 2 if wish_pair else 1
    return TurnFacts(lays, discards, row_discards, draws, allowance, points, wish_pair, hidden_plays, hidden_draws)


def _jumped_over(rules: GameRules, report: ChangeReport) -> set[str]:
    """Stones a pawn jumped over in a move of several stones for one card ("two-steps"): it never
    stood on them, so their tiles do not act (a points tile there scores nothing)."""
    board = rules.board
    out: set[str] = set()
    if board is None:
        return out
    for v in report.violations:
        src, dst = v.details.get("from"), v.details.get("to")
        if v.code != "two-steps" or src not in board.stones or dst not in board.stones:
            continue
        total = board.steps(src, dst)
        if not total or total < 2:
            continue
        for stone in board.stones:
            a, b = board.steps(src, stone), board.steps(stone, dst)
            if a and b and a + b == total:
                out.add(stone)
    return out


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
    if skipped and phase != "final":  # (in the last plays a player may pass: passing leaves no trace)
        turn = setup.name(skipped[0])
        out.append(Violation("out-of-turn", f"{who} played, but it was {turn}'s turn", seat,
                             {"expected": skipped[0]}))
    discarded_here: dict[str, list[str | None]] = {}
    for top in tops:
        if top.kind == "discard":
            discarded_here.setdefault(top.pile, []).append(top.new)
        elif top.kind == "draw" and top.old is not None and discarded_here.get(top.pile) \
                and discarded_here[top.pile][-1] == top.old:
            discarded_here[top.pile].pop()
            if "draw-own-discard" not in codes:
                out.append(Violation("draw-own-discard", f"{who} took back {_card_text(top.old, top.pile)} "
                                     f"discarded this turn from the {top.pile} discard pile", seat,
                                     {"pile": top.pile, "card": top.old}))
    pair_without_card = False
    if not rules.is_board:
        # Card game: a wish card is taken with two discarded cards of its value (RULES §3 Turn).
        taken = [int(e.data.get("wish", 0)) for e in report.changes if e.kind == "wish-taken" and e.seat == seat]
        discarded = [t.new for t in tops if t.kind == "discard" and t.new is not None]
        values = [_value(code) for code in discarded]
        for v in taken:
            # (an end card has no value: it never makes a pair)
            odd = [code for code, x in zip(discarded, values) if x != v]
            if odd and "pair-mismatch" not in codes:
                words = ["an end card" if code == "E" else f"a {_value(code)}" for code in odd]
                out.append(Violation("pair-mismatch", f"{who} took the wish card {v} but discarded "
                                     + " and ".join(words) + f": it takes two cards of value {v}",
                                     seat, {"wish": v, "discarded": odd}))
        counts = Counter(x for x in values if x is not None and 1 <= x <= 9)
        pair = next((x for x, c in counts.items() if c >= 2), None)
        if not taken and pair is not None:
            values = [pair, pair]
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


#: Engine findings that the tracker's own, sharper finding on the same turn replaces: a pair
#: discarded for a wish card no longer there is "no-wish-card", not two turns' cards ("two-cards");
#: a wish card taken for a mismatched pair is "pair-mismatch", not an unexplained wish card.
SUPERSEDED = {"no-wish-card": frozenset({"two-cards"}), "pair-mismatch": frozenset({"wish-unexplained"})}


def reconcile(report: ChangeReport, own: Sequence[Violation], facts: TurnFacts | None = None,
              phase: str = "play") -> ChangeReport:
    """The engine's report of a turn without the findings `own` states more precisely (SUPERSEDED),
    and without "two-cards" in the card game's last plays when the turn stays within what a last
    play allows (the engine's check of a change does not know the phase)."""
    drop: set[str] = set()
    for v in own:
        drop |= SUPERSEDED.get(v.code, frozenset())
    if phase == "final" and facts is not None and facts.plays <= facts.allowance:
        drop.add("two-cards")
    if not drop or not any(v.code in drop for v in report.violations):
        return report
    return ChangeReport(report.changes, tuple(v for v in report.violations if v.code not in drop))


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
    text: str = ""                      # the chosen explanation in words (who played, in order)
    runner_up: int | None = None        # the cost of the best other explanation (None: there is none)
    signature: str = ""                 # who played and how each pile was read (inference._signature)
    runner_up_reading: int | None = None  # the cost of the best explanation with another signature

    @property
    def violations(self) -> list[Violation]:
        """Every violation known now (deferred ones of the still-open last turn left out)."""
        out: list[Violation] = []
        for s in self.segments:
            out.extend(v for v in s.report.violations if not (s.final and v.code in DEFERRED_CODES))
            out.extend(s.own)
        return out


def _all_copies_known(key: FieldKey, code: str, stack: Sequence[str], after: Fields) -> bool:
    """Card game: does the pile `key` show `code` on top while the tracker believes it lies deeper
    in that pile, and every copy of the card is accounted for by those beliefs and the table?"""
    deeper = sum(1 for c in stack[:-1] if c == code)
    if not deeper:
        return False
    card = code if code[0] == "P" else f"{key[1]} {code}"
    elsewhere = 0
    for k, value in after.items():
        if k == key:
            continue
        if k[0] == "row":
            elsewhere += sum(1 for c in value or () if (c if c[0] == "P" else f"{k[2]} {c}") == card)
        elif k[0] == "top" and value is not None and (value if value[0] == "P" else f"{k[1]} {value}") == card:
            elsewhere += 1
    return deeper + elsewhere >= deck_copies(card)


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


def _actors(ctx: TurnContext, segments: Sequence[Segment]) -> list[tuple[str, int]]:
    """Who acts, in order, in an explanation (for hand_cost): the open turn's player (or the last
    player, who may still be drawing), needing a reach only if their turn changes the table now,
    then every new turn (needing a reach that changed the table) or traceless turn (a reach)."""
    out: list[tuple[str, int]] = []
    first = ctx.seat if ctx.started else ctx.last_seat
    if first is not None:
        goes_on = bool(segments) and segments[0].continues and ctx.started and bool(segments[0].keys)
        out.append((first, NEED_ACTIVE if goes_on else NEED_NONE))
    for seg in segments:
        if seg.continues and ctx.started:
            continue
        out.append((seg.seat, NEED_REACH if seg.silent else NEED_ACTIVE))
    return out


def infer_moves(prev: Observation, new: Observation, ctx: TurnContext, rules: GameRules,
                setup: Setup, config: TrackingConfig | None = None) -> Inference:
    """Explain the change prev → new as a sequence of turns (docs/tracking-api.md infer_moves);
    `config` holds the costs of an explanation and the switches of the mechanisms below."""
    config = config or TrackingConfig()
    owed_codes = OWED_CODES if config.owed_discards else frozenset()

    def all_copies_known(key: FieldKey, code: str, stack: Sequence[str], after: Fields) -> bool:
        return config.count_card_copies and _all_copies_known(key, code, stack, after)

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
    # (only when the hands say no one else changed the table meanwhile)
    misread_ok = ctx.started and any(r.read for r in ctx.reaches) and all(
        r.quiet or r.seat in (None, ctx.seat) for r in ctx.reaches)
    for key in tops:
        stack = ctx.piles.get(key[1], ())
        first = classify_top(key[1], fb.get(key), fa.get(key), stack)
        top_options[key] = [first]
        if misread_ok and any(t.kind == "discard" and t.pile == key[1] and t.new == first.old for t in ctx.tops):
            # the card the open turn discarded there reads otherwise now (or the pile shows again what
            # it showed before): that card was misread — likelier than a second card (or one taken
            # back) by its player, who made no other visible reach meanwhile
            top_options[key].append(TopChange(first.pile, first.old, first.new, "misread"))
        if first.kind == "draw" and first.new is not None and (
                rules.is_board or not all_copies_known(key, first.new, stack, fa)):
            # (card game: not when every copy of that card is accounted for — the deck has no twin left)
            top_options[key].append(TopChange(first.pile, first.old, first.new, "discard"))
        elif first.new is not None and not rules.is_board and all_copies_known(key, first.new, stack, fa):
            # a card believed deeper in this pile shows again, and every copy the deck holds is
            # accounted for (there, or seen elsewhere): it cannot come from a hand — the pile was
            # drawn down to it (the tracker's record of the pile missed a draw)
            top_options[key].append(TopChange(first.pile, first.old, first.new, "draw"))
        elif revealed_depth(stack, first.old, first.new) is not None:
            # the card uncovered may be the unseen one under a pair
            top_options[key].append(TopChange(first.pile, first.old, first.new, "draw"))
        elif (first.new is not None and len(stack) >= 3 and stack[-1] == first.old
              and stack[-3] == first.new and stack[-2] not in (first.old, first.new, UNKNOWN_CARD)):
            # two cards drawn from this pile (a discard-a-card tile lets a turn draw two; in the card
            # game, a pair discarded for a wish card: RULES §3)
            top_options[key].append((TopChange(first.pile, first.old, stack[-2], "draw"),
                                     TopChange(first.pile, stack[-2], first.new, "draw")))
    kind_choices = list(itertools.product(*(top_options[key] for key in tops))) if tops else [()]

    # The slots: the open turn (index 0), then the seats after it in order, once round the table.
    # After the end nobody's turn is open: whoever played after it (hands, seats) is tried, alone.
    anyone = ctx.phase == "over"
    if anyone:
        starts = list(range(n))
    elif ctx.seat is not None:
        starts = [order.index(ctx.seat)]
    elif owned and not tops:  # nobody has played yet: whoever acts first may be the first player
        starts = [order.index(s) for s in order if s in owned]
    elif owned:  # ... and a discard may have come first, from anyone (the hands tell whom)
        starts = list(range(n))
    else:
        starts = [order.index(setup.first) if setup.first in order else 0]
    candidates: list[tuple[int, list[str], list[tuple[int, str, tuple[FieldKey, ...]]], dict[FieldKey, TopChange]]] = []
    named = {r.seat for r in ctx.reaches if r.seat is not None}
    orders: list[tuple[int, int]] = []
    for i0 in starts:
        # After the open turn comes the next seat — after a turn played out of turn, either the
        # player whose turn it was or the one after the player out of turn (tables do both).
        for j0 in [order.index(a) for a in ctx.after if a in order and ctx.started] + [i0 + 1]:
            if (i0, j0 % n) not in orders:
                orders.append((i0, j0 % n))
    for i0, j0 in orders:
        slot_seats = [order[i0]] + [order[(j0 + k) % n] for k in range(n)]
        seat_options = []
        for seat in owned:
            seat_options.append([k for k, s in enumerate(slot_seats) if s == seat])
        for seat_slots in itertools.product(*seat_options):
            assigned = dict(zip(owned, seat_slots))
            if len(set(seat_slots)) != len(seat_slots):
                continue
            used = set(seat_slots) or {0}
            # (up to one turn after the last seat that acted, more when reaches left no trace)
            # (or as far as a seat whose hand was seen)
            reach = max((k for k, st in enumerate(slot_seats) if st in named), default=0)
            top_range = list(range(0, max(reach, min(n, max(used) + 1 + ctx.quiet)) + 1))
            if len(tops) > config.max_top_choices:
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
                if (ctx.seat is None or anyone) and min(slots) != 0:
                    continue  # the first player is the one who acts first
                for kinds in kind_choices:
                    candidates.append((i0, slot_seats, [(k, slot_seats[k], tuple(slots[k])) for k in sorted(slots)],
                                       dict(zip(tops, kinds))))

    cache: dict[tuple[frozenset, frozenset], ChangeReport] = {}

    def check(before_f: Fields, before: Observation, after_f: Fields, after: Observation) -> ChangeReport:
        key = (frozenset(before_f.items()), frozenset(after_f.items()))
        if key not in cache:
            cache[key] = rules.check(before, after)
        return cache[key]

    base = ctx.base if ctx.base is not None else prev
    base_f = observation_fields(base)
    hands_read = any(r.read for r in ctx.reaches)
    quiet_seats = {r.seat for r in ctx.reaches if r.quiet}
    # A player's reaches that changed nothing: before their first reach that did, a new player's
    # card went onto its twin (a play that leaves no trace: believed when they then drew from a
    # pile); after it, or on the open turn, they drew from the draw pile.
    quiet_before: dict[str, int] = {}
    quiet_after: dict[str, int] = {}
    active: set[str] = set()
    for r in ctx.reaches:
        if r.seat is None:
            continue
        if not r.quiet:
            active.add(r.seat)
        elif r.seat in active or (ctx.started and r.seat == ctx.seat):
            quiet_after[r.seat] = quiet_after.get(r.seat, 0) + 1
        else:
            quiet_before[r.seat] = quiet_before.get(r.seat, 0) + 1
    judged: list[tuple[int, int, Inference, str]] = []
    for i0, slot_seats, slots, top_changes in candidates:
        cur_f = dict(fb)
        cur = prev
        segments: list[Segment] = []
        cost = 0
        last_k = 0 if (ctx.seat is not None and ctx.started) else -1
        # Reaches that left the table as it was: first the open turn's draws from the draw pile;
        # any beyond those may be turns that left no trace (a card discarded onto its twin).
        quiet_left = max(0, ctx.quiet - ctx.pending_draws)
        new_turns = 0
        awkward = 0
        describe = []
        queue = list(ctx.final_queue)
        if ctx.seat is not None and ctx.started and not anyone and slots[0][0] != 0:
            # The open turn ends with this change: a card it still owed to a discard pile is a rule
            # break now (a discard seen now is likelier that card than the next player's).
            cost += config.cost_violation * len(ctx.known & owed_codes)
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
            continues = k == 0 and ctx.seat is not None and not anyone
            if continues:
                t_before, t_before_f = base, base_f
                skipped: tuple[str, ...] = ctx.skipped
            else:
                first = (ctx.seat is None or anyone) and idx == 0
                passed = [] if first else [slot_seats[j] for j in range(last_k + 1, k)]
                if anyone and hands_read and idx == 0:
                    # after the end there is no seat order: the players whose hands came and went
                    # before this one's may have played without a trace before the end was declared
                    passed = list(dict.fromkeys(r.seat for r in ctx.reaches if r.quiet and r.seat in order
                                                and r.seat not in (seat, ctx.last_seat)))
                # Seats whose turn passed: a hand that left no trace may have been theirs (when the
                # hands are read: only a seat whose hand was seen leaving no trace, or an unread one).
                silent = passed[:quiet_left]
                if hands_read:
                    silent = [st for st in silent if st in quiet_seats or None in quiet_seats]
                passed = [st for st in passed if st not in silent]
                quiet_left -= len(silent)
                for quiet_seat in silent:
                    segments.append(Segment(quiet_seat, False, (), cur, cur, ChangeReport((), ()), (), (),
                                            SILENT_FACTS, (), False, True))
                    describe.append((quiet_seat + " (no visible change)", False, ()))
                    cost += config.cost_quiet
                skipped = tuple(passed)
                t_before, t_before_f = cur, cur_f
            prior = ctx.tops if continues else ()
            seg_tops = prior + tuple(t for key in keys if key[0] == "top"
                                     for t in (top_changes[key] if isinstance(top_changes[key], tuple)
                                               else (top_changes[key],)))
            double = sum(1 for key in keys if key[0] == "top" and isinstance(top_changes[key], tuple))
            misreads = [t for t in seg_tops if t.kind == "misread"]
            earned = 0
            if misreads:
                if not (continues and ctx.started):
                    cost += 10 ** 6  # (only the open turn's own discard can turn out a misread)
                seg_tops = _drop_misread(seg_tops)
                cost += config.cost_misread * len(misreads)
            report = check(t_before_f, t_before, nxt_f, nxt)
            # (card game: a card of a wish card's value showing on a pile in the turn that takes that
            # wish card is the pair's second card — a twin discarded, at no extra cost — not a draw)
            wished = {int(e.data.get("wish", 0)) for e in report.changes
                      if e.kind == "wish-taken" and e.seat == seat} if not rules.is_board else set()
            twins = sum(1 for key in keys if key[0] == "top" and _kind(top_changes[key]) == "discard"
                        and top_options[key][0].kind == "draw" and _value(top_changes[key].new) not in wished)
            cost += config.cost_deep_draw * sum(1 for key in keys if key[0] == "top" and _kind(top_changes[key]) == "draw"
                                         and top_options[key][0].kind == "discard")
            # ... and between readings as likely, the one that does not call it a card drawn wins
            awkward += sum(1 for key in keys if key[0] == "top" and _kind(top_changes[key]) == "draw"
                           and not isinstance(top_changes[key], tuple)
                           and top_changes[key].new is not None and _value(top_changes[key].new) in wished)
            final = idx == len(slots) - 1
            phase = ctx.phase
            facts = turn_facts(rules, seat, report, seg_tops, phase)
            goes_on = continues and ctx.started
            hidden_plays, hidden_draws = ctx.hidden if goes_on else (0, 0)
            if hands_read:
                excess = facts.draws - max(facts.from_hand + hidden_plays, 0)
                if excess > 0 and not goes_on:
                    hidden_plays += min(excess, quiet_before.get(seat, 0))
                owed = max(0, facts.from_hand + hidden_plays - facts.draws - hidden_draws)
                hidden_draws += min(owed, quiet_after.get(seat, 0))
                facts = dataclasses.replace(facts, hidden_plays=hidden_plays, hidden_draws=hidden_draws)
            if double and not (facts.allowance > 1 and facts.all_draws <= facts.from_hand):
                cost += config.cost_twin * double  # (two cards off one pile: a turn that may draw two, else odd)
            if rules.is_board and facts.allowance > 1:
                # A discard-a-card tile landed on asks for one more card: a pile showing the card
                # below its top again is that card's twin discarded as likely as a draw, and a draw
                # with the tile's card still owed means it went onto its twin unseen (or was skipped).
                if facts.plays <= facts.allowance:
                    twins = 0
                if facts.plays < facts.allowance and facts.all_draws > 0:
                    cost += config.cost_twin
            cost += config.cost_twin * twins
            own = tuple(own_violations(rules, setup, seat, report, facts, skipped, phase, seg_tops))
            report = reconcile(report, own, facts, phase)
            # (what the open turn had broken already costs nothing more: it is no new explanation)
            old_codes = ctx.known if goes_on else frozenset()
            if not final:
                old_codes = old_codes - owed_codes  # (the turn ends here: that card is missing now)
            shown = [v for v in report.violations if not (final and v.code in DEFERRED_CODES)
                     and v.code not in old_codes]
            pending = [v for v in report.violations if final and v.code in DEFERRED_CODES and v.code not in old_codes]
            new_own = [v for v in own if v.code not in old_codes]
            cost += config.cost_violation * (len(shown) + len(new_own)) + config.cost_pending * len(pending)
            if goes_on and misreads:
                # ... and a discard proved misread that explains one of them away earns it back
                now = {v.code for v in report.violations} | {v.code for v in own}
                earned = len({c for c in old_codes - now if c not in DEFERRED_CODES})
                cost -= config.cost_violation * earned
            if idx == 0 and ctx.pause is not None and ctx.pause_cost and ctx.seat is not None and ctx.started:
                if ctx.pause >= ctx.turn_pause + ctx.pause_margin and continues:
                    cost += ctx.pause_cost   # a long rest, yet the same turn
                elif ctx.pause <= ctx.turn_pause - ctx.pause_margin and not continues:
                    cost += ctx.pause_cost   # a quick reach, yet a new player
            if not continues and ctx.phase == "final":
                # the last plays: each player's once, in order (passing leaves no trace); a play by
                # one who has made theirs comes after the end of the game
                if seat in queue:
                    queue = queue[queue.index(seat) + 1:]
                else:
                    cost += config.cost_violation
            if not continues:
                cost += config.cost_turn
                if new_turns:
                    cost += ctx.split_cost  # one still table read as two turns: a still moment missed
                new_turns += 1
            if facts.hidden_plays > (ctx.hidden[0] if goes_on else 0):
                cost += config.cost_twin * (facts.hidden_plays - (ctx.hidden[0] if goes_on else 0))
            extra = quiet_after.get(seat, 0) - (facts.hidden_draws - (ctx.hidden[1] if goes_on else 0)) \
                if goes_on else 0   # the open turn's player reached again after drawing all they may
            if facts.all_draws + extra > max(facts.from_hand, 0):
                cost += config.cost_odd_draw * (facts.all_draws + extra - max(facts.from_hand, 0))
            if ctx.target is not None and final and not owned and k != ctx.target and not (
                    goes_on and misreads and earned
                    and all(_kind(top_changes[key]) == "misread" for key in keys if key[0] == "top")):
                # A re-read knowing who acted next (Journal.discard_target): follow it. (It weighs
                # discards and draws; a discard the open turn made, read again otherwise so that a
                # rule break it made goes away, is neither.)
                cost += config.cost_hint
            segments.append(Segment(seat, continues, keys, t_before, nxt, report, seg_tops, skipped, facts, own,
                                    final))
            describe.append((seat, continues, skipped))
            cur_f, cur = nxt_f, nxt
            last_k = k
        deficit = 0
        if hands_read:
            # Whose hands came and went is known: the reaches themselves are weighed.
            actors = _actors(ctx, segments)
            cost += hand_cost(ctx.reaches, actors, order, config)
            # (between readings as likely, the one whose players the hands named more often wins:
            # the cap keeps one reach below a rule break, not below another reading's reach)
            deficit = hand_cost(ctx.reaches, actors, order, config, cap=10 ** 6)
        else:
            cost += config.cost_quiet_unused * quiet_left
        inference = Inference(tuple(segments), cost, 1.0, (), None)
        judged.append((cost, len(segments), awkward, deficit, inference, _describe(describe, setup)))
    judged.sort(key=lambda j: (j[0], j[1], j[2], j[3]))
    if ctx.exclude:
        kept = [j for j in judged if j[5] not in ctx.exclude and _signature(j[4], j[5]) not in ctx.exclude]
        judged = kept or judged
    best_cost, _, _, _, best, best_text = judged[0]
    runners = [(c, text) for c, _, _, _, _, text in judged[1:] if text != best_text]
    best_signature = _signature(best, best_text)
    other = next((j[0] for j in judged[1:] if _signature(j[4], j[5]) != best_signature), None)
    tied = [text for c, text in runners if c == best_cost]
    close = [text for c, text in runners if c < best_cost + config.cost_odd_draw]
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
    return Inference(best.segments, best_cost, confidence, alternatives, note, best_text,
                     runners[0][0] if runners else None, best_signature, other)


def _signature(inference: Inference, text: str) -> str:
    """An explanation told apart from others of the same players: who played, and each pile's
    reading (a discard, a draw) in order."""
    tops = ",".join(f"{t.pile}:{t.kind}" for seg in inference.segments for t in seg.tops)
    return f"{text}|{tops}"
