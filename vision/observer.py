"""The tracking hook: `make_observer(session=..., config=...)` returns the vision observer
(tracking.observers.make_observer("vision", ...) imports this module by name).

A frame is anything with `.index`, `.timestamp` and either `.image` (a decoded BGR frame, as the live
camera gives) or, for a recorded session, a FrameRef the session can decode; a frame that cannot be
decoded reads as unusable (reason "bad-frame") and is listed in `.problems` naming the file.

Every frame first passes the gate (vision.gate) on its small picture (`.small`, picamera2's
low-resolution stream, or the frame scaled down): while the table moves only the hands test runs;
the full reader runs once the table has been still, a few times, and again only when something
changes; in between the last reading stands. `gate=None` reads every frame in full. Each reading reads
again only the seats and discard piles that changed since they were last read (vision.changes).

While a full reading runs (the still's wait and the reader: 0.5-2 s) a live pipeline keeps watching the
camera's newer frames (`watch_readings`, `watch`; tracking.pipeline): the gate's motion test and the hands
test on each small picture, so a reach made during a reading reaches the tracker as hand frames, in order
after the reading (session 36).
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import replace
from typing import Any, Callable, ContextManager, Mapping

from engine.errors import MalformedInput
from engine.observation import Observation

from .gate import BUSY, MOVING, READ, REUSE, SETTLING, Gate, GateConfig
from .motion import grey, play_area_mask, small_picture
from .reader import Reader, ReaderConfig

log = logging.getLogger("keltis.vision")


class VisionObserver:
    """Reads each frame with one vision.reader.Reader (registration kept between frames)."""

    name = "vision"

    def __init__(self, calibration: Mapping[str, Any], game: str, board: Any, seats: Mapping[str, str] | None,
                 session: Any = None, config: ReaderConfig | None = None, components: Any = None,
                 gate: GateConfig | None = GateConfig()):
        from .components import load_components

        self.session = session
        self.game = game
        self.calibration = calibration
        self.reader = Reader(calibration, game=game, board=board, seats=seats,
                             components=components or load_components(), config=config or ReaderConfig())
        self.gate = Gate(gate) if gate is not None else None
        self.last: Observation | None = None        # the last full reading (what REUSE repeats)
        self.last_decision: str | None = None       # the gate's decision on the last frame (recordings)
        self.last_image: Any = None                 # the frame last read in full (recordings)
        self._previous_small: Any = None            # the previous frame's small picture (a moving arm)
        self._mask_for: Any = None                  # the registration the play-area mask belongs to
        self._mask: Any = None
        self.problems: list[str] = []
        self.stills = 0                             # full-resolution stills read (a camera that takes them)
        #: the calibration the table was set up with (a live camera's `keltis-cam calibrate` file): the
        #: markers' places for its board, the camera's lens (see follow_setup)
        self.configured_calibration = calibration
        self._setup_key: tuple | None = (game, getattr(board, "name", None), tuple(sorted((seats or {}).items())))
        #: the pipeline's watcher: a context manager that watches the camera's newer frames while a full reading
        #: runs (watch_readings); None: nothing watches (a recording read frame by frame, a bench)
        self._watcher: Callable[[], ContextManager[Any]] | None = None
        self._gate_lock = threading.Lock()          # the gate and the previous small picture: observe vs watch
        #: the warm-up (warm_up, start_warm_up): what the first reading would build that no frame changes
        self.warmed: dict[str, float] | None = None  # the last warm-up's parts (CPU ms)
        self._warmed_reader: Any = None             # the reader it warmed up for
        self._warm_lock = threading.Lock()          # one warm-up at a time: nothing built twice
        self._warm_thread: threading.Thread | None = None

    def follow_setup(self, setup: Any) -> bool:
        """A game started on the table screen says what lies on the table: its game, board and seats
        (seat -> player colour). A live camera's reader is made for them (the calibration's markers
        for that board, its lens kept); a recording's reader keeps what its session says. Returns
        whether the reader changed."""
        if setup is None or self.session is not None:
            return False
        game, board_name = setup.game, (setup.board if setup.game == "keltis" else None)
        key = (game, board_name, tuple(sorted(dict(setup.seats).items())))
        if key == self._setup_key:
            return False
        board = board_named(board_name) if board_name else None
        calibration = calibration_for_board(self.configured_calibration, board)
        self.reader = Reader(calibration, game=game, board=board, seats=dict(setup.seats),
                             components=self.reader.components, config=self.reader.config)
        self.game, self.calibration, self._setup_key = game, calibration, key
        # nothing read so far belongs to this table
        self.last, self._previous_small, self._mask_for, self._mask = None, None, None, None
        if self.gate is not None:
            self.gate = Gate(self.gate.config)
        log.info("reading a %s table%s, seats %s", game, f" on the {board.name} board" if board else "",
                 ", ".join(f"{s} {c}" for s, c in dict(setup.seats).items()))
        if self._warm_thread is not None:   # the app warms up: this reader too (what another board needs)
            self.start_warm_up()
        return True

    def warm_up(self) -> dict[str, float]:
        """Build now, once, what the reader's first reading would build that no frame changes
        (vision.reader.Reader.warm_up: card art, token pictures, the board's art, ...; 0.15-0.26 s CPU here),
        so the game's first reading does only the frame's work. Returns its parts' CPU ms (this thread's; {} when this reader
        was warmed up already)."""
        with self._warm_lock:
            reader = self.reader
            if self._warmed_reader is reader:
                return {}
            t0 = time.thread_time()
            self.warmed = reader.warm_up()
            self._warmed_reader = reader
            log.info("warmed up the reader in %.0f ms CPU (%s)", (time.thread_time() - t0) * 1000,
                     ", ".join(f"{k} {v:.0f}" for k, v in self.warmed.items()))
            return self.warmed

    def start_warm_up(self) -> threading.Thread:
        """warm_up in a background thread (the app's start: the server and the camera do not wait for it);
        the first full reading waits for it rather than build the same caches beside it."""
        def run() -> None:
            try:
                self.warm_up()
            except Exception:  # noqa: BLE001 - the first reading builds what is missing, as without a warm-up
                log.exception("the reader's warm-up failed")

        thread = threading.Thread(target=run, name="vision-warm-up", daemon=True)
        self._warm_thread = thread
        thread.start()
        return thread

    def wait_warm_up(self, timeout: float | None = None) -> None:
        """Let a warm-up under way finish (before a full reading: it builds what the reading needs; before the
        process ends: a thread inside OpenCV then aborts it)."""
        thread = self._warm_thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _board_name(self) -> str | None:
        return self.reader.board.name if (self.reader.board is not None and self.game == "keltis") else None

    def observe(self, frame: Any) -> Observation:
        from camera.session import FrameError

        image = getattr(frame, "image", None)
        if image is None and self.session is not None:
            try:
                image = self.session.read_frame(frame)
            except FrameError as exc:
                self.problems.append(str(exc))
                log.warning("%s", exc)
                return Observation(self.game, self._board_name(), False, "bad-frame")
        if image is None:
            raise MalformedInput(f"frame {getattr(frame, 'index', '?')} has no image to read")
        if self.gate is None:
            self.last_decision, self.last_image = READ, image
            self.wait_warm_up()
            before = len(self.reader.realigned)
            obs = self.reader.read(image, incremental=True).observation
            if len(self.reader.realigned) > before:
                self.reader.realigned[-1]["at"] = time.time()
            return obs
        small = getattr(frame, "small", None)
        if small is None:
            small = small_picture(self.gate.config.motion, image)
        t = float(getattr(frame, "timestamp", 0.0))
        index = getattr(frame, "index", None)
        with self._gate_lock:
            decision = self.last_decision = self.gate.decide(grey(small), t, self._play_area(image, small),
                                                             int(index) if index is not None else None)
            previous, self._previous_small = self._previous_small, small
            still_since = self.gate.still_since   # (frames watched during the reading may move on from it)
        if decision == MOVING:
            # the cheap hands test only: whose arm it is matters to the tracker, the rest waits
            return (self.reader.judge_unusable(small, previous)
                    or Observation(self.game, self._board_name(), False, "motion"))
        if decision == SETTLING:
            return Observation(self.game, self._board_name(), False, "settling")
        if decision == REUSE and self.last is not None:
            return self.last
        self.last_decision = READ
        took_still = False
        still = getattr(frame, "still", None)
        if still is not None:
            # a camera that takes full-resolution stills (the card strips need the pixels): read one
            # taken now instead of the video frame; it costs the camera ~0.5 s of video, so once per
            # still period (and again when the picture drifts)
            if self.gate.config.reads_per_still != 1:
                self.gate.config = replace(self.gate.config, reads_per_still=1)
            if self.reader.registration is not None:
                # a hand resting over the table: no still for it (the small picture tells)
                unusable = self.reader.judge_unusable(small, previous)
                if unusable is not None:
                    with self._gate_lock:
                        self.gate.read_done(grey(small), t, False)
                    # the frames until it is tried again repeat it, as they repeat a full reading found unusable
                    # (until session 36 they repeated the last usable reading: the table before the arm came)
                    self.last = unusable
                    return unusable
        watching = self._watcher() if self._watcher is not None else contextlib.nullcontext()
        with watching:   # the camera's newer frames are watched meanwhile (a reach during the reading)
            if still is not None:
                picture = still()
                if picture is not None:
                    image = picture
                    took_still = True
                self.stills += picture is not None
            self.last_image = image
            self.wait_warm_up()
            before = len(self.reader.realigned)
            # the video frame's small picture is its usable test's input too (a still is judged on its own)
            obs = self.reader.read(image, previous=previous, incremental=True,
                                   small=None if took_still else small).observation
            if len(self.reader.realigned) > before:
                self.reader.realigned[-1]["at"] = time.time()   # when the page should say so
        with self._gate_lock:
            self.gate.read_done(grey(small), t, obs.usable)
        if obs.usable and still_since is not None:
            # the gate watched every frame since: the tracker may count the table's stillness from then
            obs = replace(obs, extra={**obs.extra, "still_since": round(still_since, 4)})
        self.last = obs
        return obs

    def watch_readings(self, watcher: Callable[[], ContextManager[Any]] | None) -> None:
        """The pipeline's watcher (tracking.pipeline.Pipeline): entered around every full reading (the still's
        wait and the reader), it watches the camera's newer frames with `watch` meanwhile."""
        self._watcher = watcher

    def watch(self, frame: Any) -> Observation | None:
        """A frame that came while a full reading runs (another thread): the gate's motion test on its small
        picture and, while the play area moves, the hands test — the unusable observation the tracker gets in
        its turn (`motion`, or `occluded` with the arm's seat), `settling` after a move, or None for a still
        frame (the reading in hand stands; nothing to give)."""
        if self.gate is None:
            return None
        small = getattr(frame, "small", None)
        image = getattr(frame, "image", None)
        if small is None:
            if image is None:
                return None
            small = small_picture(self.gate.config.motion, image)
        t = float(getattr(frame, "timestamp", 0.0))
        index = getattr(frame, "index", None)
        with self._gate_lock:
            # the play area the frame being read was judged in (a first reading registers meanwhile)
            decision = self.gate.watch(grey(small), t, self._mask, int(index) if index is not None else None)
            previous, self._previous_small = self._previous_small, small
        if decision == MOVING:
            return (self.reader.judge_unusable(small, previous, learn=False)
                    or Observation(self.game, self._board_name(), False, "motion"))
        if decision == SETTLING:
            return Observation(self.game, self._board_name(), False, "settling")
        assert decision == BUSY
        return None

    def _play_area(self, image: Any, small: Any) -> Any:
        """The play area in the small picture, built once per registration."""
        reg = self.reader.registration
        if reg is not self._mask_for:
            self._mask_for = reg
            board = self.reader.board
            # the registration's own picture size: a still's when stills are read
            size = tuple(reg.image_size) if reg is not None else (image.shape[1], image.shape[0])
            self._mask = play_area_mask(self.gate.config.motion, self.calibration, reg,
                                        size, (small.shape[1], small.shape[0]),
                                        tuple(board.size_mm) if board is not None else None)
        return self._mask

    @property
    def realignments(self) -> int:
        """How often the reader followed a bumped table so far (vision.alignment)."""
        return len(self.reader.realigned)

    @property
    def too_far(self) -> bool:
        """The reader's registration gives the board fewer px per mm than the camera check's floor (the camera
        hangs too high: ReaderConfig.min_board_px_per_mm); the pipeline pushes its status when this changes."""
        return self.reader.below_floor

    def status(self) -> dict[str, Any]:
        """The gate's decisions so far, the last time the reader followed a bumped table, and the board's
        resolution in the picture the reader reads (for the pipeline's status, the page and the benches)."""
        out: dict[str, Any] = {"gate": dict(self.gate.counts)} if self.gate is not None else {}
        res = self.reader.resolution
        if res is not None:
            reg = self.reader.registration
            out["resolution"] = {**res.to_json(), "min": self.reader.config.min_board_px_per_mm,
                                 "too_far": self.too_far,
                                 "image_size": list(reg.image_size) if reg is not None else None}
        if self.stills:
            out["stills"] = self.stills
        if self.reader.realigned:
            last = self.reader.realigned[-1]
            out.update(realigned=len(self.reader.realigned), realigned_why=last["why"],
                       realigned_at=last.get("at"))
        return out


