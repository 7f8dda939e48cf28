"""The usable stage (vision/usable.py), session 15 (wt15-usable), on frames of `sim frames`' kind
(dataset.render_single; dev seeds 79300/79301, hands as scripts/train_usable.py render adds them):

- the table's colour when the ring around the play area is not the table: a 2-player table narrower than
  the calibration's seat areas, the free seats' areas (and the ring beyond them) on the floor; the table
  beside the board tells (`UsableConfig.ring_check`, `_ring_on_table`);
- an arm in a frame too dark to read still names its seat (`UsableConfig.dark_arms`); a dark frame
  without one stays `too-dark`.
Each case also checks that the rule before (the setting off) got it wrong, so the test exercises the change."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import cv2
import numpy as np
import pytest

from calibration.model import parse_calibration
from engine.board import bundled_board
from simulator import dataset
from vision.reader import Reader
from vision.usable import DEFAULT_CONFIG, build_usable_model, judge_small, small_image

# (game, board, players, seed, progress, hard, dark, hand, distractors)
CASES = {
    # h79301 frame 166: east's arm; the ring (25-110 mm outside the seat areas) lies on the dark floor
    "ring-on-the-floor-beyond-a-narrow-table": ("keltis", "nwnz", 2, 937684676, 0.7407, False, False, "still", True),
    # h79301 frame 190: east's still arm in a dim room (exposure 0.12)
    "arm-in-a-frame-too-dark-to-read": ("keltis", "base", 2, 998513371, 0.3026, False, True, "still", False),
    # d79300 frame 15: too dark, no hand
    "too-dark-without-a-hand": ("keltis", "base", 2, 517476609, 0.2027, False, True, None, False),
}


@lru_cache(maxsize=None)
def frame(case: str):
    game, board, players, seed, progress, hard, dark, hand, distractors = CASES[case]
    spec = dataset.FrameSpec(game=game, board=board, players=players, seed=seed, progress=progress, hard=hard,
                             dark=dark, hand=hand, distractors=distractors)
    jpeg, truth = dataset.render_single(spec)
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    return image, truth


def read(case: str):
    image, truth = frame(case)
    cal = parse_calibration(truth["render"]["calibration"])
    table = truth.get("table") or truth
    seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
    game = truth.get("game", "keltis")
    reader = Reader(cal, game=game, board=bundled_board(truth["board"]) if truth.get("board") else None, seats=seats)
    obs = reader.read(image).observation
    return obs, reader, image, truth


def verdict_with(reader: Reader, image, **changes):
    cfg = replace(DEFAULT_CONFIG, **changes)
    model = build_usable_model(cfg, reader.calibration, reader.registration, reader.board, reader.components)
    return judge_small(cfg, model, small_image(cfg, image))


def test_a_ring_on_the_floor_beyond_a_narrow_table_takes_the_tables_colour_beside_the_board():
    obs, reader, image, truth = read("ring-on-the-floor-beyond-a-narrow-table")
    want = [h["seat"] for h in truth["hands"]]
    assert want == ["east"]
    # the frame's table is narrower than the seat areas: much of the ring lies off it
    x0, y0, x1, y1 = truth["render"]["table"]["rect_mm"]
    seats = truth["render"]["calibration"]["seats"]
    assert seats["west"]["x"] < x0 and seats["east"]["x"] + seats["east"]["w"] > x1
    assert not obs.usable and obs.reason == "occluded"
    assert obs.extra["hands"] == [{"seat": s} for s in want]
    # the ring's colour (the floor's) named a false region at the table's edge, on the other side
    before = verdict_with(reader, image, ring_check=False)
    assert before.hands != want


def test_an_arm_in_a_frame_too_dark_to_read_still_names_its_seat():
    obs, reader, image, truth = read("arm-in-a-frame-too-dark-to-read")
    assert truth["render"]["spec"]["dark"] and truth["reason"] == "occluded"
    want = [h["seat"] for h in truth["hands"]]
    assert not obs.usable and obs.reason == "occluded"
    assert obs.extra["hands"] == [{"seat": s} for s in want]
    before = verdict_with(reader, image, dark_arms=False)
    assert not before.usable and before.reason == "too-dark" and not before.hands


def test_a_frame_too_dark_to_read_without_a_hand_stays_too_dark():
    obs, _reader, _image, truth = read("too-dark-without-a-hand")
    assert truth["reason"] == "too-dark" and not truth["render"]["hands"]
    assert not obs.usable and obs.reason == "too-dark"
    assert not obs.extra.get("hands")
