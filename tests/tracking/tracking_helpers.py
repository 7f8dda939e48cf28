"""Shared helpers for the tracking tests (a uniquely named module: several test folders have a conftest): short simulated games (tracking.synth), trackers on
in-memory or on-disk stores, and feeding a game's frames through a tracker.

Seeds here stay below 1000; bench/tracking_bench.py uses seeds from 9000 on.
"""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path


from tracking.check import compare_turns, signature_of_moves, signature_of_turn
from tracking.config import TrackingConfig
from tracking.noise import MisreadInjector
from tracking.store import EventStore
from tracking.synth import SimulatedGame, simulate_game, write_session
from tracking.tracker import GameTracker

REPO = Path(__file__).resolve().parents[2]

#: the noise models a legal game with hands and 2 % misreads (nwnz, 3 players, seed 41, noise seed 3) is replayed under
#: (test_hands, test_decoded_tracker): the session-18 model's warnings there were a known miss (strict xfail) until
#: session 37's decoder_revise_tops (off: a two-cards warning shows there still)
LEGAL_GAME_NOISE_MODELS = ["s21", "s18"]


@functools.lru_cache(maxsize=None)
def game(kind: str, board: str | None, players: int, seed: int, max_moves: int | None = None,
         illegal_rate: float = 0.0, fps: float = 5.0) -> SimulatedGame:
    """A simulated game (cached: tests must not change it)."""
    return simulate_game(kind, board, players, seed, max_moves=max_moves, illegal_rate=illegal_rate, fps=fps)


def make_tracker(store: EventStore | None = None, **config) -> GameTracker:
    """A tracker as replays use it (ends the game when its draw-pile count runs out)."""
    cfg = TrackingConfig(**{"auto_end_on_empty_draw_pile": True, **config})
    return GameTracker(store or EventStore(":memory:"), config=cfg, observer="truth")


def feed(tracker: GameTracker, sim: SimulatedGame, *, noise: float = 0.0, seed: int = 1, start: int = 0,
         stop: int | None = None, finish: bool = True, noise_model: str | None = None) -> list:
    """Feed frames [start, stop) of a simulated game, misread by tracking.noise's `noise_model` (None: its
    default) at rate `noise`; returns every live event."""
    injector = MisreadInjector(None, noise, seed, noise_model=noise_model) if noise else None
    events = []
    for i, (t, obs) in enumerate(sim.frames[start:stop], start=start):
        if injector is not None:
            obs = injector.corrupt(obs, i)
        events.extend(tracker.feed(obs, t, i))
    if finish and stop is None:
        events.extend(tracker.finish())
    return events


def replayed_frames(sim: SimulatedGame, frames: list, **config) -> tuple[dict, list[str]]:
    """`frames` (a game's frames as some reader would give them) fed to a tracker as replays use it, with these
    TrackingConfig settings: (tracking.check's comparison of its turns with the game's, live warning codes)."""
    tracker = make_tracker(**config)
    tracker.new_game(sim.setup)
    for i, (t, obs) in enumerate(frames):
        tracker.feed(obs, t, i)
    tracker.finish()
    true = [signature_of_moves(t.seat, t.moves, t.pile_tops, t.codes) for t in sim.turns]
    model = tracker.decoded.model
    check = compare_turns(true, [signature_of_turn(model, t) for t in model.turns])
    return check, [w["code"] for w in tracker.snapshot()["warnings"] if not w["withdrawn"]]


_REPLAYS: dict[tuple, tuple] = {}


def replayed(sim: SimulatedGame, *, noise: float = 0.0, seed: int = 1,
             finish: bool = True, noise_model: str | None = None) -> tuple[GameTracker, tuple]:
    """A tracker as replays use it (make_tracker()) fed every frame of `sim` (feed(..., noise, seed,
    finish)), with its live events: cached, as several tests replay a game exactly so. Tests only
    read it (snapshot, decoded, events); one that feeds, corrects, undoes or finishes it replays the
    game itself."""
    key = (id(sim), noise, seed, finish, noise_model)
    hit = _REPLAYS.get(key)
    if hit is None or hit[0] is not sim:     # (the cache holds `sim`: its id is not reused meanwhile)
        tracker = make_tracker()
        tracker.new_game(sim.setup)
        hit = _REPLAYS[key] = (sim, tracker, tuple(feed(tracker, sim, noise=noise, seed=seed, finish=finish,
                                                        noise_model=noise_model)))
    return hit[1], hit[2]


@dataclasses.dataclass(frozen=True)
class RowMisread:
    """A card the camera keeps misreading: the last card of `seat`'s `colour` row as laid in turn `turn`
    (index in sim.turns) read as `bad_value` in every frame that shows the row so far."""

    turn: int
    seat: str
    colour: str
    good_row: tuple[str, ...]
    bad_value: str

    def __call__(self, obs):
        if not obs.usable or self.seat not in obs.seats:
            return obs
        row = list(obs.seats[self.seat].rows.get(self.colour, ()))
        n = len(self.good_row)
        if len(row) >= n and tuple(row[:n]) == self.good_row:
            row[n - 1] = self.bad_value
            s = obs.seats[self.seat]
            return dataclasses.replace(obs, seats={**obs.seats, self.seat: dataclasses.replace(
                s, rows={**s.rows, self.colour: tuple(row)})})
        return obs


def row_misread(sim: SimulatedGame) -> RowMisread:
    """The first card laid after the fourth turn, misread as a value that breaks its row's direction."""
    k = next(k for k, t in enumerate(sim.turns) if t.moves[0]["move"] == "lay" and k > 3)
    lay = sim.turns[k].moves[0]
    seat, colour = lay["seat"], lay["colour"]
    good_row = tuple(sim.frames[sim.turns[k].frame][1].seats[seat].rows[colour])
    bad_value = "0" if good_row[-1] not in ("0",) and len(good_row) > 1 and int(good_row[-2]) > 0 else "10"
    return RowMisread(k, seat, colour, good_row, bad_value)


CARD_COLOURS = ("red", "yellow", "pink", "green", "blue")


def card_table(seats: dict, rows: dict | None = None, tops: dict | None = None) -> dict:
    """A card-game observation (JSON form): seats {seat: player}, rows {seat: {colour: [codes]}}, discard tops {pile: code}."""
    rows = rows or {}
    tops = tops or {}
    return {"format": "keltis-observation/1", "game": "keltis-card", "board": None, "usable": True,
            "pawns": None, "tiles": None,
            "seats": {seat: {"player": player, "rows": {c: list(rows.get(seat, {}).get(c, [])) for c in CARD_COLOURS},
                             "points_row": 0, "wish": {}, "wish_cards": []} for seat, player in seats.items()},
            "discard_tops": {p: tops.get(p) for p in (*CARD_COLOURS, "points")}}


def card_hand(*seats: str):
    """A card-game frame with arms over the table (the hands extension); no seat read when none given."""
    from engine.observation import Observation

    return Observation("keltis-card", None, False, "occluded", extra={"hands": [{"seat": s} for s in seats]})
