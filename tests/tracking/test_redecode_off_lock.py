"""An answer's re-decode off the tracker's lock (session 36, wt36-redecode; issue 17): a third-seat answer no held
reading allows replays the game's stored inputs (GameTracker._correct_redecoded) without holding the lock, so the
pipeline's feed and every phone's snapshot go on meanwhile; the inputs that arrive during it are fed to the new
decoding afterwards in their order (the decoding a restart makes); one re-decode installs at a time. The replay is
made slow by a fake that waits for the test (bounded timeouts throughout: a regression fails, never hangs)."""
from __future__ import annotations

import threading
import time

import pytest

from tracking.decoded import StaleQuestion
from tracking.store import EventStore
from tracking_helpers import make_tracker

from test_question_answers import asked, red_three_again, taker

EAST = {"kind": "took", "pile": "red", "card": "3", "seat": "east", "question": 1}
BOUND = 10.0   # seconds: every wait of the test (the game here decodes in well under a second)


def slowed(tracker):
    """The tracker's replay held until the test releases it: (started, release) events."""
    real = tracker._replay_job
    started, release = threading.Event(), threading.Event()

    def slow(job):
        started.set()
        assert release.wait(BOUND), "the test never released the replay"
        return real(job)

    tracker._replay_job = slow
    return started, release


def in_thread(fn, *args):
    """fn(*args) in a thread: (thread, out) — out["value"] or out["error"] once it ends."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args)
        except Exception as exc:   # (kept for the test's assertions)
            out["error"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th, out


def test_a_feed_and_a_snapshot_during_a_slow_re_decode_return_at_once():
    tracker = asked(decoder_beam=2)
    before = tracker.snapshot()
    started, release = slowed(tracker)
    answering, answer = in_thread(tracker.correct, EAST)
    assert started.wait(BOUND)
    t0 = time.monotonic()
    looking, looked = in_thread(tracker.snapshot)   # (the replay is still held: the lock must be free)
    feeding, fed = in_thread(tracker.feed, red_three_again()[0], 16.0, 16)
    looking.join(2.0)
    feeding.join(2.0)
    waited = time.monotonic() - t0
    assert not looking.is_alive() and "error" not in looked, "snapshot() blocked by the re-decode"
    assert not feeding.is_alive() and "error" not in fed, "feed() blocked by the re-decode"
    assert waited < 2.0 and answering.is_alive()
    snap = looked["value"]
    assert snap["moves"] == before["moves"] and snap["questions"] == before["questions"]   # (the old reading, meanwhile)
    release.set()
    answering.join(BOUND)
    assert not answering.is_alive() and "error" not in answer, answer
    assert taker(answer["value"]) == ["east"] and answer["value"]["questions"] == []


@pytest.mark.parametrize("rounds", [3, 0])
def test_frames_fed_during_the_re_decode_end_up_as_if_fed_after_it_and_a_restart_agrees(tmp_path, rounds):
    """The red 3 comes back and is taken again (tied west/north: question 2) while east's answer re-decodes: the
    moves, questions and scores equal those of a tracker that answered first and was fed those frames after.
    rounds: the catch-up off the lock (GameTracker.CATCH_UP_ROUNDS); 0: all of it under the lock, at the install."""
    later = list(enumerate(red_three_again(), start=16))
    plain = asked(decoder_beam=2)
    plain.correct(EAST)
    for i, obs in later:
        plain.feed(obs, float(i), i)
    want = plain.snapshot()
    assert taker(want) == ["east", "west"] or taker(want) == ["east", "north"]

    db = tmp_path / "t.db"
    tracker = asked(EventStore(db), decoder_beam=2)
    tracker.CATCH_UP_ROUNDS = rounds
    started, release = slowed(tracker)
    answering, answer = in_thread(tracker.correct, EAST)
    assert started.wait(BOUND)
    for i, obs in later:
        tracker.feed(obs, float(i), i)
    release.set()
    answering.join(BOUND)
    assert not answering.is_alive() and "error" not in answer, answer
    got = tracker.snapshot()
    for key in ("moves", "questions", "scores", "turn", "table"):
        assert got[key] == want[key], key
    assert [e.kind for e in tracker.store.events()].count("frames") >= 2   # (the frames fed meanwhile were stored)
    stored = [e.payload for e in tracker.store.events() if e.kind == "correction"]
    assert len(stored) == 1 and stored[0]["redecode"]["seat"] == "east"
    tracker.store.close()
    again = make_tracker(EventStore(db), decoder_beam=2)
    assert again.resumed and again.snapshot()["moves"] == want["moves"]
    assert again.snapshot()["questions"] == want["questions"]


def test_two_concurrent_answers_do_not_both_install_the_later_waits_and_finds_the_question_answered():
    tracker = asked(decoder_beam=2)
    started, release = slowed(tracker)
    first, out1 = in_thread(tracker.correct, EAST)
    assert started.wait(BOUND)
    started.clear()
    second, out2 = in_thread(tracker.correct, dict(EAST))
    time.sleep(0.2)
    assert second.is_alive() and not started.is_set()   # (waits for the first re-decode: no second replay yet)
    release.set()
    first.join(BOUND)
    second.join(BOUND)
    assert not first.is_alive() and not second.is_alive()
    assert "error" not in out1 and taker(out1["value"]) == ["east"]
    assert isinstance(out2.get("error"), StaleQuestion) and out2["error"].field == "question"
    stored = [e.payload for e in tracker.store.events() if e.kind == "correction"]
    assert len(stored) == 1 and "redecode" in stored[0]
    assert taker(tracker.snapshot()) == ["east"]


def test_an_answer_given_on_the_page_during_the_re_decode_is_kept_and_the_re_decode_is_refused_as_stale():
    """While east's answer re-decodes, another phone answers west (a seat the question offers): applied at once
    and stored; east's re-decode then finds its question answered — 409 "question", nothing of it installed."""
    tracker = asked(decoder_beam=2)
    started, release = slowed(tracker)
    answering, answer = in_thread(tracker.correct, EAST)
    assert started.wait(BOUND)
    west = tracker.correct({"kind": "took", "pile": "red", "card": "3", "seat": "west", "question": 1})
    assert taker(west) == ["west"]
    release.set()
    answering.join(BOUND)
    assert not answering.is_alive()
    assert isinstance(answer.get("error"), StaleQuestion) and answer["error"].field == "question"
    assert taker(tracker.snapshot()) == ["west"]
    stored = [e.payload for e in tracker.store.events() if e.kind == "correction"]
    assert len(stored) == 1 and stored[0]["correction"]["seat"] == "west" and "redecode" not in stored[0]


def test_an_answer_given_by_a_thread_holding_the_lock_re_decodes_on_it():
    """(finish() calls correct() under the lock: a re-decode there cannot let the lock go — it runs on it, as
    before, instead of waiting for itself)"""
    tracker = asked(decoder_beam=2)
    with tracker._cond:
        after = tracker.correct(EAST)
    assert taker(after) == ["east"] and after["questions"] == []
    assert [e.payload["redecode"]["seat"] for e in tracker.store.events() if e.kind == "correction"] == ["east"]
