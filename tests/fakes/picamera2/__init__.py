"""A fake `picamera2` package mirroring the real API keltis-cam uses (see tests/fakes/README.md).

Real behaviours mirrored:
- Picamera2(camera_num) acquires the camera: RuntimeError("Camera __init__ sequence did not
  complete.") when libcamera has no such camera or another Picamera2 holds it.
- create_video_configuration(): default main XBGR8888 1280x720, buffer_count 6, controls with
  FrameDurationLimits (33333, 33333); only "format" and "size" keys in a stream (ValueError
  otherwise); configure() checks that size is a tuple of two even ints and the format is known
  (RuntimeError), and applies the configuration's controls.
- start() needs a configuration; frames then come at the frame rate, whether taken or not.
- set_controls() accepts only controls in camera_controls ("Control X is not advertied by
  libcamera", the real typo) and they take effect two frames later.
- capture_request(wait=False) returns a Job; Job.get_result(timeout) raises
  concurrent.futures.TimeoutError when no frame completes in time; a driver error surfaces as a
  RuntimeError from get_result(). A CompletedRequest must be release()d: holding buffer_count
  of them stalls the camera, as on the real thing. make_array("main") of RGB888 gives an
  (h, w, 3) uint8 array in B, G, R order; XBGR8888 gives (h, w, 4).
- A "lores" stream (create_video_configuration(lores={"size", "format"})) is the same scene
  scaled down by the ISP: no larger than main (RuntimeError otherwise, as picamera2's
  check_stream_config says) and YUV420 (the only lores format on a Pi 4); make_array("lores") gives
  the (h * 3 / 2, w) uint8 YUV420 buffer: the Y plane, then quarter-size U and V planes.
- Metadata: SensorTimestamp (ns), ExposureTime (µs), AnalogueGain, DigitalGain, ColourGains,
  ColourTemperature, Lux, FrameDuration, and on an autofocus camera LensPosition and AfState.
- create_still_configuration(): main BGR888 at the sensor's full resolution, buffer_count 1, the
  still use case's controls; switch_mode_and_capture_array(config, name) stops, configures the still
  mode, captures one frame, and goes back to the previous configuration, which starts again with
  that configuration's controls (controls set with set_controls() since are gone, as on the real
  camera: AeEnable, AwbEnable and AfMode are back at their defaults unless the configuration names
  them). The switch costs a few frame times.
- Auto exposure and auto white balance drift toward the scene while enabled and hold still
  once AeEnable / AwbEnable are False; ExposureValue (EV) scales AE's target by 2**EV, and
  AeConstraintMode Highlight (as the Pi's tuning's "highlight" constraint: the brightest 2 % of the
  picture's luma at most 0.8 of white) lowers it for a scene with a bright patch; autofocus_cycle() scans for a few frames and ends with
  the lens at the scene's focus position.
"""
from __future__ import annotations

import concurrent.futures
import threading
import time
from typing import Any, Callable

import cv2
import numpy as np

from libcamera import ColorSpace, Transform
from libcamera import controls as lc_controls

__all__ = ["Picamera2", "CompletedRequest", "Job", "WORLD", "FakeWorld"]

_FORMATS = {"RGB888": 3, "BGR888": 3, "XBGR8888": 4, "XRGB8888": 4, "YUV420": None}
_SENSORS = {
    "imx708_wide": {"resolution": (4608, 2592), "af": True},
    "imx708": {"resolution": (4608, 2592), "af": True},
    "imx219": {"resolution": (3280, 2464), "af": False},
    "imx477": {"resolution": (4056, 3040), "af": False},
}


