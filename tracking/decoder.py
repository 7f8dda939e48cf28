"""A fixed-lag beam decoder of turns (issue 17): the likeliest sequence of turns given every frame.

This is the tracker's only way of reading moves (since session 8; the journal is gone): it decodes
*who did what* (the turns as the camera can see them: tracking.check signatures);
tracking/decoded.py folds its best reading into a GameModel, whose engine gives the warnings and
scores, and tracking/tracker.py (GameTracker) serves it. bench/tracking_sessions.py measures it.

The model (an HMM over table states, decoded by beam search):
- hidden state: the true table (observation fields, tracking.stability.observation_fields), each
  discard pile's known cards, and whose turn is open and what it has done so far;
- transitions happen only while something covers the table (a hand): the change between the
  hypothesis' table and a candidate table is cut into turns in seat order (the open turn going
  on, then the next seats round the table); every cut is scored by priors, in cost units
  (−log-probability-like, all in TrackingConfig, `decoder_*`): a turn that plays or draws more
  than the rules allow, a turn that left no trace, a discard-pile change read as a draw of a card
  the pile's record does not show below its top, a change with no hand seen, and the hands'
  evidence (a turn by a seat no hand frame named, a seat named that made no turn);
- emissions: every usable frame is scored field by field against the hypothesis' table: a
  field read otherwise costs −log(misread probability), from the reader's `confidence` for that
  kind of field when given, `decoder_misread` otherwise;
- candidate tables after a hand: the hypothesis' table with any subset of the fields the new frame
  reads otherwise taken over (a field not taken is that frame's misread); a misread held from frame
  to frame costs decoder_misread_held per frame, at most decoder_misread_hold_max per still moment,
  and a card or tile read where there is none costs −log(decoder_phantom); a field a recent turn
  changed that now reads otherwise may be that turn's misread held since (`_revisions`), and a
  change read (otherwise) on every frame since the last hand is judged under that hand;
- cuts are tried cheapest lower bound first, at most decoder_cut_budget per hypothesis and
  decoder_frame_budget per frame (the bound on time per frame), each hypothesis' likeliest reading
  decoder_cut_reserve at least even when the frame's budget is spent;
- the beam keeps `decoder_beam` hypotheses (those with the same table, piles and open turn merged:
  Viterbi); turns older than `decoder_lag` frames and `decoder_lag_seconds` in the best hypothesis
  are committed, and a committed turn a later best hypothesis reads otherwise is logged as a correction;
- a turn over that played and was seen drawing nothing drew where the camera did not see it (in the
  reach of its play: likely when that reach was long against the game's own one-move reach, which
  each game learns from its reaches as it goes, `_learn_pace`) or never drew (a rule break);
- a discard, or a draw from a discard pile, of the recent turns that the best hypothesis and a close
  runner-up (within `decoder_unclear_margin`) give to different seats is asked about ("unclear — who
  discarded the red 7?", "unclear — who took the green 0 from its discard pile?", with the seats as
  answers; `decoder_ask_draws` off: a discard-only turn's discard only); an answer (and a correction
  naming who played) enters as evidence: a hypothesis against it pays `decoder_answer`; a question later
  frames decide (no reading within the margin disputes it while its turn is recent) is withdrawn
  (`decoder_withdraw_decided`); an answer naming a seat the question did not offer is applied only when
  the best reading then gives that seat the change (`answer_other`); the page's "don't know" dismisses a
  question (`dismiss`: no evidence, never asked again).
"""
from __future__ import annotations

import bisect
import contextlib
import dataclasses
import gc
import itertools
import math
import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Collection, Iterable, Mapping, NamedTuple, Sequence

from engine.observation import Observation
from .config import TrackingConfig
from .stability import FieldKey, Fields, observation_fields

#: a field's reading in Turn.delta when the field is no longer read (a row emptied, a pile gone)
_GONE = "<gone>"
_COVERED = "<covered>"   # (a tile spot's run of frames reading a pawn on it: TurnDecoder._note_tiles)

_CONFIDENCE_KEY = {"row": "rows", "points_row": "rows", "wish_cards": "rows", "wish": "rows",
                   "pawns": "pawns", "tile": "tiles", "top": "discard_tops"}


@contextlib.contextmanager
def gc_paused(on: bool) -> Iterable[None]:
    """The cyclic garbage collector off for the block when `on` and it is on (TrackingConfig.decoder_gc_pause:
    one frame's search makes and drops ~10^5 acyclic objects, and a full collection inside it made most of the
    slowest frames); process-wide, so only for a few ms, and back on even if the block fails."""
    if not (on and gc.isenabled()):
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _stones_differing(a: Iterable[tuple[str, bool]], b: Iterable[tuple[str, bool]]) -> set[str]:
    """The path stones whose (stone, big) pawns differ between two readings of one player's pawns."""
    ca, cb = Counter(a), Counter(b)
    return {stone for (stone, _big) in (ca - cb) + (cb - ca) if stone != "start"}


def _big_echoes(true: Iterable[tuple[str, bool]], read: Iterable[tuple[str, bool]]) -> int:
    """The path stones where `read` (one player's pawns) has exactly one pawn more than `true`, a big one, and
    `true` has that player's small pawn there: a big pawn read beside the player's own small one."""
    ct, cr = Counter(true), Counter(read)
    out = 0
    for stone in {s for s, _big in cr if s != "start"}:
        extra_big = cr[(stone, True)] - ct[(stone, True)]
        extra_small = cr[(stone, False)] - ct[(stone, False)]
        if extra_big == 1 and extra_small == 0 and ct[(stone, False)] > 0:
            out += 1
    return out


def _drawn_back(piles: Iterable[tuple[str, Any, Any, str]]) -> int:
    """Cards drawn back from the pile they were discarded onto in the same turn (its pile events in order)."""
    drawn_back = 0
    top_by: dict[str, tuple[str, Any]] = {}
    for pile, old, new, kind in piles:
        if kind == "draw" and top_by.get(pile) == ("discard", old):
            drawn_back += 1
        top_by[pile] = (kind, new)
    return drawn_back



class _cached:
    """functools.cached_property without its lock (Python < 3.12 takes one on every first read, which
    the cut search pays for on each of its many new turns): a value computed from a frozen turn."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@dataclass(frozen=True)
class Turn:
    """One decoded turn as the camera sees it (tracking.check signature terms), plus its pile events."""

    seat: str
    lays: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    row_discards: tuple[str, ...] = ()
    piles: tuple[tuple[str, Any, Any, str], ...] = ()   # (pile, old top, new top, "discard"|"draw")
    wish_cards: tuple[int, ...] = ()
    tiles: tuple[str, ...] = ()                          # tile codes taken
    unseen_draws: int = 0                                # reaches read as a draw from the draw pile
    pawns_lost: int = 0                                  # pawns gone from the board (or come): a misread
    #: pawns moved where no forward step takes them (back, or off their path) and paths given a player's second
    #: pawn (base board): the engine's pawn-backwards, pawn-not-adjacent, second-pawn-on-path (_pawn_faults)
    pawns_astray: int = 0
    #: the fields this turn changed, (field, reading after; _GONE: no longer read) in order — what the
    #: engine judges (tracking.model.GameModel.apply_turn); not part of the turn's identity
    delta: tuple[tuple[FieldKey, Any], ...] = field(default=(), compare=False)
    #: seats whose turn it was when this one was played out of turn (a rule break)
    skipped: tuple[str, ...] = ()
    #: the frame at which the turn began (placing corrections made meanwhile); not part of its identity
    start: int = field(default=-1, compare=False)
    #: the readings before the turn of the fields in `delta` (a reading revised later: TurnDecoder._revised)
    before: tuple[tuple[FieldKey, Any], ...] = field(default=(), compare=False)
    #: begun by a reach that changed nothing (its traceless prior paid then, with that reach's hands): that
    #: prior (TurnDecoder._traceless_prior; > 0), else False
    quiet: float = field(default=False, compare=False)
    #: the turn ended without its player drawing (a rule break: the next player played before it
    #: was over) — against a draw from the draw pile hidden in one of its reaches (decoder_draw_unseen)
    no_draw: bool = False
    #: seconds the longest reach in which the turn acted covered the table (TurnDecoder._reach_seconds):
    #: a draw from the draw pile hidden in a reach with its play makes that reach long; not part of its identity
    reach: float = field(default=0.0, compare=False)
    #: played out of turn by the player of the turn before, right after it (owes no draw of its own: the
    #: turn is still the skipped player's; they draw back up at their next turn); not part of its identity
    again: bool = field(default=False, compare=False)
    #: cards discarded from a row onto a pile that showed that very card before and after (its twin: no pile
    #: change seen) — the discard a discard-a-card tile owes, made unseen (TurnDecoder._owned_turn)
    onto_twin: int = 0

    # (cached: the cut search asks these of one turn many times; a frozen dataclass's fields never change)
    @_cached
    def plays(self) -> int:
        return len(self.lays) + sum(1 for p in self.piles if p[3] == "discard")

    @_cached
    def draws(self) -> int:
        return sum(1 for p in self.piles if p[3] == "draw") + self.unseen_draws

    @_cached
    def rule_facts(self) -> "_RuleFacts":
        """What the turn's rule costs need of it beside the table (TurnDecoder._turn_costs)."""
        return _RuleFacts(spots=tuple(("tile", st[2:]) for st in self.steps),
                          discards=sum(1 for p in self.piles if p[3] == "discard"),
                          takes_discard_tile="discard" in self.tiles,
                          wish_or_discard_tile=bool(self.wish_cards or "discard" in self.tiles),
                          drawn_back=_drawn_back(self.piles))

    def merged(self, other: "Turn") -> "Turn":
        # (made as Turn(...) would make it, its fields set at once: a frozen dataclass's __init__ sets
        # them one by one, slowly, and the cut search merges turns very often)
        out = object.__new__(Turn)
        out.__dict__.update(
            seat=self.seat, lays=self.lays + other.lays, steps=self.steps + other.steps,
            row_discards=self.row_discards + other.row_discards, piles=self.piles + other.piles,
            wish_cards=self.wish_cards + other.wish_cards, tiles=self.tiles + other.tiles,
            unseen_draws=self.unseen_draws + other.unseen_draws, pawns_lost=self.pawns_lost + other.pawns_lost,
            pawns_astray=self.pawns_astray + other.pawns_astray,
            delta=self.delta + other.delta, skipped=self.skipped or other.skipped, start=self.start,
            before=self.before + other.before,
            quiet=False,    # (no more: a part leaves a trace, its traceless prior is paid back once, in _cut_cost)
            no_draw=self.no_draw or other.no_draw, reach=max(self.reach, other.reach), again=self.again or other.again,
            onto_twin=self.onto_twin + other.onto_twin,
            # (both counts add up over the concatenated fields: set now, not counted again)
            plays=self.plays + other.plays, draws=self.draws + other.draws)
        if not (self.piles and other.piles):
            # (so do the rule facts, when only one of the two touched a pile: no card drawn back across them)
            a, b = self.rule_facts, other.rule_facts
            out.__dict__["rule_facts"] = _RuleFacts(
                a.spots + b.spots, a.discards + b.discards, a.takes_discard_tile or b.takes_discard_tile,
                a.wish_or_discard_tile or b.wish_or_discard_tile, a.drawn_back + b.drawn_back)
        return out

    def replaced(self, **changes: Any) -> "Turn":
        """dataclasses.replace(self, **changes), made faster (the cut search marks turns skipped or
        not drawing very often); the cached counts are kept when the fields they count are unchanged."""
        out = object.__new__(Turn)
        mine = self.__dict__
        out.__dict__.update({name: mine[name] for name in _TURN_FIELDS}, **changes)
        if not _COUNTED_FIELDS.intersection(changes):
            for name in ("plays", "draws", "rule_facts"):
                if name in mine:
                    out.__dict__[name] = mine[name]
        return out

    def __hash__(self) -> int:
        # (the dataclass's hash of the fields that make a turn's identity, computed once: the beam's
        # merging of hypotheses hashes the open turn of every candidate)
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash(_turn_identity(self))
        return h

    def __getstate__(self) -> dict[str, Any]:
        # (a string's hash differs from process to process: a pickled turn hashes afresh)
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def begun(self, frame: int, reach: float | None = None, again: bool | None = None) -> "Turn":
        """This turn begun at `frame` (a copy: dataclasses.replace, even copy.copy, is slow in the cut search),
        with its `reach` and `again` when given (none of the three is part of its identity or its counts:
        the cached values copied with it stay right)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.__dict__["start"] = frame
        if reach is not None:
            other.__dict__["reach"] = reach
        if again is not None:
            other.__dict__["again"] = again
        return other

    def shape(self) -> tuple:
        """What the turn did on the table and the rules (not how many reaches were read as draws)."""
        return self._shape

    @_cached
    def _shape(self) -> tuple:
        return (self.seat, self.lays, self.steps, self.row_discards, self.piles, self.wish_cards, self.tiles,
                self.skipped, self.no_draw)

    def signature(self) -> dict[str, Any]:
        """tracking.check's terms (pile changes net per pile)."""
        net: dict[str, list[Any]] = {}
        for pile, old, new, _ in self.piles:
            if pile in net:
                net[pile][1] = new
            else:
                net[pile] = [old, new]
        return {"seat": self.seat, "lays": sorted(self.lays), "steps": sorted(self.steps),
                "row_discards": sorted(self.row_discards),
                "piles": sorted(f"{p}:{o}>{n}" for p, (o, n) in net.items() if o != n),
                "wish_cards": sorted(self.wish_cards)}


class _RuleFacts(NamedTuple):
    """A turn's own part of its rule costs (Turn.rule_facts): the rest is the tiles under its steps.
    (a named tuple: made for very many turns of the cut search, faster than a frozen dataclass)"""

    spots: tuple[tuple[str, str], ...]   # the table's tile field under each pawn step, in order
    discards: int                        # cards discarded onto piles
    takes_discard_tile: bool             # a discard-a-card tile taken
    wish_or_discard_tile: bool           # a wish-card pair laid or a discard-a-card tile taken (one more card)
    drawn_back: int                      # cards drawn back from the pile they were discarded onto this turn


#: the fields of a Turn (its dataclass fields, not its cached values)
_TURN_FIELDS = tuple(f.name for f in dataclasses.fields(Turn))
#: the fields Turn.plays, draws and rule_facts are counted from
_COUNTED_FIELDS = frozenset({"lays", "piles", "unseen_draws", "steps", "tiles", "wish_cards"})
#: the fields of a Turn that make its identity (compared and hashed)
_TURN_IDENTITY = tuple(f.name for f in dataclasses.fields(Turn) if f.compare)
assert set(Turn("").merged(Turn("")).__dict__) == set(_TURN_FIELDS) | {"plays", "draws", "rule_facts"}  # (merged sets all)
_turn_identity = operator.attrgetter(*_TURN_IDENTITY)
_turn_shape = operator.attrgetter("_shape")
#: every field of a Turn that has a default, with it (all immutable)
_TURN_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Turn) if f.default is not dataclasses.MISSING}


def _new_turn(**fields: Any) -> Turn:
    """Turn(**fields), made faster (a frozen dataclass's __init__ sets its fields one by one; the cut
    search makes very many turns)."""
    turn = object.__new__(Turn)
    turn.__dict__.update(_TURN_DEFAULTS, **fields)
    return turn


@dataclass(frozen=True)
class Hypothesis:
    """One reading of the game so far: table, piles, turns (the last one open), cost."""

    table: frozenset            # of (field, reading) pairs
    piles: tuple[tuple[str, tuple[Any, ...]], ...]
    turns: tuple[Turn, ...]
    cost: float
    #: frame index at which each turn got its last action (for the fixed-lag commit)
    turn_frames: tuple[int, ...] = ()
    #: fields the last usable frame read otherwise than this table, and how (a misread that holds
    #: for several frames costs decoder_misread_held per further frame)
    misread: tuple[tuple[FieldKey, Any, float, float, int], ...] = ()
    #: the first table's tiles this reading holds were read otherwise then, (field, tile) sorted
    #: (TurnDecoder._first_tiles_read): tiles never change, so the first frame's reading is a reading
    first: tuple[tuple[FieldKey, Any], ...] = ()

    def key(self, recent: int) -> tuple:
        """Hypotheses that agree on the table, the piles and the last `recent` turns are one (Viterbi);
        ones that read the recent turns otherwise stay apart (so a close call can be asked about);
        turns over that differ only in which reaches were draws from the draw pile are one (they
        would fill the beam with copies of one reading)."""
        return (self.table, self.piles, tuple(map(_turn_shape, self.turns[-recent:-1])), self.turns[-1:])


def _new_hypothesis(table: frozenset, piles: tuple, turns: tuple, cost: float, turn_frames: tuple = (),
                    misread: tuple = (), first: tuple = ()) -> Hypothesis:
    """Hypothesis(...), made faster (a frozen dataclass's __init__ sets its fields one by one; every
    frame makes a hypothesis per reading judged)."""
    hyp = object.__new__(Hypothesis)
    hyp.__dict__.update(table=table, piles=piles, turns=turns, cost=cost, turn_frames=turn_frames, misread=misread,
                        first=first)
    return hyp


@dataclass
class _Interval:
    """What happened since the last usable frame: hand frames by seat, frames unusable."""

    hands: dict[str, int] = field(default_factory=dict)
    hand_frames: int = 0
    unnamed: int = 0        # hand frames that named no seat (anyone's hand)
    covered: int = 0
    #: seconds the table lay still before this reach (None: unknown): players go on with their own
    #: turn quickly and take over from another after a moment
    pause: float | None = None
    #: seconds between the usable frames before and after (None: unknown): the longer, the likelier
    #: a reach came and went between them unseen
    span: float | None = None
    #: seconds between the frames of this reach (1 when not timed): a hand seen longer is more evidence,
    #: not a hand filmed faster (decoder_hand_frame counts per second of hand frames)
    period: float = 1.0
    #: the seats the reach before this one named (None: no reach yet): a turn's reaches misnamed alike
    #: are one misnamed arm (decoder_hand_again)
    before: frozenset[str] | None = None


