"""`replay:SESSION`: a recorded session (FORMATS §3) played back like a camera.

speed=1 (default) keeps the recorded pace (frames arrive at their recorded times, a slow
consumer skips frames, as with a live camera); speed=N plays N times faster; speed=fast
delivers every frame as soon as the consumer takes the previous one (lossless). A corrupt
frame is logged, counted in status()["skipped"] and skipped; it never stops the replay.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from camera.session import FrameError, Session, open_session

from .base import SKIP, CaptureThreadSource, log


class ReplaySource(CaptureThreadSource):
    """Frames of a recorded session, at its pace (speed) or as fast as the consumer takes them."""

    #: a simulated session's still is rendered when asked (seconds on a loaded machine, the first one longer:
    #: the renderer is prepared then); a recording loses nothing by waiting, while reading its small video
    #: frame instead would make the reader guess a table from too few pixels (the demo: 960x540)
    still_timeout: float = 600.0

    def __init__(self, folder: str | Path, *, speed: float | None = 1.0, loop: bool = False,
                 start_after: int | None = None, still_of: Callable[[int], Any] | None = None, **kwargs: Any):
        if speed is not None and not speed > 0:
            raise ValueError(f"replay speed must be > 0 or None (as fast as possible), got {speed!r}")
        kwargs.setdefault("lossless", speed is None)
        kwargs.setdefault("max_failures", 1)  # a recording does not come back by waiting
        super().__init__(f"replay:{folder}", **kwargs)
        # Opened here, not in the thread: a malformed session is an immediate, clear error.
        self.session: Session = open_session(folder)
        self.speed = speed
        self.loop = loop
        # start_after: continue a game resumed after a restart with the frame after this index
        self._pos = 0 if start_after is None else sum(1 for ref in self.session.frames if ref.index <= start_after)
        self._t0: float | None = None
        self._skipped = 0
        for warning in self.session.warnings:
            log.warning("%s", warning)
        # still_of(frame index): the full-resolution still of the table at that frame (a simulated
        # session renders it: simulator.stills); offered on each frame as a live camera offers stills
        self._still_of = still_of
        self.takes_stills = still_of is not None
        self._delivered: int | None = None
        self.detail = {"kind": "replay", "session": str(self.session.folder), "speed": speed or "fast",
                       "total": len(self.session.frames), "skipped": 0, "warnings": list(self.session.warnings)}
        size = getattr(getattr(still_of, "__self__", None), "size", None)   # a simulated session's stills
        if size is not None:
            self.detail["still_size"] = [int(size[0]), int(size[1])]

    def _open(self) -> None:
        self._t0 = None

    def _close(self) -> None:
        pass

    def _take_still(self, of_frame: int | None = None) -> Any:
        """The still of the frame the consumer holds (`of_frame`; else the one delivered last). In a
        fast replay the capture thread reads the next frame as soon as one is taken: the frame
        delivered last may already be the next one, and a still of it made replays differ run to run."""
        index = of_frame if of_frame is not None else self._delivered
        if self._still_of is None or index is None:
            return None
        return self._still_of(index)

    def _read(self) -> tuple[Any, float, int] | None | object:
        frames = self.session.frames
        if self._pos >= len(frames):
            if not self.loop or not frames:
                return None
            self._pos = 0
            self._t0 = None
        ref = frames[self._pos]
        self._pos += 1
        if self.speed is not None:
            first_t = frames[0].t
            now = time.monotonic()
            if self._t0 is None or ref is frames[0]:  # the first frame read (also after start_after) is due now
                self._t0 = now - (ref.t - first_t) / self.speed
            due = self._t0 + (ref.t - first_t) / self.speed
            if self._sleep(due - now):
                return SKIP
        try:
            image = self.session.read_frame(ref)
        except FrameError as exc:
            self._skipped += 1
            self.detail["skipped"] = self._skipped
            log.warning("%s: frame %d skipped: %s", self.name, ref.index, exc)
            return SKIP
        self.detail["position"] = self._pos
        self._delivered = ref.index
        return image, ref.t, ref.index
