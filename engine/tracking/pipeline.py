"""The runner shared by `keltis-cam replay` and `keltis-cam serve`: frames → observer → tracker.

A source is either a vision.sources frame source (camera, or `replay:SESSION`, which decodes
every JPEG) or a `SessionFrames`: a recorded session's frame list read without decoding images,
which is all the truth observer needs. Both give objects with `.index`, `.timestamp` (and
`.image` for camera sources).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterator

from ..errors import MalformedInput
from ..observation import Observation

log = logging.getLogger("keltis.tracking")


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


class Pipeline:
    """Frames from a source, read by an observer, fed to a tracker; run() here or start() in a thread."""

    def __init__(self, source: Any, observer: Any, tracker: Any, *, status_every: int = 25):
        self.source = source
        self.observer = observer
        self.tracker = tracker
        self.status_every = status_every
        self.frames = 0
        self.errors = 0
        self.last_error: str | None = None
        self.last_t: float | None = None
        self.started: float | None = None
        self.state = "idle"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run(self) -> int:
        """Process every frame until the source ends or stop(); returns the number of frames."""
        self.state = "running"
        self.started = time.monotonic()
        try:
            iterator = self.source.frames()
            for frame in iterator:
                if self._stop.is_set():
                    break
                self.step(frame)
            self.state = "stopped" if self._stop.is_set() else "ended"
        except Exception as exc:
            self.state = "failed"
            self.last_error = str(exc)
            raise
        finally:
            self._push_status()
        return self.frames

    def step(self, frame: Any) -> list[Any]:
        """One frame: observe it (a frame that cannot be read becomes an unusable one) and feed it."""
        try:
            obs = self.observer.observe(frame)
        except MalformedInput as exc:
            self.errors += 1
            self.last_error = str(exc)
            log.warning("frame %s: %s", getattr(frame, "index", "?"), exc)
            obs = Observation(getattr(self.tracker.setup, "game", "keltis") if self.tracker.setup else "keltis",
                              None, False, "bad-frame")
        self.frames += 1
        self.last_t = float(frame.timestamp)
        if self.frames % self.status_every == 0:
            self._push_status()
        return self.tracker.feed(obs, float(frame.timestamp), int(frame.index))

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
                "observer": getattr(self.observer, "name", None), "source": source_status}
