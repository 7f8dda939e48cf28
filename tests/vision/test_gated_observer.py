"""The vision observer on a live camera (fake picamera2, main + lores streams): stillness and hands
are judged on the small picture of every frame; the full reader runs only once the table has been
still, a few times, and again after it changed (issue 20 items 2 and 8)."""
from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path

import pytest

from camera.session import open_session
from camera.sources import open_source
from vision.observer import make_observer
from vision.reader import read_image

pytestmark = pytest.mark.serial  # a live (fake) camera filming at 15 fps: run alone (tests/conftest.py)

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"
STILL = (4608, 2592)      # the fake camera's sensor (a Camera Module 3)


@lru_cache(maxsize=None)
def still_of(frame_no: int, width: int, height: int):
    """The full-resolution still a camera takes of the session's table at that frame (the session is
    filmed with stills: simulator/stills.py renders it as the camera would have taken it). Rendered
    before the camera opens (STILL): a live camera's consumer waits only seconds for its still."""
    from simulator.stills import SessionStills

    return SessionStills(SESSION, size=(width, height)).still(frame_no)


def test_live_camera_reads_the_table_only_when_it_is_still(fake_picamera2):
    session = open_session(SESSION)
    frames = {i: read_image(SESSION / "frames" / f"{i:06d}.jpg") for i in (0, 12, 13, 14, 15, 16, 18)}
    h, w = frames[0].shape[:2]
    hand = [12] * 6 + [13] * 6 + [14] * 6 + [15] * 6 + [16] * 6   # 2 s of an arm laying a card
    script = [0] * 30 + hand + [18]   # still, a hand lays a card, still from then on

    def movie(frame_no, width, height):
        # (sensor noise is tested in test_gate.py; here the same table gives the same picture, so a
        # reading reused is comparable with one made afresh)
        return frames[script[min(frame_no, len(script) - 1)]]

    fake_picamera2.WORLD.movie = movie
    observer = make_observer(session=session)   # its calibration, board and seats; frames come from the camera
    seen = []
    deadline = time.monotonic() + 60
    with open_source(f"picamera2?size={w}x{h}&fps=15", settle_seconds=0.0) as source:
        for frame in source.frames():
            assert frame.small is not None and frame.small.shape[1] == 320
            no = fake_picamera2.WORLD.instances[0]._frame_no
            reused = observer.gate.counts["reuse"]
            seen.append((no, observer.observe(frame)))
            last_frame = frame
            # until the table, still after the hand, is read enough that readings are reused
            if (no >= len(script) and observer.gate.counts["reuse"] > reused) or time.monotonic() > deadline:
                break
    counts = observer.status()["gate"]
    assert counts["read"] <= 9, counts                     # 3 per still period, not one per frame
    assert counts["reuse"] and counts["settling"] and counts["moving"], counts
    assert len(seen) > counts["read"]
    assert any(not obs.usable for _, obs in seen)          # the arm, or the table not yet still
    # once still again, the observer gives what a full reading of that table gives
    direct = observer.reader.read(last_frame.image).observation   # the same registration, read afresh
    last = seen[-1][1]
    assert last.usable and last.pawns == direct.pawns and last.tiles == direct.tiles


def test_a_camera_that_takes_stills_is_read_from_full_resolution_stills(fake_picamera2):
    """`picamera2?stills=on`: once the table is still the observer reads a full-resolution still (the
    card strips need its pixels) instead of the video frame, once per still period; the reader's
    registration is the still's, and the motion test keeps working on the small pictures."""
    session = open_session(SESSION)
    frame0 = read_image(SESSION / "frames" / "000000.jpg")
    h, w = frame0.shape[:2]

    def movie(frame_no, width, height):
        return frame0 if (width, height) == (w, h) else still_of(0, width, height)

    still_of(0, *STILL)
    fake_picamera2.WORLD.movie = movie
    observer = make_observer(session=session)
    deadline = time.monotonic() + 60
    readings = []
    with open_source(f"picamera2?size={w}x{h}&fps=15&stills=on", settle_seconds=0.0) as source:
        for frame in source.frames():
            readings.append(observer.observe(frame))
            if observer.gate.counts["reuse"] >= 10 or time.monotonic() > deadline:
                break
        assert source.status()["stills"] == observer.stills
    assert observer.stills == 1 and observer.gate.counts["read"] == 1, observer.status()
    assert tuple(observer.reader.registration.image_size) == (4608, 2592)
    assert observer.last_image.shape[:2] == (2592, 4608)       # a live recording stores the still it read
    last = readings[-1]
    direct = observer.reader.read(observer.last_image).observation
    assert last.usable and last.pawns == direct.pawns and last.tiles == direct.tiles


def test_no_still_is_taken_for_a_hand_resting_over_the_table(fake_picamera2):
    """With stills on, a reading the small picture already shows to be unusable (an arm resting over
    the table) costs no still: the camera's video is not paused for it."""

    session = open_session(SESSION)
    frames = {i: read_image(SESSION / "frames" / f"{i:06d}.jpg") for i in (0, 13)}
    h, w = frames[0].shape[:2]
    script = [0] * 20 + [13] * 400        # the table, then an arm that stays where it is

    def movie(frame_no, width, height):
        k = script[min(frame_no, len(script) - 1)]
        return frames[k] if (width, height) == (w, h) else still_of(k, width, height)

    still_of(0, *STILL)
    fake_picamera2.WORLD.movie = movie
    observer = make_observer(session=session)
    deadline = time.monotonic() + 60
    hand_reads = 0
    with open_source(f"picamera2?size={w}x{h}&fps=15&stills=on", settle_seconds=0.0) as source:
        for frame in source.frames():
            no = fake_picamera2.WORLD.instances[0]._frame_no
            obs = observer.observe(frame)
            if no > 30 and observer.last_decision == "read":
                hand_reads += 1
                assert not obs.usable and obs.reason == "occluded"
            if hand_reads >= 3 or time.monotonic() > deadline:
                break
    assert hand_reads >= 3 and observer.stills == 1, observer.status()    # the still of the table before
