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
        buttons = box.locator(".q-answer")       # the two seats it hesitates between (session 35: and "someone
        expect(buttons).to_have_count(2)         # else" with the third seat, "don't know")
        assert all(box.locator("button").nth(i).is_disabled() for i in range(5))   # a player's phone cannot decide
        assert "Only the table (with the PIN) can correct" in box.inner_text()

        tpage = table.new_page()
        tpage.goto(server.url + "/table/login?next=/")
        tpage.fill("input[name=pin]", PIN)
        tpage.locator("form button[type=submit]").first.click()
        tpage.wait_for_url(server.url + "/")
        tbox = tpage.locator("#questions")
        expect(tbox).to_be_visible(timeout=5_000)
        seat_names = [tbox.locator(".q-answer").nth(i).inner_text() for i in range(2)]
        pick = next(i for i, name in enumerate(seat_names) if name.startswith(other))   # "north (grey)"
        tbox.locator(".q-answer").nth(pick).click()
        expect(tbox).to_be_hidden(timeout=5_000)
        assert drew_red_3(server.tracker) == [other]
        expect(box).to_be_hidden(timeout=5_000)      # every phone's question goes away with the answer
    finally:
        phone.close()
        table.close()


@pytest.fixture
def four_server(tmp_path):
    """West, north and east reached, the red 3 gone: the question offers west and north; east is behind
    "someone else" (a reading holds it), south too (no reading: refused)."""
    tracker = tied_draw_tracker(four=True)
    app = create_app(tracker, pin=PIN, config=WebConfig(heartbeat_seconds=0.5, poll_seconds=0.05, data_dir=tmp_path))
    s = LiveServer(app)
    s.tracker = tracker
    yield s
    app.extensions["keltis"].broadcaster.stop()
    s.close()


def _table_page(browser, server):
    table = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    tpage = table.new_page()
    tpage.goto(server.url + "/table/login?next=/")
    tpage.fill("input[name=pin]", PIN)
    tpage.locator("form button[type=submit]").first.click()
    tpage.wait_for_url(server.url + "/")
    return table, tpage


def test_someone_else_offers_the_other_seats_a_refused_one_keeps_the_question_and_another_answers_it(
        browser, four_server):
    server = four_server
    phone = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    table = None
    try:
        page = phone.new_page()
        page.goto(server.url + "/")
        box = page.locator("#questions")
        expect(box).to_be_visible(timeout=5_000)
        assert box.locator(".q-someone-else").is_disabled() and box.locator(".q-dismiss").is_disabled()

        table, tpage = _table_page(browser, server)
        tbox = tpage.locator("#questions")
        expect(tbox).to_be_visible(timeout=5_000)
        expect(tbox.locator(".q-answer")).to_have_count(2)
        others = tbox.locator(".q-others")
        expect(others).to_be_hidden()
        tbox.locator(".q-someone-else").click()                   # "Someone else…"
        expect(others).to_be_visible()
        assert [others.locator("button").nth(i).get_attribute("data-seat") for i in range(2)] == ["south", "east"]
        box_h = tbox.locator(".q-answer").first.bounding_box()["height"]
        assert box_h >= 44                                        # a thumb's tap target
        others.locator("button[data-seat=south]").click()         # no reading lets south have taken it
        expect(tbox.locator("[role=status]")).to_contain_text("south (black)", timeout=5_000)
        expect(tbox).to_be_visible()
        others.locator("button[data-seat=east]").click()
        expect(tbox).to_be_hidden(timeout=5_000)
        expect(box).to_be_hidden(timeout=5_000)                   # every phone's question goes
        assert drew_red_3(server.tracker) == ["east"]
    finally:
        phone.close()
        if table is not None:
            table.close()


def test_dont_know_dismisses_the_question_on_every_phone_and_the_reading_stays(browser, server):
    took = drew_red_3(server.tracker)
    phone = browser.new_context(viewport={"width": 360, "height": 780}, locale="it-IT")
    table = None
    try:
        page = phone.new_page()
        page.goto(server.url + "/")
        box = page.locator("#questions")
        expect(box).to_be_visible(timeout=5_000)
        assert "Non lo so" in box.locator(".q-dismiss").inner_text()   # the page's language
        table, tpage = _table_page(browser, server)
        tbox = tpage.locator("#questions")
        expect(tbox).to_be_visible(timeout=5_000)
        tbox.locator(".q-dismiss").click()                          # "Don't know — dismiss"
        expect(tbox).to_be_hidden(timeout=5_000)
        expect(box).to_be_hidden(timeout=5_000)
        assert drew_red_3(server.tracker) == took
        assert server.tracker.snapshot()["questions"] == []
    finally:
        phone.close()
        if table is not None:
            table.close()
