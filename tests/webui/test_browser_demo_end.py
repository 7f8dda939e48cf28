"""The bundled demo reaches its end on the phone page: `keltis-cam serve`'s replay of
fixtures/sessions/demo (as fast as it can be read, not looping) plays the whole game to its final
result — the winner, the score table, the score-over-time chart — and then offers to play it again,
which the table screen does (a new run of the recording, a new game)."""
from __future__ import annotations

import os
import time
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


@pytest.fixture
def demo(tmp_path):
    from keltis_cam.pipeline import build_pipeline

    built = build_pipeline(f"replay:{DEMO}", observer="truth", speed=None, data_dir=tmp_path / "data", decode_frames=False)
    pipeline = built.served(loop=False)
    app = create_app(built.tracker, pipeline=pipeline, pin=PIN,
                     config=WebConfig(heartbeat_seconds=1.0, poll_seconds=0.05, data_dir=tmp_path / "data",
                                      source_label="Replay of demo"))
    server = LiveServer(app)
    pipeline.start()
    yield built, pipeline, server
    app.extensions["keltis"].broadcaster.stop()
    pipeline.stop()
    server.close()
    built.close()


def wait_for(what: str, done, timeout: float = 180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = done()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_demo_plays_to_its_result_and_offers_to_play_again(browser, demo):
    built, pipeline, server = demo
    tracker = built.tracker
    wait_for("the end of the recording", lambda: pipeline.status()["serve_state"] == "ended")
    final = tracker.snapshot()
    assert final["game_over"], f"the recording ended after {len(final['moves'])} moves without the game's end"
    assert final["end_reason"] != "recording ended"  # the game itself ended, not the recording
    seats = list(final["game"]["seats"])
    winners = final["scores"]["winners"]
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, locale="en-GB")
    page = ctx.new_page()
    try:
        page.goto(server.url + "/")
        result = page.locator("#result")
        expect(result).to_be_visible(timeout=10_000)
        text = result.inner_text()
        assert "Winner" in text and all(w.capitalize() in text for w in winners)
        expect(result.locator(".ranking li")).to_have_count(len(seats))
        for seat in seats:
            total = str(final["scores"]["scores"][seat]["total"])
            assert total in result.locator(".ranking").inner_text()
        chart = page.locator("#chart svg")  # drawn in the page (inline SVG, no library)
        expect(chart.locator("polyline")).to_have_count(len(seats))
        points = chart.locator("polyline").first.get_attribute("points").split()
        assert len(points) == len(final["score_history"]) >= 20
        shots = os.environ.get("KELTIS_SCREENSHOTS")  # `KELTIS_SCREENSHOTS=docs/img pytest ...`
        if shots:
            page.screenshot(path=str(Path(shots) / "phone-demo-end.png"), full_page=True)
        # ... then it offers to play again: the table screen (PIN) starts a new run of the recording
        page.locator("#play-again").click()
        page.fill("input[name=pin]", PIN)
        page.locator("form button[type=submit]").first.click()
        page.locator("#again-button").click()
        page.wait_for_url(server.url + "/")
        wait_for("a new run", lambda: pipeline.status()["runs"] >= 2)
        again = wait_for("the new run's first move",
                         lambda: (s := tracker.snapshot())["game"]["started"] != final["game"]["started"]
                         and s["moves"] and not s["game_over"] and s)
        assert len(again["moves"]) < len(final["moves"])
        expect(page.locator("#result")).to_be_hidden(timeout=10_000)
    finally:
        ctx.close()
