"""`picamera2`: a Raspberry Pi Camera Module through the real picamera2 API (imported only here).

- A video configuration with one "main" stream in RGB888 (picamera2's RGB888 is B, G, R in
  memory: OpenCV's BGR as is) at the size the pipeline wants: by default the sensor's fast
  full-field binned mode (2304x1296 on a Camera Module 3, 1640x1232 on a v2).
- Focus is set once and locked: on a camera with a motorised lens (Module 3) one autofocus
  cycle runs, then AfMode goes to Manual at the LensPosition found (or `autofocus="manual"`
  with a given lens_position; "continuous" leaves AF running, not recommended over a table).
- Exposure and white balance run automatically for `settle_seconds`, then AeEnable/AwbEnable
  are switched off with the ExposureTime, AnalogueGain and ColourGains they settled on, so
  colours stay the same for the whole game. After a reconnect the same locked values are
  applied again instead of settling anew (call relock() to settle again on purpose).
- While it settles, auto exposure keeps the highlights (`highlights="protect"`, the default):
  libcamera's AeConstraintMode Highlight, which holds the brightest 2 % of the picture below
  white, so a lamp's hot spot on a pale table does not clip the cards lying there to white
  (their colours and numerals gone); `"normal"` leaves libcamera's default. The share of the
  picture clipped when the exposure was locked is in status()["clipped"] (doctor warns above 1 %).
- A second, low-resolution stream ("lores", YUV420, 320 pixels wide in the main stream's aspect by
  default) comes with every frame at no CPU cost (the ISP scales it): converted to BGR it is
  `Frame.small`, on which the live pipeline judges stillness and hands 15 times a second without
  touching the big picture. `lores=None` turns it off (consumers then scale the main picture down).
- Stills (`stills=True`, `?stills=on`; the default `"auto"` turns them on when the sensor is at least
  1.5x wider than the video stream, as a Camera Module 3's 4608 against 2304; `?stills=off`): a
  full-resolution picture on request (Frame.still), for the
  card reader whose covered cards show only a numeral strip: the capture thread switches the sensor
  to picamera2's still configuration at the sensor's full size, takes one picture and switches back
  (switch_mode_and_capture_array). The still is taken with the locked exposure, gains and focus, and
  they are set again after the switch back (picamera2 restarts the video mode with the controls of
  its configuration). The video stream pauses meanwhile (~0.5 s on a Pi): stills are asked for only
  when the table has been still and a region read in full changed.
- Frames come from capture_request() (with its metadata: the SensorTimestamp, in ns, becomes
  Frame.timestamp in seconds) on the capture thread; a request that does not complete within
  `capture_timeout` counts as a lost camera.
- A corrupt frame (a buffer numpy cannot shape into the stream's picture, or a picture of another
  size) is logged, counted in status()["corrupt"] and skipped: one bad frame is no lost camera.
  `max_corrupt_run` of them in a row are (the camera is reopened).
"""
from __future__ import annotations

import concurrent.futures
import time
from typing import Any

from .base import CLIPPED_WARN, SKIP, CaptureThreadSource, SourceFatal, SourceLost, SourceUnavailable, clipped_share, log

#: stills "auto": on when the sensor is at least this many times wider than the video stream
STILLS_AUTO_RATIO = 1.5

#: Sensor model (libcamera "Model") -> (product name, default main-stream size).
SENSOR_MODELS: dict[str, tuple[str, tuple[int, int]]] = {
    "imx708": ("Camera Module 3", (2304, 1296)),
    "imx219": ("Camera Module 2", (1640, 1232)),
    "ov5647": ("Camera Module 1", (1296, 972)),
    "imx477": ("HQ Camera", (2028, 1520)),
    "imx296": ("Global Shutter Camera", (1456, 1088)),
    "imx500": ("AI Camera", (2028, 1520)),
}
AUTOFOCUS_MODES = ("once", "manual", "continuous")
HIGHLIGHT_MODES = ("protect", "normal")
#: A game changes slowly: 10 frames/s is plenty, leaves the Pi's CPU to vision (each 2304x1296 frame
#: is a 9 MB copy) and allows longer, less noisy exposures indoors. `fps=None` keeps picamera2's 30.
DEFAULT_FPS = 10.0
INSTALL_HINT = ("picamera2 is not importable: on Raspberry Pi OS run `sudo apt install python3-picamera2` and use a "
                "venv made with --system-site-packages (scripts/install-pi.sh does both)")


