"""Components, deal, settings and move logs of the card game (RULES.md §3 Components, Turn, End)."""
from __future__ import annotations

from collections import Counter

import pytest

from engine.cards import (COLOURS, Card, card_game_deck, card_game_wish_cards, end, number, parse_card, points,
                          wish)
from engine.cardgame.game import (Discard, DiscardPair, Draw, Lay, Pass, Settings, apply_move, move_from_json,
                                  new_game)
from engine.errors import MalformedInput, MoveError

FOUR = {"south": "black", "west": "white", "north": "grey", "east": "brown"}
THREE = {"south": "black", "west": "white", "north": "grey"}
TWO = {"south": "black", "north": "grey"}


def test_deck_has_the_components_of_rules_3():
    """RULES §3 Components: per colour 0,1,2,8,9,10 once, 3–7 twice, 2 end cards; 11 points cards; 9 wish cards."""
    deck = card_game_deck()
    assert len(deck) == 101
    counts = Counter(deck)
    for colour in COLOURS:
        for value in range(11):
            assert counts[number(colour, value)] == (2 if 3 <= value <= 7 else 1)
        assert counts[end(colour)] == 2
        assert sum(n for c, n in counts.items() if c.colour == colour) == 18
    assert sorted(c.value for c in deck if c.kind == "points") == list(range(11))
    assert [c.value for c in card_game_wish_cards()] == list(range(1, 10))
    assert len(deck) + len(card_game_wish_cards()) == 110


@pytest.mark.parametrize("seats, pile, removed", [(FOUR, 101 - 32, 0), (THREE, 101 - 24, 0),
                                                  (TWO, 101 - 30 - 16, 30)])
def test_deal_gives_eight_each_and_two_players_put_30_cards_away(seats, pile, removed):
    """RULES §3 Components: hand of 8; with 2 players 30 of the 101 draw cards go back to the box unseen."""
    state = new_game(seats, seed=5)
    assert all(len(h) == 8 for h in state.hands)
    assert len(state.draw_pile) == pile
    assert len(state.removed) == removed
    everything = Counter(state.draw_pile) + Counter(state.removed) + sum((Counter(h) for h in state.hands), Counter())
    assert everything == Counter(card_game_deck())
    assert state.wish_middle == tuple(range(1, 10))
    assert state.turn == "south" and state.phase == "play" and state.id == 0
    assert state.order == tuple(s for s in ("south", "west", "north", "east") if s in seats)


def test_deal_is_seeded():
    assert new_game(FOUR, seed=3) == new_game(FOUR, seed=3)
    assert new_game(FOUR, seed=3).hands != new_game(FOUR, seed=4).hands


@pytest.mark.parametrize("seats", [{"south": "black"}, {"south": "black", "up": "white"},
                                   {"south": "black", "north": "black"}, {"south": "black", "north": "pink"},
                                   dict(FOUR, extra="grey")])
def test_bad_seats_are_refused_with_a_clear_error(seats):
    with pytest.raises(MalformedInput, match="seats"):
        new_game(seats)


def test_settings_defaults_and_parsing():
    """RULES §3 End: the defaults are five rows with an end card, and up to two more cards each."""
    assert Settings() == Settings("five-rows", "two-cards")
    state = new_game(TWO, {"end_trigger": "every-colour", "final_play": "full-turn"})
    assert state.settings == Settings("every-colour", "full-turn")
    with pytest.raises(MalformedInput, match="end_trigger"):
        new_game(TWO, {"end_trigger": "six-rows"})
    with pytest.raises(MalformedInput, match="unknown rule setting"):
        new_game(TWO, {"final": "two-cards"})


def test_every_card_reads_back_from_its_name():
    for card in set(card_game_deck()) | set(card_game_wish_cards()):
        assert parse_card(str(card)) == card
    for bad in ["red 11", "purple 3", "points", "wish 0", "red end", "", "red 07"]:
        with pytest.raises(ValueError, match="not a card"):
            parse_card(bad)


