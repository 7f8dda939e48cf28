"""A restart continues the game (issue 18 item 8): `serve` on the same data directory shows the
unfinished game and goes on with it; `replay --resume` refuses another recording's game."""
from __future__ import annotations

import json
import signal
import sqlite3
import time
import urllib.request

import pytest

from keltis_cam.cli import main
from serve_process import start_serve
from webui_replay import write_replay_session


def state(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as resp:
        return json.loads(resp.read())


def games_in(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def wait_for(port: int, done, seconds: float = 30.0) -> dict:
    deadline = time.monotonic() + seconds
    snap = state(port)
    while not done(snap) and time.monotonic() < deadline:
        time.sleep(0.1)
        snap = state(port)
    assert done(snap), snap.get("moves")
    return snap


def stop(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=15)
    assert proc.returncode == 0


def test_a_restarted_serve_continues_the_unfinished_game(tmp_path):
    proc, port, _ = start_serve(tmp_path, "--no-loop", speed="6")
    try:
        before = wait_for(port, lambda s: len(s["moves"]) >= 3)
    finally:
        stop(proc)
    proc, port, _ = start_serve(tmp_path, "--no-loop", speed="6")
    try:
        after = state(port)
        assert after["game"]["started"] == before["game"]["started"]  # the same game, not a new one
        assert [m["text"] for m in after["moves"][:len(before["moves"])]] == [m["text"] for m in before["moves"]]
        later = wait_for(port, lambda s: len(s["moves"]) > len(after["moves"]))  # and it goes on
        assert later["game"]["started"] == before["game"]["started"]
    finally:
        stop(proc)
    assert games_in(tmp_path / "data" / "tracking.db") == 1


def test_serving_another_recording_starts_its_own_game(tmp_path):
    proc, port, _ = start_serve(tmp_path, "--no-loop", speed="6")
    try:
        wait_for(port, lambda s: len(s["moves"]) >= 1)
    finally:
        stop(proc)
    other = tmp_path / "other"
    other.mkdir()
    write_replay_session(other / "session", seed=6)
    (other / "data").symlink_to(tmp_path / "data")
    proc, port, _ = start_serve(other, "--no-loop", speed="6")
    try:
        assert state(port)["moves"] == []
    finally:
        stop(proc)
    assert games_in(tmp_path / "data" / "tracking.db") == 2


@pytest.fixture
def config_env(tmp_path, monkeypatch):
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "missing-config.toml"))


def test_replay_resume_refuses_another_recordings_game(tmp_path, capsys, config_env):
    first = write_replay_session(tmp_path / "first", max_frames=60)
    second = write_replay_session(tmp_path / "second", max_frames=60, seed=6)
    data = tmp_path / "data"
    assert main(["replay", str(first), "--observer", "truth", "--data-dir", str(data), "--json"]) == 0
    capsys.readouterr()
    assert main(["replay", str(second), "--observer", "truth", "--data-dir", str(data), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "'first'" in err and "'second'" in err and "--resume" in err and len(err.strip().splitlines()) == 1
    assert main(["replay", str(first), "--observer", "truth", "--data-dir", str(data), "--resume", "--json"]) == 0  # its own: fine
    capsys.readouterr()
    renamed = tmp_path / "first-copy"
    first.rename(renamed)  # a moved recording is still the same recording
    assert main(["replay", str(renamed), "--observer", "truth", "--data-dir", str(data), "--resume", "--json"]) == 0
