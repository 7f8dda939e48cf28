"""Stable states: from a stream of per-frame observations, accept a table state only when it is still.

The table is read field by field (each card row, each tile spot, each player's pawns, each discard
top, ...). A new state is accepted when, for `still_seconds` of usable frames since the last hand
over the table, every field has one reading that holds at least `agree_fraction` of the frames:
a single misread frame, or one field misread in a few frames, is outvoted field by field.

A hand, an arm or the board lost (`usable: false`) for two frames or more clears the window and
counts as "a hand was over the table": moves only happen with hands. A change that appears with
no hand in between (a misread that persists, a pawn nudged by a sleeve) must hold for the longer
`still_seconds_without_hand` before it is accepted. A camera gap (no frame for `gap_seconds`)
clears the window too: tracking pauses and waits for fresh stillness; it never invents a state.

Each hand over the table is a *reach*. When the observer says whose arm it is (the "hands"
extension of FORMATS §2: `"hands": [{"seat": "south"}]`, read from the table edge the arm crosses),
the frames of the reach vote for its seat; every accepted state lists the reaches since the one
before (`Acceptance.reaches`), those that left the table as it was marked `quiet`. Inference takes
them as strong but fallible evidence of who acted (a single frame may name the neighbouring seat,
a reach may name none).
"""
from __future__ import annotations

import dataclasses
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from engine.cardgame.observed import _copies as deck_copies  # (the deck's composition lives with the card game)
from engine.games import GAMES
from engine.observation import Observation, PawnObservation, SeatObservation
from .config import TrackingConfig

FieldKey = tuple
Fields = dict[FieldKey, Hashable]

# What a field reads when the observation does not mention it.
_DEFAULTS: dict[str, Hashable] = {"row": (), "points_row": 0, "wish": (), "wish_cards": (), "pawns": (),
                                  "tile": None, "top": None, "player": None}
_EPS = 1e-6

def observation_fields(obs: Observation) -> Fields:
    """An observation as independent, hashable fields (the units of voting and of change)."""
    out: Fields = {("meta",): (obs.game, obs.board)}
    for seat, s in obs.seats.items():
        out[("player", seat)] = s.player
        for colour, row in s.rows.items():
            if row:
                out[("row", seat, colour)] = tuple(row)
        if s.points_row:
            out[("points_row", seat)] = s.points_row
        wish = tuple(sorted((c, n) for c, n in s.wish.items() if n))
        if wish:
            out[("wish", seat)] = wish
        if s.wish_cards:
            out[("wish_cards", seat)] = tuple(sorted(s.wish_cards))
    if obs.pawns is not None:
        by_player: dict[str, list[tuple[str, bool]]] = {}
        for p in obs.pawns:
            by_player.setdefault(p.player, []).append((p.stone, p.big))
        for player, pawns in by_player.items():
            out[("pawns", player)] = tuple(sorted(pawns))
    for spot, code in (obs.tiles or {}).items():
        out[("tile", spot)] = code
    for pile, code in obs.discard_tops.items():
        out[("top", pile)] = code
    return out


def field_default(key: FieldKey) -> Hashable:
    """The reading of a field an observation leaves out (an empty row, an empty tile spot...)."""
    return _DEFAULTS.get(key[0])


def fields_equal(a: Fields, b: Fields) -> bool:
    """Do two field sets describe the same table (missing fields read as their default)?"""
    for key in a.keys() | b.keys():
        d = field_default(key)
        if a.get(key, d) != b.get(key, d):
            return False
    return True


def changed_fields(a: Fields, b: Fields) -> list[FieldKey]:
    """The fields whose reading differs between two field sets."""
    out = []
    for key in a.keys() | b.keys():
        d = field_default(key)
        if a.get(key, d) != b.get(key, d):
            out.append(key)
    return sorted(out, key=repr)