@pytest.mark.parametrize("move", [
    Lay("south", number("red", 7), "red"), Lay("west", points(3), "points"), Lay("west", end("blue"), "blue"),
    Discard("north", points(0)), DiscardPair("east", (number("red", 5), points(5)), 5), Draw("south", "pile"),
    Draw("south", "green"), Pass("north")])
def test_moves_round_trip_through_json(move):
    assert move_from_json(move.to_json()) == move


@pytest.mark.parametrize("data, field", [
    ({"move": "lay", "seat": "south", "card": "red 70", "row": "red"}, "card"),
    ({"move": "lay", "seat": "up", "card": "red 7", "row": "red"}, "seat"),
    ({"move": "jump", "seat": "south"}, "move"),
    ({"move": "discard-pair", "seat": "south", "cards": ["red 5"], "wish": 5}, "cards"),
    ({"move": "draw", "seat": "south"}, "from"),
    ({"move": "draw", "seat": "south", "source": 3}, "source")])
def test_malformed_moves_name_the_field(data, field):
    with pytest.raises(MoveError, match=f"field '{field}'"):
        move_from_json(data)


def test_a_draw_writes_its_pile_as_from_and_still_reads_the_old_source():
    """One spelling with the board game's draw ("from"); moves written before it said "source"."""
    assert Draw("south", "green").to_json() == {"move": "draw", "seat": "south", "from": "green"}
    assert move_from_json({"move": "draw", "seat": "south", "source": "pile"}) == Draw("south", "pile")
    assert move_from_json({"move": "draw", "seat": "south", "from": "red", "source": "pile"}) == Draw("south", "red")


def test_a_recorded_session_written_with_source_still_loads():
    """A recording's truth/events.jsonl written with "source" (fixtures/sessions/card-3p's until it was
    filmed again in session 16, kept here as it was): every move reads back."""
    import json
    from pathlib import Path

    events = Path(__file__).resolve().parent / "data" / "card-3p-events-with-source.jsonl"
    moves = [json.loads(line)["move"] for line in events.read_text(encoding="utf-8").splitlines() if line.strip()]
    moves = [m for m in moves if m]
    old = [m for m in moves if m.get("move") == "draw" and "source" in m]
    assert old, "the fixture no longer holds the old spelling"
    read = [move_from_json(m) for m in moves]
    assert [d.source for d in read if isinstance(d, Draw)][:len(old)] == [m["source"] for m in old]
    assert all(move_from_json(m.to_json()) == m for m in read)


def test_inexpressible_moves_raise_move_error():
    """Only what cannot happen on a table raises; rule breaks are violations (see test_card_plays)."""
    state = new_game(TWO, seed=1)
    hand = state.hand_of("south")
    missing = next(c for c in card_game_deck() if c not in hand and c.kind == "number")
    with pytest.raises(MoveError, match="does not hold"):
        apply_move(state, Discard("south", missing))
    with pytest.raises(MoveError, match="not in this game"):
        apply_move(state, Discard("west", hand[0]))
    with pytest.raises(MoveError, match="discard pile is empty"):
        apply_move(state, Draw("south", "red"))
    with pytest.raises(MoveError, match="no pile"):
        apply_move(state, Draw("south", "box"))
    with pytest.raises(MoveError, match="cannot pass"):
        apply_move(state, Pass("south"))
    card = next(c for c in hand if c.kind == "number")
    with pytest.raises(MoveError, match="only points cards"):
        apply_move(state, Lay("south", card, "points"))
    with pytest.raises(MoveError, match="no row"):
        apply_move(state, Lay("south", card, "purple"))
    with pytest.raises(MoveError, match="no wish card 10"):
        apply_move(state, DiscardPair("south", (hand[0], hand[1]), 10))
    with pytest.raises(MoveError, match="not a card-game move"):
        apply_move(state, "lay red 7")  # type: ignore[arg-type]
    assert isinstance(wish(3), Card)
