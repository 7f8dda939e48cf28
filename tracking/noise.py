"""Injected misreads: what the camera pipeline gets wrong, to test that tracking survives it.

MisreadInjector wraps an observer (or corrupts a stream of observations by frame index) and makes
its readings look like the vision reader's: the kinds of misread, their relative frequencies and
how long they hold were measured on whole rendered games by bench/vision_games.py, which prints
the reader's misreads beside the injected ones kind by kind (see docs/tracking.md, "The noise
model"). One knob, `rate`, scales them all:
- a still table's frame (usable in truth) where kind k can happen (a pawn misread needs pawns on
  the board) gets a field misread of kind k with probability rate × MISREAD_MODEL[k].weight (the
  weights are fitted so that `rate` is about the share of still frames with a field misread).
  A share MISREAD_MODEL[k].held of them is decided once per table state
  (the same wrong reading on every frame of that still table, as a reader that sees the same
  picture makes the same mistake), the rest afresh on each frame;
- a still frame is judged unusable with probability rate × JUDGED_UNUSABLE_PER_RATE (with a hand
  read at a place where no one sits in a share of them);
- a frame with an arm over the table (unusable in truth) is read as a usable table with
  probability rate × ARM_USABLE_PER_RATE: the last still table, in ARM_AFTER_SHARE of them with
  part of the table the move leaves (where the next still table is known), misread (ARM_MISREADS);
- hand frames: the seat not read, read as a neighbouring seat, or read with a seat where no one
  sits besides (HAND_* below).
- (NoiseModel.confidence, session 21) a usable reading states confidences as the vision reader's do: each path
  stone and tile spot named among the unsure ones or not, with a share, by its class (a first-row stone with pawns
  misread is named at 0.35 most often, one read right at 0.977...), and each group's frame-wide confidence
  (with_confidences) — so the decoder's per-element prices are exercised as on the camera path;
- (NoiseModel.arm_repeat) an arm frame read as usable repeats the last reading, as the motion gate does;
- (NoiseModel.pawn_path_share) held pawn misreads fall on the start crowd and the first row, as the reader's do;
  (NoiseModel.pawn_place_odds, session 29) on each pawn by the odds of where it stands, as the reader's do.
The numbers are a NoiseModel; NOISE_MODELS names them: "s21" (the default, fitted on the camera path's readings in
session 21), "s29" (s21 with pawn_place_odds) and "s18" (the constants below, fitted in sessions 5 and 18: no
confidences, no gate, pawns alike).
The field kinds are those `field_misreads` tells apart (FIELD_KINDS): a row's first card missed,
a phantom wish stone, a pawn read on the next stone, a discard top missed or made up...
Deterministic: whether and how a frame is misread depends only on the seed, the frame index and
the truth read (for held misreads, the table's state), so the same seed and frames give the same
misreads and a replay resumed in the middle sees what an uninterrupted one saw (except an arm
frame read as usable, which shows the last still table this injector saw).
"""
from __future__ import annotations

import hashlib
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Hashable, Mapping

from engine.board import bundled_board
from engine.observation import TILE_CODES, WISH_COLOURS, Observation, PawnObservation
from .stability import field_default, observation_fields


@dataclass(frozen=True)
class MisreadKind:
    """How often a field misread of one kind comes, per unit of `rate`, and the share of it that holds
    for a whole still table."""

    weight: float
    held: float


#: The s18 model's numbers, as `bench/vision_games.py --fit` printed them for the vision reader on rendered
#: games (docs/tracking.md, "The noise model"): for each field kind, the share of the still frames
#: where it can happen that had such a misread, over the share of all still frames with any (the
#: weight), and the share that the next frame of the same still table repeats (held).
#: Then, per unit of rate: still frames judged unusable (and the share of them with a hand read
#: where no one sits), arm frames read as a usable table (and the share of those showing part of the
#: table the move leaves, and how often each field kind is misread on them), hand frames whose seat
#: is missed, read as a neighbouring seat, or read together with a seat where no one sits.
#: HELD_OVER_MOVES: of the held misreads, the share that a later table (a move made elsewhere) keeps.
# -- fitted: begin
# fitted on 321 still and 396 arm frames: field misreads on 61.5% of still frames read (the rate the model is scaled to)
# The tile kinds (tile-missed, tile-wrong, here and in ARM_MISREADS: open tiles only) and COVERED_TILE_*: fitted
# (session 18) on the readings the tracker got on 15 vision replays (`bench/vision_retrack.py misreads ... --fit`:
# the demo and 14 games, docs/tracking.md): 1104 still and 1422 arm frames, field misreads on 90.0% of still frames.
# COVERED_TILE_PER_RATE: of the stays (a tile under pawns as they stand) the share misread, per unit of rate;
# COVERED_TILE_TABLES: of a misread stay's still tables, the share misread; COVERED_TILE_NONE: of misread stays,
# the share read as no tile.
MISREAD_MODEL: dict[str, MisreadKind] = {
    "row-missed": MisreadKind(0.044, 0.67),
    "row-value": MisreadKind(0.022, 0.33),
    "row-extra": MisreadKind(0.117, 0.82),
    "points-row": MisreadKind(0.363, 1.00),
    "wish-phantom": MisreadKind(0.093, 0.80),
    "pawn-size": MisreadKind(0.185, 0.62),
    "pawn-stone": MisreadKind(0.640, 0.91),
    "pawn-colour": MisreadKind(0.123, 1.00),
    "pawn-missed": MisreadKind(0.123, 0.88),
    "pawn-phantom": MisreadKind(0.123, 0.88),
    "tile-missed": MisreadKind(0.013, 1.00),
    "tile-wrong": MisreadKind(0.167, 0.99),
    "top-missed": MisreadKind(0.031, 1.00),
    "top-phantom": MisreadKind(0.083, 1.00),
    "top-wrong": MisreadKind(0.010, 0.00),
}
COVERED_TILE_PER_RATE = 0.509
COVERED_TILE_TABLES = 0.70
COVERED_TILE_NONE = 0.09
HELD_OVER_MOVES = 0.73
JUDGED_UNUSABLE_PER_RATE = 0.035
JUDGED_UNUSABLE_PHANTOM_HAND = 1.00
ARM_USABLE_PER_RATE = 0.538
ARM_AFTER_SHARE = 0.29
ARM_MISREADS: dict[str, float] = {"row-end": 0.015, "row-missed": 0.061, "row-extra": 0.061,
    "points-row": 0.084, "wish-phantom": 0.023, "wishcard-missed": 0.008, "pawn-size": 0.084,
    "pawn-stone": 0.420, "pawn-colour": 0.099, "pawn-missed": 0.130, "pawn-phantom": 0.130,
    "tile-missed": 0.028, "tile-wrong": 0.184, "top-missed": 0.023, "top-phantom": 0.099, "top-wrong": 0.015}
HAND_MISSED_PER_RATE = 0.008
HAND_NEIGHBOUR_PER_RATE = 0.025
HAND_ADDED_PER_RATE = 0.029


@dataclass(frozen=True)
class ShareDraw:
    """How sure the reader says it is of one class of element (a first-row stone with pawns, read wrong...):
    the chance it is named among the unsure ones, and the shares it is then named with, (share, weight)."""

    named: float
    shares: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True)
