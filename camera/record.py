"""Record a session folder (FORMATS §3) from any frame source: `keltis-cam record OUT --source ...`.

Frames are taken at most `fps` times per second of *sensor* time (a game changes slowly; one
or two frames a second keep an hour's game to a few hundred MB), JPEG-encoded and written
through SessionWriter, so an interrupted recording (Ctrl-C, power cut) stays readable.
Camera loss during the recording is the source's business: it retries, the recording waits.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from .session import SessionInfo, SessionWriter, encode_jpeg, now_iso
from .sources.base import FrameSource

log = logging.getLogger("keltis.camera.record")


@dataclass(frozen=True)
class RecordResult:
    """What a recording wrote."""

    folder: Path
    frames: int
    seconds: float
    stopped_by: str  # "frames", "duration", "source-ended", "interrupted", "source-failed"


def source_kind(spec_or_name: str) -> str:
    """The FORMATS §3 "source" value for a source spec: picamera2, opencv, replay, ..."""
    return spec_or_name.split(":", 1)[0].split("?", 1)[0] or "unknown"


def record_session(source: FrameSource, out: str | Path, info: SessionInfo, *, fps: float | None = 1.0,
                   duration: float | None = None, max_frames: int | None = None, quality: int = 90,
                   calibration: Mapping[str, Any] | None = None, overwrite: bool = False,
                   stop: threading.Event | None = None,
                   on_frame: Callable[[int, float, dict[str, Any]], None] | None = None) -> RecordResult:
    """Record frames from a started-or-not source into the session folder `out` until a limit is hit,
    the source ends or fails, or `stop` is set. KeyboardInterrupt ends it cleanly too."""
    stop = stop or threading.Event()
    min_gap = 0.0 if not fps else 1.0 / fps
    written = 0
    first_ts: float | None = None
    last_written_ts: float | None = None
    last_t = 0.0
    stopped_by = "source-ended"
    writer = SessionWriter(out, info, overwrite=overwrite)
    source.start()
    try:
        if calibration is not None:
            writer.write_calibration(calibration)
        last_seq = 0
        while not stop.is_set():
            frame = _next_frame(source, last_seq, stop)
            if frame is None:
                stopped_by = "interrupted" if stop.is_set() else (
                    "source-failed" if source.status().get("state") == "failed" else "source-ended")
                break
            last_seq = frame.seq
            if first_ts is None:
                first_ts = frame.timestamp
            elif last_written_ts is not None and frame.timestamp < last_written_ts:
                # the clock went back (a looped file, a camera clock reset): continue from the last t
                first_ts = frame.timestamp - last_t - min_gap
                last_written_ts = None
            if last_written_ts is not None and frame.timestamp - last_written_ts < min_gap - 1e-6:
                continue
            # t is sensor time since the first frame; never backwards (a looped file, a clock reset)
            t = max(last_t, frame.timestamp - first_ts)
            writer.add_frame(encode_jpeg(frame.image, quality), t)
            written += 1
            last_t, last_written_ts = t, frame.timestamp
            if on_frame is not None:
                on_frame(written, t, source.status())
            if max_frames is not None and written >= max_frames:
                stopped_by = "frames"
                break
            if duration is not None and t >= duration:
                stopped_by = "duration"
                break
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    finally:
        writer.close()
        source.stop()
    return RecordResult(Path(out), written, last_t, stopped_by)


def _next_frame(source: FrameSource, last_seq: int, stop: threading.Event) -> Any:
    """The next frame after seq `last_seq`, or None when the source ended or `stop` was set."""
    while not stop.is_set():
        frame = source.latest(timeout=0.25, newer_than=last_seq)
        if frame is not None:
            return frame
        if source.status().get("state") in ("ended", "failed", "stopped"):
            return source.latest(timeout=0, newer_than=last_seq)
    return None


def default_session_name() -> str:
    """A folder name for a new recording: 2025-11-22T20-15-03."""
    return now_iso()[:19].replace(":", "-")