class TurnDecoder:
    """Feed every frame's observation (usable or not, with the `hands` extension); read `turns`,
    `corrections` and `questions`. setup: {"seats": {seat: player}, "game", "first"?}."""

    def __init__(self, setup: Mapping[str, Any], config: TrackingConfig | None = None):
        self.config = config or TrackingConfig()
        self.seats: dict[str, str] = dict(setup["seats"])
        self.order: list[str] = list(self.seats)
        self.first: str | None = setup.get("first")
        self.card_game = setup.get("game") == "keltis-card"
        #: the board (setup "board": a Board or a bundled board's name), for the steps a card laid pays for
        self.board = _board_of(setup.get("board")) if not self.card_game else None
        self.seat_of_player = {p: s for s, p in self.seats.items()}
        self.beam: list[Hypothesis] = []
        self._reserve = 0     # (cuts a search may judge beyond the frame's budget: _advance, decoder_cut_reserve)
        self.interval = _Interval()
        self.frame = -1
        self.committed: list[Turn] = []
        self.corrections: list[dict[str, Any]] = []
        self.questions: list[dict[str, Any]] = []
        #: (pile, card, "discard"|"draw") → the seat named on the page: who discarded that card onto the pile,
        #: or who took it from there (_pile_event)
        self.answers: dict[tuple[str, Any, str], str] = {}
        #: the answered pile change (pile, old top, new top, kind) by answers' key, when a question named it
        self._answer_events: dict[tuple[str, Any, str], tuple | None] = {}
        #: the frame and time each answer was given, by answers' key (decoder_answer_lag)
        self._answer_at: dict[tuple[str, Any, str], tuple[int, float | None]] = {}
        #: every answer as given, in order: (key, seat, event or None, nth or None, frame, t) — nth: which change of
        #: that pile, card and kind in the reading it names (the question's "nth"; None: every one, an answer no
        #: question numbered, e.g. a re-decode seed stored before decoder_answer_nth). `answers` and the two
        #: dicts above hold the latest answer of each key
        self._answer_log: list[tuple[tuple[str, Any, str], str, tuple | None, int | None, int, float | None]] = []
        self._made: tuple = ()   # (the reading being extended: changes made of each numbered answer's key, _made_of)
        self._hand_left: float | None = None   # time of the last hand frame
        #: the seats a reach's hand frames named, by the first usable frame after it (decoder_hand_coincide)
        self._named_after: dict[int, frozenset[str]] = {}
        #: each discard pile's top as read, and the first usable frame of those reading it so since
        self._tops_since: dict[FieldKey, tuple[Any, int]] = {}
        self._period = 1.0                     # seconds between two frames fed (1 when not timed)
        #: the draw pile is empty (the engine's count of the best reading, tracking/decoded.py): no turn
        #: owes a draw (RULES §3 End: the last plays draw nothing)
        self.draws_over = False
        self._last_t: float | None = None      # time of the last frame fed
        self.start: Fields | None = None       # the table of the first usable frame (turns change it)
        #: each tile spot's readings so far, in runs of one reading within one still moment: [reading, usable
        #: frames, that run's first frame's misread costs] (_tile_history_cost judges them under another tile)
        self._tile_runs: dict[FieldKey, list[list]] = {}
        #: the first table's tiles as the frames so far read them likeliest (_first_tiles_read), by spot
        self._first_tiles: dict[FieldKey, Any] = {}
        self.times: dict[int, float] = {}      # frame index → time (of frames that made a turn act)
        self._usable: list[int] = []           # indexes of the usable frames fed, in order
        #: misreads the players corrected on the page: (field, row position or None) → (as read, as it is)
        self._known: dict[tuple[FieldKey, int | None], tuple[Any, Any]] = {}
        self._prev: tuple[_Interval, int] | None = None   # the last reach and the first usable frame after it
        self._cur = self.interval              # the reach a change is judged under
        #: the game's own pace (_learn_pace): estimates of its one-move reach in seconds, sorted; the run of
        #: reaches of one seat going on (seat, seconds of each, whether they are in the estimates yet); and
        #: the game's one-move reach over the prior's (decoder_one_move_seconds): the two-move reach scales by it
        self._one_move: list[float] = []
        self._run: tuple[str | None, list[float], bool] | None = None
        self._pace = 1.0
        self._paid_memo: dict[tuple, tuple[int, int, int]] = {}   # (_steps_paid: by lays and steps)
        #: each stone's colour just before it (the stones whose next it is; _steps_paid)
        self._before_stone: dict[str, tuple[str, ...]] = {}
        if self.board is not None:
            before: dict[str, set[str]] = {}
            for st in self.board.stones.values():
                for nxt in st.next:
                    if st.kind != "start" and st.color is not None:
                        before.setdefault(nxt, set()).add(st.color)
            self._before_stone = {sid: tuple(sorted(cs)) for sid, cs in before.items()}
        self._forget_frame()

    # ------------------------------------------------------------------ input

    def feed(self, obs: Observation, frame_index: int | None = None, t: float | None = None) -> None:
        """One frame (t: its time in seconds): a hand frame adds evidence, a usable frame advances the beam."""
        self.frame = frame_index if frame_index is not None else self.frame + 1
        if t is not None and self._last_t is not None and t > self._last_t:
            self._period = t - self._last_t
        if not obs.usable:
            self.interval.covered += 1
            if t is not None and self._last_t is not None and t > self._last_t:
                self.interval.period = t - self._last_t
            hands = obs.extra.get("hands") if obs.extra else None
            if isinstance(hands, list):   # a hand over the table (its seat read or not)
                if self.interval.hand_frames == 0 and t is not None and self._hand_left is not None:
                    # the table lay clear from after the last hand frame until before this one: the
                    # pause between the reaches is the time between them less about one frame's time
                    # (at 1 fps a player going on shows 2 s between hand frames, the next player 3-5 s)
                    period = t - self._last_t if self._last_t is not None else 0.0
                    self.interval.pause = max(0.0, t - self._hand_left - period)
                if t is not None:
                    self._hand_left = t
                self.interval.hand_frames += 1
                if not any(isinstance(h, dict) and h.get("seat") in self.seats for h in hands):
                    self.interval.unnamed += 1
                for h in hands:
                    seat = h.get("seat") if isinstance(h, dict) else None
                    if seat in self.seats:
                        self.interval.hands[seat] = self.interval.hands.get(seat, 0) + 1
            if t is not None:
                self._last_t = t
            return
        fields = self._corrected(observation_fields(obs))
        costs = self._misread_costs(obs)
        prev_t = self.times.get(self._usable[-1]) if self._usable else None
        if t is not None and prev_t is not None:
            self.interval.span = t - prev_t
        self._usable.append(self.frame)
        for k, v in fields.items():
            if k[0] == "top" and self._tops_since.get(k, (_GONE,))[0] != v:
                self._tops_since[k] = (v, self.frame)
        if t is not None:
            self.times[self.frame] = t
            self._last_t = t
        if self.interval.hand_frames:
            self._learn_pace(self.interval)
        first = not self.beam
        if first:
            self.start = dict(fields)
            self._first_tiles = {k: v for k, v in fields.items() if k[0] == "tile"}
            table, cost, misread = self._setup_pawns(fields, costs)
            self.beam = [Hypothesis(frozenset(table.items()), self._initial_piles(fields), (), cost, misread=misread)]
        if self.config.decoder_first_tiles:
            self._first_tiles_read(fields, costs)
        if not first:
            with gc_paused(self.config.decoder_gc_pause):
                self._advance(fields, costs)
        if self.interval.hand_frames or self.interval.covered >= 2:
            self._prev = (self.interval, self.frame)   # the last reach and the first frame after it
        before = frozenset(self.interval.hands) if self.interval.hand_frames else self.interval.before
        if self.interval.hands:
            self._named_after[self.frame] = frozenset(self.interval.hands)
        self.interval = _Interval(before=before)
        self._commit()

    def _setup_pawns(self, fields: Fields, costs: Mapping[str, float]) -> tuple[Fields, float, tuple]:
        """decoder_setup_pawns: the first table (board game, no card laid, no wish stone taken yet) with every
        player's pawns on the start as the game sets them up; each player's pawns the first frame read otherwise
        a misread (its cost, and held as any: the hypothesis' `misread`). The first table (self.start) holds them
        so too. Returns (table, cost, misread)."""
        if not self.config.decoder_setup_pawns or self.board is None or any(
                v for k, v in fields.items() if k[0] in ("row", "points_row", "wish", "wish_cards")):
            return fields, 0.0, ()
        from engine.boardgame.moves import BIG, PAWNS_PER_PLAYER

        start = self.board.start.id
        setup = tuple(sorted((start, i == BIG) for i in range(PAWNS_PER_PLAYER)))
        table = dict(fields)
        cost = 0.0
        misread = []
        for player in sorted(self.seat_of_player):
            k = ("pawns", player)
            if fields.get(k) != setup:
                paid = self._misread_cost(costs, k, setup, fields.get(k))
                cost += paid
                misread.append((k, fields.get(k), 0.0, paid, self.frame))
                table[k] = setup
                if self.start is not None:
                    self.start[k] = setup
        return table, cost, tuple(misread)

    def _note_tiles(self, fields: Fields, costs: Mapping[str, float]) -> None:
        """This usable frame's tile readings added to their runs (_tile_runs): a run goes on while the reading
        holds with no reach between (as a misread held, decoder_misread_held), else a new one begins. A spot the
        same reading puts a pawn on is no reading of its tile (the pawn hides it: decoder_covered_tile) and ends
        its run."""
        still = self.interval.hand_frames == 0 and self.interval.covered < 2 and bool(self._tile_runs)
        stones = _stones_read(fields)
        spots = {k for k in fields if k[0] == "tile"} | self._tile_runs.keys()
        for k in spots:
            runs = self._tile_runs.setdefault(k, [])
            if k[1] in stones:
                if runs and runs[-1][0] is not _COVERED:
                    runs.append([_COVERED, 0, costs])
                continue
            read = fields.get(k, _GONE)
            if still and runs and runs[-1][0] == read:
                runs[-1][1] += 1
            else:
                runs.append([read, 1, costs])

    def _tile_history_cost(self, k: FieldKey, tile: Any, cap: float = math.inf) -> float:
        """What the frames so far cost judged under `tile` lying at spot k: each still moment's run of another
        reading one misread (at its first frame's price, at most `cap`), then held (decoder_misread_held, at
        most _hold_max)."""
        cfg = self.config
        total = 0.0
        for read, n, costs in self._tile_runs.get(k, ()):
            if read != tile and read is not _COVERED:
                total += min(self._misread_cost(costs, k, tile, read), cap) + min(
                    self._held(costs, k) * (n - 1), self._held(costs, k, cfg.decoder_misread_hold_max))
        return total

    def _first_tiles_read(self, fields: Fields, costs: Mapping[str, float]) -> None:
        """This usable frame's tile readings judged against the first table's tiles as estimated so far
        (_first_tiles; tiles are laid at setup and never change, RULES §1, so the first frame's reading of one
        is a reading, not the truth). Per spot the estimate is the tile the frames so far (this one included)
        cost least under (_tile_history_cost, each still moment's reading weighing at most
        decoder_first_tile_read: the reader's tile confidences are not calibrated), with hysteresis: it moves
        from its tile to the reading now only when that saves more than decoder_first_tile, so a few frames
        read otherwise — even surely — do not flip it while many read it so. When it moves, every hypothesis
        that holds the old tile there, with no turn of its own having changed or stepped on the spot, is
        revised in place (not copied: a revision takes no place in the beam) and pays what the frames before
        this one cost under the new tile less what they cost under the old one, as the beam priced them (no
        cap: what it paid for them comes back), plus decoder_first_tile; no turn, no warning comes of it."""
        cfg = self.config
        est = self._first_tiles
        moved = []
        stones = _stones_read(fields)
        for k, now in fields.items():
            if k[0] != "tile" or k[1] in stones:
                continue
            cur = est.get(k, _GONE)
            # (only a tile read as another tile: a spot read empty or full is the reader's miss or phantom,
            # priced as such by the beam, and a wish tile taken is a turn's)
            if now == cur or now in (None, _GONE) or cur in (None, _GONE):
                continue
            moved.append((k, cur, now, self._tile_history_cost(k, now) - self._tile_history_cost(k, cur)))
        self._note_tiles(fields, costs)
        for k, cur, now, paid in moved:
            cap = cfg.decoder_first_tile_read
            if self._tile_history_cost(k, cur, cap) - self._tile_history_cost(k, now, cap) <= cfg.decoder_first_tile:
                continue
            est[k] = now
            self.beam = [self._first_tile_revised(hyp, k, cur, now, paid + cfg.decoder_first_tile)
                         for hyp in self.beam]

    def _first_tile_revised(self, hyp: Hypothesis, k: FieldKey, old: Any, new: Any, cost: float) -> Hypothesis:
        """hyp with its first table's tile at k revised from `old` to `new` (_first_tiles_read), at `cost`; hyp
        itself when its table does not hold `old` there or a turn of it changed or stepped on the spot (a turn
        judged with the tile there: that reading keeps its own)."""
        table = dict(hyp.table)
        if table.get(k, _GONE) != old:
            return hyp
        for turn in hyp.turns:
            if k in turn.rule_facts.spots or any(kk == k for kk, _v in turn.delta):
                return hyp
        table[k] = new
        first = dict(hyp.first)
        if new == (self.start or {}).get(k, _GONE):
            first.pop(k, None)    # (back to the first frame's reading)
        else:
            first[k] = new
        return _new_hypothesis(frozenset(table.items()), hyp.piles, hyp.turns, hyp.cost + cost, hyp.turn_frames,
                               tuple(m for m in hyp.misread if m[0] != k), tuple(sorted(first.items(), key=repr)))

    def first_table(self, hyp: Hypothesis | None = None) -> Fields | None:
        """The game's first table as the reading `hyp` (default: the best) holds it: the first usable frame's
        reading with the tiles revised in it (_first_tiles_read); None before the first usable frame."""
        if self.start is None:
            return None
        hyp = hyp if hyp is not None else (self.beam[0] if self.beam else None)
        table = dict(self.start)
        for k, v in (hyp.first if hyp is not None else ()):
            if v == _GONE:
                table.pop(k, None)
            else:
                table[k] = v
        return table

    def _learn_pace(self, interval: _Interval) -> None:
        """Learn how long this game's players take for one move from the reach just over (RULES §1 Turn: a
        turn plays, then draws — two moves). A seat's reaches one after another (its run) held one move
        each (a play, then the draw, or its turn going on); a turn seen in a single reach held both, so that
        reach over decoder_two_move_ratio is one more estimate. The pace is the weighted median of the
        estimates and decoder_one_move_seconds (the prior, weighing decoder_pace_prior reaches) over
        decoder_one_move_seconds. A reach naming no seat or several (two turns in one reach) ends the run
        and tells nothing. Deterministic in the frames fed: a replay of the stored frames learns the same."""
        seconds = interval.covered * interval.period
        seat = next(iter(interval.hands)) if len(interval.hands) == 1 and not interval.unnamed else None
        run = self._run
        if run is not None and seat is not None and run[0] == seat:
            if not run[2]:
                for x in run[1]:
                    bisect.insort(self._one_move, x)
            bisect.insort(self._one_move, seconds)
            self._run = (seat, run[1] + [seconds], True)
        else:
            if run is not None and run[0] is not None and len(run[1]) == 1:
                bisect.insort(self._one_move, run[1][0] / max(self.config.decoder_two_move_ratio, 1e-6))
            self._run = (seat, [seconds], False)
        cfg = self.config
        prior, weight = cfg.decoder_one_move_seconds, cfg.decoder_pace_prior
        if prior <= 0 or not self._one_move:
            return
        # (the weighted median: the smallest estimate with more than half the weight at or below it)
        values, half, total, i, prior_taken = self._one_move, (len(self._one_move) + weight) / 2.0, 0.0, 0, False
        while True:
            if not prior_taken and (i >= len(values) or prior <= values[i]):
                median, total, prior_taken = prior, total + weight, True
            else:
                median, total, i = values[i], total + 1.0, i + 1
            if total > half:
                break
        self._pace = max(median, 1e-3) / prior

    def _corrected(self, fields: Fields) -> Fields:
        """A frame's readings with the misreads the players corrected read as they said."""
        if not self._known:
            return fields
        out = dict(fields)
        for (key, i), (bad, good) in self._known.items():
            value = out.get(key, _GONE)
            if i is None:
                if value == bad:
                    if good == _GONE:
                        out.pop(key, None)
                    else:
                        out[key] = good
            elif isinstance(value, tuple) and i < len(value) and value[i] == bad:
                out[key] = value[:i] + (good,) + value[i + 1:]
        return out

    def answer(self, pile: str, card: Any, seat: str, kind: str = "discard") -> None:
        """An answer from the page (or a correction naming who played): the turn that put `card` on
        `pile` (kind "discard"), or took it from there ("draw"), was `seat`'s. Evidence: hypotheses against
        it pay decoder_answer from now on."""
        key = (pile, card, kind)
        # (the question answered: the open one about it, else the latest asked — decoder_answer_nth)
        q = self.open_question(pile, card, kind) or next(
            (x for x in reversed(self.questions) if (x["pile"], x["card"], x["kind"]) == key), None)
        self.answers[key] = seat
        # (the very pile change asked about, when a question asked it: decoder_answer_occurrence)
        self._answer_events[key] = q.get("event") if q is not None and self.config.decoder_answer_occurrence else None
        self._answer_at[key] = (self.frame, self._last_t)
        # (off decoder_answer_occurrence an answer names every change of its card: numbered by none)
        nth = q.get("nth") if q is not None and self.config.decoder_answer_nth and \
            self.config.decoder_answer_occurrence else None
        if q is not None and self.config.decoder_answer_nth:
            q["answered"] = seat
        self._answer_log.append((key, seat, self._answer_events[key], nth, self.frame, self._last_t))
        self.beam = sorted((self._with_answers(h, key, new=False, nth=nth) for h in self.beam), key=lambda h: h.cost)
        self._commit()

    def _answered(self, key: tuple[str, Any, str], nth: int | None) -> bool:
        """Is the `nth` change of this pile, card and kind (_pile_event) answered — by an answer naming that
        change, or one naming no change in particular (nth None: every change of that key, as before
        decoder_answer_nth, which off makes every answer so)?"""
        if not self.config.decoder_answer_nth:
            return key in self.answers
        return any(k == key and (n is None or nth is None or n == nth) for k, _s, _e, n, _f, _t in self._answer_log)

    def _against_answer(self, event: tuple[str, Any, Any, str], seat: str, new: bool = True,
                        only: tuple | None = None, nth: int | None = None) -> bool:
        """A turn of `seat`'s with this pile event (pile, old top, new top, kind) goes against an answer: the page
        named another seat for its card — for that very change of the pile when the answer was to a question
        (the same card discarded or taken again later, or its twin, is another change: decoder_answer_occurrence),
        else for every change of that card and kind. `new`: the event is read by a cut of this frame — once the
        answer is older than the commit lag (decoder_answer_lag) that is a later change of the pile, not the one
        asked about (the same cards again: a draw of the card and a discard of it back onto the same card)."""
        key = _pile_event(event)
        named = self.answers.get(key)
        if named is None:
            return False
        if not self.config.decoder_answer_nth:
            if named == seat:
                return False
            full = self._answer_events.get(key)
            if full is None:
                return True
            if tuple(event) != full:
                return False
            return not (new and self.config.decoder_answer_lag
                        and self._past_lag(*self._answer_at.get(key, (self.frame, None))))
        # (each answer of that key: two changes of the same card answered are two answers, each its own change;
        # `only`: that answer alone, an entry of _answer_log — the one just given, _with_answers)
        # `nth`: the event is that change of its pile, card and kind in its reading — an answer naming another
        # change of them (its own nth) does not price it
        for k, named, full, n, frame, t in (self._answer_log if only is None else (only,)):
            if k != key or named == seat or (nth is not None and n is not None and n != nth):
                continue
            if full is None:
                return True
            if tuple(event) == full and not (new and self.config.decoder_answer_lag and self._past_lag(frame, t)):
                return True
        return False

    def _past_lag(self, frame: int, t: float | None) -> bool:
        """Is `frame` (at time `t`) older than the commit horizon now (decoder_lag frames and decoder_lag_seconds,
        as _commit has it): a turn of it is committed, no cut reads it any more."""
        cfg = self.config
        if frame > self.frame - cfg.decoder_lag:
            return False
        return not (cfg.decoder_lag_seconds and t is not None and self._last_t is not None
                    and t > self._last_t - cfg.decoder_lag_seconds)

    def fix(self, changes: Mapping[FieldKey, Any]) -> None:
        """The players said the table reads so (a correction on the page): every hypothesis takes
        these readings (_GONE: not read) as the table now, without a turn; frames reading them
        otherwise later pay as misreads. What the best reading had there is the reader's known
        misread of that card: later frames reading it so are read as the players said (`_known`)."""
        if self.beam:
            best = dict(self.beam[0].table)
            for key, value in changes.items():
                was = best.get(key, _GONE)
                if key[0] == "row" and isinstance(was, tuple) and isinstance(value, tuple) and len(was) == len(value):
                    for i, (a, b) in enumerate(zip(was, value)):
                        if a != b:
                            self._known[(key, i)] = (a, b)
                elif was != value and key[0] == "tile":   # (a spot keeps its tile; a pile's top changes)
                    self._known[(key, None)] = (was, value)
        out = []
        for hyp in self.beam:
            table = dict(hyp.table)
            for key, value in changes.items():
                if value == _GONE:
                    table.pop(key, None)
                else:
                    table[key] = value
            piles = dict(hyp.piles)
            for key, value in changes.items():
                if key[0] == "top":
                    stack = tuple(piles.get(key[1], ()))
                    piles[key[1]] = () if value in (None, _GONE) else (stack[:-1] + (value,) if stack else (None, value))
            misread = tuple(m for m in hyp.misread if m[0] not in changes)  # (corrected: no misread)
            out.append(Hypothesis(frozenset(table.items()), tuple(sorted(piles.items())), hyp.turns, hyp.cost,
                                  hyp.turn_frames, misread, hyp.first))
        self.beam = out

    def take_back(self, table: Fields) -> Turn | None:
        """Undo on the page: the best reading without its last turn, the table back to `table`
        (the table before that turn); the readings that disagree are dropped. Returns the turn taken back."""
        if not self.beam or not self.beam[0].turns:
            return None
        best = self.beam[0]
        last = best.turns[-1]
        piles = dict(best.piles)
        for pile, old, new, kind in reversed(last.piles):
            stack = tuple(piles.get(pile, ()))
            if kind == "discard" and stack and stack[-1] == new:
                piles[pile] = stack[:-1]
            elif kind == "draw":
                piles[pile] = stack + ((old,) if old is not None else ())
        self.beam = [Hypothesis(frozenset(table.items()), tuple(sorted(piles.items())), best.turns[:-1], best.cost,
                                best.turn_frames[:-1], (), best.first)]
        del self.committed[len(best.turns) - 1:]
        return last

    def finish(self) -> None:
        """The recording ended: every turn of the best hypothesis is committed."""
        self._commit(final=True)

    def open_question(self, pile: str, card: Any, kind: str = "discard") -> dict[str, Any] | None:
        """The open question about (pile, card, kind) (the card compared as text: the page sends what it showed),
        or None: none was asked, or it was answered, withdrawn or dismissed since (a stale tap)."""
        return next((q for q in self.open_questions
                     if q["pile"] == pile and str(q["card"]) == str(card) and q["kind"] == kind), None)

    def gives(self, event: tuple, seat: str, loose: bool = False) -> bool:
        """Does the best reading give the pile change `event` (pile, old top, new top, kind) to `seat`? loose: any
        change of that pile, card and kind (_pile_event; a reading decoded again may see the pile otherwise)."""
        if not self.beam:
            return False
        if loose:
            key = _pile_event(tuple(event))
            return any(turn.seat == seat and any(_pile_event(tuple(e)) == key for e in turn.piles)
                       for turn in self.beam[0].turns)
        return any(turn.seat == seat and tuple(event) in map(tuple, turn.piles) for turn in self.beam[0].turns)

    def seed_answer(self, seed: Mapping[str, Any]) -> None:
        """An answer known before the first frame (a re-decode, GameTracker._redecoded): {"pile", "card", "kind",
        "seat", "event", "frame", "t"} — the answer as answer() takes it, for that very pile change (event), given
        at that frame and time (decoder_answer_lag counts from there). Its question is never asked."""
        key = (seed["pile"], seed["card"], seed["kind"])
        self.answers[key] = seed["seat"]
        self._answer_events[key] = tuple(seed["event"]) if self.config.decoder_answer_occurrence else None
        self._answer_at[key] = (int(seed["frame"]), seed.get("t"))
        # (a seed stored before decoder_answer_nth has no "nth": it names every change of that card, as then)
        nth = seed.get("nth") if self.config.decoder_answer_nth and self.config.decoder_answer_occurrence else None
        self._answer_log.append((key, seed["seat"], self._answer_events[key], None if nth is None else int(nth),
                                 int(seed["frame"]), seed.get("t")))

    def answer_other(self, pile: str, card: Any, seat: str, kind: str = "discard") -> bool:
        """An answer naming a seat the question did not offer (the page's "someone else"): applied like any
        answer (evidence against every reading giving the asked change to another seat) when a reading the
        decoder holds then gives that very change to `seat`; otherwise nothing changes (the decoder, its beam
        and the question as before) and False: no reading of the frames lets that seat have made it."""
        q = self.open_question(pile, card, kind)
        if q is None or "event" not in q:
            return False
        key = (q["pile"], q["card"], kind)
        saved = (list(self.beam), list(self.committed), list(self.corrections), dict(self.answers),
                 dict(self._answer_events), dict(self._answer_at), list(self._answer_log), q.get("answered"))
        self.answer(q["pile"], q["card"], seat, kind)
        if self.gives(q["event"], seat):
            return True
        (self.beam, self.committed, self.corrections, self.answers, self._answer_events,
         self._answer_at, self._answer_log, answered) = saved
        if answered is None:
            q.pop("answered", None)
        assert not self._answered(key, q.get("nth"))
        return False

    def dismiss(self, pile: str, card: Any, kind: str = "discard") -> dict[str, Any]:
        """The page's "don't know": the open question about (pile, card, kind) is withdrawn (marked "dismissed":
        the frame; not asked again) and nothing else changes — no evidence, the best reading stands. Raises
        LookupError when no such question is open (answered, withdrawn or dismissed already)."""
        q = self.open_question(pile, card, kind)
        if q is None:
            raise LookupError(f"no open question about the {pile} {card} ({kind})")
        q["dismissed"] = self.frame
        return q

    @property
    def open_questions(self) -> list[dict[str, Any]]:
        """Questions not answered yet, not withdrawn and not dismissed ("unclear — who discarded the red 7?" with
        the seats to tap; `questions` keeps every one asked, a withdrawn one marked "withdrawn": the frame,
        _withdraw; one the page dismissed "dismissed": the frame)."""
        return [q for q in self.questions if "withdrawn" not in q and "dismissed" not in q and "answered" not in q
                and not self._answered((q["pile"], q["card"], q["kind"]), q.get("nth"))]

    @property
    def turns(self) -> list[Turn]:
        """The best reading's turns (committed ones and the rest)."""
        return list(self.beam[0].turns) if self.beam else []

    # ------------------------------------------------------------------ the model

    def _misread_costs(self, obs: Observation) -> dict[str, float]:
        """Cost of one field read otherwise, per kind of field (reader confidence, else config)."""
        base = self.config.decoder_misread
        out = {}
        for kind, key in _CONFIDENCE_KEY.items():
            conf = obs.confidence.get(key) if obs.confidence else None
            p = (1.0 - float(conf)) if isinstance(conf, (int, float)) and 0 < conf < 1 else base
            out[kind] = -math.log(max(p, 1e-6))
        out["default"] = -math.log(base)
        if self.config.decoder_element_confidence:
            # each path stone's and tile spot's own share read right (the reader's element_confidence):
            # "pawns@<stone>", "tile@<spot>", and "<kind>@others" for those it does not name
            for kind, group, unit in (("pawns", "pawns", "stones"), ("tile", "tiles", "spots")):
                shares = obs.element_shares(group, unit)
                if shares is not None:
                    others, named = shares
                    out[kind + "@others"] = -math.log(max(1.0 - others, 1e-6))
                    for sid, conf in named.items():
                        out[f"{kind}@{sid}"] = -math.log(max(1.0 - conf, 1e-6))
        return out

    def _held(self, costs: Mapping[str, float], k: FieldKey, cost: float | None = None) -> float:
        """`cost` (decoder_misread_held) for field k's misread held one more frame: scaled down as the
        reader's confidence makes a misread of its kind likelier than decoder_misread (a reader that misreads
        a kind often repeats its misread of a still table as often: the vision reader's pawns)."""
        cost = self.config.decoder_misread_held if cost is None else cost
        if not self.config.decoder_held_by_confidence:
            return cost
        return cost * min(1.0, costs.get(k[0], costs["default"]) / costs["default"])

    def _misread_cost(self, costs: Mapping[str, float], k: FieldKey, true: Any, read: Any) -> float:
        """Cost of field k read as `read` when the table shows `true`: a thing read otherwise or
        missed is a misread (costs by kind); a card or tile read where there is none (a row read
        longer, a pile or spot read full) is far rarer: decoder_phantom."""
        # (kept for the frame: every hypothesis with the field judges the same pair again; the entry keeps
        # `costs` alive, so an id found there names the very same costs)
        key = (id(costs), k, true, read)
        hit = self._misread_memo.get(key)
        if hit is not None and hit[0] is costs:
            return hit[1]
        cost = self._misread_cost_of(costs, k, true, read)
        self._misread_memo[key] = (costs, cost)
        return cost

    def _misread_cost_of(self, costs: Mapping[str, float], k: FieldKey, true: Any, read: Any) -> float:
        if true == _GONE:
            true = None
        if read == _GONE:
            read = None
        if k[0] == "row":
            phantom = len(read or ()) > len(true or ())
        elif k[0] in ("top", "tile"):
            phantom = true is None and read is not None
        else:
            phantom = False
        if phantom:
            return -math.log(max(self.config.decoder_phantom, 1e-9))
        if k[0] == "pawns" and "pawns@others" in costs:
            # the stones read otherwise, each at its own price (a pawn misread on two stones is two misreads);
            # "start" holds what the paths leave over (FORMATS §2), so it is no stone of its own
            diff = _stones_differing(true or (), read or ())
            if diff:
                # (summed in the stones' order: a set's order follows the process's string hashes, and a float sum
                # in another order can differ in its last bit and so break a tie between readings otherwise)
                cost = sum(costs.get("pawns@" + sid, costs["pawns@others"]) for sid in sorted(diff))
                if self.config.decoder_big_echo:
                    cost += self.config.decoder_big_echo * _big_echoes(true or (), read or ())
                return cost
        if k[0] == "tile" and "tile@others" in costs:
            return costs.get("tile@" + k[1], costs["tile@others"])
        if k[0] == "pawns" and self.config.decoder_big_echo and true != read:
            return costs.get(k[0], costs["default"]) + self.config.decoder_big_echo * min(
                1, _big_echoes(true or (), read or ()))
        return costs.get(k[0], costs["default"])

    def _initial_piles(self, fields: Fields) -> tuple:
        return tuple(sorted((k[1], () if v is None else (None, v)) for k, v in fields.items() if k[0] == "top"))

    def _advance(self, fields: Fields, costs: Mapping[str, float]) -> None:
        cfg = self.config
        candidates: dict[tuple, Hypothesis] = {}
        self._forget_frame()
        self._budget = cfg.decoder_frame_budget   # cuts judged at most for this frame
        self._reserve = 0     # (cuts a search may judge beyond the frame's budget: decoder_cut_reserve)
        best = math.inf
        no_hand = self.interval.hand_frames == 0 and self.interval.covered < 2
        read = frozenset(fields.items())
        diffs: dict[frozenset, list[FieldKey]] = {}   # (hypotheses often share a table)
        readings: dict[tuple, tuple] = {}             # (_readings, by table and held misreads)

        def diff_of(table: frozenset) -> list[FieldKey]:
            diff = diffs.get(table)
            if diff is None:
                mine = dict(table)
                diff = diffs[table] = sorted({k for k, _ in table ^ read
                                              if k[0] != "meta" and mine.get(k) != fields.get(k)})
            return diff

        beam = list(self.beam)
        for hyp in self.beam:
            beam += self._revisions(hyp, fields, costs, diff_of(hyp.table))
        beam.sort(key=lambda h: h.cost)
        for hyp in beam:                               # (ordered by cost)
            if hyp.cost > best + cfg.decoder_prune:
                break
            diff = diff_of(hyp.table)
            if not diff:
                for turns, cost, frames in self._quiet_reaches(hyp):
                    self._keep(candidates, _new_hypothesis(hyp.table, hyp.piles, turns, hyp.cost + cost, frames,
                                                          first=hyp.first))
                best = min(best, hyp.cost)
                continue
            # (what a hypothesis' reading of this frame depends on is its table and held misreads, which
            # the beam's hypotheses share about four to one: worked out once per pair for the frame)
            reading_key = (hyp.table, hyp.misread)
            reading = readings.get(reading_key)
            if reading is None:
                reading = readings[reading_key] = self._readings(hyp.table, hyp.misread, fields, costs, diff, no_hand)
            table, options, worked, context = reading
            # (likeliest readings first: the frame's budget of cuts goes to them)
            first_option = True
            for i, (emission, taken, partial) in enumerate(options):
                if hyp.cost + emission > best + cfg.decoder_prune:
                    continue
                # (the budget spent on the first hypotheses' every reading leaves none for a runner-up whose
                # likeliest reading is the truth: each hypothesis' likeliest reading judged is judged with
                # decoder_cut_reserve cuts at least)
                self._reserve = cfg.decoder_cut_reserve if first_option else 0
                first_option = False
                option = worked[i]
                if option is None:
                    option = worked[i] = self._reading_taken(hyp.table, table, context, fields, diff, no_hand, taken,
                                                           partial)
                still_misread, taken_as, frozen, interval, back, since, unread = option
                if not taken:
                    for turns, cost, frames in self._quiet_reaches(hyp):
                        self._keep(candidates, _new_hypothesis(hyp.table, hyp.piles, turns, hyp.cost + emission + cost,
                                                          frames, still_misread, hyp.first))
                        best = min(best, hyp.cost + emission + cost)
                    continue
                paid = hyp.cost + emission
                for turns, piles, cost, frames in self._explanations(hyp, table, taken_as, taken, interval, partial,
                                                                     # (with `since`, a cut's cost is not all
                                                                     # known there: none left out)
                                                                     (-math.inf, 0.0) if since else (paid, back),
                                                                     unread is not None):
                    total = paid + cost - back
                    if since:
                        total += self._coincide_cost(turns, len(hyp.turns) - 1, since, fields,
                                                     hyp.turns[-1].plays if hyp.turns else 0)
                    if total <= self._bound:     # (above it: never in the beam — _keep)
                        self._keep(candidates, _new_hypothesis(frozen, piles, turns, total, frames, still_misread,
                                                               hyp.first))
                    best = min(best, total)
                    if unread is not None:
                        for made in self._with_unseen_step(turns, len(hyp.turns) - 1, frozen, fields, diff, costs,
                                                           unread[0], total):
                            extra, new_table, new_turns, misread_k = made
                            self._keep(candidates, _new_hypothesis(
                                new_table, piles, new_turns, total + extra, frames,
                                tuple(m for m in still_misread if m[0] != misread_k[0]) + (misread_k,), hyp.first))
                            best = min(best, total + extra)
                best = min(best, self._skipped)     # (candidates left unmade: _explanations, _with_unseen_step)
            self._reserve = 0
        ranked = sorted(candidates.values(), key=lambda h: h.cost)
        self.beam = ranked[:cfg.decoder_beam]
        self._ask(ranked)
        # (the frame's memos freed now, not at the next frame: with the collector paused for the frame
        # (decoder_gc_pause) they die by refcount before it runs again, not traversed and promoted by it)
        self._forget_frame()

    def _readings(self, hyp_table: frozenset, hyp_misread: tuple, fields: Fields, costs: Mapping[str, float],
                  diff: Sequence[FieldKey], no_hand: bool) -> tuple[dict, list[tuple], list, tuple]:
        """What a hypothesis with this table and these held misreads makes of the frame's readings (`diff`: the
        fields read otherwise, not empty): its table as a dict, its options likeliest first — (emission, the
        fields taken as changed, the partial pawns reading or None) —, a slot per option for _reading_taken,
        and what that needs. The same for every hypothesis of the frame with that pair (_advance)."""
        cfg = self.config
        table = dict(hyp_table)
        held = {m[0]: m[1:] for m in hyp_misread}
        # a misread that holds costs decoder_misread_held per frame, at most decoder_misread_hold_max
        # in all (nothing moved: the reader sees the same thing the same way)
        # (a misread held from frame to frame, with no hand between; one seen again after a
        # hand is a new misread: the hand changed what the camera sees)
        # (the misreads read again as this hypothesis held them)
        repeated = {k for k in diff if k in held and held[k][0] == fields.get(k)}
        going_on = repeated if no_hand else set()
        # the same misread read again after a hand (a move elsewhere leaves what the reader sees
        # there as it was: it reads it the same way): decoder_misread_kept, not a new misread; the
        # still moment it begins pays decoder_misread_held per frame afresh
        kept = repeated if not no_hand and cfg.decoder_misread_kept > 0 else set()
        misread = {k: (min(self._held(costs, k), max(0.0, self._held(costs, k, cfg.decoder_misread_hold_max)
                                                     - held[k][1]))
                       if k in going_on else
                       min(cfg.decoder_misread_kept, self._misread_cost(costs, k, table.get(k), fields.get(k)))
                       if k in kept else self._misread_cost(costs, k, table.get(k), fields.get(k)))
                   for k in diff}
        if cfg.decoder_covered_tile > 0:
            # a tile under a pawn read as another tile: the pawn hides it, the reader reads it so for as long
            # as the pawn stands there (frame after frame, moves elsewhere between): one misread for it all
            for k in _covered_tiles(table, fields, diff):
                misread[k] = 0.0 if k in held and held[k][0] == fields.get(k) else \
                    min(misread[k], -math.log(min(1.0, cfg.decoder_covered_tile)))
        # (field, reading, held cost paid, paid for this reading, the frame the field began to be
        # read otherwise than this table: a reading changing meanwhile keeps that frame)
        still = {k: ((k, fields.get(k), held[k][1] + misread[k], held[k][2] + misread[k], held[k][3])
                     if k in going_on else
                     (k, fields.get(k), 0.0, misread[k], held[k][3] if no_hand and k in held else self.frame))
                 for k in diff}
        # (of many fields read otherwise, those besides the misreads read again are the ones whose subsets
        # are worth judging)
        # (decoder_tile_subsets: a tile read as another tile, or where none lay, is a change no rule makes — RULES §1
        # Tiles: only a wish tile is taken, none comes — so, as a misread read again, it leaves every subset of the
        # rest judged)
        likely = repeated | {k for k in diff if k[0] == "tile" and fields.get(k) is not None} \
            if cfg.decoder_tile_subsets else repeated
        options = [(sum(misread[k] for k in diff if k not in taken), taken, None)
                   for taken in _subsets(diff, cfg.decoder_max_fields, likely)]
        # a player's pawns taken as a part of their reading, the rest a misread (a field is otherwise taken
        # whole or not at all): read with two steps or more where one was made, the field taken with one of
        # the steps read (the reader puts a start pawn on the first stone beside the one a pawn stepped to,
        # frame after frame); misread before a hand and read otherwise after it, the same misread carried
        # over a real change of the field (the reader's phantom beside the start crowd stays where it was
        # while the player moves another pawn), the field taken as the reading without that misread
        partial_pawns = list(_one_step_pawns(table, fields, diff)) if cfg.decoder_partial_pawns else []
        if cfg.decoder_carried_pawns:
            partial_pawns += _carried_pawns(table, held, fields, diff)
        for k, value in partial_pawns:
            rest = [x for x in diff if x != k]
            cost_k = self._misread_cost(costs, k, value, fields.get(k))
            options += [(sum(misread[x] for x in rest if x not in taken) + cost_k, taken + (k,), (k, value, cost_k))
                        for taken in _subsets(rest, cfg.decoder_max_fields, likely)]
        # (likeliest readings first: the frame's budget of cuts goes to them; each one's table and misreads
        # made when a hypothesis first judges it, _reading_taken)
        options.sort(key=lambda x: x[0])
        return table, options, [None] * len(options), (held, going_on, misread, still)

    def _reading_taken(self, hyp_table: frozenset, table: dict, context: tuple, fields: Fields,
                       diff: Sequence[FieldKey], no_hand: bool, taken: tuple, partial: tuple | None) -> tuple:
        """One option of _readings worked out: (the misreads still held, the readings taken, the table after,
        the reach judged under, the held cost paid back, the pile changes coinciding with an earlier reach,
        (the pawns left misread,) for _with_unseen_step or None); the last five None when nothing is taken."""
        cfg = self.config
        held, going_on, misread, still = context
        still_misread = tuple(still[k] for k in diff if k not in taken)
        if partial is not None:
            still_misread += ((partial[0], fields.get(partial[0]), 0.0, partial[2], self.frame),)
        if not taken:
            return still_misread, None, None, None, 0.0, None, None
        # (set operations keep the items' hashes: no table is hashed anew)
        taken_as = fields
        if partial is not None:
            taken_as = dict(fields)
            taken_as[partial[0]] = partial[1]
        frozen = (hyp_table - {(k, table[k]) for k in taken if k in table}) | {
            (k, taken_as[k]) for k in taken if k in taken_as}
        # a change of fields every frame since the last hand read otherwise came under that
        # hand, not between two frames with nothing over the table: judged with that hand's
        # evidence, the frames that read it as now paid back (the others were misreads anyway)
        back = 0.0
        interval = self.interval
        if no_hand and self._prev is not None and all(
                k in held and held[k][3] == self._prev[1] for k in taken):
            interval = self._prev[0]
            back = sum(held[k][2] for k in taken if k in going_on)
        # a pile's change read on every frame since an earlier reach and taken only now: it coincided
        # with that reach, whose hands are the evidence of who made it (decoder_hand_coincide)
        since = {k: self._named_after[self._tops_since[k][1]] for k in taken
                 if k[0] == "top" and k in held and self._tops_since[k][1] < self.frame
                 and self._tops_since[k][1] in self._named_after} if cfg.decoder_hand_coincide else {}
        unread = None
        if self.board is not None and cfg.decoder_unseen_steps:
            # (the fields this frame reads otherwise and this reading leaves a misread, with what that
            # misread costs in `emission`: a step made under one of them replaces its misread)
            unread = ({k: misread[k] for k in diff if k[0] == "pawns" and k not in taken
                       and (partial is None or k != partial[0])} if cfg.decoder_rule_steps else None,)
        return still_misread, taken_as, frozen, interval, back, since, unread

    def _forget_frame(self) -> None:
        """The memos of one frame's search, empty (kept only while that frame is decoded)."""
        self._memo: dict[tuple, list] = {}
        # (the beam's bound: the decoder_beam-th least first cost among the keys kept so far, inf till there are
        # that many; a candidate costing more never enters the beam — _keep)
        self._firsts: list[float] = []
        self._bound = math.inf
        self._skipped = math.inf    # (the least cost of a candidate left unmade for the bound: the frame's best)
        self._misread_memo = {}                    # (_misread_cost)
        self._tables: dict[int, tuple[frozenset, dict]] = {}   # (_with_unseen_step: a table as a dict)
        self._step_memo: dict[tuple, tuple] = {}   # (_with_unseen_step: _unseen_steps by table, field, colours)
        self._step_rules: dict[tuple, float] = {}  # (_with_unseen_step: rule costs of turns with and without a step)
        self._owned_memo: dict[tuple, Turn] = {}   # (_owned_turn_of)
        self._made_parts: dict[tuple, tuple[Turn | None, Turn]] = {}   # (_cuts: the parts made)
        self._open_rules_memo: dict[tuple, tuple[Turn, float]] = {}   # (_open_rules)
        self._slot_memo: dict[tuple, tuple] = {}   # (_slot_cut_cost)
        self._slot_contexts: dict[tuple, int] = {}  # (_cuts: the contexts of _slot_cut_cost's memo, numbered)
        self._seat_parts: dict[int, tuple[Turn, Turn]] = {}   # (_seat_part)
        self._revised_memo: dict[tuple, tuple] = {}  # (_revisions: a turn revised, by the turn's id; keeps it alive)
        self._revised_rules: dict[tuple, float] = {}  # (_revisions: its rule costs, by that and the table's id)
        self._revised_tables: dict[int, tuple[frozenset, dict]] = {}   # (_revisions: a table as a dict; keeps it)

    def _revisions(self, hyp: Hypothesis, fields: Fields, costs: Mapping[str, float],
                   diff: Sequence[FieldKey]) -> list[Hypothesis]:
        """A field a recent turn changed reads otherwise now: that turn's reading of it may have been
        a misread held since (the reader saw the new card wrong until something moved, or for the
        first frames after the hand), not a second change now. One hypothesis per such field: the turn revised to the
        field's reading now, every usable frame since it paying as a held misread."""
        cfg = self.config
        out = []
        if not diff:
            return out
        # (hypotheses share tables about four to one: a table as a dict made once per frame — read only here)
        entry = self._revised_tables.get(id(hyp.table))
        if entry is None:
            entry = self._revised_tables[id(hyp.table)] = (hyp.table, dict(hyp.table))
        table = entry[1]
        recent = len(self.order) + 1
        for k in diff:
            if k[0] == "top":
                made = self._top_revision(hyp, k, table, fields, costs, recent) if cfg.decoder_revise_tops else None
                if made is not None:
                    out.append(made)
                continue
            for i in range(len(hyp.turns) - 1, max(-1, len(hyp.turns) - 1 - recent), -1):
                delta = dict(hyp.turns[i].delta)
                if k in delta:
                    break
            else:
                # no recent turn changed the pawns read moved now: the step of a recent turn that laid a
                # card and moved no pawn, missed by the reader until now (a pawn stepping off the start
                # crowd read in it, frame after frame)
                i = self._stepless_turn(hyp, k) if cfg.decoder_unseen_steps else None
                if i is None:
                    continue
                delta = {k: table.get(k, _GONE)}
            now = fields.get(k, _GONE)
            if delta[k] != table.get(k, _GONE) or i >= len(hyp.turn_frames):
                continue
            # (the beam's hypotheses share their recent turns: a turn revised made once per frame by the turn's id,
            # its rule costs before and after by that and the table's id — the entries keep the turn and table alive)
            memo_key = (id(hyp.turns[i]), k, delta[k], now)
            revised = self._revised_memo.get(memo_key)
            if revised is None:
                turn = (self._revised(hyp.turns[i], k, delta[k], now) if k in dict(hyp.turns[i].delta)
                        else self._with_step(hyp.turns[i], k, delta[k], now))
                revised = self._revised_memo[memo_key] = (hyp.turns[i], turn)
            turn = revised[1]
            if turn is None:
                continue
            since = len(self._usable) - 1 - bisect.bisect_left(self._usable, hyp.turn_frames[i])
            if since < 1:
                continue
            cost = self._misread_cost(costs, k, now, delta[k]) + min(self._held(costs, k) * (since - 1),
                                                                     self._held(costs, k, cfg.decoder_misread_hold_max))
            new_table = dict(table)
            if now == _GONE:
                new_table.pop(k, None)
            else:
                new_table[k] = now
            # (the turn's rule breaks as revised: a revision that leaves a card laid with no pawn step
            # pays for it, as a turn read so at once would have)
            rules_key = (memo_key, id(hyp.table))
            rules = self._revised_rules.get(rules_key)
            if rules is None:
                rules = self._revised_rules[rules_key] = self._rules_cost(turn, new_table) - self._rules_cost(
                    hyp.turns[i], table)
            cost += rules
            out.append(Hypothesis(frozenset(new_table.items()), hyp.piles,
                                  hyp.turns[:i] + (turn,) + hyp.turns[i + 1:], hyp.cost + cost, hyp.turn_frames,
                                  tuple(m for m in hyp.misread if m[0] != k), hyp.first))
        return out

    def _with_unseen_step(self, turns: tuple, first: int, table: frozenset, fields: Fields,
                          diff: Sequence[FieldKey], costs: Mapping[str, float],
                          unread: Mapping[FieldKey, float] | None = None, total: float = -math.inf) -> list[tuple]:
        """A turn of this frame that laid a card and moved no pawn, with the step the card pays for made
        but read nowhere: a pawn of its player one stone on, onto a stone of the card's colour (or a joker
        stone), the frame's reading of those pawns a misread (the reader keeps a pawn that left the start
        crowd in it, frame after frame). [(extra cost, table, turns, the misread)] for each such step.
        unread: the player's pawns read otherwise this frame and left a misread by this reading, with what
        that misread costs (decoder_rule_steps): the step is made there too, its misread priced against the
        table with the step instead (the reader put the pawn on another stone, or another beside it: the
        rules' step, read wrong, against a step no card pays for). total: the cost
        of the hypothesis the steps are made in — a step costing more than the beam's bound (_keep) is left out."""
        out = []
        for i in range(max(0, first), len(turns)):
            turn = turns[i]
            if len(turn.lays) <= len(turn.steps):
                continue
            k = ("pawns", self.seats.get(turn.seat))
            if k in diff and (unread is None or k not in unread):
                continue
            paid_k = unread[k] if k in diff else 0.0
            # (the cuts of one reading share its table: made a dict once; the entry keeps the table its id names)
            entry = self._tables.get(id(table))
            if entry is None:
                entry = self._tables[id(table)] = (table, dict(table))
            mine = entry[1]
            was = mine.get(k)
            if not isinstance(was, tuple):
                continue
            colours = frozenset(lay.split(":")[0] for lay in turn.lays)
            # (the steps and the tables they make depend on the table, the field and the cards' colours only: made
            # once per frame; the entry keeps the table its id names)
            steps_key = (id(table), k, colours)
            made_steps = self._step_memo.get(steps_key)
            if made_steps is None:
                made_steps = self._step_memo[steps_key] = (table, self._unseen_steps(table, mine, k, was, colours,
                                                                                     fields, costs))
            made_steps = made_steps[1]
            if not made_steps:
                continue
            # (the rule costs of the turn and of the turn with each step, by what they are made of: the same turn
            # recurs in the results of every hypothesis with the same cut; `quiet` is no part of a turn's identity
            # but its costs read it)
            ident = (id(table), turn, turn.quiet)   # (a turn hashes and compares by its identity, the hash kept)
            rules_memo = self._step_rules
            rules_before = rules_memo.get(ident)
            if rules_before is None:
                rules_before = rules_memo[ident] = self._rules_cost(turn, mine)
            made_here = []
            for step, now, new_table, new_frozen, cost_k, misread_k in made_steps:
                rules_key = (ident, step, id(new_table))    # (new_table kept alive by made_steps' entry)
                rules_made = rules_memo.get(rules_key)
                made = None
                if rules_made is None:
                    made = turn.replaced(steps=turn.steps + (step,), delta=turn.delta + ((k, now),),
                                         before=turn.before + ((k, was),))
                    rules_made = rules_memo[rules_key] = self._rules_cost(made, new_table)
                extra = cost_k - paid_k + rules_made - rules_before
                made_here.append((extra, new_frozen, made, misread_k, step, now))
            if k in diff and made_here:
                # (under a reading of its own, only the steps nearest that reading — the likeliest misread —: the
                # others are readings the frame makes no likelier, and would crowd the beam's readings out)
                least = min(m[0] for m in made_here)
                made_here = [m for m in made_here if m[0] <= least]
            # (the turns made only for the steps the beam's bound lets through: _keep)
            limit = self._bound - total
            for extra, new_frozen, made, misread_k, step, now in made_here:
                if extra > limit:
                    self._skipped = min(self._skipped, total + extra)   # (as in _explanations)
                    continue
                if made is None:
                    made = turn.replaced(steps=turn.steps + (step,), delta=turn.delta + ((k, now),),
                                         before=turn.before + ((k, was),))
                out.append((extra, new_frozen, turns[:i] + (made,) + turns[i + 1:], misread_k))
        return out

    def _top_revision(self, hyp: Hypothesis, k: FieldKey, table: Mapping[FieldKey, Any], fields: Fields,
                      costs: Mapping[str, float], recent: int) -> Hypothesis | None:
        """decoder_revise_tops: the last recent turn that changed pile k[1] (once) read its new top as every usable
        frame since did, and the pile reads otherwise now: that reading may have been a misread held since. The
        turn's change of the pile revised to the reading now (a card discarded, the card below drawn, or no change
        at all), the pile's record with it, every usable frame since paying as a held misread and the turn its
        rules and completion as revised (None: no such turn, or one the revision would leave with no trace)."""
        pile = k[1]
        n = len(hyp.turns)
        for i in range(n - 1, max(-1, n - 1 - recent), -1):
            events = [e for e in hyp.turns[i].piles if e[0] == pile]
            if events:
                break
        else:
            return None
        if len(events) != 1 or i >= len(hyp.turn_frames):
            return None
        turn = hyp.turns[i]
        event = events[0]
        _, old, cur, kind = event
        now = fields.get(k)
        if table.get(k) != cur or now == cur:
            return None
        if cur is not None and now is not None and not self.config.decoder_revise_top_values:
            return None    # (a card read as another card: the reader does not hold that misread)
        since = len(self._usable) - 1 - bisect.bisect_left(self._usable, hyp.turn_frames[i])
        if since < 1:
            return None
        stacks = dict(hyp.piles)
        stack = tuple(stacks.get(pile, ()))
        # (the pile's record before the turn's change: a discard's card taken off, a drawn card put back)
        if kind == "discard":
            if not stack or stack[-1] != cur:
                return None
            below = stack[:-1]
        else:
            below = stack + (old,)
        if now == old:
            new_events: tuple = ()
            new_stack = below
        elif (len(below) >= 2 and below[-2] == now) or (len(below) == 1 and now is None):
            new_events = ((pile, old, now, "draw"),)
            new_stack = below[:-1]
        elif now is not None:
            new_events = ((pile, old, now, "discard"),)
            new_stack = below + (now,)
        else:
            return None
        piles = tuple(e for e in turn.piles if e != event) + new_events
        if new_events:
            delta = tuple((d[0], now) if d[0] == k else d for d in turn.delta)
            before = turn.before
        else:
            delta = tuple(d for d in turn.delta if d[0] != k)
            before = tuple(d for d in turn.before if d[0] != k)
        revised = dataclasses.replace(turn, piles=piles, delta=delta, before=before)
        if not (revised.piles or revised.lays or revised.steps or revised.row_discards or revised.wish_cards
                or revised.tiles):
            return None    # (a turn with no trace left: not this revision's to make)
        new_table = dict(table)
        new_table[k] = now
        cost = self._misread_cost(costs, k, now, cur) + min(self._held(costs, k) * (since - 1),
                                                            self._held(costs, k, self.config.decoder_misread_hold_max))
        if i < n - 1:
            cost += sum(self._turn_costs(revised, new_table)) - sum(self._turn_costs(turn, table))
        else:
            cost += self._rules_cost(revised, new_table) - self._rules_cost(turn, table)
        stacks[pile] = new_stack
        return Hypothesis(frozenset(new_table.items()), tuple(sorted(stacks.items())),
                          hyp.turns[:i] + (revised,) + hyp.turns[i + 1:], hyp.cost + cost, hyp.turn_frames,
                          tuple(m for m in hyp.misread if m[0] != k), hyp.first)

    def _unseen_steps(self, table: frozenset, mine: dict, k: FieldKey, was: tuple, colours: frozenset,
                      fields: Fields, costs: Mapping[str, float]) -> list[tuple]:
        """_with_unseen_step's steps of the pawns `was` of field k on `table` (`mine`: as a dict) that a card of
        `colours` pays for: (step, the pawns after, the table after as a dict and as a set, the misread of
        the frame's reading against it, that misread as held), in the order they were always tried."""
        out = []
        read = fields.get(k)
        for pawn in sorted(set(was)):
            stone = self.board.stones.get(pawn[0])
            if stone is None:
                continue
            for to in stone.next:
                if self.board.stones[to].color not in colours and self.board.stones[to].color != "joker":
                    continue
                pawns = list(was)
                pawns.remove(pawn)
                now = tuple(sorted(pawns + [(to, pawn[1])]))
                step = f"{'B' if pawn[1] else 'S'}:{to}"
                new_table = dict(mine)
                new_table[k] = now
                cost_k = self._misread_cost(costs, k, now, read)
                # (set operations keep the other items' hashes: the table is not hashed anew)
                out.append((step, now, new_table, (table - {(k, was)}) | {(k, now)}, cost_k,
                            (k, read, 0.0, cost_k, self.frame)))
        return out

    def _stepless_turn(self, hyp: Hypothesis, k: FieldKey) -> int | None:
        """The index of the last recent turn of the pawns' owner (board game) that laid more cards than
        it moved pawns, if no turn since changed those pawns (None: none)."""
        if self.card_game or k[0] != "pawns":
            return None
        seat = self._owner(k)
        for i in range(len(hyp.turns) - 1, max(-1, len(hyp.turns) - 2 - len(self.order)), -1):
            turn = hyp.turns[i]
            if turn.seat == seat and len(turn.lays) > len(turn.steps):
                return i
        return None

    def _with_step(self, turn: Turn, k: FieldKey, was: Any, now: Any) -> Turn | None:
        """`turn` with the pawns of field k moved from `was` to `now` (steps only, no pawn gone or come)."""
        if not isinstance(was, tuple) or not isinstance(now, tuple) or len(was) != len(now):
            return None
        moved = self._owned_turn(turn.seat, [k], {k: was}, {k: now})
        if not moved.steps or len(turn.steps) + len(moved.steps) > len(turn.lays):
            return None
        return dataclasses.replace(turn, steps=turn.steps + moved.steps, delta=turn.delta + ((k, now),),
                                   before=turn.before + ((k, was),),
                                   pawns_astray=turn.pawns_astray + moved.pawns_astray)

    def _revised(self, turn: Turn, k: FieldKey, was: Any, now: Any) -> Turn | None:
        """`turn` with its change of field k giving `now` instead of `was` (None: not a change a
        turn's own fields can be revised to)."""
        before = dict(turn.before)
        if k not in before:
            return None
        b = before[k]
        if k[0] == "tile":
            if now != b:
                return None        # (a tile read back as it was: the turn did not take it)
            tiles = list(turn.tiles)
            if str(b) not in tiles:
                return None
            tiles.remove(str(b))
            return dataclasses.replace(turn, tiles=tuple(tiles), delta=tuple(d for d in turn.delta if d[0] != k),
                                       before=tuple(d for d in turn.before if d[0] != k))
        if self._owner(k) != turn.seat:
            return None
        bmap = {} if b == _GONE else {k: b}
        old = self._owned_turn(turn.seat, [k], bmap, {} if was == _GONE else {k: was})
        new = self._owned_turn(turn.seat, [k], bmap, {} if now == _GONE else {k: now})

        def less(xs: tuple, ys: tuple) -> tuple | None:
            xs = list(xs)
            for y in ys:
                if y not in xs:
                    return None
                xs.remove(y)
            return tuple(xs)

        lays, steps, discards, wish = (less(turn.lays, old.lays), less(turn.steps, old.steps),
                                       less(turn.row_discards, old.row_discards), less(turn.wish_cards, old.wish_cards))
        if lays is None or steps is None or discards is None or wish is None:
            return None
        return dataclasses.replace(turn, lays=lays + new.lays, steps=steps + new.steps,
                                   row_discards=discards + new.row_discards, wish_cards=wish + new.wish_cards,
                                   pawns_lost=turn.pawns_lost - old.pawns_lost + new.pawns_lost,
                                   pawns_astray=turn.pawns_astray - old.pawns_astray + new.pawns_astray,
                                   delta=tuple((d[0], now) if d[0] == k else d for d in turn.delta))

    def _quiet_reaches(self, hyp: Hypothesis) -> list[tuple[tuple[Turn, ...], float, tuple[int, ...]]]:
        """Hands came and went and the table reads as before: the open turn's player drawing from the
        draw pile (when that turn has not drawn), or reaches that did nothing (decoder_hand_unused)."""
        hands = self.interval.hands
        period = self.interval.period
        base = sum(self._hand_unused(n, period) for n in hands.values())
        last = hyp.turns[-1] if hyp.turns else None
        # (a quiet reach of the open turn's player after it played and before it drew is its draw: not a reach
        # that did nothing, so the turn is not read later as never drawing for the price of an unused hand)
        drawing = (last is not None and hands.get(last.seat) and last.plays and not last.draws and not last.no_draw
                   and not self.draws_over)
        out = [] if drawing else [(hyp.turns, base, hyp.turn_frames)]
        if last is not None and hands.get(last.seat) and (
                last.draws == 0 or last.draws < last.plays + (1 if self._owed_draw(hyp.turns) else 0)):
            # (as many cards as it played — a pair, a discard-a-card tile: two —, and the card owed by its turn
            # before if that ended without its draw: RULES §1 Turn, the hand of 8; §3: drawn back to 8)
            drew = last.replaced(unseen_draws=last.unseen_draws + 1)
            out.append((hyp.turns[:-1] + (drew,), base - self._hand_unused(hands[last.seat], period), hyp.turn_frames))
        if last is not None:
            # the next player's reach that left no trace: their turn (a card onto its twin, a draw
            # from the draw pile), its traceless prior paid now
            nxt = self.order[(self.order.index(last.seat) + 1) % len(self.order)]
            if hands.get(nxt) and nxt != last.seat:
                prior = self._traceless_prior(hyp)
                quiet = Turn(nxt, start=self.frame, quiet=prior)
                out.append((hyp.turns + (quiet,), base - self._hand_unused(hands[nxt], period)
                            + self.config.decoder_turn + prior
                            + self._owed_cost(last, dict(hyp.table)) + self._undrawn_cost(last, self.interval),
                            hyp.turn_frames + (self.frame,)))
        return out

    def _traceless_prior(self, hyp: Hypothesis) -> float:
        """The prior of a turn that left the table as it was (its card onto its twin, then a draw from the
        draw pile), paid by the quiet reach that begins it (and paid back if it leaves a trace after all:
        Turn.quiet holds it): decoder_traceless_twin while some discard pile's top has a copy that neither the
        rows nor the piles' record show (the player may hold its twin), else decoder_traceless_reach."""
        cfg = self.config
        if cfg.decoder_traceless_twin == cfg.decoder_traceless_reach:
            return cfg.decoder_traceless_reach
        piles = dict(hyp.piles)
        table = None
        for colour, stack in hyp.piles:
            top = stack[-1] if stack else None
            if top is None:
                continue
            if table is None:
                table = dict(hyp.table)
            if self._copies_seen(table, piles, colour, top) < self._copies(top):
                return cfg.decoder_traceless_twin
        return cfg.decoder_traceless_reach

    def _coincide_cost(self, turns: Sequence[Turn], first: int, since: Mapping[FieldKey, frozenset],
                       fields: Fields, open_plays: int = 0) -> float:
        """The hands' price of giving each pile change in `since` (read so since the end of an earlier reach
        that named those seats) to a turn (from turns[first] on) of a seat that reach did not name; with
        decoder_order_held, decoder_order for a draw in `since` given to a turn that plays in this cut (its
        plays read only now, after the draw was read: played after it drew). `open_plays`: the open
        turn's plays before this cut (turns[first] is it, gone on)."""
        cfg = self.config
        cost = 0.0
        ordered: set[int] = set()     # (a turn pays decoder_order once, as the cut search charges it)
        for k, named in since.items():
            for i in range(len(turns) - 1, max(first, 0) - 1, -1):
                turn = turns[i]
                hit = [kind for p, _o, new, kind in turn.piles if p == k[1] and new == fields.get(k)]
                if hit:
                    if turn.seat not in named:
                        cost += (cfg.decoder_hand_coincide_empty if fields.get(k) in (None, _GONE)
                                 else cfg.decoder_hand_missing + cfg.decoder_hand_reach)
                    if cfg.decoder_order_held and hit[0] == "draw" and i not in ordered:
                        # (its plays this cut, less its discards read since the draw's reach too: those
                        # came with the draw, not after it)
                        held_discards = sum(1 for p, _o, new, kind in turn.piles if kind == "discard"
                                            and ("top", p) in since and new == fields.get(("top", p)))
                        now = turn.plays - (open_plays if i == first else 0) - held_discards
                        if now > 0:
                            cost += cfg.decoder_order
                            ordered.add(i)
                    break
        return cost

    def _hand_missing(self, hands: Mapping[str, int], period: float = 1.0) -> float:
        """A turn by a seat none of the hand frames named (they named others): each frame naming
        another seat is evidence against it (decoder_hand_frame), at most decoder_hand_max."""
        frames = sum(hands.values())
        cfg = self.config
        return min(cfg.decoder_hand_max, cfg.decoder_hand_missing + cfg.decoder_hand_frame * period * max(0, frames - 1))

    def _hand_unused(self, frames: int, period: float = 1.0) -> float:
        """A seat `frames` hand frames named that made no turn (a misnamed arm: less likely the more frames)."""
        cfg = self.config
        return min(cfg.decoder_hand_max, cfg.decoder_hand_unused * min(1.0, frames / 2.0)
                   + cfg.decoder_hand_frame * period * max(0, frames - 2))

    def _unseen_reach_cost(self, interval: "_Interval") -> float:
        """A change between two usable frames with no hand seen between them: a reach that fell
        between the frames. A reach covers the table for decoder_reach_seconds_min..max (spread
        evenly); one shorter than the time between the frames is missed with probability
        (span − reach) / span: the chance is (span − min)² / (2·span·(max − min)). At most decoder_no_hand."""
        return self._missed_reach_cost(interval.span)

    def _missed_reach_cost(self, span: float | None, pace: float = 1.0) -> float:
        """−log of the chance a reach falls between two usable frames `span` seconds apart (_unseen_reach_cost;
        `pace`: reaches last this many times decoder_reach_seconds_min..max)."""
        cfg = self.config
        lo, hi = cfg.decoder_reach_seconds_min * pace, cfg.decoder_reach_seconds_max * pace
        if span is None or span <= lo or hi <= lo:
            return cfg.decoder_no_hand
        # E[max(0, span − d)] / span for d uniform on [lo, hi]
        p = ((span - lo) ** 2 - max(0.0, span - hi) ** 2) / (2.0 * span * (hi - lo))
        return min(cfg.decoder_no_hand, -math.log(max(p, 1e-9)))

    def _undrawn_cost(self, turn: Turn, interval: "_Interval") -> float:
        """A turn over that played and was seen drawing nothing: its draw from the draw pile hidden
        from the camera (_draw_hidden_cost) — unless it is read as never drawing (no_draw: a rule
        break paid with the next turn's cut)."""
        if turn.no_draw or turn.draws or not turn.plays:
            return 0.0
        if turn.again:      # (no draw owed: Turn.again)
            return self.config.decoder_draw_unseen
        return self._draw_hidden_cost(turn.seat, turn.reach, interval)

    def _draw_hidden_cost(self, seat: str, reach: float, interval: "_Interval") -> float:
        """The draw from the draw pile of a turn over that played and was seen drawing nothing, with no
        reach of its own between (RULES §1 Turn: play, then draw): made in the reach of its play — two
        moves in one reach, likely only when that reach was long (`reach` seconds, the turn's longest:
        a logistic around decoder_draw_reach_seconds) —, or its own reach fell between two frames
        (_missed_reach_cost at the frame period), or in the reach now seen (`interval`) with the seat's
        hand in it, or a hand whose seat was not read (decoder_draw_unseen, the least it costs); at most
        decoder_draw_hidden_max (players' pace differs)."""
        cfg = self.config
        if interval.hands.get(seat) or interval.unnamed or self.draws_over:
            return cfg.decoder_draw_unseen
        p = self._two_moves(reach) + math.exp(-self._missed_reach_cost(self._period, self._pace))
        return max(cfg.decoder_draw_unseen, min(cfg.decoder_draw_hidden_max, -math.log(min(1.0, max(p, 1e-9)))))

    def _two_moves(self, reach: float) -> float:
        """The chance a reach that covered the table `reach` seconds held two moves, not one (a logistic
        around decoder_draw_reach_seconds, decoder_draw_reach_spread — both at the prior's pace, times this
        game's own: _learn_pace)."""
        cfg = self.config
        z = (cfg.decoder_draw_reach_seconds * self._pace - reach) / max(cfg.decoder_draw_reach_spread * self._pace, 1e-6)
        return 1.0 / (1.0 + math.exp(z)) if z < 50 else 0.0

    def _no_draw_cost(self, last: Turn) -> float:
        """The open turn read as over without its draw: each of its reaches held one move, so its longest
        reach is evidence against it the longer it was (the other side of _draw_hidden_cost)."""
        return -math.log(max(1e-9, 1.0 - self._two_moves(last.reach)))

    def _reach_seconds(self, interval: "_Interval") -> float:
        """How long a reach covered the table: its frames covered (and half a frame more: it began and
        ended between frames) times the time between frames; 0 when no frame was covered."""
        return (interval.covered + 0.5) * interval.period if interval.covered else 0.0

    def _owed_draw(self, turns: Sequence[Turn]) -> bool:
        """Did the open turn's player's turn before end without its draw (no_draw: a card owed)?"""
        seat = turns[-1].seat
        for turn in reversed(turns[:-1]):
            if turn.seat == seat:
                return turn.no_draw
        return False

    def _keep(self, candidates: dict[tuple, Hypothesis], hyp: Hypothesis) -> None:
        cost = hyp.cost
        if cost > self._bound:
            # (decoder_keep_bound: decoder_beam keys already cost at most the bound — each key's cost only falls —,
            # so this one would rank below them all, and cost more than the frame's best: the beam is the same;
            # only a later candidate of its key, if cheaper, takes its place in the candidates' order of ties)
            return
        key = hyp.key(len(self.order) + 1)
        old = candidates.get(key)
        if old is None:
            candidates[key] = hyp
            if self.config.decoder_keep_bound:
                # (the bound: the decoder_beam-th least first cost of a key kept — no more than that key costs now)
                firsts = self._firsts
                bisect.insort(firsts, cost)
                if len(firsts) >= self.config.decoder_beam:
                    del firsts[self.config.decoder_beam:]
                    self._bound = firsts[-1]
        elif cost < old.cost:
            candidates[key] = hyp

    def _explanations(self, hyp: Hypothesis, before: Fields, fields: Fields, changed: Sequence[FieldKey],
                      interval: "_Interval", partial: tuple | None = None,
                      base: tuple[float, float] = (-math.inf, 0.0), stepping: bool = False):
        """Cuts of the change of `changed` fields of `before` to their readings in `fields` into turns
        (under the hands of `interval`): [(turns, piles, cost, turn_frames)], best few. partial: the
        (field, value, …) `fields` takes otherwise than the frame read it (_one_step_pawns). A cut whose
        candidate would cost more than the beam's bound (_keep) — base: (the cost before the cut, the cost paid
        back), added as _advance adds them — is left out unless `stepping` (_with_unseen_step
        judged) and one of its turns laid more cards than it stepped pawns (the turns that step may make)."""
        last = hyp.turns[-1] if hyp.turns else None
        # (how many changes of each pile, card and kind an answer numbered this reading made so far: a cut's change
        # of them is the next — priced only by an answer naming that one, decoder_answer_nth)
        self._made = self._made_of(hyp, changed) if self._numbered else ()
        # (the open turn's quiet, reach and again are not part of its identity, but its cuts' costs read them)
        key = (last, (last.quiet, last.reach, last.again) if last is not None else None, hyp.piles, hyp.table,
               tuple(changed), id(interval), partial[:2] if partial is not None else None, self._made)
        cuts = self._memo.get(key)
        if cuts is None and max(self._budget, self._reserve) <= 0:
            return []      # (this frame's budget of cuts is spent: no cut would be judged)
        if cuts is None:
            self._cur = interval
            after = dict(before)
            for k in changed:
                if k in fields:
                    after[k] = fields[k]
                else:
                    after.pop(k, None)
            cuts = self._memo[key] = self._cuts(last, dict(hyp.piles), before, after, changed)
        results = []
        seconds = self._reach_seconds(interval)
        bound = self._bound
        paid, back = base
        for cost, parts, slots, new_piles, undrawn in cuts:
            total = paid + cost - back
            if total > bound and not (stepping and self._may_step(last, parts)):
                # (its candidate would never be kept: _keep; its cost still counts towards the frame's best)
                self._skipped = min(self._skipped, total)
                continue
            turns = list(hyp.turns)
            frames = list(hyp.turn_frames)
            if undrawn:
                turns[-1] = turns[-1].replaced(no_draw=True)
            for pos in range(max(parts) + 1):
                part = parts.get(pos)
                if pos == 0 and last is not None:
                    if part is not None:
                        turns[-1] = turns[-1].merged(part)
                        if seconds > turns[-1].reach:
                            # (a new turn of merged's, no one else's yet: set in place rather than copied again)
                            turns[-1].__dict__["reach"] = seconds
                        frames[-1] = self.frame
                    continue
                again = pos == 1 and last is not None and slots[1] == last.seat
                turns.append(part.begun(self.frame, seconds, again) if part is not None
                             else _new_turn(seat=slots[pos], start=self.frame, reach=seconds, again=again))
                frames.append(self.frame)
            results.append((tuple(turns), new_piles, cost, tuple(frames)))
        return results

    @property
    def _numbered(self) -> frozenset:
        """The keys (pile, card, kind) of the answers naming a numbered change (decoder_answer_nth; _made), cached
        by the answer log's identity and length (answer_other puts a copy back)."""
        log = self._answer_log
        cached = self.__dict__.get("_numbered_cache")
        if cached is None or cached[0] != (id(log), len(log)):
            keys = frozenset(a[0] for a in log if a[3] is not None) if self.config.decoder_answer_nth else frozenset()
            cached = self.__dict__["_numbered_cache"] = ((id(log), len(log)), keys)
        return cached[1]

    def _made_of(self, hyp: Hypothesis, changed: Sequence[FieldKey]) -> tuple:
        """((pile, card, kind), how many changes of them hyp's turns made), for each key a numbered answer names
        whose pile's top is among the `changed` fields (only those piles can change in this cut)."""
        piles = {k[1] for k in changed if k[0] == "top"}
        keys = {k for k in self._numbered if k[0] in piles}
        if not keys:
            return ()
        made = Counter({k: 0 for k in keys})
        for t in hyp.turns:
            for e in t.piles:
                if e[0] in piles and _pile_event(e) in keys:
                    made[_pile_event(e)] += 1
        return tuple(sorted(made.items(), key=repr))

    def _next_made(self, event: tuple) -> int | None:
        """The number a cut's pile change of `event` has in the reading being extended (_made: the next of those
        it made), or None (no numbered answer of its key: every answer of it prices it as before)."""
        if not self._made:
            return None
        key = _pile_event(event)
        return next((n + 1 for k, n in self._made if k == key), None)

    @staticmethod
    def _may_step(last: Turn | None, parts: Mapping[int, Turn]) -> bool:
        """A turn of the cut from the open one on lays more cards than it steps pawns (the only turns
        _with_unseen_step gives a step)."""
        for pos, part in parts.items():
            lays, steps = len(part.lays), len(part.steps)
            if pos == 0 and last is not None:
                lays += len(last.lays)
                steps += len(last.steps)
            if lays > steps:
                return True
        return last is not None and 0 not in parts and len(last.lays) > len(last.steps)

    def _cuts(self, last: Turn | None, piles: dict[str, tuple], before: Fields, after: Fields,
              changed: Sequence[FieldKey]) -> list[tuple[float, dict[int, Turn], list[str], tuple]]:
        """The best few cuts of one change into turns after the open turn `last`: (cost, parts by
        slot, the slots' seats, the piles after)."""
        cfg = self.config
        owned: dict[str, list[FieldKey]] = {}
        loose_tiles: list[FieldKey] = []
        tops: list[FieldKey] = []
        for k in changed:
            seat = self._owner(k)
            if seat is not None:
                owned.setdefault(seat, []).append(k)
            elif k[0] == "tile":
                loose_tiles.append(k)
            elif k[0] == "top":
                tops.append(k)
        # Each changed pile: a card discarded onto it, or its top drawn (the card below shows).
        pile_options: list[list[tuple[tuple[str, Any, Any, str], float, tuple]]] = []
        for k in tops:
            pile, old, new = k[1], before.get(k), after.get(k)
            stack = piles.get(pile, ())
            opts = []
            if len(stack) >= 1 and stack[-1] == old:
                below = stack[-2] if len(stack) >= 2 else "empty"
                if below == new or (below == "empty" and new is None):
                    opts.append(((pile, old, new, "draw"), 0.0, stack[:-1]))      # the card below shows
                elif below is None:                                              # nothing known below
                    opts.append(((pile, old, new, "draw"), cfg.decoder_unknown_below,
                                 stack[:-1] + ((new,) if new is not None else ())))
                elif new is not None and cfg.decoder_covered_below > 0:
                    # the record knows another card below: a card it never saw may lie between (discarded and
                    # covered by the next discard within one interval) — the top drawn uncovers it
                    extra = cfg.decoder_rule if self._copies_seen(after, piles, pile, new) >= self._copies(new) else 0.0
                    covered = cfg.decoder_unknown_below + cfg.decoder_covered_below + extra
                    if cfg.decoder_covered_by_rate:
                        # (the covering discard came before any reading showed the covered one: the pause between
                        # the two fell between two readings, as likely as a reach missed at this frame rate)
                        covered += self._missed_reach_cost(self._period, self._pace)
                    opts.append(((pile, old, new, "draw"), covered, stack[:-1] + (new,)))
            if new is not None:
                # a card onto the pile (the twin of the card below its top: less likely than that card
                # uncovered by a draw; a card all of whose copies are already seen: a rule break)
                twin = len(stack) >= 2 and stack[-2] == new and stack[-1] == old
                extra = cfg.decoder_rule if self._copies_seen(after, piles, pile, new) >= self._copies(new) else 0.0
                opts.append(((pile, old, new, "discard"), (cfg.decoder_twin if twin else 0.0) + extra,
                             stack + (new,)))
            if not opts:   # a pile emptied that the record says holds more: drawn down (a rule break)
                opts.append(((pile, old, new, "draw"), cfg.decoder_rule, ()))
            pile_options.append(opts)
        # Turn slots: the open turn (0), then the next seats round the table (1..n).
        n = len(self.order)
        starts = [self.order.index(last.seat)] if last else (
            [self.order.index(self.first)] if self.first in self.order else list(range(n)))
        hands = self._cur.hands
        out = []
        # (slots, who slot 1 skipped, the open turn over without a draw)
        variants: list[tuple[list[str], tuple[str, ...], bool]] = []
        for start in starts:
            slots = [self.order[(start + i) % n] for i in range(n + 1)]
            if last is not None and last.skipped:
                # after a turn out of turn either neighbour may go on: the player whose turn it was, or
                # the one after the player who took it
                nxt = self.order.index(last.skipped[0])
                variants.append(([last.seat] + [self.order[(nxt + i) % n] for i in range(n)], (), False))
            variants.append((slots, (), False))
            undrawn_ok = (last is not None and last.plays and not last.draws and not last.no_draw and n > 1
                          and not self.draws_over)
            if undrawn_ok:
                # the open turn played and was not seen drawing: the next player playing now may
                # have played before it was over (it never drew: the board game's "out of turn",
                # the card game's hand not drawn back up)
                variants.append((slots, () if self.card_game else (last.seat,), True))
            if last is not None:
                # a seat whose fields changed, or whose hand was seen, playing before the seat whose
                # turn it was (out of turn)
                for seat in list(owned) + [s for s in self._cur.hands if s not in owned]:
                    if seat != slots[1] and (seat != slots[0] or last.plays):
                        variants.append(([slots[0], seat] + slots[1:], (slots[1],), False))
                        if undrawn_ok and seat != slots[0]:
                            # ... while the open turn was not over (it never drew: one rule break, out of turn)
                            variants.append(([slots[0], seat] + slots[1:], (slots[1],), True))
        # Branch and bound: a cut costs at least its pile choices, decoder_turn per new turn, a
        # traceless turn per empty slot before the last one and the out-of-turn prior; placements are
        # tried cheapest bound first and stop once the bound reaches the decoder_cuts-th best cost
        # found (exact but for an open turn whose rule breaks a new part lessens), or after
        # decoder_cut_budget cuts judged (the bound on time per frame).
        choices = sorted(((sum(c[1] for c in choice), choice) for choice in
                          (itertools.product(*pile_options) if pile_options else [()])), key=lambda x: x[0])
        keep = cfg.decoder_cuts
        # (RULES: only wish-stone tiles are taken; no tile ever comes onto the board)
        tiles_cost = cfg.decoder_rule * sum(
            1 for k in loose_tiles if before.get(k) is None or after.get(k) is not None
            or not str(before.get(k)).startswith("wish"))
        # with nothing seen over the table since the last frame, one hand at most came and went
        # unseen: the open turn going on and the next one, no more
        reach = 1 if self._cur.hand_frames == 0 and self._cur.covered < 2 else n
        worst = math.inf          # the keep-th best cost so far
        judged = 0
        # (a hypothesis' likeliest reading is judged with decoder_cut_reserve cuts at least, the frame's budget
        # spent or not: _advance)
        budget = min(cfg.decoder_cut_budget, max(self._budget, self._reserve))
        owned_turns = {seat: self._owned_turn_of(seat, keys, before, after) for seat, keys in owned.items()}
        # (what the open turn's rule breaks cost when it was read so far: on the table before; a tile under its
        # steps read otherwise now must not pay back a rule break it never paid)
        last_rules = self._open_rules(last, before) if last is not None else 0.0
        costs: list[float] = []       # (the costs in `out`, sorted)
        # parts made this frame, by what they were made of (each entry keeps what its id names alive)
        made_parts = self._made_parts
        judged_parts: dict = {}       # (_cut_cost's memo: the parts' costs on `after`)
        # (_slot_cut_cost's memo, this frame's: what a slot's terms depend on beside its part — the open
        # turn with its `quiet` (no part of a turn's identity), the reach judged under, the tiles under
        # the open turn's steps — then what its part is made of)
        slot_costs = self._slot_memo
        context = (last, last.quiet if last is not None else None, last.reach if last is not None else None,
                   last.again if last is not None else None, id(self._cur),
                   tuple((before.get(spot), after.get(spot)) for spot in last.rule_facts.spots) if last is not None
                   else (), self._made)
        # (named by a number for the frame: hashing the open turn on every slot looked up costs more)
        slot_context = self._slot_contexts.setdefault(context, len(self._slot_contexts))
        call_memo: dict = {}          # (this search's: the hands' costs, the tiles under each owned part's steps)

        def event_part(mine: Turn | None, seat: str, ev: tuple) -> Turn:
            """`mine` (or a new turn of `seat`) with the pile change `ev` (made once per frame)."""
            key = ("top", ev[0])
            was, now = before.get(key, _GONE), after.get(key, _GONE)
            made_key = (id(mine) if mine is not None else seat, ev, was, now)
            made = made_parts.get(made_key)
            if made is None:
                made = made_parts[made_key] = (mine, (mine or _new_turn(seat=seat)).merged(
                    _new_turn(seat=seat, piles=(ev,), delta=((key, now),), before=((key, was),))))
            return made[1]

        memos = cfg.decoder_cut_memos

        def tile_part(mine: Turn | None, seat: str, keys: Sequence[FieldKey]) -> Turn:
            """`mine` (or a new turn of `seat`) with the loose tiles `keys` taken, as the loop below always made
            it (made once per frame: every cut placing the same tiles on the same part shares it, so _cut_cost's
            memo, by id, judges it once a search, not once a cut)."""
            made_key = ("tiles", id(mine) if mine is not None else None, seat,
                        tuple((k, before.get(k, _GONE), after.get(k, _GONE)) for k in keys))
            made = made_parts.get(made_key)
            if made is None:
                made = made_parts[made_key] = (mine, (mine if mine is not None else Turn(seat)).merged(
                    Turn(seat, tiles=tuple(str(before.get(k)) for k in keys),
                         delta=tuple((k, after.get(k, _GONE)) for k in keys),
                         before=tuple((k, before.get(k, _GONE)) for k in keys))))
            return made[1]

        def skipped_part(part: Turn, skipped: tuple[str, ...]) -> Turn:
            """`part` marked as played out of turn (made once per frame, as made_cut makes it)."""
            made_key = ("skipped", id(part), skipped)
            made = made_parts.get(made_key)
            if made is None:
                made = made_parts[made_key] = (part, part.replaced(skipped=skipped))
            return made[1]

        def made_cut(owned_parts: Mapping[int, Turn], slots: Sequence[str], where: tuple[int, ...], choice: tuple,
                     skipped: tuple[str, ...]) -> dict[int, Turn]:
            """The parts of a cut (as they always were made: the owned parts, each pile change merged
            into its slot's part in turn, slot 1 marked as played out of turn)."""
            parts = dict(owned_parts)
            for c, pos in zip(choice, where):
                parts[pos] = event_part(parts.get(pos), slots[pos], c[0])
            if skipped:
                made_key = ("skipped", id(parts[1]), skipped)
                made = made_parts.get(made_key)
                if made is None:
                    made = made_parts[made_key] = (parts[1], parts[1].replaced(skipped=skipped))
                parts[1] = made[1]
            return parts

        for slots, skipped, undrawn, owned_parts in self._owned_placements(variants, owned, owned_turns, last, reach):
            # (out of turn: a seat played before another whose turn it was; the next player before the open
            # turn drew: decoder_no_draw)
            fixed = (cfg.decoder_out_of_turn if skipped and skipped[0] != slots[0] else cfg.decoder_no_draw if undrawn
                     else 0.0) + (self._no_draw_cost(last) if undrawn else 0.0) + tiles_cost
            for bound, where in self._placements(reach, len(tops), frozenset(owned_parts), bool(loose_tiles)):
                if fixed + bound + choices[0][0] > worst or judged >= budget:
                    break
                # (a placement every choice of which the checks below would pass over, before making its parts:
                # a loose tile goes to a part there is, or to the open turn when there is none)
                filled = set(owned_parts).union(where)
                if not filled and loose_tiles:
                    filled = {0}
                if not filled or ((skipped or undrawn) and (1 not in filled or (undrawn and 0 in filled))):
                    continue
                for base_cost, choice in choices:
                    if fixed + bound + base_cost > worst or judged >= budget:
                        break
                    if not loose_tiles:
                        # (every choice here is judged: the placement passed the checks above) — judged
                        # slot by slot from what each slot's part is made of; the parts are made only for
                        # the cuts kept
                        judged += 1
                        cost = base_cost + fixed
                        cost += self._slot_cut_cost(last, slots, owned_parts, where, choice, undrawn, filled, hands, after,
                                                    last_rules, slot_costs, slot_context, call_memo)
                        out.append((cost, None, slots, choice, undrawn, (owned_parts, where, skipped)))
                        bisect.insort(costs, cost)
                        if len(out) >= keep:
                            worst = costs[keep - 1]
                        continue
                    parts = dict(owned_parts)
                    for c, pos in zip(choice, where):
                        parts[pos] = event_part(parts.get(pos), slots[pos], c[0])
                    by_taker: dict[int, list[FieldKey]] = {}
                    for k in loose_tiles:
                        by_taker.setdefault(_taker(parts, k[1]), []).append(k)
                    for mover, keys in by_taker.items():
                        parts[mover] = (tile_part(parts.get(mover), slots[mover], keys) if memos else
                                        parts.get(mover, Turn(slots[mover])).merged(
                            Turn(slots[mover], tiles=tuple(str(before.get(k)) for k in keys),
                                 delta=tuple((k, after.get(k, _GONE)) for k in keys),
                                 before=tuple((k, before.get(k, _GONE)) for k in keys))))
                    if not parts:
                        continue
                    cost = base_cost + fixed
                    if skipped or undrawn:
                        if 1 not in parts or (undrawn and 0 in parts):
                            continue
                        if skipped:
                            parts[1] = (skipped_part(parts[1], skipped) if memos else
                                        parts[1].replaced(skipped=skipped))
                    judged += 1
                    cost += self._cut_cost(last, slots, parts, hands, after, last_rules, undrawn, judged_parts)
                    out.append((cost, parts, slots, choice, undrawn, None))
                    bisect.insort(costs, cost)
                    if len(out) >= keep:
                        worst = costs[keep - 1]
        self._budget -= judged
        out.sort(key=lambda x: x[0])
        kept = []
        for cost, parts, slots, choice, undrawn, recipe in out[:keep]:
            if parts is None:
                parts = made_cut(recipe[0], slots, recipe[1], choice, recipe[2])
            new_piles = dict(piles)
            for c in choice:
                new_piles[c[0][0]] = c[2]
            kept.append((cost, parts, slots, tuple(sorted(new_piles.items())), undrawn))
        return kept

    def _open_rules(self, last: Turn, table: Fields) -> float:
        """_rules_cost of the open turn on `table` (the cut search's `last_rules`), once per frame when
        decoder_cut_memos: it reads of the table only the tiles under the turn's steps and its seat's pawns
        (_tiles_under, _steps_paid), the key; the entry keeps the turn its id names alive."""
        if not self.config.decoder_cut_memos:
            return self._rules_cost(last, table)
        key = (id(last), tuple(table.get(spot) for spot in last.rule_facts.spots),
               table.get(("pawns", self.seats.get(last.seat))))
        hit = self._open_rules_memo.get(key)
        if hit is None:
            hit = self._open_rules_memo[key] = (last, self._rules_cost(last, table))
        return hit[1]

    def _slot_cut_cost(self, last: Turn | None, slots: Sequence[str], owned_parts: Mapping[int, Turn],
                       where: tuple[int, ...], choice: tuple, undrawn: bool, filled: set[int],
                       hands: Mapping[str, int], table: Fields, last_rules: float, memo: dict, context: int,
                       call_memo: dict) -> float:
        """_cut_cost of the cut that places the pile changes of `choice` on the slots `where` beside the
        seats' own parts (no loose tile; `filled`: the slots with a part), judged slot by slot: what a
        slot adds to the cost (the same terms, added in the same order as _cut_cost adds them) is kept
        in `memo` by what its part is made of, so the parts recurring from cut to cut are judged once,
        and no part is made to judge it. `memo` is the frame's (`context`: the number of what the terms
        depend on beside the part, _cuts), `call_memo` the cut search's."""
        hand_costs = call_memo.get("hands")
        if hand_costs is None:
            hand_costs = call_memo["hands"] = (self._hand_missing(hands, self._cur.period),
                                               {seat: self._hand_unused(frames, self._cur.period)
                                                for seat, frames in hands.items()})
        events: dict[int, tuple] = {}
        for c, pos in zip(choice, where):
            events[pos] = events.get(pos, ()) + (c[0],)
        top = max(filled)
        cost = 0.0
        acting: set[str] = set()
        first_seat = None
        for pos in range(top + 1):
            mine = owned_parts.get(pos)
            evs = events.get(pos, ())
            # (slot 1 marked as played out of turn costs the same: `skipped` is no part of the key; the
            # open turn's player again in slot 1, going on out of turn, does: no draw owed by that turn)
            again = pos == 1 and last is not None and slots[1] == last.seat
            if mine is not None:
                tiles = call_memo.get(id(mine))    # (the tiles under its steps on this table)
                if tiles is None:
                    tiles = call_memo[id(mine)] = tuple(table.get(spot) for spot in mine.rule_facts.spots)
                key = (context, pos == 0, id(mine), tiles, evs, pos < top, pos == 0 and undrawn, again)
            else:
                key = (context, pos == 0, slots[pos], (), evs, pos < top, pos == 0 and undrawn, again)
            hit = memo.get(key)
            if hit is None:
                hit = memo[key] = (mine, *self._slot_terms(last, slots[pos], mine, evs, pos == 0 and last is not None,
                                                          pos < top, undrawn, hands, table, last_rules, hand_costs[0],
                                                          again))
            _mine, terms, turn_seat, part_seat = hit
            for term in terms:
                cost += term
            if turn_seat is not None:
                acting.add(turn_seat)
                if first_seat is None:
                    first_seat = part_seat
        # Hands and the pause, as in _cut_cost
        return self._reach_cost(cost, last, first_seat, acting, top, hands, hand_costs)

    def _slot_terms(self, last: Turn | None, seat: str, mine: Turn | None, evs: tuple, opened: bool,
                    complete: bool, undrawn: bool, hands: Mapping[str, int], table: Fields, last_rules: float,
                    hand_missing: float, again: bool = False) -> tuple[tuple[float, ...], str | None, str | None]:
        """What one slot of a cut adds to _cut_cost, term by term in its order, the seat that acted in it
        (None: no part) and its part's seat (_slot_cut_cost). The slot's part is the seat's own part
        `mine` (or a new turn of `seat`) with the pile changes `evs` merged in; it is judged from its
        counts (Turn.merged adds them up), not made."""
        cfg = self.config
        terms: list[float] = []
        part = mine is not None or bool(evs)
        ev_plays = sum(1 for ev in evs if ev[3] == "discard")
        ev_draws = sum(1 for ev in evs if ev[3] == "draw")
        if mine is not None:
            f = mine.rule_facts
            p_seat, p_plays, p_draws = mine.seat, mine.plays + ev_plays, mine.draws + ev_draws
            p_piles = mine.piles + evs
            p_facts = (f.spots, f.discards + ev_plays, f.takes_discard_tile, f.wish_or_discard_tile)
            p_counts = (len(mine.steps), len(mine.lays), mine.pawns_lost + mine.pawns_astray, len(mine.row_discards))
            p_no_draw = mine.no_draw
        else:
            p_seat, p_plays, p_draws, p_piles = seat, ev_plays, ev_draws, evs
            p_facts = ((), ev_plays, False, False)
            p_counts = (0, 0, 0, 0)
            p_no_draw = False
        if opened:
            # turn = last.merged(part) (or last), no_draw set when `undrawn`
            lf = last.rule_facts
            if part:
                piles = last.piles + p_piles
                facts = _RuleFacts(lf.spots + p_facts[0], lf.discards + p_facts[1], lf.takes_discard_tile or p_facts[2],
                                   lf.wish_or_discard_tile or p_facts[3],
                                   _drawn_back(piles) if last.piles and p_piles else lf.drawn_back + _drawn_back(p_piles))
                plays, draws = last.plays + p_plays, last.draws + p_draws
                steps, lays = len(last.steps) + p_counts[0], len(last.lays) + p_counts[1]
                pawns_lost = last.pawns_lost + last.pawns_astray + p_counts[2]
                row_discards = len(last.row_discards) + p_counts[3]
                quiet, no_draw = False, last.no_draw or p_no_draw
            else:
                facts, plays, draws = lf, last.plays, last.draws
                steps, lays, pawns_lost, row_discards = (len(last.steps), len(last.lays),
                                                         last.pawns_lost + last.pawns_astray,
                                                         len(last.row_discards))
                quiet, no_draw = last.quiet, last.no_draw
            if undrawn:
                no_draw = True
            turn_seat = last.seat
        else:
            facts = _RuleFacts(p_facts[0], p_facts[1], p_facts[2], p_facts[3],
                               mine.rule_facts.drawn_back if mine is not None and not evs else _drawn_back(p_piles))
            plays, draws = p_plays, p_draws
            steps, lays, pawns_lost, row_discards = p_counts
            quiet, no_draw = False, p_no_draw
            turn_seat = p_seat
            terms.append(cfg.decoder_turn)
        onto_twin = ((last.onto_twin if opened else 0) + (mine.onto_twin if mine is not None else 0)
                     if part or not opened else last.onto_twin)
        if opened:
            all_lays = last.lays + mine.lays if part and mine is not None else last.lays
            all_steps = last.steps + mine.steps if part and mine is not None else last.steps
        else:
            all_lays, all_steps = (mine.lays, mine.steps) if mine is not None else ((), ())
        rules, done = self._costs_of(facts, table, plays, draws, steps, lays, pawns_lost, row_discards, quiet, no_draw,
                                     onto_twin, self._steps_paid(turn_seat, all_lays, all_steps, table))
        if part and opened and last.draws and p_plays:
            terms.append(cfg.decoder_order)      # a card played after the turn's draw
        if not (opened and not part):
            terms.append(rules - (last_rules if opened else 0.0))
        if opened and last.quiet and part:
            terms.append(-last.quiet)   # (it left a trace after all, _traceless_prior back; a − b is a + (−b))
        if complete:
            terms.append(done)
            if plays and not draws and not no_draw and not (last.again if opened else again):
                # (its draw hidden: decoder_draw_unseen in `done`, the rest by how long its reaches were)
                reach = self._reach_seconds(self._cur)
                if opened:
                    reach = max(last.reach, reach) if part else last.reach
                terms.append(self._draw_hidden_cost(turn_seat, reach, self._cur) - cfg.decoder_draw_unseen)
            if (plays == 0 and draws == 0 and not steps and not row_discards and hands
                    and not hands.get(turn_seat) and not opened):
                terms.append(hand_missing)
        if self.answers:
            for event in (p_piles if part else ()):
                if self._against_answer(event, turn_seat, nth=self._next_made(event)):
                    terms.append(cfg.decoder_answer)
        return tuple(terms), (turn_seat if part else None), (p_seat if part else None)

    def _owned_placements(self, variants, owned: Mapping[str, list], owned_turns: Mapping[str, Turn],
                          last: Turn | None, reach: int):
        """Each variant of the slots with the seats' own fields placed: a seat's fields go to its first
        slot (its open turn going on, or its next turn) — or, when that is the open turn and the seat
        comes round again within reach, to its next turn (a player's second card after the others'
        turns, not their open turn going on: the priors judge which)."""
        # (each seat's part made once and shared by every placement: the cut search's memos know it by id)
        seat_parts = {seat: self._seat_part(owned_turns[seat]) for seat in owned}
        for slots, skipped, undrawn in variants:
            options: list[list[int]] = []
            for seat in owned:
                positions = [i for i, s in enumerate(slots[:reach + 1]) if s == seat]
                if not positions:
                    break
                if skipped and seat == slots[1]:
                    options.append([1])
                elif last is None or positions[0] > 0 or self._open_can_go_on(last):
                    options.append(positions[:1] + ([positions[-1]] if last is not None and positions[0] == 0
                                                    and positions[-1] > 0 else []))
                else:
                    options.append([positions[-1]])
            else:
                for combo in itertools.product(*options):
                    owned_parts: dict[int, Turn] = {}
                    for seat, pos in zip(owned, combo):
                        owned_parts[pos] = (owned_parts[pos].merged(owned_turns[seat]) if pos in owned_parts
                                            else seat_parts[seat])
                    yield slots, skipped, undrawn, owned_parts

    def _placements(self, n: int, events: int, owned: frozenset, loose: bool) -> list[tuple[float, tuple[int, ...]]]:
        """Every placement of `events` pile changes on the slots 0..n, with a lower bound of its cut's
        cost (decoder_turn per new turn, decoder_traceless per empty slot before the last), cheapest first."""
        key = (n, events, owned, loose)
        cached = _PLACEMENTS.get(key)
        if cached is not None and cached[0] == (self.config.decoder_turn, self.config.decoder_traceless):
            return cached[1]
        out = []
        for where in itertools.product(range(n + 1), repeat=events):
            used = set(owned) | set(where)
            if loose and not used:
                used = {0}
            if not used:
                continue
            top = max(used)
            empty = sum(1 for pos in range(1, top) if pos not in used)
            out.append((self.config.decoder_turn * top + self.config.decoder_traceless * empty, where))
        out.sort(key=lambda x: x[0])
        _PLACEMENTS[key] = ((self.config.decoder_turn, self.config.decoder_traceless), out)
        return out

    def _copies(self, code: Any) -> int:
        """How many copies of a card value one colour has (RULES: the board game's cards exist twice;
        the card game's 0–2 and 8–10 once, 3–7 twice); a code that is no plain value: unlimited."""
        if not isinstance(code, str) or not code.isdigit():
            return 99
        value = int(code)
        return 1 if self.card_game and (value <= 2 or value >= 8) else 2

    def _copies_seen(self, table: Fields, piles: Mapping[str, tuple], colour: str, code: Any) -> int:
        """Copies of `colour` `code` the table shows in rows and the pile's record holds."""
        n = sum(1 for c in piles.get(colour, ()) if c == code)
        for key, row in table.items():
            if key[0] == "row" and key[2] == colour:
                n += sum(1 for c in row if c == code)
        return n

    def _open_can_go_on(self, last: Turn) -> bool:
        return last.plays == 0 or last.draws == 0

    def _owed_cost(self, turn: Turn, table: Fields) -> float:
        """A turn over without the discard its pawn's landing on a discard-a-card tile owed (a rule break)."""
        facts = turn.rule_facts
        owed = _tiles_under(facts.spots, table)[0] + (1 if facts.takes_discard_tile else 0) - facts.discards
        return self.config.decoder_rule * owed if owed > 0 else 0.0

    def _completion_cost(self, turn: Turn, table: Fields) -> float:
        """Priors paid when a turn is over: a discard owed to a discard-a-card tile not made (RULES §2
        Tiles: a rule break), no trace at all (decoder_traceless, unless paid when it began), no card
        played that the camera saw (decoder_twin: it went onto its twin)."""
        return self._turn_costs(turn, table)[1]

    def _rules_cost(self, turn: Turn, table: Fields) -> float:
        """decoder_rule per card played or drawn beyond what the turn allows, per pawn step no card
        explains, per pawn gone or come, per card leaving a row (decoder_pair: the card game's pair laid)."""
        return self._turn_costs(turn, table)[0]

    def _turn_costs(self, turn: Turn, table: Fields) -> tuple[float, float]:
        """(_rules_cost, _completion_cost) of `turn` on `table`: the tiles under its steps looked up once,
        the rest from the turn's own facts (Turn.rule_facts). Each cost adds its terms in the order
        the two costs always did (the same floats)."""
        return self._costs_of(turn.rule_facts, table, turn.plays, turn.draws, len(turn.steps), len(turn.lays),
                              turn.pawns_lost + turn.pawns_astray, len(turn.row_discards), turn.quiet, turn.no_draw,
                              turn.onto_twin,
                              self._steps_paid(turn.seat, turn.lays, turn.steps, table))

    def _steps_paid(self, seat: str, lays: Sequence[str], steps: Sequence[str], table: Fields) -> int:
        """How many of a turn's pawn steps a card it laid pays for, one card one step (RULES §1 Turn: a card
        moves a pawn on its colour's path; §2 Movement: onto a stone of its colour, a joker stone taking any):
        steps matched to lays of their stone's colour. Base board: a card of a colour whose end stone holds
        one of the player's pawns pays for a step on any path (RULES §1). Without decoder_step_colour (or a
        board) every card pays for any step, as before."""
        if not self.config.decoder_step_colour or self.board is None or not steps or not lays:
            return min(len(steps), len(lays))
        key = (lays, steps)
        paid = self._paid_memo.get(key)
        if paid is None:
            colours = Counter(lay.split(":")[0] for lay in lays)
            spare = []      # steps onto a stone no card of its colour is left for: (its colour, its stone)
            paid = 0
            for st in steps:
                stone = self.board.stones.get(st[2:])
                # (a pawn put back on the start is no step a card pays for: RULES §1, pawns only move forward)
                colour = None if stone is None else "start" if stone.kind == "start" else stone.color
                if colour is not None and colours.get(colour, 0) > 0:
                    colours[colour] -= 1
                    paid += 1
                else:
                    spare.append((colour, st[2:]))
            # (a pawn seen two stones on crossed a stone whose clover moved it again, RULES §1/§2 Tiles: the card
            # paid for the stone it crossed, one just before the stone seen)
            rest = []
            for colour, sid in spare:
                via = next((c for c in self._before_stone.get(sid, ()) if colours.get(c, 0) > 0), None)
                if via is not None and colour not in (None, "joker", "start"):
                    colours[via] -= 1
                    paid += 1
                else:
                    rest.append(colour)
            # (a joker stone, or a stone the board does not know, takes any card left)
            left = sum(colours.values())
            anywhere = sum(1 for c in rest if c is None or c == "joker")
            paid += min(left, anywhere)
            self._paid_memo[key] = paid = (paid, left - min(left, anywhere), len(rest) - anywhere)
        paid, left, wrong = paid
        if left and wrong and self.board.ruleset == "base":
            # (a card of a colour whose end stone holds one of the player's pawns moves any other pawn)
            pawns = table.get(("pawns", self.seats.get(seat)))
            ends = {self.board.end_stones.get(lay.split(":")[0]) for lay in lays}
            if isinstance(pawns, tuple) and any(p[0] in ends for p in pawns):
                return paid + min(left, wrong)
        return paid

    def _costs_of(self, facts: _RuleFacts, table: Fields, plays: int, draws: int, steps: int, lays: int,
                  pawns_lost: int, row_discards: int, quiet: bool, no_draw: bool,
                  onto_twin: int = 0, paid: int | None = None) -> tuple[float, float]:
        """_turn_costs of a turn given by its counts (steps, lays, row_discards: how many) — so the cut
        search can judge a part without making it; paid: the steps a card laid pays for, _steps_paid — None:
        as many as there are cards)."""
        cfg = self.config
        tiles_discard, clovers = _tiles_under(facts.spots, table)
        # rule breaks
        cost = 0.0
        # a pawn landing on a discard-a-card tile (it stays on the board) or a wish-card pair
        # allows a second card played and drawn
        allow = 1 + tiles_discard + (1 if facts.wish_or_discard_tile else 0)
        # pawns: one step per card laid, one more per clover landed on; a pawn gone or come is a rule break
        # (a card laid onto a discard-a-card tile's row and then discarded from that row by it
        # leaves the row as it was: its pawn step is the card's only trace)
        landed = tiles_discard + (1 if facts.takes_discard_tile else 0)    # (steps onto one, or one taken)
        hidden_lays = min(landed, facts.discards)
        # (a step no card of its stone's colour pays for is a rule break — the engine's wrong-colour — unless a
        # clover or a hidden lay allows it: RULES §1/§2, _steps_paid)
        paid = min(steps, lays) if paid is None else paid
        if steps > paid + clovers + hidden_lays:
            cost += cfg.decoder_rule * (steps - paid - clovers - hidden_lays)
        # a card laid moves a pawn (RULES §1 Turn; one that no pawn can move with is discarded, not laid)
        if not self.card_game and lays > steps:
            cost += cfg.decoder_rule * (lays - steps)
        # (pawns_lost: also pawns moved where no step takes them, a second pawn on a path — Turn.pawns_astray)
        cost += cfg.decoder_rule * pawns_lost
        # a card leaves a row only for a discard-a-card tile (onto its pile)
        if row_discards > tiles_discard:
            cost += cfg.decoder_rule * (row_discards - tiles_discard)
        if self.card_game and plays == 2 and allow == 1 and lays == 2:
            cost += cfg.decoder_pair          # the card game's last plays lay up to two cards
        elif plays > allow:
            cost += cfg.decoder_rule * (plays - allow)
        # draws beyond the plays break the hand size (RULES §1 Turn: play one card from the hand of 8,
        # draw one; §3: draw back to 8): a player who played one card too many and drew it back made
        # one rule break (two-cards), not two
        if draws > max(allow, plays):
            cost += cfg.decoder_rule * (draws - max(allow, plays))
        # a card drawn back from the pile it was discarded onto this turn (RULES §1 Turn, card game
        # "Drawing": cards discarded this turn cannot be drawn)
        for _ in range(facts.drawn_back):
            cost += cfg.decoder_rule
        # completion: the discard owed (_owed_cost), the draw not seen (_undrawn_cost), no trace
        # (a card discarded from a row goes onto its colour's pile: the tile's discard even when that pile
        # showed the same card already, so no pile change was seen: `onto_twin`, Turn.onto_twin)
        owed = landed - facts.discards - onto_twin
        done = ((cfg.decoder_rule * owed if owed > 0 else 0.0)
                + (0.0 if no_draw or draws or not plays else cfg.decoder_draw_unseen))
        if plays == 0 and draws == 0 and not steps and not row_discards:
            if not quiet:
                done += cfg.decoder_traceless
        elif plays == 0:
            done += cfg.decoder_twin
        return cost, done

    def _cut_cost(self, last: Turn | None, slots: Sequence[str], parts: Mapping[int, Turn],
                  hands: Mapping[str, int], table: Fields, last_rules: float, undrawn: bool = False,
                  memo: dict | None = None) -> float:
        """Priors of one cut: rule breaks (cards per turn), traceless turns, hands, page answers.
        memo: the turns judged so far on this `table` with their costs (one cut search's parts recur
        from cut to cut; it keeps each part it names alive, so a part's id names it)."""
        cfg = self.config
        if memo is None:
            memo = {}
        # (a turn whose seat no hand frame named, a seat named that made no turn: the same for every cut)
        hand_costs = memo.get("hands")
        if hand_costs is None:
            hand_costs = memo["hands"] = (self._hand_missing(hands, self._cur.period),
                                          {seat: self._hand_unused(frames, self._cur.period)
                                           for seat, frames in hands.items()})
        cost = 0.0
        top = max(parts)
        acting: set[str] = set()
        for pos in range(top + 1):
            part = parts.get(pos)
            opened = pos == 0 and last is not None
            if opened:
                key: Any = ("open", id(part), undrawn)
                hit = memo.get(key)
                if hit is None:
                    turn = last.merged(part) if part is not None else last
                    if undrawn:
                        turn = turn.replaced(no_draw=True)
                    hit = memo[key] = (part, turn, *self._turn_costs(turn, table))
            else:
                key = id(part) if part is not None else ("empty", slots[pos])
                hit = memo.get(key)
                if hit is None:
                    turn = part if part is not None else _new_turn(seat=slots[pos])
                    hit = memo[key] = (part, turn, *self._turn_costs(turn, table))
                cost += cfg.decoder_turn
            _part, turn, rules, done = hit
            if part is not None:
                acting.add(turn.seat)
                if opened and last.draws and part.plays:
                    cost += cfg.decoder_order      # a card played after the turn's draw
            complete = pos < top
            # (the open turn's own rule breaks were paid when it was read so far: only the change counts)
            if opened and part is None:
                pass                      # (unchanged: its rule breaks were paid)
            else:
                cost += rules - (last_rules if opened else 0.0)
            plays, draws = turn.plays, turn.draws
            if opened and last.quiet and part is not None:
                cost -= last.quiet   # (it left a trace after all: _quiet_reaches' prior back, _traceless_prior)
            if complete:
                cost += done
                if plays and not draws and not turn.no_draw and not (
                        last.again if opened else pos == 1 and last is not None and slots[1] == last.seat):
                    # (its draw hidden, as in _slot_terms; none owed by a player going on out of turn after
                    # their own turn: the turn is still the skipped player's, they draw back up at their next)
                    reach = self._reach_seconds(self._cur)
                    if opened:
                        reach = max(last.reach, reach) if part is not None else last.reach
                    cost += self._draw_hidden_cost(turn.seat, reach, self._cur) - cfg.decoder_draw_unseen
                # (no hand of theirs seen, hands read; the open turn's hands came before)
                if (plays == 0 and draws == 0 and not turn.steps and not turn.row_discards and hands
                        and not hands.get(turn.seat) and not opened):
                    cost += hand_costs[0]
            if self.answers:
                for event in (part.piles if part is not None else ()):
                    if self._against_answer(event, turn.seat, nth=self._next_made(event)):
                        cost += cfg.decoder_answer
        return self._reach_cost(cost, last, parts[min(parts)].seat, acting, top, hands, hand_costs)

    def _reach_cost(self, cost: float, last: Turn | None, first_seat: str | None, acting: set[str], top: int,
                    hands: Mapping[str, int], hand_costs: tuple) -> float:
        """`cost` with the reach's terms added (in this order, so that _cut_cost and _slot_cut_cost give the
        same float): every turn that acted should have been seen reaching in, every reach should act; the
        pause before the reach: short, the open turn's player going on; long, the next player (the pause
        tells who reaches: the player of the last reach again, or another — not whether a turn ends: a
        player going on out of turn after their own turn is the same hand). `first_seat`: the seat of the
        cut's first part."""
        cfg = self.config
        pause = self._cur.pause
        goes_on = last is not None and first_seat == last.seat
        if pause is not None and pause <= cfg.decoder_quick_seconds and not goes_on:
            cost += cfg.decoder_pause
        elif pause is not None and pause >= cfg.decoder_slow_seconds and goes_on and top == 0:
            cost += cfg.decoder_pause
        # (an observer that does not read hands: two covered frames in a row count as a hand)
        if self._cur.hand_frames == 0 and self._cur.covered < 2:
            cost += self._unseen_reach_cost(self._cur)
        if hands:
            missing, unused = hand_costs
            # the open turn's player acting again in a reach naming the same seats, not theirs, as the reach
            # before: that turn's arm misnamed alike again (the same arm from the same side), not new evidence
            before = self._cur.before
            alike = (cfg.decoder_hand_again_on and last is not None and last.seat in acting and before is not None
                     and not hands.get(last.seat) and last.seat not in before and before == frozenset(hands))
            for seat in acting:
                if not hands.get(seat):
                    # (a reach naming only others coinciding with the change: the hands' evidence, once per reach)
                    cost += cfg.decoder_hand_again if alike and seat == last.seat else missing + cfg.decoder_hand_reach
            open_seat = last.seat if last is not None and last.draws == 0 else None
            for seat in hands:
                if seat not in acting and seat != open_seat and not alike:   # (the open turn's draw from the draw pile)
                    cost += unused[seat]
        return cost

    def _with_answers(self, hyp: Hypothesis, key: tuple[str, Any, str], new: bool = False,
                      nth: int | None = None) -> Hypothesis:
        """hyp, paying for giving the pile event `key` (_pile_event) to another seat than the answer's — only its
        `nth` change of that key when given (the change the question asked about; decoder_answer_nth)."""
        extra = 0.0
        seen = 0
        # (the answer just given, the latest of that key: an earlier answer of the same card priced its own change)
        only = next((a for a in reversed(self._answer_log) if a[0] == key), None) if self.config.decoder_answer_nth else None
        for turn in hyp.turns:
            for event in turn.piles:
                if _pile_event(event) != key:
                    continue
                seen += 1
                if (nth is None or seen == nth) and self._against_answer(event, turn.seat, new, only):
                    extra += self.config.decoder_answer
        return Hypothesis(hyp.table, hyp.piles, hyp.turns, hyp.cost + extra, hyp.turn_frames, hyp.misread, hyp.first)

    def _owner(self, key: FieldKey) -> str | None:
        kind = key[0]
        if kind in ("row", "points_row", "wish", "wish_cards", "player"):
            return key[1]
        if kind == "pawns":
            return self.seat_of_player.get(key[1])
        return None

    def _owned_turn_of(self, seat: str, keys: Sequence[FieldKey], before: Fields, after: Fields) -> Turn:
        """_owned_turn, made once per frame for the same change of the same fields (the hypotheses of a
        frame, and the readings of one, often share a seat's change)."""
        key = (seat, tuple((k, before.get(k, _GONE), after.get(k, _GONE)) for k in keys),
               tuple((before.get(("top", k[2])), after.get(("top", k[2]))) for k in keys if k[0] == "row"))
        turn = self._owned_memo.get(key)
        if turn is None:
            turn = self._owned_memo[key] = self._owned_turn(seat, keys, before, after)
        return turn

    def _seat_part(self, owned_turn: Turn) -> Turn:
        """A cut's part made of a seat's own change (Turn(seat).merged(owned_turn)), once per owned turn."""
        made = self._seat_parts.get(id(owned_turn))
        if made is None:   # (the entry keeps the owned turn its id names alive)
            made = self._seat_parts[id(owned_turn)] = (owned_turn, _new_turn(seat=owned_turn.seat).merged(owned_turn))
        return made[1]

    def _owned_turn(self, seat: str, keys: Sequence[FieldKey], before: Fields, after: Fields) -> Turn:
        lays: list[str] = []
        steps: list[str] = []
        row_discards: list[str] = []
        wish: list[int] = []
        lost = 0
        astray = 0
        onto_twin = 0
        for k in keys:
            b, a = before.get(k), after.get(k)
            if k[0] == "row":
                b, a = tuple(b or ()), tuple(a or ())
                common = 0
                while common < min(len(b), len(a)) and b[common] == a[common]:
                    common += 1
                lays += [f"{k[2]}:{c}" for c in a[common:]]
                row_discards += [f"{k[2]}:{c}" for c in b[common:]]
                # (a card gone from the row onto its pile showing that card before and after: its twin)
                top = ("top", k[2])
                onto_twin += sum(1 for c in b[common:] if before.get(top) is not None
                                 and str(before.get(top)) == str(c) == str(after.get(top)))
            elif k[0] == "points_row":
                lays += ["points:P"] * max(0, int(a or 0) - int(b or 0))
            elif k[0] == "pawns":
                lost += abs(len(a or ()) - len(b or ()))
                old = list(b or ())
                added = []
                for p in a or ():
                    if p in old:
                        old.remove(p)
                    else:
                        steps.append(f"{'B' if p[1] else 'S'}:{p[0]}")
                        added.append(p)
                astray += self._pawn_faults(old, added, b or (), a or ())
            elif k[0] == "wish_cards":
                old = list(b or ())
                for c in a or ():
                    if c in old:
                        old.remove(c)
                    else:
                        wish.append(c)
        return _new_turn(seat=seat, lays=tuple(lays), steps=tuple(steps), row_discards=tuple(row_discards),
                         wish_cards=tuple(wish), pawns_lost=lost, pawns_astray=astray, onto_twin=onto_twin,
                         delta=tuple((k, after.get(k, _GONE)) for k in keys),
                         before=tuple((k, before.get(k, _GONE)) for k in keys))

    def _pawn_faults(self, left: Sequence[tuple], came: Sequence[tuple], before: Sequence[tuple],
                     after: Sequence[tuple]) -> int:
        """Rule breaks of one player's pawns moving from `before` to `after` (`left`: the pawns no longer on
        their stones, `came`: the new ones), as the engine flags them (engine/boardgame/observed.py `pawns`):
        a pawn that reaches its new stone by no forward step (RULES §2 Movement: pawns-backwards,
        pawn-not-adjacent) — counted as the pawns that moved less the most that can be paired with a stone
        ahead of them — and, base board with decoder_second_pawn, a path holding more of the player's pawns
        than before, more than one (RULES §1 Turn: second-pawn-on-path). 0 without decoder_pawn_rules or a
        board; a stone the board does not know is taken as reachable (nothing known to price)."""
        if not self.config.decoder_pawn_rules or self.board is None or not came:
            return 0
        stones = self.board.stones

        def fault(src: tuple, dst: tuple) -> int:
            """1: `dst` is no stone ahead of `src`; with decoder_two_steps the stones beyond the first that no
            clover on a stone crossed explains (RULES §2 Tiles: a clover moves the pawn on; the engine's
            two-steps); 0: one step, or a stone the board does not know."""
            if src[0] not in stones or dst[0] not in stones:
                return 0
            k = self.board.steps(src[0], dst[0])
            if k is None or k <= 0:
                return 1
            if k == 1 or not self.config.decoder_two_steps:
                return 0
            return max(0, k - 1 - self._clovers_crossed(src[0], dst[0], k))

        faults = 0
        moved = min(len(left), len(came))
        if moved:
            if len(left) <= 4 and len(came) <= 4:
                # (a few pawns at most move in one turn: every pairing tried, the one with the fewest faults kept)
                faults += min(sum(fault(s, d) for s, d in zip(sel, perm))
                              for perm in itertools.permutations(came, moved)
                              for sel in itertools.combinations(left, moved))
            else:
                pool = list(came)
                for src in left:
                    hit = next((d for d in pool if not fault(src, d)), None)
                    if hit is not None:
                        pool.remove(hit)
                faults += len(pool) - (len(came) - moved)
        if self.config.decoder_second_pawn and self.board.ruleset == "base":
            def per_path(pawns: Sequence[tuple]) -> Counter:
                return Counter(stones[p[0]].color for p in pawns
                               if p[0] in stones and stones[p[0]].kind != "start" and stones[p[0]].color is not None)
            b, a = per_path(before), per_path(after)
            faults += sum(1 for colour, n in a.items() if n > 1 and n > b.get(colour, 0))
        return faults

    def _clovers_crossed(self, src: str, dst: str, k: int) -> int:
        """The most clover tiles (as the game's first table read them: tiles stay where they are) on the
        stones a pawn crosses going `k` stones forward from `src` to `dst`; with no tile read at all every
        stone counts as a clover (nothing known to price)."""
        start = self.start or {}
        board = self.board
        unread = not any(key[0] == "tile" for key in start)

        def best(at: str, left: int) -> int:
            if left == 0:
                return 0 if at == dst else -1
            out = -1
            for nxt in board.stones[at].next:
                if nxt == dst and left == 1:
                    out = max(out, 0)
                elif left > 1 and board.steps(nxt, dst) == left - 1:
                    rest = best(nxt, left - 1)
                    if rest >= 0:
                        clover = unread or start.get(("tile", nxt)) == "clover"
                        out = max(out, rest + (1 if clover else 0))
            return out

        return max(0, best(src, k))

    # ------------------------------------------------------------------ output

    def _commit(self, final: bool = False) -> None:
        """Turns older than decoder_lag frames and decoder_lag_seconds in the best hypothesis are committed;
        a committed turn read otherwise now is logged as a correction."""
        if not self.beam:
            return
        best = self.beam[0]
        cfg = self.config
        horizon = self.frame - cfg.decoder_lag
        # (and as many seconds: at 5 fps 20 frames are 4 s, less than a turn — the turns after it, its
        # evidence, not seen yet)
        since = self._last_t - cfg.decoder_lag_seconds if self._last_t is not None and cfg.decoder_lag_seconds else None
        upto = len(best.turns) if final else sum(
            1 for f in best.turn_frames if f <= horizon and (since is None or self.times.get(f, since) <= since))
        upto = max(upto, 0)
        for i in range(min(upto, len(best.turns))):
            turn = best.turns[i]
            if i < len(self.committed):
                if self.committed[i] is not turn and self.committed[i] != turn:
                    self.corrections.append({"turn": i + 1, "was": self.committed[i].signature(),
                                             "now": turn.signature(), "frame": self.frame})
                    self.committed[i] = turn
            else:
                self.committed.append(turn)

    def _ask(self, ranked: Sequence[Hypothesis]) -> None:
        """A card the best reading and a close runner-up give to different seats: a discard-only turn's discard
        (decoder_ask_draws off), or any discard or draw from a discard pile of the recent turns (on: two seats'
        reaches between two readings, each assignment paying the same priors — the tie the model cannot split).
        A question withdrawn earlier (_withdraw) that is tied again is asked again. Then _withdraw."""
        cfg = self.config
        if len(ranked) >= 2:
            best = ranked[0]
            owner = _pile_owner if cfg.decoder_ask_draws else _discard_owner
            mine = owner(best.turns)
            for other in ranked[1:]:
                if other.cost - best.cost > cfg.decoder_unclear_margin:
                    break
                theirs = owner(other.turns)
                for event, seat in mine.items():
                    alt = theirs.get(event)
                    if alt is None or alt == seat:
                        continue
                    # (which change of that pile, card and kind the best reading has: its latest, the one asked
                    # about — the same card discarded or taken again later is another question, decoder_answer_nth)
                    nth = sum(1 for t in best.turns for e in t.piles if _pile_event(e) == event) \
                        if cfg.decoder_answer_nth else None
                    if not self._answered(event, nth):
                        pile, card, kind = event
                        what = f"discarded the {pile} {card}" if kind == "discard" else \
                            f"took the {pile} {card} from its discard pile"
                        q = {"pile": pile, "card": card, "kind": kind, "seats": sorted({seat, alt}),
                             "frame": self.frame, "text": f"unclear — who {what}?",
                             # (the pile change asked about, as the best reading has it: what an answer names)
                             "event": next(tuple(e) for t in reversed(best.turns) for e in reversed(t.piles)
                                           if _pile_event(e) == event)}
                        if nth is not None:
                            q["nth"] = nth
                        same = [x for x in self.questions if (x["pile"], x["card"], x["kind"]) == event]
                        # (one open question per pile, card and kind — what an answer without an id and a replay
                        # name it by: while one is open, no other about them; else the one about this change)
                        old = next((x for x in same if "withdrawn" not in x and "dismissed" not in x
                                    and "answered" not in x), None) or next(
                            (x for x in same if x.get("nth") == nth), None)
                        if old is None:
                            q["id"] = len(self.questions) + 1   # (what the page names it by)
                            self.questions.append(q)
                        elif "withdrawn" in old:   # (tied again: asked again, as now)
                            del old["withdrawn"]
                            old.update(q, asked=old.get("asked", 1) + 1)
                break
        if cfg.decoder_withdraw_decided and ranked:
            self._withdraw(ranked)

    def _withdraw(self, ranked: Sequence[Hypothesis]) -> None:
        """Open questions later evidence decided are withdrawn (marked "withdrawn": the frame; open_questions
        leaves them out, the page drops them; an answered one stays answered). Decided: the best reading still
        gives the card to a seat within its last len(seats) + 1 turns — the turns Hypothesis.key holds apart,
        so no reading disagreeing there can have left the beam by the Viterbi merge — and no reading within
        decoder_unclear_margin of it gives the card to another seat: the runner-up fell out of the margin by
        the frames' evidence. A question whose turn left that window undecided stays until answered (its
        runner-up may have merged into the best: the tie is one from then on, wt33-dec1), committed or not."""
        cfg = self.config
        pending = [q for q in self.questions if "withdrawn" not in q and "dismissed" not in q and "answered" not in q
                   and q["frame"] != self.frame and not self._answered((q["pile"], q["card"], q["kind"]), q.get("nth"))]
        if not pending:
            return
        best = ranked[0]
        recent = len(self.order) + 1
        rivals = [h for h in ranked[1:] if h.cost - best.cost <= cfg.decoder_unclear_margin]
        for q in pending:
            event = (q["pile"], q["card"], q["kind"])
            # (the turns as they were when it was asked: a later turn discarding or taking the same card — its twin,
            # or the card again after it was drawn — is another question)
            # (a rival's every recent turn counts, later ones too: a rival that may dispute keeps the question)
            seat = _pile_owner_asked(best, recent, q["frame"]).get(event)
            if seat is not None and all(_pile_owner(h.turns, recent + 2).get(event, seat) == seat for h in rivals):
                q["withdrawn"] = self.frame


