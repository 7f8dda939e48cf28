"""The truth matches what is drawn (issue 4, item 6): stones, card numerals, pawns, markers, hands."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from simulator import components as comp
from simulator.camera import make_camera
from simulator.hands import SKIN_RGB, SLEEVE_RGB, reach_pose
from simulator.record import setup_table

from sim_helpers import PLAIN, bgr, nearest, played, table_for


@pytest.fixture(scope="module")
def nwnz_frame():
    g = played("keltis", "nwnz", 3, seed=3, moves=60)
    table = table_for(g, seed=5, size=(1280, 720))
    obs = g.observe()
    scene = table.layout.scene(obs, g.hints())
    frame = table.renderer.frame(scene, PLAIN, np.random.default_rng(0))
    return g, table, obs, scene, frame


def _covered_by_pawn(render, centre, radius):
    for p in render["pawns"]:
        x0, y0, x1, y1 = p["box"]
        if x0 - radius <= centre[0] <= x1 + radius and y0 - radius <= centre[1] <= y1 + radius:
            return True
    return False


def test_every_visible_stone_centre_projects_inside_its_drawn_stone(nwnz_frame):
    """Sample a ring at 0.6 r around each stone's truth centre: it shows that stone's colour."""
    g, table, obs, scene, frame = nwnz_frame
    img, render, cam = frame.image, frame.render, table.camera
    palette = {c: bgr(v) for c, v in comp.STONE_RGB.items()}
    palette["board"] = bgr(comp.BOARD_RGB)
    palette["trail"] = bgr((170, 150, 98))
    piles = {sid for c, sid in g.board.wish_piles.items() if g.hints()["wish_piles"][c] > 0}
    checked = 0
    for sid, s in g.board.stones.items():
        info = render["stones"][sid]
        if s.kind == "start" or (obs.tiles or {}).get(sid) or sid in piles:
            continue
        if _covered_by_pawn(render, info["centre"], info["radius_px"]):
            continue
        th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
        ring = np.column_stack([s.x + 0.6 * s.r * np.cos(th), s.y + 0.6 * s.r * np.sin(th),
                                np.full(12, -comp.BOARD_THICKNESS)])
        px = cam.project(ring)
        cols = [img[int(round(v)), int(round(u))].astype(float) for u, v in px]
        votes = [nearest(c, palette) for c in cols]
        share = votes.count(s.color) / len(votes)
        assert share >= 0.75, f"stone {sid} ({s.color}) at {info['centre']}: ring reads {votes}"
        # The centre itself lies inside the drawn disc: the nearest stone edge is a radius away.
        assert info["radius_px"] > 2
        checked += 1
    assert checked >= 25


def test_board_pixels_match_the_board_art_at_the_truth_projection(nwnz_frame):
    """Where the truth projection says a board point is, the frame shows the art's colour there;
    one or two pixels off and the match gets clearly worse."""
    g, table, obs, scene, frame = nwnz_frame
    img, cam = frame.image.astype(np.float64), table.camera
    art = comp.board_art("nwnz").astype(np.float64)
    rng = np.random.default_rng(3)
    blocked = [(p.position, 18.0) for p in scene.turned] + [(f.centre, 16.0) for f in scene.flats
                                                           if (f.truth or {}).get("kind") in ("tile", "wish-pile")]
    pts = []
    while len(pts) < 400:
        x, y = rng.uniform(15, 545), rng.uniform(15, 380)
        if all(math.hypot(x - c[0], y - c[1]) > r for c, r in blocked):
            pts.append((x, y))
    pts = np.array(pts)
    px = cam.project(np.column_stack([pts, np.full(len(pts), -comp.BOARD_THICKNESS)]))
    ref = cv2.GaussianBlur(art[..., :3], (0, 0), 1.5 * comp.PPM_BOARD / cam.px_per_mm((280, 200)))[
        (pts[:, 1] * comp.PPM_BOARD).astype(int), (pts[:, 0] * comp.PPM_BOARD).astype(int)]

    def err(shift):
        u = np.clip(np.round(px[:, 0] + shift[0]).astype(int), 0, img.shape[1] - 1)
        v = np.clip(np.round(px[:, 1] + shift[1]).astype(int), 0, img.shape[0] - 1)
        return float(np.mean(np.abs(img[v, u] - ref)))

    here = err((0, 0))
    assert here < 10, here
    assert min(err((3, 0)), err((0, 3)), err((-3, 0)), err((0, -3))) > here * 1.5
    assert min(err((1, 0)), err((0, 1)), err((-1, 0)), err((0, -1))) > here


def test_card_numerals_lie_where_the_truth_says():
    """Rectify each visible numeral region from the truth quad: it reads as that card's value."""
    g = played("keltis", "base", 2, seed=8, moves=70)
    obs = g.observe()
    probe = table_for(g, seed=2, size=(1600, 900))
    fr = probe.layout.frames["south"]
    cx, cy = fr.point(fr.width * 0.3, fr.depth * 0.45)
    cam = make_camera((1600, 900), target=(cx, cy), height=520, tilt_deg=12, tilt_azimuth_deg=40, yaw_deg=25,
                      hfov_deg=62, dist=(-0.08, 0.01, 0, 0, 0))
    table = setup_table(g, 2, (1600, 900), distractors=False, camera=cam)
    scene = table.layout.scene(obs, g.hints())
    frame = table.renderer.frame(scene, PLAIN, np.random.default_rng(0))
    # The numerals are printed white: the darkest channel separates them from every card colour.
    img = frame.image.min(axis=2).astype(np.float32)
    W, H = 68, 52
    dst = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
    bx, by, bw, bh = comp.NUMERAL_BOXES["top-left"]

    def template(colour, value):
        art = comp.card_art(comp.CardFace("number", colour, value))[..., :3].min(axis=2)
        p = comp.PPM_CARD
        crop = art[int(by * p):int((by + bh) * p), int(bx * p):int((bx + bw) * p)]
        return cv2.GaussianBlur(cv2.resize(crop, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32), (0, 0), 1.0)

    def ncc(a, b):
        a, b = a - a.mean(), b - b.mean()
        return float((a * b).sum() / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))

    checked = 0
    for card in frame.render["cards"]:
        if card["kind"] != "card" or card["numeral_visible"]["top-left"] < 1.0:
            continue
        quad = np.float32(card["numerals"]["top-left"])
        if quad[:, 0].min() < 0 or quad[:, 1].min() < 0 or quad[:, 0].max() > 1599 or quad[:, 1].max() > 899:
            continue
        patch = cv2.warpPerspective(img, cv2.getPerspectiveTransform(quad, dst), (W, H))
        patch = cv2.GaussianBlur(patch, (0, 0), 1.0)
        scores = {v: ncc(patch, template(card["row"], v)) for v in range(11)}
        best = max(scores, key=scores.get)
        assert str(best) == card["code"], f"{card['seat']} {card['row']} #{card['index']}: {scores}"
        checked += 1
    assert checked >= 5


