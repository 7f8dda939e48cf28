"""What a turn did and the rules only a history can judge (the turn decoder's turns, judged).

The camera never sees the cards in a hand or the draw pile, so a turn is known by what it leaves
on the table: cards appearing in a row, pawns moving, tiles and wish stones taken, discard-pile
tops changing (TopChange: a card discarded or drawn). tracking.model.GameModel.apply_turn judges
each turn the decoder reads with the rules engine's check of the change plus what only a history
knows (own_violations): turn order, how many cards a turn plays (TurnFacts), a card taken back
from its own discard, a pair for a wish card no longer there, the game being over.

A turn that is still going on (the last one) does not yet count what is missing from it — a
pawn not yet moved, a wish stone not yet taken — since players do things in any order: those
codes (DEFERRED_CODES) are reported when the turn closes, i.e. when the next player acts.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from engine.events import ChangeReport
from engine.setup import Setup
from engine.violations import Violation

from .games import GameRules

#: Violations about something a turn has not done *yet*: reported once the turn is over.
#: (A wish stone or tile taken before its pawn is seen landing — the pawn misread for a moment — is
#: the same: "wish-unexplained" and "tile-removed" wait for the rest of the turn.)
DEFERRED_CODES = frozenset({"no-card", "pawn-not-moved", "no-pawn-to-move", "tile-not-taken", "wish-not-taken",
                            "clover-not-used", "discard-tile-not-used", "draw-count", "no-wish-card",
                            "wish-unexplained", "tile-removed"})
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
    no_draw: bool = False    # the turn ended without its player drawing (the decoder's reading)

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
               hidden_plays: int = 0, hidden_draws: int = 0, no_draw: bool = False) -> TurnFacts:
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
    return TurnFacts(lays, discards, row_discards, draws, allowance, points, wish_pair, hidden_plays, hidden_draws,
                     no_draw)


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
    if (not rules.is_board and phase == "play" and facts.no_draw and facts.plays and not facts.all_draws
            and "draw-count" not in codes):
        # (the board game's turn not drawn is the next player's "out-of-turn": they played before it was over)
        out.append(Violation("draw-count", f"{who} played and did not draw back up before the next player "
                             "played (RULES §3 Turn: play, then draw)", seat))
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
