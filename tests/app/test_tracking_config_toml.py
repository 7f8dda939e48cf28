"""Every tracker setting (TrackingConfig) is settable from the [tracking] table of the TOML config and
printed by `keltis-cam config show`; the app layer hands the parsed object down to the tracker."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from keltis_cam.cli import main
from keltis_cam.config import load_config
from keltis_cam.pipeline import build_pipeline
from tracking.config import TrackingConfig
from tracking.synth import simulate_game

REPO = Path(__file__).resolve().parents[2]
FIELDS = dataclasses.fields(TrackingConfig)


def toml_value(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else repr(value)


def other_value(value):
    """A value of the same type as a default, and different from it."""
    if isinstance(value, bool):
        return not value
    return value + (1 if isinstance(value, int) else 0.25)


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    monkeypatch.setenv("KELTIS_CAM_DATA", str(tmp_path / "data"))
    path = tmp_path / "config.toml"
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(path))

    def write(tracking: dict) -> Path:
        lines = ['format = "keltis-config/1"', "[tracking]"] + [f"{k} = {toml_value(v)}" for k, v in tracking.items()]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    return write


def test_every_tracking_setting_is_read_from_toml_and_shown(config_file, capsys):
    changed = {f.name: other_value(f.default) for f in FIELDS}
    config_file(changed)
    cfg = load_config()
    assert cfg.tracking.to_json() == changed
    assert main(["config", "show"]) == 0
    shown = capsys.readouterr().out
    line = next(l for l in shown.splitlines() if l.startswith("tracking:"))
    for name, value in changed.items():
        assert f"{name}={value!r}" in line, name


def test_a_bad_tracking_setting_names_the_file_and_the_field(config_file):
    from engine.errors import MalformedInput

    path = config_file({"decoder_twin": -1})
    with pytest.raises(MalformedInput) as err:
        load_config()
    assert str(path) in str(err.value) and "decoder_twin" in str(err.value)
    # a setting of the journal the decoder replaced (issue 17) is named as no longer used
    path = config_file({"cost_twin": 4})
    with pytest.raises(MalformedInput, match="no longer used") as err:
        load_config()
    assert str(path) in str(err.value) and "cost_twin" in str(err.value)


def tracker_from_config(game):
    """The tracker the app layer builds (keltis_cam.pipeline) with the config file's settings."""
    built = build_pipeline(f"replay:{REPO / 'fixtures' / 'sessions' / 'base-2p'}", observer="truth", decode_frames=False,
                           tracking=load_config().tracking)
    built.tracker.new_game(game.setup)
    for i, (t, obs) in enumerate(game.frames):
        built.tracker.feed(obs, t, i)
    return built.tracker


def test_two_settings_from_the_toml_file_reach_the_tracker(config_file):
    """decoder_lag: how many frames back the decoder commits its best reading's turns (a huge lag
    commits none before the stream ends); still_seconds: how long the table must be seen still for
    the status to say "tracking"."""
    game = simulate_game("keltis-card", None, 4, 305, max_moves=40)
    config_file({})
    plain = tracker_from_config(game)
    config_file({"decoder_lag": 1000000, "still_seconds": 1000.0})
    tuned = tracker_from_config(game)
    assert (tuned.config.decoder_lag, tuned.config.still_seconds) == (1000000, 1000.0)
    assert plain.decoded.committed > 0 and tuned.decoded.committed == 0
    assert plain.snapshot()["status"]["tracking"]["state"] == "tracking"
    assert tuned.snapshot()["status"]["tracking"] == {"state": "waiting", "reason": "table moving",
                                                      "since": tuned.snapshot()["status"]["tracking"]["since"]}
