"""The frames after a reading found unusable repeat that verdict, not the table before the arm (session 36): with
stills, the hands test on the small picture spares a still for an arm resting over the table; until the gate
tries again (read_again_seconds) the frames repeated the last usable reading — the table before the reach, in
the middle of it, which cut every such reach in two for the turn decoder."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from camera.session import open_session
from engine.observation import Observation
from vision.gate import REUSE
from vision.observer import make_observer

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"


class Frame:
    def __init__(self, image, k, fps=15.0):
        self.image = self.small = image
        self.timestamp, self.index = k / fps, k
        self.still = lambda: image


def test_the_frames_after_an_arm_resting_over_the_table_repeat_it_not_the_table_before():
    observer = make_observer(session=open_session(SESSION))
    table = np.random.default_rng(3).integers(60, 200, (180, 320, 3), dtype=np.uint8)
    arm = table.copy()
    arm[40:140, 0:160] = 250                      # an arm that comes and then rests where it is

    def read(image, **_):
        class Reading:
            observation = Observation("keltis", "nwnz", True)
        return Reading()

    def judge_unusable(small, previous=None, **_):
        if (small >= 250).all(axis=2).sum() > 1000:
            return Observation("keltis", "nwnz", False, "occluded", extra={"hands": [{"seat": "south"}]})
        return None

    observer.reader.read = read
    observer.reader.judge_unusable = judge_unusable
    observer.reader.registration = object()       # (registered: the hands test may spare the still)
    observer._play_area = lambda image, small: None   # (the whole picture is the play area)
    script = [table] * 6 + [arm] * 12
    got = [(observer.gate.counts[REUSE], observer.observe(Frame(p, k))) for k, p in enumerate(script)]
    first = next(k for k, (_, obs) in enumerate(got) if obs.usable)
    assert first < 6                                              # the table was read
    arm_frames = got[6:]
    assert not any(obs.usable for _, obs in arm_frames), [(o.usable, o.reason) for _, o in arm_frames]
    assert observer.gate.counts[REUSE] > got[6][0]                # (frames repeated the verdict: REUSE ran)
