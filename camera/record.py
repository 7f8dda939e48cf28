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
from typing import Any, Callable, Iterator, Mapping

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
        end: dict[str, str] = {}
        for frame in _source_frames(source, stop, end):
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
        else:
            stopped_by = end["by"]
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    finally:
        writer.close()
        source.stop()
    return RecordResult(Path(out), written, last_t, stopped_by)


def _source_frames(source: FrameSource, stop: threading.Event, end: dict[str, str]) -> Iterator[Any]:
    """Every new frame of a started source until it ends or `stop` is set; `end["by"]` then says which
    ("interrupted", "source-failed", "source-ended")."""
    last_seq = 0
    while True:
        frame = _next_frame(source, last_seq, stop)
        if frame is None:
            end["by"] = "interrupted" if stop.is_set() else (
                "source-failed" if source.status().get("state") == "failed" else "source-ended")
            return
        last_seq = frame.seq
        yield frame


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


# ------------------------------------------------------------------- what the live pipeline used

LIVE_FILE = "live.jsonl"
SMALL_DIR = "small"


class LiveRecorder:
    """Records what a live pipeline used, frame by frame, into a session folder (FORMATS §3 plus
    docs/formats-extensions.md "live recordings"): every camera frame's small picture
    (small/NNNNNN.jpg) and one live.jsonl line with its time, the gate's decision and the reading
    the tracker was given; the stills the reader read in full as the session's frames (frames/,
    frames.jsonl: any tool replays them). `keltis-cam replay SESSION --observer recorded` feeds the
    recorded readings to the tracker again, exactly; `--observer vision` reads the stills afresh.

    The small pictures are JPEG (quality `small_quality`); the readings are stored as given, so a
    bug report reproduces the tracker's input exactly even where the pictures lost detail.
    """

    def __init__(self, writer: Any, *, quality: int = 90, small_quality: int = 90, small_width: int = 320):
        self.writer = writer
        self.quality = quality
        self.small_quality = small_quality
        self.small_width = small_width
        self.first_ts: float | None = None
        self.last_t = 0.0
        self.count = 0
        (writer.folder / SMALL_DIR).mkdir(exist_ok=True)
        self._fh = open(writer.folder / LIVE_FILE, "a", encoding="utf-8")

    def add(self, frame: Any, decision: str | None, observation: Any, image: Any = None) -> None:
        """One camera frame the pipeline took: its small picture, the gate's decision, the reading
        (an engine Observation or its JSON), and the still when the reader read it in full."""
        import json

        import cv2

        if self.first_ts is None:
            self.first_ts = float(frame.timestamp)
        t = max(self.last_t, float(frame.timestamp) - self.first_ts)
        small = getattr(frame, "small", None)
        full = image if image is not None else getattr(frame, "image", None)
        if small is None and full is not None:
            h, w = full.shape[:2]
            small = cv2.resize(full, (self.small_width, max(2, round(self.small_width * h / w / 2) * 2)),
                               interpolation=cv2.INTER_AREA)
        line: dict[str, Any] = {"t": round(t, 6), "camera_index": int(getattr(frame, "index", self.count)),
                                "decision": decision}
        if small is not None:
            rel = f"{SMALL_DIR}/{self.count:06d}.jpg"
            (self.writer.folder / rel).write_bytes(encode_jpeg(small, self.small_quality))
            line["small"] = rel
        if decision == "read" and full is not None:
            ref = self.writer.add_frame(encode_jpeg(full, self.quality), t)
            line["frame"] = ref.index
        if observation is not None:
            line["observation"] = observation.to_json() if hasattr(observation, "to_json") else dict(observation)
        self._fh.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()
        self.count += 1
        self.last_t = t

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class RecordingObserver:
    """An observer that records what it was shown and what it said (LiveRecorder), then passes the
    reading on: the live pipeline keeps working exactly as without it."""

    def __init__(self, observer: Any, recorder: LiveRecorder):
        self.observer = observer
        self.recorder = recorder
        self.name = getattr(observer, "name", "vision")
        self.failed: str | None = None

    def observe(self, frame: Any) -> Any:
        obs = self.observer.observe(frame)
        if self.failed is None:
            decision = getattr(self.observer, "last_decision", None)
            try:
                # reuse: the reading was recorded when it was made; the line says so and repeats nothing
                self.recorder.add(frame, decision, None if decision == "reuse" else obs,
                                  getattr(self.observer, "last_image", None) if decision == "read" else None)
            except OSError as exc:  # a full card must not stop the game: say so once, keep reading
                self.failed = str(exc)
                log.warning("recording stopped (the game goes on): %s", exc)
        return obs

    def status(self) -> dict[str, Any]:
        inner = getattr(self.observer, "status", None)
        out = dict(inner()) if callable(inner) else {}
        out["recorded"] = self.recorder.count
        if self.failed:
            out["recording_failed"] = self.failed
        return out

    @property
    def realignments(self) -> int:
        return getattr(self.observer, "realignments", 0)


