"""`keltis-cam serve`: the command, its choice of source, and a real server process end to end."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from engine.errors import MalformedInput
from keltis_cam.cli import build_parser
from keltis_cam import pipeline
from keltis_cam.commands import serve as cli
from webui_replay import write_replay_session

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def session_folder(tmp_path_factory):
    return write_replay_session(tmp_path_factory.mktemp("cli") / "session")


def test_serve_is_a_keltis_cam_command():
    args = build_parser().parse_args(["serve", "--source", "opencv:0", "--port", "9000", "--host", "127.0.0.1"])
    assert args.func is cli.cmd_serve and args.port == 9000 and args.source == "opencv:0"


def test_source_choice(tmp_path, session_folder):
    assert pipeline.choose_source("opencv:1", "picamera2") == ("opencv:1", "--source")
    assert pipeline.choose_source(None, "picamera2")[0] == "picamera2"
    spec, why = pipeline.choose_source(None, None, camera_present=lambda: False, fixtures=session_folder.parent)
    assert spec == f"replay:{session_folder}" and "no camera" in why
    with pytest.raises(MalformedInput, match="no camera found"):
        pipeline.choose_source(None, None, camera_present=lambda: False, fixtures=tmp_path / "empty")
    assert pipeline.choose_source(None, None, camera_present=lambda: True)[0] == "picamera2"


def run_cli(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    env = {**os.environ, "KELTIS_CAM_CONFIG": "/nonexistent/keltis-test-config.toml"}
    return subprocess.run([sys.executable, "-m", "keltis_cam", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


def test_malformed_arguments_exit_2_naming_them(session_folder, tmp_path):
    bad_pin = run_cli("serve", "--source", f"replay:{session_folder}", "--pin", "12ab", "--data-dir", str(tmp_path))
    assert bad_pin.returncode == 2 and "PIN" in bad_pin.stderr
    missing = run_cli("serve", "--source", f"replay:{tmp_path / 'nowhere'}", "--data-dir", str(tmp_path))
    assert missing.returncode == 2 and "nowhere" in missing.stderr


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def test_serve_runs_the_pipeline_and_the_server_until_sigterm(session_folder, tmp_path):
    env = {**os.environ, "KELTIS_CAM_CONFIG": "/nonexistent/keltis-test-config.toml", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "keltis_cam", "serve", "--source", f"replay:{session_folder}",
                             "--observer", "truth", "--host", "127.0.0.1", "--port", "0", "--pin", "1357", "--speed", "fast",
                             "--no-loop", "--data-dir", str(tmp_path / "data")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"Open on phones.*?(http://\S+)", line)
            url = m.group(1) if m else None
        assert url, proc.stderr.read() if proc.poll() is not None else "no address printed"
        state = {}
        while time.monotonic() < deadline:
            state = get_json(url + "api/state")
            if len(state["moves"]) >= 3:
                break
            time.sleep(0.2)
        assert len(state["moves"]) >= 3 and state["game"]["observer"] == "truth"
        health = get_json(url + "healthz")
        assert health["ok"] and health["pipeline"]["observer"] == "truth"
        html = urllib.request.urlopen(url, timeout=5).read().decode()
        assert "initial-state" in html
        assert (tmp_path / "data" / "web-secret.key").exists()  # --data-dir keeps the table logins
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, err
    assert "stopping" in err


def test_a_live_camera_is_read_with_the_tables_calibration_and_components(fake_picamera2, tmp_path, monkeypatch):
    """`serve --source picamera2`: the vision reader starts from the table's calibration file and the
    components given (the game started on the table screen then names board and seats:
    tests/vision/test_live_setup.py)."""
    import shutil

    from calibration.model import load_calibration
    from vision.components import load_components

    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "none.toml"))
    cal = ROOT / "fixtures" / "sessions" / "nwnz-3p" / "calibration.json"
    cards = tmp_path / "our-cards"
    shutil.copytree(load_components(None).folder, cards)
    args = build_parser().parse_args(["serve", "--source", "picamera2", "--calibration", str(cal),
                                      "--components", str(cards), "--data-dir", str(tmp_path / "data"),
                                      "--pin", "1357"])
    parts = cli.build(args)
    try:
        observer = parts["built"].observer
        assert observer.configured_calibration == load_calibration(cal)
        assert Path(observer.reader.components.folder) == cards
    finally:
        parts["built"].close()
