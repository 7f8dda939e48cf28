"""Fair sharing of the event streams: a cap per client address, said in the response, and a slot
kept for the table screen (issue 18 item 10)."""
from __future__ import annotations

import pytest

from webui.config import WebConfig
from webui_fakes import login, start_game


@pytest.fixture
def config():
    return WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05, max_streams=5, max_streams_per_address=2,
                     table_stream_reserve=1)


def from_address(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def stream(client):
    return client.get("/api/stream", buffered=False)


def test_one_address_gets_at_most_its_share_and_is_told_why(app, tracker):
    start_game(tracker)
    phone = from_address(app, "10.0.0.7")
    held = [stream(phone), stream(phone)]
    try:
        assert all(r.status_code == 200 for r in held)
        refused = stream(phone)
        assert refused.status_code == 429 and refused.headers["Retry-After"]
        reason = refused.get_json()["error"]
        assert "at most 2 live connections per address" in reason and "10.0.0.7" in reason
        other = stream(from_address(app, "10.0.0.8"))  # another phone is not affected
        assert other.status_code == 200
        other.close()
    finally:
        for r in held:
            r.close()
    again = stream(phone)  # closed streams give their slots back
    assert again.status_code == 200
    again.close()


def test_the_table_screen_always_gets_a_slot(app, tracker):
    start_game(tracker)
    held = []
    try:
        for i in range(4):  # 5 slots, 1 kept for the table: four phones fill the viewers' share
            r = stream(from_address(app, f"10.0.1.{i}"))
            assert r.status_code == 200
            held.append(r)
        late = stream(from_address(app, "10.0.1.99"))
        assert late.status_code == 503 and "live connections for viewers are taken" in late.get_json()["error"]
        table = from_address(app, "10.0.1.0")  # even from an address that already holds a stream
        login(table)
        mine = stream(table)
        assert mine.status_code == 200 and mine.mimetype == "text/event-stream"
        held.append(mine)
        assert app.extensions["keltis"].stream_slots.in_use == 5
    finally:
        for r in held:
            r.close()
    assert app.extensions["keltis"].stream_slots.in_use == 0


def test_the_table_is_not_held_to_the_per_address_cap(app, tracker):
    start_game(tracker)
    table = from_address(app, "10.0.2.1")
    login(table)
    held = [stream(table) for _ in range(3)]
    try:
        assert [r.status_code for r in held] == [200, 200, 200]
    finally:
        for r in held:
            r.close()
