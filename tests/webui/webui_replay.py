"""A real replayed session behind the web app: the tracking's GameTracker (SQLite store), the truth
observer and the Pipeline, stepped frame by frame so page tests can wait for a move or a warning.

Sessions come from the tracking's synthesizer (tracking.synth: a seeded game filmed as
observed states, tiny dummy JPEGs), cut to the first frames so they are quick to write.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

#: A base-board game for three: its first two moves are legal, the fifth breaks a rule (wrong-colour).
DEMO = {"game": "keltis", "board": "base", "players": 3, "seed": 5, "illegal_rate": 0.35}


def write_replay_session(folder: Path, *, max_frames: int = 400, **game: Any) -> Path:
    """A recorded session (FORMATS §3) of the first `max_frames` frames of a simulated game."""
    from tracking.synth import TINY_JPEG, simulate_game
    from camera.session import SessionInfo, SessionWriter

    spec = {**DEMO, **game}
    sim = simulate_game(spec["game"], spec["board"], spec["players"], spec["seed"],
                        illegal_rate=spec["illegal_rate"])
    info = SessionInfo(game=sim.setup["game"], board=sim.setup["board"], seats=dict(sim.setup["seats"]),
                       rules=dict(sim.setup.get("rules") or {}), source="simulator")
    with SessionWriter(folder, info, overwrite=True) as writer:
        for i, t, obs in sim.observations():
            if i >= max_frames:
                break
            writer.add_frame(TINY_JPEG, t, truth=obs.to_json())
    return folder


class SteppedReplay:
    """The real pipeline over a session, advanced by the test (`step_until`)."""

    def __init__(self, session_folder: Path, data_dir: Path):
        from tracking.observers import make_observer
        from tracking.pipeline import Pipeline, SessionFrames
        from tracking.store import EventStore, default_db_path
        from tracking.tracker import GameTracker
        from camera.session import open_session

        self.session = open_session(session_folder)
        info = self.session.info
        self.setup = {"game": info.game, "board": info.board, "seats": dict(info.seats), "rules": dict(info.rules)}
        self.observer = make_observer("truth", self.session)
        self.store = EventStore(default_db_path(data_dir))
        self.tracker = GameTracker(self.store, observer="truth")
        self.tracker.new_game(self.setup)
        source = SessionFrames(self.session)
        self.frames = list(source.frames())
        self.pipeline = Pipeline(source, self.observer, self.tracker)
        self.position = 0

    def step_until(self, done: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Feed frames until `done(snapshot)`; fails naming `what` if the session runs out first."""
        snap = self.tracker.snapshot()
        while not done(snap):
            if self.position >= len(self.frames):
                raise AssertionError(f"the session ended before {what}")
            self.pipeline.step(self.frames[self.position])
            self.position += 1
            snap = self.tracker.snapshot()
        return snap

    def moves(self, n: int) -> dict[str, Any]:
        """Feed frames until at least n complete moves were read."""
        return self.step_until(lambda s: sum(1 for m in s["moves"] if m.get("complete", True)) >= n,
                               f"{n} complete moves")

    def close(self) -> None:
        self.store.close()


_TIED_SEATS = {"south": "black", "west": "white", "north": "grey"}
#: the tie with a fourth seat whose reach came last (east lays a blue 7): three seats could have taken the red 3
_TIED_FOUR = {**_TIED_SEATS, "east": "brown"}


def _card_table(rows, tops, seats=_TIED_SEATS):
    from engine.observation import parse_observation

    colours = ("red", "yellow", "pink", "green", "blue")
    return parse_observation({
        "format": "keltis-observation/1", "game": "keltis-card", "board": None, "usable": True,
        "pawns": None, "tiles": None,
        "seats": {s: {"player": p, "rows": {c: list(rows.get(s, {}).get(c, [])) for c in colours},
                      "points_row": 0, "wish": {}, "wish_cards": []} for s, p in seats.items()},
        "discard_tops": {p: tops.get(p) for p in (*colours, "points")}})


def _hand(seat):
    from engine.observation import Observation

    return Observation("keltis-card", None, False, "occluded", extra={"hands": [{"seat": seat}]})


def tied_draw_tracker(four: bool = False, store=None):
    """The real tracker after a card game whose red 3 left its discard pile while two seats reached between two
    readings (west laid a yellow 5, north a green 6): the decoder cannot tell who took it and asks (issue 17
    item 2, a question of kind "draw" with one answer per seat). four: a fourth seat, east, reached too (a blue 7)
    — a reading where east took it is held, a little dearer; south (whose turn the table saw end with the red 3
    still there) took it in no reading. store: an EventStore (default in memory)."""
    from tracking.store import EventStore
    from tracking.tracker import GameTracker

    seats = _TIED_FOUR if four else _TIED_SEATS
    start = _card_table({"south": {"red": ["2"]}}, {"red": "3"}, seats)
    laid = _card_table({"south": {"red": ["2", "4"]}}, {"red": "3"}, seats)
    rows = {"south": {"red": ["2", "4"]}, "west": {"yellow": ["5"]}, "north": {"green": ["6"]}}
    after = _card_table({**rows, "east": {"blue": ["7"]}} if four else rows, {}, seats)
    tracker = GameTracker(store if store is not None else EventStore(":memory:"), observer="truth")
    tracker.new_game({"game": "keltis-card", "board": None, "seats": seats, "rules": {}})
    frames = [start, start, _hand("south"), laid, laid, _hand("south"), laid, _hand("west"),
              _hand("west"), _hand("north"), _hand("north")] + ([_hand("east"), _hand("east")] if four else [])
    for i, obs in enumerate(frames + [after, after, after]):
        tracker.feed(obs, float(i), i)
    return tracker


def north_reaches_again(tracker, first: int = 14) -> None:
    """After tied_draw_tracker: north's arm reaches in once more and the table stays as it was (north drawing from
    the draw pile: north's turn was still open, so west took the red 3) — the frames that decide the tie."""
    after = _card_table({"south": {"red": ["2", "4"]}, "west": {"yellow": ["5"]}, "north": {"green": ["6"]}}, {})
    for i, obs in enumerate([_hand("north"), _hand("north"), after, after], start=first):
        tracker.feed(obs, float(i), i)
