"""The decoder's question on a phone: "who took the red 3 from its discard pile?" with one button per seat that
could have taken it; a player's phone sees it but cannot decide, the table screen decides with one tap and the
question goes away (issue 17 item 2). The real tracker behind a real server, headless chromium at 360 px."""
from __future__ import annotations

import pytest

from browser_support import sync_api
from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import LiveServer
from webui_replay import tied_draw_tracker

playwright_api = sync_api()
expect = playwright_api.expect
PIN = "2468"


@pytest.fixture
def server(tmp_path):
    tracker = tied_draw_tracker()
    app = create_app(tracker, pin=PIN, config=WebConfig(heartbeat_seconds=0.5, poll_seconds=0.05, data_dir=tmp_path))
    s = LiveServer(app)
    s.tracker = tracker
    yield s
    app.extensions["keltis"].broadcaster.stop()
    s.close()


def drew_red_3(tracker):
    return [m["seat"] for m in tracker.snapshot()["moves"] if "drew a red 3" in m["text"]]


def test_a_phone_sees_who_took_question_and_the_table_answers_it_with_one_tap(browser, server):
    took = drew_red_3(server.tracker)
    assert took in (["west"], ["north"])           # the decoder's guess, shown but asked about
    other = "north" if took == ["west"] else "west"
    phone = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    table = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    try:
        page = phone.new_page()
        page.goto(server.url + "/")
        box = page.locator("#questions")
        expect(box).to_be_visible(timeout=5_000)
        assert "who took the red 3 from its discard pile?" in box.inner_text()
        buttons = box.locator("button")
        expect(buttons).to_have_count(2)
        assert all(buttons.nth(i).is_disabled() for i in range(2))   # a player's phone cannot decide
        assert "Only the table (with the PIN) can correct" in box.inner_text()

        tpage = table.new_page()
        tpage.goto(server.url + "/table/login?next=/")
        tpage.fill("input[name=pin]", PIN)
        tpage.locator("form button[type=submit]").first.click()
        tpage.wait_for_url(server.url + "/")
        tbox = tpage.locator("#questions")
        expect(tbox).to_be_visible(timeout=5_000)
        seat_names = [tbox.locator("button").nth(i).inner_text() for i in range(2)]
        pick = next(i for i, name in enumerate(seat_names) if name.startswith(other))   # "north (grey)"
        tbox.locator("button").nth(pick).click()
        expect(tbox).to_be_hidden(timeout=5_000)
        assert drew_red_3(server.tracker) == [other]
        expect(box).to_be_hidden(timeout=5_000)      # every phone's question goes away with the answer
    finally:
        phone.close()
        table.close()
