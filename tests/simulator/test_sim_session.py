"""Recorded sessions (FORMATS §3) and single frames: contents, truth, events, determinism."""
from __future__ import annotations

import json

import pytest

from calibration.model import load_calibration
from engine.observation import parse_observation
from camera.session import open_session

from simulator.dataset import FrameSpec, render_single, sample_spec
from simulator.record import SessionOptions, record_session

from sim_helpers import draw_afresh

SMALL = (480, 270)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sim") / "s"
    opts = SessionOptions(game="keltis", board="nwnz", players=2, seed=21, size=SMALL, fps=1.0, max_moves=6,
                          illegal=1, quality=80)
    summary = record_session(folder, opts)
    return folder, opts, summary


def test_session_folder_reads_back_without_warnings(session):
    folder, opts, summary = session
    s = open_session(folder)
    assert s.warnings == []
    assert len(s) == summary["frames"] > 10
    assert s.info.source == "simulator" and s.info.board == "nwnz" and s.info.game == "keltis"
    assert set(s.info.seats) == {"south", "north"}
    times = [f.t for f in s]
    assert times == sorted(times) and times[1] - times[0] == pytest.approx(1.0)
    img = s.read_frame(s.frames[0])
    assert img.shape == (SMALL[1], SMALL[0], 3)


def test_every_frame_has_valid_truth_and_hand_frames_are_unusable(session):
    folder, _, _ = session
    s = open_session(folder)
    reasons = set()
    for ref in s:
        truth = s.truth(ref)
        obs = parse_observation(truth, f"truth of frame {ref.index}")
        assert truth["render"]["size"] == list(SMALL)
        hands_in_view = [h for h in truth["render"]["hands"] if h["in_view"]]
        assert obs.usable == (not hands_in_view)
        if not obs.usable:
            reasons.add(obs.reason)
            assert obs.reason in ("occluded", "motion")
    assert reasons == {"occluded", "motion"}


def test_events_list_each_move_with_the_first_frame_that_shows_it(session):
    folder, opts, summary = session
    s = open_session(folder)
    *events, last = s.events()
    assert len(events) == summary["moves"] == opts.max_moves
    # the closing line: the scores when filming stopped, for `replay --check`
    assert set(last) == {"final"} and set(last["final"]["totals"]) == set(s.info.seats)
    for e in events:
        assert {"index", "frame", "t", "seat", "move", "events", "violations", "state_id"} <= set(e)
        if e["frame"] is None:
            continue
        truth = s.truth(s.frame(e["frame"]))
        assert truth["usable"] is True
        # The frame shows this move's result (or a later state of the same table).
        assert truth["state_id"] >= e["state_id"]
        assert truth["t"] >= e["t"]
    injected = [e for e in events if e.get("injected")]
    assert len(injected) == 1
    assert injected[0]["expected_code"] in [v["code"] for v in injected[0]["violations"]]
    assert all(v.get("injected") for v in injected[0]["violations"])


def test_calibration_has_the_true_camera_and_the_default_markers(session):
    folder, _, _ = session
    cal = load_calibration(folder / "calibration.json")
    assert cal["camera"]["size"] == list(SMALL)
    truth = open_session(folder).truth(open_session(folder).frames[0])
    assert truth["render"]["static"] == "simulator.json"
    sim = json.loads((folder / "simulator.json").read_text())
    assert sim["render_static"]["camera"]["K"] == cal["camera"]["K"]
    assert [m["id"] for m in sim["render_static"]["markers"]] == [m["id"] for m in cal["markers"]["items"]]
    assert set(cal["seats"]) >= {"south", "north"}


def test_same_seed_same_bytes(tmp_path):
    opts = SessionOptions(game="keltis-card", board=None, players=3, seed=5, size=(320, 180), fps=1.0, max_moves=3)
    a, b = tmp_path / "a", tmp_path / "b"
    record_session(a, opts)
    draw_afresh()
    record_session(b, opts)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for rel in files:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_single_frames_are_deterministic_and_seed_dependent():
    spec = FrameSpec(game="keltis", board="base", players=4, seed=12, progress=0.5, size=(480, 270), hand="moving")
    j1, t1 = render_single(spec)
    draw_afresh()
    j2, t2 = render_single(spec)
    assert j1 == j2 and json.dumps(t1) == json.dumps(t2)
    j3, _ = render_single(FrameSpec(**{**spec.__dict__, "seed": 13}))
    assert j3 != j1
    assert t1["usable"] is False and t1["reason"] == "motion"
    # The table under the hand is kept for partial-reading checks, and parses as a state.
    assert parse_observation(t1["table"]).usable


def test_card_game_frame_truth_has_no_board():
    jpeg, truth = render_single(FrameSpec(game="keltis-card", board=None, players=2, seed=4, progress=0.7,
                                          size=(480, 270)))
    obs = parse_observation(truth)
    assert obs.game == "keltis-card" and obs.board is None and obs.pawns is None
    assert "stones" not in truth["render"]
    assert truth["render"]["calibration"]["board"] is None
    kinds = {c["kind"] for c in truth["render"]["cards"]}
    assert "card" in kinds


