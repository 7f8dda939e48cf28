"""Fixtures for the web layer (helpers and the fake tracker live in webui_fakes.py)."""
from __future__ import annotations

import pytest

from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import PIN, FakeTracker, LiveServer, login


@pytest.fixture
def tracker() -> FakeTracker:
    return FakeTracker()


@pytest.fixture
def config() -> WebConfig:
    """Fast heartbeats so stream tests never wait long."""
    return WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05)


@pytest.fixture
def app(tracker: FakeTracker, config: WebConfig):
    app = create_app(tracker, pin=PIN, config=config)
    app.testing = True
    yield app
    app.extensions["keltis"].broadcaster.stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def table_client(app):
    """A client logged in as the table, with `.csrf` set."""
    c = app.test_client()
    c.csrf = login(c)
    return c


@pytest.fixture
def live_server(app):
    server = LiveServer(app)
    yield server
    server.close()


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium through Playwright, one for the page tests of every module (each test opens
    its own context: its own cookies, storage and pages); never a browser download."""
    from browser_support import launch, require_chromium, sync_api

    require_chromium()
    with sync_api().sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
