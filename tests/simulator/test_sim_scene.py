"""Where pieces lie: card rows inside the seat rectangles as FORMATS §4 says, pawns on stones."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from calibration.model import default_calibration
from engine.board import bundled_board
from engine.observation import parse_observation
from simulator.scene import STRIP, TableLayout, pawn_spots

from sim_helpers import played


def _inside(rect, pts, tol=3.0):
    x, y, w, h = rect["x"], rect["y"], rect["w"], rect["h"]
    return bool(np.all((pts[:, 0] >= x - tol) & (pts[:, 0] <= x + w + tol) & (pts[:, 1] >= y - tol)
                       & (pts[:, 1] <= y + h + tol)))


@pytest.mark.parametrize("game, board, players", [("keltis", "nwnz", 4), ("keltis", "base", 3), ("keltis-card", None, 4)])
def test_card_rows_lie_in_their_seat_as_formats_4_says(game, board, players):
    g = played(game, board, players, seed=17, moves=150)
    cal = default_calibration(board)
    layout = TableLayout(cal, g.board, 17, tuple(g.seats))
    obs = g.observe()
    scene = layout.scene(obs, g.hints())
    cards = [f for f in scene.flats if (f.truth or {}).get("kind") == "card"]
    assert len(cards) > 10
    for seat, so in obs.seats.items():
        rect = cal["seats"][seat]
        facing = math.radians(rect["facing"])
        toward_player = np.array([-math.sin(facing), math.cos(facing)])
        # The board's centre lies on the far side from the player.
        board_centre = np.array([280.0, 197.5])
        for row, codes in so.rows.items():
            laid = sorted((f for f in cards if f.truth["seat"] == seat and f.truth["row"] == row),
                          key=lambda f: f.truth["index"])
            assert [f.truth["code"] for f in laid] == list(codes)
            for f in laid:
                assert _inside(rect, f.corners()), (seat, row, f.truth)
                # The card's top (numerals) faces the board.
                up = f.to_world(np.array([[28.0, 0.0]]))[0] - np.array(f.centre)
                assert np.dot(up, toward_player) < 0
            # Each card lies further toward the player than the one before, by about a strip.
            depth = [float(np.dot(np.array(f.centre), toward_player)) for f in laid]
            steps = np.diff(depth)
            assert np.all(steps > 8) and np.all(steps < STRIP + 6), (seat, row, steps)
            # The first card starts at the edge nearest the board.
            edge = min(float(np.dot(c, toward_player)) for c in np.array(
                [[rect["x"], rect["y"]], [rect["x"] + rect["w"], rect["y"] + rect["h"]]]))
            first_top = min(float(np.dot(c, toward_player)) for c in laid[0].corners())
            assert first_top - edge < 15
            assert np.dot(board_centre, toward_player) < depth[0]
    # Rows of different colours (and the points and wish rows) never overlap.
    rows = {}
    for f in cards:
        rows.setdefault((f.truth["seat"], f.truth["row"]), []).append(f)
    for (ka, a), (kb, b) in itertools.combinations(rows.items(), 2):
        if ka[0] != kb[0]:
            continue
        for fa in a:
            for fb in b:
                o = fb.to_object(fa.corners())
                inside = (o[:, 0] > 3) & (o[:, 0] < 53) & (o[:, 1] > 3) & (o[:, 1] < 84)
                assert not inside.any(), (ka, kb)


def test_numerals_of_every_row_card_stay_visible():
    g = played("keltis", "base", 2, seed=5, moves=200)
    layout = TableLayout(default_calibration("base"), g.board, 5, tuple(g.seats))
    scene = layout.scene(g.observe(), g.hints())
    from simulator.render import _visible_fraction
    from simulator import components as comp

    flats = scene.flats
    n = 0
    for k, f in enumerate(flats):
        if (f.truth or {}).get("kind") == "card":
            assert _visible_fraction(f, comp.NUMERAL_BOXES["top-left"], flats[k + 1:]) > 0.9, f.truth
            n += 1
    assert n > 15


def test_face_down_wish_stones_lie_as_backs():
    g = played("keltis", "nwnz", 2, seed=1, moves=0)
    data = g.observe().to_json()
    data["seats"]["south"]["wish"] = {}
    data["seats"]["south"]["wish_face_down"] = 3
    data["seats"]["north"]["wish"] = {"blue": 2}
    obs = parse_observation(data)
    layout = TableLayout(default_calibration("nwnz"), g.board, 1, tuple(g.seats))
    held = [f for f in layout.scene(obs).flats if (f.truth or {}).get("kind") == "wish-held"]
    assert sorted(f.sprite for f in held) == ["wish:back"] * 3 + ["wish:blue"] * 2
    cal = default_calibration("nwnz")
    for f in held:
        assert _inside(cal["seats"][f.truth["seat"]], f.corners())


def test_pawns_sharing_a_stone_stand_side_by_side():
    for n in range(1, 4):
        spots = pawn_spots(n, 100.0, 100.0, 12.0)
        assert len(spots) == n
        for a, b in itertools.combinations(spots, 2):
            assert math.dist(a, b) >= 16.0
        assert all(math.dist(s, (100, 100)) <= 12.0 for s in spots)
    board = bundled_board("nwnz")
    start = board.start
    crowd = pawn_spots(20, start.x, start.y, start.r, start=True, board_size=board.size_mm)
    assert len(crowd) == 20
    for a, b in itertools.combinations(crowd, 2):
        assert math.dist(a, b) >= 16.0
    assert all(8 <= x <= board.size_mm[0] - 8 and 8 <= y <= board.size_mm[1] - 8 for x, y in crowd)
