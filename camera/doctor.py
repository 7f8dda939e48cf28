"""`keltis-cam doctor`: check an installation and say what to fix.

Each check returns a Check(name, status ok|warn|fail, message, fix). Nothing here changes the
machine; `--grab` additionally opens the configured camera and waits for one frame.
"""
from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

OK, WARN, FAIL = "ok", "warn", "fail"
MIN_OPENCV = (4, 7)
#: The OpenCV wheel the Pi install pins: built for aarch64, works with Bookworm's apt numpy 1.24.
PINNED_OPENCV = "opencv-python-headless==4.10.0.84"
MIN_FREE_BYTES = 1 << 30


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    status: str
    message: str
    fix: str | None = None


def _version_tuple(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def pi_model() -> str | None:
    """"Raspberry Pi 5 Model B Rev 1.0" on a Pi, else None."""
    try:
        model = Path("/proc/device-tree/model").read_bytes().rstrip(b"\x00").decode("utf-8", "replace")
    except OSError:
        return None
    return model if "Raspberry Pi" in model else None


def os_release() -> dict[str, str]:
    try:
        lines = Path("/etc/os-release").read_text().splitlines()
    except OSError:
        return {}
    out = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep:
            out[key] = value.strip().strip('"')
    return out


def check_python() -> Check:
    v = sys.version_info
    if v < (3, 11):
        return Check("python", FAIL, f"Python {platform.python_version()} is too old (needs 3.11+)",
                     "use Raspberry Pi OS Bookworm (Python 3.11) or newer")
    return Check("python", OK, f"Python {platform.python_version()} ({sys.executable})")


def check_platform() -> Check:
    model = pi_model()
    rel = os_release()
    osname = rel.get("PRETTY_NAME", platform.platform())
    if model:
        codename = rel.get("VERSION_CODENAME", "")
        if codename and codename not in ("bookworm", "trixie"):
            return Check("platform", WARN, f"{model}, {osname}",
                         "keltis-cam is tested on Raspberry Pi OS Bookworm (64-bit); older releases lack picamera2 "
                         "or Python 3.11")
        return Check("platform", OK, f"{model}, {osname}, {platform.machine()}")
    return Check("platform", OK, f"not a Raspberry Pi ({osname}, {platform.machine()}): development machine")


def check_numpy() -> Check:
    try:
        import numpy
    except ImportError as exc:
        return Check("numpy", FAIL, f"numpy not importable: {exc}",
                     "on a Pi: sudo apt install python3-numpy; elsewhere: pip install numpy")
    where = Path(numpy.__file__).parent
    origin = "apt" if str(where).startswith("/usr/lib/python3") else "pip/venv"
    msg = f"numpy {numpy.__version__} ({origin}, {where})"
    if pi_model() and origin != "apt":
        return Check("numpy", WARN, msg, "picamera2 from apt is built against apt's numpy; remove the pip numpy "
                                         "from the venv (pip uninstall numpy) so the system one is used")
    return Check("numpy", OK, msg)


def check_opencv() -> Check:
    try:
        import cv2
    except ImportError as exc:
        text = str(exc)
        fix = f"pip install '{PINNED_OPENCV}' in the venv (scripts/install-pi.sh does this)"
        if "numpy" in text.lower() or "multiarray" in text:
            fix = (f"this OpenCV was built for another numpy major version; install {PINNED_OPENCV}, which works "
                   "with apt's numpy 1.x")
        return Check("opencv", FAIL, f"OpenCV not importable: {text}", fix)
    version = cv2.__version__
    if _version_tuple(version) < MIN_OPENCV or not hasattr(getattr(cv2, "aruco", None), "ArucoDetector"):
        return Check("opencv", FAIL, f"OpenCV {version} at {cv2.__file__} lacks cv2.aruco.ArucoDetector (needs 4.7+)",
                     f"Bookworm's apt OpenCV is 4.6: pip install '{PINNED_OPENCV}' in the venv")
    return Check("opencv", OK, f"OpenCV {version} ({Path(cv2.__file__).parent})")


def _import_picamera2() -> tuple[Any, str | None]:
    try:
        from picamera2 import Picamera2
    except Exception as exc:  # noqa: BLE001 - ImportError, or a broken libcamera binding
        return None, f"{type(exc).__name__}: {exc}"
    return Picamera2, None


def check_picamera2(wanted: bool) -> Check:
    picam, err = _import_picamera2()
    if picam is None:
        fix = ("sudo apt install python3-picamera2, and make the venv with --system-site-packages "
               "(scripts/install-pi.sh)")
        if wanted or pi_model():
            return Check("picamera2", FAIL, f"picamera2 not importable ({err})", fix)
        return Check("picamera2", OK, "not installed (only needed for --source picamera2 on a Raspberry Pi)")
    import picamera2

    version = getattr(picamera2, "__version__", None)
    return Check("picamera2", OK, f"picamera2 importable{f' {version}' if version else ''} "
                                  f"({Path(picamera2.__file__).parent})")


def v4l2_cameras() -> list[tuple[str, str, str | None]]:
    """(/dev/videoN, kernel name, driver) for every V4L2 node; USB cameras have driver uvcvideo."""
    out = []
    for node in sorted(Path("/sys/class/video4linux").glob("video*"), key=lambda p: int(p.name[5:] or 0)):
        try:
            name = (node / "name").read_text().strip()
        except OSError:
            name = "?"
        try:
            driver = os.path.basename(os.readlink(node / "device" / "driver"))
        except OSError:
            driver = None
        out.append((f"/dev/{node.name}", name, driver))
    return out


def check_cameras(source: str | None) -> list[Check]:
    """Which cameras exist, and whether the configured source is among them."""
    from camera.sources.pi_camera import describe_model

    checks = []
    kind = (source or "").split(":", 1)[0]
    picam, _err = _import_picamera2()
    pi_cams: list[dict[str, Any]] = []
    if picam is not None:
        try:
            pi_cams = picam.global_camera_info()
        except Exception as exc:  # noqa: BLE001
            checks.append(Check("pi camera", FAIL, f"libcamera failed to list cameras: {exc}",
                                "reboot; check `rpicam-hello --list-cameras`"))
        if pi_cams:
            desc = ", ".join(f"{i}: {describe_model(c.get('Model'))} ({c.get('Model')})" for i, c in enumerate(pi_cams))
            checks.append(Check("pi camera", OK, desc))
        elif not checks:
            status = FAIL if kind == "picamera2" else WARN
            checks.append(Check("pi camera", status, "libcamera finds no camera",
                                "power off, reseat the ribbon cable (contacts toward the board's HDMI side on a "
                                "Pi 4; a Pi 5 needs the narrow 22-pin cable), then `rpicam-hello --list-cameras`"))
    usb = [c for c in v4l2_cameras() if c[2] == "uvcvideo"]
    if usb:
        checks.append(Check("usb camera", OK, ", ".join(f"{dev} {name}" for dev, name, _ in usb)))
    elif kind == "opencv":
        checks.append(Check("usb camera", WARN, "no USB (uvcvideo) camera found", "plug the camera in; `ls /dev/video*`"))
    if source is None:
        checks.append(Check("source", WARN, "no camera source configured",
                            "set [camera] source in the config file (picamera2, opencv:0) or pass --source"))
    elif kind == "picamera2":
        num = source.partition(":")[2].split("?")[0]
        n = int(num) if num.isdigit() else 0
        if pi_cams and n >= len(pi_cams):
            checks.append(Check("source", FAIL, f"{source}: camera {n} does not exist ({len(pi_cams)} found)",
                                "use picamera2 (camera 0) or connect a second camera"))
        elif pi_cams:
            checks.append(Check("source", OK, f"{source}: {describe_model(pi_cams[n].get('Model'))}"))
    elif kind == "opencv":
        target = source.partition(":")[2].split("?")[0]
        if target.isdigit():
            dev = f"/dev/video{target}"
            status, msg = (OK, f"{source}: {dev} exists") if os.path.exists(dev) else (FAIL, f"{source}: {dev} missing")
            checks.append(Check("source", status, msg, None if status == OK else "plug the camera in or pick "
                                                                                "another opencv:N (see `ls /dev/video*`)"))
        else:
            status = OK if Path(target).is_file() else FAIL
            checks.append(Check("source", status, f"{source}: video file {'found' if status == OK else 'missing'}"))
    elif kind == "replay":
        target = source.partition(":")[2].split("?")[0]
        status = OK if (Path(target) / "session.json").is_file() else FAIL
        checks.append(Check("source", status, f"{source}: recorded session {'found' if status == OK else 'missing'}"))
    else:
        checks.append(Check("source", FAIL, f"{source!r} is not a frame source",
                            "use picamera2, opencv:N, opencv:/path/video.mp4 or replay:FOLDER"))
    return checks


def check_data_dir(data_dir: Path) -> list[Check]:
    checks = []
    if not data_dir.exists():
        parent = next((p for p in data_dir.parents if p.exists()), None)
        if parent is not None and os.access(parent, os.W_OK):
            return [Check("data dir", WARN, f"{data_dir} does not exist yet (it is created on first use)",
                          f"mkdir -p {data_dir}")]
        return [Check("data dir", FAIL, f"{data_dir} does not exist and {parent} is not writable",
                      f"sudo mkdir -p {data_dir} && sudo chown $USER {data_dir}")]
    try:
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-", delete=True) as fh:
            fh.write(b"ok")
            fh.flush()
    except OSError as exc:
        return [Check("data dir", FAIL, f"{data_dir} is not writable: {exc.strerror or exc}",
                      f"sudo chown -R $USER {data_dir}")]
    checks.append(Check("data dir", OK, f"{data_dir} is writable"))
    free = shutil.disk_usage(data_dir).free
    if free < MIN_FREE_BYTES:
        checks.append(Check("disk space", WARN, f"only {free / 1e9:.1f} GB free in {data_dir}",
                            "recordings take ~0.5 GB per hour at 1 frame/s; free some space"))
    return checks


def check_config(load: Callable[[], Any]) -> tuple[Check, Any]:
    from engine.errors import MalformedInput

    try:
        cfg = load()
    except MalformedInput as exc:
        return Check("config", FAIL, str(exc), "fix the file, or rewrite it with `keltis-cam config init --force`"), None
    if not cfg.exists:
        return Check("config", WARN, f"no config file at {cfg.path} (defaults used)",
                     f"keltis-cam config init  (writes {cfg.path})"), cfg
    return Check("config", OK, f"{cfg.path}"), cfg


def check_calibration(cfg: Any) -> list[Check]:
    from engine.errors import MalformedInput

    path = cfg.calibration_path
    if not path.exists():
        board = cfg.board or "nwnz"
        return [Check("calibration", WARN, f"no calibration at {path}",
                      f"keltis-cam calibrate default --board {board} --out {path}; then print the markers "
                      f"(keltis-cam calibrate markers markers.pdf) and run keltis-cam calibrate check")]
    try:
        from calibration.model import load_calibration

        cal = load_calibration(path)
    except MalformedInput as exc:
        return [Check("calibration", FAIL, str(exc), f"fix it or rewrite it with keltis-cam calibrate default "
                                                     f"--out {path} --force")]
    checks = [Check("calibration", OK, f"{path}: board {cal.get('board')}, {len(cal['markers']['items'])} markers, "
                                       f"{len(cal['seats'])} seats")]
    if cal.get("camera") is None:
        checks.append(Check("lens", WARN, "no lens calibration (markers alone are used; straight lines may bend "
                                          "near the image edges)",
                            "print the ChArUco page of the marker sheet and run keltis-cam calibrate lens"))
    else:
        cam = cal["camera"]
        rms = cam.get("rms")
        checks.append(Check("lens", OK, f"camera {cam['size'][0]}x{cam['size'][1]}"
                                        + (f", RMS {rms:.2f} px" if isinstance(rms, (int, float)) else "")))
    if cfg.board and cal.get("board") and cfg.board != cal.get("board"):
        checks.append(Check("calibration board", WARN, f"config says board {cfg.board}, calibration {cal['board']}",
                            f"keltis-cam calibrate default --board {cfg.board} --out {path} --force"))
    return checks


def check_grab(source_spec: str, options: dict[str, Any], timeout: float = 15.0) -> Check:
    """Open the source and wait for one frame (a camera's, once its exposure has settled); warn when much of it
    is clipped to white (cards there cannot be read)."""
    import time

    from engine.errors import MalformedInput
    from camera.sources import open_source
    from camera.sources.base import CLIPPED_WARN, clipped_share

    try:
        source = open_source(source_spec, **options)
    except MalformedInput as exc:
        return Check("grab", FAIL, str(exc))
    with source:
        deadline = time.monotonic() + timeout
        frame = source.latest(timeout=timeout)
        while frame is not None and source.status().get("settled") is False and time.monotonic() < deadline:
            frame = source.latest(timeout=max(0.0, deadline - time.monotonic()), newer_than=frame.seq) or frame
        status = source.status()
    if frame is None:
        return Check("grab", FAIL, f"no frame from {source_spec} within {timeout:.0f} s: {status.get('error')}",
                     "see the camera checks above")
    h, w = frame.image.shape[:2]
    said = f"{source_spec}: {w}x{h} frame received ({status.get('camera') or status.get('name') or ''})"
    clipped = clipped_share(frame.image)
    if clipped > CLIPPED_WARN:
        return Check("grab", WARN, f"{said}, but {100 * clipped:.1f} % of it is clipped to white: cards lying there "
                                   "cannot be read", "move or dim the lamp (or turn it so its hot spot misses the "
                                   "table), or cover a glossy table top")
    return Check("grab", OK, said)


def run_checks(cfg_loader: Callable[[], Any], source: str | None = None, *, grab: bool = False) -> list[Check]:
    """All checks, in the order the report shows them."""
    checks = [check_python(), check_platform(), check_numpy(), check_opencv()]
    cfg_check, cfg = check_config(cfg_loader)
    checks.append(cfg_check)
    spec = source or (cfg.camera.source if cfg is not None else None)
    checks.append(check_picamera2(wanted=(spec or "").startswith("picamera2")))
    checks.extend(check_cameras(spec))
    if cfg is not None:
        checks.extend(check_data_dir(cfg.data_dir))
        checks.extend(check_calibration(cfg))
    if grab and spec:
        opts = cfg.camera.source_options() if cfg is not None else {}
        checks.append(check_grab(spec, opts))
    return checks


def format_report(checks: list[Check]) -> str:
    label = {OK: "  ok ", WARN: " WARN", FAIL: " FAIL"}
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        lines.append(f"{label[c.status]}  {c.name:<{width}}  {c.message}")
        if c.fix and c.status != OK:
            lines.append(f"       {'':<{width}}  fix: {c.fix}")
    fails = sum(c.status == FAIL for c in checks)
    warns = sum(c.status == WARN for c in checks)
    lines.append("")
    lines.append("all good" if not fails and not warns else f"{fails} problem(s), {warns} warning(s)")
    return "\n".join(lines)


def to_json(checks: list[Check]) -> list[dict[str, Any]]:
    return [asdict(c) for c in checks]
