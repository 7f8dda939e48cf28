"""The JSON API: state, new game, corrections, undo, health; malformed requests change nothing."""
from __future__ import annotations

import json

import pytest

from webui_fakes import PIN, start_game

SETUP = {"game": "keltis", "board": "base", "seats": {"south": "black", "north": "white"},
         "names": {"south": "Anna", "north": "Ben"}, "rules": {}}


def post_json(client, url, body, **headers):
    return client.post(url, data=json.dumps(body), content_type="application/json", headers=headers)


def test_healthz_reports_the_tracker(client, tracker):
    start_game(tracker)
    resp = client.get("/healthz")
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["ok"] is True and body["game"] is True
    assert body["event_id"] == tracker.snapshot()["event_id"]


def test_healthz_is_503_when_the_tracker_fails(client, tracker, monkeypatch):
    def broken():
        raise RuntimeError("database is locked")
    monkeypatch.setattr(tracker, "snapshot", broken)
    resp = client.get("/healthz")
    assert resp.status_code == 503
    assert "database is locked" in resp.get_json()["error"]


def test_state_is_the_trackers_snapshot(client, tracker):
    start_game(tracker)
    tracker.play("south", "Anna laid red 3", {"south": 3})
    body = client.get("/api/state").get_json()
    assert body["scores"]["scores"]["south"]["total"] == 3
    assert body["moves"][0]["text"] == "Anna laid red 3"
    assert body["turn"] == "west"
    assert body["event_id"] == tracker.snapshot()["event_id"]


