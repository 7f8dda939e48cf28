"""The unusable-frame decision (vision/usable.py) on frames the simulator renders at test time: an arm
from each seat's edge names that seat, a mug beside the play area keeps the frame usable, a moving arm
and a shaken picture are `motion`, too dark, and a hand over the card game's table."""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from engine.board import bundled_board
from simulator.games import Game
from simulator.hands import HandPose
from simulator.record import HandPlan, hand_pose, setup_table
from simulator.scene import place_distractors
from vision.reader import Reader
from vision.usable import DEFAULT_CONFIG, build_usable_model, judge_small, small_image

SIZE = (2304, 1296)


def render(game_name: str = "keltis", board: str | None = "nwnz", players: int = 4, seed: int = 5, *,
           hand_seat: str | None = None, target: tuple[float, float] = (280.0, 200.0), progress: float = 1.0,
           distractors: tuple[str, ...] = (), blur_px: int = 0):
    """(image, calibration, seats in play, render truth) of one table; a still hand of `hand_seat`
    reaching `progress` of the way to `target` (board mm), the `distractors` on the table."""
    game = Game.new(game_name, board, players, seed)
    table = setup_table(game, seed, SIZE, distractors=False)
    table.distractors = place_distractors(table.layout, table.camera, tuple(distractors), seed) if distractors else ()
    obs = game.observe()
    scene = table.layout.scene(obs, game.hints(), table.distractors)
    rng = np.random.default_rng([seed, 22])
    hands: list[HandPose] = []
    if hand_seat:
        x, y = target
        plan = HandPlan(hand_seat, [(0.0, x, y, 30.0, progress), (1.0, x, y, 30.0, progress)])
        hands.append(hand_pose(table, plan, 0.5, 1 / 20))
    frame = table.renderer.frame(scene, table.conditions, rng, hands=hands)
    image = cv2.imdecode(np.frombuffer(frame.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if blur_px:
        k = np.zeros((blur_px, blur_px), np.float32)
        k[blur_px // 2, :] = 1.0 / blur_px          # a horizontal shake during the exposure
        image = cv2.filter2D(image, -1, k)
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    seats = {s: o.player for s, o in obs.seats.items()}
    return image, cal, seats, frame.render


def reader_for(cal, seats, game_name="keltis", board="nwnz") -> Reader:
    return Reader(cal, game=game_name, board=bundled_board(board) if board else None, seats=seats)


@lru_cache(maxsize=None)
def empty_table():
    return render()


@pytest.mark.parametrize("seat", ["south", "west", "north", "east"])
def test_arm_from_each_seats_edge_names_that_seat(seat):
    image, cal, seats, truth = render(hand_seat=seat, target=(280.0, 200.0))
    assert [h["in_view"] for h in truth["hands"]] == [True]
    obs = reader_for(cal, seats).read(image).observation
    assert not obs.usable and obs.reason == "occluded"
    assert obs.extra["hands"] == [{"seat": seat}]


def test_the_empty_table_is_usable():
    image, cal, seats, _truth = empty_table()
    obs = reader_for(cal, seats).read(image).observation
    assert obs.usable and obs.reason is None


@pytest.mark.parametrize("things", [("mug",), ("mug", "phone", "box")])
def test_a_mug_beside_the_play_area_keeps_the_frame_usable(things):
    image, cal, seats, truth = render(distractors=things)
    drawn = {i["what"] for i in truth["items"] if i.get("kind") == "distractor"}
    assert "mug" in drawn
    obs = reader_for(cal, seats).read(image).observation
    assert obs.usable, obs.reason


def test_a_moving_arm_is_motion_given_the_previous_frame():
    """A live pipeline passes the previous preview frame: the arm's region changed since it."""
    before, cal, seats, _t = render(hand_seat="south", progress=0.8)
    now, _cal, _seats, _t2 = render(hand_seat="south", progress=1.0)
    reader = reader_for(cal, seats)
    alone = reader.read(now).observation
    assert alone.reason == "occluded"        # one frame alone cannot tell
    obs = reader.read(now, previous=small_image(DEFAULT_CONFIG, before)).observation
    assert not obs.usable and obs.reason == "motion"
    assert obs.extra["hands"] == [{"seat": "south"}]


def test_a_blurred_picture_is_motion_against_the_tables_own_sharpness():
    """The camera or the table shaken: the reader compares with the sharpness of this registration's
    settled frames (never a constant), so the same table sharp again is usable."""
    sharp, cal, seats, _t = empty_table()
    blurred, *_rest = render(blur_px=41)
    reader = reader_for(cal, seats)
    assert reader.read(sharp).observation.usable
    obs = reader.read(blurred).observation
    assert not obs.usable and obs.reason == "motion"
    assert reader.read(sharp).observation.usable


def test_too_dark_without_board_art_in_the_card_game():
    image, cal, seats, _truth = render("keltis-card", None, 3, seed=7)
    dark = (image.astype(np.float32) * 0.08).astype(np.uint8)
    reader = reader_for(cal, seats, "keltis-card", None)
    assert reader.read(image).observation.usable
    obs = reader_for(cal, seats, "keltis-card", None).read(dark).observation
    assert not obs.usable and obs.reason == "too-dark"


@pytest.mark.parametrize("seat", ["south", "north"])
def test_card_game_hand_frame_names_its_seat(seat):
    """The card game has no board: the play area is the seat areas and the piles between them."""
    image, cal, seats, truth = render("keltis-card", None, 4, seed=7, hand_seat=seat, target=(280.0, 95.0))
    assert [h["in_view"] for h in truth["hands"]] == [True]
    obs = reader_for(cal, seats, "keltis-card", None).read(image).observation
    assert not obs.usable and obs.reason == "occluded"
    assert obs.extra["hands"] == [{"seat": seat}]


def test_decision_on_the_preview_size_with_its_model_built_once():
    image, cal, seats, _truth = empty_table()
    reader = reader_for(cal, seats)
    reader.read(image)
    model = build_usable_model(DEFAULT_CONFIG, cal, reader.registration, reader.board, reader.components,
                               seats=list(seats))
    small = small_image(DEFAULT_CONFIG, image)
    assert small.shape[:2] == (180, 320)
    assert model.play.shape == (180, 320) and model.play.any() and not model.play.all()
    assert judge_small(DEFAULT_CONFIG, model, small).usable


def test_a_full_resolution_still_is_judged_like_its_video_frame_from_a_cheap_small_picture():
    """A still (here the video frame at twice its size, as a Camera Module 3's 4608x2592) is sampled
    down to 4x the decision's size before the area average: the small picture is nearly the same
    (a grey level on average) and so are the verdicts, on the empty table and with an arm."""
    for image, cal, seats, _truth in (empty_table(), render(hand_seat="west", target=(280.0, 200.0))):
        still = cv2.resize(image, (2 * SIZE[0], 2 * SIZE[1]), interpolation=cv2.INTER_LINEAR)
        assert still.shape[1] > DEFAULT_CONFIG.still_shrink * DEFAULT_CONFIG.size[0]
        cheap = small_image(DEFAULT_CONFIG, still)
        exact = cv2.resize(still, DEFAULT_CONFIG.size, interpolation=cv2.INTER_AREA)
        assert cheap.shape == exact.shape and np.abs(cheap.astype(int) - exact).mean() < 1.5
        reader = reader_for(cal, seats)
        reader.read(image)
        model = build_usable_model(DEFAULT_CONFIG, cal, reader.registration, reader.board, reader.components,
                                   seats=list(seats))
        video, big = judge_small(DEFAULT_CONFIG, model, small_image(DEFAULT_CONFIG, image)), judge_small(
            DEFAULT_CONFIG, model, cheap)
        assert (big.usable, big.reason, big.hands) == (video.usable, video.reason, video.hands)


def test_region_classifier_weights_are_in_git_small_and_fit_this_codes_features():
    from vision.usable import DEFAULT_REGION_WEIGHTS, REGION_FEATURES, load_region_net

    assert DEFAULT_REGION_WEIGHTS.stat().st_size < 2_000_000
    net = load_region_net()
    assert net is not None and net.w1.shape[0] == len(REGION_FEATURES)
    probs = net.prob(np.zeros((3, len(REGION_FEATURES)), np.float32))
    assert probs.shape == (3,) and np.all((probs >= 0) & (probs <= 1))


def test_region_features_measure_sizes_and_shares_not_colours():
    """A warm lamp and a darker exposure change every colour of the frame; the arm region's
    measurements (mm, shares, strengths relative to the table's own colour) hardly move and the
    verdict and seat stay."""
    from vision.usable import not_table_pixels, region_features

    image, cal, seats, _truth = render(hand_seat="west", target=(280.0, 200.0))
    reader = reader_for(cal, seats)
    reader.read(image)
    model = reader.usable_model
    found = []
    for gains in ((1.0, 1.0, 1.0), (0.55, 0.7, 0.85)):      # BGR: a warm, dimmer light
        small = np.clip(small_image(DEFAULT_CONFIG, image) * np.float32(gains), 0, 255).astype(np.uint8)
        px = not_table_pixels(DEFAULT_CONFIG, model, small)
        n, labels, stats, _c = cv2.connectedComponentsWithStats(px.mask, connectivity=8)
        keep, feats = region_features(DEFAULT_CONFIG, model, px, labels, stats, n)
        biggest = feats[int(np.argmax(feats[:, 0]))]
        found.append((biggest, judge_small(DEFAULT_CONFIG, model, small)))
    (a, va), (b, vb) = found
    assert abs(a[0] - b[0]) < 0.3              # log area (mm²)
    assert va.reason == vb.reason == "occluded" and va.hands == vb.hands == ["west"]


def arm_regions(seat: str, distractors: tuple[str, ...]):
    """(usable model, not-table pixels, labels, stats, n) of a frame with `seat`'s arm over the table."""
    from vision.usable import not_table_pixels

    image, cal, seats, _truth = render(hand_seat=seat, target=(280.0, 200.0), distractors=distractors)
    reader = reader_for(cal, seats)
    reader.read(image)
    model = reader.usable_model
    px = not_table_pixels(DEFAULT_CONFIG, model, small_image(DEFAULT_CONFIG, image))
    n, labels, stats, _c = cv2.connectedComponentsWithStats(px.mask, connectivity=8)
    return model, px, labels, stats, n


@pytest.mark.parametrize("seat", ["west", "north"])
def test_region_features_all_at_once_match_the_region_by_region_reference(seat):
    from vision.usable import region_features

    model, px, labels, stats, n = arm_regions(seat, ("mug", "phone"))
    keep, feats = region_features(DEFAULT_CONFIG, model, px, labels, stats, n)
    want_keep, want = region_features_one_by_one(DEFAULT_CONFIG, model, px, labels, stats, n)
    assert keep == want_keep and len(keep) >= 1
    assert np.allclose(feats, want, atol=1e-5)


def region_features_one_by_one(config, model, px, labels, stats, n):
    """The measurements region by region, pixel by pixel (the first version of
    vision.usable.region_features, kept as the reference its vectorised form must match)."""
    from vision.usable import REGION_FEATURES

    empty = np.zeros((0, len(REGION_FEATURES)), np.float32)
    if n <= 1:
        return [], empty
    lab = labels.ravel()
    total = np.bincount(lab, weights=model.area_flat, minlength=n)
    keep = [k for k in range(1, n) if total[k] >= config.region_min_mm2]
    if not keep:
        return [], empty
    thr_c, thr_l = px.thresholds
    mx, my = model.middle_px
    lo, hi = config.ring_mm
    rows = []
    for k in keep:
        x, y, w, h = (int(v) for v in stats[k, :4])
        sel = labels[y:y + h, x:x + w] == k
        area = model.area[y:y + h, x:x + w][sel]
        out_d = model.out_dist[y:y + h, x:x + w][sel]
        count = len(area)
        area_in = float(area[out_d <= 0].sum())
        root = np.sqrt(area)
        border_mm = float(root[model.frame_border[y:y + h, x:x + w][sel] > 0].sum())
        edge_mm = float(root[px.edge_zone[y:y + h, x:x + w][sel] > 0].sum()) - border_mm
        board = float(area[model.board_u8[y:y + h, x:x + w][sel] > 0].sum())
        lum = px.lum[y:y + h, x:x + w][sel]
        chroma = np.sqrt(np.maximum(px.chroma2[y:y + h, x:x + w][sel], 0))
        ys, xs = np.nonzero(sel)
        pts = np.stack([xs + x, ys + y], 1).astype(np.float32)
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(pts)
        scale = float(np.sqrt(total[k] / count))
        length, width = max(rw, rh) * scale + scale, min(rw, rh) * scale + scale
        hull_area = cv2.contourArea(cv2.convexHull(pts)) + count * 0.5
        # the long axis against the direction to the middle: an arm points at it
        a = np.deg2rad(ang if rw >= rh else ang + 90.0)
        to_mid = (mx - cx, my - cy)
        toward = abs(np.cos(a) * to_mid[0] + np.sin(a) * to_mid[1]) / (np.hypot(*to_mid) + 1e-6)
        # the root (the part farthest from the middle) lies how far out of the play area
        far = int(np.argmax((pts[:, 0] - mx) ** 2 + (pts[:, 1] - my) ** 2))
        rows.append((np.log(total[k] / 1000.0), area_in / total[k], np.log1p(area_in / 1000.0),
                     np.log(length / 100.0), np.log(width / 100.0), total[k] / max(length * width, 1.0),
                     count / max(hull_area, 1.0), np.log1p(border_mm / 10.0), np.log1p(max(edge_mm, 0.0) / 10.0),
                     float(out_d.max()) / 100.0, float(out_d.min()) / 100.0, board / total[k],
                     float(np.minimum(lum / thr_l, 4.0).mean()), float(np.minimum(chroma / thr_c, 4.0).mean()),
                     toward, float(out_d[far]) / 100.0, float(((out_d > lo) & (out_d < hi)).mean())))
    return keep, np.asarray(rows, np.float32)


def test_without_region_weights_the_hand_set_rules_decide():
    from dataclasses import replace

    cfg = replace(DEFAULT_CONFIG, learned_regions=False)
    image, cal, seats, _truth = render(hand_seat="north", target=(280.0, 200.0))
    reader = reader_for(cal, seats)
    reader.read(image)
    model = build_usable_model(cfg, cal, reader.registration, reader.board, reader.components)
    assert model.region_net is None
    verdict = judge_small(cfg, model, small_image(cfg, image))
    assert not verdict.usable and verdict.hands == ["north"]


def test_a_live_pipelines_small_picture_is_what_the_usable_test_judges():
    """Reader.read(image, small=...): the frame's preview at the stage's size is judged instead of the
    frame scaled down again (a live pipeline has it already); a picture of another size is not used."""
    image, cal, seats, _truth = empty_table()
    hand_image, _cal, _seats, _t = render(hand_seat="west", target=(280.0, 200.0))
    reader = reader_for(cal, seats)
    assert reader.read(image).observation.usable
    with_arm = small_image(DEFAULT_CONFIG, hand_image)
    got = reader.read(image, small=with_arm).observation
    assert not got.usable and got.reason in ("occluded", "motion")
    assert got.extra.get("hands") == [{"seat": "west"}]
    # the same picture but at another size is no preview of this stage: the frame itself is judged
    other = cv2.resize(hand_image, (400, 225), interpolation=cv2.INTER_AREA)
    assert reader.read(image, small=other).observation.usable
