"""bench/live_camera.py --updates (session 35, wt35-live): each timed update's latency cut into its parts — the
gate's wait for the table's stillness, the still, the reading, the decoder's wait for later frames, the feed and
the push — read off the frames the observer and the tracker actually handled (the Timeline only watches)."""
from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from live_camera import Timeline  # noqa: E402

from vision.gate import READ, REUSE  # noqa: E402


class Observer:
    """A vision observer's face: observe() says the gate's decision in last_decision; a still takes its time."""

    def __init__(self, decisions):
        self.decisions = decisions
        self.last_decision = None
        self.reader = SimpleNamespace(read=lambda *a, **k: SimpleNamespace(timings={"cards": 12.0}))

    def observe(self, frame):
        self.last_decision, usable = self.decisions[frame.index]
        if self.last_decision == READ:
            frame.still()
            self.reader.read(frame.image)
        return SimpleNamespace(usable=usable, reason=None if usable else "occluded")

    def status(self):
        return {"gate": "watched"}


class Tracker:
    """feed() gives a move event on the frames named in `sends`."""

    def __init__(self, sends):
        self.sends = sends

    def feed(self, obs, t, frame_index=None):
        return [SimpleNamespace(type="move", data=d) for d in self.sends.get(frame_index, [])]


def frame(k, still=None):
    from camera.sources.base import Frame

    return Frame(image=None, timestamp=k / 15, index=k, still=still)


def test_an_update_sent_frames_after_its_reading_is_the_decoders_wait_and_the_parts_add_up(monkeypatch):
    """The update sent by frame 12 carries frame 10's reading (frame 11's was thrown away): its time from frame
    10's reading to frame 12's feed is the decoder's wait, and the parts add up to the latency."""
    clock = iter([float(x) for x in range(100)])   # every perf_counter call one second later: parts are counts
    monkeypatch.setattr("live_camera.time.perf_counter", lambda: next(clock))
    # frame 11's reading is judged unusable (an arm): frame 12 repeats frame 10's reading, whose update it sends
    observer = Observer({10: (READ, True), 11: (READ, False), 12: (REUSE, True)})
    tracker = Tracker({12: [{"id": 1, "complete": False}]})
    timeline = Timeline(observer, tracker)
    assert timeline.observer.status() == {"gate": "watched"}   # the pipeline still sees the observer's face
    timeline.delivered[10] = -1.0
    for k in (10, 11, 12):
        obs = timeline.observer.observe(frame(k, still=lambda: "still"))
        tracker.feed(obs, k / 15, k)
    arrived = next(clock)
    parts = timeline.parts((1, False), -3.0, arrived, {10: 5, 11: 5, 12: 5},
                           SimpleNamespace(still_onset=lambda pos: 5))
    assert parts["emit"] == 12 and parts["read_k"] == 10
    assert parts["reader"] == {"cards": 12.0}
    assert parts["decoder"] > 0   # sent by a later frame's feed: the decoder waited for it
    total = sum(parts[n] for n in ("gate", "queue", "still", "read", "decoder", "feed", "push"))
    assert abs(total - (arrived - -3.0)) < 1e-9
    assert timeline.parts((2, False), -3.0, arrived, {}, None) == {}   # an update no feed sent: no parts
