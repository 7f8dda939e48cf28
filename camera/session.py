"""Recorded sessions (FORMATS §3): the folder a camera or the simulator writes, and its reader.

A session folder::

    session.json        {"format": "keltis-session/1", "game", "board", "seats", "rules",
                         "calibration", "source", "started", ...extra fields}
    frames.jsonl        one line per frame: {"t": seconds since start, "file": "frames/000042.jpg"}
    frames/000042.jpg   the frames, JPEG
    truth/000042.json   optional: the observed state that frame really shows
    truth/events.jsonl  optional: the moves really made, in order
    calibration.json    optional: the table calibration (FORMATS §4) the session was made with

The writer never leaves a half-written file behind a listed name: each JPEG and JSON file is
written to a temporary name and renamed into place, and a frame is appended to frames.jsonl
(and flushed) only after its JPEG is complete. So a recording cut off by a crash or a power
loss reads back up to its last complete frame; the reader reports what it skipped in
`Session.warnings` instead of failing.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping

from engine.errors import MalformedInput, check_format
from engine.jsontext import loads as json_loads

FORMAT = "keltis-session/1"
FORMAT_KIND, FORMAT_MAJOR = "keltis-session", 1
SESSION_FILE = "session.json"
FRAMES_FILE = "frames.jsonl"
FRAMES_DIR = "frames"
TRUTH_DIR = "truth"
EVENTS_FILE = "truth/events.jsonl"
CALIBRATION_FILE = "calibration.json"
#: The fields FORMATS §3 names; anything else in session.json is kept in SessionInfo.extra.
_KNOWN_FIELDS = ("format", "game", "board", "seats", "rules", "calibration", "source", "started")
_JPEG_SOI = b"\xff\xd8"
_JPEG_EOI = b"\xff\xd9"
_INDEX_RE = re.compile(r"(\d+)$")


class SessionError(MalformedInput):
    """A session folder or one of its index files that cannot be read."""


class FrameError(MalformedInput):
    """One frame of a session that cannot be decoded (corrupt, empty or truncated JPEG)."""


def now_iso() -> str:
    """The current time as ISO-8601 with the local UTC offset, to the second."""
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True)
class SessionInfo:
    """What session.json says about a recording (FORMATS §3); unknown fields live in `extra`."""

    game: str = "keltis"
    board: str | None = None
    seats: Mapping[str, str] = field(default_factory=dict)
    rules: Mapping[str, Any] = field(default_factory=dict)
    calibration: str | None = None
    source: str = "unknown"
    started: str = field(default_factory=now_iso)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The session.json object: the FORMATS fields first, then the extra fields."""
        data: dict[str, Any] = {"format": FORMAT, "game": self.game, "board": self.board,
                                "seats": dict(self.seats), "rules": dict(self.rules),
                                "calibration": self.calibration, "source": self.source,
                                "started": self.started}
        for key, value in self.extra.items():
            if key not in data:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: Any, source: str = SESSION_FILE) -> "SessionInfo":
        """Parse a session.json object, refusing unknown major versions and wrong field types."""
        check_format(data, FORMAT_KIND, FORMAT_MAJOR, source)
        game = data.get("game")
        if not isinstance(game, str) or not game:
            raise SessionError(f"game must be a non-empty string, got {game!r}", source=source, field="game")
        board = data.get("board")
        if board is not None and not isinstance(board, str):
            raise SessionError(f"board must be a string or null, got {board!r}", source=source, field="board")
        seats = data.get("seats") or {}
        if not isinstance(seats, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in seats.items()):
            raise SessionError(f"seats must map seat names to pawn colours, got {seats!r}", source=source,
                               field="seats")
        rules = data.get("rules") or {}
        if not isinstance(rules, dict):
            raise SessionError(f"rules must be an object, got {rules!r}", source=source, field="rules")
        calibration = data.get("calibration")
        if calibration is not None and (not isinstance(calibration, str) or not _is_inside(calibration)):
            raise SessionError(f"calibration must be a file name inside the session folder or null, "
                               f"got {calibration!r}", source=source, field="calibration")
        src = data.get("source", "unknown")
        started = data.get("started", "")
        if not isinstance(src, str):
            raise SessionError(f"source must be a string, got {src!r}", source=source, field="source")
        if not isinstance(started, str):
            raise SessionError(f"started must be an ISO-8601 string, got {started!r}", source=source,
                               field="started")
        extra = {k: v for k, v in data.items() if k not in _KNOWN_FIELDS}
        return cls(game, board, dict(seats), dict(rules), calibration, src, started, extra)


