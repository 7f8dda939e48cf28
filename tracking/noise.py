"""Injected misreads: what a real camera pipeline gets wrong, to test that tracking survives it.

MisreadInjector wraps an observer. At each usable frame, with probability `rate`, a misread
episode starts; kinds (weights in MISREAD_WEIGHTS):
- "card":       one card of a row (or a discard top) read with another value
- "player":     one pawn read as another player's
- "tile":       one tile on the board missed (its spot read empty)
- "unusable":   the frame cannot be read (marked usable: false, reason "motion")
- "persistent": one of the first three, repeated for 3–8 consecutive frames
Frames with a hand over the table (the "hands" extension: which seat the arm comes from) are
misread too: in a share of them the seat is not read at all (`hands: []`: the arm at the picture's
edge, blurred) or read as a neighbouring seat (an arm reaching in near a corner), and now and then
a neighbouring seat is read for 3–8 frames in a row (HAND_* below; all scale with `rate`).
Seeded: the same seed and frames give the same misreads.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, Callable

from engine.observation import Observation, PawnObservation

MISREAD_WEIGHTS: dict[str, float] = {"card": 0.3, "player": 0.15, "tile": 0.15, "unusable": 0.2, "persistent": 0.2}
PERSISTENT_FRAMES = (3, 8)
_PLAYERS = ("black", "white", "grey", "brown")
#: Hand frames whose seat is not read, or read as a neighbouring seat, per unit of `rate` (at the
#: bench's 2 %: a fifth of hand frames unread, a tenth read as the neighbour) — capped.
HAND_DROP_PER_RATE, HAND_DROP_MAX = 10.0, 0.5
HAND_NEIGHBOUR_PER_RATE, HAND_NEIGHBOUR_MAX = 5.0, 0.3
#: Episodes of a neighbouring seat read for PERSISTENT_FRAMES in a row start at this share of hand
#: frames per unit of `rate` (at 2 %: 0.4 % of hand frames, as often as other persistent misreads).
HAND_EPISODE_PER_RATE = 0.2
#: Seats around the table, clockwise (south, west, north, east): each seat's neighbours are beside it.
_AROUND = ("south", "west", "north", "east")


def neighbour_seat(seat: str, side: int) -> str:
    """The seat beside `seat` around the table (side -1 or +1); an unknown seat stays as it is."""
    if seat not in _AROUND:
        return seat
    return _AROUND[(_AROUND.index(seat) + side) % len(_AROUND)]


def misread_hands(obs: Observation, mode: str, side: int) -> Observation:
    """The frame's hands with their seats not read (mode "drop") or read as the neighbour ("neighbour")."""
    hands = obs.extra.get("hands")
    if not isinstance(hands, list) or not hands:
        return obs
    if mode == "drop":
        new: list = []
    else:
        new = [dict(h, seat=neighbour_seat(h["seat"], side)) if isinstance(h, dict) and isinstance(h.get("seat"), str)
               else h for h in hands]
    return replace(obs, extra={**obs.extra, "hands": new})


def _flip_code(code: str, rng: random.Random) -> str:
    if code == "E":
        return str(rng.randint(0, 10))
    prefix, body = ("P", code[1:]) if code.startswith("P") else ("", code)
    value = int(body)
    choices = [v for v in range(11) if v != value]
    return prefix + str(rng.choice(choices))


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
    s = obs.seats[seat]
    row = list(s.rows[colour])
    row[i] = _flip_code(row[i], rng)
    seats = dict(obs.seats)
    seats[seat] = replace(s, rows={**s.rows, colour: tuple(row)})
    return replace(obs, seats=seats)


def misread_player(obs: Observation, rng: random.Random) -> Observation | None:
    """One pawn read as another player's colour (one of the players at the table if possible)."""
    if not obs.pawns:
        return None
    pawns = list(obs.pawns)
    i = rng.randrange(len(pawns))
    at_table = [s.player for s in obs.seats.values()]
    others = [p for p in (at_table if len(at_table) > 1 else _PLAYERS) if p != pawns[i].player]
    pawns[i] = PawnObservation(pawns[i].stone, rng.choice(others), pawns[i].big)
    return replace(obs, pawns=tuple(pawns))


def misread_tile(obs: Observation, rng: random.Random) -> Observation | None:
    """One tile missed: its spot read as empty."""
    present = [spot for spot, code in (obs.tiles or {}).items() if code is not None]
    if not present:
        return None
    spot = rng.choice(present)
    return replace(obs, tiles={**obs.tiles, spot: None})  # type: ignore[dict-item]


def unusable(obs: Observation, rng: random.Random) -> Observation:
    """The frame could not be read at all."""
    return Observation(obs.game, obs.board, False, "motion")


