"""`config init` never writes a configuration that cannot start on this machine (issue 18 item 6):
it writes the Pi camera if one is connected, else a /dev/video* camera OpenCV opens, else no
source (and `serve` then replays the example game); an explicit --source that cannot start is refused."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from keltis_cam import pipeline
from keltis_cam.cli import main
from keltis_cam.config import load_config

FAKES = Path(__file__).resolve().parents[1] / "fakes"


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "cfg" / "config.toml"))
    monkeypatch.setenv("KELTIS_CAM_DATA", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def no_cameras(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # as on a machine without python3-picamera2
    monkeypatch.setattr(pipeline, "video_devices", lambda: [])


def test_without_any_camera_config_init_leaves_the_source_unset_and_serve_uses_the_demo(env, no_cameras, capsys):
    assert main(["config", "init"]) == 0
    out = capsys.readouterr().out
    assert "no camera source" in out
    cfg = load_config()
    assert cfg.exists and cfg.camera.source is None
    text = cfg.path.read_text()
    assert "No camera was found" in text and '\nsource = "picamera2"' not in text
    spec, why = pipeline.choose_source(None, cfg.camera.source, camera_present=lambda: False)
    assert spec.startswith("replay:") and "example" in why  # plain `serve` starts


def test_an_explicit_source_that_cannot_start_is_refused(env, no_cameras, capsys):
    assert main(["config", "init", "--source", "picamera2"]) == 2
    err = capsys.readouterr().err
    assert "--source" in err and "no Raspberry Pi camera" in err
    assert not (env / "cfg" / "config.toml").exists()


def test_a_usb_camera_that_opens_is_written(env, no_cameras, monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "video_devices", lambda: [0, 2])
    monkeypatch.setattr(pipeline, "opencv_camera_opens", lambda n: n == 2)  # video0 is not a capture node
    assert main(["config", "init"]) == 0
    assert load_config().camera.source == "opencv:2"


def test_a_connected_pi_camera_is_written(env, monkeypatch):
    for name in [m for m in sys.modules if m.split(".")[0] in ("picamera2", "libcamera")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(FAKES))
    try:
        assert main(["config", "init"]) == 0
        assert load_config().camera.source == "picamera2"
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] in ("picamera2", "libcamera")]:
            del sys.modules[name]


def test_python_m_config_init_detects_too(env, no_cameras):
    from keltis_cam.config import main as config_main

    assert config_main(["init"]) == 0
    assert load_config().camera.source is None
