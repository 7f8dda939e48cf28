"""The phone page on a real replayed session: the tracking's GameTracker, truth observer and
pipeline behind a real threaded server, in headless chromium at a phone viewport (390×844).
"""
from __future__ import annotations

import pytest

from browser_support import PHONE, sync_api
from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import LiveServer
from webui_replay import SteppedReplay, write_replay_session

playwright_api = sync_api()
expect = playwright_api.expect
INIT = "window.__vibrations = []; navigator.vibrate = function (p) { window.__vibrations.push(p); return true; };"


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
    app = create_app(replay.tracker, pipeline=replay.pipeline, pin="2468",
                     config=WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05, data_dir=tmp_path,
                                      source_label="Replay of session"))
    s = LiveServer(app)
    yield s
    s.close()


def open_page(browser, server, locale="en-GB"):
    ctx = browser.new_context(viewport=PHONE, locale=locale)
    ctx.add_init_script(INIT)
    page = ctx.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#conn[data-state=live]", timeout=10_000)
    page.evaluate("window.__marker = 'no reload'")
    return ctx, page


def totals(snapshot):
    return {seat: str(s["total"]) for seat, s in snapshot["scores"]["scores"].items()}


def test_the_page_shows_the_scores_of_a_replayed_session(browser, server, replay):
    snap = replay.moves(2)
    ctx, page = open_page(browser, server)
    try:
        for seat, total in totals(snap).items():
            expect(page.locator(f'.score[data-seat="{seat}"] .total')).to_have_text(total)
        expect(page.locator("#history li.move")).to_have_count(len(snap["moves"]))
        assert page.locator("#board-fig").is_visible()
        assert page.locator("#chart svg polyline").count() == len(snap["game"]["seats"])
        note = page.locator("#source-note").inner_text()
        assert "Replay of session" in note and "truth observer" in note
    finally:
        ctx.close()


def test_a_replayed_move_updates_the_page_without_reload(browser, server, replay):
    replay.moves(2)
    ctx, page = open_page(browser, server)
    try:
        snap = replay.moves(3)
        expect(page.locator("#history li.move")).to_have_count(len(snap["moves"]), timeout=5_000)
        for seat, total in totals(snap).items():
            expect(page.locator(f'.score[data-seat="{seat}"] .total')).to_have_text(total)
        newest = snap["moves"][-1]
        assert page.locator("#history li.move").first.locator(".who").inner_text() == newest["seat"].capitalize()
        assert page.evaluate("window.__marker") == "no reload"
    finally:
        ctx.close()


def test_a_replayed_rule_break_raises_a_warning(browser, server, replay):
    replay.moves(2)
    ctx, page = open_page(browser, server)
    try:
        assert page.locator("#banner").is_hidden()
        snap = replay.step_until(lambda s: any(not w["withdrawn"] for w in s["warnings"]), "a warning")
        warning = next(w for w in snap["warnings"] if not w["withdrawn"])
        banner = page.locator("#banner")
        banner.wait_for(state="visible", timeout=5_000)
        assert warning["code"] == "wrong-colour"
        colour, value = warning["details"]["card"]
        seat = warning["seat"].capitalize()  # no names in this setup: the seat names the player
        text = banner.inner_text()
        assert "Wrong colour" in text and f"{seat} laid {colour} {value} but a pawn went onto" in text
        assert "wrong-colour" not in text and "{" not in text
        assert page.evaluate("window.__vibrations.length") >= 1
        expect(page.locator("#warnings li.warning")).to_have_count(1)
        assert page.evaluate("window.__marker") == "no reload"
    finally:
        ctx.close()


def test_the_story_is_told_in_italian(browser, server, replay):
    replay.moves(3)
    ctx, page = open_page(browser, server, locale="it-IT")
    try:
        expect(page.locator("#history li.move").first.locator(".text")).to_contain_text("ha giocato", timeout=5_000)
        assert page.locator("#history-h").inner_text() == "Cosa è successo"
    finally:
        ctx.close()


@pytest.mark.parametrize("locale, words", [("en-GB", "laid {colour} {value} but a pawn went onto"),
                                           ("it-IT", "ha posato il {value} {colour} ma una pedina")])
def test_a_phone_joining_after_a_warning_sees_it_in_its_language(browser, server, replay, locale, words):
    # a warning still current: about the last move, or raised since it was made (the decoder shows a
    # warning once sure of its move, which may be after the next move began)
    def current(s, w):
        last = s["moves"][-1]
        return not w["withdrawn"] and (w["move_id"] == last["id"] or w["t"] >= last["t"])

    snap = replay.step_until(lambda s: any(current(s, w) for w in s["warnings"]), "a current warning")
    warning = next(w for w in snap["warnings"] if current(snap, w))
    colour, value = warning["details"]["card"]
    if locale.startswith("it"):
        colour = {"red": "rosso", "blue": "blu", "green": "verde", "yellow": "giallo", "pink": "rosa"}[colour]
    ctx, page = open_page(browser, server, locale=locale)  # joins after the warning was raised
    try:
        banner = page.locator("#banner")
        expect(banner).to_be_visible(timeout=5_000)
        text = banner.inner_text()
        assert words.format(colour=colour, value=value) in text
        assert "wrong-colour" not in text and "{" not in text
        assert page.locator("#warnings li.warning").first.locator(".wtext").inner_text().strip() in text
        # closed once, a reload does not raise it again on this phone
        page.locator("#banner-close").click()
        page.reload()
        page.wait_for_selector("#conn[data-state=live]", timeout=10_000)
        page.wait_for_timeout(300)
        assert banner.is_hidden()
    finally:
        ctx.close()