def test_data_set_specs_cover_all_games_and_conditions():
    specs = [sample_spec(7, i, (2304, 1296)) for i in range(300)]
    assert {(s.game, s.board) for s in specs} == {("keltis", "nwnz"), ("keltis", "base"), ("keltis-card", None)}
    assert {s.players for s in specs} == {2, 3, 4}
    assert {s.hand for s in specs} == {None, "still", "moving"}
    assert any(s.hard for s in specs) and any(s.dark for s in specs)
    assert specs == [sample_spec(7, i, (2304, 1296)) for i in range(300)]


def test_hand_frames_name_the_seat_whose_arm_reaches_in(session):
    """FORMATS §2 extension "hands" (docs/formats-extensions.md): each frame with a hand in view names
    the seat of the player making the move then; the drawn arm comes in across that seat's edge."""
    import numpy as np

    from simulator.record import setup_table
    from simulator.games import Game

    folder, opts, _ = session
    s = open_session(folder)
    events = [e for e in s.events() if "move" in e]
    named = 0
    for ref in s:
        truth = s.truth(ref)
        if truth["usable"]:
            assert "hands" not in truth
            continue
        seats = [h["seat"] for h in truth["hands"]]
        assert seats and set(seats) <= set(s.info.seats)
        assert [h["seat"] for h in truth["render"]["hands"] if h["in_view"]] == seats
        # the move under way: the next move to change the table, or the last one if its hand is
        # still withdrawing (up to 1 s after the change)
        nxt = next((e["seat"] for e in events if e["t"] >= truth["t"] - 1e-6), None)
        prev = [e["seat"] for e in events if truth["t"] - 1.0 - 1e-6 <= e["t"] < truth["t"]]
        assert seats[0] in {nxt, *prev}
        named += 1
    assert named > 5
    # The reach pose starts from the seat's side: the shoulder lies beyond the seat's far edge,
    # outside the play area, toward the player.
    game = Game.new(opts.game, opts.board, opts.players, opts.seed, opts.rules)
    table = setup_table(game, opts.seed, opts.size)
    from simulator.hands import SKIN_RGB, SLEEVE_RGB, reach_pose
    for seat in s.info.seats:
        fr = table.layout.frames[seat]
        far = fr.point(fr.width * 0.5, fr.depth)
        pose = reach_pose(far, tuple(fr.v), (280.0, 200.0), rng=np.random.default_rng(0), skin=SKIN_RGB[0],
                          sleeve=SLEEVE_RGB[0])
        rel = np.asarray(pose.shoulder[:2]) - np.asarray(fr.origin)
        assert float(rel @ fr.v) > fr.depth  # behind the seat's rectangle, on the player's side


def test_a_session_can_leave_the_render_out_of_its_truth(tmp_path):
    """--truth-render none: the observed state (hands included) per frame, the geometry once."""
    folder = tmp_path / "lean"
    opts = SessionOptions(game="keltis-card", board=None, players=2, seed=3, size=SMALL, fps=2.0, max_moves=2,
                          quality=70, truth_render="none")
    record_session(folder, opts)
    s = open_session(folder)
    truths = [s.truth(ref) for ref in s]
    assert truths and all("render" not in t for t in truths)
    assert any(not t["usable"] and t["hands"] for t in truths)
    sim = json.loads((folder / "simulator.json").read_text())
    assert sim["options"]["truth_render"] == "none" and sim["render_static"]["seats"]


def test_session_truth_without_pictures_is_what_the_recording_holds(session):
    """simulator.record.session_truth (the tracking benches' source) gives the recorded session's
    truth files and events exactly, without rendering (the render extension aside)."""
    from simulator.record import session_truth

    folder, opts, _ = session
    s = open_session(folder)
    stream = session_truth(opts)
    assert len(stream["frames"]) == len(s)
    for ref, (t, truth) in zip(s.frames, stream["frames"]):
        recorded = dict(s.truth(ref))
        recorded.pop("render", None)
        assert t == pytest.approx(ref.t) and truth == recorded
    assert stream["events"] == s.events()
    assert any(not truth["usable"] and truth["hands"] for _, truth in stream["frames"])
    assert stream["setup"]["seats"] == dict(s.info.seats)
    assert set(stream["final"]["totals"]) == set(s.info.seats)


def test_a_single_frame_can_be_rendered_from_a_camera_placed_on_purpose():
    """bench/card_resolution.py places the camera itself (height, field of view): the frame's truth
    and its calibration carry that camera, not a drawn one."""
    from simulator.camera import make_camera

    def overhead(layout):
        area = layout.play_area()
        return make_camera((320, 180), target=(area.min(0) + area.max(0)) / 2, height=2100.0, hfov_deg=66.0)

    spec = FrameSpec(game="keltis-card", board=None, players=2, seed=5, size=(320, 180), distractors=False)
    _jpeg, truth = render_single(spec, camera=overhead)
    cam = truth["render"]["camera"]
    assert cam["height_mm"] == 2100.0 and cam["hfov_deg"] == 66.0 and cam["tilt_deg"] == 0.0
    _jpeg2, drawn = render_single(spec)
    assert drawn["render"]["camera"]["height_mm"] != 2100.0
