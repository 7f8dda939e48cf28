"""Calibration files (FORMATS §4): default layout, round trips, validation and migration."""
from __future__ import annotations

import json

import pytest

from calibration.model import (FORMAT, CalibrationError, default_calibration, dump_calibration, load_calibration,
                               marker_corners_mm, migrate, parse_calibration, save_calibration)
from engine.board import load_board
from engine.errors import FormatVersionError, MalformedInput
from keltis_cam.cli import main


def test_default_calibration_places_markers_outside_the_board_corners_and_seats_around_it():
    board = load_board("base")
    w, h = board.size_mm
    cal = default_calibration("base")
    assert cal["format"] == FORMAT and cal["board"] == "base" and cal["camera"] is None
    assert cal["markers"]["dictionary"] == "DICT_4X4_50"
    items = {m["id"]: (m["x"], m["y"], m["size"]) for m in cal["markers"]["items"]}
    assert items == {0: (-40, -40, 40), 1: (w + 40, -40, 40), 2: (w + 40, h + 40, 40), 3: (-40, h + 40, 40)}
    # FORMATS §4: south 0, west 90, north 180, east 270; south's zone lies beyond the board's south edge
    assert {s: r["facing"] for s, r in cal["seats"].items()} == {"south": 0, "west": 90, "north": 180, "east": 270}
    south, west, north, east = (cal["seats"][s] for s in ("south", "west", "north", "east"))
    assert south["y"] >= h and south["x"] == 0 and south["w"] == w
    assert north["y"] + north["h"] <= 0
    assert west["x"] + west["w"] <= 0 and east["x"] >= w
    # a Board object gives the same result as its name
    assert default_calibration(board) == cal


def test_default_calibration_without_board_is_for_the_card_game():
    cal = default_calibration(None)
    assert cal["board"] is None and len(cal["markers"]["items"]) == 4 and len(cal["seats"]) == 4


def test_marker_corners_follow_aruco_order_with_top_edge_north():
    corners = marker_corners_mm({"x": 10, "y": 20, "size": 4})
    assert corners == [(8, 18), (12, 18), (12, 22), (8, 22)]


def test_save_load_round_trip_keeps_everything(tmp_path):
    cal = default_calibration("base")
    cal["camera"] = {"size": [2304, 1296], "K": [[1600, 0, 1152], [0, 1600, 648], [0, 0, 1]],
                     "dist": [-0.12, 0.02, 0, 0, 0], "rms": 0.31}
    cal["notes"] = "extra fields survive"
    cal["markers"]["items"][0]["label"] = "NW"
    path = tmp_path / "calibration.json"
    written = save_calibration(cal, path)
    loaded = load_calibration(path)
    assert loaded == written
    assert loaded["notes"] == "extra fields survive" and loaded["markers"]["items"][0]["label"] == "NW"
    assert loaded["camera"]["K"][0][0] == 1600.0 and loaded["camera"]["rms"] == 0.31
    assert json.loads(path.read_text()) == loaded
    assert not list(tmp_path.glob(".*.tmp"))


def test_dump_is_valid_json_and_readable():
    text = dump_calibration(default_calibration("base"))
    assert json.loads(text)["seats"]["east"]["facing"] == 270
    assert text.count("\n") > 10  # one marker / seat per line, not one long line


def test_unknown_major_version_is_refused_naming_file_and_version(tmp_path):
    path = tmp_path / "cal.json"
    data = default_calibration("base") | {"format": "keltis-calibration/2"}
    path.write_text(json.dumps(data))
    with pytest.raises(FormatVersionError) as err:
        load_calibration(path)
    assert str(path) in str(err.value) and "keltis-calibration/2" in str(err.value)


def test_minor_version_is_accepted():
    data = default_calibration("base") | {"format": "keltis-calibration/1.3"}
    assert parse_calibration(data)["format"] == FORMAT


