"""`keltis-cam record --live` stores what the live pipeline used — every frame's small picture, the
gate's decisions and readings, the stills it read — and `replay --observer recorded` gives the
tracker exactly that again (issue 20 item 6)."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from camera.record import LiveRecorder, RecordingObserver, read_live_lines, record_live
from camera.session import SessionError, SessionInfo, open_session
from camera.sources import open_source
from tracking.observers import make_observer
from vision.reader import read_image

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"


@pytest.fixture(scope="module")
def live_recording(module_fake_picamera2, tmp_path_factory):
    """A fake Pi camera showing a still table, an arm laying a card, the table still again, recorded live
    (once: 45 frames filmed at 15 fps; the tests only read the recording)."""
    fake_picamera2, tmp_path = module_fake_picamera2, tmp_path_factory.mktemp("record-live")
    session = open_session(SESSION)
    frames = {i: read_image(SESSION / "frames" / f"{i:06d}.jpg") for i in (0, 12, 13, 14, 15, 16, 18)}
    h, w = frames[0].shape[:2]
    script = [0] * 12 + [12] * 3 + [13] * 3 + [14] * 3 + [15] * 3 + [16] * 3 + [18]

    fake_picamera2.WORLD.movie = lambda n, _w, _h: frames[script[min(n, len(script) - 1)]]
    observer = make_observer("vision", None, {"calibration": str(SESSION / "calibration.json"), "game": "keltis",
                                              "board": "nwnz", "seats": dict(session.info.seats)})
    given = []

    class Spy:   # what the tracker would have been given, frame by frame
        name = "vision"

        def __init__(self, inner):
            self.inner = inner

        def observe(self, frame):
            obs = self.inner.observe(frame)
            given.append(obs)
            self.last_decision, self.last_image = self.inner.last_decision, self.inner.last_image
            return obs

    info = SessionInfo(game="keltis", board="nwnz", seats=dict(session.info.seats), rules={}, source="picamera2")
    out = tmp_path / "live"
    # stills off: this fake camera films a recording, its movie has no full-resolution pictures
    with open_source(f"picamera2?size={w}x{h}&fps=15&stills=off", settle_seconds=0.0) as source:
        result = record_live(source, out, info, Spy(observer), max_frames=45,
                             calibration=json.loads((SESSION / "calibration.json").read_text()))
    return out, result, given, observer


def test_the_recording_holds_every_frame_and_the_stills_read(live_recording):
    out, result, given, observer = live_recording
    lines = read_live_lines(out)
    assert result.frames == len(lines) == len(given) == 45
    reads = [line for line in lines if line.decision == "read"]
    session = open_session(out)
    assert len(reads) == len(session.frames) == observer.gate.counts["read"] >= 1
    assert all(line.frame is not None and (out / "frames" / f"{line.frame:06d}.jpg").is_file() for line in reads)
    assert all(line.small and (out / line.small).is_file() for line in lines)
    assert {line.decision for line in lines} >= {"moving", "read"}
    assert session.info.calibration   # the calibration travels with the recording


def test_replaying_the_recording_gives_the_tracker_exactly_the_same(live_recording):
    out, _result, given, _observer = live_recording
    from tracking.pipeline import SessionFrames

    recorded = make_observer("recorded", open_session(out))
    again = [recorded.observe(f) for f in SessionFrames(recorded).frames()]
    assert [o.to_json() for o in again] == [o.to_json() for o in given]


def test_a_recording_cut_off_mid_line_and_a_broken_line(tmp_path):
    live = tmp_path / "live.jsonl"
    good = json.dumps({"t": 0.0, "decision": "moving", "observation": {"game": "keltis", "board": "nwnz",
                                                                        "usable": False, "reason": "motion"}})
    live.write_text(good + "\n" + good + "\n" + '{"t": 0.13, "decis')
    assert len(read_live_lines(tmp_path)) == 2          # the power went: the last half line is dropped
    live.write_text(good + "\n" + "not json\n" + good + "\n")
    with pytest.raises(SessionError, match=r"live.jsonl.*line 2"):
        read_live_lines(tmp_path)


def test_a_full_card_stops_the_recording_not_the_game(tmp_path):
    class Writer:
        folder = tmp_path

        def add_frame(self, *a):
            raise OSError(28, "No space left on device")

    class Inner:
        name, last_decision, last_image = "vision", "read", None

        def observe(self, frame):
            return "reading"

    class Frame:
        index, timestamp, small = 0, 0.0, None
        image = __import__("numpy").zeros((90, 160, 3), "uint8")

    obs = RecordingObserver(Inner(), LiveRecorder(Writer()))
    assert obs.observe(Frame()) == "reading" and obs.observe(Frame()) == "reading"
    assert "No space left" in obs.status()["recording_failed"]


def test_replay_observer_recorded_from_the_command_line(live_recording, capsys):
    from keltis_cam.cli import main

    out, _result, _given, _observer = live_recording
    assert main(["replay", str(out), "--observer", "recorded"]) == 0
    printed = capsys.readouterr().out
    assert "45 frames, observer recorded" in printed
