"""Bad input keeps the game (issue 20 items 7–8): a camera lost mid-game and back, corrupt frames and
frames the reader cannot read — through the real capture thread (camera.sources.base), the real
Pipeline and the real tracker. Nothing is taken while the camera is away, the snapshot says so, and
the game goes on by itself when it is back, after fresh stillness."""
from __future__ import annotations

import threading
import time

import pytest

from camera.sources.base import CaptureThreadSource, SourceLost, SourceUnavailable
from engine.observation import Observation
from tracking.pipeline import Pipeline

from test_tracker import tracked_vs_true
from tracking_helpers import game, make_tracker

pytestmark = pytest.mark.serial  # a camera thread that goes away and comes back, timed: run alone (tests/conftest.py)

FPS = 5.0


class ScriptedCamera(CaptureThreadSource):
    """A simulated game's frames through the real capture thread; the cable comes out at frame
    `lose_at` (the read fails, then the camera cannot be opened) until the test calls plug_in();
    meanwhile the game goes on at the table, so the camera comes back at frame `back_at`."""

    def __init__(self, sim, lose_at: int, back_at: int):
        super().__init__("scripted", retry_initial=0.02, retry_max=0.05, lossless=True)
        self.sim = sim
        self.lose_at = lose_at
        self.back_at = back_at
        self.pos = 0
        self.unplugged = False
        self.plugged_back = threading.Event()

    def plug_in(self) -> None:
        self.plugged_back.set()

    def _open(self) -> None:
        if self.unplugged and not self.plugged_back.is_set():
            raise SourceUnavailable("no camera (check the cable)")
        if self.unplugged:
            self.unplugged = False
            self.pos = self.back_at  # what happened at the table meanwhile was not seen

    def _read(self):
        if self.pos == self.lose_at and not self.unplugged and not self.plugged_back.is_set():
            self.unplugged = True
            raise SourceLost("cable out")
        if self.pos >= len(self.sim.frames):
            return None
        t, _obs = self.sim.frames[self.pos]
        self.pos += 1
        return f"image {self.pos - 1}", t, self.pos - 1

    def _close(self) -> None:
        pass


class SimObserver:
    """Reads a frame as the simulated game's truth for it (the image is a label, never looked at)."""

    name = "truth"

    def __init__(self, sim, broken: dict[int, str] | None = None):
        self.sim = sim
        self.broken = broken or {}

    def observe(self, frame):
        how = self.broken.get(frame.index)
        if how == "corrupt":
            raise ValueError(f"cannot decode {frame.image}")  # a reader failing on a damaged picture
        if how == "no-board":
            return Observation(self.sim.setup["game"], self.sim.setup.get("board"), False, "no-board")
        return self.sim.frames[frame.index][1]


def wait_until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("timed out")


def test_camera_lost_mid_game_pauses_the_tracker_and_the_game_resumes_when_it_is_back():
    sim = game("keltis", "base", 2, 61, max_moves=12, fps=FPS)
    # Turn 2's table is still from frame 108; the cable comes out at 124, while it is still: the
    # hand of turn 3 and its result (still from 133) happen unseen; the camera is back at 133,
    # 1.8 s later: shorter than gap_seconds, so the frame times alone would not show the gap.
    turn3 = sim.turns[3]
    assert turn3.frame == 133 and all(o.usable for _, o in sim.frames[108:125])
    camera = ScriptedCamera(sim, lose_at=124, back_at=133)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    pipeline = Pipeline(camera, SimObserver(sim), tracker, health_seconds=0.05).start()
    try:
        snap = wait_until(lambda: (s := tracker.snapshot())["status"]["camera"]["state"] in ("lost", "retrying")
                          and s)
        assert snap["status"]["tracking"] == {"state": "paused", "reason": "camera-lost",
                                              "since": snap["status"]["camera"]["since"]}
        assert snap["status"]["source"]["source"]["state"] in ("lost", "retrying")
        moves_while_lost = len(snap["moves"])
        last_id = tracker.last_event_id
        time.sleep(0.3)  # the camera stays away: nothing happens to the game
        assert camera.status()["state"] == "retrying" and camera.pos == 124
        still = tracker.snapshot()
        assert len(still["moves"]) == moves_while_lost and still["table"] == snap["table"]
        assert [e.type for e in tracker.events(last_id)] in ([], ["status"])  # (lost → retrying)
        camera.plug_in()
        pipeline._thread.join(20)
        assert not pipeline._thread.is_alive()
    finally:
        pipeline.stop()
    assert pipeline.status()["state"] == "ended" and pipeline.camera_losses == 1
    # the camera's going and coming back are in the game's log; the snapshot says running again
    cams = [e.data["camera"]["state"] for e in tracker.events(0) if e.type == "status" and "camera" in e.data]
    assert cams[-1] == "running" and set(cams[:-1]) <= {"lost", "retrying"} and cams[:-1]
    final = tracker.snapshot()
    assert final["status"]["camera"]["state"] == "ended"  # (the simulated game's frames ran out)
    assert final["status"]["tracking"]["state"] != "paused"
    # every move is the true one: none made up during the loss, turn 3 (played unseen) read once
    check = tracked_vs_true(tracker, sim)
    assert check["exact"] == check["true_turns"] == len(sim.turns), check["mismatches"][:2]
    # ... from what the camera saw after its return: nothing during the loss was taken as seen,
    # and turn 3 is read from the frames since (not mixed with the frames from before the loss)
    stored = [f["frame"] for e in tracker.events(0) if e.type == "frames" for f in e.data["frames"]]
    assert 133 in stored and not [f for f in stored if 124 <= f < 133]
    assert tracker.decoded.model.turns[3].frame >= 133


