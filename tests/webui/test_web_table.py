"""The table screens behind the PIN: login, setup (PIN + QR), new game, corrections, undo, camera check."""
from __future__ import annotations

import pytest

from webui_fakes import PIN, login, start_game

TABLE_PAGES = ["/table/", "/table/new", "/table/fix", "/table/calibration", "/table/camera.jpg"]


@pytest.mark.parametrize("url", TABLE_PAGES)
def test_table_screens_need_the_pin(client, url):
    resp = client.get(url)
    assert resp.status_code == 302
    assert resp.headers["Location"].startswith("/table/login?next=")


def test_login_with_the_right_pin_opens_the_setup_screen(client, tracker):
    start_game(tracker)
    login(client)
    resp = client.get("/table/")
    assert resp.status_code == 200
    html = resp.get_data(as_text=True)
    assert PIN in html                      # the PIN is shown on the setup screen
    assert '<svg viewBox=' in html and 'class="qr"' in html  # the QR code, inline SVG
    assert "http://" in html                # the page's address under it


def test_wrong_pin_is_refused(client):
    client.get("/table/login")
    with client.session_transaction() as sess:
        token = sess["csrf"]
    resp = client.post("/table/login", data={"pin": "0000", "csrf_token": token})
    assert resp.status_code == 403 and "Wrong PIN" in resp.get_data(as_text=True)
    assert client.get("/table/").status_code == 302


def test_login_without_the_forms_csrf_token_is_refused(client):
    resp = client.post("/table/login", data={"pin": PIN})
    assert resp.status_code == 403
    assert client.get("/table/").status_code == 302


def test_login_attempts_are_limited(client):
    client.get("/table/login")
    with client.session_transaction() as sess:
        token = sess["csrf"]
    for _ in range(5):
        client.post("/table/login", data={"pin": "1111", "csrf_token": token})
    resp = client.post("/table/login", data={"pin": PIN, "csrf_token": token})
    assert resp.status_code == 429 and resp.headers["Retry-After"]
    assert client.get("/table/").status_code == 302


def test_login_next_stays_on_this_site(client):
    client.get("/table/login")
    with client.session_transaction() as sess:
        token = sess["csrf"]
    resp = client.post("/table/login", data={"pin": PIN, "csrf_token": token, "next": "//evil.example/x"})
    assert resp.status_code == 302 and resp.headers["Location"] == "/table/"


def test_logout(table_client):
    assert table_client.get("/table/").status_code == 200
    resp = table_client.post("/table/logout", data={"csrf_token": table_client.csrf})
    assert resp.status_code == 302
    assert table_client.get("/table/").status_code == 302


def test_new_game_form(table_client, tracker):
    html = table_client.get("/table/new").get_data(as_text=True)
    assert 'name="colour_south"' in html and 'value="keltis-card"' in html and 'value="base"' in html
    form = {"csrf_token": table_client.csrf, "game": "keltis", "board": "base",
            "colour_south": "black", "name_south": "  Anna  ", "colour_west": "", "colour_north": "white",
            "name_north": "Ben", "colour_east": ""}
    resp = table_client.post("/table/new", data=form)
    assert resp.status_code == 302 and resp.headers["Location"] == "/"
    kind, setup = tracker.calls[-1]
    assert kind == "new_game"
    assert setup["seats"] == {"south": "black", "north": "white"}
    assert setup["names"] == {"south": "Anna", "north": "Ben"}
    assert setup["board"] == "base"


def test_new_game_form_without_csrf_is_refused(table_client, tracker):
    resp = table_client.post("/table/new", data={"game": "keltis", "board": "base", "colour_south": "black",
                                                  "colour_north": "white"})
    assert resp.status_code == 403
    assert tracker.calls == []


def test_new_game_form_with_a_mistake_says_what_is_wrong(table_client, tracker):
    resp = table_client.post("/table/new", data={"csrf_token": table_client.csrf, "game": "keltis", "board": "base",
                                                  "colour_south": "black", "colour_north": "black"})
    assert resp.status_code == 400
    assert "same pawn colour" in resp.get_data(as_text=True)
    assert tracker.calls == []


def test_row_correction_form(table_client, tracker):
    start_game(tracker)
    html = table_client.get("/table/fix").get_data(as_text=True)
    assert 'value="row"' in html and 'value="end"' in html
    resp = table_client.post("/table/fix", data={"csrf_token": table_client.csrf, "kind": "row", "seat": "south",
                                                  "colour": "blue", "cards": "10, 9 7"})
    assert resp.status_code == 302
    assert tracker.calls[-1] == ("correct", {"kind": "row", "seat": "south", "colour": "blue",
                                             "cards": ["10", "9", "7"]})


def test_bad_correction_form_is_400_and_changes_nothing(table_client, tracker):
    start_game(tracker)
    calls = list(tracker.calls)
    resp = table_client.post("/table/fix", data={"csrf_token": table_client.csrf, "kind": "row", "seat": "south",
                                                  "colour": "blue", "cards": "10 nine"})
    assert resp.status_code == 400 and "nine" in resp.get_data(as_text=True)
    assert tracker.calls == calls


def test_undo_button(table_client, tracker):
    start_game(tracker)
    tracker.play("south", "to be undone", {"south": 1})
    resp = table_client.post("/table/undo", data={"csrf_token": table_client.csrf})
    assert resp.status_code == 302 and tracker.moves == []
    resp = table_client.post("/table/undo", data={"csrf_token": table_client.csrf})
    assert resp.status_code == 409 and "no move to undo" in resp.get_data(as_text=True)


def test_calibration_check_without_a_camera(table_client):
    html = table_client.get("/table/calibration").get_data(as_text=True)
    assert "No camera picture" in html
    resp = table_client.get("/table/camera.jpg")
    assert resp.status_code == 404