def fields_to_observation(fields: Fields, template: Observation | None = None) -> Observation:
    """Build the observation a field set describes (the inverse of observation_fields)."""
    game, board = fields.get(("meta",), (template.game, template.board) if template else ("keltis", None))
    seats: dict[str, dict[str, Any]] = {}
    pawns: list[PawnObservation] = []
    tiles: dict[str, str | None] = {}
    tops: dict[str, str | None] = {}
    for key, value in fields.items():
        kind = key[0]
        if kind == "player" and value is not None:
            seats.setdefault(key[1], {})["player"] = value
        elif kind in ("row", "points_row", "wish", "wish_cards"):
            seats.setdefault(key[1], {}).setdefault(kind, {} if kind == "row" else None)
            if kind == "row":
                if value:
                    seats[key[1]]["row"][key[2]] = tuple(value)
            else:
                seats[key[1]][kind] = value
        elif kind == "pawns":
            pawns.extend(PawnObservation(stone, key[1], big) for stone, big in value)
        elif kind == "tile":
            tiles[key[1]] = value
        elif kind == "top":
            tops[key[1]] = value
    seat_obs = {}
    for seat, d in seats.items():
        if d.get("player") is None:
            continue
        seat_obs[seat] = SeatObservation(d["player"], dict(d.get("row") or {}), int(d.get("points_row") or 0),
                                         dict(d.get("wish") or ()), tuple(d.get("wish_cards") or ()))
    # Keep the seats in the template's order (the order players are listed in).
    if template is not None:
        order = list(template.seats) + [s for s in seat_obs if s not in template.seats]
        seat_obs = {s: seat_obs[s] for s in order if s in seat_obs}
    is_board = GAMES.get(game).has_board
    return Observation(game, board, True, None,
                       tuple(sorted(pawns, key=lambda p: (p.player, p.stone, not p.big))) if is_board else None,
                       tiles if is_board else None, seat_obs, tops)


def suspicious_fields(ref: Fields, new: Fields, board: Any = None) -> set[FieldKey]:
    """Changed fields that no move makes: a card changing inside a row, a tile vanishing where no pawn
    stands, a pawn jumping back or changing colour, wish stones or cards going down. A real rule
    break looks like this too, so such a change is not refused, only confirmed for longer (a
    misread that happens to follow a hand must not become a move)."""
    out: set[FieldKey] = set()
    landed: set[str] = set()  # stones a pawn arrived on in this change
    for key in new:
        if key[0] == "pawns":
            arrived = Counter(new[key]) - Counter(ref.get(key, ()))
            landed.update(stone for stone, _ in arrived.elements())
    for key in changed_fields(ref, new):
        kind = key[0]
        d = field_default(key)
        old, cur = ref.get(key, d), new.get(key, d)
        if kind == "row":
            if tuple(cur[:len(old)]) != tuple(old) and tuple(cur) != tuple(old[:-1]):
                out.add(key)
        elif kind == "tile":
            if not (cur is None and key[1] in landed and old is not None):
                out.add(key)
        elif kind in ("points_row",):
            if cur < old:
                out.add(key)
        elif kind in ("wish", "wish_cards"):
            old_c, cur_c = Counter(dict(old) if kind == "wish" else Counter(old)), \
                Counter(dict(cur) if kind == "wish" else Counter(cur))
            if old_c - cur_c:
                out.add(key)
        elif kind == "pawns":
            lost = Counter(old) - Counter(cur)
            gained = Counter(cur) - Counter(old)
            if sum(lost.values()) != sum(gained.values()):
                out.add(key)
            elif board is not None:
                for stone, big in gained.elements():
                    if not any(b == big and stone in board.stones and src in board.stones
                               and (board.steps(src, stone) or 0) > 0 for src, b in lost.elements()):
                        out.add(key)
                        break
        elif kind in ("player", "meta"):
            out.add(key)
    out |= _duplicated_cards(ref, new)
    return out


def implausible_fields(fields: Fields) -> set[FieldKey]:
    """Fields no table can show, whatever came before: a board-game player without exactly one big
    and four small pawns (pawns never leave the board, RULES §1 Components), an empty tile spot
    before the first card is laid, a card-game card shown more often than the deck holds it
    (RULES §3 Components)."""
    out: set[FieldKey] = set()
    for key, value in fields.items():
        if key[0] == "pawns" and (len(value) != 5 or sum(1 for _, big in value if big) != 1):
            out.add(key)
    pawns = [v for k, v in fields.items() if k[0] == "pawns"]
    if pawns and all(stone == "start" for v in pawns for stone, _ in v) \
            and not any(k[0] in ("row", "points_row") for k in fields):
        # the board game before its first card: every tile is still on its spot (RULES §1 Components)
        out |= {k for k, v in fields.items() if k[0] == "tile" and v is None}
    return out | _duplicated_cards({}, fields)