#: placements by (seats, pile changes, slots the owned fields fill, loose tiles) (TurnDecoder._placements)
_PLACEMENTS: dict[tuple, tuple] = {}


def _taker(parts: Mapping[int, Turn], spot: str) -> int:
    """The part of a cut that took the tile off `spot` (RULES §1 Tiles: a wish stone is taken by the
    player who lands there): the one whose pawn stepped there, else the one whose wish stones grew
    (its pawn landed in an earlier reading), else the first part (no part at all: the open turn)."""
    for pos in sorted(parts):
        if any(st[2:] == spot for st in parts[pos].steps):
            return pos
    for pos in sorted(parts):
        if any(d[0][0] == "wish" for d in parts[pos].delta):
            return pos
    return min(parts) if parts else 0


def _tiles_under(spots: Sequence[tuple[str, str]], table: Fields) -> tuple[int, int]:
    """How many of the tile fields `spots` show a discard-a-card tile, and how many a clover."""
    discard = clover = 0
    for spot in spots:
        tile = table.get(spot)
        if tile == "discard":
            discard += 1
        elif tile == "clover":
            clover += 1
    return discard, clover


def _pile_event(event: tuple[str, Any, Any, str]) -> tuple[str, Any, str]:
    """A turn's pile event (pile, old top, new top, kind) as the page names it: (pile, the card discarded onto
    it or taken from it, kind) — the key of TurnDecoder.answers and of a question."""
    pile, old, new, kind = event
    return (pile, new if kind == "discard" else old, kind)


