"""A live camera's reader reads the table the game on the table screen names (issue 20 item 1).

`serve --source picamera2` builds its vision observer before any game exists: from the table's
calibration file (`keltis-cam calibrate`: the markers, the lens) and the configured components. The
game started on the table screen then names the board and the seats (seat -> pawn colour); the
served pipeline tells the observer (`VisionObserver.follow_setup`), which makes its reader for them.
Before, a live camera's reader read every table as a board game without a board, with the card
game's marker layout, whatever the calibration file said.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from calibration.model import default_calibration, load_calibration
from camera.session import open_session
from engine.board import bundled_board
from engine.setup import Setup
from vision.observer import calibration_for_board, make_observer
from vision.reader import read_image

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"


def session_setup(session, **changes) -> Setup:
    info = session.info
    return Setup(**{"game": info.game, "board": info.board, "seats": dict(info.seats), **changes})


def test_a_live_camera_reads_the_board_and_seats_of_the_game_started_on_the_table_screen():
    session = open_session(SESSION)
    image = read_image(SESSION / "frames" / "000000.jpg")
    recorded = make_observer(session=session).reader.read(image).observation   # what the session says lies there

    live = make_observer(config={"calibration": str(SESSION / "calibration.json")})   # no game yet
    assert live.reader.board is None
    before = live.reader.read(image).observation
    assert not before.pawns and not before.tiles        # no board to read: what a live camera read before

    assert live.follow_setup(session_setup(session))
    assert live.reader.board.name == "nwnz" and live.reader.seats == dict(session.info.seats)
    assert live.reader.calibration == load_calibration(SESSION / "calibration.json")
    got = live.reader.read(image).observation
    assert got.usable and got.pawns == recorded.pawns and got.tiles == recorded.tiles
    assert got.seats == recorded.seats

    assert not live.follow_setup(session_setup(session))   # the same game: the reader (and what it learnt) stays


def test_a_calibration_made_for_another_board_keeps_its_lens():
    cal = load_calibration(SESSION / "calibration.json")
    assert cal["board"] == "nwnz" and cal["camera"]
    base = calibration_for_board(cal, bundled_board("base"))
    assert base["board"] == "base" and base["camera"] == cal["camera"]
    assert base["markers"] == default_calibration("base")["markers"]     # where the sheet puts them on that board
    card = calibration_for_board(cal, None)
    assert card["board"] is None and card["camera"] == cal["camera"]
    assert card["seats"] == default_calibration(None)["seats"]
    assert calibration_for_board(cal, bundled_board("nwnz")) is cal


def test_a_recordings_reader_follows_its_session_not_the_table_screen():
    session = open_session(SESSION)
    observer = make_observer(session=session)
    reader = observer.reader
    assert not observer.follow_setup(session_setup(session, board="base"))
    assert observer.reader is reader and reader.board.name == "nwnz"


def test_the_served_pipeline_tells_a_live_reader_of_each_new_game(fake_picamera2, tmp_path):
    from keltis_cam.pipeline import build_pipeline
    from tracking.pipeline import Pipeline

    cal_file = tmp_path / "calibration.json"
    cal_file.write_text((SESSION / "calibration.json").read_text())
    built = build_pipeline("picamera2", observer_config={"calibration": str(cal_file)})
    observer = built.observer
    assert observer.reader.calibration == load_calibration(cal_file) and observer.reader.board is None
    pipeline = Pipeline(None, observer, built.tracker)
    image = read_image(SESSION / "frames" / "000000.jpg")
    frame = lambda k: SimpleNamespace(image=image, small=None, index=k, timestamp=k / 10)  # noqa: E731

    pipeline.step(frame(0))                       # no game yet: nothing to follow
    assert observer.reader.board is None
    built.tracker.new_game({"game": "keltis", "board": "nwnz", "seats": {"south": "black", "north": "white"}})
    pipeline.step(frame(1))
    assert observer.reader.board.name == "nwnz" and observer.reader.seats == {"south": "black", "north": "white"}
    built.tracker.new_game({"game": "keltis-card", "board": None, "seats": {"east": "grey", "west": "brown"}})
    pipeline.step(frame(2))
    assert observer.reader.game == "keltis-card" and observer.reader.board is None
    assert observer.reader.calibration["board"] is None          # the card game's marker layout, the lens kept
    assert observer.reader.calibration["camera"] == load_calibration(cal_file)["camera"]
    built.close()


def test_a_replay_reads_its_sessions_table_with_the_components_given(tmp_path):
    import shutil

    from keltis_cam.pipeline import build_pipeline
    from vision.components import load_components

    cards = tmp_path / "our-cards"
    shutil.copytree(load_components(None).folder, cards)
    built = build_pipeline(f"replay:{SESSION}", observer="vision", observer_config={"components": str(cards),
                                                                                    "board": "base"})
    reader = built.observer.reader
    assert Path(reader.components.folder) == cards
    assert reader.board.name == "nwnz" and reader.calibration == load_calibration(SESSION / "calibration.json")
    built.close()
