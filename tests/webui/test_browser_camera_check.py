"""The camera check speaks to people: on the bundled demo (640x360 frames, replayed at its own pace)
the table screen's camera check is a checklist — camera found, focus, exposure, markers seen, board
registered, seats found — each line ticked or crossed, a crossed one saying what to do, and the
demo's board registers (before: "NOT registered" on every frame)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from browser_support import sync_api
from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import LiveServer

playwright_api = sync_api()
expect = playwright_api.expect
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "demo"
PIN = "246813"
KEYS = ["camera", "focus", "exposure", "markers", "board", "resolution", "seats"]


@pytest.fixture
def demo_server(tmp_path):
    from keltis_cam.pipeline import build_pipeline

    # the check looks at the camera's frames whoever reads them: the truth observer keeps this test light
    built = build_pipeline(f"replay:{DEMO}", observer="truth", speed=2.0, data_dir=tmp_path / "data")
    pipeline = built.served(loop=True)
    app = create_app(built.tracker, pipeline=pipeline, pin=PIN,
                     config=WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05, data_dir=tmp_path / "data",
                                      calibration_file=DEMO / "calibration.json"))
    server = LiveServer(app)
    pipeline.start()
    yield server
    app.extensions["keltis"].broadcaster.stop()
    pipeline.stop()
    server.close()
    built.close()


@pytest.mark.parametrize("locale, registered", [("en-GB", "Board registered"), ("it-IT", "Tabellone registrato")])
def test_the_demos_camera_check_is_a_checklist_with_a_registered_board(browser, demo_server, locale, registered):
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, locale=locale)
    page = ctx.new_page()
    try:
        page.goto(demo_server.url + "/table/calibration")
        page.fill("input[name=pin]", PIN)
        page.locator("form button[type=submit]").first.click()
        checklist = page.locator("#checklist")
        expect(checklist).to_be_visible(timeout=10_000)
        # the list follows the live picture: wait for a frame whose board registers
        board = checklist.locator('li[data-key="board"]')
        expect(board).to_have_class("check ok", timeout=20_000)
        assert registered in board.inner_text()
        assert [li.get_attribute("data-key") for li in checklist.locator("li").all()] == KEYS
        assert checklist.locator('li[data-key="camera"]').get_attribute("class") == "check ok"
        for key in ("focus", "exposure", "seats"):  # a well-lit, sharp simulated table with every seat in view
            assert checklist.locator(f'li[data-key="{key}"]').get_attribute("class") == "check ok", key
        markers = checklist.locator('li[data-key="markers"]').inner_text()
        assert ("of 4 seen" in markers) if locale == "en-GB" else ("su 4 visti" in markers)
        # every crossed line says what to do; no ticked one does
        for li in checklist.locator("li").all():
            failed = li.get_attribute("class") == "check fail"
            assert (li.locator(".todo").count() == 1) == failed, li.inner_text()
        shots = os.environ.get("KELTIS_SCREENSHOTS")  # `KELTIS_SCREENSHOTS=docs/img pytest ...`
        if shots and locale == "en-GB":
            page.screenshot(path=str(Path(shots) / "phone-camera-check.png"), full_page=True)
        assert "NOT registered" not in page.content()
        assert "pipeline" not in checklist.inner_text() and "{" not in checklist.inner_text()
    finally:
        ctx.close()
