"""Server-Sent Events: a snapshot on connect, changes with increasing ids, resume by Last-Event-ID."""
from __future__ import annotations

import time

import pytest

from webui.broadcast import apply_patch
from webui.config import WebConfig
from webui_fakes import sse_messages, start_game


def open_stream(client, **kw):
    resp = client.get("/api/stream", buffered=False, **kw)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/event-stream"
    return resp


def first_event(resp):
    return next(m for m in sse_messages(resp) if "event" in m)


def wait_published(app, tracker, timeout=5.0):
    """Until the broadcaster has caught up with the tracker's newest event."""
    broadcaster = app.extensions["keltis"].broadcaster
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if broadcaster.current()[1] == tracker.snapshot()["event_id"]:
            return
        time.sleep(0.01)
    raise AssertionError("the broadcaster did not catch up")


def page_snapshot(client):
    """The tracker's snapshot as every phone gets it (warnings in words, the current ones named)."""
    return client.application.extensions["keltis"].broadcaster.snapshot()


def test_connect_gets_a_full_snapshot(client, tracker):
    start_game(tracker)
    tracker.play("south", "Anna laid red 3", {"south": 3})
    resp = open_stream(client)
    try:
        msg = first_event(resp)
    finally:
        resp.close()
    assert msg["event"] == "snapshot"
    assert int(msg["id"]) == tracker.snapshot()["event_id"]
    # the tracker's snapshot, plus which warnings a phone joining now must see (none here)
    assert msg["data"] == {**tracker.snapshot(), "current_warnings": []}
    assert msg["data"] == page_snapshot(client)


def test_the_first_message_carries_the_current_warnings_in_words(client, tracker):
    start_game(tracker)
    tracker.play("south", "Anna laid red 4 and blue 7", {}, [
        {"code": "two-cards", "message": "south (black) laid 2 cards", "details": {"cards": [["red", "4"], ["blue", "7"]]}}])
    resp = open_stream(client)
    try:
        msg = first_event(resp)
    finally:
        resp.close()
    assert msg["event"] == "snapshot"
    assert msg["data"]["current_warnings"] == [1]
    assert msg["data"]["warnings"][0]["text"]["en"] == "Anna laid 2 cards this turn: red 4 and blue 7"
    assert msg["data"]["warnings"][0]["text"]["it"] == "Anna ha posato 2 carte in questo turno: il 4 rosso e il 7 blu"
    tracker.play("west", "Ben laid green 3", {})
    assert page_snapshot(client)["current_warnings"] == []  # the next move: history, no banner for newcomers


def test_a_move_arrives_as_a_change_that_patches_the_snapshot(client, tracker):
    start_game(tracker)
    resp = open_stream(client)
    try:
        stream = sse_messages(resp)
        snap = next(m for m in stream if m.get("event") == "snapshot")
        tracker.play("south", "Anna laid red 3", {"south": 3},
                     [{"code": "row-order", "message": "red row is ascending: a 2 cannot follow the 3"}])
        change = next(m for m in stream if m.get("event") == "change")
    finally:
        resp.close()
    assert int(change["id"]) > int(snap["id"])
    assert change["data"]["event_id"] == int(change["id"])
    assert change["data"]["after_id"] == int(snap["id"])
    assert [e["type"] for e in change["data"]["events"]] == ["move", "warning", "score"]
    patch = change["data"]["patch"]
    assert patch["append"]["moves"][0]["text"] == "Anna laid red 3"  # appended, not the whole list again
    assert patch["append"]["warnings"][0]["code"] == "row-order"
    assert apply_patch(snap["data"], patch) == page_snapshot(client)


def test_the_frames_the_tracker_stores_are_not_echoed_to_the_pages(client, tracker):
    """The frames fed to the decoder are stored as events ("frames", large): no page reads them, so a
    change echoes the moves, warnings and scores they caused, never the frames."""
    from engine.observation import Observation

    start_game(tracker)
    resp = open_stream(client)
    try:
        stream = sse_messages(resp)
        next(m for m in stream if m.get("event") == "snapshot")
        tracker.feed(Observation("keltis", "base", False, "occluded"), 1.0, 5)
        tracker.play("south", "Anna laid red 3", {"south": 3})
        echoed = []
        for m in stream:
            if m.get("event") == "change":
                echoed += [e["type"] for e in m["data"]["events"]]
                if "move" in echoed:
                    break
    finally:
        resp.close()
    assert "frames" in [e.type for e in tracker.wait(0, 0)]   # (stored ...)
    assert echoed == ["move", "score"]                          # (... but not echoed)


def test_ids_strictly_increase_over_many_changes(client, tracker):
    start_game(tracker)
    resp = open_stream(client)
    ids = []
    try:
        stream = sse_messages(resp, timeout=10)
        ids.append(int(next(m for m in stream if m.get("event") == "snapshot")["id"]))
        state = None
        for i in range(6):
            tracker.play(("south", "west", "north")[i % 3], f"move {i}", {"south": i})
            msg = next(m for m in stream if m.get("event") == "change")
            ids.append(int(msg["id"]))
    finally:
        resp.close()
    assert ids == sorted(set(ids))


