"""The usable stage (vision/usable.py), session 17 (wt17-usable): what lies beside the play area is no
reason to reject a frame (issue 15: "a mug or a phone on the table outside the play area is not a reason").

- the card box lying at the table's edge beside north's seat (the table of `sim session` card game seed 80202,
  dev: every frame of that game was read `occluded` north): the region classifier scores it an arm, but
  hardly any of it lies over the play area (`UsableConfig.arm_over_min_mm2`);
- a hand over a free seat's area in the card game (its piles lie in the middle): with the seats in play
  known, a free seat's area is no play area (`UsableConfig.free_seats_play`).
Each case also checks that the rule before (the setting as on main) rejected the frame, so the test
exercises the change."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from simulator.games import Game
from simulator.record import setup_table
from vision.reader import Reader
from vision.usable import DEFAULT_CONFIG, build_usable_model, judge_small, small_image

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_usable import SIZE, reader_for, render  # noqa: E402


def verdict(reader: Reader, image, seats, **changes):
    cfg = replace(DEFAULT_CONFIG, **changes)
    model = build_usable_model(cfg, reader.calibration, reader.registration, reader.board, reader.components,
                               players=tuple(seats))
    return judge_small(cfg, model, small_image(cfg, image))


def test_the_card_box_at_the_tables_edge_beside_a_seat_keeps_the_frame_usable():
    game = Game.new("keltis-card", None, 3, 80202)
    table = setup_table(game, 80202, SIZE)          # its distractors as `sim session` places them
    assert "box" in {d.what for d in table.distractors}
    obs = game.observe()
    scene = table.layout.scene(obs, game.hints(), table.distractors)
    frame = table.renderer.frame(scene, table.conditions, np.random.default_rng([80202, 22]), hands=[])
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    seats = {s: o.player for s, o in obs.seats.items()}
    reader = Reader(cal, game="keltis-card", board=None, seats=seats)
    reading = reader.read(image).observation
    assert reading.usable, reading.reason
    before = verdict(reader, image, seats, arm_over_min_mm2=0.0)
    assert not before.usable and before.hands == ["north"]


def test_a_hand_over_a_free_seats_area_in_the_card_game_keeps_the_frame_usable():
    image, cal, seats, _truth = render("keltis-card", None, 2, 5)
    east = cal["seats"]["east"]
    assert "east" not in seats
    target = (east["x"] + east["w"] / 2, east["y"] + east["h"] / 2)
    image, cal, seats, truth = render("keltis-card", None, 2, 5, hand_seat="east", target=target, progress=1.0)
    hands = [h for h in truth["hands"] if h.get("in_view")]
    assert hands and all(h["over_play_mm2"] == 0 for h in hands)   # the simulator's truth: nothing hidden
    reader = reader_for(cal, seats, "keltis-card", None)
    reading = reader.read(image).observation
    assert reading.usable, reading.reason
    assert not verdict(reader, image, seats, free_seats_play=True).usable


def test_a_lamps_hot_spot_on_the_floor_beyond_the_tables_edge_is_no_arm():
    """Session 20: base board, 3 players, the table of seed 82587 (a whole game of `sim session` read `occluded`
    east on every frame, no turn tracked). The lamp's hot spot lies on the floor just beyond the table's east
    edge; grey, it passes the glare test and joined the table's region, whose hull then spanned the dark floor
    between them — a long region along the table's edge, read as an arm. The table's extent is now taken from
    its colour alone (`UsableConfig.glare_not_extent`)."""
    from vision_helpers import render_case

    case = render_case(board="base", players=3, seed=82587, pawns=[])
    assert case.render["conditions"]["glare"]["x"] > 0.7      # the hot spot off the table's east side
    reader = case.reader()
    reading = reader.read(case.image).observation
    assert reading.usable, reading.reason
    before = verdict(reader, case.image, case.seats, glare_not_extent=False)
    assert not before.usable and before.hands == ["east"]