def _discard_owner(turns: Sequence[Turn]) -> dict[tuple[str, Any, str], str]:
    """Discard-only turns' discards (_pile_event) → seat, for the last few turns."""
    out = {}
    for turn in turns[-4:]:
        if not turn.lays and not turn.steps and turn.plays == 1:
            for event in turn.piles:
                if event[3] == "discard":
                    out[_pile_event(event)] = turn.seat
    return out


def _pile_owner(turns: Sequence[Turn], last: int = 4) -> dict[tuple[str, Any, str], str]:
    """Every discard and every draw from a discard pile of the last few turns (_pile_event) → seat (a card
    drawn, or discarded, by two turns of the few: the later one's)."""
    out = {}
    for turn in turns[-last:]:
        for event in turn.piles:
            if event[3] == "discard" or event[1] is not None:
                out[_pile_event(event)] = turn.seat
    return out


def _pile_owner_asked(hyp: Hypothesis, last: int, frame: int) -> dict[tuple[str, Any, str], str]:
    """_pile_owner of hyp's last `last` turns that no frame after `frame` changed (TurnDecoder._withdraw)."""
    n = len(hyp.turns)
    keep = [hyp.turns[i] for i in range(max(0, n - last), n) if i < len(hyp.turn_frames) and hyp.turn_frames[i] <= frame]
    return _pile_owner(keep, last)