def test_unversioned_draft_layout_is_migrated_on_load(tmp_path):
    old = {"board": "base", "image_size": [1920, 1080],
           "camera_matrix": [[1400, 0, 960], [0, 1400, 540], [0, 0, 1]], "dist_coeffs": [-0.1, 0.01, 0, 0],
           "aruco_dictionary": "DICT_4X4_50", "marker_size": 40,
           "markers": {"0": [-40, -40], "1": [600, -40], "2": [600, 435], "3": [-40, 435]},
           "seats": {"south": [0, 420, 560, 300], "north": {"x": 0, "y": -325, "w": 560, "h": 300}},
           "operator": "kept"}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    cal = load_calibration(path)
    assert cal["format"] == FORMAT
    assert cal["camera"] == {"size": [1920, 1080], "K": [[1400.0, 0.0, 960.0], [0.0, 1400.0, 540.0], [0.0, 0.0, 1.0]],
                             "dist": [-0.1, 0.01, 0.0, 0.0]}
    assert [(m["id"], m["x"], m["y"], m["size"]) for m in cal["markers"]["items"]] == [
        (0, -40, -40, 40), (1, 600, -40, 40), (2, 600, 435, 40), (3, -40, 435, 40)]
    assert cal["seats"]["south"] == {"x": 0, "y": 420, "w": 560, "h": 300, "facing": 0}
    assert cal["seats"]["north"]["facing"] == 180
    assert cal["operator"] == "kept"
    # a migrated file saved again is current and loads unchanged
    save_calibration(cal, path)
    assert json.loads(path.read_text())["format"] == FORMAT and load_calibration(path) == cal


def test_v0_with_format_field_is_migrated_too():
    old = {"format": "keltis-calibration/0", "board": None, "markers": [{"id": 5, "x": 1, "y": 2}],
           "seats": {}}
    cal = migrate(old)
    assert cal["markers"] == {"dictionary": "DICT_4X4_50", "items": [{"size": 40.0, "id": 5, "x": 1, "y": 2}]}


@pytest.mark.parametrize("change, field", [
    (lambda c: c["markers"]["items"].append(dict(c["markers"]["items"][0])), "markers.items[4].id"),
    (lambda c: c["seats"].update(southwest={"x": 0, "y": 0, "w": 1, "h": 1}), "seats.southwest"),
    (lambda c: c["markers"].update(dictionary="DICT_9X9_1"), "markers.dictionary"),
    (lambda c: c["markers"]["items"][1].update(size=-3), "markers.items[1].size"),
    (lambda c: c.update(camera={"size": [10, 10], "K": [[1, 0], [0, 1]], "dist": []}), "camera.K"),
    (lambda c: c.update(camera={"size": [10, 10], "K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist": [1, 2]}),
     "camera.dist"),
    (lambda c: c["seats"]["west"].update(w="wide"), "seats.west.w"),
])
def test_validation_errors_name_the_field(change, field):
    cal = default_calibration("base")
    change(cal)
    with pytest.raises(CalibrationError) as err:
        parse_calibration(cal, source="table.json")
    assert f"field {field!r}" in str(err.value) and "table.json" in str(err.value)


def test_missing_and_invalid_files_name_the_file(tmp_path):
    with pytest.raises(MalformedInput, match="no such calibration file"):
        load_calibration(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(MalformedInput, match="bad.json: not valid JSON"):
        load_calibration(bad)


def test_cli_calibrate_default_writes_a_loadable_file_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "cal.json"
    assert main(["calibrate", "default", "--board", "base", "--out", str(out)]) == 0
    assert load_calibration(out) == default_calibration("base")
    assert main(["calibrate", "default", "--board", "base", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["calibrate", "default", "--board", "base", "--out", str(out), "--force",
                 "--marker-size", "50"]) == 0
    assert load_calibration(out)["markers"]["items"][0]["size"] == 50


def test_cli_calibrate_default_to_stdout_and_unknown_board(capsys):
    assert main(["calibrate", "default", "--board", "base"]) == 0
    assert json.loads(capsys.readouterr().out)["board"] == "base"
    assert main(["calibrate", "default", "--board", "nosuchboard"]) == 2
    assert "nosuchboard" in capsys.readouterr().err