@dataclass(frozen=True)
class FrameRef:
    """One listed frame: its index (from the file name), time since start, relative file, full path."""

    index: int
    t: float
    file: str
    path: Path


def frame_file(index: int) -> str:
    """The relative path of frame `index`: frames/000042.jpg."""
    return f"{FRAMES_DIR}/{index:06d}.jpg"


def truth_file(index: int) -> str:
    """The relative path of the truth for frame `index`: truth/000042.json."""
    return f"{TRUTH_DIR}/{index:06d}.json"


def _is_inside(rel: str) -> bool:
    """A relative path that stays inside the session folder (no absolute path, no '..')."""
    p = Path(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts


def _atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary file and os.replace, so readers never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def _dump_json(data: Any, *, indent: int | None = 2) -> bytes:
    return (json.dumps(data, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")


def encode_jpeg(image: Any, quality: int = 90) -> bytes:
    """JPEG bytes of a BGR (or grey) numpy image, for SessionWriter.add_frame."""
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise ValueError(f"OpenCV could not encode an image of shape {getattr(image, 'shape', None)} as JPEG")
    return buf.tobytes()


class SessionWriter:
    """Writes a session folder frame by frame; use as a context manager.

    session.json is written at once (so even a recording cut off after one frame is readable);
    each add_frame writes the JPEG atomically, then appends and flushes its frames.jsonl line.
    """

    def __init__(self, folder: str | Path, info: SessionInfo, *, overwrite: bool = False):
        self.folder = Path(folder)
        # the info must survive its own round trip through session.json (types, names, versions)
        SessionInfo.from_json(info.to_json(), source=str(self.folder / SESSION_FILE))
        self.info = info
        self._frames_fh = None
        self._events_fh = None
        self._next_index = 0
        self._last_t = -math.inf
        self.frame_count = 0
        if self.folder.exists():
            if not self.folder.is_dir():
                raise SessionError("exists and is not a folder", source=str(self.folder))
            occupied = [p.name for p in self.folder.iterdir()]
            if occupied and not overwrite:
                raise SessionError("folder is not empty (pass overwrite=True / --overwrite to replace the "
                                   "session in it)", source=str(self.folder))
            if occupied:
                self._clear()
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / FRAMES_DIR).mkdir(exist_ok=True)
        self._write_info()
        self._frames_fh = open(self.folder / FRAMES_FILE, "a", encoding="utf-8")

    def _clear(self) -> None:
        """Remove a previous session's files (only the names a session uses; nothing else)."""
        for name in (SESSION_FILE, FRAMES_FILE, CALIBRATION_FILE):
            (self.folder / name).unlink(missing_ok=True)
        for name in (FRAMES_DIR, TRUTH_DIR):
            if (self.folder / name).is_dir():
                shutil.rmtree(self.folder / name)
        if self.info.calibration and _is_inside(self.info.calibration):
            (self.folder / self.info.calibration).unlink(missing_ok=True)

    def _write_info(self) -> None:
        _atomic_write(self.folder / SESSION_FILE, _dump_json(self.info.to_json()))

    def __enter__(self) -> "SessionWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_frame(self, jpeg_bytes: bytes, t: float, truth: Mapping[str, Any] | None = None) -> FrameRef:
        """Add one frame (JPEG bytes, seconds since start, optional truth); returns its FrameRef."""
        if self._frames_fh is None:
            raise ValueError(f"{self.folder}: session writer is closed")
        if not isinstance(jpeg_bytes, (bytes, bytearray, memoryview)):
            raise TypeError(f"jpeg_bytes must be bytes, got {type(jpeg_bytes).__name__}")
        jpeg_bytes = bytes(jpeg_bytes)
        if not jpeg_bytes.startswith(_JPEG_SOI):
            raise ValueError(f"{self.folder}: frame {self._next_index} is not JPEG data "
                             f"(starts with {jpeg_bytes[:4]!r})")
        t = float(t)
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"{self.folder}: frame {self._next_index}: t must be finite and >= 0, got {t!r}")
        if t < self._last_t:
            raise ValueError(f"{self.folder}: frame {self._next_index}: t={t} goes back in time "
                             f"(previous frame t={self._last_t})")
        index = self._next_index
        rel = frame_file(index)
        _atomic_write(self.folder / rel, jpeg_bytes)
        if truth is not None:
            (self.folder / TRUTH_DIR).mkdir(exist_ok=True)
            _atomic_write(self.folder / truth_file(index), _dump_json(dict(truth), indent=None))
        # The frames.jsonl line comes last: a listed frame always has its JPEG (and truth) on disk.
        self._frames_fh.write(json.dumps({"t": round(t, 6), "file": rel}) + "\n")
        self._frames_fh.flush()
        self._next_index += 1
        self._last_t = t
        self.frame_count += 1
        return FrameRef(index, t, rel, self.folder / rel)

    def add_event(self, event: Mapping[str, Any]) -> None:
        """Append one line to truth/events.jsonl: a move really made (with the frame index after it) or
        the closing {"final": {...}} line."""
        if self._frames_fh is None:
            raise ValueError(f"{self.folder}: session writer is closed")
        if self._events_fh is None:
            (self.folder / TRUTH_DIR).mkdir(exist_ok=True)
            self._events_fh = open(self.folder / EVENTS_FILE, "a", encoding="utf-8")
        self._events_fh.write(json.dumps(dict(event), ensure_ascii=False) + "\n")
        self._events_fh.flush()

    def write_calibration(self, calibration: Mapping[str, Any], name: str = CALIBRATION_FILE) -> None:
        """Store the table calibration (validated, FORMATS §4) and point session.json at it."""
        from calibration.model import dump_calibration, parse_calibration

        if not _is_inside(name):
            raise ValueError(f"calibration file name must stay inside the session folder, got {name!r}")
        parsed = parse_calibration(dict(calibration), source=f"{self.folder / name}")
        _atomic_write(self.folder / name, dump_calibration(parsed).encode("utf-8"))
        if self.info.calibration != name:
            self.info = replace(self.info, calibration=name)
            self._write_info()

    def close(self) -> None:
        """Flush and close the index files (idempotent)."""
        for fh in (self._frames_fh, self._events_fh):
            if fh is not None:
                fh.flush()
                try:
                    os.fsync(fh.fileno())
                except OSError:
                    pass
                fh.close()
        self._frames_fh = self._events_fh = None


def _parse_index(rel: str, fallback: int) -> int:
    match = _INDEX_RE.search(Path(rel).stem)
    return int(match.group(1)) if match else fallback


class Session:
    """A recorded session opened for reading: info, listed frames and the problems found on the way."""

    def __init__(self, folder: Path, info: SessionInfo, frames: list[FrameRef], warnings: list[str]):
        self.folder = folder
        self.info = info
        self.frames = frames
        self.warnings = warnings
        self._by_index = {ref.index: ref for ref in frames}

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[FrameRef]:
        return iter(self.frames)

    def __repr__(self) -> str:
        return f"Session({str(self.folder)!r}, {len(self.frames)} frames, {len(self.warnings)} warnings)"

    def frame(self, index: int) -> FrameRef:
        """The listed frame with this index (KeyError if not listed)."""
        return self._by_index[index]

    def read_jpeg(self, ref: FrameRef) -> bytes:
        """The frame's JPEG bytes as recorded; FrameError names the file if it cannot be read."""
        try:
            return ref.path.read_bytes()
        except OSError as exc:
            raise FrameError(f"cannot read frame {ref.index}: {exc.strerror or exc}", source=str(ref.path)) from None

    def read_frame(self, ref: FrameRef) -> Any:
        """The frame decoded to a BGR numpy image; FrameError names the file for a corrupt/empty JPEG."""
        return decode_jpeg(self.read_jpeg(ref), source=str(ref.path))

    def truth(self, ref: FrameRef) -> dict[str, Any] | None:
        """The frame's truth (observed state as a dict) or None when the session has none for it."""
        path = self.folder / truth_file(ref.index)
        if not path.exists():
            return None
        try:
            data = json_loads(path.read_bytes(), str(path))
        except OSError as exc:
            raise SessionError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
        except MalformedInput as exc:
            raise SessionError(str(exc)) from None
        if not isinstance(data, dict):
            raise SessionError(f"expected a JSON object, got {type(data).__name__}", source=str(path))
        return data

    def events(self) -> list[dict[str, Any]]:
        """truth/events.jsonl as a list (empty when absent); bad lines are skipped and reported."""
        path = self.folder / EVENTS_FILE
        if not path.exists():
            return []
        events: list[dict[str, Any]] = []
        for lineno, obj, problem in _read_jsonl(path):
            if problem:
                self._warn(problem)
            elif not isinstance(obj, dict):
                self._warn(f"{path}: line {lineno}: expected a JSON object, skipped")
            else:
                events.append(obj)
        return events

    def calibration(self) -> dict[str, Any] | None:
        """The session's table calibration (migrated to the current format), or None if it has none."""
        if not self.info.calibration:
            return None
        path = self.folder / self.info.calibration
        if not path.exists():
            return None  # already reported in warnings by open_session
        from calibration.model import load_calibration

        return load_calibration(path)

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


def decode_jpeg(data: bytes, source: str = "<jpeg>") -> Any:
    """Decode JPEG bytes to a BGR image; FrameError for empty, truncated or undecodable data."""
    import cv2
    import numpy as np

    if not data:
        raise FrameError("empty JPEG file (0 bytes)", source=source)
    if not data.startswith(_JPEG_SOI):
        raise FrameError(f"not a JPEG file (starts with {data[:4]!r})", source=source)
    # libjpeg decodes a truncated file to a half-grey image with only a warning; refuse it instead.
    if not data.rstrip(b"\x00").endswith(_JPEG_EOI):
        raise FrameError(f"truncated JPEG ({len(data)} bytes, no end-of-image marker)", source=source)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameError(f"corrupt JPEG ({len(data)} bytes), OpenCV cannot decode it", source=source)
    return image


def _read_jsonl(path: Path) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed object or None, problem or None) for every non-blank line."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    ends_cleanly = raw.endswith(b"\n") or not raw
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        lineno = i + 1
        try:
            yield lineno, json_loads(line), None
        except MalformedInput:
            if i == last and not ends_cleanly:
                yield lineno, None, f"{path}: line {lineno}: truncated last line ignored ({len(line)} bytes)"
            else:
                yield lineno, None, f"{path}: line {lineno}: not valid JSON, skipped: {line[:60]!r}"