def test_pawn_boxes_hold_the_drawn_pawns(nwnz_frame):
    g, table, obs, scene, frame = nwnz_frame
    from simulator.scene import Scene

    bare = Scene(flats=scene.flats, turned=[], key=scene.key + "-nopawns")
    other = table.renderer.frame(bare, PLAIN, np.random.default_rng(0))
    diff = np.abs(frame.image.astype(int) - other.image.astype(int)).max(axis=2) > 40
    inside = np.zeros_like(diff)
    for p in frame.render["pawns"]:
        x0, y0, x1, y1 = p["box"]
        inside[max(0, int(y0) - 2):int(math.ceil(y1)) + 3, max(0, int(x0) - 2):int(math.ceil(x1)) + 3] = True
    assert diff.sum() > 200
    assert (diff & ~inside).sum() <= 0.01 * diff.sum()
    shown = 0
    for p in frame.render["pawns"]:
        x0, y0, x1, y1 = (int(v) for v in p["box"])
        shown += diff[max(0, y0):y1 + 1, max(0, x0):x1 + 1].any()
    assert shown >= 0.8 * len(frame.render["pawns"])
    assert {(p["stone"], p["player"], p["big"]) for p in frame.render["pawns"]} == {
        (p.stone, p.player, p.big) for p in obs.pawns}


