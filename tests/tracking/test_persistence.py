"""Persistence (deliverable 5): SQLite in WAL mode, one transaction per input with its consequences,
and a killed tracker resumes exactly where it was."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from engine.observation import Observation
from tracking.stability import fields_equal, observation_fields
from tracking.store import EventStore, StoreError, default_db_path

from tracking_helpers import REPO, feed, game, make_tracker

pytestmark = pytest.mark.serial  # a replay process stopped and resumed against the wall clock: run alone (tests/conftest.py)


def test_wal_mode_and_full_sync(tmp_path):
    store = EventStore(tmp_path / "tracking.db")
    assert store.journal_mode() == "wal"
    game_id, _ = store.new_game({"game": "keltis"}, "2025-01-01T00:00:00")
    ids = store.append_many(game_id, [("state", {"a": 1}), ("move", {"b": 2})])
    assert ids == sorted(ids) and len(set(ids)) == 2
    assert [e.kind for e in store.events(game=game_id)] == ["game", "state", "move"]
    store.close()
    raw = sqlite3.connect(tmp_path / "tracking.db")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_group_of_events_is_all_or_nothing(tmp_path):
    store = EventStore(tmp_path / "tracking.db")
    game_id, _ = store.new_game({"game": "keltis"}, "now")
    before = store.last_event_id()
    with pytest.raises(TypeError):  # the second payload cannot be written: nothing is
        store.append_many(game_id, [("state", {"ok": 1}), ("move", {"bad": object()})])
    assert store.last_event_id() == before

    real_execute = store._db.execute
    calls = {"n": 0}

    class Boom(sqlite3.OperationalError):
        pass

    def failing(sql, *args):
        if sql.startswith("INSERT INTO events"):
            calls["n"] += 1
            if calls["n"] == 2:
                raise Boom("disk I/O error")
        return real_execute(sql, *args)

    store._db = _Proxy(store._db, failing)
    with pytest.raises(StoreError):
        store.append_many(game_id, [("state", {"ok": 1}), ("move", {"ok": 2})])
    store._db = store._db.inner
    assert store.last_event_id() == before  # the first insert was rolled back with the second


class _Proxy:
    def __init__(self, inner, execute):
        self.inner, self._execute = inner, execute

    def execute(self, sql, *args):
        return self._execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "tracking.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="tracking.db"):
        EventStore(bad)


def test_resume_in_process_gives_the_same_game(tmp_path):
    sim = game("keltis", "nwnz", 3, 101, max_moves=50)
    path = default_db_path(tmp_path)
    tracker = make_tracker(EventStore(path))
    tracker.new_game(sim.setup)
    half = len(sim.frames) // 2
    feed(tracker, sim, stop=half, finish=False)
    tracker.correct({"kind": "seats", "names": {list(sim.setup["seats"])[0]: "Anna"}})
    before = tracker.snapshot()
    tracker.store.close()

    resumed = make_tracker(EventStore(path))
    after = resumed.snapshot()
    assert after["status"]["resumed"] is True
    for key in ("moves", "warnings", "scores", "turn", "table", "score_history", "game_over", "event_id"):
        assert after[key] == before[key], key
    assert after["game"]["names"] == {list(sim.setup["seats"])[0]: "Anna"}
    # and it goes on: the rest of the frames give the same result as one uninterrupted run
    feed(resumed, sim, start=half, finish=False)
    whole = make_tracker()
    whole.new_game(sim.setup)
    feed(whole, sim, finish=False)
    assert [m["text"].replace("Anna", "x") for m in resumed.snapshot()["moves"]] == \
        [m["text"].replace(f"{list(sim.setup['seats'])[0]} ({list(sim.setup['seats'].values())[0]})", "x")
         for m in whole.snapshot()["moves"]]
    assert resumed.snapshot()["scores"]["scores"] == whole.snapshot()["scores"]["scores"]


def test_a_database_written_before_the_decoder_resumes_from_its_accepted_table_states(tmp_path):
    """A database from before issue 17 holds one "state" event per table state the journal accepted
    (not the frames): a tracker opening it reads those tables as frames, a hand before each, and
    resumes the game with its moves — the history is never lost."""
    sim = game("keltis", "base", 2, 102, max_moves=8)
    path = default_db_path(tmp_path)
    store = EventStore(path)
    game_id, _ = store.new_game(sim.setup, "2026-01-01T00:00:00+00:00",
                                {"setup": sim.setup, "started": "2026-01-01T00:00:00+00:00", "observer": "truth"})
    tables = [(0, sim.frames[0])] + [(t.frame, sim.frames[t.frame]) for t in sim.turns]
    store.append_many(game_id, [("state", {"raw": obs.to_json(), "t": round(t, 4), "frame": i, "hand": True})
                                for i, (t, obs) in tables])
    store.close()

    resumed = make_tracker(EventStore(path))
    snap = resumed.snapshot()
    assert snap["status"]["resumed"] is True and snap["moves"]
    # the game as read ends on the last table stored, and goes on from there
    last = tables[-1][1][1]
    assert fields_equal(observation_fields(resumed.decoded.model.table), observation_fields(last))
    assert [e.type for e in resumed.events(0)].count("move") >= len(snap["moves"])   # (announced and stored)
    t = tables[-1][1][0]
    resumed.feed(Observation("keltis", "base", False, "occluded"), t + 1.0, 1000)
    assert resumed.decoded.model.table is not None and resumed.snapshot()["status"]["frames"] == 1


def _replay(session, data_dir, *extra, **kw):
    return subprocess.Popen([sys.executable, "-m", "keltis_cam", "replay", str(session), "--data-dir", str(data_dir),
                             "--observer", "truth", "--json", *extra], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kw)


def _moves_in(db) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        n = con.execute("SELECT COUNT(*) FROM events WHERE kind='move'").fetchone()[0]
        con.close()
        return n
    except sqlite3.Error:
        return 0


def test_killed_replay_resumes_and_finishes_like_an_uninterrupted_run(tmp_path, short_session):
    whole = _replay(short_session, tmp_path / "whole")
    out, err = whole.communicate(timeout=120)
    assert whole.returncode == 0, err
    expected = json.loads(out)

    data = tmp_path / "killed"
    proc = _replay(short_session, data, "--speed", "40")
    db = default_db_path(data)
    deadline = time.monotonic() + 60
    while _moves_in(db) < 6 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the replay ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    stored = _moves_in(db)
    assert stored >= 6

    resumed = _replay(short_session, data, "--resume")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    result = json.loads(out)
    assert [m["text"] for m in result["moves"]] == [m["text"] for m in expected["moves"]]
    assert result["scores"] == expected["scores"]
    assert result["game_over"] == expected["game_over"]
    assert [(w["code"], w["move_id"]) for w in result["warnings"]] == \
        [(w["code"], w["move_id"]) for w in expected["warnings"]]
