"""Corrections by tapping the board drawing (360 px phone, headless chromium): tap a pawn, pick the
stone it really stands on, confirm; tap a tile, pick the tile that really lies there, confirm. The
page sends the PIN-protected correction; a phone without the table's login is told it needs the PIN."""
from __future__ import annotations

import os
from pathlib import Path


from browser_support import sync_api
from engine.observation import parse_observation
from webui_fakes import PIN, start_game

playwright_api = sync_api()
expect = playwright_api.expect
OBS = {"format": "keltis-observation/1", "game": "keltis", "board": "base",
       "pawns": [{"stone": "r3", "player": "black", "big": True}, {"stone": "b2", "player": "white", "big": False}],
       "tiles": {"r2": "clover"},
       "seats": {"south": {"player": "black", "rows": {"red": ["3", "5"]}},
                 "west": {"player": "white", "rows": {}}, "north": {"player": "grey", "rows": {}}}}


def open_page(browser, live_server, login: bool):
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    page = ctx.new_page()
    if login:
        page.goto(live_server.url + "/table/login?next=/")
        page.fill("input[name=pin]", PIN)
        page.locator("form button[type=submit]").first.click()
        page.wait_for_url(live_server.url + "/")
    else:
        page.goto(live_server.url + "/")
    page.wait_for_selector("#board svg .pawn", timeout=10_000)
    page.wait_for_function("window.fetch && document.querySelector('#board svg')")
    return ctx, page


def corrections(tracker):
    return [c for kind, c in tracker.calls if kind == "correct"]


def test_tap_a_pawn_pick_its_stone_and_confirm(browser, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    ctx, page = open_page(browser, live_server, login=True)
    try:
        page.wait_for_timeout(300)  # the board's stones (their neighbours) arrive with the drawing
        page.locator('#board svg .pawn[data-player="black"]').click()
        sheet = page.locator("#fix-sheet")
        expect(sheet).to_be_visible()
        assert "Anna" in page.locator("#fix-title").inner_text() and "big pawn" in page.locator("#fix-title").inner_text()
        choices = [c.get_attribute("data-value") for c in sheet.locator(".choice").all()]
        assert choices[0] == "r3" and {"r2", "r4", "start"} <= set(choices) and len(choices) <= 6  # a few
        assert page.locator("#fix-confirm").is_disabled()  # nothing changed yet
        sheet.locator('.choice[data-value="r4"]').click()
        shots = os.environ.get("KELTIS_SCREENSHOTS")  # `KELTIS_SCREENSHOTS=docs/img pytest ...`
        if shots:
            page.screenshot(path=str(Path(shots) / "phone-tap-fix.png"))
        page.locator("#fix-confirm").click()
        expect(page.locator("#fix-message")).to_have_text("Corrected: the scores are recomputed.")
        assert corrections(tracker) == [{"kind": "pawn", "player": "black", "from": "r3", "to": "r4", "big": True}]
    finally:
        ctx.close()


def test_tap_a_tile_pick_the_right_one_and_confirm(browser, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    ctx, page = open_page(browser, live_server, login=True)
    try:
        page.locator('#board svg .tile[data-stone="r2"]').click()
        sheet = page.locator("#fix-sheet")
        expect(sheet).to_be_visible()
        assert "clover" in page.locator("#fix-help").inner_text()
        sheet.locator('.choice[data-value="points-2"]').click()
        page.locator("#fix-confirm").click()
        expect(page.locator("#fix-message")).to_have_text("Corrected: the scores are recomputed.")
        assert corrections(tracker) == [{"kind": "tile", "stone": "r2", "tile": "points-2"}]
    finally:
        ctx.close()


def test_a_phone_without_the_pin_is_told_so(browser, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    ctx, page = open_page(browser, live_server, login=False)
    try:
        page.locator('#board svg .tile[data-stone="r2"]').click()
        expect(page.locator("#fix-login")).to_be_visible()
        page.locator('#fix-sheet .choice[data-value="discard"]').click()
        assert page.locator("#fix-confirm").is_disabled()
        assert "PIN" in page.locator("#fix-sheet").inner_text()
        assert corrections(tracker) == []
    finally:
        ctx.close()


def test_tap_a_card_or_a_wish_stone_count_and_confirm(browser, live_server, tracker):
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    ctx, page = open_page(browser, live_server, login=True)
    try:
        page.locator('#rows .cardchip[data-seat="south"][data-colour="red"][data-index="1"]').click()
        sheet = page.locator("#fix-sheet")
        expect(sheet).to_be_visible()
        assert "Anna" in page.locator("#fix-title").inner_text() and "red" in page.locator("#fix-title").inner_text()
        sheet.locator('.choice[data-value="6"]').click()
        page.locator("#fix-confirm").click()
        expect(page.locator("#fix-message")).to_have_text("Corrected: the scores are recomputed.")
        expect(sheet).to_be_hidden(timeout=3_000)
        page.locator('#rows .wishchip[data-seat="west"]').first.click()
        expect(sheet).to_be_visible()
        sheet.locator('.choice[data-value="2"]').click()
        page.locator("#fix-confirm").click()
        expect(page.locator("#fix-message")).to_have_text("Corrected: the scores are recomputed.")
        assert corrections(tracker) == [{"kind": "row", "seat": "south", "colour": "red", "cards": ["3", "6"]},
                                        {"kind": "wish", "seat": "west", "colour": "any", "count": 2}]
    finally:
        ctx.close()