def test_a_short_loss_between_two_looks_still_pauses_the_tracker():
    """A camera lost and back before the pipeline looked (reconnects went up) is a loss all the same."""
    sim = game("keltis", "base", 2, 61, max_moves=12, fps=FPS)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    for i in range(108, 124):
        tracker.feed(sim.frames[i][1], sim.frames[i][0], i)
    running = {"state": "running", "source": {"state": "running", "reconnects": 0}}
    tracker.set_source_status(running)
    assert tracker.snapshot()["status"]["camera"]["state"] == "running"
    gaps = tracker.watch.gaps
    tracker.set_source_status({"state": "running", "source": {"state": "running", "reconnects": 1,
                                                              "error": "lost: cable out"}})
    assert tracker.watch.gaps == gaps + 1
    events = [e.data["camera"] for e in tracker.events(0) if e.type == "status" and "camera" in e.data]
    assert events[-1]["state"] == "running" and events[-1]["away_since"]


def test_corrupt_and_unregistered_frames_are_counted_logged_and_never_a_move(caplog):
    sim = game("keltis", "base", 2, 61, max_moves=12, fps=FPS)
    # in the still table after turn 2: two corrupt pictures and a run the reader cannot register
    broken = {110: "corrupt", 111: "corrupt", 115: "no-board", 116: "no-board", 117: "no-board"}
    camera = ScriptedCamera(sim, lose_at=-1, back_at=0)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    pipeline = Pipeline(camera, SimObserver(sim, broken), tracker, health_seconds=0.05).start()
    pipeline._thread.join(20)
    pipeline.stop()
    status = pipeline.status()
    assert status["state"] == "ended" and status["frames"] == len(sim.frames)
    assert status["errors"] == 2 and "ValueError: cannot decode image 111" in status["last_error"]
    assert status["unusable"]["bad-frame"] == 2 and status["unusable"]["no-board"] == 3
    # shown: the tracker's snapshot carries the pipeline's counts (what the page shows)
    shown = tracker.snapshot()["status"]["source"]
    assert shown["unusable"]["bad-frame"] == 2 and shown["unusable"]["no-board"] == 3 and shown["errors"] == 2
    # logged: each corrupt frame, and the first the reader could not register (then one a minute)
    messages = [r.getMessage() for r in caplog.records]
    assert sum("frame 110: ValueError" in m or "frame 111: ValueError" in m for m in messages) == 2
    assert [m for m in messages if "cannot be read: no-board" in m] == [
        "frame 115 cannot be read: no-board (1 such frames so far, counted in the status as unusable['no-board'])"]
    check = tracked_vs_true(tracker, sim)
    assert check["exact"] == check["true_turns"] == len(sim.turns), check["mismatches"][:2]


class StubCamera:
    """A camera source as the pipeline sees it (latest(), status()), scripted step by step."""

    name = "stub"

    def __init__(self, script):
        self.script = list(script)  # (state, frames delivered so far, frame or None) per look
        self.now = ("starting", 0, None)
        self.calls = 0

    def latest(self, timeout=0.0, newer_than=None):
        self.calls += 1
        self.now = self.script.pop(0) if self.script else ("ended", self.now[1], None)
        frame = self.now[2]
        return frame if frame is not None and (newer_than is None or frame.seq > newer_than) else None

    def status(self):
        return {"state": self.now[0], "frames": self.now[1], "error": "cable out" if self.now[0] == "lost" else None}


def test_a_frame_taken_before_the_loss_and_read_after_it_is_dropped():
    from camera.sources.base import Frame

    sim = game("keltis", "base", 2, 61, max_moves=12, fps=FPS)

    def frame(i):
        return Frame(f"image {i}", sim.frames[i][0], i, seq=i + 1)
    # frame 4 (seq 5) was taken just before the cable came out; the pipeline reads it only after
    script = [("running", 1, frame(0)), ("running", 2, frame(1)), ("running", 3, frame(2)),
              ("running", 4, frame(3)), ("lost", 5, None), ("lost", 5, frame(4)),
              ("running", 6, frame(20)), ("running", 7, frame(21))]
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    pipeline = Pipeline(StubCamera(script), SimObserver(sim), tracker, health_seconds=0.0)
    assert pipeline.run() == 6
    assert pipeline.stale == 1 and pipeline.camera_losses == 1
    assert tracker.watch.frames_seen == 6


def test_a_camera_that_gives_up_fails_the_served_pipeline_without_ending_the_game():
    from tracking.pipeline import ServedPipeline

    sim = game("keltis", "base", 2, 61, max_moves=12, fps=FPS)
    tracker = make_tracker()
    tracker.new_game(sim.setup)

    def frame(i):
        from camera.sources.base import Frame
        return Frame(f"image {i}", sim.frames[i][0], i, seq=i + 1)
    script = [("running", 1, frame(0)), ("failed", 1, None)]
    served = ServedPipeline(lambda: StubCamera(script), SimObserver(sim), tracker).start()
    wait_until(lambda: served.state == "failed")
    served.stop()
    assert "the frame source failed" in served.status()["serve_error"]
    assert tracker.snapshot()["game_over"] is False and tracker.snapshot()["status"]["camera"]["state"] == "failed"
