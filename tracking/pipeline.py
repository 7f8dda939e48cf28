"""The frame loop shared by `keltis-cam replay` and `keltis-cam serve`: frames → observer → tracker.

`Pipeline` runs one source to its end; `ServedPipeline` runs it in a thread for `serve` and starts a
replayed recording again as a new game when it loops (the bundled demo: a newcomer always finds a
game in progress).

A source is either a camera.sources frame source (camera, or `replay:SESSION`, which decodes
every JPEG) or a `SessionFrames`: a recorded session's frame list read without decoding images,
which is all the truth observer needs. Both give objects with `.index`, `.timestamp` (and
`.image` for camera sources).

A live camera's frames that come while the observer reads one in full (the still's wait and the reader:
0.5-2 s) are not lost to the tracker (session 36): a watch thread takes them from the source meanwhile and
the observer's cheap test judges each (`observer.watch`: motion and the hands test on the small picture),
and after the reading they are fed in order, so a reach made during a reading reaches the decoder as hand
frames. The capture thread is never held up (it only publishes the latest frame); a lossless source (a
replay that gives every frame) is not watched: it waits for its consumer anyway.

Bad input keeps the game: a camera that goes away (its source says "lost", "retrying" or "failed")
is told to the tracker at once, which pauses and afterwards needs fresh stillness, and frames
taken before the loss but not yet read are dropped (a stale table is never taken as the table
now). A frame the observer cannot read, whatever the reason (a corrupt picture, one the reader
cannot register, an error inside the reader), becomes an unusable frame counted by reason in
status() and logged, never a state.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from engine.errors import MalformedInput
from engine.observation import Observation

log = logging.getLogger("keltis.tracking")

#: Source states meaning "no camera now" (camera.sources.base): the tracker pauses while one holds.
CAMERA_DOWN = ("lost", "retrying", "failed")
#: Reasons an observer gives for frames that are normal play (a hand over the table), not bad input.
PLAY_REASONS = ("occluded", "hand", "hands", "motion", "settling")


@dataclass(frozen=True)
class SessionFrame:
    """A frame of a recorded session without its image (index and recorded time)."""

    index: int
    timestamp: float
    image: Any = None


class SessionFrames:
    """A recorded session's frames in order, at the recorded pace × speed (None: as fast as taken).

    start_after: skip frames up to and including this index (resuming a replay).
    """

    name = "session"

    def __init__(self, session: Any, *, speed: float | None = None, start_after: int | None = None):
        if speed is not None and not speed > 0:
            raise MalformedInput(f"speed must be > 0, got {speed!r}", field="--speed")
        self.session = session
        self.speed = speed
        self.start_after = start_after
        self.position = 0
        self.ended = False
        self._stop = threading.Event()

    def frames(self) -> Iterator[SessionFrame]:
        """Every listed frame (after start_after), paced by speed."""
        refs = [r for r in self.session.frames if self.start_after is None or r.index > self.start_after]
        t0_wall = time.monotonic()
        t0 = refs[0].t if refs else 0.0
        for k, ref in enumerate(refs):
            if self._stop.is_set():
                return
            if self.speed is not None:
                due = t0_wall + (ref.t - t0) / self.speed
                delay = due - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    return
            self.position = k + 1
            yield SessionFrame(ref.index, ref.t)
        self.ended = True

    def start(self) -> "SessionFrames":
        """Nothing to start (frames are read on demand)."""
        return self

    def stop(self) -> None:
        """Stop yielding frames."""
        self._stop.set()

    def status(self) -> dict[str, Any]:
        """Where the replay is."""
        return {"kind": "session", "session": str(self.session.folder), "position": self.position,
                "total": len(self.session.frames), "speed": self.speed or "fast",
                "state": "ended" if self.ended else "running"}


def _warmable(observer: Any) -> Any:
    """The observer that has a warm-up (the vision observer, also under injected misreads), or None."""
    for o in (observer, getattr(observer, "observer", None)):
        if o is not None and hasattr(o, "start_warm_up"):
            return o
    return None


def start_warm_up(observer: Any) -> Any:
    """Start the observer's warm-up in a background thread (vision.observer.VisionObserver.start_warm_up: what
    the game's first reading would build that no frame changes, built now; its first full reading waits for
    it): the thread, or None for an observer without one (truth, recorded). Session 36, wt36-warm."""
    o = _warmable(observer)
    return o.start_warm_up() if o is not None else None


def wait_warm_up(observer: Any) -> None:
    """Let a warm-up under way end (before the process may end: a thread inside OpenCV then aborts it)."""
    o = _warmable(observer)
    if o is not None:
        o.wait_warm_up()


class Pipeline:
    """Frames from a source, read by an observer, fed to a tracker; run() here or start() in a thread."""

    def __init__(self, source: Any, observer: Any, tracker: Any, *, status_every: int = 25,
                 health_seconds: float = 0.25):
        self.source = source
        self.observer = observer
        self.tracker = tracker
        self.status_every = status_every
        self.health_seconds = health_seconds  # how often the source's state is looked at
        self.frames = 0
        self.errors = 0
        self.unusable: dict[str, int] = {}  # frames the observer could not read, by reason
        self.stale = 0                       # frames taken before a camera loss, dropped after it
        self.camera_losses = 0
        self.last_error: str | None = None
        self._source_state: str | None = None
        self._source_error: str | None = None
        self._lost_seq: int | None = None    # the source's frame count when the loss was seen
        self._lost_at: float | None = None
        self._health_checked = 0.0
        self.bad_log_seconds = 60.0
        self._bad_logged: dict[str, float] = {}  # reason -> when a frame with it was last logged
        self.last_t: float | None = None
        self._realigned = 0
        self._too_far = False
        self._setup_followed: Any = None     # the tracker's setup the observer was last told of
        self.started: float | None = None
        self.state = "idle"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_seq = 0                  # the source's delivery counter of the last frame taken (watched too)
        self._watched: list[tuple[Any, Any]] = []   # (frame, observation) watched during the last full reading
        self.watched = 0                    # frames watched during readings and fed (status)

    def _watchable(self) -> Any:
        """The observer's watch hook, when the source is a live camera's (frames a slow consumer skips) and the
        observer can watch frames during a reading; else None."""
        source = self.source
        if not hasattr(source, "latest") or getattr(source, "lossless", False):
            return None
        hook = getattr(self.observer, "watch_readings", None)
        return hook if callable(hook) and callable(getattr(self.observer, "watch", None)) else None

    @contextlib.contextmanager
    def _watching(self) -> Iterator[None]:
        """Around one full reading (entered by the observer): a thread takes the source's newer frames and has
        the observer watch each; what it gave is fed after the reading (step)."""
        stop = threading.Event()
        seen: list[tuple[Any, Any]] = []
        first = self._last_seq

        def watch() -> None:
            last = first
            while not stop.is_set():
                frame = self.source.latest(timeout=0.05, newer_than=last)
                if frame is None:
                    continue
                last = frame.seq
                if self._lost_seq is not None and frame.seq <= self._lost_seq:
                    continue
                try:
                    obs = self.observer.watch(frame)
                except Exception as exc:  # noqa: BLE001 - a frame not watched is a frame skipped, as before
                    log.debug("frame %s not watched: %s", getattr(frame, "index", "?"), exc)
                    obs = None
                seen.append((frame, obs))

        thread = threading.Thread(target=watch, name="tracking-watch", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            if seen:
                self._last_seq = max(self._last_seq, max(f.seq for f, _ in seen))
            self._watched.extend(seen)

    def run(self) -> int:
        """Process every frame until the source ends or stop(); returns the number of frames."""
        self.state = "running"
        self.started = time.monotonic()
        try:
            for frame in self._frames():
                if self._stop.is_set():
                    break
                self.step(frame)
            self.state = "stopped" if self._stop.is_set() else "failed" if self._source_state == "failed" else "ended"
            if self.state == "failed":  # the camera gave up (a bad configuration): not the end of the game
                self.last_error = f"the frame source failed: {self._source_error or 'no reason given'}"
        except Exception as exc:
            self.state = "failed"
            self.last_error = str(exc)
            raise
        finally:
            self._push_status()
        return self.frames

    def _frames(self) -> Iterator[Any]:
        """The source's frames; for a camera source (one with latest()), watching its health between
        frames, so a lost camera reaches the tracker while no frame comes."""
        source = self.source
        if not hasattr(source, "latest") or not hasattr(source, "status"):
            yield from source.frames()
            return
        hook = self._watchable()
        if hook is not None:
            hook(self._watching)
        try:
            yield from self._live_frames(source)
        finally:
            if hook is not None:
                hook(None)

    def _live_frames(self, source: Any) -> Iterator[Any]:
        self._last_seq = 0
        while not self._stop.is_set():
            # (frames watched during a reading were taken: the next is newer than those)
            frame = source.latest(timeout=self.health_seconds, newer_than=self._last_seq)
            state = self._watch_source(force=frame is None)
            if frame is None:
                if state in ("ended", "failed", "stopped"):
                    return
                continue
            self._last_seq = frame.seq
            if self._lost_seq is not None and frame.seq <= self._lost_seq:
                self.stale += 1  # taken before the camera went away: the table may have changed since
                continue
            yield frame

    def _watch_source(self, force: bool = False) -> str | None:
        """Look at the source's state (every health_seconds, or now when no frame came); on a change
        log it and push the status to the tracker at once (a loss pauses it). Returns the state."""
        now = time.monotonic()
        if not force and now - self._health_checked < self.health_seconds:
            return self._source_state
        self._health_checked = now
        try:
            status = self.source.status()
        except Exception:  # noqa: BLE001 - a source that cannot say is treated as unchanged
            return self._source_state
        state = status.get("state")
        self._source_error = status.get("error")
        previous, self._source_state = self._source_state, state
        if state == previous:
            return state
        if state in CAMERA_DOWN and previous not in CAMERA_DOWN:
            self.camera_losses += 1
            self._lost_seq = int(status.get("frames") or 0)
            self._lost_at = now
            log.warning("camera %s (%s): tracking paused until it delivers pictures again", state,
                        status.get("error") or "no reason given")
        elif state == "running" and previous in CAMERA_DOWN:
            log.warning("camera back after %.1f s: tracking resumes once the table is still",
                        now - (self._lost_at or now))
        self._push_status()
        return state

    def step(self, frame: Any) -> list[Any]:
        """One frame: observe it (a frame that cannot be read becomes an unusable one) and feed it."""
        logged = False
        setup = getattr(self.tracker, "setup", None)
        if setup is not self._setup_followed:
            # a game started (or resumed) names the board and seats on the table: a live camera's reader
            # reads those from now on (vision.observer.VisionObserver.follow_setup)
            self._setup_followed = setup
            follow = getattr(self.observer, "follow_setup", None) or \
                getattr(getattr(self.observer, "observer", None), "follow_setup", None)
            if follow is not None and setup is not None:
                try:
                    follow(setup)
                except Exception as exc:  # noqa: BLE001 - a setup the reader cannot follow stops nothing
                    self.last_error = f"the reader cannot read this game's table: {exc}"
                    log.warning("%s", self.last_error)
        try:
            obs = self.observer.observe(frame)
        except Exception as exc:  # noqa: BLE001 - one unreadable frame never stops the game
            self.errors += 1
            logged = True
            detail = str(exc) if isinstance(exc, MalformedInput) else f"{type(exc).__name__}: {exc}"
            self.last_error = f"frame {getattr(frame, 'index', '?')}: {detail}"
            if isinstance(exc, MalformedInput):
                log.warning("%s", self.last_error)
            else:
                log.warning("%s (the reader failed on this frame)", self.last_error,
                            exc_info=self.errors <= 3)  # the traceback of the first few only
            obs = Observation(getattr(self.tracker.setup, "game", "keltis") if self.tracker.setup else "keltis",
                              None, False, "bad-frame")
        self.frames += 1
        realigned = getattr(self.observer, "realignments", 0)
        too_far = bool(getattr(self.observer, "too_far", False))
        if realigned != self._realigned or too_far != self._too_far:
            # the reader followed a bumped table, or a registration put the camera too far: the page says so now
            self._realigned, self._too_far = realigned, too_far
            self._push_status()
        if not obs.usable:
            reason = obs.reason or "unusable"
            self.unusable[reason] = self.unusable.get(reason, 0) + 1
            if reason not in PLAY_REASONS and not logged:
                self._log_bad_frame(frame, reason)
        self.last_t = float(frame.timestamp)
        if self.frames % self.status_every == 0:
            self._push_status()
        out = self._feed(frame, obs)
        # the frames watched while that frame was read (a reach meanwhile): after it, in order
        watched, self._watched = self._watched, []
        for later, seen in watched:
            if seen is None:
                continue   # a still frame: the reading stands
            self.frames += 1
            self.watched += 1
            reason = seen.reason or "unusable"
            self.unusable[reason] = self.unusable.get(reason, 0) + 1
            self.last_t = float(later.timestamp)
            out = out + self._feed(later, seen)
        return out

    def _feed(self, frame: Any, obs: Any) -> list[Any]:
        try:
            return self.tracker.feed(obs, float(frame.timestamp), int(frame.index))
        except MalformedInput as exc:
            # a reading the game cannot have (a card-game card on a board game's pile, a tile the
            # board has not): one frame misread, never a stopped game; it counts as unusable
            self.errors += 1
            self.last_error = f"frame {getattr(frame, 'index', '?')}: the reading is not a table of this game: {exc}"
            self.unusable["invalid-reading"] = self.unusable.get("invalid-reading", 0) + 1
            self._log_bad_frame(frame, "invalid-reading", detail=str(exc))
            return self.tracker.feed(Observation(obs.game, obs.board, False, "invalid-reading"),
                                     float(frame.timestamp), int(frame.index))

    def _log_bad_frame(self, frame: Any, reason: str, detail: str = "") -> None:
        """Log a frame that cannot be read: the first of each reason, then at most one line per
        reason every bad_log_seconds with the count so far (a camera showing no board would fill
        the log at 10 lines a second; the status has every count)."""
        now = time.monotonic()
        last = self._bad_logged.get(reason)
        if last is not None and now - last < self.bad_log_seconds:
            return
        self._bad_logged[reason] = now
        log.warning("frame %s cannot be read: %s%s (%d such frames so far, counted in the status as unusable[%r])",
                    getattr(frame, "index", "?"), reason, f" ({detail})" if detail else "",
                    self.unusable.get(reason, 0), reason)

    def start(self) -> "Pipeline":
        """Run in a background thread (the web server's case)."""
        if self._thread is not None and self._thread.is_alive():
            return self
        if hasattr(self.source, "start"):
            self.source.start()
        self._thread = threading.Thread(target=self._run_quietly, name="tracking-pipeline", daemon=True)
        self._thread.start()
        return self

    def _run_quietly(self) -> None:
        try:
            self.run()
        except Exception:  # noqa: BLE001 - shown in status(); the web page keeps serving
            log.exception("tracking pipeline stopped")

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading frames and wait for the thread."""
        self._stop.set()
        if hasattr(self.source, "stop"):
            self.source.stop()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _push_status(self) -> None:
        if hasattr(self.tracker, "set_source_status"):
            try:
                self.tracker.set_source_status(self.status())
            except Exception:  # noqa: BLE001 - status is informative only
                pass

    def status(self) -> dict[str, Any]:
        """{"state", "frames", "errors", "last_error", "last_t", "fps", "observer", "source"}."""
        elapsed = (time.monotonic() - self.started) if self.started else 0.0
        source_status: Any = None
        if hasattr(self.source, "status"):
            try:
                source_status = self.source.status()
            except Exception as exc:  # noqa: BLE001
                source_status = {"error": str(exc)}
        return {"state": self.state, "frames": self.frames, "errors": self.errors, "last_error": self.last_error,
                "last_t": self.last_t, "fps": round(self.frames / elapsed, 1) if elapsed > 0 else None,
                "unusable": dict(self.unusable), "stale": self.stale, "camera_losses": self.camera_losses,
                "watched": self.watched,
                "observer": getattr(self.observer, "name", None), "source": source_status,
                "reader": self._reader_status()}

    def _reader_status(self) -> dict[str, Any] | None:
        """The observer's own status (the vision gate's decisions, a table followed), if it has one."""
        status = getattr(self.observer, "status", None)
        if not callable(status):
            return None
        try:
            return status()
        except Exception:  # noqa: BLE001 - informative only
            return None


class ServedPipeline:
    """Runs Pipeline(source, observer, tracker) in a thread; restarts replays when looping.

    resume_after: the tracker resumed an unfinished game of this replay (a restart): the first run
    continues it from the frame after this index instead of starting the game anew (-1: from the
    start, keeping the game). Later runs of a looping replay start new games as usual.
    """

    def __init__(self, make_source: Callable[..., Any], observer: Any, tracker: Any, *,
                 setup: dict[str, Any] | None = None, loop: bool = False, pause_seconds: float = 20.0,
                 origin: dict[str, Any] | None = None, resume_after: int | None = None):
        self.make_source = make_source
        self.observer = observer
        self.tracker = tracker
        self.setup = setup            # a replay's game: started anew for every run
        self.origin = origin          # the recording's identity, stored with each game it starts
        self.resume_after = resume_after
        self.loop = loop
        self.pause_seconds = pause_seconds
        self.runs = 0
        self.pipeline: Any = None
        self.state = "idle"
        self.error: str | None = None
        self._stop = threading.Event()
        self._again = threading.Event()   # restart(): play the recording again now
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> "ServedPipeline":
        """Start the first run in a background thread."""
        if self._thread is None:
            if self.setup is not None and self.resume_after is None:  # the game exists before the first page
                self._new_game()
            # the reader's warm-up, in its own thread: the page and the camera do not wait for it
            start_warm_up(self.observer)
            self._thread = threading.Thread(target=self._run, name="keltis-serve-pipeline", daemon=True)
            self._thread.start()
        return self

    def _new_game(self) -> None:
        if self.origin is not None:
            self.tracker.new_game(self.setup, origin=self.origin)
        else:
            self.tracker.new_game(self.setup)

    def _run(self) -> None:
        first = True
        while not self._stop.is_set():
            if self.setup is not None and not first:
                self._new_game()
            resume = first and self.resume_after is not None
            first = False
            source = self.make_source(self.resume_after) if resume else self.make_source()
            with self._lock:
                # (a stop() while the source was being made found no run to stop: none begins)
                stopped = self._stop.is_set()
                if not stopped:
                    self.pipeline = Pipeline(source, self.observer, self.tracker)
                    self.runs += 1
                    self.state = "running"
            if stopped:
                if hasattr(source, "stop"):
                    source.stop()
                break
            if hasattr(source, "start"):
                source.start()
            try:
                self.pipeline.run()
            except Exception as exc:  # shown on the page; the server keeps serving the last state
                self.state, self.error = "failed", str(exc)
                log.exception("the tracking pipeline stopped")
                return
            finally:
                if hasattr(source, "stop"):
                    source.stop()
            if self.pipeline.state == "failed":  # a camera that gave up: the game stays as it was, unfinished
                self.state, self.error = "failed", self.pipeline.last_error
                log.error("the tracking pipeline stopped: %s", self.error)
                return
            if self._stop.is_set():
                break
            if self._again.is_set():  # asked to start over mid-run: the next run begins at once
                self._again.clear()
                continue
            if hasattr(self.tracker, "finish"):
                self.tracker.finish("recording ended")
            if not self.loop:
                self.state = "ended"
                if not self._wait_for_again():  # the last state stays shown until restart() or stop()
                    return
                continue
            self.state = "pausing"
            if self._wait_for_again(self.pause_seconds) is None:
                break
        self.state = "stopped"

    def _wait_for_again(self, timeout: float | None = None) -> bool | None:
        """Wait for restart() (True), the timeout (False) or stop() (None)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.is_set():
            if self._again.wait(0.2):
                self._again.clear()
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
        return None

    @property
    def can_restart(self) -> bool:
        """A replay (its game is known) can be played again from its first frame."""
        return self.setup is not None

    def restart(self) -> None:
        """Play the recording again from its first frame, as a new game (a replay's "play again")."""
        if not self.can_restart:
            raise LookupError("only a replayed recording can be played again")
        if self._stop.is_set() or self._thread is None:
            raise LookupError("the pipeline is not running")
        self._again.set()
        with self._lock:
            pipeline = self.pipeline
        if self.state == "running" and pipeline is not None:
            pipeline.stop()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the current run and the loop."""
        self._stop.set()
        with self._lock:
            pipeline = self.pipeline
        if pipeline is not None:
            pipeline.stop(timeout)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """The current run's status, plus the loop's."""
        with self._lock:
            pipeline = self.pipeline
        inner = pipeline.status() if pipeline is not None else {}
        out = dict(inner)
        out.update({"serve_state": self.state, "runs": self.runs, "loop": self.loop})
        if self.error:
            out["serve_error"] = self.error
        return out

    def latest_frame(self) -> Any | None:
        """The newest camera (or recorded) frame with its image, or None."""
        with self._lock:
            pipeline = self.pipeline
        source = getattr(pipeline, "source", None)
        latest = getattr(source, "latest", None)
        if latest is None:
            return None
        try:
            return latest(timeout=0)
        except Exception:
            return None