def _card_keys(key: FieldKey, value: Any) -> list[str]:
    """The identifiable cards a card-game field shows ("red 7", "P7"), as the engine counts them."""
    if key[0] == "row":
        return [code if code[0] == "P" else f"{key[2]} {code}" for code in value or ()]
    if key[0] == "top" and value is not None:
        return [value if value[0] == "P" else f"{key[1]} {value}"]
    return []


def _duplicated_cards(ref: Fields, new: Fields) -> set[FieldKey]:
    """Card game: changed fields that show a card more often than the deck holds it (RULES §3
    Components) — a misread, or someone else's card (the engine says which when it holds)."""
    meta = new.get(("meta",)) or ref.get(("meta",))
    if not meta or meta[0] != "keltis-card":
        return set()
    counts: Counter = Counter()
    for key, value in new.items():
        counts.update(_card_keys(key, value))
    before: Counter = Counter()
    for key, value in ref.items():
        before.update(_card_keys(key, value))
    too_many = {card for card, n in counts.items() if n > deck_copies(card) and n > before.get(card, 0)}
    if not too_many:
        return set()
    return {key for key in changed_fields(ref, new)
            if set(_card_keys(key, new.get(key, field_default(key)))) & too_many}


@dataclass(frozen=True)
class Reach:
    """One hand over the table: the seats its frames named (votes), and whether it left no trace."""

    votes: tuple[tuple[str, int], ...] = ()   # (seat, frames naming it), most named first
    frames: int = 0                           # unusable frames of the reach
    read: int = 0                             # of those, frames that located a hand (with or without a seat)
    quiet: bool = False                       # the table was seen unchanged after it
    end: float | None = None                  # the frame time the hand was gone (None: not known)
    share: float = 0.6                        # the share of votes a seat needs to be `seat` (TrackingConfig.hand_vote_share)

    @property
    def seat(self) -> str | None:
        """The seat most frames named, when clearly ahead of any other (else None: unknown)."""
        if not self.votes:
            return None
        total = sum(n for _, n in self.votes)
        seat, n = self.votes[0]
        return seat if n >= self.share * total - _EPS else None

    @property
    def strength(self) -> int:
        """How many more frames named `seat` than any other seat (0 when unknown)."""
        if self.seat is None:
            return 0
        return self.votes[0][1] - (self.votes[1][1] if len(self.votes) > 1 else 0)

    def to_json(self) -> dict[str, Any]:
        """{"seat", "votes": {seat: frames}, "frames", "quiet"} (stored with each accepted state)."""
        return {"seat": self.seat, "votes": dict(self.votes), "frames": self.frames, "read": self.read,
                "quiet": self.quiet, "end": self.end, "share": self.share}

    @classmethod
    def from_json(cls, d: Any) -> "Reach":
        """Inverse of to_json (tolerant: a stored reach from an older version reads as unknown)."""
        if not isinstance(d, dict):
            return cls()
        votes = d.get("votes") if isinstance(d.get("votes"), dict) else {}
        pairs = sorted(((str(k), int(v)) for k, v in votes.items() if isinstance(v, int) and v > 0),
                       key=lambda kv: (-kv[1], kv[0]))
        end = d.get("end")
        share = d.get("share")
        return cls(tuple(pairs), int(d.get("frames") or 0), int(d.get("read") or 0), bool(d.get("quiet")),
                   float(end) if isinstance(end, (int, float)) and not isinstance(end, bool) else None,
                   float(share) if isinstance(share, (int, float)) and not isinstance(share, bool)
                   and 0.5 < share <= 1 else cls.share)


def hand_seats(obs: Observation) -> list[str] | None:
    """The seats an unusable frame names for the hands over the table ("hands" extension), [] when
    hands are reported but none located with a seat, None when the observer does not report hands."""
    hands = obs.extra.get("hands") if obs.extra else None
    if not isinstance(hands, list):
        return None
    return [h["seat"] for h in hands if isinstance(h, dict) and isinstance(h.get("seat"), str)]


