"""Launching Debian's chromium through Playwright for the page tests (never a browser download)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require_chromium() -> None:
    """Skip when chromium is absent on a developer machine; in CI its absence is a failure."""
    if Path(CHROMIUM).exists():
        return
    if in_ci():
        pytest.fail(f"{CHROMIUM} is missing in CI (.ci/run installs it with apt-get)")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")


def launch(playwright):
    """Headless chromium from apt."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def sync_api():
    """playwright.sync_api; missing: a skip on a developer machine, a failure in CI."""
    try:
        import playwright.sync_api as api
    except ImportError:
        if in_ci():
            pytest.fail("the playwright package is missing in CI (it is in the test extra)")
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')", allow_module_level=True)
    return api
