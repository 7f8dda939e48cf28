"""The reader's own status reaches the page through the pipeline: when it follows a bumped table,
the status is pushed at once (the page says so), not 25 frames later."""
from __future__ import annotations

from engine.observation import Observation
from tracking.pipeline import Pipeline


class Frame:
    def __init__(self, i):
        self.index, self.timestamp = i, i / 10


class BumpedObserver:
    """Says 'unusable: motion' and, from frame 3 on, that it re-aligned once."""

    name = "vision"

    def __init__(self):
        self.realignments = 0

    def observe(self, frame):
        if frame.index == 3:
            self.realignments = 1
        return Observation("keltis", "nwnz", False, "motion")

    def status(self):
        out = {"gate": {"moving": 1}}
        if self.realignments:
            out.update(realigned=1, realigned_why="the board slid 6 mm on the table: re-aligned", realigned_at=1.0)
        return out


class Source:
    def frames(self):
        return (Frame(i) for i in range(6))


class Tracker:
    setup = None

    def __init__(self):
        self.pushed = []

    def feed(self, obs, t, index):
        return []

    def set_source_status(self, status):
        self.pushed.append(status)


def test_a_realignment_pushes_the_status_at_once():
    tracker = Tracker()
    pipeline = Pipeline(Source(), BumpedObserver(), tracker, status_every=1000)
    pipeline.run()
    realigned = [s for s in tracker.pushed if (s.get("reader") or {}).get("realigned")]
    assert realigned and realigned[0]["frames"] == 4        # pushed with the frame that realigned
    assert realigned[0]["reader"]["realigned_why"].startswith("the board slid")
    assert pipeline.status()["reader"]["gate"] == {"moving": 1}


class MovedTooFarObserver:
    """Reads the table until frame 3, when the camera moved up: the reader's registration is too far from then."""

    name = "vision"
    realignments = 0

    def __init__(self):
        self.too_far = False

    def observe(self, frame):
        if frame.index == 3:
            self.too_far = True
        return Observation("keltis", "nwnz", False, "motion")

    def status(self):
        return {"resolution": {"centre": 1.1, "worst_corner": 0.9, "min": 1.5, "too_far": self.too_far,
                               "image_size": [4608, 2592]}}


def test_a_registration_too_far_pushes_the_status_at_once():
    tracker = Tracker()
    pipeline = Pipeline(Source(), MovedTooFarObserver(), tracker, status_every=1000)
    pipeline.run()
    far = [s for s in tracker.pushed if ((s.get("reader") or {}).get("resolution") or {}).get("too_far")]
    assert far and far[0]["frames"] == 4        # pushed with the frame whose registration is too far
    assert far[0]["reader"]["resolution"]["worst_corner"] == 0.9


def test_the_too_far_status_reaches_the_trackers_snapshot_the_page_reads():
    """The live page (webui/static/live.js renderStatus) reads status.source.reader.resolution.too_far."""
    from tracking_helpers import make_tracker

    tracker = make_tracker()
    Pipeline(Source(), MovedTooFarObserver(), tracker, status_every=1000).run()
    shown = tracker.snapshot()["status"]["source"]["reader"]["resolution"]
    assert shown["too_far"] is True and shown["worst_corner"] == 0.9 and shown["min"] == 1.5