def _board_of(board: Any) -> Any:
    """The Board a setup gives (a Board, or a bundled board's name; None: none, or one that cannot be loaded)."""
    if board is None or hasattr(board, "stones"):
        return board
    from engine.board import bundled_board
    from engine.errors import BoardFileError

    try:
        return bundled_board(board)
    except (BoardFileError, OSError, ValueError):
        return None


def _one_step_pawns(table: Fields, fields: Fields, diff: Sequence[FieldKey]) -> list[tuple[FieldKey, Any]]:
    """(field, pawns) for each player whose pawns read with two steps or more against `table`: the
    table's pawns with one of them made (a pawn of the same size leaving a stone it stood on)."""
    out = []
    for k in diff:
        if k[0] != "pawns":
            continue
        was, now = table.get(k), fields.get(k)
        if not isinstance(was, tuple) or not isinstance(now, tuple) or len(was) != len(now):
            continue
        came, gone = list(now), list(was)
        for p in now:
            if p in gone:
                gone.remove(p)
                came.remove(p)
        if len(came) < 2:
            continue
        values: dict[tuple, int] = {}
        for c in set(came):
            for g in set(gone):
                if g[1] == c[1]:
                    pawns = list(was)
                    pawns.remove(g)
                    rest = list(came)
                    rest.remove(c)
                    # (the readings cannot tell which step was made: the misread left is likelier a pawn of
                    # the size the player has more of — four small ones to one big — so that reading first)
                    values[tuple(sorted(pawns + [c]))] = -sum(sum(1 for p in was if p[1] == r[1]) for r in rest)
        out += [(k, v) for v in sorted(values, key=lambda v: (values[v], v))]
    return out


