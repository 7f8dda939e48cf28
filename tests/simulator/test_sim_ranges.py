"""The simulator's ranges are a real table's (issue 15 item 8), and the truth stays exact across them.

Each range test draws many tables or conditions and checks that both ends of the range are reached
and nothing falls outside; the truth tests render frames over the widened range and check the
truth against the picture (what it says is visible is inside the image; things beside the play
area change no pixel of it).
"""
from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.model import default_calibration
from engine.board import bundled_board
from simulator.camera import HEIGHT_RANGE, HFOV_RANGE, MAX_TILT, fits, markers_in_view
from simulator.conditions import TEMP_RANGE, sample_conditions
from simulator.dataset import FrameSpec, _random_hand, index_extras, render_single, write_dataset
from simulator.games import Game
from simulator.record import MIN_MARKERS, sample_table_camera, setup_table
from simulator.render import TABLE_KINDS, sample_table, sensor_noise
from simulator.scene import DISTRACTOR_SIZE, Distractor, TableLayout, place_distractors, seat_frame

from sim_helpers import PLAIN, draw_afresh

SEATS_BY_PLAYERS = {2: ("south", "north"), 3: ("south", "west", "north"), 4: ("south", "west", "north", "east")}


def _layout(board: str | None, players: int, seed: int) -> TableLayout:
    b = bundled_board(board) if board else None
    return TableLayout(default_calibration(b), b, seed, SEATS_BY_PLAYERS[players])


