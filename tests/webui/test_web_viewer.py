"""The read-only pages: the live page, languages, pictures, QR code and exports."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from engine.observation import parse_observation
from webui.config import WebConfig
from webui_fakes import start_game

OBS = {"format": "keltis-observation/1", "game": "keltis", "board": "base",
       "pawns": [{"stone": "r3", "player": "black", "big": True}, {"stone": "b2", "player": "white", "big": False},
                 {"stone": "b2", "player": "grey", "big": False}],
       "tiles": {"r2": "clover", "y4": "points-2"},
       "seats": {"south": {"player": "black", "rows": {"red": ["3", "5"]}},
                 "west": {"player": "white", "rows": {"blue": ["2"]}},
                 "north": {"player": "grey", "rows": {}}}}


def embedded(html: str, element_id: str):
    m = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert m, element_id
    return json.loads(m.group(1))


def test_live_page_embeds_the_state_and_the_strings(client, tracker):
    start_game(tracker)
    tracker.play("south", "Anna laid red 3", {"south": 3})
    html = client.get("/").get_data(as_text=True)
    state = embedded(html, "initial-state")
    assert state["moves"][0]["text"] == "Anna laid red 3"
    strings = embedded(html, "i18n-data")
    assert strings["history.title"] == "What happened"
    assert '<html lang="en">' in html


def test_live_page_loads_nothing_from_elsewhere(client, tracker):
    start_game(tracker)
    html = client.get("/").get_data(as_text=True)
    for attr in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert attr.startswith("/"), f"external or odd reference {attr!r}"
    assert "<style" not in html and " style=" not in html  # the CSP allows no inline style
    scripts = re.findall(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", html, re.S)
    for attrs, body in scripts:
        assert 'type="application/json"' in attrs or not body.strip(), "inline script would be blocked"


def test_security_headers(client):
    resp = client.get("/")
    csp = resp.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_names_typed_at_the_table_are_not_markup(client, tracker):
    tracker.new_game({"game": "keltis", "board": "base", "seats": {"south": "black", "west": "white"},
                      "names": {"south": "</script><script>alert(1)</script>"}, "rules": {}})
    html = client.get("/").get_data(as_text=True)
    assert "</script><script>alert(1)" not in html
    assert embedded(html, "initial-state")["game"]["names"]["south"] == "</script><script>alert(1)</script>"
    summary = client.get("/export/summary").get_data(as_text=True)
    assert "<script>alert(1)" not in summary
    svg = client.get("/export/summary.svg").get_data(as_text=True)
    ET.fromstring(svg)  # still well-formed XML


@pytest.mark.parametrize("accept, lang, word", [
    ("it-IT,it;q=0.9,en;q=0.5", "it", "Cosa è successo"),
    ("ja,en;q=0.5", "ja", "これまでの経過"),
    ("de-DE,de;q=0.9", "en", "What happened"),
    ("fr-CH, fr;q=0.9, it;q=0.8", "it", "Cosa è successo"),
])
def test_language_follows_the_phone(client, accept, lang, word):
    html = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert f'<html lang="{lang}">' in html
    assert embedded(html, "i18n-data")["history.title"] == word


def test_language_switch_is_remembered(client):
    resp = client.get("/lang/it?next=/export/summary")
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/export/summary")
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="it">' in html
    html = client.get("/?lang=ja").get_data(as_text=True)
    assert '<html lang="ja">' in html
    assert '<html lang="ja">' in client.get("/").get_data(as_text=True)


def test_language_switch_refuses_unknown_codes_and_foreign_redirects(client):
    assert client.get("/lang/xx").status_code == 404
    resp = client.get("/lang/it?next=//evil.example/")
    assert resp.headers["Location"] in ("/", "http://localhost/")


def test_table_picture_draws_what_was_read(client, tracker):
    assert client.get("/view/table.svg").status_code == 404  # no game yet
    start_game(tracker)
    tracker.feed(parse_observation(OBS), 1.0, 1)
    resp = client.get("/view/table.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    root = ET.fromstring(resp.data)
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "Anna big pawn on r3" in titles  # the names typed at the table (black is Anna's colour)
    assert titles.count("Ben pawn on b2") == 1 and "Chiara pawn on b2" in titles
    assert "clover" in titles and "2 points" in titles


def test_table_picture_for_the_card_game_is_404(client, tracker):
    tracker.new_game({"game": "keltis-card", "board": None, "seats": {"south": "black", "west": "white"}, "rules": {}})
    assert client.get("/view/table.svg").status_code == 404


def test_camera_picture_needs_a_pipeline(client):
    resp = client.get("/view/frame.jpg")
    assert resp.status_code == 404 and "no camera frame" in resp.get_json()["error"]


def test_qr_code_holds_the_configured_address(tracker):
    from webui.app import create_app

    app = create_app(tracker, pin="1234", config=WebConfig(public_url="http://192.168.1.20:8000"))
    try:
        svg = app.test_client().get("/qr.svg").get_data(as_text=True)
    finally:
        app.extensions["keltis"].broadcaster.stop()
    import segno

    import re

    expected = segno.make("http://192.168.1.20:8000/", error="m").svg_inline(
        scale=4, border=2, omitsize=True, svgclass="qr", dark="#000", light="#fff")
    modules = re.compile(r'class="qrline"[^>]* d="([^"]+)"')
    assert modules.search(svg).group(1) == modules.search(expected).group(1)  # the same modules


def test_game_record_export(client, tracker):
    start_game(tracker)
    tracker.play("south", "Anna laid red 3", {"south": 3},
                 [{"code": "row-order", "message": "red row is ascending"}])
    resp = client.get("/export/game.json")
    assert resp.status_code == 200
    assert "attachment" in resp.headers["Content-Disposition"]
    record = json.loads(resp.data)
    assert record["format"] == "keltis-game-record/1"
    assert record["moves"][0]["text"] == "Anna laid red 3"
    assert record["warnings"][0]["code"] == "row-order"
    assert record["scores"]["scores"]["south"]["total"] == 3
    assert record["game"]["names"]["south"] == "Anna"


def test_printable_summary_and_image(client, tracker):
    start_game(tracker)
    tracker.play("south", "m1", {"south": 3})
    tracker.play("west", "m2", {"west": 7})
    tracker.correct({"kind": "end"})
    html = client.get("/export/summary").get_data(as_text=True)
    assert "Won by Ben" in html and "<svg" in html and "@media print" not in html
    svg = client.get("/export/summary.svg")
    assert svg.mimetype == "image/svg+xml"
    root = ET.fromstring(svg.data)
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "Won by Ben" in text and "Anna" in text and "Chiara" in text


def test_viewer_pages_are_read_only(client, tracker):
    start_game(tracker)
    for url in ("/", "/export/game.json", "/view/table.svg", "/api/state", "/api/stream"):
        resp = client.post(url)
        assert resp.status_code in (403, 405), url
    assert tracker.calls == [("new_game", tracker.calls[0][1])]