def open_session(folder: str | Path) -> Session:
    """Open a session folder for reading; SessionError if session.json is missing or malformed.

    Problems in frames.jsonl (a truncated last line, a bad line, a listed frame whose file is
    missing, frame files never listed) do not stop reading: they are listed in `.warnings`.
    """
    folder = Path(folder)
    info_path = folder / SESSION_FILE
    if not folder.is_dir():
        raise SessionError("no such session folder", source=str(folder))
    try:
        data = json_loads(info_path.read_bytes(), str(info_path))
    except FileNotFoundError:
        raise SessionError("not a recorded session: session.json is missing", source=str(folder)) from None
    except OSError as exc:
        raise SessionError(f"cannot read: {exc.strerror or exc}", source=str(info_path)) from None
    except MalformedInput as exc:
        raise SessionError(str(exc)) from None
    info = SessionInfo.from_json(data, str(info_path))

    warnings: list[str] = []
    frames: list[FrameRef] = []
    frames_path = folder / FRAMES_FILE
    listed: set[str] = set()
    if not frames_path.exists():
        warnings.append(f"{frames_path}: missing, the session lists no frames")
    else:
        seen_index: set[int] = set()
        last_t = -math.inf
        for lineno, obj, problem in _read_jsonl(frames_path):
            where = f"{frames_path}: line {lineno}"
            if problem:
                warnings.append(problem)
                continue
            if not isinstance(obj, dict):
                warnings.append(f"{where}: expected a JSON object, skipped")
                continue
            t, rel = obj.get("t"), obj.get("file")
            if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
                warnings.append(f"{where}: field 't' must be a number, got {t!r}; frame skipped")
                continue
            if not isinstance(rel, str) or not _is_inside(rel):
                warnings.append(f"{where}: field 'file' must be a path inside the session, got {rel!r}; "
                                f"frame skipped")
                continue
            listed.add(rel)
            index = _parse_index(rel, lineno - 1)
            if index in seen_index:
                warnings.append(f"{where}: frame index {index} ({rel}) listed twice; later line skipped")
                continue
            path = folder / rel
            if not path.is_file():
                warnings.append(f"{where}: frame file {rel} is missing; frame skipped")
                continue
            if t < last_t:
                warnings.append(f"{where}: t={t} goes back in time (previous {last_t})")
            last_t = max(last_t, float(t))
            seen_index.add(index)
            frames.append(FrameRef(index, float(t), rel, path))
    frames_dir = folder / FRAMES_DIR
    if frames_dir.is_dir():
        unlisted = sorted(p.name for p in frames_dir.glob("*.jpg") if f"{FRAMES_DIR}/{p.name}" not in listed)
        if unlisted:
            shown = ", ".join(unlisted[:3]) + (", ..." if len(unlisted) > 3 else "")
            warnings.append(f"{frames_dir}: {len(unlisted)} frame file(s) not listed in frames.jsonl "
                            f"(e.g. {shown}); ignored")
    if info.calibration and not (folder / info.calibration).is_file():
        warnings.append(f"{info_path}: names calibration {info.calibration!r}, which is missing")
    return Session(folder, info, frames, warnings)