@pytest.mark.parametrize("how", ["header", "query"])
def test_resume_by_last_event_id_sends_only_what_was_missed(app, client, tracker, how):
    start_game(tracker)
    resp = open_stream(client)
    try:
        snap = first_event(resp)
    finally:
        resp.close()
    assert snap["event"] == "snapshot"
    tracker.play("south", "missed one", {"south": 2})
    tracker.play("west", "missed two", {"west": 4})
    wait_published(app, tracker)
    kw = {"headers": {"Last-Event-ID": snap["id"]}} if how == "header" else {"query_string": {"last_event_id": snap["id"]}}
    resp = open_stream(client, **kw)
    state, changes = snap["data"], []
    try:
        for msg in sse_messages(resp, until=lambda m: m.get("id") == str(tracker.snapshot()["event_id"])):
            assert msg.get("event") != "snapshot", "a resumed stream must not start over"
            if msg.get("event") == "change":
                changes.append(msg)
                state = apply_patch(state, msg["data"]["patch"])
    finally:
        resp.close()
    assert changes and changes[0]["data"]["after_id"] == int(snap["id"])
    assert [m["text"] for m in state["moves"]] == ["missed one", "missed two"]
    assert state == page_snapshot(client)


def test_resume_when_nothing_was_missed_waits_for_the_next_change(app, client, tracker):
    start_game(tracker)
    wait_published(app, tracker)
    last = tracker.snapshot()["event_id"]
    resp = open_stream(client, headers={"Last-Event-ID": str(last)})
    try:
        stream = sse_messages(resp)
        first = next(stream)
        assert "retry" in first
        tracker.play("south", "after resume", {"south": 1})
        msg = next(m for m in stream if "event" in m)
    finally:
        resp.close()
    assert msg["event"] == "change" and msg["data"]["after_id"] == last


def test_unknown_last_event_id_gets_a_fresh_snapshot(client, tracker):
    start_game(tracker)
    resp = open_stream(client, headers={"Last-Event-ID": "999999"})
    try:
        msg = first_event(resp)
    finally:
        resp.close()
    assert msg["event"] == "snapshot" and msg["data"] == page_snapshot(client)


@pytest.mark.parametrize("bad", ["abc", "-4", "1.5", "9" * 30])
def test_malformed_last_event_id_is_400(client, bad):
    resp = client.get("/api/stream", headers={"Last-Event-ID": bad})
    assert resp.status_code == 400
    assert "Last-Event-ID" in resp.get_json()["error"]


def test_idle_stream_sends_heartbeats(client, tracker):
    start_game(tracker)
    resp = open_stream(client)
    try:
        msg = next(m for m in sse_messages(resp, timeout=3) if "comment" in m)
    finally:
        resp.close()
    assert msg["comment"].startswith("ping")


def test_new_game_replaces_the_game_and_the_move_list(app, client, tracker):
    start_game(tracker)
    tracker.play("south", "old game move", {"south": 5})
    resp = open_stream(client)
    try:
        stream = sse_messages(resp)
        snap = next(m for m in stream if m.get("event") == "snapshot")
        start_game(tracker, players=2)
        msg = next(m for m in stream if m.get("event") == "change")
    finally:
        resp.close()
    state = apply_patch(snap["data"], msg["data"]["patch"])
    assert state["moves"] == [] and set(state["game"]["seats"]) == {"south", "west"}
    assert state == page_snapshot(client)


@pytest.fixture
def config():
    return WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05, max_streams=2, table_stream_reserve=0)


def test_streams_beyond_the_limit_get_503_and_slots_come_back(app, client, tracker):
    start_game(tracker)
    a, b = open_stream(client), open_stream(client)
    assert app.extensions["keltis"].open_streams == 2
    refused = client.get("/api/stream")
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert "polling" in refused.get_json()["error"]
    a.close()
    b.close()
    assert app.extensions["keltis"].open_streams == 0
    c = open_stream(client)
    c.close()


def test_camera_trouble_reaches_open_pages_and_new_ones(tracker):
    from types import SimpleNamespace

    from webui.app import create_app

    status = {"state": "running", "source": {"state": "running", "error": None}}
    pipeline = SimpleNamespace(status=lambda: status, latest_frame=lambda: None)
    start_game(tracker)
    app = create_app(tracker, pipeline=pipeline, pin="1234",
                     config=WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05))
    broadcaster = app.extensions["keltis"].broadcaster
    broadcaster._status_seconds = 0.05
    try:
        client = app.test_client()
        resp = open_stream(client)
        try:
            stream = sse_messages(resp)
            next(m for m in stream if m.get("event") == "snapshot")
            status = {"state": "running", "source": {"state": "lost", "error": "camera unplugged"}}
            msg = next(m for m in stream if m.get("event") == "status" and m["data"]["camera"] == "lost")
        finally:
            resp.close()
        assert "id" not in msg and msg["data"]["error"] == "camera unplugged"
        resp = open_stream(client)
        try:
            got = [m for m in sse_messages(resp, until=lambda m: m.get("event") == "status")]
        finally:
            resp.close()
        assert got[-1]["data"]["camera"] == "lost"
    finally:
        broadcaster.stop()
