"""Bad input at the command line is exit status 2 with one line naming the file (and field), never
a traceback (issue 18 item 11): binary files, deep nesting, huge integers, for every command that
reads JSON (score, check, board show, replay's session.json, calibrate check, sim --rules) and
the TOML config (config show), plus hypothesis-generated files; and a truncated JPEG for
`calibrate check`."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keltis_cam.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
STATE = FIXTURES / "states" / "base-midgame.json"
DEMO = FIXTURES / "sessions" / "demo"
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 40)), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

DEEP = "[" * 100 + "]" * 100
HUGE_INT = "9" * 5000
BAD_TEXTS = {
    "binary": bytes(range(256)),
    "deep": DEEP.encode(),
    "deep-field": ('{"format": "keltis-observation/1", "pawns": ' + DEEP + "}").encode(),
    "huge-int": ('{"format": "keltis-observation/1", "game": "keltis", "board": "base", "pawns": [], '
                 '"seats": {"south": {"player": "black", "rows": {}, "wish": {"red": ' + HUGE_INT + "}}}}").encode(),
    "nan": b'{"format": NaN}',
    "truncated": STATE.read_bytes()[:100],
}


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


@pytest.fixture
def config_env(tmp_path, monkeypatch):
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "missing-config.toml"))
    monkeypatch.setenv("KELTIS_CAM_DATA", str(tmp_path / "data"))


@pytest.mark.parametrize("kind", sorted(BAD_TEXTS))
def test_score_and_check_name_the_file(capsys, tmp_path, kind):
    bad = tmp_path / f"{kind}.json"
    bad.write_bytes(BAD_TEXTS[kind])
    assert_one_line_error(*run(capsys, "score", bad)[::2], str(bad))
    assert_one_line_error(*run(capsys, "check", STATE, bad)[::2], str(bad))
    assert_one_line_error(*run(capsys, "board", "show", bad)[::2], str(bad))


def test_the_messages_say_what_is_wrong_and_where(capsys, tmp_path):
    bad = tmp_path / "s.json"
    bad.write_bytes(BAD_TEXTS["binary"])
    assert_one_line_error(*run(capsys, "score", bad)[::2], "not UTF-8")
    bad.write_bytes(BAD_TEXTS["huge-int"])
    assert_one_line_error(*run(capsys, "score", bad)[::2], "5000 digits", "seats.south.wish.red")
    bad.write_bytes(BAD_TEXTS["deep-field"])
    assert_one_line_error(*run(capsys, "score", bad)[::2], "nested more than", "pawns")


@pytest.mark.parametrize("content", [b"\xff\xfe\x00binary", b"format = \"keltis-config/1\"\n[camera]\nwidth = "
                                     + HUGE_INT.encode() + b"\nheight = 2\n",
                                     b"format = \"keltis-config/1\"\nx = " + b"[" * 3000 + b"]" * 3000 + b"\n",
                                     b"format = \"keltis-config/1\"\n[camera]\nwidth = " + b"9" * 40 + b"\n"])
def test_config_show_names_a_bad_config_file(capsys, tmp_path, config_env, content):
    cfg = tmp_path / "config.toml"
    cfg.write_bytes(content)
    assert_one_line_error(*run(capsys, "config", "show", "--config", cfg)[::2], str(cfg))


@pytest.mark.parametrize("kind", ["binary", "deep", "huge-int", "nan"])
def test_replay_names_a_bad_session_json(capsys, tmp_path, config_env, kind):
    folder = tmp_path / "session"
    shutil.copytree(DEMO, folder)
    (folder / "session.json").write_bytes(BAD_TEXTS[kind])
    assert_one_line_error(*run(capsys, "replay", folder)[::2], "session.json")


@pytest.mark.parametrize("kind", ["binary", "deep", "huge-int"])
def test_calibrate_check_names_a_bad_calibration(capsys, tmp_path, config_env, kind):
    cal = tmp_path / "calibration.json"
    cal.write_bytes(BAD_TEXTS[kind])
    code, _, err = run(capsys, "calibrate", "check", "--calibration", cal, "--image", DEMO / "frames" / "000000.jpg",
                       "--out", tmp_path / "overlay.jpg")
    assert_one_line_error(code, err, str(cal))


def test_calibrate_check_refuses_a_truncated_jpeg(capsys, tmp_path, config_env):
    whole = (DEMO / "frames" / "000000.jpg").read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    code, _, err = run(capsys, "calibrate", "check", "--calibration", DEMO / "calibration.json", "--image", cut,
                       "--out", tmp_path / "overlay.jpg")
    assert_one_line_error(code, err, str(cut), "truncated")
    assert not (tmp_path / "overlay.jpg").exists()


def test_sim_rules_must_be_sound_json(capsys, tmp_path):
    code, _, err = run(capsys, "sim", "session", "--rules", '{"x": ' + HUGE_INT + "}", "--out", tmp_path / "s")
    assert_one_line_error(code, err, "--rules", "5000 digits")


# ---- fuzzing every command that reads a JSON (or TOML) file -------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10)
observation_like = st.fixed_dictionaries(
    {"format": st.sampled_from(["keltis-observation/1", "keltis-observation/2"]) | json_values,
     "game": st.sampled_from(["keltis", "keltis-card"]) | json_values},
    optional={"board": st.sampled_from(["base", "nwnz"]) | json_values, "pawns": json_values,
              "tiles": json_values, "seats": json_values, "usable": json_values, "discard_tops": json_values})
file_bytes = (st.binary(max_size=300) | json_values.map(json.dumps).map(str.encode)
              | observation_like.map(json.dumps).map(str.encode))


@FUZZ
@given(data=file_bytes)
def test_fuzzed_files_never_make_a_traceback(capsys, tmp_path, config_env, data):
    bad = tmp_path / "fuzz.json"
    bad.write_bytes(data)
    for argv in (("score", bad), ("check", STATE, bad), ("check", bad, STATE), ("board", "show", bad),
                 ("config", "show", "--config", bad)):
        code, _, err = run(capsys, *argv)  # an exception escaping main() fails the test with its traceback
        assert code in (0, 1, 2), (argv, err)
        if code == 2:
            assert len(err.strip().splitlines()) == 1, err


@FUZZ
@given(data=file_bytes)
def test_fuzzed_session_and_calibration_files_never_make_a_traceback(capsys, tmp_path_factory, config_env, data):
    folder = tmp_path_factory.mktemp("fuzz") / "session"
    folder.mkdir()
    (folder / "session.json").write_bytes(data)
    code, _, err = run(capsys, "replay", folder)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    cal = folder / "calibration.json"
    cal.write_bytes(data)
    code, _, err = run(capsys, "calibrate", "check", "--calibration", cal, "--image", DEMO / "frames" / "000000.jpg",
                       "--out", folder / "overlay.jpg")
    assert code in (0, 1, 2) and (code != 2 or len(err.strip().splitlines()) == 1), err