class FakeWorld:
    """The fake hardware and scene a test controls."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.cameras: list[dict[str, Any]] = [{"Model": "imx708_wide", "Location": 2, "Rotation": 180,
                                               "Id": "/base/axi/pcie@120000/rp1/i2c@88000/imx708@1a", "Num": 0}]
        self.light = 1.0                  # scene brightness: AE drives ExposureTime*gain toward 20000/light
        self.colour_temperature = 4000.0  # AWB drives ColourGains toward values derived from this
        self.focus_position = 1.6         # dioptres where the table is sharp
        self.af_succeeds = True
        self.fail_after_frames: int | None = None  # raise a driver error once this many frames were produced
        self.failure_message = "Camera frontend has timed out!"
        self.stall = False                # frames stop arriving, without an error
        self.corrupt_frames = 0           # the next this many frames have a short buffer (make_array fails)
        self.frames_produced = 0
        self.instances: list["Picamera2"] = []
        self.acquired: set[int] = set()
        self.scene: Callable[[int, int], np.ndarray] | None = None
        # a scene that changes: (frame number, width, height) -> BGR picture, asked every frame
        self.movie: Callable[[int, int, int], np.ndarray] | None = None
        self.time_scale = 1.0             # < 1 runs the sensor clock faster than real time

    def unplug(self) -> None:
        """The ribbon cable comes out: running cameras error, libcamera lists no camera."""
        self._saved = self.cameras
        self.cameras = []
        self.fail_after_frames = self.frames_produced

    def plug_in(self) -> None:
        self.cameras = getattr(self, "_saved", self.cameras) or self.cameras
        self.fail_after_frames = None


WORLD = FakeWorld()


class Job:
    """A picamera2 Job: an operation done by the camera's event loop, its result a Future."""

    def __init__(self) -> None:
        self._future: concurrent.futures.Future = concurrent.futures.Future()
        self._future.set_running_or_notify_cancel()

    def get_result(self, timeout: float | None = None) -> Any:
        return self._future.result(timeout=timeout)


class CompletedRequest:
    """A completed camera request: buffers plus metadata, to be release()d."""

    def __init__(self, picam2: "Picamera2", arrays: dict[str, np.ndarray], metadata: dict[str, Any]):
        self.picam2 = picam2
        self._arrays = arrays
        self._metadata = metadata
        self._released = False
        self.config = picam2.camera_config

    def make_array(self, name: str = "main") -> np.ndarray:
        if self._released:
            raise RuntimeError("Request has been released")  # its buffers belong to libcamera again
        if name not in self._arrays:
            raise RuntimeError(f"Stream {name!r} is not defined")
        array = self._arrays[name]
        if array.ndim == 1:  # what numpy says when picamera2 shapes a short buffer
            w, h = self.config[name]["size"]
            channels = _FORMATS[self.config[name]["format"]] or 1
            raise ValueError(f"cannot reshape array of size {array.size} into shape ({h},{w},{channels})")
        return array.copy()

    def get_metadata(self) -> dict[str, Any]:
        return dict(self._metadata)

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.picam2._release_request()