_MISREADS: dict[str, Callable[[Observation, random.Random], Observation | None]] = {
    "card": misread_card, "player": misread_player, "tile": misread_tile}


class MisreadInjector:
    """An observer wrapper that injects realistic misreads (module docstring).

    Stateless by frame index: whether frame i is misread, and how, depends only on (seed, i), so a
    replay resumed in the middle sees exactly the misreads an uninterrupted one saw.
    """

    def __init__(self, observer: Any, rate: float, seed: int = 0, weights: dict[str, float] | None = None):
        if not 0 <= rate <= 1:
            raise ValueError(f"misread rate must be between 0 and 1, got {rate!r}")
        self.observer = observer
        self.name = getattr(observer, "name", "observer")
        self.rate = rate
        self.seed = seed
        self.weights = dict(weights or MISREAD_WEIGHTS)
        self.frames = 0
        self.frames_misread = 0
        self.episodes: dict[str, int] = {k: 0 for k in self.weights}
        self.hand_frames = 0
        self.hand_misreads: dict[str, int] = {"drop": 0, "neighbour": 0, "persistent": 0}
        self._counted: set[int] = set()
        self._hand_counted: set[int] = set()

    def observe(self, frame: Any) -> Observation:
        """The wrapped observer's reading of `frame`, sometimes misread."""
        return self.corrupt(self.observer.observe(frame), int(frame.index))

    def _episode_at(self, start: int) -> tuple[str, int, int] | None:
        """(kind, length, seed) of the misread episode starting at frame `start`, if one does."""
        rng = random.Random(f"misread:{self.seed}:{start}")
        if rng.random() >= self.rate:
            return None
        kinds = list(self.weights)
        kind = rng.choices(kinds, [self.weights[k] for k in kinds])[0]
        length = 1
        if kind == "persistent":
            kind = rng.choice(list(_MISREADS))
            length = rng.randint(*PERSISTENT_FRAMES)
        return kind, length, rng.randrange(1 << 30)

    def corrupt(self, obs: Observation, index: int) -> Observation:
        """Frame `index`'s observation as the misreads make it."""
        self.frames += 1
        if not self.rate:
            return obs
        if not obs.usable:
            return self._corrupt_hands(obs, index) if obs.extra.get("hands") else obs
        for start in range(index, index - PERSISTENT_FRAMES[1], -1):
            episode = self._episode_at(start)
            if episode is None:
                continue
            kind, length, seed = episode
            if start + length <= index:
                continue
            if start not in self._counted:
                self._counted.add(start)
                self.episodes[kind if length == 1 else "persistent"] = \
                    self.episodes.get(kind if length == 1 else "persistent", 0) + 1
            if kind == "unusable":
                out = unusable(obs, random.Random(seed))
            else:
                # The same wrong reading on every frame of a persistent episode.
                out = _MISREADS[kind](obs, random.Random(seed))
            if out is None or out == obs:
                return obs
            self.frames_misread += 1
            return out
        return obs

    def _corrupt_hands(self, obs: Observation, index: int) -> Observation:
        """A hand frame's seats as the misreads make them (stateless by frame index, like corrupt)."""
        self.hand_frames += 1
        episode_rate = min(1.0, HAND_EPISODE_PER_RATE * self.rate)
        for start in range(index, index - PERSISTENT_FRAMES[1], -1):
            rng = random.Random(f"hand-episode:{self.seed}:{start}")
            if rng.random() >= episode_rate:
                continue
            length = rng.randint(*PERSISTENT_FRAMES)
            if start + length <= index:
                continue
            if start not in self._hand_counted:
                self._hand_counted.add(start)
                self.hand_misreads["persistent"] += 1
            return misread_hands(obs, "neighbour", rng.choice((-1, 1)))
        rng = random.Random(f"hand:{self.seed}:{index}")
        u = rng.random()
        drop = min(HAND_DROP_MAX, HAND_DROP_PER_RATE * self.rate)
        neighbour = min(HAND_NEIGHBOUR_MAX, HAND_NEIGHBOUR_PER_RATE * self.rate)
        if u < drop:
            self.hand_misreads["drop"] += 1
            return misread_hands(obs, "drop", 1)
        if u < drop + neighbour:
            self.hand_misreads["neighbour"] += 1
            return misread_hands(obs, "neighbour", rng.choice((-1, 1)))
        return obs

    def stats(self) -> dict[str, Any]:
        """How many frames were seen and misread, and the episodes by kind."""
        return {"frames": self.frames, "misread_frames": self.frames_misread, "episodes": dict(self.episodes),
                "rate": self.rate, "hand_frames": self.hand_frames, "hand_misreads": dict(self.hand_misreads)}
