"""The phone page in a real browser (headless Debian chromium via Playwright) at a phone viewport,
against a real threaded server. The game is driven through the tracker contract (fake tracker).
"""
from __future__ import annotations

import re

import pytest

from browser_support import PHONE, sync_api
from engine.observation import parse_observation
from webui.config import WebConfig
from webui_fakes import PIN, start_game

playwright_api = sync_api()
expect = playwright_api.expect

OBS = {"format": "keltis-observation/1", "game": "keltis", "board": "base",
       "pawns": [{"stone": "r3", "player": "black", "big": True}], "tiles": {"r2": "clover"},
       "seats": {"south": {"player": "black", "rows": {"red": ["3", "5"]}},
                 "west": {"player": "white", "rows": {}}, "north": {"player": "grey", "rows": {}}}}
# Records vibration requests (headless chromium has no motor) and marks the page, to detect reloads.
INIT = "window.__vibrations = []; navigator.vibrate = function (p) { window.__vibrations.push(p); return true; };"


@pytest.fixture
def config():
    # Streams end every 3 s so the browser's automatic reconnect (Last-Event-ID) is exercised too.
    return WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05, stream_max_seconds=3.0)


@pytest.fixture
def page(browser, live_server):
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    ctx.add_init_script(INIT)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()


def total(page, seat: str) -> str:
    return page.locator(f'.score[data-seat="{seat}"] .total').inner_text()


def open_live(page, server):
    page.goto(server.url + "/")
    page.wait_for_selector("#conn[data-state=live]", timeout=10_000)
    page.evaluate("window.__marker = 'no reload'")


