"""The web layer over the real tracker: a replayed session through the truth observer and the
Pipeline; the stream's patches rebuild the tracker's snapshots exactly, and resume works."""
from __future__ import annotations


import pytest

from webui.app import create_app
from webui.broadcast import apply_patch
from webui.config import WebConfig
from webui_fakes import PIN, sse_messages
from webui_replay import SteppedReplay, write_replay_session


@pytest.fixture(scope="module")
def session_folder(tmp_path_factory):
    return write_replay_session(tmp_path_factory.mktemp("replay") / "session")


@pytest.fixture
def replay(session_folder, tmp_path):
    r = SteppedReplay(session_folder, tmp_path)
    yield r
    r.close()


@pytest.fixture
def real_app(replay, tmp_path):
    app = create_app(replay.tracker, pipeline=replay.pipeline, pin=PIN,
                     config=WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05, data_dir=tmp_path))
    yield app
    app.extensions["keltis"].broadcaster.stop()


def test_the_stream_follows_a_replayed_game_exactly(real_app, replay):
    client = real_app.test_client()
    resp = client.get("/api/stream", buffered=False)
    try:
        stream = sse_messages(resp, timeout=10)
        snap = next(m for m in stream if m.get("event") == "snapshot")
        state = snap["data"]
        last_id = int(snap["id"])
        target = replay.moves(3)["event_id"]
        while last_id < target:
            msg = next(m for m in stream if m.get("event") == "change")
            assert int(msg["id"]) > last_id and msg["data"]["after_id"] == last_id
            last_id = int(msg["id"])
            state = apply_patch(state, msg["data"]["patch"])
    finally:
        resp.close()
    assert state == real_app.extensions["keltis"].broadcaster.current()[0]
    assert state["moves"] == replay.tracker.snapshot()["moves"]
    assert len([m for m in state["moves"] if m["complete"]]) >= 3


def test_api_state_health_and_undo_on_the_real_tracker(real_app, replay):
    client = real_app.test_client()
    snap = replay.moves(2)
    body = client.get("/api/state").get_json()
    assert body["moves"] == snap["moves"] and body["pipeline"]["observer"] == "truth"
    health = client.get("/healthz").get_json()
    assert health["ok"] and health["pipeline"]["frames"] == replay.position
    n = len(snap["moves"])
    resp = client.post("/api/undo", headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 200 and len(resp.get_json()["moves"]) == n - 1


def test_a_real_correction_and_its_refusal(real_app, replay):
    client = real_app.test_client()
    snap = replay.moves(2)
    seat = next(iter(snap["game"]["seats"]))
    ok = client.post("/api/corrections", json={"kind": "row", "seat": seat, "colour": "blue", "cards": ["2", "6"]},
                     headers={"X-Keltis-PIN": PIN})
    assert ok.status_code == 200, ok.get_json()
    assert ok.get_json()["table"]["seats"][seat]["rows"]["blue"] == ["2", "6"]
    bad = client.post("/api/corrections", json={"kind": "pawn", "player": snap["game"]["seats"][seat], "to": "z9"},
                      headers={"X-Keltis-PIN": PIN})
    assert bad.status_code == 400 and "z9" in bad.get_json()["error"]
    before = replay.tracker.snapshot()
    assert before["table"]["seats"][seat]["rows"]["blue"] == ["2", "6"]


def test_a_new_game_from_the_api_on_the_real_tracker(real_app, replay):
    client = real_app.test_client()
    resp = client.post("/api/game", json={"game": "keltis-card", "seats": {"south": "black", "east": "brown"},
                                         "names": {"east": "Dai"}, "rules": {"final_play": "full-turn"}},
                       headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 201, resp.get_json()
    game = resp.get_json()["game"]
    assert game["game"] == "keltis-card" and game["rules"]["final_play"] == "full-turn"
    bad = client.post("/api/game", json={"game": "keltis-card", "seats": {"south": "black", "east": "brown"},
                                        "rules": {"final_play": "sudden-death"}}, headers={"X-Keltis-PIN": PIN})
    assert bad.status_code == 400 and "final_play" in bad.get_json()["error"]
    assert replay.tracker.snapshot()["game"]["rules"]["final_play"] == "full-turn"


def test_a_question_later_frames_decide_is_withdrawn_from_the_state(tmp_path):
    """The page's API over the real tracker: the tied draw is asked in /api/state; north's later reach decides it
    (west took the red 3), and the next /api/state carries no question — withdrawn, nothing to tap — while the
    moves give the draw to west."""
    from webui_replay import north_reaches_again, tied_draw_tracker

    tracker = tied_draw_tracker()
    app = create_app(tracker, pin=PIN, config=WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05, data_dir=tmp_path))
    try:
        client = app.test_client()
        questions = client.get("/api/state").get_json()["questions"]
        assert [(q["pile"], q["card"], q["kind"]) for q in questions] == [("red", "3", "draw")]
        north_reaches_again(tracker)
        state = client.get("/api/state").get_json()
        assert state["questions"] == []
        assert [m["seat"] for m in state["moves"] if "drew a red 3" in m["text"]] == ["west"]
    finally:
        app.extensions["keltis"].broadcaster.stop()


def test_a_question_of_the_real_tracker_is_in_the_state_and_a_one_tap_took_answer_decides(tmp_path):
    """The page's API over the real tracker: two seats' reaches between two readings and the red 3 gone from its
    discard pile — /api/state carries the question (kind "draw", one answer per seat) and the page's one-tap
    answer, POST /api/corrections {"kind": "took", ...}, gives the draw to that seat and clears the question."""
    from webui_replay import tied_draw_tracker

    tracker = tied_draw_tracker()
    app = create_app(tracker, pin=PIN, config=WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05, data_dir=tmp_path))
    try:
        client = app.test_client()
        questions = client.get("/api/state").get_json()["questions"]
        assert [(q["pile"], q["card"], q["kind"]) for q in questions] == [("red", "3", "draw")]
        assert sorted(a["seat"] for a in questions[0]["answers"]) == ["north", "west"]
        def taker(moves):
            return [m["seat"] for m in moves if "drew a red 3" in m["text"]]
        took = taker(tracker.snapshot()["moves"])
        assert took in (["west"], ["north"])
        other = "north" if took == ["west"] else "west"
        resp = client.post("/api/corrections", json={"kind": "took", "pile": "red", "card": "3", "seat": other},
                           headers={"X-Keltis-PIN": PIN})
        assert resp.status_code == 200, resp.get_json()
        body = resp.get_json()
        assert body["questions"] == [] and taker(body["moves"]) == [other]
        assert [m["seat"] for m in body["moves"]] == ["south", "west", "north"]
    finally:
        app.extensions["keltis"].broadcaster.stop()