def test_markers_are_the_calibration_markers_at_the_truth_corners():
    g = played("keltis", "nwnz", 2, seed=4, moves=10)
    table = table_for(g, seed=9, size=(1920, 1080), tilt=(0, 10))
    scene = table.layout.scene(g.observe(), g.hints())
    frame = table.renderer.frame(scene, PLAIN, np.random.default_rng(0))
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    assert ids is not None
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}
    truth = {m["id"]: np.array(m["corners"]) for m in frame.render["items"] if m["kind"] == "marker"}
    assert set(truth) == {m["id"] for m in table.calibration["markers"]["items"]}
    assert set(found) == set(truth)
    for mid, c in truth.items():
        assert np.abs(found[mid] - c).max() < 2.0, (mid, found[mid], c)


@pytest.fixture(scope="module")
def hand_table():
    """A small NWNZ table for the hand tests (shared: the game and its renderer are built once)."""
    g = played("keltis", "nwnz", 3, seed=6, moves=20)
    table = table_for(g, seed=6, size=(960, 540))
    return g, table, table.layout.scene(g.observe(), g.hints())


def test_hand_box_holds_the_hand_and_marks_the_frame(hand_table):
    g, table, scene = hand_table
    fr = table.layout.frames["south"]
    s = g.board.stones["e4"]
    pose = reach_pose(fr.point(fr.width / 2, fr.depth), tuple(fr.v), (s.x, s.y), rng=np.random.default_rng(1),
                      skin=SKIN_RGB[2], sleeve=SLEEVE_RGB[1], progress=1.0)
    with_hand = table.renderer.frame(scene, PLAIN, np.random.default_rng(0), hands=[pose])
    without = table.renderer.frame(scene, PLAIN, np.random.default_rng(0))
    (h,) = with_hand.render["hands"]
    assert h["in_view"] and not h["moving"]
    diff = np.abs(with_hand.image.astype(int) - without.image.astype(int)).max(axis=2) > 40
    x0, y0, x1, y1 = h["box"]
    inside = np.zeros_like(diff)
    inside[int(y0):int(math.ceil(y1)) + 1, int(x0):int(math.ceil(x1)) + 1] = True
    assert diff.sum() > 500
    assert (diff & ~inside).sum() <= 0.01 * diff.sum()


def test_the_arm_over_the_play_area_is_what_the_camera_sees_of_it_there(hand_table):
    """Single frames are unusable only for an arm over the play area (issue 15 item 5): the truth's
    `over_play_mm2` matches the arm pixels drawn over the projected board, seats and piles, and is
    0 for a hand in the picture beyond them (then `sim frames` keeps the frame usable)."""
    g, table, scene = hand_table
    cam = table.camera
    without = table.renderer.frame(scene, PLAIN, np.random.default_rng(0))
    play = np.zeros(without.image.shape[:2], np.uint8)
    for region in table.layout.play_regions():
        cv2.fillPoly(play, [np.round(cam.project(region)).astype(np.int32)], 1)
    mm2_per_px = 1.0 / cam.px_per_mm(np.mean(table.layout.play_regions()[0], 0)) ** 2
    fr = table.layout.frames["south"]
    e4 = (g.board.stones["e4"].x, g.board.stones["e4"].y)
    for target, progress, over in ((e4, 1.0, True), (fr.point(-250, fr.depth + 200), 1.0, False), (e4, 0.3, False)):
        pose = reach_pose(fr.point(fr.width / 2, fr.depth), tuple(fr.v), target, rng=np.random.default_rng(1),
                          skin=SKIN_RGB[2], sleeve=SLEEVE_RGB[1], progress=progress)
        frame = table.renderer.frame(scene, PLAIN, np.random.default_rng(0), hands=[pose])
        (h,) = frame.render["hands"]
        assert h["in_view"]
        drawn = np.abs(frame.image.astype(int) - without.image.astype(int)).max(axis=2) > 40
        drawn_mm2 = float((drawn & (play > 0)).sum()) * mm2_per_px
        if over:
            assert h["over_play_mm2"] > 10000 and 0.7 < h["over_play_mm2"] / drawn_mm2 < 1.4, (h, drawn_mm2)
        else:
            assert h["over_play_mm2"] < 100 and drawn_mm2 < 100, (h, drawn_mm2)
