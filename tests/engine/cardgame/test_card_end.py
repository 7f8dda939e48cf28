"""The end of the card game, the final play and the final score (RULES.md §3 End, Scoring)."""
from __future__ import annotations

from engine.cards import COLOURS, end, number, points
from engine.cardgame.game import (Discard, DiscardPair, Draw, Lay, Pass, apply_move, arrange, legal_moves, new_game,
                                  score)

TWO = {"south": "black", "north": "grey"}
THREE = {"south": "black", "west": "white", "north": "grey"}
R = lambda v: number("red", v)  # noqa: E731
G = lambda v: number("green", v)  # noqa: E731
HAND = [G(v) for v in (0, 1, 2, 3, 4, 8, 9, 10)]


def hand(*cards):
    return list(cards) + HAND[: 8 - len(cards)]


def codes(step):
    return [v.code for v in step.violations]


def four_ended_rows(seats=TWO, settings=None, **kw):
    """Four rows hold an end card: south red (two: counts once), blue, green; north red. South to play."""
    rows = {"south": {"red": [R(3), end("red"), end("red")], "blue": [end("blue")],
                      "green": [G(5), end("green")]},
            "north": {"red": [R(9), end("red")]}}
    return arrange(new_game(seats, settings, seed=4), rows=rows, turn="south", phase="play", **kw)


# --- the end trigger

def test_the_fifth_row_with_an_end_card_ends_the_game_and_the_trigger_player_does_not_draw():
    """RULES §3 End: five rows, any colours and owners, each with an end card (default)."""
    state = four_ended_rows(hands={"south": hand(end("pink")), "north": hand()})
    step = apply_move(state, Lay("south", end("pink"), "pink"))
    after = step.state
    assert not step.violations
    assert after.phase == "final" and after.ended_by == "south" and after.end_reason == "end-cards"
    assert after.final_queue == ("north", "south") and after.turn == "north"
    assert len(after.hand_of("south")) == 7  # no refill
    assert step.events[-1].kind == "end-triggered"
    assert step.events[-1].text == ("5 rows now hold an end card, so the game ends. Last play: each player lays up "
                                    "to two more cards, without drawing — north, then south.")
    drew = apply_move(after, Draw("south", "pile"))
    assert codes(drew) == ["draw-count"]
    assert drew.violations[0].message == "south ended the game and does not draw"


def test_two_end_cards_in_one_row_count_once():
    """RULES §3 End: two end cards in one row count once — a second red end card makes no fifth row."""
    state = four_ended_rows(hands={"south": hand(end("blue"))})
    step = apply_move(state, Lay("south", end("blue"), "blue"))
    assert step.state.phase == "draw" and step.state.ended_by is None


def test_one_end_card_of_every_colour_variant():
    """RULES §3 End variant end_trigger "every-colour" (rune edition): five rows are not enough, five colours are."""
    settings = {"end_trigger": "every-colour"}
    rows = {"south": {"red": [end("red")], "blue": [end("blue")]},
            "north": {"red": [end("red")], "green": [end("green")], "yellow": [end("yellow")]}}
    state = arrange(new_game(TWO, settings, seed=4), rows=rows, hands={"south": hand(end("pink"), R(5))},
                    turn="south", phase="play")
    assert apply_move(state, Lay("south", R(5), "red")).state.phase == "draw"
    step = apply_move(state, Lay("south", end("pink"), "pink"))
    assert step.state.phase == "final"
    assert step.events[-1].text.startswith("every colour now has an end card in a row, so the game ends.")


def test_the_last_card_drawn_ends_the_game_at_once():
    """RULES §3 End: at once when the last card is drawn; the second draw after a pair is not made."""
    state = arrange(new_game(THREE, seed=4), hands={"south": hand(R(5), points(5))}, draw_pile=[G(7)],
                    turn="south", phase="play")
    step = apply_move(state, DiscardPair("south", (R(5), points(5)), 5))
    last = apply_move(step.state, Draw("south", "pile"))
    after = last.state
    assert after.phase == "final" and after.end_reason == "draw-pile" and after.ended_by == "south"
    assert after.final_queue == ("west", "north", "south")
    assert len(after.hand_of("south")) == 7
    assert [e.text for e in last.events] == [
        "south drew the last card of the draw pile",
        "the draw pile is empty, so the game ends. Last play: each player lays up to two more cards, without "
        "drawing — west, north, then south."]


# --- the final play

def test_final_play_two_cards_each_in_turn_order_trigger_player_last():
    """Decision (game.py docstring): every player, in turn order from the one after the trigger, trigger last."""
    state = four_ended_rows(THREE, hands={"south": hand(end("pink"), R(2)), "west": [R(4), R(5), R(6)],
                                          "north": [number("blue", 1), points(4)]})
    state = apply_move(state, Lay("south", end("pink"), "pink")).state
    assert state.final_queue == ("west", "north", "south")
    assert all(isinstance(m, (Lay, Pass)) for m in legal_moves(state))
    state = apply_move(state, Lay("west", R(4), "red")).state
    assert state.turn == "west" and state.final_left == 1
    state = apply_move(state, Lay("west", R(5), "red")).state
    assert state.turn == "north"
    third = apply_move(state, Lay("west", R(6), "red"))
    assert codes(third) == ["two-cards"]
    assert third.violations[0].message == "west has already made their last play"
    early = apply_move(state, Lay("south", R(2), "pink"))
    assert "out-of-turn" in codes(early)
    discard = apply_move(state, Discard("north", points(4)))
    assert codes(discard) == ["game-over"]
    state = apply_move(state, Lay("north", number("blue", 1), "blue")).state
    step = apply_move(state, Pass("north"))
    assert step.events[0].text == "north lays no more cards"
    state = step.state
    assert state.turn == "south" and not state.game_over
    state = apply_move(state, Lay("south", G(8), "green")).state
    step = apply_move(state, Pass("south"))
    assert step.state.game_over and legal_moves(step.state) == []
    assert step.events[-1].kind == "game-ended"
    assert score(step.state).final
    late = apply_move(step.state, Lay("west", R(6), "red"))
    assert codes(late) == ["game-over"]
    assert codes(apply_move(step.state, Draw("north", "pile"))) == ["game-over"]