def describe_model(model: str | None) -> str:
    """A product name for a libcamera sensor model: "imx708_wide" -> "Camera Module 3 (wide)"."""
    if not model:
        return "unknown camera"
    base, _, variant = model.partition("_")
    name = SENSOR_MODELS.get(base, (model, None))[0]
    return f"{name} ({variant.replace('_', ' ')})" if variant and base in SENSOR_MODELS else name


def default_size(model: str | None, sensor_resolution: tuple[int, int] | None = None) -> tuple[int, int]:
    """The main-stream size for a sensor: its binned full-field mode, else half the sensor, else 1920x1080."""
    base = (model or "").partition("_")[0]
    if base in SENSOR_MODELS:
        return SENSOR_MODELS[base][1]
    if sensor_resolution:
        w, h = sensor_resolution
        return (w // 2) & ~1, (h // 2) & ~1
    return 1920, 1080


def lores_size(main: tuple[int, int], lores: tuple[int, int] | str | None) -> tuple[int, int] | None:
    """The low-resolution stream's size: `lores` as given, or ("auto") 320 wide in main's aspect, even."""
    if lores is None:
        return None
    if lores != "auto":
        return int(lores[0]), int(lores[1])
    w = min(320, main[0])
    return w, max(2, int(round(w * main[1] / main[0] / 2)) * 2)


class Picamera2Source(CaptureThreadSource):
    """A Raspberry Pi camera via picamera2; see the module docstring for focus and exposure locking."""

    def __init__(self, camera_num: int = 0, *, size: tuple[int, int] | None = None, fps: float | None = DEFAULT_FPS,
                 settle_seconds: float = 2.0, autofocus: str = "once", lens_position: float | None = None,
                 lock_exposure: bool = True, lock_white_balance: bool = True, capture_timeout: float = 3.0,
                 buffer_count: int = 4, max_corrupt_run: int = 10,
                 lores: tuple[int, int] | str | None = "auto", stills: bool | str = "auto",
                 still_timeout: float = 6.0, highlights: str = "protect", **kwargs: Any):
        if autofocus not in AUTOFOCUS_MODES:
            raise ValueError(f"autofocus must be one of {AUTOFOCUS_MODES}, got {autofocus!r}")
        if autofocus == "manual" and lens_position is None:
            raise ValueError("autofocus='manual' needs a lens_position (dioptres, e.g. 1.0 for 1 m)")
        kwargs.setdefault("stall_timeout", capture_timeout + 1.0)
        super().__init__(f"picamera2:{camera_num}", **kwargs)
        self.camera_num = camera_num
        self.size = tuple(size) if size else None
        self.fps = fps
        self.settle_seconds = settle_seconds
        self.autofocus = autofocus
        self.lens_position = lens_position
        self.lock_exposure = lock_exposure
        self.lock_white_balance = lock_white_balance
        self.capture_timeout = capture_timeout
        self.buffer_count = buffer_count
        self.max_corrupt_run = max_corrupt_run
        if lores is not None and lores != "auto":
            w, h = (int(v) for v in lores)
            if w <= 0 or h <= 0 or w % 2 or h % 2:
                raise ValueError(f"lores must be even width x height, got {lores!r}")
        self.lores = lores
        if highlights not in HIGHLIGHT_MODES:
            raise ValueError(f"highlights must be one of {HIGHLIGHT_MODES}, got {highlights!r}")
        self.highlights = highlights
        if stills not in (True, False, "auto"):
            raise ValueError(f"stills must be on, off or auto, got {stills!r}")
        self.stills = stills
        self.takes_stills = stills is True   # "auto" decides when the camera is open (its sensor's size)
        self.still_timeout = still_timeout
        self._corrupt_run = 0
        self._cam: Any = None
        self._locked: dict[str, Any] = {}   # the controls to restore after a reconnect
        self._settle_until: float | None = None
        self._counter = 0
        self._relock = False
        self.detail = {"kind": "picamera2", "camera_num": camera_num, "settled": False, "corrupt": 0}

    def relock(self) -> None:
        """Focus and settle exposure and white balance again (e.g. after the room light changed)."""
        self._relock = True

    # -- the capture thread
    def _call(self, method: Any, what: str) -> Any:
        """Run a picamera2 job-returning method without blocking for ever."""
        job = method(wait=False)
        try:
            return job.get_result(timeout=self.capture_timeout)
        except concurrent.futures.TimeoutError:
            raise SourceLost(f"{what}: no answer from the camera within {self.capture_timeout} s") from None

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise SourceFatal(f"{INSTALL_HINT} ({exc})") from None
        infos = Picamera2.global_camera_info()
        if not infos:
            raise SourceUnavailable("libcamera finds no camera (check the ribbon cable and that it is the right way "
                                    "round, then `rpicam-hello --list-cameras`)")
        if self.camera_num >= len(infos):
            raise SourceUnavailable(f"camera {self.camera_num} not found: libcamera lists {len(infos)} camera(s)")
        model = infos[self.camera_num].get("Model")
        cam = Picamera2(self.camera_num)
        try:
            size = self.size or default_size(model, getattr(cam, "sensor_resolution", None))
            controls: dict[str, Any] = {}
            if self.fps:
                frame_us = int(round(1_000_000 / self.fps))
                controls["FrameDurationLimits"] = (frame_us, frame_us)
            if self._locked and not self._relock:
                # reconnect: the values the game started with (those this camera has: it may be another model)
                controls.update({k: v for k, v in self._locked.items() if k in cam.camera_controls})
            main = (int(size[0]), int(size[1]))
            small = lores_size(main, self.lores)
            if self.stills == "auto":
                # the card strips want the sensor's full size: worth a still when it has many more pixels
                # than the video (a Camera Module 3: 4608 against 2304 wide; measured in docs/camera-path.md)
                sensor = getattr(cam, "sensor_resolution", None)
                self.takes_stills = bool(sensor) and int(sensor[0]) >= STILLS_AUTO_RATIO * main[0]
            config = cam.create_video_configuration(main={"size": main, "format": "RGB888"},
                                                    lores={"size": small, "format": "YUV420"} if small else None,
                                                    controls=controls, buffer_count=self.buffer_count)
            cam.configure(config)
            cam.start()
            self.detail.update(model=model, camera=describe_model(model), size=list(main),
                               lores=list(small) if small else None, stills=0 if self.takes_stills else None)
            if self.takes_stills and getattr(cam, "sensor_resolution", None):
                self.detail["still_size"] = [int(v) for v in cam.sensor_resolution]   # a still: the full sensor
            if not self._locked or self._relock:
                self._start_settling(cam)
        except Exception:
            try:
                cam.close()
            except Exception:  # noqa: BLE001
                pass
            raise
        self._cam = cam

    def _start_settling(self, cam: Any) -> None:
        """Focus once (locking the lens), then let AE/AWB run for settle_seconds before locking them."""
        self._relock = False
        self._locked = {}
        self.detail["settled"] = False
        if "AfMode" in cam.camera_controls:
            from libcamera import controls as lc

            if self.autofocus == "continuous":
                cam.set_controls({"AfMode": lc.AfModeEnum.Continuous})
                self.detail["focus"] = {"mode": "continuous"}
            else:
                if self.autofocus == "manual":
                    position, success = float(self.lens_position), None
                else:
                    success = bool(self._call(cam.autofocus_cycle, "autofocus"))
                    position = self._call(cam.capture_metadata, "metadata after autofocus").get("LensPosition")
                    if not success:
                        log.warning("%s: autofocus did not converge; locking the lens at %s", self.name, position)
                focus = {"AfMode": lc.AfModeEnum.Manual}
                if position is not None:
                    focus["LensPosition"] = float(position)
                cam.set_controls(focus)
                self._locked.update(focus)
                self.detail["focus"] = {"mode": "locked", "lens_position": position, "autofocus_ok": success}
        else:
            self.detail["focus"] = {"mode": "fixed"}
        if self.highlights == "protect" and "AeConstraintMode" in cam.camera_controls:
            from libcamera import controls as lc

            # (the exposure locked after settling is what AE found under this constraint; locked, AE is off)
            cam.set_controls({"AeConstraintMode": lc.AeConstraintModeEnum.Highlight})
            self.detail["ae_constraint"] = "highlight"
        self._settle_until = time.monotonic() + self.settle_seconds

    def _lock_exposure(self, cam: Any, metadata: dict[str, Any], image: Any = None) -> None:
        lock: dict[str, Any] = {}
        if self.lock_exposure and "ExposureTime" in metadata and "AnalogueGain" in metadata:
            lock.update(AeEnable=False, ExposureTime=int(metadata["ExposureTime"]),
                        AnalogueGain=float(metadata["AnalogueGain"]))
        if self.lock_white_balance and metadata.get("ColourGains"):
            red, blue = metadata["ColourGains"]
            lock.update(AwbEnable=False, ColourGains=(float(red), float(blue)))
        if lock:
            cam.set_controls(lock)
            self._locked.update(lock)
        self._settle_until = None
        if image is not None:
            self.detail["clipped"] = round(clipped_share(image), 4)
            if self.detail["clipped"] > CLIPPED_WARN:
                log.warning("%s: %.1f %% of the picture is clipped to white at the locked exposure (a lamp's hot "
                            "spot or glare): cards lying there cannot be read", self.name, 100 * self.detail["clipped"])
        self.detail["locked"] = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self._locked.items()
                                 if not k.endswith("Enable") and k != "AfMode"}
        # settled last: status() is read from other threads, and a settled camera's status names what it locked
        self.detail["settled"] = True
        log.info("%s: exposure and white balance locked: %s", self.name, self.detail["locked"])

    def _read(self) -> tuple[Any, float, int, Any]:
        cam = self._cam
        if self._relock:
            self._start_settling(cam)
        request = self._call(cam.capture_request, "capture")
        corrupt = None
        small = None
        lores = self.detail.get("lores")
        try:
            image = request.make_array("main")
            if lores:
                small = request.make_array("lores")  # YUV420: the Y plane, then quarter-size U and V
            metadata = request.get_metadata()
        except ValueError as exc:  # a buffer of the wrong length: numpy cannot shape it into the picture
            corrupt, image, metadata = str(exc), None, {}
        finally:
            request.release()
        size = self.detail.get("size")
        if image is not None and (image.ndim != 3 or (size and tuple(image.shape[:2]) != (size[1], size[0]))):
            corrupt = f"a picture of shape {tuple(image.shape)} from a {size[0]}x{size[1]} stream" if size else \
                f"a picture of shape {tuple(image.shape)}"
        elif small is not None and tuple(small.shape) != (lores[1] * 3 // 2, lores[0]):
            corrupt = f"a low-resolution picture of shape {tuple(small.shape)} from a {lores[0]}x{lores[1]} stream"
        if corrupt is not None:
            return self._corrupt(corrupt)
        self._corrupt_run = 0
        if image.ndim == 3 and image.shape[2] == 4:  # an XBGR8888 stream: drop the padding byte
            image = image[:, :, :3]
        sensor_ns = metadata.get("SensorTimestamp")
        timestamp = sensor_ns / 1e9 if sensor_ns is not None else time.monotonic()
        if self._settle_until is not None and time.monotonic() >= self._settle_until:
            self._lock_exposure(cam, metadata, image)
        elif self._settle_until is None and not self.detail.get("settled"):
            self.detail["settled"] = True  # reconnected with the locked values
        if small is not None:
            import cv2

            small = cv2.cvtColor(small, cv2.COLOR_YUV2BGR_I420)  # 320x180: a fraction of a millisecond
        index = self._counter
        self._counter += 1
        return image, timestamp, index, small

    def _take_still(self, of_frame: int | None = None) -> Any:
        """A full-resolution picture (BGR) now: the still configuration, one capture, back to video
        (`of_frame` is not used: a live camera takes the table as it is now)."""
        cam = self._cam
        if cam is None:
            return None
        w, h = (int(v) for v in cam.sensor_resolution)
        controls = {k: v for k, v in self._locked.items() if k in cam.camera_controls}
        config = cam.create_still_configuration(main={"size": (w & ~1, h & ~1), "format": "RGB888"}, lores=None,
                                                buffer_count=1, controls=controls)
        job = cam.switch_mode_and_capture_array(config, "main", wait=False)
        try:
            picture = job.get_result(timeout=self.still_timeout)
        except concurrent.futures.TimeoutError:
            raise SourceLost(f"still: no picture from the camera within {self.still_timeout} s") from None
        finally:
            if self._locked:   # back in video mode with its configuration's controls: lock again
                cam.set_controls(controls)
        if picture is None or picture.ndim != 3 or tuple(picture.shape[:2]) != (h & ~1, w & ~1):
            log.warning("%s: a still of shape %s from a %dx%d still stream: not used", self.name,
                        None if picture is None else tuple(picture.shape), w, h)
            return None
        self.detail["stills"] = int(self.detail.get("stills") or 0) + 1
        return picture[:, :, :3]

    def _corrupt(self, why: str) -> object:
        """Skip a corrupt frame (logged, counted); too many in a row are a lost camera."""
        self._corrupt_run += 1
        self.detail["corrupt"] = int(self.detail.get("corrupt", 0)) + 1
        if self._corrupt_run == 1:
            log.warning("%s: corrupt frame skipped (%s); %d so far", self.name, why, self.detail["corrupt"])
        if self._corrupt_run >= self.max_corrupt_run:
            self._corrupt_run = 0
            raise SourceLost(f"{self.max_corrupt_run} corrupt frames in a row ({why})")
        return SKIP

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        try:
            cam.stop()
        finally:
            cam.close()
