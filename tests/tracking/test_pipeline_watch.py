"""A reach made while the reader reads a frame reaches the tracker (session 36): the pipeline's watch thread
takes the camera's newer frames during the reading and the vision observer's gate judges each (motion, the
hands test); after the reading they are fed in order, and the table after that reach is read afresh."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from camera.sources.base import CaptureThreadSource
from camera.session import open_session
from engine.observation import Observation
from tracking.pipeline import Pipeline
from vision.gate import GateConfig
from vision.observer import make_observer

pytestmark = pytest.mark.serial  # a camera thread filming at 20 fps against the wall clock (tests/conftest.py)

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"
FPS = 20.0
READ_SECONDS = 1.2                     # the slow reading (a still and the reader under load)
REACH = range(12, 24)                  # the frames that show an arm (during the first reading)
FRAMES = 45


def picture(k: int) -> np.ndarray:
    """The table (a fixed pattern), with an arm (a bright block moving across it) in the REACH frames; the
    table after the reach is the same as before it (a draw from the draw pile)."""
    rng = np.random.default_rng(7)
    table = rng.integers(60, 200, (180, 320, 3), dtype=np.uint8)
    if k in REACH:
        x = 20 + 20 * (k - REACH.start)
        table[40:140, x:x + 60] = 250
    return table


class Camera(CaptureThreadSource):
    """A live camera (frames a slow consumer misses are skipped) at FPS; the small picture is the frame."""

    def __init__(self) -> None:
        super().__init__("fake-live")
        self.k = 0
        self.t0 = 0.0

    def _open(self) -> None:
        self.t0 = time.monotonic()

    def _read(self):
        if self.k >= FRAMES:
            return None
        wait = self.t0 + self.k / FPS - time.monotonic()
        if wait > 0 and self._sleep(wait):
            return None
        image = picture(self.k)
        item = (image, self.k / FPS, self.k, image)
        self.k += 1
        return item

    def _close(self) -> None:
        pass


class Tracker:
    setup = None

    def __init__(self) -> None:
        self.fed: list[tuple[int, bool, str | None, object]] = []

    def feed(self, obs, t, index):
        self.fed.append((index, obs.usable, obs.reason, (obs.extra or {}).get("hands")))
        return []


def observer_with_a_slow_reader(watching: bool = True):
    """The real observer and gate (one reading per still period, as with stills); its reader sleeps
    READ_SECONDS per reading and its hands test names south's arm on a frame with the bright block."""
    observer = make_observer(session=open_session(SESSION))
    observer.gate.config = GateConfig(reads_per_still=1)
    reads: list[float] = []

    class Reading:
        def __init__(self, obs):
            self.observation = obs

    def read(image, **_):
        reads.append(time.monotonic())
        time.sleep(READ_SECONDS)
        return Reading(Observation("keltis", "nwnz", True))

    def judge_unusable(small, previous=None, **_):
        if (small >= 250).all(axis=2).sum() > 1000:
            return Observation("keltis", "nwnz", False, "occluded", extra={"hands": [{"seat": "south"}]})
        return None

    observer.reader.read = read
    observer.reader.judge_unusable = judge_unusable
    if not watching:
        observer.watch_readings = None     # (an observer that cannot watch: the frames during a reading are lost)
    return observer, reads


def run(observer) -> tuple[Tracker, Pipeline]:
    tracker = Tracker()
    camera = Camera()
    pipeline = Pipeline(camera, observer, tracker)
    camera.start()
    thread = threading.Thread(target=pipeline.run)
    thread.start()
    thread.join(30)
    camera.stop()
    assert not thread.is_alive()
    return tracker, pipeline


def test_a_reach_during_a_slow_reading_reaches_the_tracker_as_hand_frames_in_order():
    observer, reads = observer_with_a_slow_reader()
    tracker, pipeline = run(observer)
    fed = tracker.fed
    indexes = [k for k, *_ in fed]
    assert indexes == sorted(indexes) and len(set(indexes)) == len(indexes)      # in order, each once
    first_read = next(k for k, usable, *_ in fed if usable)
    assert first_read < REACH.start                                            # read before the arm came
    hands = [k for k, usable, reason, h in fed if h]
    # the arm came and went while that frame was read: its frames reach the tracker after the reading
    assert hands and all(k in REACH for k in hands) and len(hands) >= len(REACH) // 2, fed
    assert pipeline.status()["watched"] >= len(hands)
    # the table after the reach is read afresh (the reading in hand is older than the reach), though it looks the same
    after = [k for k, usable, *_ in fed if usable and k > REACH.stop]
    assert after and len(reads) == 2, (fed, reads)
    assert observer.status()["gate"]["busy"] > 0                               # still frames watched: not fed


def test_without_the_watch_the_same_reach_is_lost():
    """The test above fails without the watch: the frames during the reading are skipped, the reach with them,
    and the same-looking table after it is not read again."""
    observer, reads = observer_with_a_slow_reader(watching=False)
    tracker, _ = run(observer)
    assert not [k for k, usable, reason, h in tracker.fed if h]
    assert len(reads) == 1
