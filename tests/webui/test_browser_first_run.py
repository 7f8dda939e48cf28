"""First run (issue 18 item 6): with no configuration file, the table screen opens the setup page;
filled in by a person in a real browser (Debian chromium), it starts the game through the setup
checks and the tracker, and writes a configuration file that loads."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

from browser_support import PHONE, sync_api
from keltis_cam.commands.serve import _config_writer
from keltis_cam.config import load_config
from tracking.store import EventStore
from tracking.tracker import GameTracker
from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import PIN, LiveServer

playwright_api = sync_api()


def make_first_run(tmp_path, camera_source):
    """The app as `serve` builds it with no configuration file: a real tracker, and a config writer."""
    config_path = tmp_path / "cfg" / "config.toml"
    tracker = GameTracker(EventStore(":memory:"), observer="vision")
    app = create_app(tracker, pin=PIN, config=WebConfig(poll_seconds=0.05, extra={
        "config_path": str(config_path), "camera_source": camera_source}))
    app.extensions["keltis"].save_setup = _config_writer(config_path, camera_source)
    return LiveServer(app), tracker, config_path


@pytest.fixture
def first_run(tmp_path):
    """First run on a machine with a camera (a Pi camera found when serve started)."""
    server, tracker, config_path = make_first_run(tmp_path, "picamera2")
    yield server, tracker, config_path
    server.close()


@pytest.fixture
def first_run_without_camera(tmp_path):
    server, tracker, config_path = make_first_run(tmp_path, None)
    yield server, tracker, config_path
    server.close()


def log_in_to_setup(page, server):
    page.goto(server.url + "/table/")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/table/setup$"))  # the table screen opens the setup page


def test_the_setup_page_filled_in_starts_the_game_and_writes_the_config(browser, first_run):
    server, tracker, config_path = first_run
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = ctx.new_page()
        log_in_to_setup(page, server)
        assert page.locator("h1").inner_text() == "Set up the table"
        assert PIN in page.locator("#pin").inner_text()
        assert "Camera: picamera2" in page.locator("#camera-source").inner_text()
        pdf = page.request.get(server.url + page.locator("#markers-base").get_attribute("href"))
        assert pdf.status == 200 and pdf.body().startswith(b"%PDF")
        page.check("input[name=game][value=keltis]")
        page.check("input[name=board][value=base]")
        page.select_option("select[name=colour_south]", "black")
        page.fill("input[name=name_south]", "Anna")
        page.select_option("select[name=colour_west]", "white")
        page.fill("input[name=name_west]", "Ben")
        page.select_option("select[name=colour_north]", "grey")
        page.fill("input[name=name_north]", "Chiara")
        page.click("#first-run button[type=submit]")
        page.wait_for_url(server.url + "/")
        assert "Saved in" in page.locator(".flash.ok").inner_text()
        page.goto(server.url + "/table/")  # done: the table screen is the usual one again
        assert not page.url.endswith("/table/setup")
    finally:
        ctx.close()
    game = tracker.snapshot()["game"]
    assert game["board"] == "base" and game["seats"] == {"south": "black", "west": "white", "north": "grey"}
    assert game["names"] == {"south": "Anna", "west": "Ben", "north": "Chiara"}
    cfg = load_config(config_path)
    assert cfg.board == "base" and cfg.camera.source == "picamera2"
    assert "Anna" in config_path.read_text()


def test_without_a_camera_the_setup_is_saved_and_the_example_game_goes_on(browser, first_run_without_camera):
    server, tracker, config_path = first_run_without_camera
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = ctx.new_page()
        log_in_to_setup(page, server)
        assert "No camera found" in page.locator("#camera-source").inner_text()
        page.check("input[name=game][value=keltis-card]")
        page.select_option("select[name=colour_south]", "black")
        page.select_option("select[name=colour_west]", "white")
        page.click("#first-run button[type=submit]")
        page.wait_for_url(server.url + "/")
        assert "No camera yet" in page.locator(".flash.ok").inner_text()
    finally:
        ctx.close()
    assert tracker.snapshot()["game"] is None  # the replayed example's frames are not read as this game
    cfg = load_config(config_path)
    assert cfg.camera.source is None and cfg.board is None
    assert "keltis-card" in config_path.read_text()


def test_a_setup_the_checks_refuse_is_shown_and_nothing_is_written(browser, first_run):
    server, tracker, config_path = first_run
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/table/login?next=/table/setup")
        page.fill("#pin", PIN)
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/table/setup$"))
        page.select_option("select[name=colour_south]", "black")
        page.select_option("select[name=colour_west]", "black")  # two seats, one colour
        page.click("#first-run button[type=submit]")
        assert "same pawn colour" in page.locator(".flash.error").inner_text()
    finally:
        ctx.close()
    assert tracker.snapshot()["game"] is None and not config_path.exists()


def test_serve_without_a_configuration_opens_the_setup_page(tmp_path):
    from serve_process import ROOT

    env = {k: v for k, v in os.environ.items() if not k.startswith("KELTIS_CAM")}
    env.update({"KELTIS_CAM_CONFIG": str(tmp_path / "cfg" / "config.toml"), "PYTHONUNBUFFERED": "1",
                "KELTIS_CAM_DATA": str(tmp_path / "data")})
    proc = subprocess.Popen([sys.executable, "-m", "keltis_cam", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--no-service"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Stop with Ctrl-C"):
                break
        banner = "".join(lines)
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", banner).group(1))
        pin = re.search(r"Table PIN:\s+(\d+)", banner).group(1)
        assert "First run:" in banner and "table/setup" in banner
        import http.cookiejar

        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        base = f"http://127.0.0.1:{port}"
        form = opener.open(base + "/table/login?next=/table/", timeout=5).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        data = urllib.parse.urlencode({"pin": pin, "csrf_token": token, "next": "/table/"}).encode()
        with opener.open(base + "/table/login", data=data, timeout=5) as resp:
            assert resp.url.endswith("/table/setup")
            assert "Set up the table" in resp.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)