def test_board_cameras_cover_every_end_of_the_ranges_and_see_the_board_and_three_markers():
    heights, fovs, tilts, yaws = [], [], [], []
    for seed in range(160):
        layout = _layout(("nwnz", "base")[seed % 2], 2 + seed % 3, seed)
        cam = sample_table_camera(layout, np.random.default_rng([seed, 11]), (2304, 1296), view="board")
        heights.append(cam.height)
        fovs.append(cam.pose["hfov_deg"])
        tilts.append(cam.pose["tilt_deg"])
        yaws.append(cam.pose["yaw_deg"] % 360)
        assert fits(cam, layout.board_volume()), seed
        assert markers_in_view(cam, layout.marker_areas()) >= MIN_MARKERS, seed
        assert cam.canvas_covers
    lo_h, hi_h = HEIGHT_RANGE
    assert lo_h <= min(heights) < lo_h + 60 and hi_h - 60 < max(heights) <= hi_h
    lo_f, hi_f = HFOV_RANGE
    assert lo_f <= min(fovs) < lo_f + 3 and hi_f - 2 < max(fovs) <= hi_f
    assert 0 <= min(tilts) < 1.5 and MAX_TILT - 1.5 < max(tilts) <= MAX_TILT
    # Any yaw: every eighth of the circle is drawn.
    assert set(int(y // 45) for y in yaws) == set(range(8))
    # Low cameras carry wide lenses (from 0.65 m the board with its markers, ~690×525 mm, needs at
    # least ~71° across a 16:9 picture), and a high one may carry a narrow one.
    low = [f for h, f in zip(heights, fovs) if h < 650]
    assert low and min(low) > 70
    assert any(f < 70 for h, f in zip(heights, fovs) if h > 1200)


@pytest.mark.parametrize("board,players", [("nwnz", 4), (None, 3)])
def test_whole_table_cameras_see_every_seat_and_pile(board, players):
    layout = _layout(board, players, 7)
    for seed in range(25):
        cam = sample_table_camera(layout, np.random.default_rng([seed, 11]), (1152, 648), view="play-area")
        assert fits(cam, layout.pieces_area())
        assert markers_in_view(cam, layout.marker_areas()) >= MIN_MARKERS
        assert HEIGHT_RANGE[0] <= cam.height <= HEIGHT_RANGE[1]


def test_unknown_view_is_a_clear_error():
    with pytest.raises(ValueError, match="view"):
        sample_table_camera(_layout("nwnz", 2, 1), np.random.default_rng(1), (640, 360), view="everything")


def test_lamp_colour_gloss_and_table_tops_cover_their_ranges():
    conds = [sample_conditions(np.random.default_rng([s, 12])) for s in range(400)]
    temps = [c.colour_temp for c in conds]
    assert TEMP_RANGE[0] <= min(temps) < TEMP_RANGE[0] + 60 and TEMP_RANGE[1] - 60 < max(temps) <= TEMP_RANGE[1]
    gloss = [c.gloss for c in conds]
    assert 0.25 < sum(g == 0 for g in gloss) / len(gloss) < 0.55   # a diffuse lamp on some tables
    assert max(gloss) > 0.95 and min(g for g in gloss if g > 0) < 0.15
    hard = [sample_conditions(np.random.default_rng([s, 12]), hard=True) for s in range(60)]
    assert all(TEMP_RANGE[0] <= c.colour_temp <= 3000 and c.gloss >= 0.35 for c in hard)
    layout = _layout("nwnz", 3, 1)
    kinds = {sample_table(np.random.default_rng(s), layout).kind for s in range(80)}
    assert kinds == set(TABLE_KINDS)


def test_sensor_noise_is_a_new_pattern_every_frame_with_unit_sigma_and_the_same_for_a_seed():
    a = sensor_noise(np.random.default_rng(1), (640, 360))
    b = sensor_noise(np.random.default_rng(2), (640, 360))
    assert a.shape == (360, 640, 3)
    assert np.allclose(a.std(axis=(0, 1)), 1.0, atol=0.03) and abs(float(a.mean())) < 0.02
    assert abs(float(np.corrcoef(a.ravel(), b.ravel())[0, 1])) < 0.02
    assert np.array_equal(a, sensor_noise(np.random.default_rng(1), (640, 360)))
    # Two frames of one session (one rng, drawn in turn) get different noise.
    rng = np.random.default_rng(5)
    assert not np.array_equal(sensor_noise(rng, (64, 36)), sensor_noise(rng, (64, 36)))


def _board_game_table(seed: int, size=(1152, 648), players: int = 3):
    g = Game.new("keltis", "nwnz", players, seed)
    return g, setup_table(g, seed, size, distractors=True, view="board")


def test_specular_highlight_lies_where_the_lamp_mirrors_into_the_lens():
    """A bright glossy spot appears only with gloss on, on the board, at the lamp's mirror point."""
    g, table = _board_game_table(3, players=2)
    scene = table.layout.scene(g.observe(), g.hints(), ())
    cam = table.camera
    # Put the lamp straight above the board centre's mirror point, so the highlight is on the board.
    W, H = table.layout.size
    centre = np.array(table.layout.pieces_area().mean(0))
    base = replace(PLAIN, light_azimuth=0.0, light_elevation=80.0, lamp_distance=1500.0)
    lamp = base.lamp_position(tuple(centre))
    # Mirror point on the table of the lamp seen from the camera: where the line camera → mirrored lamp meets z=0.
    mirrored = np.array([lamp[0], lamp[1], -lamp[2]])
    s = cam.C[2] / (cam.C[2] - mirrored[2])
    spot = cam.C + s * (mirrored - cam.C)
    assert 0 < spot[0] < W and 0 < spot[1] < H, "the test's lamp must mirror into the board"
    rng = np.random.default_rng(0)
    dull = table.renderer.frame(scene, base, rng).image.astype(np.float32)
    shiny = table.renderer.frame(scene, replace(base, gloss=0.9, gloss_shininess=200.0), rng).image.astype(np.float32)
    diff = (shiny - dull).mean(axis=2)
    px = cam.project(np.array([[spot[0], spot[1], 0.0]]))[0]
    y, x = int(round(px[1])), int(round(px[0]))
    assert diff[y, x] > 60
    # Far from the spot (a board corner on the other side) nothing changes much.
    far = cam.project(np.array([[W - spot[0] * 0.98 if spot[0] < W / 2 else 5, H - 5 if spot[1] < H / 2 else 5, 0.0]]))[0]
    assert diff[int(far[1]), int(far[0])] < 15


@pytest.mark.parametrize("seed", [2, 9, 21, 40])
def test_things_beside_the_pieces_change_no_pixel_of_the_board_or_a_seat(seed):
    """Render a table with its cup, phone or card box and without: inside the board (to a pawn's
    height) and every seat in play, the pictures are the same (no shadows, no noise)."""
    g = Game.new("keltis", ("nwnz", "base")[seed % 2], 2 + seed % 3, seed)
    table = setup_table(g, seed, (1152, 648), distractors=False, view="board")
    layout = table.layout
    placed = place_distractors(layout, table.camera, ("mug", "box", "phone"), seed)
    assert placed, "no thing found a place"
    obs = g.observe()
    plain = replace(PLAIN, gloss=0.0)
    rng = np.random.default_rng(0)
    bare = table.renderer.frame(table.layout.scene(obs, g.hints(), ()), plain, rng)
    full = table.renderer.frame(table.layout.scene(obs, g.hints(), placed), plain, rng)
    cam = table.camera
    changed = np.any(bare.image != full.image, axis=2).astype(np.uint8)
    assert changed.any(), "the things were drawn somewhere"
    protect = np.zeros(changed.shape, np.uint8)
    vols = [layout.board_volume()]
    for s in layout.seats:
        c = layout.frames[s].corners()
        vols.append(np.vstack([np.hstack([c, np.zeros((4, 1))]), np.hstack([c, np.full((4, 1), -15.0)])]))
    for v in vols:
        cv2.fillConvexPoly(protect, cv2.convexHull(cam.project(v).astype(np.int32)), 1)
    # One pixel of margin for anti-aliased edges.
    protect = cv2.erode(protect, np.ones((3, 3), np.uint8))
    assert not (changed & protect).any()
    # The truth says where each thing is and which markers it covers: at most one of the four.
    markers = [i for i in full.render["items"] if i.get("kind") == "marker"]
    assert sum(m["covered"] for m in markers) <= 1
    assert sum(m["in_view"] and not m["covered"] for m in markers) >= MIN_MARKERS
    things = [i for i in full.render["items"] if i.get("kind") == "distractor"]
    assert sorted(t["what"] for t in things) == sorted(d.what for d in placed)


def test_a_thing_over_a_marker_is_marked_covered_and_only_there():
    g = Game.new("keltis", "nwnz", 2, 4)
    table = setup_table(g, 4, (1152, 648), distractors=False, view="board")
    m = table.layout.calibration["markers"]["items"][2]
    phone = Distractor("phone", float(m["x"]), float(m["y"]), 20.0, (30, 30, 34), 1)
    frame = table.renderer.frame(table.layout.scene(g.observe(), g.hints(), (phone,)), PLAIN,
                                 np.random.default_rng(0))
    covered = {i["id"]: i["covered"] for i in frame.render["items"] if i.get("kind") == "marker"}
    assert covered == {0: False, 1: False, 2: True, 3: False}


def test_placed_things_lie_outside_the_board_seats_and_piles_on_the_table():
    for seed in range(30):
        layout = _layout(("nwnz", "base", None)[seed % 3], 2 + seed % 3, seed)
        cam = sample_table_camera(layout, np.random.default_rng([seed, 11]), (1152, 648),
                                  view="board" if layout.board is not None else "play-area")
        for d in place_distractors(layout, cam, ("mug", "phone", "box"), seed):
            v = d.volume()
            x0, y0, x1, y1 = v[:, 0].min(), v[:, 1].min(), v[:, 0].max(), v[:, 1].max()
            W, H = layout.size
            assert x1 < 0 or x0 > W or y1 < 0 or y0 > H, (seed, d)
            for s in layout.seats:
                c = layout.frames[s].corners()
                assert x1 < c[:, 0].min() or x0 > c[:, 0].max() or y1 < c[:, 1].min() or y0 > c[:, 1].max(), (seed, d)
            assert d.what in DISTRACTOR_SIZE


def test_arms_reach_in_across_every_seats_edge_even_of_a_seat_not_in_play():
    g, table = _board_game_table(6, players=2)
    scene = table.layout.scene(g.observe(), g.hints(), ())
    spec = FrameSpec(game="keltis", board="nwnz", players=2, seed=6, hand="still")
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(40):
        pose, seat = _random_hand(table, scene, spec, rng)
        seen.add(seat)
        # The shoulder is beyond that seat's far edge, on the player's side: the arm crosses it.
        fr = seat_frame(seat, table.calibration["seats"][seat])
        far = np.array(fr.point(fr.width / 2, fr.depth))
        assert float(np.dot(np.array(pose.shoulder[:2]) - far, np.array(fr.v))) > 100
    assert seen == {"south", "west", "north", "east"}
    assert not set(g.seats) >= seen   # some arms come from seats nobody plays at


def _frames(tmp_path, n=16, seed=1807, size=(576, 324)):
    out = tmp_path / "d"
    write_dataset(out, n, seed, size)
    rows = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    return out, rows


def test_frame_truth_over_the_widened_range_is_inside_the_picture(tmp_path):
    out, rows = _frames(tmp_path, n=16)
    assert {r["table_top"] for r in rows} >= {"wood", "cloth"}
    for row in rows:
        truth = json.loads((out / row["truth"]).read_text())
        render = truth["render"]
        w, h = render["size"]
        img = cv2.imread(str(out / row["file"]))
        assert img.shape[:2] == (h, w)

        def inside(pts):
            p = np.asarray(pts, float).reshape(-1, 2)
            return bool(np.all((p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)))

        markers = [i for i in render["items"] if i.get("kind") == "marker"]
        for m in markers:
            if m["in_view"]:
                assert inside(m["corners"])
        assert row["markers_visible"] == sum(m["in_view"] and not m["covered"] for m in markers)
        assert row["markers_visible"] >= MIN_MARKERS
        if row["game"] == "keltis":
            assert inside(render["board"]["corners"])
            assert all(inside([s["centre"]]) for s in render["stones"].values())
            assert all(inside([p["top"], p["base"]]) for p in render["pawns"])
        for c in render["cards"]:
            assert c["in_view"] == inside(c["quad"])
        if row["game"] == "keltis-card" or row["view"] == "play-area":
            assert row["cards_in_view"]
        assert row["cards_in_view"] == all(c["in_view"] for c in render["cards"])
        assert row["hands"] == [x["seat"] for x in truth.get("hands") or []]
        if row["hand"] and not truth["usable"]:
            assert row["hands"]
        assert row == {**row, **index_extras(truth)}


def test_sim_frames_is_the_same_for_a_seed_and_differs_between_seeds(tmp_path):
    a, rows_a = _frames(tmp_path / "a", n=3, seed=1811)
    draw_afresh()
    b, rows_b = _frames(tmp_path / "b", n=3, seed=1811)
    c, _ = _frames(tmp_path / "c", n=3, seed=1812)
    assert rows_a == rows_b
    for i in range(3):
        name = f"frames/{i:06d}.jpg"
        assert (a / name).read_bytes() == (b / name).read_bytes()
        assert (a / name).read_bytes() != (c / name).read_bytes()
        assert (a / f"truth/{i:06d}.json").read_text() == (b / f"truth/{i:06d}.json").read_text()


def test_a_frame_at_each_end_of_the_camera_range_keeps_the_board_whole():
    """The lowest, widest and the highest, narrowest cameras drawn for single frames still show the
    whole board and three markers, and their truth says so."""
    specs = []
    for seed in range(40):
        spec = FrameSpec(game="keltis", board="nwnz", players=3, seed=seed, size=(576, 324), distractors=True)
        layout = _layout("nwnz", 3, seed)
        cam = sample_table_camera(layout, np.random.default_rng([seed, 11]), spec.size, view="board")
        specs.append((cam.height, spec))
    specs.sort(key=lambda hs: hs[0])
    for _h, spec in (specs[0], specs[-1]):
        _jpeg, truth = render_single(spec)
        cam = truth["render"]["camera"]
        assert cam["height_mm"] == pytest.approx(_h, abs=1e-3)
        w, h = truth["render"]["size"]
        corners = np.array(truth["render"]["board"]["corners"])
        assert corners[:, 0].min() >= 0 and corners[:, 0].max() <= w - 1
        assert corners[:, 1].min() >= 0 and corners[:, 1].max() <= h - 1
        assert index_extras(truth)["markers_visible"] >= MIN_MARKERS


def test_a_camera_height_range_places_the_camera_that_high():
    """`sim frames --camera-height LO-HI` (session 31: dev frames of a camera hung too high)."""
    for seed in range(6):
        layout = _layout("nwnz", 3, seed)
        cam = sample_table_camera(layout, np.random.default_rng([seed, 11]), (2304, 1296), view="board",
                                  height_range=(1800.0, 2400.0))
        assert 1800.0 <= cam.height <= 2400.0 and fits(cam, layout.board_volume())
    spec = FrameSpec(camera_height=(1800.0, 2400.0))
    assert spec.to_json()["camera_height"] == [1800.0, 2400.0]
    assert "camera_height" not in FrameSpec().to_json()     # data sets without it are written as before