def _carried_pawns(table: Fields, held: Mapping[FieldKey, tuple], fields: Fields,
                   diff: Sequence[FieldKey]) -> list[tuple[FieldKey, Any]]:
    """(field, pawns) for each player whose pawns the hypothesis held misread (`held`: field -> (reading, ...))
    and that now read otherwise than that misread: the reading with the held misread's difference from the
    table undone (the pawns it read where the table has none put back where the table has them), when the
    reading still shows that difference and the result is a change of the table."""
    out = []
    for k in diff:
        if k[0] != "pawns" or k not in held:
            continue
        was, old, now = table.get(k), held[k][0], fields.get(k)
        if not isinstance(was, tuple) or not isinstance(old, tuple) or not isinstance(now, tuple) or old == now:
            continue
        added, removed, read = Counter(old) - Counter(was), Counter(was) - Counter(old), Counter(now)
        if any(read[p] < n for p, n in added.items()):
            continue
        carried = read - added + removed
        came, gone = carried - Counter(was), Counter(was) - carried
        # (one pawn of one size moved: what one step makes; a misread read otherwise meanwhile makes more)
        if sum(came.values()) == 1 and sum(gone.values()) == 1 and next(iter(came))[1] == next(iter(gone))[1]:
            out.append((k, tuple(sorted(carried.elements()))))
    return out


