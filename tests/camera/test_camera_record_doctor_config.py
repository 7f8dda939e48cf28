"""`keltis-cam record`, `doctor` and the config file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.model import default_calibration, save_calibration
from engine.errors import MalformedInput
from keltis_cam.cli import main
from keltis_cam.config import ConfigError, load_config, write_default_config
from camera.doctor import FAIL, OK, WARN, check_grab, run_checks
from camera.record import record_session
from camera.session import SessionInfo, SessionWriter, encode_jpeg, open_session
from camera.sources import open_source


@pytest.fixture
def env(tmp_path, monkeypatch):
    """An isolated config file location and data directory."""
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "cfg" / "config.toml"))
    monkeypatch.setenv("KELTIS_CAM_DATA", str(tmp_path / "data"))
    return tmp_path


@pytest.fixture
def session(tmp_path):
    folder = tmp_path / "source-session"
    with SessionWriter(folder, SessionInfo(source="simulator", board="base")) as writer:
        for i in range(12):
            writer.add_frame(encode_jpeg(np.full((60, 80, 3), 20 * i % 256, np.uint8)), 0.25 * i)
    return folder


# -- record

def test_record_session_from_a_source_keeps_fps_and_writes_a_readable_session(session, tmp_path):
    out = tmp_path / "rec"
    info = SessionInfo(game="keltis", board="base", seats={"south": "black"}, source="replay")
    result = record_session(open_source(f"replay:{session}?speed=fast"), out, info, fps=2.0,
                            calibration=default_calibration("base"))
    assert result.stopped_by == "source-ended"
    rec = open_session(out)
    assert rec.warnings == []
    # the source's frames are 0.25 s apart: at 2 fps every second one is kept
    assert [f.t for f in rec.frames] == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert rec.info.seats == {"south": "black"} and rec.info.calibration == "calibration.json"
    assert rec.calibration()["board"] == "base"
    assert rec.read_frame(rec.frames[1]).shape == (60, 80, 3)


def test_cli_record_with_frame_limit_and_refusal_to_overwrite(session, env, capsys):
    out = env / "rec"
    args = ["record", str(out), "--source", f"replay:{session}?speed=fast", "--fps", "0", "--frames", "5",
            "--seats", "south=black,north=white"]
    assert main(args) == 0
    assert "5 frames" in capsys.readouterr().out
    rec = open_session(out)
    assert len(rec.frames) == 5 and rec.info.source == "replay" and rec.info.seats == {"south": "black",
                                                                                        "north": "white"}
    assert rec.info.extra["source_spec"].startswith("replay:")
    assert main(args) == 2
    assert "not empty" in capsys.readouterr().err
    assert main(args + ["--overwrite"]) == 0


def test_cli_record_needs_an_explicit_source(env, capsys):
    assert main(["record", str(env / "rec")]) == 2
    err = capsys.readouterr().err
    assert "no frame source" in err and "--source" in err
    assert main(["record", str(env / "rec"), "--source", "webcam"]) == 2
    assert "unknown frame source 'webcam'" in capsys.readouterr().err
    assert main(["record", str(env / "rec2"), "--source", "replay:x", "--seats", "middle=black"]) == 2


def test_cli_record_uses_the_config_source_and_stores_the_calibration(session, env, capsys):
    write_default_config(source=f"replay:{session}?speed=fast")
    save_calibration(default_calibration("base"), env / "data" / "calibration.json")
    assert main(["record", "--frames", "2", "--fps", "0"]) == 0
    sessions = list((env / "data" / "sessions").iterdir())
    assert len(sessions) == 1
    rec = open_session(sessions[0])
    assert len(rec.frames) == 2 and rec.calibration() is not None and rec.info.board == "base"


def test_record_from_the_fake_pi_camera(fake_picamera2, tmp_path):
    source = open_source("picamera2?size=320x240&fps=50", settle_seconds=0.1)
    result = record_session(source, tmp_path / "pi", SessionInfo(source="picamera2"), fps=10, max_frames=4)
    rec = open_session(tmp_path / "pi")
    assert result.stopped_by == "frames" and len(rec.frames) == 4
    ts = [f.t for f in rec.frames]
    assert ts[0] == 0.0 and all(0.08 < b - a < 0.2 for a, b in zip(ts, ts[1:]))  # 10 fps of sensor time
    assert rec.read_frame(rec.frames[0]).shape == (240, 320, 3)


# -- config

def test_config_defaults_without_a_file(env):
    cfg = load_config()
    assert not cfg.exists and cfg.data_dir == env / "data" and cfg.camera.source is None
    assert cfg.calibration_path == env / "data" / "calibration.json"


def test_config_file_round_trip_and_sections_kept(env):
    path = write_default_config(source="picamera2")
    assert path == env / "cfg" / "config.toml"
    with open(path, "a") as fh:
        fh.write('\n[web]\nport = 8080\n')
    cfg = load_config()
    assert cfg.exists and cfg.camera.source == "picamera2" and cfg.camera.autofocus == "once"
    assert cfg.sections == {"web": {"port": 8080}}
    with pytest.raises(ConfigError, match="already exists"):
        write_default_config()


@pytest.mark.parametrize("text, message", [
    ('format = "keltis-config/2"\n', "keltis-config/2"),
    ('[camera]\nsource = "opencv:0"\n', "missing format"),
    ('format = "keltis-config/1"\n[camera]\nwidth = "wide"\nheight = 3\n', "field 'camera.width'"),
    ('format = "keltis-config/1"\n[camera]\nautofocus = "sometimes"\n', "camera.autofocus"),
    ('format = "keltis-config/1"\n[camera]\nsauce = "x"\n', "unknown key"),
    ('format = "keltis-config/1"\n[camera\n', "not valid TOML"),
])
def test_bad_config_files_are_named(env, text, message):
    path = env / "cfg" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(MalformedInput) as err:
        load_config()
    assert message in str(err.value) and str(path) in str(err.value)


def test_data_dir_precedence(env, monkeypatch):
    path = env / "cfg" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'format = "keltis-config/1"\ndata_dir = "{env / "from-file"}"\n')
    assert load_config(data_dir=env / "flag").data_dir == env / "flag"
    assert load_config().data_dir == env / "data"  # KELTIS_CAM_DATA beats the file
    monkeypatch.delenv("KELTIS_CAM_DATA")
    assert load_config().data_dir == env / "from-file"


def test_cli_config_init_and_show(env, capsys, monkeypatch):
    from keltis_cam import pipeline

    monkeypatch.setattr(pipeline, "opencv_camera_opens", lambda n: n == 0)  # a USB camera at /dev/video0
    assert main(["config", "init", "--source", "opencv:0"]) == 0
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert "source='opencv:0'" in out and str(env / "data") in out


# -- doctor

def by_name(checks):
    return {c.name: c for c in checks}


def test_doctor_on_a_fresh_dev_machine(env):
    checks = by_name(run_checks(load_config))
    assert checks["python"].status == OK and checks["opencv"].status == OK and checks["numpy"].status == OK
    assert checks["config"].status == WARN and "config init" in checks["config"].fix
    assert checks["source"].status == WARN
    assert checks["data dir"].status == WARN and "does not exist yet" in checks["data dir"].message
    assert checks["calibration"].status == WARN and "calibrate default" in checks["calibration"].fix


def test_doctor_on_a_complete_install_with_the_fake_pi_camera(env, fake_picamera2, capsys):
    write_default_config(source="picamera2")
    (env / "data").mkdir()
    save_calibration(default_calibration("base"), env / "data" / "calibration.json")
    checks = by_name(run_checks(load_config))
    assert checks["picamera2"].status == OK
    assert checks["pi camera"].status == OK and "Camera Module 3 (wide)" in checks["pi camera"].message
    assert checks["source"].status == OK and checks["data dir"].status == OK
    assert checks["calibration"].status == OK and checks["lens"].status == WARN
    assert not [c for c in checks.values() if c.status == FAIL]
    assert main(["doctor", "--grab"]) == 0
    assert "2304x1296 frame received" in capsys.readouterr().out


def test_doctor_warns_when_much_of_the_picture_is_clipped_to_white(env, fake_picamera2, capsys):
    """A lamp's hot spot on a fifth of the table, filmed with libcamera's default exposure (as a camera
    without the highlight constraint would): the grab check names the share clipped and what to change;
    with the constraint (the default) the same table passes."""
    def hot_spot(w, h):
        scene = np.full((h, w, 3), 150, np.uint8)
        scene[: h // 2, : w * 2 // 5] = 255
        return scene

    write_default_config(source="picamera2")
    fake_picamera2.WORLD.scene = hot_spot
    check = check_grab("picamera2?size=320x240&fps=100&highlights=normal", {"settle_seconds": 0.3}, timeout=5.0)
    assert check.status == WARN and "% of it is clipped to white" in check.message and "lamp" in check.fix
    assert check_grab("picamera2?size=320x240&fps=100", {"settle_seconds": 0.3}, timeout=5.0).status == OK


def test_doctor_says_what_to_fix(env, fake_picamera2, capsys):
    write_default_config(source="picamera2")
    fake_picamera2.WORLD.cameras = []
    (env / "data").mkdir()
    (env / "data" / "calibration.json").write_text("{}")
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  pi camera" in out and "ribbon cable" in out
    assert "FAIL  calibration" in out and "fix:" in out
    assert main(["doctor", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {c["name"] for c in report if c["status"] == "fail"} == {"pi camera", "calibration"}


def test_doctor_without_picamera2_but_configured_for_it(env, no_picamera2, capsys):
    write_default_config(source="picamera2")
    checks = by_name(run_checks(load_config))
    assert checks["picamera2"].status == FAIL and "apt install python3-picamera2" in checks["picamera2"].fix


def test_doctor_data_dir_not_writable(env, tmp_path):
    # a data "directory" that is a file: not writable for anyone, root included
    blocked = tmp_path / "blocked"
    blocked.write_text("not a folder")
    checks = by_name(run_checks(lambda: load_config(data_dir=blocked)))
    assert checks["data dir"].status == FAIL and str(blocked) in checks["data dir"].message


def test_end_to_end_video_file_to_recording_to_calibration_check(tmp_path, env, capsys):
    """A table filmed (rendered into a real video file) -> `record` -> `calibrate check` on the replay."""
    import cv2

    from calibration.sheet import table_extent
    from calibration.synthetic import homography_looking_at, render_table

    cal = default_calibration("base")
    size = (960, 720)
    H = homography_looking_at(table_extent(cal, (560, 395)), size)
    clip = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, size)
    for i in range(6):
        writer.write(render_table(cal, H, size, board_size=(560, 395), noise=2.0, seed=i))
    writer.release()
    out = tmp_path / "rec"
    assert main(["record", str(out), "--source", f"opencv:{clip}?speed=fast", "--fps", "0", "--board", "base"]) == 0
    assert len(open_session(out).frames) == 6
    overlay = tmp_path / "check.jpg"
    assert main(["calibrate", "check", "--source", f"replay:{out}?speed=fast", "--board", "base",
                 "--out", str(overlay)]) == 0
    assert "found [0, 1, 2, 3]" in capsys.readouterr().out and overlay.exists()