class ConfidenceModel:
    """The confidences a reading states (FORMATS §2 `confidence` per group, and the `element_confidence`
    extension, docs/formats-extensions.md), as the vision reader states them beside what it reads right and wrong.

    elements: per "<group>:<class>:<right|wrong>" (pawns: a path stone, classes row1-occ, row1-empty, path-occ,
    path-empty — occupied in truth or reading; tiles: a spot, covered-tile, covered-empty, open-tile, open-empty),
    how it is named. others: the share stated for the elements not named, per group. group_steps: the group's
    frame-wide confidence from its least sure element's share, (share, group confidence) pairs, the nearest share
    taken. rows: the frame-wide confidence of rows (and wish stones/cards, points rows) per game, (value, weight)
    (the reader's is no sharper where it misreads them: drawn per table, whatever is misread)."""

    elements: Mapping[str, ShareDraw]
    others: Mapping[str, float]
    group_steps: Mapping[str, tuple[tuple[float, float], ...]]
    rows: Mapping[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class NoiseModel:
    """All of one noise model's numbers (the module docstring says what each does; NOISE_MODELS names the models).
    confidence: the confidences injected readings state (None: none, as before session 21). arm_repeat: of the arm
    frames read as usable, the share that repeat the last reading exactly, its misreads included (the camera
    path's motion gate repeats a reading until the next one; 0: an arm frame read as usable is misread afresh).
    pawn_path_share: of the held pawn misreads, the share on pawns out on the paths (the rest: the start crowd's
    and the first row's; None: every pawn alike, as before session 21).
    pawn_place_odds (session 29; set, it replaces pawn_path_share): a pawn's odds of being the one a held pawn
    misread hits, by where it stands — "start" (the start crowd), "row1" (a first-row stone), "path" (further
    on) — as the vision reader's per-pawn misread rates measure them (a first-row pawn ~3x a crowd pawn's): the
    frame's chance of a pawn misread stays rate x weight, only which pawn it hits follows the reader."""

    kinds: Mapping[str, MisreadKind]
    covered_per_rate: float
    covered_tables: float
    covered_none: float
    held_over_moves: float
    judged_unusable_per_rate: float
    judged_unusable_phantom_hand: float
    arm_usable_per_rate: float
    arm_after_share: float
    arm_misreads: Mapping[str, float]
    hand_missed_per_rate: float
    hand_neighbour_per_rate: float
    hand_added_per_rate: float
    confidence: ConfidenceModel | None = None
    arm_repeat: float = 0.0
    pawn_path_share: float | None = None
    pawn_place_odds: Mapping[str, float] | None = None


#: The model fitted in sessions 5 and 18 (the constants above): `--noise-model s18` keeps old figures reproducible.
S18_MODEL = NoiseModel(MISREAD_MODEL, COVERED_TILE_PER_RATE, COVERED_TILE_TABLES, COVERED_TILE_NONE, HELD_OVER_MOVES,
                       JUDGED_UNUSABLE_PER_RATE, JUDGED_UNUSABLE_PHANTOM_HAND, ARM_USABLE_PER_RATE, ARM_AFTER_SHARE,
                       ARM_MISREADS, HAND_MISSED_PER_RATE, HAND_NEIGHBOUR_PER_RATE, HAND_ADDED_PER_RATE)
# Session 21: `bench/vision_retrack.py misreads SESSION... --fit` on the readings the tracker got (behind the motion
# gate) on session 20's 16 kept vision replays (/tmp/s20: the demo, games 82570-82575, 82580-82588; docs/tracking.md,
# "Session 21"). Their `held` is near 1: a gated reading repeats until the next one.
# fitted on 1120 still and 1468 arm frames: field misreads on 73.4% of still frames read (the rate the model is
# scaled to)
S21_MODEL = NoiseModel(
    kinds={
        "row-missed": MisreadKind(0.010, 1.00),
        "row-value": MisreadKind(0.034, 1.00),
        "row-extra": MisreadKind(0.102, 0.98),
        "points-row": MisreadKind(0.091, 1.00),
        "wishcard-missed": MisreadKind(0.022, 1.00),
        "pawn-size": MisreadKind(0.223, 0.98),
        "pawn-stone": MisreadKind(0.968, 0.99),
        "pawn-colour": MisreadKind(0.060, 1.00),
        "pawn-missed": MisreadKind(0.162, 1.00),
        "pawn-phantom": MisreadKind(0.162, 1.00),
        "tile-wrong": MisreadKind(0.191, 0.98),
        "top-missed": MisreadKind(0.152, 1.00),
        "top-wrong": MisreadKind(0.039, 0.92),
    },
    covered_per_rate=0.878,
    covered_tables=0.71,
    covered_none=0.00,
    held_over_moves=0.70,
    judged_unusable_per_rate=0.084,
    judged_unusable_phantom_hand=0.72,
    arm_usable_per_rate=0.446,
    arm_after_share=0.33,
    arm_misreads={"row-missed": 0.029, "row-value": 0.037, "row-extra": 0.085, "points-row": 0.015,
                  "wishcard-missed": 0.008, "pawn-size": 0.121, "pawn-stone": 0.588, "pawn-colour": 0.037,
                  "pawn-missed": 0.100, "pawn-phantom": 0.100, "tile-missed": 0.019, "tile-wrong": 0.129,
                  "top-missed": 0.140, "top-phantom": 0.002, "top-wrong": 0.023},
    hand_missed_per_rate=0.000,
    hand_neighbour_per_rate=0.059,
    hand_added_per_rate=0.012,
    confidence=ConfidenceModel(
        elements={
            "pawns:path-occ:right": ShareDraw(0.431, ((0.45, 0.49), (0.65, 0.51))),   # 2077
            "pawns:path-occ:wrong": ShareDraw(0.548, ((0.45, 0.41), (0.65, 0.59))),   # 312
            "pawns:row1-empty:right": ShareDraw(1.000, ((0.35, 0.04), (0.55, 0.09), (0.977, 0.87))),   # 1209
            "pawns:row1-occ:right": ShareDraw(1.000, ((0.35, 0.17), (0.55, 0.25), (0.977, 0.58))),   # 1573
            "pawns:row1-occ:wrong": ShareDraw(1.000, ((0.35, 0.76), (0.55, 0.23), (0.977, 0.01))),   # 791
            "tiles:covered-empty:right": ShareDraw(0.265, ((0.55, 0.47), (0.95, 0.53))),   # 502
            "tiles:covered-tile:right": ShareDraw(1.000, ((0.55, 0.99),)),   # 1244
            "tiles:covered-tile:wrong": ShareDraw(1.000, ((0.55, 1.00),)),   # 807
            "tiles:open-empty:right": ShareDraw(0.000, ()),   # 241
            "tiles:open-tile:right": ShareDraw(0.078, ((0.55, 0.62), (0.95, 0.38))),   # 16145
            "tiles:open-tile:wrong": ShareDraw(0.890, ((0.55, 0.78), (0.95, 0.22))),   # 200
        },
        others={"pawns": 0.997, "tiles": 0.998},
        group_steps={
            "pawns": ((0.35, 0.3), (0.45, 0.3), (0.55, 0.5), (0.65, 0.6), (0.977, 1)),
            "tiles": ((0.55, 0.3), (0.95, 1), (0.998, 1))},
        rows={
            "keltis": ((0.3, 0.13), (0.5, 0.18), (0.55, 0.07), (0.6, 0.04), (0.95, 0.04), (1, 0.46)),
            "keltis-card": ((0.4, 0.03), (0.8, 0.04), (0.9, 0.06), (0.95, 0.13), (1, 0.74))}),
    arm_repeat=0.46,
    pawn_path_share=0.046)
# -- fitted: end
#: Session 29: s21 with its held pawn misreads falling on the pawns the vision reader misreads (pawn_place_odds).
#: Measured on the kept camera-path readings of the 64 dev board games (`bench/vision_retrack.py misreads
#: SESSIONS`, "pawns misread per pawn by place"; docs/tracking.md, "Session 29 (wt29-games)"): per pawn and still
#: frame read, start crowd 6.4 % (2636/41261), first row 19.4 % (1985/10232), path 7.9 % (152/1927) — alike on
#: NWNZ and the base board and whatever the crowd on the stone — where s21 (pawn_path_share) spreads them evenly
#: over the start crowd and the first row (10.1 % / 10.5 % / 1.7 % per pawn injected at the camera's rate, 0.8).
S29_MODEL = replace(S21_MODEL, pawn_path_share=None, pawn_place_odds={"start": 1.0, "row1": 3.0, "path": 1.2})
#: The noise models by name (`replay --noise-model`, the benches' --noise-model): s18 the model of sessions 5 and
#: 18 (no confidences, no gate), s21 the one fitted on session 20's kept camera-path readings (S21_MODEL), s29 s21
#: with its pawn misreads placed as the reader's (S29_MODEL).
NOISE_MODELS: dict[str, NoiseModel] = {"s18": S18_MODEL, "s21": S21_MODEL, "s29": S29_MODEL}
DEFAULT_NOISE_MODEL = "s21"


def noise_model_named(name: str | NoiseModel | None) -> NoiseModel:
    """The noise model `name` names (None: the default; a NoiseModel as it is)."""
    if isinstance(name, NoiseModel):
        return name
    key = DEFAULT_NOISE_MODEL if name is None else name
    if key not in NOISE_MODELS:
        raise ValueError(f"unknown noise model {name!r} (known: {', '.join(sorted(NOISE_MODELS))})")
    return NOISE_MODELS[key]


_PLAYERS = ("black", "white", "grey", "brown")
#: Seats around the table, clockwise (south, west, north, east): each seat's neighbours are beside it.
_AROUND = ("south", "west", "north", "east")


def neighbour_seat(seat: str, side: int) -> str:
    """The seat beside `seat` around the table (side -1 or +1); an unknown seat stays as it is."""
    if seat not in _AROUND:
        return seat
    return _AROUND[(_AROUND.index(seat) + side) % len(_AROUND)]


def misread_hands(obs: Observation, mode: str, side: int, added: str | None = None) -> Observation:
    """The frame's hands with their seats not read (mode "drop"), read as the neighbour ("neighbour"),
    or with a hand at seat `added` read too ("added")."""
    hands = obs.extra.get("hands")
    if not isinstance(hands, list) or not hands:
        return obs
    if mode == "drop":
        new: list = []
    elif mode == "added":
        new = [*hands, {"seat": added or neighbour_seat(str(hands[0].get("seat")), side)}]
    else:
        new = [dict(h, seat=neighbour_seat(h["seat"], side)) if isinstance(h, dict) and isinstance(h.get("seat"), str)
               else h for h in hands]
    return replace(obs, extra={**obs.extra, "hands": new})


# -- one misread of each kind (truth in, misread copy out; None when the table has nothing to misread) --

def _flip_code(code: str, rng: random.Random) -> str:
    if code == "E":
        return str(rng.randint(0, 10))
    prefix, body = ("P", code[1:]) if code.startswith("P") else ("", code)
    value = int(body)
    choices = [v for v in range(11) if v != value]
    return prefix + str(rng.choice(choices))


def _with_seat(obs: Observation, seat: str, **changes: Any) -> Observation:
    return replace(obs, seats={**obs.seats, seat: replace(obs.seats[seat], **changes)})


def _rows(obs: Observation, min_len: int) -> list[tuple[str, str]]:
    return [(seat, colour) for seat, s in obs.seats.items() for colour, row in s.rows.items() if len(row) >= min_len]


def _with_row(obs: Observation, seat: str, colour: str, row: tuple[str, ...]) -> Observation:
    rows = {**obs.seats[seat].rows, colour: row}
    if not row:
        del rows[colour]
    return _with_seat(obs, seat, rows=rows)


def misread_row(obs: Observation, rng: random.Random, how: str) -> Observation | None:
    """One card row misread: its first card(s) missed ("start"), its last ("end"), the whole row
    ("missed"), one card's value ("value"), or a card more at its end ("extra")."""
    spots = _rows(obs, 2 if how in ("start", "end") else 1)
    if not spots:
        return None
    seat, colour = rng.choice(spots)
    row = obs.seats[seat].rows[colour]
    if how == "start":
        new = row[rng.randint(1, len(row) - 1):]
    elif how == "end":
        new = row[:-1]
    elif how == "missed":
        new = ()
    elif how == "value":
        i = rng.randrange(len(row))
        new = row[:i] + (_flip_code(row[i], rng),) + row[i + 1:]
    else:
        new = row + (str(rng.randint(0, 10)),)
    return _with_row(obs, seat, colour, tuple(new))


def misread_card(obs: Observation, rng: random.Random) -> Observation | None:
    """One card of one row (or a discard top) read with another value; None if there is no card."""
    spots: list[tuple[str, str, int]] = [(seat, colour, i) for seat, s in obs.seats.items()
                                         for colour, row in s.rows.items() for i in range(len(row))]
    tops = [pile for pile, code in obs.discard_tops.items() if code is not None]
    if not spots and not tops:
        return None
    if tops and (not spots or rng.random() < 0.2):
        pile = rng.choice(tops)
        return replace(obs, discard_tops={**obs.discard_tops, pile: _flip_code(obs.discard_tops[pile], rng)})
    seat, colour, i = rng.choice(spots)
    row = list(obs.seats[seat].rows[colour])
    row[i] = _flip_code(row[i], rng)
    return _with_row(obs, seat, colour, tuple(row))


def misread_points_row(obs: Observation, rng: random.Random) -> Observation | None:
    """One seat's points row (card game) read one card longer or shorter."""
    if not obs.seats or obs.game != "keltis-card":
        return None
    seat = rng.choice(sorted(obs.seats))
    n = obs.seats[seat].points_row
    return _with_seat(obs, seat, points_row=n + 1 if n == 0 or rng.random() < 0.5 else n - 1)


def misread_wish(obs: Observation, rng: random.Random, how: str) -> Observation | None:
    """A seat's wish stones: one missed, one made up (a stone or a wish-coloured thing seen at a
    seat), or one read with another colour."""
    if obs.game == "keltis-card":     # (its wishes are cards: misread_wish_card)
        return None
    have = [(seat, c) for seat, s in obs.seats.items() for c, n in s.wish.items() if n]
    if how == "phantom":
        if not obs.seats:
            return None
        seat, colour = rng.choice(sorted(obs.seats)), rng.choice(WISH_COLOURS[:-1])
        wish = dict(obs.seats[seat].wish)
        wish[colour] = wish.get(colour, 0) + 1
        return _with_seat(obs, seat, wish=wish)
    if not have:
        return None
    seat, colour = rng.choice(have)
    wish = dict(obs.seats[seat].wish)
    wish[colour] -= 1
    if how == "wrong":
        other = rng.choice([c for c in WISH_COLOURS[:-1] if c != colour])
        wish[other] = wish.get(other, 0) + 1
    return _with_seat(obs, seat, wish={c: n for c, n in wish.items() if n})


def misread_wish_card(obs: Observation, rng: random.Random, how: str) -> Observation | None:
    """A seat's wish cards (card game): one missed, one made up, or one read with another value."""
    have = [(seat, i) for seat, s in obs.seats.items() for i in range(len(s.wish_cards))]
    if how == "phantom":
        if not obs.seats or obs.game != "keltis-card":
            return None
        seat = rng.choice(sorted(obs.seats))
        return _with_seat(obs, seat, wish_cards=tuple(sorted(obs.seats[seat].wish_cards + (rng.randint(1, 9),))))
    if not have:
        return None
    seat, i = rng.choice(have)
    cards = list(obs.seats[seat].wish_cards)
    if how == "missed":
        del cards[i]
    else:
        cards[i] = rng.choice([v for v in range(1, 10) if v != cards[i]])
    return _with_seat(obs, seat, wish_cards=tuple(sorted(cards)))


def _near_stone(stone: str, rng: random.Random, board: str | None) -> str:
    """A stone next to `stone` on the board (one step on or back along its path; from the start, a
    path's first stone) — where a reader puts a pawn it sees on the wrong stone."""
    try:
        stones = bundled_board(board).stones if board else {}
    except (OSError, ValueError):
        stones = {}
    if stone in stones:
        near = sorted(set(stones[stone].next) | {s.id for s in stones.values() if stone in s.next})
        if near:
            return rng.choice(near)
    if stone == "start" or len(stone) < 2 or not stone[1:].isdigit():
        return rng.choice("abcdefghi") + "1"
    step = int(stone[1:]) + rng.choice((-1, 1))
    return "start" if step < 1 else f"{stone[0]}{step}"


def misread_pawn(obs: Observation, rng: random.Random, how: str) -> Observation | None:
    """One pawn misread: its size ("size"), its stone (the next one on its path, "stone"), its
    colour ("colour": another player's at the table), missed ("missed"), or seen twice ("phantom":
    once more on the next stone)."""
    if not obs.pawns:
        return None
    pawns = list(obs.pawns)
    i = rng.randrange(len(pawns))
    p = pawns[i]
    if how == "size":
        pawns[i] = PawnObservation(p.stone, p.player, not p.big)
    elif how == "stone":
        pawns[i] = PawnObservation(_near_stone(p.stone, rng, obs.board), p.player, p.big)
    elif how == "colour":
        at_table = [s.player for s in obs.seats.values()]
        others = [q for q in (at_table if len(at_table) > 1 else _PLAYERS) if q != p.player]
        pawns[i] = PawnObservation(p.stone, rng.choice(others), p.big)
    elif how == "missed":
        del pawns[i]
    else:
        pawns.append(PawnObservation(_near_stone(p.stone, rng, obs.board), p.player, p.big))
    return replace(obs, pawns=tuple(pawns))


def misread_player(obs: Observation, rng: random.Random) -> Observation | None:
    """One pawn read as another player's colour (one of the players at the table if possible)."""
    return misread_pawn(obs, rng, "colour")


def _tile_codes(board: str | None) -> list[str]:
    """The tiles the board has (a reader trained on a board reads only those), else every tile code."""
    try:
        return sorted(bundled_board(board).tile_set) if board else list(TILE_CODES)
    except (OSError, ValueError):
        return list(TILE_CODES)


def covered_spots(obs: Observation) -> dict[str, tuple[tuple[str, bool], ...]]:
    """The stones pawns stand on (but the start), each with its pawns (player, big): where a tile lies under a pawn."""
    out: dict[str, list[tuple[str, bool]]] = {}
    for p in obs.pawns or ():
        if p.stone != "start":
            out.setdefault(p.stone, []).append((p.player, p.big))
    return {stone: tuple(sorted(pawns)) for stone, pawns in out.items()}


def misread_tile(obs: Observation, rng: random.Random, how: str = "missed") -> Observation | None:
    """One tile spot misread: a tile missed (read empty) or read as another kind (most often one seen
    elsewhere on the board) where no pawn stands on it (a tile under a pawn is misread otherwise:
    MisreadInjector._covered_tiles), or a tile made up on an empty spot (not injected: never measured)."""
    tiles = obs.tiles or {}
    covered = covered_spots(obs)
    present = sorted(spot for spot, code in tiles.items() if code is not None and spot not in covered)
    if how == "phantom":
        empty = sorted(spot for spot, code in tiles.items() if code is None)
        if not empty:
            return None
        return replace(obs, tiles={**tiles, rng.choice(empty): rng.choice(_tile_codes(obs.board))})
    if not present:
        return None
    spot = rng.choice(present)
    if how == "missed":
        return replace(obs, tiles={**tiles, spot: None})  # type: ignore[dict-item]
    codes = sorted({c for c in tiles.values() if c is not None and c != tiles[spot]}) or \
        [c for c in _tile_codes(obs.board) if c != tiles[spot]]
    return replace(obs, tiles={**tiles, spot: rng.choice(codes)})


def misread_top(obs: Observation, rng: random.Random, how: str) -> Observation | None:
    """One discard pile's top card: missed (read empty), made up on an empty pile, or read with
    another value."""
    tops = obs.discard_tops
    if how == "phantom":
        empty = sorted(p for p, c in tops.items() if c is None)
        if not empty:
            return None
        return replace(obs, discard_tops={**tops, rng.choice(empty): str(rng.randint(0, 10))})
    have = sorted(p for p, c in tops.items() if c is not None)
    if not have:
        return None
    pile = rng.choice(have)
    return replace(obs, discard_tops={**tops, pile: None if how == "missed" else _flip_code(tops[pile], rng)})


def unusable(obs: Observation, rng: random.Random, seat: str | None = None) -> Observation:
    """The frame could not be read at all (a hand read at `seat`, if given)."""
    extra = {"hands": [{"seat": seat}]} if seat else {}
    return Observation(obs.game, obs.board, False, "occluded" if seat else "motion", extra=extra)


def mix_tables(before: Observation, after: Observation, rng: random.Random) -> Observation:
    """The table half-way through a move: each part the move changes (a player's pawns, a tile spot,
    a discard pile, a seat's row, wish stones, wish cards, points row) as before or as after, at
    least one as after — what a reader makes of a frame taken while the arm puts things down."""
    changes: list[Callable[[Observation], Observation]] = []
    by_player = lambda o: {p.player for p in o.pawns or ()}   # noqa: E731
    for player in sorted(by_player(before) | by_player(after)):
        if sorted((p.stone, p.big) for p in before.pawns or () if p.player == player) != \
                sorted((p.stone, p.big) for p in after.pawns or () if p.player == player):
            changes.append(lambda o, q=player: replace(o, pawns=tuple(
                [p for p in o.pawns or () if p.player != q] + [p for p in after.pawns or () if p.player == q])))
    for spot in sorted(set(before.tiles or {}) | set(after.tiles or {})):
        if (before.tiles or {}).get(spot) != (after.tiles or {}).get(spot):
            changes.append(lambda o, s=spot: replace(o, tiles={**(o.tiles or {}), s: (after.tiles or {}).get(s)}))
    for pile in sorted(set(before.discard_tops) | set(after.discard_tops)):
        if before.discard_tops.get(pile) != after.discard_tops.get(pile):
            changes.append(lambda o, p=pile: replace(o, discard_tops={**o.discard_tops, p: after.discard_tops.get(p)}))
    for seat in sorted(set(before.seats) & set(after.seats)):
        b, a = before.seats[seat], after.seats[seat]
        for colour in sorted(set(b.rows) | set(a.rows)):
            if b.rows.get(colour) != a.rows.get(colour):
                changes.append(lambda o, s=seat, c=colour: _with_row(o, s, c, after.seats[s].rows.get(c, ())))
        for name in ("wish", "wish_cards", "points_row"):
            if getattr(b, name) != getattr(a, name):
                changes.append(lambda o, s=seat, n=name: _with_seat(o, s, **{n: getattr(after.seats[s], n)}))
    if not changes:
        return before
    take = [c for c in changes if rng.random() < 0.5] or [rng.choice(changes)]
    out = before
    for change in take:
        out = change(out)
    return out


#: The misread of each field kind (FIELD_KINDS; "seat-player" and "game" are not injected).
MISREADS: dict[str, Callable[[Observation, random.Random], Observation | None]] = {
    "row-start": lambda o, r: misread_row(o, r, "start"), "row-end": lambda o, r: misread_row(o, r, "end"),
    "row-missed": lambda o, r: misread_row(o, r, "missed"), "row-value": lambda o, r: misread_row(o, r, "value"),
    "row-extra": lambda o, r: misread_row(o, r, "extra"), "points-row": misread_points_row,
    "wish-missed": lambda o, r: misread_wish(o, r, "missed"),
    "wish-phantom": lambda o, r: misread_wish(o, r, "phantom"),
    "wish-wrong": lambda o, r: misread_wish(o, r, "wrong"),
    "wishcard-missed": lambda o, r: misread_wish_card(o, r, "missed"),
    "wishcard-phantom": lambda o, r: misread_wish_card(o, r, "phantom"),
    "wishcard-wrong": lambda o, r: misread_wish_card(o, r, "wrong"),
    "pawn-size": lambda o, r: misread_pawn(o, r, "size"), "pawn-stone": lambda o, r: misread_pawn(o, r, "stone"),
    "pawn-colour": lambda o, r: misread_pawn(o, r, "colour"), "pawn-missed": lambda o, r: misread_pawn(o, r, "missed"),
    "pawn-phantom": lambda o, r: misread_pawn(o, r, "phantom"),
    "tile-missed": lambda o, r: misread_tile(o, r, "missed"),
    "tile-phantom": lambda o, r: misread_tile(o, r, "phantom"),
    "tile-wrong": lambda o, r: misread_tile(o, r, "wrong"),
    "top-missed": lambda o, r: misread_top(o, r, "missed"), "top-phantom": lambda o, r: misread_top(o, r, "phantom"),
    "top-wrong": lambda o, r: misread_top(o, r, "wrong"),
}


Merge = Callable[[Observation, Observation], Observation]


def _swap_pawn(obs: Observation, pawn: PawnObservation, new: tuple[PawnObservation, ...]) -> Observation:
    pawns = list(obs.pawns or ())
    if pawn in pawns:
        pawns.remove(pawn)
    return replace(obs, pawns=tuple(pawns) + tuple(new))


def _target_class(kind: str) -> tuple[str, bool]:
    """What a misread of `kind` hits (misread_targets gives kinds of one class the same targets):
    pawns, tiles, discard tops, rows or seats, and whether empty spots and piles rather than full ones."""
    group = kind.split("-")[0]
    return (group if group in ("pawn", "tile", "top", "row") else "seat"), kind in ("tile-phantom", "top-phantom")


def misread_targets(kind: str, obs: Observation) -> list[tuple[str, Callable[[], Observation], Merge]]:
    """The things a misread of `kind` can hit, each as (a key naming it and its content, a function
    giving the table with only that thing on it, how to put that thing's misreading back into a
    table). The part is made only when asked for: most targets are never misread."""
    group, phantom = _target_class(kind)
    out: list[tuple[str, Callable[[], Observation], Merge]] = []
    if group == "pawn":
        seen: Counter = Counter()
        for p in obs.pawns or ():
            seen[p] += 1
            out.append((f"{p.player}:{p.stone}:{p.big}:{seen[p]}", lambda p=p: replace(obs, pawns=(p,)),
                        lambda o, w, p=p: _swap_pawn(o, p, w.pawns or ())))
    elif group == "tile":
        covered = covered_spots(obs)    # (a tile under a pawn: MisreadInjector._covered_tiles)
        for spot, code in sorted((obs.tiles or {}).items()):
            if (code is None) == phantom and (phantom or spot not in covered):
                out.append((f"{spot}:{code}", lambda spot=spot, code=code: replace(obs, tiles={spot: code}),
                            lambda o, w: replace(o, tiles={**(o.tiles or {}), **(w.tiles or {})})))
    elif group == "top":
        for pile, code in sorted(obs.discard_tops.items()):
            if (code is None) == phantom:
                out.append((f"{pile}:{code}", lambda pile=pile, code=code: replace(obs, discard_tops={pile: code}),
                            lambda o, w: replace(o, discard_tops={**o.discard_tops, **w.discard_tops})))
    elif group == "row":
        for seat, s in sorted(obs.seats.items()):
            for colour, row in sorted(s.rows.items()):
                out.append((f"{seat}:{colour}:{row}",
                            lambda seat=seat, s=s, colour=colour, row=row: replace(
                                obs, seats={seat: replace(s, rows={colour: row})}),
                            lambda o, w, seat=seat, colour=colour: _with_row(
                                o, seat, colour, tuple(w.seats[seat].rows.get(colour, ())))))
    else:   # points-row, wish-…, wishcard-…: one seat's
        for seat, s in sorted(obs.seats.items()):
            out.append((f"{seat}:{s.points_row}:{sorted(s.wish.items())}:{s.wish_cards}",
                        lambda seat=seat, s=s: replace(obs, seats={seat: s}),
                        lambda o, w, seat=seat: replace(o, seats={**o.seats, seat: w.seats[seat]})))
    return out


def _pawn_place(stone: str, first_row: frozenset[str]) -> str:
    """Where a pawn stands, as NoiseModel.pawn_place_odds tells places apart: start, row1 or path."""
    return "start" if stone == "start" else "row1" if stone in first_row else "path"


@lru_cache(maxsize=8)
def _first_row(board: str) -> frozenset[str]:
    """The board's first-row stones (the reader is least sure of them: the start crowd lies beside them)."""
    try:
        return frozenset(sid for sid, st in bundled_board(board).stones.items() if st.row == 1)
    except (OSError, ValueError):
        return frozenset()


def element_classes(truth: Observation, read: Observation) -> dict[str, dict[str, str]]:
    """Each path stone and tile spot the reader states a share for, by group ("pawns": stone → class, "tiles":
    spot → class), its class as ConfidenceModel.elements names it ("<group>:<class>:<right|wrong>"); an empty path
    stone read empty is left out (the reader all but never names one: 10 of 38 298 in session 21's readings)."""
    out: dict[str, dict[str, str]] = {"pawns": {}, "tiles": {}}
    if truth.game != "keltis" or not truth.board:
        return out
    first = _first_row(truth.board)
    want, got = covered_spots(truth), covered_spots(read)
    for sid in sorted(first | set(want) | set(got)):
        where = "row1" if sid in first else "path"
        occ = "occ" if sid in want or sid in got else "empty"
        out["pawns"][sid] = f"pawns:{where}-{occ}:{'right' if want.get(sid) == got.get(sid) else 'wrong'}"
    covered = covered_spots(truth)
    read_tiles = read.tiles or {}
    for spot, code in sorted((truth.tiles or {}).items()):
        cls = f"{'covered' if spot in covered else 'open'}-{'tile' if code is not None else 'empty'}"
        out["tiles"][spot] = f"tiles:{cls}:{'right' if read_tiles.get(spot) == code else 'wrong'}"
    return out


def _pick(pairs: tuple[tuple[float, float], ...], u: float) -> float:
    """The value whose weight band holds u (pairs of value, weight; weights need not sum to 1)."""
    total = sum(w for _v, w in pairs)
    for value, w in pairs:
        u -= w / total
        if u < 0:
            return value
    return pairs[-1][0]


def _step(steps: tuple[tuple[float, float], ...], share: float) -> float:
    """The group confidence of the step whose share is nearest `share`."""
    return min(steps, key=lambda st: abs(st[0] - share))[1]


def with_confidences(truth: Observation, read: Observation, model: ConfidenceModel,
                     draws: Callable[..., tuple[float, float]], table: str = "") -> Observation:
    """`read` (a usable reading of `truth`) stating confidences as the vision reader does (ConfidenceModel): each
    stone and spot named with a share or not, by its class, misread or read right; the groups' frame-wide
    confidences from their least sure element. draws(*key) gives two numbers from 0 to 1, the same for the same key:
    an element keeps its share while the table (`table`: its table_key) and the element's reading stay as they are
    (the reader sees the same picture; the gate repeats its reading)."""
    element: dict[str, Any] = {}
    confidence: dict[str, float] = {}
    classes = element_classes(truth, read)
    want, got = covered_spots(truth), covered_spots(read)
    for group, unit in (("pawns", "stones"), ("tiles", "spots")):
        if group not in model.others or (group == "pawns" and read.pawns is None) or \
                (group == "tiles" and read.tiles is None) or truth.game != "keltis":
            continue
        named: dict[str, float] = {}
        for eid, cls in classes[group].items():
            how = model.elements.get(cls)
            if how is None or not how.named or not how.shares:
                continue
            what = (want.get(eid), got.get(eid)) if group == "pawns" else \
                ((truth.tiles or {}).get(eid), (read.tiles or {}).get(eid))
            u, v = draws("confidence", group, eid, table, *what)
            if u < how.named:
                named[eid] = _pick(how.shares, v)
        others = model.others[group]
        element[group] = {"others": others, unit: {e: c for e, c in named.items() if c < others}}
        steps = model.group_steps.get(group)
        if steps:
            confidence[group] = _step(steps, min([others, *named.values()]))
    rows = model.rows.get(truth.game)
    if rows:
        key = repr(sorted((seat, sorted(s.rows.items()), s.points_row) for seat, s in truth.seats.items()))
        confidence["rows"] = _pick(rows, draws("confidence", "rows", table, key)[0])
    if not element and not confidence:
        return read
    extra = {**read.extra, "element_confidence": element} if element else read.extra
    return replace(read, confidence={**read.confidence, **confidence}, extra=extra)


def table_key(obs: Observation) -> str:
    """A short fingerprint of the table an observation shows (the same table, the same key)."""
    fields = sorted(observation_fields(obs).items(), key=repr)
    return hashlib.sha1(repr(fields).encode()).hexdigest()[:16]


class MisreadInjector:
    """An observer wrapper that injects misreads like the vision reader's (module docstring)."""

    def __init__(self, observer: Any, rate: float, seed: int = 0, model: dict[str, MisreadKind] | None = None,
                 covered_per_rate: float | None = None, noise_model: str | NoiseModel | None = None,
                 confidence: bool | None = None):
        if not 0 <= rate <= 1:
            raise ValueError(f"misread rate must be between 0 and 1, got {rate!r}")
        self.observer = observer
        self.name = getattr(observer, "name", "observer")
        self.rate = rate
        self.seed = seed
        #: the model's numbers (NOISE_MODELS; `model`, `covered_per_rate` change its kinds and its covered tiles'
        #: share; confidence=False states no confidences, True those of the default model if it has none)
        self.noise = noise_model_named(noise_model)
        if confidence is False:
            self.noise = replace(self.noise, confidence=None)
        elif confidence and self.noise.confidence is None:
            self.noise = replace(self.noise, confidence=NOISE_MODELS[DEFAULT_NOISE_MODEL].confidence)
        self.model = dict(self.noise.kinds if model is None else model)
        #: tiles under pawns: the share of stays misread per unit of rate (the noise model's unless given)
        self.covered_per_rate = self.noise.covered_per_rate if covered_per_rate is None else covered_per_rate
        self._last_reading: Observation | None = None     # the last usable reading given (arm_repeat)
        self._key_of: tuple[Observation | None, str] = (None, "")   # _table_key's memo
        self.frames = 0
        self.frames_misread = 0
        self.misreads: Counter = Counter()      # frames with a misread of each kind
        self.hand_frames = 0
        self.hand_misreads: dict[str, int] = {"drop": 0, "neighbour": 0, "added": 0}
        self._last_table: Observation | None = None
        self._seats: tuple[str, ...] = ()
        self._draws: dict[tuple[Any, ...], tuple[float, float]] = {}    # _chance_draws' memo
        #: the last table misread, its targets by class and its table_key (a still table comes as the
        #: same observation frame after frame)
        self._targets: tuple[Observation | None, dict[tuple[str, bool], list], list[str]] = (None, {}, [])

    def observe(self, frame: Any) -> Observation:
        """The wrapped observer's reading of `frame`, sometimes misread."""
        index = int(frame.index)
        return self.corrupt(self.observer.observe(frame), index, lambda: self._next_still(index))

    def _next_still(self, index: int) -> Observation | None:
        """The next still table after frame `index` when the wrapped observer is a recorded
        session's truth (the truth observer can read ahead; a camera cannot, nor is it needed)."""
        session = getattr(self.observer, "session", None)
        if getattr(self.observer, "name", None) != "truth" or session is None:
            return None
        from types import SimpleNamespace

        for ref in session.frames:
            if ref.index > index:
                obs = self.observer.observe(SimpleNamespace(index=ref.index, timestamp=ref.t))
                if obs.usable:
                    return obs
        return None

    def _chance_name(self, *key: Any) -> str:
        return ":".join(map(str, ("misread", self.seed, *key)))

    def _chance(self, *key: Any, skip: int = 0) -> random.Random:
        """The random numbers of `key` (the same key, the same numbers), the first `skip` of them used."""
        rng = random.Random(self._chance_name(*key))
        for _ in range(skip):
            rng.random()
        return rng

    def _chance_draws(self, *key: Any) -> tuple[float, float]:
        """The first two numbers _chance(*key) gives, remembered: a held misread's key comes back on
        every frame its thing stays as it is, and seeding a generator costs far more than a lookup."""
        draws = self._draws.get(key)
        if draws is None:
            if len(self._draws) >= 500_000:     # (a bound for very long streams; only speed is lost)
                self._draws.clear()
            rng = random.Random(self._chance_name(*key))
            draws = self._draws[key] = (rng.random(), rng.random())
        return draws

    def corrupt(self, obs: Observation, index: int,
                next_still: Callable[[], Observation | None] | None = None) -> Observation:
        """Frame `index`'s observation as the misreads make it. `next_still` gives the table the move
        under way leaves (the next usable truth) where it is known: an arm frame read as usable then
        shows part of it now and then (ARM_AFTER_SHARE); without it, the last still table."""
        self.frames += 1
        if not self.rate:
            return obs
        if not obs.usable:
            return self._corrupt_arm(obs, index, next_still)
        self._last_table = obs
        self._seats = tuple(obs.seats)
        rng = self._chance("judged-unusable", index)
        if rng.random() < self.rate * self.noise.judged_unusable_per_rate:
            self._count("judged-unusable")
            elsewhere = [s for s in _AROUND if s not in obs.seats]
            phantom = bool(elsewhere) and rng.random() < self.noise.judged_unusable_phantom_hand
            seat = rng.choice(elsewhere) if phantom else None
            return unusable(obs, rng, seat)
        out = self._covered_tiles(obs, self._field_misreads(obs, index, self.model, self.rate))
        if out is not obs:
            self.frames_misread += 1
        return self._stated(obs, out)

    def _stated(self, truth: Observation, out: Observation) -> Observation:
        """`out` (a usable reading of `truth`) with the confidences the model states, remembered for arm_repeat."""
        if self.noise.confidence is not None:
            out = with_confidences(truth, out, self.noise.confidence, self._chance_draws, self._table_key(truth))
        self._last_reading = out
        return out

    def _table_key(self, truth: Observation) -> str:
        """table_key(truth), remembered for the last table (a still table comes as the same observation frame after
        frame)."""
        if self._key_of[0] is not truth:
            self._key_of = (truth, table_key(truth))
        return self._key_of[1]

    def _field_misreads(self, obs: Observation, index: int, model: dict[str, MisreadKind],
                        rate: float) -> Observation:
        out = obs
        if self._targets[0] is not obs:
            self._targets = (obs, {}, [])
        targets_of, table_keys = self._targets[1:]     # (kinds of one class hit the same things)
        for kind, m in model.items():
            p = min(1.0, rate * m.weight)
            if not p or kind not in MISREADS:
                continue
            hit = False
            if m.held:
                # Held: decided per thing misread (this pawn on this stone, this row as it lies...): a
                # share HELD_OVER_MOVES of it stands as long as that thing does, through other moves,
                # the rest as long as the whole table stays as it is.
                targets = targets_of.get(_target_class(kind))
                if targets is None:
                    targets = targets_of[_target_class(kind)] = misread_targets(kind, obs)
                if targets:
                    for (key, make_part, merge), q in zip(targets, self._target_chances(kind, targets, p * m.held,
                                                                                         obs)):
                        # (as rng = _chance("held", kind, key); if rng.random() >= HELD_OVER_MOVES: rng =
                        # _chance("held", kind, key, table); if rng.random() < q: misread with rng —
                        # with the draws remembered and a generator made only for a misread)
                        chance: tuple[Any, ...] = ("held", kind, key)
                        first, second = self._chance_draws(*chance)
                        used, u = 2, second
                        if first >= self.noise.held_over_moves:
                            if not table_keys:
                                table_keys.append(table_key(obs))
                            chance = (*chance, table_keys[0])
                            used, u = 1, self._chance_draws(*chance)[0]
                        if u < q:
                            rng = self._chance(*chance, skip=used)
                            part = make_part()
                            wrong = MISREADS[kind](part, rng)
                            if wrong is not None and wrong != part:
                                out = merge(out, wrong)
                                hit = True
            fresh = p * (1 - m.held)
            if not hit and fresh > 0:    # (no fresh misread of a kind that always holds: no draw needed)
                rng = self._chance("fresh", kind, index)
                if rng.random() < fresh:
                    wrong = MISREADS[kind](out, rng)
                    hit = wrong is not None and wrong != out
                    out = wrong if hit else out
            if hit:
                self._count(kind)
        return out

    def _target_chances(self, kind: str, targets: list, p: float, obs: Observation) -> list[float]:
        """Each target's chance of a held misread of `kind`, so that one (or more) is misread with chance p: alike,
        but for pawns with pawn_path_share set: that share on the path's pawns, the rest on the start crowd's and
        the first row's (where the vision reader's pawn misreads are: 1 368 of 1 424 in session 21's readings)."""
        n = len(targets)
        even = 1.0 - (1.0 - p) ** (1.0 / n)
        odds = self.noise.pawn_place_odds
        if odds is not None and _target_class(kind)[0] == "pawn" and obs.board:
            # target i with chance 1 - (1 - p)^(w_i / sum w): one or more hit with chance p, each by its odds
            first = _first_row(obs.board)
            weights = [odds[_pawn_place(key.split(":")[1], first)] for key, _, _ in targets]
            total = sum(weights)
            return [1.0 - (1.0 - p) ** (w / total) if total else even for w in weights]
        share = self.noise.pawn_path_share
        if share is None or _target_class(kind)[0] != "pawn" or not obs.board:
            return [even] * n
        first = _first_row(obs.board)
        near = [key.split(":")[1] == "start" or key.split(":")[1] in first for key, _, _ in targets]
        k = sum(near)
        if k in (0, n):
            return [even] * n
        q_near = 1.0 - (1.0 - p * (1.0 - share)) ** (1.0 / k)
        q_far = 1.0 - (1.0 - p * share) ** (1.0 / (n - k))
        return [q_near if c else q_far for c in near]

    def _covered_tiles(self, table: Observation, out: Observation) -> Observation:
        """`out` (a reading of `table`) with the tiles under pawns misread: a stay (this tile under these pawns)
        is misread with chance rate × self.covered_per_rate, decided once for as long as the pawns stand; then on
        a share COVERED_TILE_TABLES of its still tables (decided per table), always read as the same other tile
        (or, COVERED_TILE_NONE of such stays, as none)."""
        p = min(1.0, self.rate * self.covered_per_rate)
        if not p or not table.tiles or not table.pawns:
            return out
        tiles: dict[str, str | None] | None = None
        key_of_table = None
        for spot, pawns in sorted(covered_spots(table).items()):
            code = table.tiles.get(spot)
            if code is None:
                continue
            stay = ("covered", spot, code, pawns)
            if self._chance_draws(*stay)[0] >= p:
                continue
            if key_of_table is None:
                key_of_table = table_key(table)
            if self._chance_draws(*stay, key_of_table)[0] >= self.noise.covered_tables:
                continue
            rng = self._chance(*stay, skip=2)
            # (read as a flat tile: the reader's covered misreads are clovers, points and discard tiles)
            others = [c for c in _tile_codes(table.board) if c != code]
            wrong = None if rng.random() < self.noise.covered_none else \
                rng.choice([c for c in others if not c.startswith("wish")] or others)
            tiles = dict(out.tiles or {}) if tiles is None else tiles
            tiles[spot] = wrong
        if tiles is None:
            return out
        self._count("tile-covered")
        return replace(out, tiles=tiles)

    def _count(self, kind: str) -> None:
        self.misreads[kind] += 1

    def _corrupt_arm(self, obs: Observation, index: int,
                     next_still: Callable[[], Observation | None] | None) -> Observation:
        """A frame with an arm over the table: read as a usable table now and then (the last still
        table, part of the next one), else its hands misread."""
        rng = self._chance("arm-usable", index)
        if self._last_table is not None and rng.random() < self.rate * self.noise.arm_usable_per_rate:
            self._count("arm-usable")
            self.frames_misread += 1
            if self._last_reading is not None and self.noise.arm_repeat and \
                    self._chance_draws("arm-repeat", index)[0] < self.noise.arm_repeat:
                return self._last_reading   # (the gate: the last reading again, its misreads and confidences)
            table = self._last_table
            if next_still is not None and rng.random() < self.noise.arm_after_share:
                after = next_still()
                if after is not None:
                    table = mix_tables(table, after, rng)
            model = {k: MisreadKind(p, 0.0) for k, p in self.noise.arm_misreads.items()}
            out = self._covered_tiles(table, self._field_misreads(table, index, model, 1.0))
            if self.noise.confidence is not None:
                out = with_confidences(table, out, self.noise.confidence, self._chance_draws, self._table_key(table))
            return out
        return self._corrupt_hands(obs, index) if obs.extra.get("hands") else obs

    def _corrupt_hands(self, obs: Observation, index: int) -> Observation:
        """A hand frame's seats as the misreads make them (decided by frame index, like corrupt)."""
        self.hand_frames += 1
        rng = self._chance("hand", index)
        u = rng.random()
        missed = self.rate * self.noise.hand_missed_per_rate
        neighbour = missed + self.rate * self.noise.hand_neighbour_per_rate
        added = neighbour + self.rate * self.noise.hand_added_per_rate
        side = rng.choice((-1, 1))
        if u < missed:
            mode = "drop"
        elif u < neighbour:
            mode = "neighbour"
        elif u < added:
            mode = "added"
        else:
            return obs
        self.hand_misreads[mode] += 1
        elsewhere = [s for s in _AROUND if s not in self._seats and s not in
                     {h.get("seat") for h in obs.extra.get("hands") or [] if isinstance(h, dict)}]
        return misread_hands(obs, mode, side, rng.choice(elsewhere) if elsewhere and mode == "added" else None)

    def stats(self) -> dict[str, Any]:
        """How many frames were seen and misread, and the misreads by kind."""
        return {"frames": self.frames, "misread_frames": self.frames_misread, "misreads": dict(self.misreads),
                "rate": self.rate, "hand_frames": self.hand_frames, "hand_misreads": dict(self.hand_misreads)}


# -- telling misreads apart (the vocabulary the injector and bench/vision_games.py share) ------------

#: Field misread kinds: how one reading of a still table differs from the truth, field by field.
FIELD_KINDS = ("row-start", "row-end", "row-missed", "row-value", "row-extra",
               "points-row", "wish-missed", "wish-phantom", "wish-wrong",
               "wishcard-missed", "wishcard-phantom", "wishcard-wrong",
               "pawn-size", "pawn-stone", "pawn-colour", "pawn-missed", "pawn-phantom",
               "tile-missed", "tile-phantom", "tile-wrong", "top-missed", "top-phantom", "top-wrong",
               "seat-player", "game")


def _absent_present_wrong(a: Any, b: Any, name: str) -> str:
    if not b:
        return f"{name}-missed"
    if not a:
        return f"{name}-phantom"
    return f"{name}-wrong"


def _fewer_more_wrong(a: Counter, b: Counter, name: str) -> str:
    """A seat's wish stones or wish cards (as counts): some missed, some made up, or read otherwise."""
    if not b - a:
        return f"{name}-missed"
    if not a - b:
        return f"{name}-phantom"
    return f"{name}-wrong"


def _row_kind(a: tuple, b: tuple) -> str:
    if not b:
        return "row-missed"
    if len(b) > len(a):
        return "row-extra"
    if len(b) < len(a):
        return "row-start" if tuple(a[len(a) - len(b):]) == tuple(b) else "row-end" \
            if tuple(a[:len(b)]) == tuple(b) else "row-start"
    return "row-value"


def _pawn_kinds(truth: Observation, read: Observation) -> list[tuple[str, str]]:
    """(kind, where) of each pawn misread: missing and extra pawns paired up where they can be."""
    want = Counter((p.stone, p.player, p.big) for p in truth.pawns or ())
    got = Counter((p.stone, p.player, p.big) for p in read.pawns or ())
    missing, extra = list((want - got).elements()), list((got - want).elements())
    out = []
    for kind, same in (("pawn-size", lambda m, e: m[0] == e[0] and m[1] == e[1]),
                       ("pawn-colour", lambda m, e: m[0] == e[0] and m[2] == e[2]),
                       ("pawn-stone", lambda m, e: m[1] == e[1] and m[2] == e[2])):
        for m in list(missing):
            e = next((e for e in extra if same(m, e)), None)
            if e is not None:
                missing.remove(m)
                extra.remove(e)
                out.append((kind, f"{m[1]}@{m[0]}"))
    out += [("pawn-missed", f"{m[1]}@{m[0]}") for m in missing] + [("pawn-phantom", f"{e[1]}@{e[0]}") for e in extra]
    return out


def field_misreads(truth: Observation, read: Observation) -> list[tuple[str, Hashable, Hashable]]:
    """Every field `read` gets wrong against `truth` (both usable): (kind, field, the value read)."""
    a, b = observation_fields(truth), observation_fields(read)
    out: list[tuple[str, Hashable, Hashable]] = []
    pawns = False
    for key in sorted(a.keys() | b.keys(), key=repr):
        d = field_default(key)
        x, y = a.get(key, d), b.get(key, d)
        if x == y:
            continue
        what = key[0]
        if what == "pawns":
            pawns = True
            continue
        if what == "row":
            kind = _row_kind(tuple(x or ()), tuple(y or ()))
        elif what == "wish":
            kind = _fewer_more_wrong(Counter(dict(x or ())), Counter(dict(y or ())), "wish")
        elif what == "wish_cards":
            kind = _fewer_more_wrong(Counter(x or ()), Counter(y or ()), "wishcard")
        elif what == "tile":
            kind = _absent_present_wrong(x, y, "tile")
        elif what == "top":
            kind = _absent_present_wrong(x, y, "top")
        elif what == "points_row":
            kind = "points-row"
        elif what == "player":
            kind = "seat-player"
        else:
            kind = "game"
        out.append((kind, key, y))
    if pawns:
        out += [(kind, ("pawns", where), None) for kind, where in _pawn_kinds(truth, read)]
    return out