def _stones_read(fields: Fields) -> set[str]:
    """The stones a reading puts a pawn on."""
    return {stone for key, pawns in fields.items() if key[0] == "pawns" for stone, _ in pawns}


def _covered_tiles(table: Mapping[FieldKey, Any], fields: Fields, diff: Sequence[FieldKey]) -> list[FieldKey]:
    """The tile fields of `diff` that `fields` reads as another tile than `table` has, with a pawn on it by the
    same reading (what hides it from the reader; by the reading alone, so that the price weighs the same in
    every hypothesis and says nothing about where the pawns are)."""
    spots = [k for k in diff if k[0] == "tile" and table.get(k) is not None and fields.get(k) is not None]
    if not spots:
        return []
    stones = _stones_read(fields)
    return [k for k in spots if k[1] in stones]


def _subsets(diff: Sequence[FieldKey], limit: int, repeated: Collection[FieldKey] = ()) -> Iterable[tuple[FieldKey, ...]]:
    """The sets of fields a new frame reads otherwise that a hypothesis takes as changed (the rest
    are that frame's misreads): every subset of a few; of many, none, all, all but one, each alone —
    and, when the many are a few besides misreads read again as before (`repeated`), every subset of
    those few too (a misread that holds is likeliest still a misread: without these, a change made while
    older misreads hold was taken only whole, alone or with all but one field)."""
    if len(diff) <= limit:
        return itertools.chain.from_iterable(itertools.combinations(diff, r) for r in range(len(diff) + 1))
    alone = [(k,) for k in diff]
    but_one = [tuple(x for x in diff if x != k) for k in diff]
    out = [(), tuple(diff), *but_one, *alone]
    fresh = [k for k in diff if k not in repeated]
    if repeated and len(fresh) <= limit:
        seen = set(out)
        out += [taken for taken in _subsets(fresh, limit) if taken not in seen]
    return out
