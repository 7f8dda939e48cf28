"""Observers: what turns one frame into an observed state (FORMATS §2).

Tracking never looks at images; it asks an observer. Two exist by name:
- "truth": reads the observed state stored beside each frame of a recorded session
  (truth/NNNNNN.json): the simulator's ground truth or a hand-labelled recording. It never decodes
  the JPEG, so a truth replay is fast.
- "vision": the camera pipeline (a later issue). It plugs in here as `vision.observer.VisionObserver`
  built by `vision.observer.make_observer(session=..., config=...)`; tracking does not change.

An observer has a `name` and `observe(frame) -> Observation`, where a frame is anything with
`.index`, `.timestamp` and (for vision) `.image`: a camera.sources Frame or a light SessionFrame.
"""
from __future__ import annotations

import importlib
import logging
from typing import Any, Protocol

from engine.errors import MalformedInput, ObservationError
from engine.observation import Observation, parse_observation

log = logging.getLogger("keltis.tracking")

OBSERVERS = ("truth", "vision", "recorded")


class Observer(Protocol):
    """Reads one frame as an observed state."""

    name: str

    def observe(self, frame: Any) -> Observation:
        """The observed state `frame` shows (usable=False when it cannot be read)."""
        ...


class TruthObserver:
    """The stored truth of a recorded session, by frame index (the explicit observer "truth")."""

    name = "truth"

    def __init__(self, session: Any):
        from camera.session import TRUTH_DIR

        self.session = session
        self.folder = session.folder
        if not (session.folder / TRUTH_DIR).is_dir():
            raise MalformedInput("this session has no truth/ folder, so the truth observer cannot read it "
                                 "(use --observer vision)", source=str(session.folder))
        self.game = session.info.game
        self.board = session.info.board
        self.problems: list[str] = []

    def _unusable(self, reason: str, problem: str) -> Observation:
        if problem not in self.problems:
            self.problems.append(problem)
            log.warning("%s", problem)
        return Observation(self.game, self.board, False, reason)

    def observe(self, frame: Any) -> Observation:
        """truth/NNNNNN.json of the frame's index; a missing or bad file reads as an unusable frame
        (and is listed in `.problems`, naming the file), so one bad file never stops a replay."""
        from camera.session import FrameRef, SessionError, truth_file

        index = int(frame.index)
        path = self.folder / truth_file(index)
        try:
            data = self.session.truth(FrameRef(index, float(getattr(frame, "timestamp", 0.0)), "", path))
        except SessionError as exc:
            return self._unusable("bad-truth", str(exc))
        if data is None:
            return self._unusable("no-truth", f"{path}: no truth for frame {index}")
        try:
            return parse_observation(data, str(path))
        except ObservationError as exc:
            return self._unusable("bad-truth", str(exc))


class RecordedObserver:
    """The readings a live pipeline gave its tracker, as `keltis-cam record --live` stored them
    (live.jsonl): replaying them feeds the tracker exactly what it had at the table. Frames are the
    live.jsonl lines (`frames`, a session-like view for SessionFrames); a `reuse` line repeats the
    last reading, as the live gate did."""

    name = "recorded"

    def __init__(self, session: Any):
        from camera.record import read_live_lines

        self.session = session
        self.lines = read_live_lines(session.folder)
        self.game = session.info.game
        self.board = session.info.board
        self.folder = session.folder
        self.info = session.info
        self.frames = [_LineRef(line.index, line.t) for line in self.lines]
        self.problems: list[str] = []
        self._last: Observation | None = None

    def observe(self, frame: Any) -> Observation:
        line = self.lines[int(frame.index)]
        if line.observation is None:
            return self._last if self._last is not None else Observation(self.game, self.board, False, "settling")
        try:
            obs = parse_observation(line.observation, f"{self.folder}/live.jsonl line {line.index + 1}")
        except ObservationError as exc:
            self.problems.append(str(exc))
            log.warning("%s", exc)
            return Observation(self.game, self.board, False, "bad-truth")
        if obs.usable:
            self._last = obs
        return obs


class _LineRef:
    """A live.jsonl line as a frame reference (index, t)."""

    def __init__(self, index: int, t: float):
        self.index, self.t = index, t


def make_observer(name: str, session: Any = None, config: Any = None) -> Observer:
    """The observer called `name` ("truth" or "vision") for a session (or a live camera: session None)."""
    if name == "truth":
        if session is None:
            raise MalformedInput("the truth observer reads recorded sessions only (no truth for a live camera)",
                                 field="--observer")
        return TruthObserver(session)
    if name == "recorded":
        if session is None:
            raise MalformedInput("the recorded observer replays live recordings only", field="--observer")
        return RecordedObserver(session)
    if name == "vision":
        try:
            module = importlib.import_module("vision.observer")
        except ModuleNotFoundError as exc:
            if exc.name not in ("vision.observer", "vision"):
                raise
            raise MalformedInput("the vision observer is not available in this version of keltis-cam yet "
                                 "(vision.observer is missing); replay with --observer truth",
                                 field="--observer") from None
        return module.make_observer(session=session, config=config)
    raise MalformedInput(f"unknown observer {name!r} (known: {', '.join(OBSERVERS)})", field="--observer")
