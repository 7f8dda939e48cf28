"""`opencv:N` (a V4L2/USB camera through cv2.VideoCapture) and `opencv:/path/video.mp4` (a file).

A camera is opened with the V4L2 backend on Linux, asked for MJPG at the wanted resolution
(USB cameras deliver large frames only compressed) and a one-frame buffer (latest frame, not
a stale queue). A failed read means the camera is lost: it is released and reopened with
backoff. A video file plays at its own frame rate (speed=1), N times faster, or as fast as
the consumer takes frames (speed=fast); its end ends the source (or loops).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from .base import SKIP, CaptureThreadSource, SourceFatal, SourceLost, SourceUnavailable


def _to_bgr(image: Any) -> Any:
    import cv2

    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def v4l2_device_name(index: int) -> str | None:
    """The kernel's name for /dev/videoN (e.g. "HD Pro Webcam C920"), or None."""
    try:
        return Path(f"/sys/class/video4linux/video{index}/name").read_text().strip() or None
    except OSError:
        return None


class OpenCVSource(CaptureThreadSource):
    """A USB/V4L2 camera (int device) or a video file (path) through cv2.VideoCapture."""

    def __init__(self, device: int | str, *, width: int | None = None, height: int | None = None,
                 fps: float | None = None, fourcc: str | None = "MJPG", speed: float | None = 1.0,
                 loop: bool = False, capture_factory: Callable[..., Any] | None = None, **kwargs: Any):
        self.is_file = not isinstance(device, int)
        if self.is_file:
            if not Path(device).is_file():
                from .base import SourceError

                raise SourceError("no such video file", source=str(device))
            kwargs.setdefault("lossless", speed is None)
            kwargs.setdefault("max_failures", 1)
        super().__init__(f"opencv:{device}", **kwargs)
        self.device = device
        self.width, self.height, self.fps, self.fourcc = width, height, fps, fourcc
        self.speed, self.loop = speed, loop
        self._factory = capture_factory
        self._cap: Any = None
        self._t0: float | None = None
        self._first_pos: float | None = None
        self._counter = 0
        self.detail = {"kind": "opencv", "device": str(device), "file": self.is_file}

    def _make_capture(self) -> Any:
        import cv2

        if self._factory is not None:
            return self._factory(self.device)
        if self.is_file:
            return cv2.VideoCapture(str(self.device))
        backend = cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
        return cv2.VideoCapture(int(self.device), backend)

    def _open(self) -> None:
        import cv2

        if not self.is_file and sys.platform.startswith("linux") and self._factory is None \
                and not os.path.exists(f"/dev/video{self.device}"):
            raise SourceUnavailable(f"/dev/video{self.device} does not exist (camera unplugged?)")
        cap = self._make_capture()
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            if self.is_file:
                raise SourceFatal(f"{self.device}: OpenCV cannot open this video file")
            raise SourceUnavailable(f"cannot open camera {self.device} (busy, or not a capture device)")
        if not self.is_file:
            if self.fourcc:
                cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*self.fourcc))
            if self.width:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            if self.height:
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            if self.fps:
                cap.set(cv2.CAP_PROP_FPS, self.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            self.detail["name"] = v4l2_device_name(int(self.device))
        self.detail["size"] = [int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))]
        self.detail["nominal_fps"] = round(float(cap.get(cv2.CAP_PROP_FPS) or 0), 2) or None
        self._cap = cap
        self._t0 = None
        self._first_pos = None

    def _close(self) -> None:
        if self._cap is not None:
            cap, self._cap = self._cap, None
            cap.release()

    def _read(self) -> tuple[Any, float, int] | None:
        import cv2

        ok, image = self._cap.read()
        if not ok or image is None:
            if self.is_file:
                if self.loop and self._counter:
                    self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    self._t0 = None
                    self._first_pos = None
                    ok, image = self._cap.read()
                if not ok or image is None:
                    return None
            else:
                raise SourceLost(f"camera {self.device} stopped delivering frames (unplugged or driver error)")
        now = time.monotonic()
        if self.is_file:
            pos = float(self._cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0) / 1000.0
            if self._first_pos is None:
                self._first_pos, self._t0 = pos, now
            timestamp = pos
            if self.speed is not None:
                due = self._t0 + (pos - self._first_pos) / self.speed
                if self._sleep(due - now):
                    return SKIP  # stopping
        else:
            # V4L2 reports the driver's buffer time (CLOCK_MONOTONIC) in ms; other backends may not.
            pos = float(self._cap.get(cv2.CAP_PROP_POS_MSEC) or 0.0) / 1000.0
            timestamp = pos if pos > 0 else now
        index = self._counter
        self._counter += 1
        return _to_bgr(image), timestamp, index
