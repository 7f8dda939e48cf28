"""A reading the game cannot have (the reader's mistake, not the table's) is one unusable frame,
logged with its frame: the pipeline goes on and the game's history is not touched (issue 20 item 7)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from camera.session import open_session
from tracking.observers import make_observer
from tracking.pipeline import Pipeline, SessionFrames
from tracking.store import EventStore
from tracking.tracker import GameTracker
from keltis_cam.pipeline import setup_of_session

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "base-2p"


class EndCardOnAPile:
    """The truth, except that some usable frames read a card-game end card on the yellow pile."""

    name = "vision"

    def __init__(self, inner, bad):
        self.inner, self.bad = inner, bad

    def observe(self, frame):
        obs = self.inner.observe(frame)
        if frame.index in self.bad and obs.usable:
            return replace(obs, discard_tops={**(obs.discard_tops or {}), "yellow": "E"})
        return obs


def _run(observer):
    session = open_session(SESSION)
    tracker = GameTracker(EventStore(":memory:"), observer="vision")
    tracker.new_game(setup_of_session(session))
    pipeline = Pipeline(SessionFrames(session, speed=None), observer, tracker)
    pipeline.run()
    tracker.finish("recording ended")
    return pipeline, tracker.snapshot()


def test_a_reading_no_table_of_this_game_can_show_is_an_unusable_frame_and_the_game_goes_on(caplog):
    session = open_session(SESSION)
    truth = make_observer("truth", session)
    usable = [ref.index for ref in session.frames if session.truth(ref)["usable"]]
    bad = set(usable[3:6])
    clean, want = _run(truth)
    pipeline, got = _run(EndCardOnAPile(make_observer("truth", session), bad))
    assert pipeline.frames == clean.frames                       # every frame taken, none stopped it
    assert pipeline.unusable.get("invalid-reading") == len(bad)
    assert "invalid-reading" in caplog.text and "not a board-game card" in caplog.text
    assert [m["text"] for m in got["moves"]] == [m["text"] for m in want["moves"]]
    assert got["scores"] == want["scores"]
