"""The hand's seat (vision/usable.py `_root_seat`): named from where the arm comes into the picture or
across the table's edge, not from which seat areas most of its pixels lie near. Frames of `sim frames`'
kind (dataset.render_single) on which the seat areas' votes named the wrong seat: a diagonal reach whose
hand lies nearer a neighbour's area."""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.model import parse_calibration
from engine.board import bundled_board
from simulator import dataset
from vision.reader import Reader
from vision.usable import DEFAULT_CONFIG, build_usable_model, judge_small, small_image

# (game, board, players, seed, progress, hard, hand, distractors): frames of dev seeds 5401/5402
CASES = {
    "west-reaching-past-south": ("keltis", "base", 2, 273492942, 0.9737, False, "still", True),
    "north-over-the-middle": ("keltis", "base", 3, 987408455, 0.5762, False, "still", True),
    "east-in-the-card-game": ("keltis-card", None, 2, 46284045, 0.6967, False, "still", False),
}


def frame(case: str):
    game, board, players, seed, progress, hard, hand, distractors = CASES[case]
    spec = dataset.FrameSpec(game=game, board=board, players=players, seed=seed, progress=progress, hard=hard,
                             hand=hand, distractors=distractors)
    jpeg, truth = dataset.render_single(spec)
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    cal = parse_calibration(truth["render"]["calibration"])
    table = truth.get("table") or truth
    seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
    reader = Reader(cal, game=game, board=bundled_board(board) if board else None, seats=seats)
    return image, truth, reader


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_hands_seat_is_where_the_arm_comes_in(case):
    image, truth, reader = frame(case)
    want = [h["seat"] for h in truth["hands"]]
    obs = reader.read(image).observation
    assert not obs.usable and obs.reason == "occluded"
    assert obs.extra["hands"] == [{"seat": s} for s in want]
    # the seat areas' votes (the rule before) name another seat on these frames: the test exercises the root
    votes = replace(DEFAULT_CONFIG, seat_from_root=False)
    model = build_usable_model(votes, reader.calibration, reader.registration, reader.board, reader.components)
    verdict = judge_small(votes, model, small_image(votes, image))
    assert not verdict.usable and verdict.hands != want
