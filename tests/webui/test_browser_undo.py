"""Undo asks first, and an undone move does not come back while the table still shows it: the page
says what the table shows and offers "Keep the move" or "I took it back". The real GameTracker on a
replayed session behind a real server, headless chromium at 360 px."""
from __future__ import annotations

import pytest

from browser_support import sync_api
from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import LiveServer
from webui_replay import SteppedReplay, write_replay_session

playwright_api = sync_api()
expect = playwright_api.expect
PIN = "2468"


@pytest.fixture(scope="module")
def session_folder(tmp_path_factory):
    return write_replay_session(tmp_path_factory.mktemp("replay") / "session")


@pytest.fixture
def replay(session_folder, tmp_path):
    r = SteppedReplay(session_folder, tmp_path)
    yield r
    r.close()


@pytest.fixture
def server(replay, tmp_path):
    app = create_app(replay.tracker, pipeline=replay.pipeline, pin=PIN,
                     config=WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05, data_dir=tmp_path))
    s = LiveServer(app)
    yield s
    app.extensions["keltis"].broadcaster.stop()
    s.close()


def still_table(replay, table, seconds: float = 4.0):
    """The camera goes on seeing `table` (the move still on it) after the frames fed so far."""
    t = getattr(replay.frames[replay.position - 1], "t", None) or 0.0
    replay.clock = max(getattr(replay, "clock", 0.0), t)
    for k in range(1, int(seconds / 0.25)):
        replay.tracker.feed(table, replay.clock + k * 0.25, 10_000 + k)
    replay.clock += seconds


@pytest.mark.parametrize("choice", ["keep", "back"])
def test_undo_asks_and_a_still_shown_move_waits_for_the_players(browser, server, replay, choice):
    snap = replay.moves(3)
    n = len(snap["moves"])
    table = replay.tracker.decoded.model.table  # what the table shows: the last move on it
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    page = ctx.new_page()
    try:
        page.goto(server.url + "/table/login?next=/table/fix")
        page.fill("input[name=pin]", PIN)
        page.locator("form button[type=submit]").first.click()
        page.wait_for_url(server.url + "/table/fix")
        assert page.locator("#undo-yes").is_hidden()  # one tap is not enough: it asks first
        page.locator("#undo summary").click()
        question = page.locator("#undo-question").inner_text()
        assert f"Undo move {n}" in question and "?" in question
        page.locator("#undo-yes").click()
        page.wait_for_url(server.url + "/table/fix")
        assert len(replay.tracker.snapshot()["moves"]) == n - 1
        still_table(replay, table)  # the table still shows the move
        held = replay.tracker.snapshot()
        assert len(held["moves"]) == n - 1 and held["disputed"]["seen"]
        page.goto(server.url + "/")
        banner = page.locator("#disputed")
        expect(banner).to_be_visible(timeout=5_000)
        assert f"Move {n} was undone, but the table still shows it" in banner.inner_text()
        page.locator("#disputed-keep" if choice == "keep" else "#disputed-back").click()
        expect(banner).to_be_hidden(timeout=5_000)
        if choice == "keep":
            expect(page.locator("#history li.move")).to_have_count(n, timeout=5_000)
            assert len(replay.tracker.snapshot()["moves"]) == n
        else:
            still_table(replay, table)
            assert len(replay.tracker.snapshot()["moves"]) == n - 1
            expect(page.locator("#history li.move")).to_have_count(n - 1)
    finally:
        ctx.close()