def test_page_shows_the_scores(page, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    tracker.play("south", "Anna laid red 5 and moved her big pawn", {"south": 6})
    tracker.play("west", "Ben discarded blue 3", {})
    open_live(page, live_server)
    assert total(page, "south") == "6" and total(page, "west") == "0"
    assert page.locator('.score[data-seat="south"] .name').inner_text() == "Anna"
    assert "Chiara to play" in page.locator("#turn").inner_text()
    assert page.locator("#history li").count() == 2
    assert page.locator("#chart svg polyline").count() == 3
    assert page.locator("#board-fig").is_visible()
    assert "truth observer" in page.locator("#source-note").inner_text()
    assert not page.errors


def test_a_pushed_move_updates_the_page_without_reload(page, live_server, tracker):
    start_game(tracker)
    open_live(page, live_server)
    assert total(page, "south") == "0"
    tracker.play("south", "Anna laid green 7 and moved to green 3", {"south": 4})
    expect(page.locator('.score[data-seat="south"] .total')).to_have_text("4", timeout=5_000)
    assert page.locator("#history li").first.inner_text().endswith("Anna laid green 7 and moved to green 3")
    assert "Ben to play" in page.locator("#turn").inner_text()
    assert page.evaluate("window.__marker") == "no reload"
    assert not page.errors


def test_a_warning_appears_as_it_happens(page, live_server, tracker):
    start_game(tracker)
    open_live(page, live_server)
    assert page.locator("#banner").is_hidden()
    tracker.play("south", "Anna laid blue 8 on blue 7", {"south": 1},
                 [{"code": "row-order", "message": "blue row is descending: an 8 cannot follow the 7",
                   "details": {"colour": "blue", "card": "8", "direction": "descending"}}])
    banner = page.locator("#banner")
    banner.wait_for(state="visible", timeout=5_000)
    assert "Card out of order" in banner.inner_text()
    assert "Anna laid blue 8 out of order in the blue row" in banner.inner_text()
    assert "row-order" not in banner.inner_text()
    assert page.evaluate("window.__vibrations.length") == 1
    assert page.locator("#warnings li.warning").count() == 1
    assert page.locator("#history li.illegal").count() == 1
    page.locator("#banner-close").click()
    assert banner.is_hidden()
    assert page.evaluate("window.__marker") == "no reload"


def test_changes_during_a_dropped_connection_arrive_after_reconnect(page, live_server, tracker):
    start_game(tracker)
    open_live(page, live_server)
    # the server ends every stream after 3 s; moves made around then must still all arrive
    for i in range(4):
        page.wait_for_timeout(900)
        tracker.play(("south", "west", "north")[i % 3], f"move {i + 1}", {"south": 1})
    expect(page.locator("#history li.move")).to_have_count(4, timeout=8_000)
    assert total(page, "south") == "4"
    assert page.evaluate("window.__marker") == "no reload"
    snapshots = page.evaluate("window.keltis.lastId()")
    assert snapshots == tracker.snapshot()["event_id"]


def test_the_game_end_shows_the_winners(page, live_server, tracker):
    start_game(tracker)
    tracker.play("south", "m1", {"south": 3})
    tracker.play("west", "m2", {"west": 9})
    open_live(page, live_server)
    assert page.locator("#result").is_hidden()
    tracker.correct({"kind": "end"})
    page.locator("#result").wait_for(state="visible", timeout=5_000)
    text = page.locator("#result").inner_text()
    assert "Winner: Ben" in text
    assert re.search(r"1\.\s*Ben\s*9", text)


def test_the_page_fits_a_320px_phone(browser, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    tracker.play("south", "Anna laid a very long card name that should wrap nicely on a narrow phone", {"south": 2})
    ctx = browser.new_context(viewport={"width": 320, "height": 640})
    try:
        pg = ctx.new_page()
        pg.goto(live_server.url + "/")
        pg.wait_for_selector("#conn[data-state=live]")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 320
    finally:
        ctx.close()


def test_italian_phone_gets_the_italian_page(browser, live_server, tracker):
    start_game(tracker)
    ctx = browser.new_context(viewport=PHONE, locale="it-IT")
    try:
        pg = ctx.new_page()
        pg.goto(live_server.url + "/")
        assert pg.locator("#history-h").inner_text() == "Cosa è successo"
        assert "Tocca a Anna" in pg.locator("#turn").inner_text()
        pg.locator(".langs a[lang=ja]").click()
        pg.wait_for_load_state()
        assert pg.locator("#history-h").inner_text() == "これまでの経過"
    finally:
        ctx.close()


def test_the_pin_protects_the_table_screens(page, live_server, tracker):
    start_game(tracker)
    page.goto(live_server.url + "/table/new")
    assert "/table/login" in page.url
    page.fill("#pin", "000000")
    page.click("button[type=submit]")
    assert "Wrong PIN" in page.inner_text("main")
    assert tracker.calls[-1][0] == "new_game" and len(tracker.calls) == 1
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    assert page.url.endswith("/table/new")
    # a new game for two players on the card game, started from the form
    page.check("input[name=game][value=keltis-card]")
    page.select_option("select[name=colour_south]", "brown")
    page.fill("input[name=name_south]", "Elena")
    page.select_option("select[name=colour_west]", "")
    page.select_option("select[name=colour_north]", "white")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#conn[data-state=live]")
    assert page.url == live_server.url + "/"
    kind, setup = tracker.calls[-1]
    assert kind == "new_game" and setup["game"] == "keltis-card" and setup["board"] is None
    assert setup["seats"] == {"south": "brown", "north": "white"}
    assert setup["names"] == {"south": "Elena", "north": "Chiara"}  # the form starts from the current game
    assert page.locator('.score[data-seat="south"] .name').inner_text() == "Elena"


def test_the_setup_screen_qr_code_scans_to_the_page(browser, live_server, tracker):
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    ctx = browser.new_context(viewport=PHONE)
    try:
        pg = ctx.new_page()
        pg.goto(live_server.url + "/table/login")
        pg.fill("#pin", PIN)
        pg.click("button[type=submit]")
        png = pg.locator(".qr-box svg").screenshot()
        address = pg.locator(".address").inner_text()
    finally:
        ctx.close()
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == address and re.fullmatch(r"http://[\d.]+:\d+/", text)


def test_a_lost_camera_shows_on_the_page(browser, tracker):
    from types import SimpleNamespace

    from webui.app import create_app
    from webui_fakes import LiveServer

    status = {"state": "running", "source": {"state": "running", "error": None}}
    pipeline = SimpleNamespace(status=lambda: status, latest_frame=lambda: None)
    start_game(tracker)
    app = create_app(tracker, pipeline=pipeline, pin=PIN, config=WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05))
    app.extensions["keltis"].broadcaster._status_seconds = 0.1
    server = LiveServer(app)
    ctx = browser.new_context(viewport=PHONE)
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("#conn[data-state=live]")
        expect(page.locator("#status")).not_to_contain_text("camera lost")
        status = {"state": "running", "source": {"state": "lost", "error": "no frame for 3 s"}}
        expect(page.locator("#status")).to_contain_text("camera lost", timeout=5_000)
        assert "alert" in page.locator("#status").get_attribute("class")
        status = {"state": "running", "source": {"state": "running", "error": None}}
        expect(page.locator("#status")).not_to_contain_text("camera lost", timeout=5_000)
    finally:
        ctx.close()
        server.close()
