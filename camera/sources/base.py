"""The small interface every frame source has, and the capture-thread machinery they share.

A source runs one capture thread that reads the camera (or file, or recording) and publishes
only the latest frame behind a threading.Condition, as picamera2's own examples do: a slow
consumer skips frames, it never holds the camera up. When the camera disappears (unplugged,
driver error, no frame for `stall_timeout` seconds) the thread logs it, shows it in
`status()`, closes the device and reopens it with exponential backoff; consumers just see no
new frames for a while.

    with open_source("opencv:0") as source:
        for frame in source.frames():
            ...  # frame.image (BGR), frame.timestamp (s), frame.index

`lossless=True` (replay "as fast as possible") turns the latest-frame slot into a hand-over:
the thread waits until a consumer has taken each frame, so a replay delivers every frame.
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from engine.errors import MalformedInput

log = logging.getLogger("keltis.camera.sources")

#: Source states shown by status()["state"].
STARTING, RUNNING, LOST, RETRYING, STOPPED, ENDED, FAILED = (
    "starting", "running", "lost", "retrying", "stopped", "ended", "failed")


#: A picture with more than this share clipped to white has cards no reader can see (doctor, picamera2).
CLIPPED_WARN = 0.01


def clipped_share(image: Any, level: int = 250, step: int = 4) -> float:
    """The share of a BGR picture's pixels (every `step`-th each way) with a channel at `level` or more:
    clipped to white, or nearly (a lamp's hot spot, glare on a glossy table)."""
    sample = image[::step, ::step]
    if sample.size == 0:
        return 0.0
    return float((sample.max(axis=2) >= level).mean()) if sample.ndim == 3 else float((sample >= level).mean())


class SourceError(MalformedInput):
    """A source spec that names no known source, or a source that cannot exist (missing file)."""


class SourceUnavailable(RuntimeError):
    """The device is not there or cannot be opened right now (retried with backoff)."""


class SourceLost(RuntimeError):
    """A running device stopped delivering frames (retried with backoff)."""


class SourceFatal(RuntimeError):
    """A problem no retry can fix (bad configuration): the source stops in state "failed"."""


@dataclass(frozen=True)
class Frame:
    """One delivered frame: BGR image (read-only: shared by all consumers, copy it to draw on it),
    timestamp in seconds (sensor clock or recorded time), the source's frame index, seq, the
    delivery counter `latest(newer_than=...)` compares, and `small`: a small BGR picture of the same
    instant when the camera gives one for free (picamera2's low-resolution stream), else None
    (consumers that need one scale `image` down). `still`: when the camera can take one, a callable
    giving a full-resolution picture of the table now (it waits for the camera: ~0.5 s on a Pi while
    the sensor switches mode) or None when it could not; None when the camera has no such mode."""

    image: Any
    timestamp: float
    index: int
    seq: int = 0
    received: float = field(default=0.0, compare=False)  # time.monotonic() when published
    small: Any = field(default=None, compare=False, repr=False)
    still: Callable[[], Any] | None = field(default=None, compare=False, repr=False)


_END = object()


class FrameSource:
    """The interface: start/stop, latest(), frames(), status(), context manager."""

    name = "source"

    def start(self) -> "FrameSource":
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def latest(self, timeout: float | None = 0.0, newer_than: int | None = None) -> Frame | None:
        raise NotImplementedError

    def frames(self, idle_timeout: float | None = None) -> Iterator[Frame]:
        raise NotImplementedError

    def status(self) -> dict[str, Any]:
        raise NotImplementedError

    def __enter__(self) -> "FrameSource":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class CaptureThreadSource(FrameSource):
    """A FrameSource with one capture thread; subclasses implement _open, _read and _close.

    _open() raises SourceUnavailable (or anything) when the device cannot be opened, SourceFatal
    when retrying is pointless. _read() returns (image, timestamp, index or None), or None at the
    end of a finite stream, and raises on loss. _close() releases the device and must not raise.
    """

    def __init__(self, name: str, *, retry_initial: float = 0.5, retry_max: float = 10.0,
                 stall_timeout: float = 5.0, lossless: bool = False, max_failures: int | None = None):
        self.name = name
        self.retry_initial = retry_initial
        self.retry_max = retry_max
        self.stall_timeout = stall_timeout
        self.lossless = lossless
        self.max_failures = max_failures  # None: retry for ever (a camera may come back)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frame: Frame | None = None
        self._taken_seq = 0
        self._seq = 0
        self._state = STOPPED
        self._error: str | None = None
        self._error_at: float | None = None
        self._failures = 0
        self._reconnects = 0
        self._opened_once = False
        self._recent = deque(maxlen=30)
        self._started_at: float | None = None
        self._still_asked = self._still_done = 0     # stills asked for / answered (the capture thread takes them)
        self._still_picture: Any = None
        self._still_for: int | None = None           # the index of the frame the consumer asked about
        self._serving_still = False                  # the capture thread is taking a still right now
        self.detail: dict[str, Any] = {}

    # -- to implement
    def _open(self) -> None:
        raise NotImplementedError

    def _read(self) -> tuple[Any, float, int | None] | None:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    #: Whether _take_still() gives full-resolution pictures (a subclass that can take them says so).
    takes_stills = False

    def _take_still(self, of_frame: int | None = None) -> Any:
        """On the capture thread: a full-resolution picture now (the subclass's camera), or None.
        `of_frame`: the index of the frame the consumer holds (a live camera takes the table as it is
        now; a recording gives that frame's still, whatever it has read since)."""
        return None

    #: how long a consumer waits for a still before reading the video frame instead: a live camera takes one in
    #: ~0.5 s, and the table moves on meanwhile; a recording (ReplaySource) loses nothing by waiting longer
    still_timeout: float = 5.0

    def still(self, timeout: float | None = None, of_frame: int | None = None) -> Any:
        """A full-resolution picture of the table, taken by the capture thread between two frames
        (only it may talk to the camera); None when none came within `timeout` seconds (default
        `still_timeout`). Each Frame's `still` asks it with that frame's index."""
        timeout = self.still_timeout if timeout is None else timeout
        with self._cond:
            ticket = self._still_asked = self._still_asked + 1
            self._still_for = of_frame
            self._cond.notify_all()
            self._cond.wait_for(lambda: self._still_done >= ticket or self._finished() or self._stop.is_set(),
                                timeout)
            got = self._still_done >= ticket
            picture = self._still_picture if got else None
        if not got and not self._stop.is_set() and not self._finished():
            log.warning("%s: no full-resolution still within %.1f s (frame %s): the video frame is read instead",
                        self.name, timeout, of_frame)
        return picture

    def _serve_still(self) -> None:
        """On the capture thread: answer the stills asked for since the last one (one picture for all)."""
        with self._cond:
            asked, of_frame = self._still_asked, self._still_for
        if asked <= self._still_done:
            return
        self._serving_still = True
        try:
            picture = self._take_still(of_frame)
        except Exception as exc:  # noqa: BLE001 - a failed still is no lost camera; the video frame is read
            log.warning("%s: the full-resolution still failed: %s", self.name, exc)
            picture = None
        finally:
            self._serving_still = False
        if picture is not None:
            try:
                picture.flags.writeable = False
            except (AttributeError, ValueError):
                pass
        with self._cond:
            if picture is not None and getattr(picture, "ndim", 0) >= 2:
                # the picture the reader reads (the camera check measures the board's px/mm in it)
                self.detail["still_size"] = [int(picture.shape[1]), int(picture.shape[0])]
            self._still_picture, self._still_done = picture, asked
            self._cond.notify_all()

    # -- lifecycle
    def start(self) -> "CaptureThreadSource":
        """Start the capture thread (idempotent); returns self."""
        with self._cond:
            if self._thread is not None and self._thread.is_alive():
                return self
            self._stop.clear()
            self._state = STARTING
            self._started_at = time.monotonic()
            self._thread = threading.Thread(target=self._run, name=f"capture:{self.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the capture thread and release the device (idempotent)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s: capture thread did not stop within %.1f s (device blocked)", self.name, timeout)
        with self._cond:
            if self._state not in (ENDED, FAILED):
                self._state = STOPPED
            self._cond.notify_all()

    def _set_state(self, state: str, error: str | None = None, *, failed: bool = False) -> None:
        with self._cond:
            self._state = state
            if failed:
                self._failures += 1
            if error is not None:
                self._error = error
                self._error_at = time.time()
            self._cond.notify_all()

    def _sleep(self, seconds: float) -> bool:
        """Wait up to `seconds` unless stopped; True when stop was requested. A camera that takes
        stills answers one asked for meanwhile (a consumer must not wait for the next frame)."""
        if not self.takes_stills:
            return self._stop.wait(max(0.0, seconds))
        end = time.monotonic() + max(0.0, seconds)
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._still_asked > self._still_done or self._stop.is_set(),
                                    max(0.0, end - time.monotonic()))
            if self._stop.is_set():
                return True
            self._serve_still()
            if time.monotonic() >= end:
                return False

    def _backoff(self) -> float:
        return min(self.retry_max, self.retry_initial * (2 ** max(0, self._failures - 1)))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._open()
            except SourceFatal as exc:
                log.error("%s: %s", self.name, exc)
                self._set_state(FAILED, str(exc))
                return
            except Exception as exc:  # noqa: BLE001 - any driver error means "not available now"
                msg = f"cannot open: {exc}"
                self._set_state(RETRYING, msg, failed=True)
                log.warning("%s: %s (retry %d in %.1f s)", self.name, msg, self._failures, self._backoff())
                if self._give_up() or self._sleep(self._backoff()):
                    break
                continue
            if self._opened_once:
                self._reconnects += 1
                log.info("%s: reconnected", self.name)
            self._opened_once = True
            lost = self._pump()
            self._safe_close()
            if lost is _END:
                self._set_state(ENDED)
                return
            if lost is None:  # stopped
                break
            self._set_state(LOST, f"lost: {lost}", failed=True)
            log.warning("%s: camera lost: %s (retry %d in %.1f s)", self.name, lost, self._failures, self._backoff())
            if self._give_up() or self._sleep(self._backoff()):
                break
        with self._cond:
            if self._state not in (ENDED, FAILED):
                self._state = STOPPED
            self._cond.notify_all()

    def _give_up(self) -> bool:
        if self.max_failures is not None and self._failures >= self.max_failures:
            self._set_state(FAILED, f"{self._error} (gave up after {self._failures} attempts)")
            return True
        return False

    def _safe_close(self) -> None:
        try:
            self._close()
        except Exception as exc:  # noqa: BLE001 - closing a dead device may fail; nothing to do
            log.debug("%s: error while closing: %s", self.name, exc)

    def _pump(self) -> object:
        """Read frames until stop (returns None), end of stream (_END) or loss (the error text)."""
        while not self._stop.is_set():
            try:
                if self.takes_stills:
                    self._serve_still()
                item = self._read()
            except Exception as exc:  # noqa: BLE001 - every read failure is a loss to recover from
                return f"{type(exc).__name__}: {exc}" if not isinstance(exc, SourceLost) else str(exc)
            if item is None:
                return _END
            if item is _SKIP:
                continue
            image, timestamp, index, *small = item
            self._publish(image, timestamp, index, small[0] if small else None)
            if self.lossless:
                # the consumer may ask for a still of the frame it holds before it takes the next
                while True:
                    with self._cond:
                        self._cond.wait_for(lambda: self._taken_seq >= self._seq or self._stop.is_set()
                                            or (self.takes_stills and self._still_asked > self._still_done))
                        done = self._taken_seq >= self._seq or self._stop.is_set()
                    if self.takes_stills:
                        self._serve_still()
                    if done:
                        break
        return None

    def _publish(self, image: Any, timestamp: float, index: int | None, small: Any = None) -> None:
        now = time.monotonic()
        # Every consumer gets the same arrays: make them read-only so none can change them for the others.
        for array in (image, small):
            try:
                array.flags.writeable = False
            except (AttributeError, ValueError):
                pass
        with self._cond:
            self._seq += 1
            frame_index = self._seq - 1 if index is None else int(index)
            # the frame's still is of that frame (a replay may have read the next one meanwhile)
            still = functools.partial(self.still, of_frame=frame_index) if self.takes_stills else None
            self._frame = Frame(image, float(timestamp), frame_index, self._seq, now, small, still)
            self._recent.append(now)
            if self._state != RUNNING:
                self._state = RUNNING
            self._failures = 0
            self._cond.notify_all()

    # -- consumers
    def _finished(self) -> bool:
        return self._state in (ENDED, FAILED, STOPPED)

    def latest(self, timeout: float | None = 0.0, newer_than: int | None = None) -> Frame | None:
        """The newest frame (newer than seq `newer_than` if given), waiting up to `timeout` seconds for
        one (None: until one comes or the source ends); None if there is none."""
        def ready() -> bool:
            f = self._frame
            return (f is not None and (newer_than is None or f.seq > newer_than)) or self._finished()

        with self._cond:
            if timeout is None or timeout > 0:
                self._cond.wait_for(ready, timeout)
            f = self._frame
            if f is None or (newer_than is not None and f.seq <= newer_than):
                return None
            if f.seq > self._taken_seq:
                self._taken_seq = f.seq
                self._cond.notify_all()
            return f

    def frames(self, idle_timeout: float | None = None) -> Iterator[Frame]:
        """Every new frame as it comes (skipping those a slow consumer missed, unless lossless) until the
        source ends or is stopped, or no frame came for `idle_timeout` seconds."""
        last = 0
        while True:
            f = self.latest(timeout=idle_timeout if idle_timeout is not None else 0.5, newer_than=last)
            if f is not None:
                last = f.seq
                yield f
                continue
            with self._cond:
                if self._finished():
                    return
            if idle_timeout is not None:
                return

    def status(self) -> dict[str, Any]:
        """state, last error, frames delivered, fps and more, for logs and the web page."""
        now = time.monotonic()
        with self._cond:
            recent = list(self._recent)
            state = self._state
            last_frame_age = None if self._frame is None else now - self._frame.received
            # A driver that blocks without raising: report the stall even before the thread notices.
            # A lossless source waits for its consumer, and a still takes the camera a while: no stall.
            waiting = self.lossless or self._serving_still
            if state == RUNNING and last_frame_age is not None and last_frame_age > self.stall_timeout and not waiting:
                state = LOST
            fps = (len(recent) - 1) / (recent[-1] - recent[0]) if len(recent) >= 2 and recent[-1] > recent[0] else None
            return {"source": self.name, "state": state, "error": self._error,
                    "error_at": self._error_at, "frames": self._seq, "fps": None if fps is None else round(fps, 2),
                    "last_frame_age": None if last_frame_age is None else round(last_frame_age, 3),
                    "reconnects": self._reconnects, "failures": self._failures, **self.detail}


#: Returned by _read to skip an unreadable item (a corrupt recorded frame) without counting a loss.
_SKIP = object()
SKIP = _SKIP