def test_new_game_with_the_pin_header(client, tracker):
    resp = post_json(client, "/api/game", SETUP, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 201, resp.get_json()
    assert tracker.calls[-1][0] == "new_game"
    setup = tracker.calls[-1][1]
    assert setup["seats"] == {"south": "black", "north": "white"} and setup["names"]["south"] == "Anna"
    assert resp.get_json()["game"]["board"] == "base"


def test_new_game_from_a_logged_in_table_needs_the_csrf_token(table_client, tracker):
    resp = post_json(table_client, "/api/game", SETUP)
    assert resp.status_code == 403 and "CSRF" in resp.get_json()["error"]
    assert tracker.calls == []
    resp = post_json(table_client, "/api/game", SETUP, **{"X-CSRF-Token": table_client.csrf})
    assert resp.status_code == 201


@pytest.mark.parametrize("headers, reason", [
    ({}, "PIN"),
    ({"X-Keltis-PIN": "0000"}, "wrong PIN"),
    ({"X-CSRF-Token": "guessed"}, "PIN"),
])
def test_every_post_without_the_pin_is_refused_and_changes_nothing(client, tracker, headers, reason):
    start_game(tracker)
    tracker.play("south", "a move", {"south": 1})
    before = tracker.snapshot()
    calls = list(tracker.calls)
    for url, body in (("/api/game", SETUP), ("/api/corrections", {"kind": "end"}), ("/api/undo", {})):
        resp = post_json(client, url, body, **headers)
        assert resp.status_code == 403, url
        assert reason in resp.get_json()["error"]
    assert tracker.calls == calls
    assert tracker.snapshot() == before


@pytest.mark.parametrize("body, field", [
    ({**SETUP, "game": "chess"}, "game"),
    ({**SETUP, "board": "moon"}, "board"),
    ({**SETUP, "seats": {"south": "black"}}, "seats"),
    ({**SETUP, "seats": {"south": "black", "north": "black"}}, "seats"),
    ({**SETUP, "seats": {"south": "black", "up": "white"}}, "seats"),
    ({**SETUP, "seats": {"south": "black", "north": "pink"}}, "seats.north"),
    ({**SETUP, "names": {"east": "Zoe"}}, "names"),
    ({**SETUP, "names": {"south": "x" * 40}}, "names.south"),
    ({**SETUP, "colour": "red"}, "colour"),
    ({"game": "keltis-card", "board": "base", "seats": {"south": "black", "north": "white"}}, "board"),
    ([1, 2, 3], "setup"),
])
def test_malformed_setups_get_400_with_the_field(client, tracker, body, field):
    resp = post_json(client, "/api/game", body, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 400, resp.get_json()
    assert field in resp.get_json()["error"]
    assert tracker.calls == []


@pytest.mark.parametrize("body", [
    {**SETUP, "game": "chess"}, {**SETUP, "board": "moon"}, {**SETUP, "seats": {"south": "black", "north": "pink"}},
    {**SETUP, "names": {"south": "x" * 40}}, {**SETUP, "rules": {"wish_tile": "sometimes"}},
])
def test_a_malformed_setup_gets_the_engines_error_and_field(client, tracker, body):
    """The page does not validate a setup itself: its 400 is the engine's MalformedInput, field included."""
    from engine.errors import MalformedInput
    from engine.setup import Setup

    with pytest.raises(MalformedInput) as engine_error:
        Setup.from_json(body, "setup")
    resp = post_json(client, "/api/game", body, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == str(engine_error.value)
    assert resp.get_json()["field"] == engine_error.value.field
    assert tracker.calls == []


def test_body_that_is_not_json(client, tracker):
    resp = client.post("/api/game", data="game=keltis", content_type="application/x-www-form-urlencoded",
                       headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 415 and "application/json" in resp.get_json()["error"]
    resp = client.post("/api/game", data="{not json", content_type="application/json",
                       headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 400 and "not valid JSON" in resp.get_json()["error"]
    resp = client.post("/api/game", data="", content_type="application/json", headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 400 and "no body" in resp.get_json()["error"]
    assert tracker.calls == []


def test_too_large_body_is_413(client, tracker):
    big = {"game": "keltis", "pad": "x" * 70_000}
    resp = post_json(client, "/api/game", big, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 413 and "larger than" in resp.get_json()["error"]
    assert tracker.calls == []


def test_corrections_reach_the_tracker(client, tracker):
    start_game(tracker)
    body = {"kind": "row", "seat": "south", "colour": "blue", "cards": ["10", "9", "7"]}
    resp = post_json(client, "/api/corrections", body, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 200, resp.get_json()
    assert tracker.calls[-1] == ("correct", body)
    resp = post_json(client, "/api/corrections", {"kind": "end"}, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 200 and resp.get_json()["game_over"] is True


@pytest.mark.parametrize("body, field", [
    ({"kind": "teleport"}, "kind"),
    ({"kind": "row", "seat": "south", "colour": "purple", "cards": []}, "colour"),
    ({"kind": "row", "seat": "south", "colour": "red", "cards": ["3", "11"]}, "cards[1]"),
    ({"kind": "row", "seat": "middle", "colour": "red", "cards": []}, "seat"),
    ({"kind": "pawn", "player": "pink", "to": "a3"}, "player"),
    ({"kind": "tile", "stone": "a2", "tile": "dragon"}, "tile"),
    ({"kind": "pawn", "player": "black", "to": 7}, "to"),
    ({"kind": "pawn", "player": "black", "to": "a3", "big": "yes"}, "big"),
    ({"kind": "wish", "seat": "south", "colour": "any", "count": 99}, "count"),
    ({"kind": "points", "seat": "south", "points": -3}, "points"),
    ({"kind": "discard", "pile": "purple", "top": "3"}, "pile"),
    ({"kind": "seats", "seats": {"south": "green"}}, "seats"),
    ("end", "correction"),
])
def test_malformed_corrections_get_400(client, tracker, body, field):
    start_game(tracker)
    calls = list(tracker.calls)
    resp = post_json(client, "/api/corrections", body, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 400
    assert field in resp.get_json()["error"]
    assert tracker.calls == calls


def test_a_command_that_does_not_fit_the_game_now_is_409_with_the_reason(client, tracker):
    resp = post_json(client, "/api/corrections", {"kind": "end"}, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 409 and "no game is being tracked" in resp.get_json()["error"]
    resp = post_json(client, "/api/undo", {}, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 409 and "no move to undo" in resp.get_json()["error"]


def test_a_malformed_input_the_tracker_finds_is_400(client, tracker, monkeypatch):
    from engine.errors import MalformedInput

    start_game(tracker)

    def refuse(correction):
        raise MalformedInput("no stone 'z9' on the base board", source="correction", field="to")
    monkeypatch.setattr(tracker, "correct", refuse)
    resp = post_json(client, "/api/corrections", {"kind": "pawn", "player": "black", "to": "z9"},
                     **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 400 and "z9" in resp.get_json()["error"]


def test_undo_takes_back_the_last_move(client, tracker):
    start_game(tracker)
    tracker.play("south", "first", {"south": 2})
    tracker.play("west", "second", {"west": 5})
    resp = client.post("/api/undo", headers={"X-Keltis-PIN": PIN})
    assert resp.status_code == 200
    assert [m["text"] for m in resp.get_json()["moves"]] == ["first"]
    resp = post_json(client, "/api/undo", {"steps": 3}, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 400 and len(tracker.moves) == 1


def test_setup_options_list_games_boards_and_seats(client):
    body = client.get("/api/setup-options").get_json()
    assert body["games"] == ["keltis", "keltis-card"]
    assert "base" in body["boards"]
    assert body["seats"] == ["south", "west", "north", "east"]
    assert set(body["rules"]) == {"keltis", "keltis-card"}


def test_the_page_offers_the_games_of_the_registry_it_is_given(tracker, config):
    """create_app(games=...) is the page's one list of games: the options, the setup check and the form."""
    import dataclasses

    from engine.games import GAMES
    from webui.app import create_app

    extra = dataclasses.replace(GAMES.get("keltis-card"), id="keltis-card-2", title="Second card game")
    app = create_app(tracker, pin=PIN, config=config, games=GAMES.with_game(extra))
    try:
        client = app.test_client()
        assert client.get("/api/setup-options").get_json()["games"] == ["keltis", "keltis-card", "keltis-card-2"]
        resp = post_json(client, "/api/game", {"game": "keltis-card-2", "seats": {"south": "black", "north": "white"}},
                         **{"X-Keltis-PIN": PIN})
        assert resp.status_code == 201, resp.get_json()
        assert tracker.calls[-1][1]["game"] == "keltis-card-2"
    finally:
        app.extensions["keltis"].broadcaster.stop()


def test_unknown_api_path_and_method_are_json(client):
    resp = client.get("/api/nothing")
    assert resp.status_code == 404 and resp.get_json()["status"] == 404
    resp = client.delete("/api/state")
    assert resp.status_code in (403, 405)
    assert "error" in resp.get_json()


def test_wrong_pins_are_limited(client, tracker):
    for _ in range(5):
        assert post_json(client, "/api/undo", {}, **{"X-Keltis-PIN": "9999"}).status_code == 403
    resp = post_json(client, "/api/undo", {}, **{"X-Keltis-PIN": PIN})
    assert resp.status_code == 429 and "too many" in resp.get_json()["error"]


def test_board_stones_for_naming_them(client):
    body = client.get("/api/boards/base").get_json()
    assert body["stones"]["start"]["kind"] == "start"
    assert body["stones"]["b6"] == {"kind": "stone", "color": "blue", "value": 3, "row": 6, "next": ["b7"]}
    resp = client.get("/api/boards/moon")
    assert resp.status_code == 404 and "no bundled board" in resp.get_json()["error"]
    assert client.get("/api/boards/..%2Fsecrets").status_code == 404


def test_rule_settings_come_from_the_game_modules(table_client):
    options = table_client.get("/api/setup-options").get_json()["rules"]
    names = {o["name"] for o in options["keltis"]}
    assert {"tiles_taken", "discard_tile_optional", "wish_tile", "wish_face_down"} <= names  # RULES.md §2
    assert {o["name"] for o in options["keltis-card"]} >= {"end_trigger", "final_play"}  # RULES.md §3
    html = table_client.get("/table/new").get_data(as_text=True)
    assert 'name="rule_keltis_wish_tile"' in html and 'name="rule_keltis-card_final_play"' in html
