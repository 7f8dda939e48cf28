"""Bad input on the page's POST routes is a 4xx with one line naming the problem, never a 500 or
a traceback (issue 18 item 11): binary bodies, deep nesting, huge integers, unknown fields, and
hypothesis-generated bodies for every POST route the app has, against the real tracker."""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import COLOURS, PLAYER_COLOURS, SEATS
from engine.observation import TILE_CODES, parse_observation
from tracking.store import EventStore
from tracking.tracker import GameTracker
from webui.app import create_app
from webui.config import WebConfig
from webui.validate import correction_kinds
from webui_fakes import PIN, login

TABLE = {"format": "keltis-observation/1", "game": "keltis", "board": "base",
         "pawns": [{"stone": "r3", "player": "black", "big": True}], "tiles": {"r2": "clover"},
         "seats": {"south": {"player": "black", "rows": {"red": ["3", "5"]}},
                   "west": {"player": "white", "rows": {}}}}
SETUP = {"game": "keltis", "board": "base", "seats": {"south": "black", "west": "white"}, "rules": {}}
FUZZ = settings(max_examples=int(os.environ.get('FUZZ_EXAMPLES', 60)), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def real_app():
    tracker = GameTracker(EventStore(":memory:"), observer="truth")
    tracker.new_game(SETUP)
    for i in range(1, 6):  # a steady table state, so corrections reach the game model
        tracker.feed(parse_observation(TABLE), float(i), i)
    app = create_app(tracker, pin=PIN, config=WebConfig(heartbeat_seconds=0.2, poll_seconds=0.05))
    app.testing = False  # errors go through the app's handlers as in production
    yield app
    app.extensions["keltis"].broadcaster.stop()


@pytest.fixture(scope="module")
def api(real_app):
    return real_app.test_client()


@pytest.fixture(scope="module")
def table(real_app):
    client = real_app.test_client()
    client.csrf = login(client)
    return client


def post_json(client, path: str, body: bytes | str):
    return client.post(path, data=body, headers={"X-Keltis-PIN": PIN, "Content-Type": "application/json"})


def one_line_error(resp) -> str:
    assert 400 <= resp.status_code < 500, (resp.status_code, resp.get_data(as_text=True)[:300])
    reason = resp.get_json()["error"]
    assert "\n" not in reason and "Traceback" not in reason and len(reason) < 400, reason
    return reason


DEEP = "[" * 100 + "]" * 100
HUGE = "9" * 5000


@pytest.mark.parametrize("path", ["/api/game", "/api/corrections", "/api/undo"])
def test_binary_deep_and_huge_bodies_get_400_naming_the_problem(api, path):
    assert "not UTF-8" in one_line_error(post_json(api, path, bytes(range(256))))
    assert "nested more than" in one_line_error(post_json(api, path, DEEP))
    deep_field = one_line_error(post_json(api, path, '{"seats": ' + DEEP + "}"))
    assert "nested more than" in deep_field and "seats" in deep_field
    huge = one_line_error(post_json(api, path, '{"kind": "points", "seat": "south", "points": ' + HUGE + "}"))
    assert "5000 digits" in huge and "'points'" in huge
    assert "not a JSON value" in one_line_error(post_json(api, path, '{"points": NaN}'))


def test_unknown_fields_in_a_correction_are_named(api):
    reason = one_line_error(post_json(api, "/api/corrections",
                                      json.dumps({"kind": "turn", "seat": "west", "sneaky": 1})))
    assert "sneaky" in reason and "turn" in reason
    reason = one_line_error(post_json(api, "/api/corrections",
                                      json.dumps({"kind": "points", "seat": "south", "points": 3, "colour": "red"})))
    assert "colour" in reason


def test_a_first_player_that_is_not_a_seat_name_is_named(api):
    reason = one_line_error(post_json(api, "/api/game", json.dumps({**SETUP, "first": ["south"]})))
    assert "'first'" in reason


def test_huge_numbers_in_the_table_forms_are_refused(table):
    resp = table.post("/table/fix", data={"kind": "points", "seat": "south", "points": HUGE,
                                          "csrf_token": table.csrf})
    assert resp.status_code == 400 and b"Traceback" not in resp.data


# ---- fuzzing every POST route -------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
words = st.sampled_from([*SEATS, *COLOURS, *PLAYER_COLOURS, *TILE_CODES, "r1", "b5", "start", "3", "", "x" * 40])
correction_like = st.fixed_dictionaries(
    {"kind": st.sampled_from(correction_kinds())},
    optional={k: json_values | words for k in ("seat", "player", "colour", "stone", "from", "to", "tile", "pile",
                                                 "top", "count", "points", "big", "ended", "reason", "cards",
                                                 "seats", "names", "extra")})
setup_like = st.fixed_dictionaries(
    {"game": st.sampled_from(["keltis", "keltis-card"]) | json_values},
    optional={"board": st.sampled_from(["base", "nwnz"]) | json_values,
              "seats": st.dictionaries(words, words | json_values, max_size=5) | json_values,
              "names": st.dictionaries(words, json_values, max_size=3) | json_values,
              "rules": st.dictionaries(st.text(max_size=12), json_values, max_size=3) | json_values,
              "first": words | json_values})
bodies = (st.binary(max_size=200) | json_values.map(json.dumps).map(str.encode)
          | correction_like.map(json.dumps).map(str.encode) | setup_like.map(json.dumps).map(str.encode))
form_values = st.text(max_size=30) | st.sampled_from([HUGE, "-1", "0", "999999999999999999999", "\x00", "ü" * 30])
forms = st.dictionaries(st.sampled_from(["kind", "seat", "player", "colour", "stone", "from", "to", "tile", "pile",
                                         "top", "count", "points", "big", "cards", "game", "board", "pin", "next",
                                         *(f"colour_{s}" for s in SEATS), *(f"name_{s}" for s in SEATS),
                                         *(f"seat_{s}" for s in SEATS)]),
                        form_values | words, max_size=8)


def post_routes(app) -> list[str]:
    return sorted({r.rule for r in app.url_map.iter_rules() if "POST" in (r.methods or ()) and "<" not in r.rule})


def test_the_fuzz_covers_the_known_post_routes(real_app):
    assert {"/api/game", "/api/corrections", "/api/undo", "/table/login", "/table/new", "/table/fix",
            "/table/undo"} <= set(post_routes(real_app))


@FUZZ
@given(body=bodies, content_type=st.sampled_from(["application/json", "application/octet-stream", "text/plain"]))
def test_fuzzed_bodies_never_make_a_server_error(real_app, api, table, body, content_type):
    for path in post_routes(real_app):
        if path == "/table/logout":
            continue  # logging the fuzzing table client out would end the table fuzzing
        for client in (api, table):
            headers = {"Content-Type": content_type, "X-CSRF-Token": table.csrf}
            if client is api:
                headers["X-Keltis-PIN"] = PIN
            resp = client.post(path, data=body, headers=headers)
            assert resp.status_code < 500, (path, body[:100], resp.get_data(as_text=True)[:300])


@FUZZ
@given(form=forms)
def test_fuzzed_table_forms_never_make_a_server_error(real_app, table, form):
    for path in post_routes(real_app):
        if path in ("/table/logout", "/table/login"):
            continue
        resp = table.post(path, data={**form, "csrf_token": table.csrf})
        assert resp.status_code < 500, (path, form, resp.get_data(as_text=True)[:300])
    resp = real_app.test_client().post("/table/login", data=form)
    assert resp.status_code < 500