def board_named(name: str) -> Any:
    """A board by its bundled name ("nwnz", "base") or a board file's path (*.json)."""
    from engine.board import bundled_board, load_board

    return load_board(name) if str(name).endswith(".json") else bundled_board(name)


def calibration_for_board(calibration: Mapping[str, Any], board: Any) -> Mapping[str, Any]:
    """The calibration to read a game on `board` (None: the card game) with: the given one when it
    was made for that board; else the markers where the printed sheet puts them for that board
    (calibration.model.default_calibration), with the given one's camera model (the lens does not
    change with the game)."""
    from calibration.model import default_calibration, parse_calibration

    name = getattr(board, "name", None)
    if calibration.get("board") == name:
        return calibration
    default = dict(default_calibration(board))
    if calibration.get("camera"):
        default["camera"] = calibration["camera"]
        default = parse_calibration(default, source="<default calibration with the configured lens>")
    return default


def make_observer(session: Any = None, config: Any = None) -> VisionObserver:
    """The vision observer for a recorded session (its calibration, board and seats) or a live camera
    (`config`: a mapping with "calibration" (dict or file), "game", "board", "seats", "components")."""
    from calibration.model import default_calibration, load_calibration

    from .components import load_components

    cfg = dict(config) if isinstance(config, Mapping) else {}
    game = cfg.get("game") or (session.info.game if session is not None else "keltis")
    board_name = cfg.get("board") or (session.info.board if session is not None else None)
    seats = cfg.get("seats") or (dict(session.info.seats) if session is not None else None)
    cal = cfg.get("calibration")
    if isinstance(cal, str):
        cal = load_calibration(cal)
    if cal is None and session is not None and session.info.calibration:
        cal = load_calibration(session.folder / session.info.calibration)
    if cal is None:
        cal = default_calibration(board_name if game == "keltis" else None)
    board = board_named(board_name) if game == "keltis" and board_name else None
    return VisionObserver(cal, game, board, seats, session=session,
                          components=load_components(cfg.get("components")),
                          gate=None if cfg.get("gate") is False else GateConfig())
