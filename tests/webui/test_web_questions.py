"""The decoder's question over the API beyond its two seats (session 35, wt35-neither), the real tracker behind the
app's client: the state offers every other seat of the game; an answer naming one is applied when a reading allows
it, refused with 409 naming "seat" (the question kept) when none does; a seat outside the game is 400 naming
"seat", a stale question 409 naming the field; POST /api/questions/dismiss withdraws it for every phone."""
from __future__ import annotations

import pytest

from webui_fakes import PIN, sse_messages
from webui_replay import tied_draw_tracker

PINNED = {"X-Keltis-PIN": PIN}


@pytest.fixture
def tracker():
    """The conftest's app and client over the real tracker: west, north and east reached, the red 3 gone."""
    return tied_draw_tracker(four=True)


def drew_red_3(moves):
    return [m["seat"] for m in moves if "drew a red 3" in m["text"]]


def test_the_state_offers_the_other_seats_and_a_third_seat_answer_is_applied(client):
    q, = client.get("/api/state").get_json()["questions"]
    assert sorted(a["seat"] for a in q["answers"]) == ["north", "west"]
    assert [a["seat"] for a in q["others"]] == ["south", "east"]
    resp = client.post("/api/corrections", headers=PINNED,
                       json={"kind": "took", "pile": "red", "card": "3", "seat": "east", "question": q["id"]})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["questions"] == [] and drew_red_3(resp.get_json()["moves"]) == ["east"]


def test_an_impossible_third_seat_a_seat_outside_the_game_and_a_stale_question_are_refused_naming_the_field(client):
    q, = client.get("/api/state").get_json()["questions"]
    answer = {"kind": "took", "pile": "red", "card": "3", "question": q["id"]}
    resp = client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "south"})
    assert resp.status_code == 409 and resp.get_json()["field"] == "seat"
    assert "south (black)" in resp.get_json()["error"]
    assert client.get("/api/state").get_json()["questions"] == [q]           # kept
    resp = client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "nowhere"})
    assert resp.status_code == 400 and resp.get_json()["field"] == "seat"
    resp = client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "west", "question": 9})
    assert resp.status_code == 409 and resp.get_json()["field"] == "question"
    resp = client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "west", "question": "1"})
    assert resp.status_code == 400 and resp.get_json()["field"] == "question"
    assert client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "west"}).status_code == 200
    resp = client.post("/api/corrections", headers=PINNED, json={**answer, "seat": "north"})   # answered already
    assert resp.status_code == 409 and resp.get_json()["field"] == "question"


def test_a_seat_the_game_does_not_have_is_400_naming_the_seat(tmp_path):
    from webui.app import create_app
    from webui.config import WebConfig

    app = create_app(tied_draw_tracker(), pin=PIN, config=WebConfig(heartbeat_seconds=0.2, data_dir=tmp_path))
    try:
        resp = app.test_client().post("/api/corrections", headers=PINNED,
                                      json={"kind": "took", "pile": "red", "card": "3", "seat": "east"})
        assert resp.status_code == 400 and resp.get_json()["field"] == "seat"
        assert "nobody sits at 'east'" in resp.get_json()["error"]
    finally:
        app.extensions["keltis"].broadcaster.stop()


def test_dismiss_withdraws_the_question_for_every_stream_and_a_second_dismiss_is_409(client, tracker):
    before = client.get("/api/state").get_json()
    q, = before["questions"]
    stream = client.get("/api/stream", buffered=False)
    try:
        body = {"pile": "red", "card": "3", "kind": "draw", "question": q["id"]}
        assert client.post("/api/questions/dismiss", json=body).status_code in (401, 403)   # the PIN is needed
        resp = client.post("/api/questions/dismiss", headers=PINNED, json=body)
        assert resp.status_code == 200, resp.get_json()
        assert resp.get_json()["questions"] == [] and resp.get_json()["moves"] == before["moves"]
        def gone(m):   # (a change whose patch empties the questions)
            return m.get("event") == "change" and (m["data"]["patch"].get("set") or {}).get("questions") == []
        assert any(gone(m) for m in sse_messages(stream, timeout=5, until=gone))
        resp = client.post("/api/questions/dismiss", headers=PINNED, json=body)
        assert resp.status_code == 409 and resp.get_json()["field"] == "question"
        resp = client.post("/api/questions/dismiss", headers=PINNED, json={"pile": "mauve", "card": "3"})
        assert resp.status_code == 400 and resp.get_json()["field"] == "pile"
        resp = client.post("/api/questions/dismiss", headers=PINNED, json={**body, "seat": "west"})
        assert resp.status_code == 400 and resp.get_json()["field"] == "seat"
    finally:
        stream.close()
    assert [e.kind for e in tracker.store.events()][-2:] == ["dismiss", "question"]
