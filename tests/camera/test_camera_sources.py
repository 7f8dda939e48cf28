"""Frame sources: spec parsing, replay of sessions, OpenCV on a real video file, camera loss and recovery."""
from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from camera.session import SessionInfo, SessionWriter, encode_jpeg
from camera.sources import SourceError, open_source, parse_spec
from camera.sources.opencv import OpenCVSource


def numbered(i: int, size=(96, 64)) -> np.ndarray:
    """A frame whose mean brightness encodes i (robust to JPEG and video compression)."""
    w, h = size
    return np.full((h, w, 3), 10 + 12 * i, np.uint8)


def frame_number(img: np.ndarray) -> int:
    return int(round((float(img.mean()) - 10) / 12))


@pytest.fixture
def session(tmp_path):
    """A 10-frame session 0.05 s apart, frame 4 corrupt."""
    folder = tmp_path / "session"
    with SessionWriter(folder, SessionInfo(source="simulator", board="base")) as writer:
        for i in range(10):
            writer.add_frame(encode_jpeg(numbered(i), 95), 0.05 * i)
    (folder / "frames/000004.jpg").write_bytes(b"\xff\xd8garbage")
    return folder


@pytest.fixture
def video(tmp_path):
    """A 20-frame MJPG video at 50 fps written with cv2.VideoWriter."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 50.0, (96, 64))
    assert writer.isOpened()
    for i in range(20):
        writer.write(numbered(i))
    writer.release()
    return path


# -- specs

@pytest.mark.parametrize("spec, kind, target, options", [
    ("picamera2", "picamera2", "", {}),
    ("picamera2:1?size=1640x1232&fps=10", "picamera2", "1", {"size": (1640, 1232), "fps": 10.0}),
    ("opencv:0", "opencv", "0", {}),
    ("opencv:/videos/a.mp4?speed=fast&loop=1", "opencv", "/videos/a.mp4", {"speed": None, "loop": True}),
    ("replay:/data/s1?speed=4", "replay", "/data/s1", {"speed": 4.0}),
    ("replay:rel/folder", "replay", "rel/folder", {}),
])
def test_parse_spec(spec, kind, target, options):
    assert parse_spec(spec) == (kind, target, options)


@pytest.mark.parametrize("spec, message", [
    ("", "no frame source given"),
    ("webcam", "unknown frame source 'webcam'"),
    ("usb:0", "unknown frame source"),
    ("opencv:", "needs a target"),
    ("replay:x?speed=-1", "bad value"),
    ("replay:x?colour=red", "unknown option 'colour'"),
])
def test_bad_specs_are_clear_errors_never_a_fallback(spec, message):
    with pytest.raises(SourceError, match=message):
        parse_spec(spec)


def test_missing_targets_fail_at_once(tmp_path):
    with pytest.raises(SourceError, match="no such session folder"):
        open_source(f"replay:{tmp_path}/none")
    with pytest.raises(SourceError, match="no such video file"):
        open_source(f"opencv:{tmp_path}/none.mp4")


# -- replay

def test_replay_fast_delivers_every_readable_frame_in_order_then_ends(session):
    source = open_source(f"replay:{session}?speed=fast")
    with source:
        frames = list(source.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    assert [frame_number(f.image) for f in frames] == [0, 1, 2, 3, 5, 6, 7, 8, 9]
    with pytest.raises(ValueError):  # shared by every consumer: read-only
        frames[0].image[0, 0] = 0
    assert [round(f.timestamp, 3) for f in frames] == [0.0, 0.05, 0.1, 0.15, 0.25, 0.3, 0.35, 0.4, 0.45]
    status = source.status()
    assert status["state"] == "ended" and status["frames"] == 9 and status["skipped"] == 1
    assert status["total"] == 10


def test_replay_keeps_the_recorded_pace(session):
    source = open_source(f"replay:{session}?speed=2")
    start = time.monotonic()
    with source:
        frames = list(source.frames())
    elapsed = time.monotonic() - start
    assert elapsed >= 0.45 / 2 * 0.9  # last frame is due 0.45 s / speed 2 after the first
    assert frames[-1].index == 9


def test_replay_at_recorded_pace_never_waits_for_a_slow_consumer(session):
    with open_source(f"replay:{session}") as source:
        got = []
        for frame in source.frames():
            got.append(frame.index)
            time.sleep(0.12)  # slower than the recording's 20 fps
    assert got[-1] == 9 and len(got) < 9  # frames were skipped, the replay kept its pace


def test_replay_loop(session):
    with open_source(f"replay:{session}?speed=fast&loop=1") as source:
        indices = [f.index for f, _ in zip(source.frames(), range(14))]
    assert indices[:9] == [0, 1, 2, 3, 5, 6, 7, 8, 9] and indices[9:] == [0, 1, 2, 3, 5]


def test_latest_waits_for_a_newer_frame(session):
    with open_source(f"replay:{session}?speed=fast") as source:
        first = source.latest(timeout=2)
        second = source.latest(timeout=2, newer_than=first.seq)
        assert second.seq > first.seq
        assert source.latest(timeout=0.01, newer_than=10**6) is None


# -- OpenCV on a real video file

def test_opencv_video_file_fast(video):
    source = open_source(f"opencv:{video}?speed=fast")
    with source:
        frames = list(source.frames())
    assert [frame_number(f.image) for f in frames] == list(range(20))
    assert frames[0].image.shape == (64, 96, 3)
    assert [f.index for f in frames] == list(range(20))
    assert np.allclose([f.timestamp for f in frames], [i / 50 for i in range(20)], atol=1e-3)
    status = source.status()
    assert status["state"] == "ended" and status["size"] == [96, 64] and status["nominal_fps"] == 50


def test_opencv_video_file_plays_at_its_frame_rate(video):
    start = time.monotonic()
    with open_source(f"opencv:{video}") as source:
        last = list(source.frames())[-1]
    assert time.monotonic() - start >= 19 / 50 * 0.9
    assert frame_number(last.image) == 19


# -- camera loss and recovery (a V4L2 camera cannot be unplugged in CI: a capture object mirroring
#    cv2.VideoCapture's calls does it, the source code path is the one a real camera takes)

class FlakyCapture:
    """Mirrors cv2.VideoCapture: isOpened/read/set/get/release; the 'camera' dies and comes back."""

    opened = 0
    plan: list[str] = []

    def __init__(self, device):
        FlakyCapture.opened += 1
        self.ok = FlakyCapture.plan.pop(0) if FlakyCapture.plan else "ok"
        self.reads = 0
        self.props = {}

    def isOpened(self):
        return self.ok != "absent"

    def set(self, prop, value):
        self.props[prop] = value
        return True

    def get(self, prop):
        return {cv2.CAP_PROP_FRAME_WIDTH: 96, cv2.CAP_PROP_FRAME_HEIGHT: 64, cv2.CAP_PROP_FPS: 100}.get(prop, 0)

    def read(self):
        time.sleep(0.01)
        self.reads += 1
        if self.ok == "dies" and self.reads > 5:
            return False, None  # what cv2 returns when the device vanished
        return True, numbered(self.reads % 20)

    def release(self):
        pass


def test_camera_loss_is_reported_and_recovered(monkeypatch):
    FlakyCapture.opened = 0
    FlakyCapture.plan = ["dies", "absent", "absent", "ok"]
    source = OpenCVSource(0, capture_factory=FlakyCapture, retry_initial=0.05, retry_max=0.1)
    states = []
    with source:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            status = source.status()
            if not states or states[-1] != status["state"]:
                states.append(status["state"])
            if status["reconnects"] >= 1 and status["state"] == "running" and status["frames"] > 10:
                break
            time.sleep(0.005)
        frame = source.latest(timeout=1)
    assert frame is not None
    assert states[0] in ("starting", "running") and "running" in states
    assert "lost" in states and "retrying" in states
    assert states.index("lost") < states.index("retrying") < len(states) - 1 - states[::-1].index("running")
    assert status["reconnects"] == 1 and FlakyCapture.opened == 4
    assert "cannot open camera 0" in status["error"]
    assert source.status()["state"] == "stopped"


def test_a_camera_that_is_not_there_keeps_retrying_and_stops_promptly(tmp_path):
    source = open_source("opencv:97", retry_initial=0.05, retry_max=0.2)
    source.start()
    time.sleep(0.3)
    status = source.status()
    assert status["state"] == "retrying" and "/dev/video97" in status["error"] and status["failures"] >= 2
    start = time.monotonic()
    source.stop()
    assert time.monotonic() - start < 1.0
    assert source.latest(timeout=0.1) is None


def test_consumers_never_block_the_capture_thread():
    FlakyCapture.plan = []
    source = OpenCVSource(0, capture_factory=FlakyCapture)
    with source:
        time.sleep(0.1)
        stop = threading.Event()
        taken = []

        def slow_consumer():
            for frame in source.frames():
                taken.append(frame.seq)
                time.sleep(0.1)
                if stop.is_set():
                    return

        thread = threading.Thread(target=slow_consumer)
        thread.start()
        time.sleep(0.5)
        stop.set()
        thread.join()
        delivered = source.status()["frames"]
    assert delivered > 3 * len(taken)  # ~100 fps camera vs ~10 fps consumer


# -- stills on request (a simulated session's renderer, or any still_of(frame index))

def _still_of(asked):
    def still_of(index):
        asked.append(index)
        return numbered(index, size=(192, 128))     # twice the video frame's size
    return still_of


@pytest.mark.parametrize("speed", ["fast", "20"])
def test_a_replay_with_stills_gives_the_still_of_the_frame_the_consumer_holds(session, speed):
    asked = []
    source = open_source(f"replay:{session}?speed={speed}", still_of=_still_of(asked))
    stills = {}
    wanted = [2, 6]     # ask at the first frame held from each of these on (a paced replay skips
    with source:        # frames a busy consumer misses, so a loaded machine may never hold frame 2)
        for f in source.frames():
            assert f.still is not None
            if wanted and f.index >= wanted[0]:
                wanted.pop(0)
                picture = f.still()
                assert picture is not None and picture.shape[:2] == (128, 192)
                stills[f.index] = frame_number(picture)
                with pytest.raises(ValueError):   # shared like the frames: read-only
                    picture[0, 0] = 0
    if speed == "fast":   # lossless: the consumer holds exactly the frame it asks about
        assert stills == {2: 2, 6: 6}
    else:                 # paced: a still is of the table now, the frame held or the one after it
        assert len(stills) == 2 and all(n in (held, held + 1) for held, n in stills.items())
    assert len(asked) == 2


def test_a_fast_replay_gives_the_still_of_the_frame_held_even_after_the_next_was_read(session):
    """The capture thread reads the next frame as soon as one is taken; a consumer that asks for the
    still a while later (the reader was busy) still gets the still of the frame it holds, so a replay
    reads the same stills on every run."""
    asked = []
    source = open_source(f"replay:{session}?speed=fast", still_of=_still_of(asked))
    stills = {}
    with source:
        for f in source.frames():
            if f.index in (2, 6):
                time.sleep(0.3)          # the next frame is read meanwhile
                stills[f.index] = frame_number(f.still())
    assert stills == {2: 2, 6: 6} and asked == [2, 6]


def test_a_replay_without_stills_offers_none(session):
    with open_source(f"replay:{session}?speed=fast") as source:
        assert all(f.still is None for f in source.frames())


def test_a_still_asked_for_while_a_paced_replay_waits_for_its_next_frame_comes_at_once(tmp_path):
    folder = tmp_path / "slow"
    with SessionWriter(folder, SessionInfo(source="simulator", board="base")) as writer:
        for i in range(3):
            writer.add_frame(encode_jpeg(numbered(i), 95), 2.0 * i)   # a frame every 2 s
    source = open_source(f"replay:{folder}?speed=1", still_of=_still_of([]))
    with source:
        first = source.latest(timeout=5)
        t0 = time.monotonic()
        picture = first.still()
        waited = time.monotonic() - t0
    assert picture is not None and frame_number(picture) == 0
    assert waited < 1.0, f"the still waited {waited:.2f} s for the next frame"


def test_a_lossless_replay_waiting_for_a_slow_consumer_is_no_lost_camera(session):
    # a full reading (plus a rendered still) may hold a frame for longer than stall_timeout: the
    # replay waits for it and is not "lost" (a lost camera pauses the tracking)
    source = open_source(f"replay:{session}?speed=fast", stall_timeout=0.2)
    with source:
        first = source.latest(timeout=5)
        assert first is not None
        time.sleep(0.5)
        assert source.status()["state"] == "running"
        assert source.latest(timeout=5, newer_than=first.seq) is not None


def test_a_still_that_takes_longer_than_the_stall_timeout_is_no_lost_camera(tmp_path):
    folder = tmp_path / "slow-still"
    with SessionWriter(folder, SessionInfo(source="simulator", board="base")) as writer:
        for i in range(3):
            writer.add_frame(encode_jpeg(numbered(i), 95), 2.0 * i)
    states = []

    def slow_still(index):      # a first still renders the whole scene: seconds on a loaded machine
        time.sleep(0.5)
        states.append(source.status()["state"])
        return numbered(index)

    source = open_source(f"replay:{folder}?speed=1", still_of=slow_still, stall_timeout=0.2)
    with source:
        assert source.latest(timeout=5).still() is not None
    assert states == ["running"]


def test_a_replay_waits_for_a_still_as_long_as_it_takes_a_live_camera_gives_up(tmp_path, caplog):
    """A simulated session renders its stills when asked: on a loaded machine (the first one also
    prepares the renderer) that takes longer than a live camera's still ever should. A replay loses
    nothing by waiting, and reading its small video frame instead would make the reader guess a table
    from too few pixels; a live camera gives up after `still_timeout`, says so, and the video frame is read."""
    import logging

    from camera.sources.base import CaptureThreadSource
    from camera.sources.replay import ReplaySource

    folder = tmp_path / "slow-render"
    with SessionWriter(folder, SessionInfo(source="simulator", board="base")) as writer:
        for i in range(3):
            writer.add_frame(encode_jpeg(numbered(i), 95), 2.0 * i)

    def slow_still(index):
        time.sleep(0.4)
        return numbered(index)

    assert ReplaySource.still_timeout >= 60 > CaptureThreadSource.still_timeout
    source = open_source(f"replay:{folder}?speed=1", still_of=slow_still)
    with source:
        assert frame_number(source.latest(timeout=5).still()) == 0
    source = open_source(f"replay:{folder}?speed=1", still_of=slow_still)
    source.still_timeout = 0.1       # as a live camera whose still did not come in time
    with caplog.at_level(logging.WARNING), source:
        assert source.latest(timeout=5).still() is None
    assert any("no full-resolution still within 0.1 s" in r.getMessage() for r in caplog.records)
