"""Frame sources behind one small interface, chosen explicitly by a spec string, never by fallback.

    picamera2[:N]                       a Raspberry Pi camera (picamera2, imported only then)
    opencv:N                            a V4L2/USB camera, /dev/videoN
    opencv:/path/video.mp4[?speed=..]   a video file (speed=1 its own pace, N, or fast; loop=1)
    replay:SESSION[?speed=N|fast]       a recorded session folder (FORMATS §3); loop=1 repeats it

`open_source(spec, **opts)` returns an unstarted source; use it as a context manager.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from .base import (ENDED, FAILED, LOST, RETRYING, RUNNING, STARTING, STOPPED, CaptureThreadSource, Frame,
                   FrameSource, SourceError, SourceFatal, SourceLost, SourceUnavailable)

__all__ = ["open_source", "parse_spec", "Frame", "FrameSource", "CaptureThreadSource", "SourceError",
           "SourceFatal", "SourceLost", "SourceUnavailable", "SPEC_HELP",
           "STARTING", "RUNNING", "LOST", "RETRYING", "STOPPED", "ENDED", "FAILED"]

SPEC_HELP = ("picamera2[:N] (Raspberry Pi camera), opencv:N (USB camera /dev/videoN), opencv:/path/video.mp4, "
             "replay:SESSION_FOLDER[?speed=N|fast]")

#: Query options each kind accepts, with their parsers.
_BOOL = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _speed(value: str) -> float | None:
    if value in ("fast", "max", "0"):
        return None
    speed = float(value)
    if not speed > 0:
        raise ValueError("must be > 0 or 'fast'")
    return speed


def _bool(value: str) -> bool:
    return _BOOL[value.lower()]


def _stills(value: str) -> bool | str:
    return "auto" if value.lower() == "auto" else _bool(value)


def _size(value: str) -> tuple[int, int]:
    w, _, h = value.lower().partition("x")
    return int(w), int(h)


def _lores(value: str) -> tuple[int, int] | str | None:
    if value.lower() in ("off", "none", "0"):
        return None
    if value.lower() == "auto":
        return "auto"
    return _size(value)


_OPTIONS = {
    "picamera2": {"size": _size, "fps": float, "settle_seconds": float, "autofocus": str, "lens_position": float,
                  "capture_timeout": float, "lores": _lores, "stills": _stills, "highlights": str},
    "opencv": {"width": int, "height": int, "fps": float, "fourcc": str, "speed": _speed, "loop": _bool},
    "replay": {"speed": _speed, "loop": _bool},
}


def parse_spec(spec: str) -> tuple[str, str, dict[str, Any]]:
    """(kind, target, options) from a source spec; SourceError for anything that is not one."""
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"no frame source given; use one of: {SPEC_HELP}", field="source")
    body, _, query = spec.strip().partition("?")
    kind, sep, target = body.partition(":")
    kind = kind.lower()
    if kind not in _OPTIONS:
        raise SourceError(f"unknown frame source {spec!r}; use one of: {SPEC_HELP}", field="source")
    if kind in ("opencv", "replay") and not target:
        raise SourceError(f"{spec!r} needs a target: {kind}:{'N or a video file' if kind == 'opencv' else 'FOLDER'}",
                          field="source")
    options: dict[str, Any] = {}
    for key, values in parse_qs(query, keep_blank_values=True).items():
        parser = _OPTIONS[kind].get(key)
        if parser is None:
            raise SourceError(f"{spec!r}: unknown option {key!r} for {kind} (known: {', '.join(_OPTIONS[kind])})",
                              field="source")
        try:
            options[key] = parser(values[-1])
        except (ValueError, KeyError) as exc:
            raise SourceError(f"{spec!r}: bad value {values[-1]!r} for {key}: {exc}", field="source") from None
    return kind, target, options


def open_source(spec: str, **opts: Any) -> CaptureThreadSource:
    """A new (unstarted) frame source for `spec`; `opts` (e.g. from the config file) are defaults that
    the spec's own ?options override. Raises SourceError for an unknown spec or a missing file/folder."""
    kind, target, options = parse_spec(spec)
    merged = dict(opts) | options
    if kind == "picamera2":
        from .pi_camera import Picamera2Source

        try:
            num = int(target) if target else 0
        except ValueError:
            raise SourceError(f"{spec!r}: camera number must be an integer", field="source") from None
        return Picamera2Source(num, **_only(merged, _OPTIONS["picamera2"], extra=("lock_exposure",
                                                                                  "lock_white_balance",
                                                                                  "buffer_count", "max_corrupt_run",
                                                                                  *_COMMON)))
    if kind == "opencv":
        from .opencv import OpenCVSource

        device: int | str = int(target) if target.isdigit() else target
        return OpenCVSource(device, **_only(merged, _OPTIONS["opencv"], extra=("capture_factory", *_COMMON)))
    from pathlib import Path

    from .replay import ReplaySource

    if not Path(target).is_dir():
        raise SourceError("no such session folder", source=target, field="source")
    return ReplaySource(target, **_only(merged, _OPTIONS["replay"], extra=("start_after", "still_of", *_COMMON)))


_COMMON = ("retry_initial", "retry_max", "stall_timeout", "max_failures")


def _only(opts: dict[str, Any], known: dict[str, Any], extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """The options one kind of source takes (config defaults for other kinds are dropped)."""
    return {k: v for k, v in opts.items() if k in known or k in extra}