@dataclass(frozen=True)
class LiveLine:
    """One camera frame of a live recording: when, the gate's decision, the reading given (None on
    `reuse` lines: the last reading stood), the still read (frames/ index) if any."""

    index: int
    t: float
    decision: str | None
    observation: Mapping[str, Any] | None
    frame: int | None = None
    small: str | None = None


def read_live_lines(folder: str | Path) -> list[LiveLine]:
    """The live.jsonl of a recording made by LiveRecorder; SessionError naming the file and line for
    a line that is not one (a recording cut off mid-line loses only that line, and says so)."""
    import json

    from .session import SessionError

    path = Path(folder) / LIVE_FILE
    if not path.is_file():
        raise SessionError("no live.jsonl: this session was not recorded from a live pipeline "
                           "(record it with `keltis-cam record --live`)", source=str(path))
    out: list[LiveLine] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            d = json.loads(text)
            t = float(d["t"])
            obs = d.get("observation")
            if obs is not None and not isinstance(obs, dict):
                raise ValueError("observation must be an object")
        except (ValueError, KeyError, TypeError) as exc:
            if n == len(lines):   # the last line of a recording cut off mid-write
                log.warning("%s line %d: incomplete last line skipped (%s)", path, n, exc)
                break
            raise SessionError(f"line {n} is not a live frame: {exc}", source=str(path), field="live.jsonl") from None
        out.append(LiveLine(len(out), t, d.get("decision"), obs, d.get("frame"), d.get("small")))
    return out


def record_live(source: FrameSource, out: str | Path, info: SessionInfo, observer: Any, *,
                duration: float | None = None, max_frames: int | None = None, quality: int = 90,
                calibration: Mapping[str, Any] | None = None, overwrite: bool = False,
                stop: threading.Event | None = None,
                on_frame: Callable[[int, float, dict[str, Any]], None] | None = None) -> RecordResult:
    """Record what the live pipeline uses (LiveRecorder): every frame the source gives goes through
    `observer` (the gated vision observer a served game uses) as it would at the table."""
    stop = stop or threading.Event()
    stopped_by = "source-ended"
    writer = SessionWriter(out, info, overwrite=overwrite)
    recorder = LiveRecorder(writer, quality=quality)
    recording = RecordingObserver(observer, recorder)
    source.start()
    try:
        if calibration is not None:
            writer.write_calibration(calibration)
        end: dict[str, str] = {}
        for frame in _source_frames(source, stop, end):
            recording.observe(frame)
            if on_frame is not None:
                on_frame(recorder.count, recorder.last_t, source.status())
            if max_frames is not None and recorder.count >= max_frames:
                stopped_by = "frames"
                break
            if duration is not None and recorder.last_t >= duration:
                stopped_by = "duration"
                break
        else:
            stopped_by = end["by"]
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    finally:
        recorder.close()
        writer.close()
        source.stop()
    return RecordResult(Path(out), recorder.count, recorder.last_t, stopped_by)
