"""Recorded sessions (FORMATS §3): writer, reader, and every damaged-folder case."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.model import default_calibration
from engine.errors import FormatVersionError
from camera.session import (FrameError, SessionError, SessionInfo, SessionWriter, decode_jpeg, encode_jpeg,
                            open_session)

INFO = SessionInfo(game="keltis", board="base", seats={"south": "black", "north": "white"},
                   rules={"two_player_variant": "standard"}, calibration=None, source="simulator",
                   started="2025-11-22T20:15:03+01:00", extra={"seed": 7})


def image(i: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, :, 1] = (40 * i) % 256
    cv2.putText(img, str(i), (20, 35), cv2.FONT_HERSHEY_SIMPLEX, 1, (255, 255, 255), 2)
    return img


def write_session(folder, n=3, truth=True, calibration=True):
    with SessionWriter(folder, INFO) as writer:
        refs = [writer.add_frame(encode_jpeg(image(i)), 0.5 * i, {"format": "keltis-observation/1", "n": i}
                                 if truth else None) for i in range(n)]
        writer.add_event({"move": "lay", "seat": "south", "frame": 1})
        writer.add_event({"move": "draw", "seat": "south", "frame": 2})
        if calibration:
            writer.write_calibration(default_calibration("base"))
    return refs


def test_round_trip(tmp_path):
    refs = write_session(tmp_path / "s")
    assert [r.file for r in refs] == ["frames/000000.jpg", "frames/000001.jpg", "frames/000002.jpg"]
    session = open_session(tmp_path / "s")
    assert session.warnings == []
    assert session.info == SessionInfo(**{**INFO.__dict__, "calibration": "calibration.json"})
    assert session.info.extra == {"seed": 7}
    assert [(f.index, f.t, f.file) for f in session.frames] == [(0, 0.0, "frames/000000.jpg"),
                                                                (1, 0.5, "frames/000001.jpg"),
                                                                (2, 1.0, "frames/000002.jpg")]
    img = session.read_frame(session.frames[2])
    assert img.shape == (48, 64, 3) and abs(int(img[:, :, 1].mean()) - int(image(2)[:, :, 1].mean())) < 6
    assert session.read_jpeg(session.frames[0]) == (tmp_path / "s/frames/000000.jpg").read_bytes()
    assert session.truth(session.frames[1]) == {"format": "keltis-observation/1", "n": 1}
    assert [e["move"] for e in session.events()] == ["lay", "draw"]
    assert session.calibration() == default_calibration("base")
    data = json.loads((tmp_path / "s/session.json").read_text())
    assert data["format"] == "keltis-session/1" and data["seed"] == 7
    assert not list((tmp_path / "s").rglob(".*.tmp"))


def test_session_without_truth_or_calibration(tmp_path):
    write_session(tmp_path / "s", truth=False, calibration=False)
    session = open_session(tmp_path / "s")
    assert session.truth(session.frames[0]) is None and session.calibration() is None
    assert session.info.calibration is None


def test_writer_refuses_a_non_empty_folder_unless_overwrite(tmp_path):
    write_session(tmp_path / "s", n=3)
    with pytest.raises(SessionError, match="not empty"):
        SessionWriter(tmp_path / "s", INFO)
    with SessionWriter(tmp_path / "s", INFO, overwrite=True) as writer:
        writer.add_frame(encode_jpeg(image(9)), 0.0)
    session = open_session(tmp_path / "s")
    assert len(session.frames) == 1 and session.warnings == [] and session.events() == []


def test_writer_checks_its_input(tmp_path):
    with SessionWriter(tmp_path / "s", INFO) as writer:
        with pytest.raises(ValueError, match="not JPEG"):
            writer.add_frame(cv2.imencode(".png", image(0))[1].tobytes(), 0.0)
        writer.add_frame(encode_jpeg(image(0)), 1.0)
        with pytest.raises(ValueError, match="back in time"):
            writer.add_frame(encode_jpeg(image(1)), 0.5)
        with pytest.raises(ValueError, match="finite"):
            writer.add_frame(encode_jpeg(image(1)), float("nan"))
    with pytest.raises(ValueError, match="closed"):
        writer.add_frame(encode_jpeg(image(1)), 2.0)
    assert len(open_session(tmp_path / "s").frames) == 1


def test_writer_refuses_info_that_would_not_read_back(tmp_path):
    with pytest.raises(SessionError, match="field 'seats'"):
        SessionWriter(tmp_path / "s", SessionInfo(seats={"south": 3}))
    with pytest.raises(SessionError, match="field 'calibration'"):
        SessionWriter(tmp_path / "s2", SessionInfo(calibration="../elsewhere.json"))


def test_truncated_last_line_is_reported_not_fatal(tmp_path):
    write_session(tmp_path / "s", n=3)
    frames = tmp_path / "s/frames.jsonl"
    frames.write_bytes(frames.read_bytes() + b'{"t": 1.5, "fi')  # power cut mid-write
    session = open_session(tmp_path / "s")
    assert len(session.frames) == 3
    assert len(session.warnings) == 1 and "line 4: truncated last line" in session.warnings[0]
    assert str(frames) in session.warnings[0]


def test_listed_frame_missing_and_unlisted_frames_are_reported(tmp_path):
    write_session(tmp_path / "s", n=4)
    (tmp_path / "s/frames/000001.jpg").unlink()
    (tmp_path / "s/frames/000099.jpg").write_bytes(encode_jpeg(image(0)))
    session = open_session(tmp_path / "s")
    assert [f.index for f in session.frames] == [0, 2, 3]
    assert any("frame file frames/000001.jpg is missing" in w for w in session.warnings)
    assert any("1 frame file(s) not listed" in w and "000099.jpg" in w for w in session.warnings)


def test_bad_lines_in_the_middle_are_skipped_and_named(tmp_path):
    write_session(tmp_path / "s", n=3)
    frames = tmp_path / "s/frames.jsonl"
    lines = frames.read_text().splitlines()
    lines.insert(1, "garbage")
    lines.insert(2, json.dumps({"t": "soon", "file": "frames/000001.jpg"}))
    lines.insert(3, json.dumps({"t": 1, "file": "../../etc/passwd"}))
    frames.write_text("\n".join(lines) + "\n")
    session = open_session(tmp_path / "s")
    assert [f.index for f in session.frames] == [0, 1, 2]
    assert any("line 2: not valid JSON" in w for w in session.warnings)
    assert any("line 3: field 't'" in w for w in session.warnings)
    assert any("line 4: field 'file'" in w for w in session.warnings)


@pytest.mark.parametrize("damage, message", [
    (lambda data: b"", "empty JPEG"),
    (lambda data: data[: len(data) // 2], "truncated JPEG"),
    (lambda data: b"\xff\xd8" + b"\x00" * 50 + b"\xff\xd9", "corrupt JPEG"),
    (lambda data: b"GIF89a" + data, "not a JPEG"),
])
def test_corrupt_frames_raise_frame_error_naming_the_file(tmp_path, damage, message):
    write_session(tmp_path / "s", n=2)
    path = tmp_path / "s/frames/000001.jpg"
    path.write_bytes(damage(path.read_bytes()))
    session = open_session(tmp_path / "s")
    session.read_frame(session.frames[0])
    with pytest.raises(FrameError) as err:
        session.read_frame(session.frames[1])
    assert message in str(err.value) and str(path) in str(err.value)


def test_unknown_major_version_and_missing_session_json(tmp_path):
    write_session(tmp_path / "s", n=1)
    info = tmp_path / "s/session.json"
    info.write_text(json.dumps(json.loads(info.read_text()) | {"format": "keltis-session/2"}))
    with pytest.raises(FormatVersionError) as err:
        open_session(tmp_path / "s")
    assert str(info) in str(err.value) and "keltis-session/2" in str(err.value)
    info.unlink()
    with pytest.raises(SessionError, match="session.json is missing"):
        open_session(tmp_path / "s")
    with pytest.raises(SessionError, match="no such session folder"):
        open_session(tmp_path / "nowhere")


def test_bad_fields_in_session_json_name_the_field(tmp_path):
    write_session(tmp_path / "s", n=1)
    info = tmp_path / "s/session.json"
    info.write_text(json.dumps(json.loads(info.read_text()) | {"seats": ["south"]}))
    with pytest.raises(SessionError, match="field 'seats'"):
        open_session(tmp_path / "s")


def test_missing_calibration_file_is_a_warning(tmp_path):
    write_session(tmp_path / "s", n=1)
    (tmp_path / "s/calibration.json").unlink()
    session = open_session(tmp_path / "s")
    assert any("calibration.json" in w and "missing" in w for w in session.warnings)
    assert session.calibration() is None


def test_events_with_a_truncated_line(tmp_path):
    write_session(tmp_path / "s", n=1)
    events = tmp_path / "s/truth/events.jsonl"
    events.write_bytes(events.read_bytes() + b'{"move": "dr')
    session = open_session(tmp_path / "s")
    assert len(session.events()) == 2
    assert any("events.jsonl: line 3: truncated" in w for w in session.warnings)


def test_decode_jpeg_round_trip():
    img = image(5)
    out = decode_jpeg(encode_jpeg(img, quality=95))
    assert out.shape == img.shape and np.abs(out.astype(int) - img).mean() < 4