def test_final_play_full_turn_variant_allows_one_play_of_any_kind_without_drawing():
    """RULES §3 End variant final_play "full-turn" (rune edition): one more full turn without drawing."""
    state = four_ended_rows(settings={"final_play": "full-turn"},
                            hands={"south": hand(end("pink")), "north": [R(4), number("blue", 4), G(6)]})
    state = apply_move(state, Lay("south", end("pink"), "pink")).state
    moves = legal_moves(state)
    assert DiscardPair("north", (number("blue", 4), R(4)), 4) in moves and Discard("north", G(6)) in moves
    step = apply_move(state, DiscardPair("north", (number("blue", 4), R(4)), 4))
    assert not step.violations and step.state.wish_cards_of("north") == (4,)
    assert step.state.turn == "south"
    assert codes(apply_move(step.state, Draw("north", "pile"))) == ["game-over"]
    done = apply_move(step.state, Discard("south", G(0))).state
    assert done.game_over


def test_players_without_cards_are_skipped_in_the_final_play():
    state = four_ended_rows(hands={"south": [end("pink"), R(1)], "north": []})
    step = apply_move(state, Lay("south", end("pink"), "pink"))
    assert step.state.turn == "south" and step.state.final_queue == ("south",)
    assert [e.kind for e in step.events][-1] == "final-skipped"
    assert step.events[-1].text == "north has no cards left to lay"
    assert apply_move(step.state, Pass("south")).state.game_over
    state = four_ended_rows(hands={"south": [end("pink")], "north": []})
    assert apply_move(state, Lay("south", end("pink"), "pink")).state.game_over


def test_a_final_player_who_lays_their_last_card_is_done():
    """A final play of "up to two" cards ends when the hand is empty (nothing to see on the table)."""
    state = four_ended_rows(hands={"south": hand(end("pink")), "north": [number("yellow", 1)]})
    state = apply_move(state, Lay("south", end("pink"), "pink")).state
    step = apply_move(state, Lay("north", number("yellow", 1), "yellow"))
    assert not step.violations
    assert step.state.turn == "south" and step.state.final_queue == ("south",)


# --- scoring

def test_final_score_breakdown_per_player():
    """RULES §3 Scoring: rows by length (end and points cards counted), points row 1 each, wish cards by count."""
    rows = {"south": {"red": [R(1), R(3), R(4), R(5), R(5), points(5), R(8), end("red"), end("red")],
                      "blue": [number("blue", 2)], "green": [G(1), G(3), G(3), G(4), G(7), G(8), G(10)]},
            "north": {c: [number(c, 3), number(c, 4), number(c, 5), number(c, 6)] for c in COLOURS}}
    state = arrange(new_game(TWO, seed=1), rows=rows, points_rows={"south": [points(1), points(2)]},
                    wish_cards={"south": [2, 7, 9], "north": []})
    sheet = score(state)
    south = sheet.scores["south"]
    assert [(p.category, p.label, p.points) for p in south.parts] == [
        ("rows", "red row, 9 cards", 10), ("rows", "green row, 7 cards", 6), ("rows", "blue row, 1 card", -4),
        ("points_row", "points row, 2 cards", 2), ("wish_cards", "wish cards 2, 7, 9 (3 cards)", 4)]
    assert south.total == 18 and south.by_category() == {"rows": 12, "points_row": 2, "wish_cards": 4}
    north = sheet.scores["north"]
    assert north.total == 5 * 1 + 0 - 4
    assert sheet.winners == ("south",) and not sheet.final
    assert sheet.to_json()["scores"]["north"]["wish_cards"] == -4


def test_scoring_tables_of_rules_3():
    expected_rows = {1: -4, 2: -3, 3: -2, 4: 1, 5: 2, 6: 3, 7: 6, 8: 7, 9: 10, 12: 10}
    for length, points_ in expected_rows.items():
        state = arrange(new_game(TWO), rows={"south": {"red": [R(5)] * length}})
        assert score(state).scores["south"].by_category()["rows"] == points_
    for count, points_ in {0: -4, 1: -1, 2: 0, 3: 4, 4: 6, 5: 10, 7: 10}.items():
        state = arrange(new_game(TWO), wish_cards={"south": list(range(1, count + 1))})
        assert score(state).scores["south"].by_category()["wish_cards"] == points_
    empty = score(new_game(TWO)).scores["south"]
    assert [(p.label, p.points) for p in empty.parts] == [("no coloured rows", 0), ("points row, 0 cards", 0),
                                                          ("no wish cards", -4)]


def test_ties_share_the_win():
    state = arrange(new_game(THREE), rows={"south": {"red": [R(3)] * 4}, "west": {"blue": [number("blue", 3)] * 4}})
    assert score(state).winners == ("south", "west")
