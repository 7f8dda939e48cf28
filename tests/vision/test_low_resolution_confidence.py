"""Below the resolution floor (a camera hung too high, session 31) the reader's pawn and tile confidences are
capped, so the turn decoder prices a pawn misread as likely and leans on its priors."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.registration import Registration
from engine.observation import Observation, PawnObservation
from tracking.config import TrackingConfig
from tracking.decoder import TurnDecoder
from vision.reader import DEFAULT_READER_CONFIG, Reader, capped_confidence

SURE = {"pawns": {"others": 0.997, "stones": {"h1": 0.45, "d3": 0.99}}, "tiles": {"others": 0.998, "spots": {}}}


def test_capped_confidence_caps_every_share_and_the_groups():
    conf, element = capped_confidence({"pawns": 0.95, "tiles": 0.6, "rows": 0.9}, SURE, 0.8, 0.9)
    assert conf == {"pawns": 0.8, "tiles": 0.6, "rows": 0.9}        # only lowered, rows untouched
    assert element["pawns"] == {"others": 0.8, "stones": {"h1": 0.45, "d3": 0.8}}
    assert element["tiles"] == {"others": 0.9, "spots": {}}
    assert SURE["pawns"]["others"] == 0.997                           # the input is not changed
    # a reading without element confidences gets one stating the cap
    _conf, element = capped_confidence({"pawns": 1.0, "tiles": 1.0}, {}, 0.8, 0.9)
    assert element == {"pawns": {"others": 0.8, "stones": {}}, "tiles": {"others": 0.9, "spots": {}}}


def test_the_decoder_prices_a_pawn_misread_cheaper_below_the_floor():
    pawns = (PawnObservation("start", "black", True),)
    sure = Observation("keltis", "base", True, None, pawns, {}, {}, {}, confidence={"pawns": 0.95, "tiles": 0.95},
                       extra={"element_confidence": SURE})
    conf, element = capped_confidence(sure.confidence, SURE, DEFAULT_READER_CONFIG.low_resolution_pawn_share,
                                      DEFAULT_READER_CONFIG.low_resolution_tile_share)
    capped = replace(sure, confidence=conf, extra={"element_confidence": element})
    decoder = TurnDecoder({"seats": {"south": "black"}, "game": "keltis", "board": "base"}, TrackingConfig())
    before, after = decoder._misread_costs(sure), decoder._misread_costs(capped)
    assert after["pawns@others"] < before["pawns@others"] / 2
    assert after["tile@others"] < before["tile@others"] / 2


def registration(px_per_mm: float) -> Registration:
    h = np.array([[px_per_mm, 0.0, 50.0], [0.0, px_per_mm, 40.0], [0.0, 0.0, 1.0]])
    return Registration(h, (0, 1, 2, 3), 0.1, (4608, 2592))


def test_the_reader_caps_its_confidences_below_its_floor_only():
    from calibration.registration import board_resolution

    floor = DEFAULT_READER_CONFIG.min_board_px_per_mm
    on = replace(DEFAULT_READER_CONFIG, low_resolution_confidence=True)
    for ppm, far in ((floor * 0.8, True), (floor * 1.2, False)):
        reader = Reader({"markers": {"items": []}}, game="keltis-card", config=on)
        reader.resolution = board_resolution(registration(ppm), (500.0, 500.0))
        assert reader.caps_confidence is far
    # off by default (session 31: it did not help the decoder on the game that showed the problem)
    off = Reader({"markers": {"items": []}}, game="keltis-card")
    off.resolution = board_resolution(registration(floor * 0.8), (500.0, 500.0))
    assert off.caps_confidence is False


def test_the_observers_status_says_too_far_below_the_camera_checks_floor():
    """The live path's channel (vision.observer.VisionObserver.status → the pipeline's status → the page)."""
    from calibration.model import default_calibration
    from calibration.registration import board_resolution
    from engine.board import bundled_board
    from vision.observer import VisionObserver

    board = bundled_board("base")
    obs = VisionObserver(default_calibration(board), "keltis", board, {"south": "black", "north": "white"})
    assert obs.too_far is False and "resolution" not in obs.status()     # nothing registered yet
    floor = DEFAULT_READER_CONFIG.min_board_px_per_mm
    for ppm, far in ((floor * 0.8, True), (floor * 1.2, False)):
        obs.reader.registration = registration(ppm)
        obs.reader.resolution = board_resolution(obs.reader.registration, board.size_mm)
        status = obs.status()["resolution"]
        assert obs.too_far is far and status["too_far"] is far
        assert status["min"] == floor and status["image_size"] == [4608, 2592]
        assert abs(status["worst_corner"] - ppm) < 1e-3