class Picamera2:
    """Fake of picamera2.Picamera2 (see the module docstring for what it mirrors)."""

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        return [dict(c) for c in WORLD.cameras]

    def __init__(self, camera_num: int = 0, verbose_console: Any = None, tuning: Any = None):
        self.camera_idx = camera_num
        self.is_open = False
        self.started = False
        self.camera_config: dict[str, Any] | None = None
        self.calls: list[tuple[str, Any]] = []
        self._lock = threading.Condition()
        self._outstanding = 0
        if camera_num >= len(WORLD.cameras) or camera_num in WORLD.acquired:
            raise RuntimeError("Camera __init__ sequence did not complete.")
        self.model = WORLD.cameras[camera_num]["Model"]
        sensor = _SENSORS.get(self.model, {"resolution": (1920, 1080), "af": False})
        self.sensor_resolution = sensor["resolution"]
        self._has_af = sensor["af"]
        WORLD.acquired.add(camera_num)
        WORLD.instances.append(self)
        self.is_open = True
        ctrl = {"ExposureTime": (26, 220417486, 20000), "AnalogueGain": (1.0, 16.0, 1.0),
                "AeEnable": (False, True, True), "AwbEnable": (False, True, True), "ColourGains": (0.0, 32.0, None),
                "FrameDurationLimits": (17849, 220535670, 33333), "Brightness": (-1.0, 1.0, 0.0),
                "NoiseReductionMode": (0, 4, 0), "AeConstraintMode": (0, 3, 0), "ExposureValue": (-8.0, 8.0, 0.0), "ScalerCrop": ((0, 0, 0, 0), (65535, 65535, 65535, 65535), None)}
        if self._has_af:
            ctrl.update({"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0),
                         "AfRange": (0, 2, 0), "AfSpeed": (0, 1, 0)})
        self.camera_controls = ctrl
        # sensor state
        self._ctrl: dict[str, Any] = {"AeEnable": True, "AwbEnable": True, "ExposureTime": 10000,
                                      "AnalogueGain": 1.0, "ColourGains": (1.5, 1.5), "AfMode": 0,
                                      "LensPosition": 1.0}
        self._pending: list[tuple[int, dict[str, Any]]] = []
        self._af_state = lc_controls.AfStateEnum.Idle
        self._af_scan_frames = 0
        self._frame_no = 0
        self._next_frame_at = 0.0
        self._base: dict[tuple[int, int], np.ndarray] = {}
        self._top: dict[tuple[int, int], float] = {}

    # -- context manager, like the real class
    def __enter__(self) -> "Picamera2":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if not self.is_open:
            raise RuntimeError("Camera not opened")

    # -- configuration
    def create_video_configuration(self, main={}, lores=None, raw={}, transform=Transform(), colour_space=None,
                                   buffer_count=6, controls={}, display="main", encode="main",
                                   queue=True) -> dict:
        self._check_open()
        stream = {"format": "XBGR8888", "size": (1280, 720)}
        for key, value in (main or {}).items():
            if key not in ("format", "size"):
                raise ValueError(f"Bad key {key!r}: valid stream configuration keys are ('format', 'size')")
            stream[key] = value
        if colour_space is None:
            colour_space = ColorSpace.Rec709() if stream["size"][0] >= 1280 else ColorSpace.Smpte170m()
        ctrls = {"NoiseReductionMode": lc_controls.draft.NoiseReductionModeEnum.Fast,
                 "FrameDurationLimits": (33333, 33333)} | dict(controls)
        config = {"use_case": "video", "transform": transform, "colour_space": colour_space,
                  "buffer_count": buffer_count, "queue": queue, "main": stream, "lores": lores,
                  "raw": {"format": "SRGGB10_CSI2P", "size": stream["size"]} if raw is not None else None,
                  "controls": ctrls, "display": display, "encode": encode}
        self.calls.append(("create_video_configuration", config))
        return config

    def create_still_configuration(self, main={}, lores=None, raw={}, transform=Transform(), colour_space=None,
                                   buffer_count=1, controls={}, display=None, encode=None, queue=True) -> dict:
        self._check_open()
        stream = {"format": "BGR888", "size": tuple(self.sensor_resolution)}
        for key, value in (main or {}).items():
            if key not in ("format", "size"):
                raise ValueError(f"Bad key {key!r}: valid stream configuration keys are ('format', 'size')")
            stream[key] = value
        ctrls = {"NoiseReductionMode": lc_controls.draft.NoiseReductionModeEnum.HighQuality,
                 "FrameDurationLimits": (100, 1000000000)} | dict(controls)
        config = {"use_case": "still", "transform": transform, "colour_space": colour_space or ColorSpace.Sycc(),
                  "buffer_count": buffer_count, "queue": queue, "main": stream, "lores": lores,
                  "raw": {"format": "SRGGB10_CSI2P", "size": stream["size"]} if raw is not None else None,
                  "controls": ctrls, "display": display, "encode": encode}
        self.calls.append(("create_still_configuration", config))
        return config

    def configure(self, camera_config: Any = "preview") -> None:
        self._check_open()
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if not isinstance(camera_config, dict):
            raise RuntimeError("fake picamera2 supports only dict configurations")
        main = camera_config["main"]
        for name in ("main", "lores"):
            stream = camera_config.get(name)
            if stream is None:
                continue
            for key in stream:
                if key not in ("format", "size"):
                    raise ValueError(f"Bad key {key!r}: valid stream configuration keys are ('format', 'size')")
            fmt, size = stream.get("format"), stream.get("size")
            if not isinstance(fmt, str) or fmt not in _FORMATS:
                raise RuntimeError(f"Bad format {fmt} in stream {name}")
            if type(size) is not tuple or len(size) != 2:
                raise RuntimeError(f"size in {name} stream should be (width, height)")
            if size[0] % 2 or size[1] % 2:
                raise RuntimeError("width and height should be even")
        lores = camera_config.get("lores")
        if lores is not None:
            if lores["format"] != "YUV420":
                raise RuntimeError("lores stream must be YUV")
            if lores["size"][0] > main["size"][0] or lores["size"][1] > main["size"][1]:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
        for key in camera_config.get("controls", {}):
            self._check_control(key)
        self.camera_config = camera_config
        # a configuration starts with its own controls: what set_controls() changed since is gone
        self._ctrl.update({"AeEnable": True, "AwbEnable": True, "AfMode": 0})
        self._pending = []
        self._ctrl.update(camera_config.get("controls", {}))
        self.calls.append(("configure", camera_config))

    def _check_control(self, name: str) -> None:
        if name not in self.camera_controls:
            raise RuntimeError(f"Control {name} is not advertied by libcamera")

    def start(self, config: Any = None, show_preview: Any = False) -> None:
        self._check_open()
        if config is not None:
            self.configure(config)
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True
        self._next_frame_at = time.monotonic()
        self.calls.append(("start", None))

    def stop(self) -> None:
        self.started = False
        self.calls.append(("stop", None))

    def close(self) -> None:
        if not self.is_open:
            return
        self.stop()
        self.is_open = False
        WORLD.acquired.discard(self.camera_idx)
        self.calls.append(("close", None))

    def set_controls(self, controls: dict[str, Any]) -> None:
        self._check_open()
        for key in controls:
            self._check_control(key)
        self.calls.append(("set_controls", dict(controls)))
        with self._lock:
            self._pending.append((2, dict(controls)))  # libcamera applies controls a couple of frames later

    # -- the sensor
    def _frame_duration(self) -> float:
        limits = self._ctrl.get("FrameDurationLimits", (33333, 33333))
        return max(limits[0], 1000) / 1e6 * WORLD.time_scale

    def _advance(self) -> None:
        """One frame of sensor time: pending controls land, AE/AWB/AF take a step."""
        self._frame_no += 1
        WORLD.frames_produced += 1
        still = []
        for left, ctrls in self._pending:
            if left <= 1:
                self._ctrl.update(ctrls)
                if ctrls.get("AfTrigger") == lc_controls.AfTriggerEnum.Start and self._ctrl.get("AfMode") == 1:
                    self._af_state = lc_controls.AfStateEnum.Scanning
                    self._af_scan_frames = 4
            else:
                still.append((left - 1, ctrls))
        self._pending = still
        if self._ctrl.get("AeEnable", True):
            target = 20000.0 / max(WORLD.light, 1e-3) * 2.0 ** float(self._ctrl.get("ExposureValue", 0.0))
            if self._ctrl.get("AeConstraintMode") == lc_controls.AeConstraintModeEnum.Highlight:
                target *= min(1.0, 0.8 * 255.0 / max(self._top_luma(), 1.0))
            exposure = self._ctrl["ExposureTime"] * self._ctrl["AnalogueGain"]
            exposure += (target - exposure) * 0.3
            gain = max(1.0, exposure / 33000.0)
            self._ctrl["AnalogueGain"] = gain
            self._ctrl["ExposureTime"] = int(exposure / gain)
        if self._ctrl.get("AwbEnable", True):
            target = (WORLD.colour_temperature / 2000.0, 6000.0 / WORLD.colour_temperature)
            r, b = self._ctrl["ColourGains"]
            self._ctrl["ColourGains"] = (r + (target[0] - r) * 0.3, b + (target[1] - b) * 0.3)
        if self._af_state == lc_controls.AfStateEnum.Scanning:
            self._af_scan_frames -= 1
            if self._af_scan_frames <= 0:
                if WORLD.af_succeeds:
                    self._ctrl["LensPosition"] = WORLD.focus_position
                    self._af_state = lc_controls.AfStateEnum.Focused
                else:
                    self._af_state = lc_controls.AfStateEnum.Failed
        elif self._ctrl.get("AfMode") == 2:
            self._ctrl["LensPosition"] = WORLD.focus_position

    def _metadata(self, timestamp_ns: int) -> dict[str, Any]:
        md = {"SensorTimestamp": timestamp_ns, "ExposureTime": int(self._ctrl["ExposureTime"]),
              "AnalogueGain": float(self._ctrl["AnalogueGain"]), "DigitalGain": 1.0,
              "ColourGains": tuple(float(g) for g in self._ctrl["ColourGains"]),
              "ColourTemperature": int(WORLD.colour_temperature), "Lux": 400.0 * WORLD.light,
              "FrameDuration": int(self._frame_duration() * 1e6), "SensorTemperature": 40.0,
              "ScalerCrop": (0, 0) + tuple(self.sensor_resolution)}
        if self._has_af:
            md.update(LensPosition=float(self._ctrl["LensPosition"]), AfState=int(self._af_state))
        return md

    def _top_luma(self) -> float:
        """The mean luma of the brightest 2 % of the main stream's scene at level 1 (the highlight constraint's
        measure; of the still scene, computed once)."""
        main = (self.camera_config or {}).get("main") or {}
        size = tuple(main.get("size") or (320, 240))
        if size not in self._top:
            y = cv2.cvtColor(np.ascontiguousarray(self._scene(*size)[::4, ::4]), cv2.COLOR_BGR2GRAY).ravel()
            top = np.sort(y)[int(0.98 * (len(y) - 1)):]
            self._top[size] = float(top.mean()) if len(top) else 0.0
        return self._top[size]

    def _scene(self, w: int, h: int) -> np.ndarray:
        base = self._base.get((w, h))
        if base is None:
            if WORLD.scene is not None:
                base = WORLD.scene(w, h)
            else:
                # (a gradient built by broadcasting in uint8: the full-resolution still's 4608x2592 through
                # int64 index grids took seconds under load, past the source's still timeout)
                base = np.empty((h, w, 3), np.uint8)
                base[..., 0] = (np.arange(w) * 200 // max(w, 1)).astype(np.uint8)[None, :]
                base[..., 1] = (np.arange(h) * 200 // max(h, 1)).astype(np.uint8)[:, None]
                base[..., 2] = 100
            self._base[(w, h)] = base
        return base

    def _image(self, stream: dict[str, Any]) -> np.ndarray:
        w, h = stream["size"]
        base = None if WORLD.movie is None else WORLD.movie(self._frame_no, w, h)
        if base is None:
            base = self._scene(w, h)
        # brightness from exposure x gain against the light; colour from the white-balance gains (B, G, R)
        level = self._ctrl["ExposureTime"] * self._ctrl["AnalogueGain"] * WORLD.light / 20000.0
        r, b = self._ctrl["ColourGains"]
        temp = WORLD.colour_temperature
        scale = (level * b * temp / 6000.0, level, level * r * 2000.0 / temp, 0.0)
        img = cv2.multiply(base, scale, dtype=cv2.CV_8U)  # saturating, like a sensor
        channels = _FORMATS[stream["format"]]
        if channels == 4:
            img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
        return img

    def _next_request(self, timeout: float | None) -> CompletedRequest:
        """Block like the event loop would until the next frame completes (or a fault)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if not self.is_open or not self.started:
                raise RuntimeError("Camera is not started")
            if WORLD.fail_after_frames is not None and WORLD.frames_produced >= WORLD.fail_after_frames:
                raise RuntimeError(WORLD.failure_message)
            with self._lock:
                # one buffer stays queued with the driver (a one-buffer still mode lends its only one)
                buffers_free = self._outstanding < max(1, self.camera_config["buffer_count"] - 1)
            now = time.monotonic()
            if not WORLD.stall and buffers_free and now >= self._next_frame_at:
                break
            wait = self._next_frame_at - now if buffers_free and not WORLD.stall else 0.01
            if deadline is not None and now + max(wait, 0) > deadline:
                time.sleep(max(0.0, deadline - now))
                raise concurrent.futures.TimeoutError()
            time.sleep(max(0.0005, min(wait, 0.01)))
        dt = self._frame_duration()
        # frames are not queued up while nobody asks: the latest one is handed over, like queue=True
        self._next_frame_at = max(self._next_frame_at + dt, time.monotonic() - dt)
        self._advance()
        md = self._metadata(time.monotonic_ns())
        arrays = {"main": self._image(self.camera_config["main"])}
        lores = self.camera_config.get("lores")
        if lores is not None:
            w, h = lores["size"]
            small = cv2.resize(np.ascontiguousarray(arrays["main"][:, :, :3]), (w, h), interpolation=cv2.INTER_AREA)
            arrays["lores"] = cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420)  # (h * 3 / 2, w): Y, then U and V
        if WORLD.corrupt_frames > 0:  # a truncated buffer: the real make_array fails to reshape it
            WORLD.corrupt_frames -= 1
            arrays["main"] = arrays["main"].reshape(-1)[: arrays["main"].size // 3]
        with self._lock:
            self._outstanding += 1
        return CompletedRequest(self, arrays, md)

    def _release_request(self) -> None:
        with self._lock:
            self._outstanding -= 1

    def _dispatch(self, fn: Callable[[float | None], Any], wait: Any, signal_function: Any) -> Any:
        """Like Picamera2.dispatch_functions: wait=None/True blocks, wait=False returns a Job."""
        if wait is None:
            wait = signal_function is None
        job = Job()
        if wait:
            return fn(None)

        def run() -> None:
            try:
                job._future.set_result(fn(None))
            except BaseException as exc:  # noqa: BLE001
                job._future.set_exception(exc)

        threading.Thread(target=run, daemon=True).start()
        return job

    # -- captures
    def capture_request(self, wait: Any = None, signal_function: Any = None, flush: Any = None) -> Any:
        self._check_open()
        return self._dispatch(lambda t: self._next_request(t), wait, signal_function)

    def capture_metadata(self, wait: Any = None, signal_function: Any = None) -> Any:
        def fn(t: float | None) -> dict[str, Any]:
            req = self._next_request(t)
            try:
                return req.get_metadata()
            finally:
                req.release()
        return self._dispatch(fn, wait, signal_function)

    def capture_array(self, name: str = "main", wait: Any = None, signal_function: Any = None) -> Any:
        def fn(t: float | None) -> np.ndarray:
            req = self._next_request(t)
            try:
                return req.make_array(name)
            finally:
                req.release()
        return self._dispatch(fn, wait, signal_function)

    def switch_mode_and_capture_array(self, camera_config: Any, name: str = "main", wait: Any = None,
                                      signal_function: Any = None, delay: int = 0) -> Any:
        self._check_open()
        previous = self.camera_config

        def switch(config: Any) -> None:
            self.stop()
            self.configure(config)
            self.start()
            time.sleep(3 * self._frame_duration())   # the sensor restarts in the other mode

        def fn(t: float | None) -> np.ndarray:
            switch(camera_config)
            try:
                for _ in range(delay):
                    self._next_request(None).release()
                req = self._next_request(None)
                try:
                    return req.make_array(name)
                finally:
                    req.release()
            finally:
                switch(previous)
        self.calls.append(("switch_mode_and_capture_array", camera_config))
        return self._dispatch(fn, wait, signal_function)

    def autofocus_cycle(self, wait: Any = None, signal_function: Any = None) -> Any:
        self.set_controls({"AfMode": lc_controls.AfModeEnum.Auto, "AfTrigger": lc_controls.AfTriggerEnum.Start})

        def fn(t: float | None) -> bool:
            seen_scan = False
            while True:
                req = self._next_request(None)
                state = req.get_metadata()["AfState"]
                req.release()
                if state == lc_controls.AfStateEnum.Scanning:
                    seen_scan = True
                elif seen_scan:
                    return state == lc_controls.AfStateEnum.Focused
        return self._dispatch(fn, wait, signal_function)
