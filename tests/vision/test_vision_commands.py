"""`keltis-cam analyze` and `keltis-cam eval`, the geometry stage, and the tracking hook."""
from __future__ import annotations

import json
import shutil
from functools import lru_cache

import numpy as np
import pytest

from keltis_cam.cli import main
from simulator.dataset import write_dataset
from vision.evaluation import ELEMENT_GROUPS

from vision_helpers import render_case


@lru_cache(maxsize=None)
def dataset(tmp_root: str) -> str:
    # frames 0 and 1 of data set 7: one board game, one card game (sample_spec varies them)
    write_dataset(tmp_root, 2, 7, (2304, 1296))
    return tmp_root


@pytest.fixture(scope="module")
def frames_dir(tmp_path_factory):
    return dataset(str(tmp_path_factory.mktemp("frames")))


def test_analyze_a_corrupt_jpeg_is_one_line_naming_the_file(tmp_path, capsys):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 100)   # a JPEG start, no end
    assert main(["analyze", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0] and "truncated" in err[0]


def test_analyze_prints_the_observed_state_as_json(frames_dir, capsys):
    frame = f"{frames_dir}/frames/000000.jpg"
    truth = json.load(open(f"{frames_dir}/truth/000000.json"))
    assert main(["analyze", frame, "--json", "--game", truth["game"]] +
                (["--board", truth["board"]] if truth["board"] else [])) == 0
    obs = json.loads(capsys.readouterr().out)
    assert obs["format"] == "keltis-observation/1" and obs["game"] == truth["game"]
    if obs["usable"] and truth["game"] == "keltis":
        assert set(obs["tiles"]) == set(truth["tiles"])
        assert len(obs["pawns"]) == len(truth["pawns"])


def test_eval_goes_on_past_a_corrupt_frame_and_counts_it(frames_dir, tmp_path, capsys):
    folder = tmp_path / "set"
    shutil.copytree(frames_dir, folder)
    (folder / "frames" / "000002.jpg").write_bytes(b"not a jpeg")
    shutil.copy(folder / "truth" / "000000.json", folder / "truth" / "000002.json")
    assert main(["eval", str(folder)]) == 0
    out = capsys.readouterr()
    assert "frames: 3 (1 could not be read)" in out.out
    assert str(folder / "frames" / "000002.jpg") in out.out
    for group in ELEMENT_GROUPS:
        assert group in out.out
    assert "unusable frames caught" in out.out and "good frames rejected" in out.out
    assert "hand seat right" in out.out and "slowest stages" in out.out
    assert "3/3 frames" in out.err     # the progress line


def test_geometry_recovers_the_camera_and_estimates_the_focal_length_without_a_lens():
    from calibration.registration import DEFAULT_CONFIG, register_board
    from vision.geometry import DEFAULT_CONFIG as GEOMETRY
    from vision.geometry import estimate_pose

    case = render_case(seed=5, pawns=[])
    true_cam = case.render["camera"]
    reg = register_board(DEFAULT_CONFIG, case.calibration, case.image)
    pose = estimate_pose(GEOMETRY, case.calibration, reg)
    assert pose.focal_source == "lens"
    assert abs(-pose.centre[2] - true_cam["height_mm"]) < 5
    assert abs(pose.tilt_deg - true_cam["tilt_deg"]) < 0.5
    no_lens = dict(case.calibration, camera=None)
    reg2 = register_board(DEFAULT_CONFIG, no_lens, case.image)
    pose2 = estimate_pose(GEOMETRY, no_lens, reg2)
    assert pose2.focal_source in ("markers", "prior")
    if pose2.focal_source == "markers":
        assert abs(pose2.K[0, 0] / true_cam["K"][0][0] - 1) < 0.15


def test_the_tracking_hook_builds_the_vision_observer():
    from tracking.observers import make_observer

    case = render_case(seed=5, pawns=[])
    obs = make_observer("vision", session=None, config={"calibration": case.calibration, "game": "keltis",
                                                        "board": "nwnz", "seats": case.seats})
    assert obs.name == "vision"

    class Frame:
        def __init__(self, index, timestamp):
            self.index, self.timestamp, self.image = index, timestamp, case.image

    # the gate: a first frame has nothing to be still against; the same table a second later is read
    first = obs.observe(Frame(0, 0.0))
    assert not first.usable and first.reason == "motion"
    got = obs.observe(Frame(1, 1.0))
    assert obs.status()["gate"]["read"] == 1
    assert got.game == "keltis" and got.board == "nwnz" and got.usable
    assert len(got.pawns) == 20 and set(got.tiles) == set(case.truth.tiles)
    assert np.isfinite(got.confidence["tiles"])


def test_eval_leaves_out_the_cards_of_a_frame_that_cuts_some_off(frames_dir, tmp_path, capsys):
    """A low camera may cut a seat's cards off the picture (sim frames' board view): no reader can read
    them, so that frame's card groups and whole state are not counted, and eval says so."""
    from vision.evaluation import evaluate_frame

    folder = tmp_path / "cut"
    shutil.copytree(frames_dir, folder)
    truth_path = folder / "truth" / "000000.json"
    truth = json.loads(truth_path.read_text())
    whole = evaluate_frame((str(folder / "frames" / "000000.jpg"), str(truth_path), False, None))
    assert whole.cards_in_view and "rows" in whole.groups
    truth["render"]["cards"][0]["in_view"] = False
    truth_path.write_text(json.dumps(truth))
    cut = evaluate_frame((str(folder / "frames" / "000000.jpg"), str(truth_path), False, None))
    assert not cut.cards_in_view
    assert set(cut.groups) == {g for g in whole.groups if g in ("pawns", "tiles")}
    assert cut.groups.get("pawns") == whole.groups.get("pawns")
    assert main(["eval", str(folder)]) == 0
    assert "1 usable frames show only part of the cards" in capsys.readouterr().out


@pytest.mark.parametrize("stage", ["seatview", "cards", "discards", "wishstones"])
def test_a_stage_run_alone_says_why_it_cannot_read_a_frame(stage, tmp_path, capsys):
    """The stages' command lines share their setup (vision.stagecli.registered_inputs): a file that is
    no image exits 2 naming it; a picture without the table's markers exits 1 saying it is not registered."""
    import importlib

    import cv2

    main_of = importlib.import_module(f"vision.{stage}").main
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    assert main_of([str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
    blank = tmp_path / "blank.jpg"
    cv2.imwrite(str(blank), np.full((540, 960, 3), 128, np.uint8))
    assert main_of([str(blank), "--board", "nwnz"]) == 1
    assert "not registered" in capsys.readouterr().out