@dataclass(frozen=True)
class Acceptance:
    """A newly accepted table state and how it was accepted."""

    observation: Observation
    fields: Fields = field(repr=False)
    t: float                 # frame timestamp of acceptance
    still_since: float       # timestamp of the first frame of the still period
    hand: bool               # a hand (or a camera gap) came between the previous state and this one
    frames: int              # frames that voted
    quiet: int = 0           # hands that came and went, leaving the table as it was, since the last state
    interval: float = 0.0    # seconds between frames lately (a slow camera merges turns more often)
    pause: float | None = None  # how long the table rested before the reach that changed it
    reaches: tuple[Reach, ...] = ()  # hands over the table since the previous state, in order
    #: Discard piles that the last frames before the first of those hands read otherwise than the
    #: state taken then ({pile: top}): evidence that that state's reading was a misread.
    tail: dict[str, str | None] = field(default_factory=dict)
    since_hand: float | None = None  # the first usable frame after the last hand (the table seen again)


class StableStateFilter:
    """feed(obs, t) -> the new table state when one is accepted, else None (module docstring)."""

    def __init__(self, config: TrackingConfig | None = None):
        self.config = config or TrackingConfig()
        self.reference: Fields | None = None
        self.last_acceptance: Acceptance | None = None
        self._window: deque[tuple[float, Fields, Observation]] = deque()
        self._usable_since: float | None = None
        self._unusable_run = 0
        self._unusable_since: float | None = None
        self._unusable_reason: str | None = None
        self._hand = True   # nothing seen yet: the first still state counts as after a disturbance
        self._last_t: float | None = None
        self._last_usable_t: float | None = None
        self._candidate: Fields | None = None
        self._candidate_since = 0.0
        self.frames_seen = 0
        self.frames_unusable = 0
        self.gaps = 0
        # Hands over the table that left it unchanged: a turn may leave no trace (a card discarded
        # onto its twin), and inference counts such turns instead of calling the next one out of turn.
        self._disturbed = False
        self.quiet = 0
        self._pause: float | None = None
        # Reaches since the last accepted state; the current run of unusable frames' seat votes.
        self._reaches: list[Reach] = []
        self._run_votes: Counter = Counter()
        self._run_read = 0
        self._run_is_hand = False
        # Judging reaches quiet as soon as two frames after them agree with the table before them
        # (a player's second reach often comes before the table has been still for still_seconds).
        self._first_frames: list[Fields] = []  # the first usable frame after the last hand
        # usable frames since the hand (read again when the next hand comes)
        self._period: deque[tuple[float, Fields]] = deque(maxlen=self.config.period_frames)
        self._carry: tuple[Reach, ...] = ()    # reaches of a move accepted without its odd fields
        self._tail: dict[str, str | None] = {}  # Acceptance.tail of the next state
        self._previous: Fields | None = None   # the accepted state before the reference
        self._judged = 0                      # reaches of self._reaches judged quiet or not
        self._before: Fields | None = None    # the table before the first reach not yet judged
        self._seen: Fields | None = None      # the table as the frames since the last reach agree on
        #: Set by the tracker (it knows the board): which changed fields need the longer confirmation.
        self.suspicious: Callable[[Fields, Fields], set[FieldKey]] | None = None

    @property
    def last_frame_t(self) -> float | None:
        """The timestamp of the latest frame fed (None before the first)."""
        return self._last_t

    @property
    def reads_as_accepted(self) -> bool:
        """Do the latest two frames still read the table as the state last accepted?"""
        if self.reference is None or len(self._window) < 2:
            return False
        return all(fields_equal(f, self.reference) for _, f, _ in list(self._window)[-2:])

    # -- control from the tracker ------------------------------------------------------------------

    def set_reference(self, obs: Observation | None, *, hand: bool = True) -> None:
        """The table state the tracker holds now (after a resume, an undo or a correction)."""
        self.reference = None if obs is None else observation_fields(obs)
        self._candidate = None
        self._hand = hand or self._hand
        self.quiet = 0
        self._reaches = []
        self._carry = ()
        self._previous = None
        self._judged = 0
        self._before = self._seen = self.reference

    def reset(self) -> None:
        """Forget the frames seen (a hand, a camera gap, a new game): wait for fresh stillness."""
        self._window.clear()
        self._first_frames = []
        self._period.clear()
        self._usable_since = None
        self._candidate = None
        self._hand = True
        self._disturbed = True

    # -- the stream --------------------------------------------------------------------------------

    def feed(self, obs: Observation, t: float) -> Observation | None:
        """Take one frame's observation at frame time `t`; return a newly accepted state or None."""
        cfg = self.config
        self.frames_seen += 1
        if self._last_t is not None and (t - self._last_t > cfg.gap_seconds or t < self._last_t):
            self.gaps += 1
            self.reset()
        self._last_t = t
        if not obs.usable:
            self.frames_unusable += 1
            if self._unusable_run == 0:
                self._unusable_since = t
                self._run_votes = Counter()
                self._run_read = 0
                self._run_is_hand = False
            self._unusable_run += 1
            self._unusable_reason = obs.reason or "unusable"
            seats = hand_seats(obs)
            if seats is not None:
                self._run_read += 1
                self._run_votes.update(seats)
            if (self._unusable_run >= cfg.hand_min_frames
                    or t - (self._unusable_since or t) >= cfg.hand_min_seconds - _EPS
                    or bool(seats)):  # a frame that shows whose hand it is, is no glitch (a 1 fps camera)
                revised = None
                if not self._run_is_hand:
                    if self._judged == len(self._reaches):
                        self._before = self._seen  # the table this reach started from
                    if not self._reaches:
                        self._tail = self._tail_readings()
                    revised = self._revision() if self.reference is not None else self._first_from_period()
                self._seen = None
                self._run_is_hand = True
                if self._usable_since is not None and self._unusable_since is not None:
                    # How long the table rested before this reach (the last one before a new state
                    # is the one that changed it: earlier reaches left the table as it was).
                    self._pause = max(0.0, self._unusable_since - self._usable_since)
                self.reset()
                if revised is not None:
                    return revised
            return None
        if self._unusable_run and self._run_is_hand:
            self._reaches.append(Reach(tuple(sorted(self._run_votes.items(), key=lambda kv: (-kv[1], kv[0]))),
                                       self._unusable_run, self._run_read, end=t,
                                       share=self.config.hand_vote_share))
        self._run_is_hand = False
        self._unusable_run = 0
        self._last_usable_t = t
        fields = observation_fields(obs)
        if self._usable_since is None:
            self._usable_since = t
            # a reader that watched every camera frame says since when the table has been still (the
            # frames it did not read were "settling"): the stillness counts from then, not from now
            since = obs.extra.get("still_since") if isinstance(obs.extra, dict) else None
            if isinstance(since, (int, float)) and self._unusable_since is not None:
                self._usable_since = min(t, max(float(since), self._unusable_since))
        self._window.append((t, fields, obs))
        self._period.append((t, fields))
        if not self._first_frames:
            self._first_frames.append(fields)
        horizon = t - max(cfg.window_seconds, cfg.still_seconds)
        while self._window and self._window[0][0] < horizon - _EPS:
            self._window.popleft()
        if self._judged < len(self._reaches):
            self._judge_reaches(t)
        return self._decide(t)

    def _judge_reaches(self, t: float) -> None:
        """Once two frames after the last reaches agree on the table, those reaches left no trace if
        it reads as it did before them (else they changed it: left unmarked)."""
        seen, _ = self._vote(t, need=2)
        if seen is None:
            return
        self._seen = seen
        if self._before is not None and fields_equal(seen, self._before):
            self._reaches[self._judged:] = [dataclasses.replace(r, quiet=True) for r in self._reaches[self._judged:]]
        self._judged = len(self._reaches)

    def _vote(self, t: float, need: int | None = None) -> tuple[Fields | None, int]:
        cfg = self.config
        # Every usable frame since the last hand (within window_seconds) votes: the longer the table
        # has been still, the more frames outvote a misread that holds for a few of them.
        recent = [(ft, f) for ft, f, _ in self._window]
        if need is None:
            need = cfg.min_frames
        if len(recent) >= 2 and recent[-1][0] - recent[-2][0] >= cfg.slow_frame_seconds - _EPS:
            need = 2  # a slow camera (≤ 2.5 fps): two frames a still_seconds apart are all there is
        if len(recent) < need:
            return None, len(recent)
        keys: set[FieldKey] = set()
        for _, f in recent:
            keys.update(f)
        consensus: Fields = {}
        need = cfg.agree_fraction * len(recent) - _EPS
        for key in keys:
            d = field_default(key)
            value, count = Counter(f.get(key, d) for _, f in recent).most_common(1)[0]
            if count < need:
                return None, len(recent)
            if value != d or key[0] in ("tile", "top", "meta", "player"):
                consensus[key] = value
        return consensus, len(recent)

    def _decide(self, t: float) -> Observation | None:
        cfg = self.config
        if self._usable_since is None or t - self._usable_since < cfg.still_seconds - _EPS:
            return None
        consensus, n = self._vote(t)
        if consensus is None:
            self._candidate = None
            return None
        self._seen = consensus
        if self.reference is not None:
            # A change the latest frame does not show is not settled yet (a misread that held the
            # first frames after a hand is outvoted by the frames that follow).
            last = self._window[-1][1]
            for key in changed_fields(self.reference, consensus):
                d = field_default(key)
                if last.get(key, d) != consensus.get(key, d):
                    self._candidate = None
                    return None
        if self.reference is not None and fields_equal(consensus, self.reference):
            # The table is still and unchanged: whatever passed over it left no trace.
            self._candidate = None
            self._hand = False
            if self._disturbed:
                self._disturbed = False
                self.quiet += 1
            # Every reach so far left the table as it was.
            self._reaches = [r if r.quiet else dataclasses.replace(r, quiet=True) for r in self._reaches]
            self._judged = len(self._reaches)
            return None
        if self._candidate is None or not fields_equal(consensus, self._candidate):
            self._candidate = consensus
            # Since when the table has read like this (the first frame of the window that shows
            # every changed field as the consensus has it).
            keys = changed_fields(self.reference, consensus) if self.reference is not None else list(consensus)
            since = t
            for ft, f, _ in reversed(self._window):
                if all(f.get(k, field_default(k)) == consensus.get(k, field_default(k)) for k in keys):
                    since = ft
                else:
                    break
            self._candidate_since = since
        if self.reference is None and implausible_fields(consensus) and \
                t - self._candidate_since < cfg.still_seconds_without_hand - _EPS:
            return None  # a first table no game can show (a misread that held): wait it out
        odd: set[FieldKey] = set()
        if self.reference is not None and self.suspicious is not None:
            odd = self.suspicious(self.reference, consensus)
            # The card last laid in a row read again otherwise under its owner's next reach: the
            # earlier reading was the misread (a card changing under anyone else's hand stays odd).
            # (... unless the new reading shows a card the deck does not hold that often)
            # A field that reads again as before the state accepted last is that state's misread
            # undone (or a move taken back): no move makes it, yet the next state must show it.
            odd = {k for k in odd if not self._fresh_card_reread(k, consensus) and not self._undone(k, consensus)} \
                | _duplicated_cards(self.reference, consensus)
        if self.reference is not None and self._hand and self._first_frames:
            # A changed field the first frame after the hand read otherwise changed again with no
            # hand over the table: a misread that holds a few frames, not (that part of) a move.
            first = self._first_frames[0]
            for key in changed_fields(self.reference, consensus):
                d = field_default(key)
                if first.get(key, d) != consensus.get(key, d):
                    odd.add(key)
        if odd and self._hand and self.reference is not None:
            # Take the move now without the odd fields; those wait for the longer confirmation.
            partial = {k: v for k, v in consensus.items() if k not in odd}
            for k in odd:
                if k in self.reference:
                    partial[k] = self.reference[k]
            if not fields_equal(partial, self.reference):
                return self._accept(partial, t, n, partial=True)
        if (not self._hand or odd) and self.reference is not None:
            if t - self._candidate_since < cfg.still_seconds_without_hand - _EPS:
                return None
        return self._accept(consensus, t, n)

    def flush(self) -> Observation | None:
        """The stream has ended (a recording's last frame): a change that a hand made and that
        waits for its longer confirmation (an odd field, a misread first frame after the hand; the
        rest of a move taken without them) is taken as the still frames read it, since nothing more
        will come to confirm or overturn it. A change with no hand over the table is never taken
        this way (it may be a bumped camera)."""
        t = self._last_t
        made = self._hand or bool(self._carry)  # (a hand since the last state, or a move taken in part)
        if (t is None or self.reference is None or self._candidate is None or not made
                or self._unusable_run or self._usable_since is None
                or t - self._usable_since < self.config.still_seconds - _EPS):
            return None
        consensus, n = self._vote(t)
        if consensus is None or not fields_equal(consensus, self._candidate) \
                or fields_equal(consensus, self.reference):
            return None
        last = self._window[-1][1]
        if any(last.get(k, field_default(k)) != consensus.get(k, field_default(k))
               for k in changed_fields(self.reference, consensus)):
            return None  # (the last frame shows the change otherwise: not settled)
        return self._accept(consensus, t, n)

    def _revision(self) -> Observation | None:
        """When a hand comes: the state accepted since the last hand, read again over the whole
        still period. A misread that held the first frames after a hand can become a state (the
        vote window is short); once the rest of the period outvotes it, the state is revised
        (accepted again, with no hand: the tracker replaces the state it took)."""
        cfg = self.config
        acc = self.last_acceptance
        if (self.reference is None or acc is None or self._hand or len(self._period) < 2 * cfg.min_frames
                or self._usable_since is None or acc.t < self._usable_since - _EPS):
            return None
        timed = list(self._period)
        frames = [f for _, f in timed]
        end = timed[-1][0]
        revised = dict(self.reference)
        previous = self._previous or {}
        for key in {k for f in frames for k in f} | set(self.reference):
            d = field_default(key)
            # The frames up to the hand reading the field as it was before the state taken: the
            # change came and went with no hand in between — a misread, however short its end.
            last = frames[-1].get(key, d)
            run = 0
            for f in reversed(frames):
                if f.get(key, d) != last:
                    break
                run += 1
            if (self._previous is not None and last != self.reference.get(key, d)
                    and key in previous | self.reference and last == previous.get(key, d) and run >= cfg.min_frames):
                # (not for the first table: nothing came before it to return to)
                value = last
            else:
                value, count = Counter(f.get(key, d) for f in frames).most_common(1)[0]
                if value == self.reference.get(key, d) or count <= len(frames) / 2:
                    continue
                since = end
                for ft, f in reversed(timed):
                    if f.get(key, d) != value:
                        break
                    since = ft
                if end - since < cfg.revise_seconds - _EPS:
                    continue  # (not held long enough up to the hand: no settled reading)
            if value == d and key[0] not in ("tile", "top", "meta", "player"):
                revised.pop(key, None)
            else:
                revised[key] = value
        if fields_equal(revised, self.reference):
            return None
        self._hand = False  # a revision of the state taken in this still period, not a move
        previous = self._previous
        obs = self._accept(revised, self._last_usable_t or acc.t, len(frames))
        self._previous = previous  # (the revised state replaces the one taken, it does not follow it)
        return obs

    def _tail_readings(self) -> dict[str, str | None]:
        """Discard piles whose last tail_frames frames before this hand agree on a top other than the
        state taken since the previous hand (a pile cannot change with no hand over the table).
        None with config.tail_frames 0."""
        cfg = self.config
        acc = self.last_acceptance
        if cfg.tail_frames <= 0 or self.reference is None or acc is None or self._usable_since is None \
                or acc.t < self._usable_since - _EPS or len(self._period) < cfg.tail_frames:
            return {}
        frames = [f for _, f in self._period][-cfg.tail_frames:]
        out: dict[str, str | None] = {}
        for key in {k for f in frames for k in f if k[0] == "top"}:
            values = {f.get(key) for f in frames}
            if len(values) == 1:
                value = values.pop()
                if value != self.reference.get(key):
                    out[key[1]] = value
        return out

    def _first_from_period(self) -> Observation | None:
        """When the first hand comes and no table was taken yet (the first reading showed what no table
        can, and waited): the table the still period before it shows by each field's majority, if
        that one is a table a game can show — rather than none, which would lose the first move. Frames
        that show what no table can do not vote."""
        cfg = self.config
        # (a frame showing what no table can is a misread frame: it does not vote)
        frames = [f for _, f in self._period if not implausible_fields(f)]
        if self._window and len(frames) >= cfg.min_frames:
            consensus: Fields = {}
            for key in {k for f in frames for k in f}:
                d = field_default(key)
                value, count = Counter(f.get(key, d) for f in frames).most_common(1)[0]
                if count <= len(frames) / 2:
                    return None
                if value != d or key[0] in ("tile", "top", "meta", "player"):
                    consensus[key] = value
            if not implausible_fields(consensus):
                return self._accept(consensus, self._last_usable_t or self._period[-1][0], len(frames))
        return None

    def _fresh_card_reread(self, key: FieldKey, consensus: Fields) -> bool:
        """Is `key` a row whose last card — laid in the change accepted last — now reads otherwise,
        after reaches of its owner only (their draw, say)?"""
        if key[0] != "row" or self.reference is None or self._previous is None:
            return False
        if not self._reaches or any(r.seat != key[1] for r in self._reaches):
            return False
        old, cur, before = self.reference.get(key, ()), consensus.get(key, ()), self._previous.get(key, ())
        return (len(old) == len(cur) == len(before) + 1 and tuple(old[:-1]) == tuple(before)
                and tuple(cur[:-1]) == tuple(before) and old[-1] != cur[-1])

    def _undone(self, key: FieldKey, consensus: Fields) -> bool:
        """Does `key` read again as it did before the state accepted last (which changed it)?
        Never with config.undo_misreads off."""
        if not self.config.undo_misreads or self.reference is None or self._previous is None:
            return False
        d = field_default(key)
        before = self._previous.get(key, d)
        return consensus.get(key, d) == before != self.reference.get(key, d)

    def _accept(self, consensus: Fields, t: float, n: int, partial: bool = False) -> Observation:
        cfg = self.config
        # The reaches of a move taken without its odd fields go with those fields too, when they
        # are taken later (they changed under those reaches, not under the ones that follow).
        reaches = self._carry + tuple(self._reaches)
        self._carry = tuple(self._reaches) if partial else ()
        template = self._window[-1][2]
        obs = fields_to_observation(consensus, template)
        times = [ft for ft, _, _ in self._window]
        steps = sorted(b - a for a, b in zip(times, times[1:]))
        interval = steps[len(steps) // 2] if steps else 0.0
        self.last_acceptance = Acceptance(obs, consensus, t, max(self._usable_since, t - cfg.still_seconds),
                                          self._hand, n, self.quiet, round(interval, 3),
                                          None if self._pause is None else round(self._pause, 3),
                                          reaches, self._tail, self._usable_since)
        self._tail = {}
        self._reaches = []
        self._judged = 0
        self._before = self._seen = consensus
        self._previous = self.reference
        self.reference = consensus
        self._candidate = None
        self._hand = False
        self._disturbed = False
        self.quiet = 0
        self._pause = None
        return obs

    # -- status ------------------------------------------------------------------------------------

    def status(self, now: float | None = None) -> dict[str, Any]:
        """{"state": "tracking"|"waiting"|"paused", "reason", "since"} at frame time `now`."""
        now = self._last_t if now is None else now
        if self._last_t is None:
            return {"state": "waiting", "reason": "no frames yet", "since": None}
        if self._unusable_run:
            since = self._unusable_since
            if now is not None and since is not None and now - since >= self.config.paused_after_seconds:
                return {"state": "paused", "reason": self._unusable_reason, "since": since}
            return {"state": "waiting", "reason": self._unusable_reason, "since": since}
        if self._usable_since is None or (now is not None and now - self._usable_since < self.config.still_seconds):
            return {"state": "waiting", "reason": "table moving", "since": self._usable_since}
        return {"state": "tracking", "reason": None, "since": self._usable_since}
