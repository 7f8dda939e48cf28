"""The one setup validation (engine/setup.py): what a setup may say, and errors that name the field."""
from __future__ import annotations

import dataclasses

import pytest

from engine.errors import MalformedInput
from engine.games import GAMES
from engine.setup import MAX_NAME, Setup

SEATS2 = {"south": "black", "north": "white"}


def test_defaults_come_from_the_registry_and_seats_are_put_in_turn_order():
    setup = Setup.from_json({"seats": {"north": "white", "south": "black"}})
    assert (setup.game, setup.board) == (GAMES.default, GAMES.get(GAMES.default).default_board)
    assert list(setup.seats) == ["south", "north"] and setup.order == ("south", "north")
    assert Setup.from_json({"game": "keltis-card", "seats": SEATS2}).board is None


def test_names_are_trimmed_and_a_setup_round_trips():
    data = {"game": "keltis", "board": "base", "seats": SEATS2, "names": {"south": "  Anna   Lena ", "north": " "},
            "rules": {"wish_tile": "from-pile"}, "first": "north"}
    setup = Setup.from_json(data)
    assert setup.names == {"south": "Anna Lena"}
    assert setup.name("south") == "Anna Lena" and setup.name("north") == "north (white)"
    assert Setup.from_json(setup.to_json()) == setup


@pytest.mark.parametrize("data, field", [
    ({"game": "chess", "seats": SEATS2}, "game"),
    ({"game": "keltis", "board": "moon", "seats": SEATS2}, "board"),
    ({"game": "keltis", "board": "../secrets", "seats": SEATS2}, "board"),
    ({"game": "keltis-card", "board": "base", "seats": SEATS2}, "board"),
    ({"seats": {"south": "black"}}, "seats"),
    ({"seats": "south=black"}, "seats"),
    ({"seats": {"south": "black", "up": "white"}}, "seats"),
    ({"seats": {"south": "black", "north": "black"}}, "seats"),
    ({"seats": {"south": "black", "north": "pink"}}, "seats.north"),
    ({"seats": SEATS2, "names": {"east": "Zoe"}}, "names"),
    ({"seats": SEATS2, "names": {"south": 7}}, "names.south"),
    ({"seats": SEATS2, "names": {"south": "x" * (MAX_NAME + 1)}}, "names.south"),
    ({"seats": SEATS2, "names": {"south": "bell\x07"}}, "names.south"),
    ({"seats": SEATS2, "rules": ["wish_tile"]}, "rules"),
    ({"seats": SEATS2, "rules": {"wish_tile": "sometimes"}}, "wish_tile"),
    ({"seats": SEATS2, "first": "east"}, "first"),
])
def test_a_bad_setup_names_its_field(data, field):
    with pytest.raises(MalformedInput) as err:
        Setup.from_json(data, "setup.json")
    assert err.value.field == field and "setup.json" in str(err.value)


def test_not_an_object_is_refused():
    with pytest.raises(MalformedInput, match="expected an object"):
        Setup.from_json([1, 2])


def test_a_game_of_another_registry():
    extra = dataclasses.replace(GAMES.get("keltis-card"), id="keltis-card-2")
    data = {"game": "keltis-card-2", "seats": SEATS2}
    assert Setup.from_json(data, games=GAMES.with_game(extra)).game == "keltis-card-2"
    with pytest.raises(MalformedInput):
        Setup.from_json(data)
