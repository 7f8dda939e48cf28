"""A camera too far from the board is said in every language the page offers: the camera check's line
(calibration/camera_check.py resolution_line, every state) and the live page's status (live.js)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("code", ["en", "it", "ja"])
def test_every_state_of_the_resolution_line_and_the_live_status_have_words(code):
    strings = json.loads((ROOT / "webui" / "i18n" / f"{code}.json").read_text(encoding="utf-8"))
    assert "check.resolution.title" in strings
    for state in ("ok", "too-far", "unknown"):
        assert f"check.resolution.{state}" in strings
    for state in ("too-far", "unknown"):   # the failing states say what to do
        assert f"check.resolution.{state}.todo" in strings
    assert "{px_per_cm}" in strings["check.resolution.too-far"]
    assert "{n}" in strings["status.too_far"]


def test_the_live_page_shows_the_status_while_the_reader_is_too_far():
    js = (ROOT / "webui" / "static" / "live.js").read_text(encoding="utf-8")
    assert 'rd.resolution' in js and 'tt("status.too_far"' in js and "res.too_far" in js
