"""Scenario tests of the NWNZ expansion board rules, one rule each (RULES §2), on the mini board of
bg_builders (its map is in mini_nwnz_board's docstring)."""
from __future__ import annotations

from bg_builders import SEATS2, card, codes, mini_game

from engine.boardgame.game import (CloverStep, Discard, Draw, LayCard, Settings, SkipClover, SkipTileDiscard,
                                   TileDiscard, apply_move, legal_moves, observe)
from engine.observation import parse_observation


def lay(state, text, pawn, to, seat="south", **kw):
    return apply_move(state, LayCard(seat, card(text), pawn, to, **kw))


def lays(state):
    return {(m.card, m.pawn, m.to) for m in legal_moves(state) if isinstance(m, LayCard)}


# ---- movement (RULES §2 Movement) ----------------------------------------------------------------
def test_card_colour_must_be_the_colour_of_the_stone_entered():
    """RULES §2: to move a pawn one stone you play a card of the colour of the stone it enters."""
    state = mini_game(hands={"south": ["red 5", "blue 5"]})
    assert lays(state) == {(card("red 5"), 0, "a1"), (card("red 5"), 1, "a1"), (card("red 5"), 0, "c1"),
                           (card("red 5"), 1, "c1"), (card("blue 5"), 0, "b1"), (card("blue 5"), 1, "b1"),
                           (card("blue 5"), 0, "c1"), (card("blue 5"), 1, "c1")}
    t = lay(state, "red 5", 0, "b1")
    assert codes(t) == ["wrong-colour"]
    assert t.violations[0].message == "a red 5 cannot enter blue -4 (b1): it takes a blue card"
    assert t.state.row("south", "red") == (card("red 5"),)  # the card still went into its own row


def test_joker_stone_takes_any_colour_laid_in_that_colours_row():
    """RULES §2: entering a grey joker stone takes a card of any colour, laid in that colour's row."""
    state = mini_game(hands={"south": ["pink 3"]})
    t = lay(state, "pink 3", 0, "c1")
    assert t.legal and t.state.row("south", "pink") == (card("pink 3"),)
    assert t.state.pawn_stones("south")[0] == "c1"


def test_branches_choose_the_stone_by_card_colour():
    """RULES §2 Board: paths branch; the card decides which next stone (a1 → yellow a2 or green b2)."""
    state = mini_game(hands={"south": ["yellow 4", "green 4"]}, pawns={"south": ["a1"]})
    assert {(c, to) for c, p, to in lays(state) if p == 0} == {(card("yellow 4"), "a2"), (card("green 4"), "b2")}


def test_pawns_share_stones_and_paths():
    """RULES §2: any number of pawns, of any players, share a stone; several own pawns may use one path."""
    state = mini_game(hands={"south": ["red 5", "red 6"]}, pawns={"south": ["a1"], "north": ["a1"]})
    t = lay(state, "red 5", 1, "a1")
    assert t.legal and t.state.pawn_stones("south")[:2] == ("a1", "a1")


def test_pawns_only_move_forward():
    """RULES §2: pawns never move back toward the start."""
    state = mini_game(hands={"south": ["red 5"]}, pawns={"south": ["a2"]})
    assert codes(lay(state, "red 5", 0, "a1")) == ["pawn-backwards"]


def test_two_steps_with_one_card():
    """RULES §2 / §1: one card moves a pawn one stone."""
    state = mini_game(hands={"south": ["yellow 5"]})
    assert codes(lay(state, "yellow 5", 0, "a2")) == ["two-steps"]


def test_no_end_stone_overflow_on_nwnz():
    """RULES §2: unlike the base game, a pawn on an end stone does not let its colour move other pawns."""
    state = mini_game(hands={"south": ["red 9"]}, pawns={"south": ["eR", "a1"]})
    assert (card("red 9"), 1, "a2") not in lays(state)
    t = lay(state, "red 9", 1, "a2")
    assert codes(t) == ["end-stone-overflow"]
    assert "unlike the base game" in t.violations[0].message


# ---- tiles (RULES §2 Tiles) --------------------------------------------------------------------------
def test_points_tile_scores_and_stays():
    """RULES §2: points tile: score 2 or 3 at once (the big pawn does not double it)."""
    state = mini_game(hands={"south": ["red 5"]}, tiles={"a1": "points-3"})
    t = lay(state, "red 5", 0, "a1")
    assert t.state.points_of("south") == 3 and t.state.tiles_on_board()["a1"] == "points-3"


def test_clover_is_mandatory_any_colour_and_chains():
    """RULES §2: clover: you must move a pawn one stone (same one allowed) with no card, onto any next stone
    whatever its colour, pawns on the start too; a tile where it lands acts as usual."""
    state = mini_game(hands={"south": ["red 5"] + ["green 1"] * 7}, tiles={"a1": "clover", "b2": "discard"})
    t = lay(state, "red 5", 0, "a1")
    assert t.state.phase == "clover"
    options = set(legal_moves(t.state))
    assert options == {CloverStep("south", 0, "a2"), CloverStep("south", 0, "b2"), CloverStep("south", 1, "a1"),
                       CloverStep("south", 1, "b1"), CloverStep("south", 1, "c1")}  # no SkipClover
    skipped = apply_move(t.state, SkipClover("south"))
    assert codes(skipped) == ["clover-not-used"]
    drew = apply_move(t.state, Draw("south", "pile"))
    assert codes(drew) == ["clover-not-used"]
    chain = apply_move(t.state, CloverStep("south", 0, "b2"))  # green stone, no green card needed
    assert chain.legal and chain.state.phase == "discard-tile"  # the discard tile on b2 acts
    assert chain.state.wish_held("south") == {"green": 1}  # and so does the green wish pile there
    assert chain.state.tiles_on_board()["a1"] == "clover"


def test_wish_tile_is_taken_by_default():
    """RULES §2: wish stone tile: you take it (Italian, variant wish_tile default "take-tile")."""
    state = mini_game(hands={"south": ["red 5"]}, tiles={"a1": "wish-pink"})
    t = lay(state, "red 5", 0, "a1")
    assert t.legal and t.state.wish_held("south") == {"pink": 1}
    assert t.state.tiles_on_board()["a1"] is None and t.state.wish_piles == (3,) * 5
    left = lay(state, "red 5", 0, "a1", take=False)
    assert codes(left) == ["tile-not-taken"] and left.state.tiles_on_board()["a1"] == "wish-pink"


def test_wish_tile_from_pile_variant():
    """RULES §2 variant wish_tile="from-pile" (Japanese): the tile stays; a stone of its colour comes from the pile."""
    for settings in (Settings(wish_tile="from-pile"), Settings(tiles_taken="none")):
        state = mini_game(settings=settings, hands={"south": ["red 5"]}, tiles={"a1": "wish-pink"})
        t = lay(state, "red 5", 0, "a1")
        assert t.legal and t.state.wish_held("south") == {"pink": 1}
        assert t.state.tiles_on_board()["a1"] == "wish-pink"
        assert t.state.wish_piles[2] == 2  # pink is the third colour
        assert codes(lay(state, "red 5", 0, "a1", take=False)) == ["wish-not-taken"]


def test_wish_pile_gives_its_top_stone_while_any_are_left():
    """RULES §2: entering a wish-pile stone takes the top wish stone of that colour, if any is left."""
    state = mini_game(hands={"south": ["yellow 5"]}, pawns={"south": ["a1"]})
    t = lay(state, "yellow 5", 0, "a2")
    assert t.legal and t.state.wish_held("south") == {"yellow": 1} and t.state.wish_piles[1] == 2
    assert "took a yellow wish stone from its pile" in t.events[1].text
    assert codes(lay(state, "yellow 5", 0, "a2", take=False)) == ["wish-not-taken"]
    empty = mini_game(hands={"south": ["yellow 5"]}, pawns={"south": ["a1"]}, wish_piles={"yellow": 0})
    t = lay(empty, "yellow 5", 0, "a2", take=False)
    assert t.legal and t.state.wish_held("south") == {}
    assert "no yellow wish stones are left" in t.events[1].text


def test_discard_tile_from_hand_then_draw_two():
    """RULES §2: discard tile: you must at once discard a card (hand or top of a row); if two cards left the
    hand this turn you draw two."""
    state = mini_game(hands={"south": ["blue 5", "red 2"] + ["green 1"] * 6}, tiles={"b1": "discard"},
                      draw_pile=["pink 1", "pink 2", "pink 3"])
    t = lay(state, "blue 5", 0, "b1")
    assert t.state.phase == "discard-tile"
    options = set(legal_moves(t.state))
    assert options == {TileDiscard("south", card("red 2")), TileDiscard("south", card("green 1")),
                       TileDiscard("south", card("blue 5"), from_row=True)}  # no skip: it is a must
    t = apply_move(t.state, TileDiscard("south", card("red 2")))
    assert t.legal and t.state.discard_top("red") == card("red 2") and len(t.state.hand("south")) == 6
    assert Draw("south", "red") not in legal_moves(t.state)  # discarded this turn (RULES §2 Drawing)
    t = apply_move(t.state, Draw("south", "pile"))
    assert t.legal and t.state.turn == "south" and t.state.phase == "draw"
    t = apply_move(t.state, Draw("south", "pile"))
    assert t.legal and len(t.state.hand("south")) == 8 and t.state.turn == "north"


def test_discard_tile_from_the_row_then_draw_one():
    """RULES §2 example IV: discarding the card just laid keeps the row open; one card left the hand."""
    state = mini_game(hands={"south": ["blue 3"] + ["green 1"] * 7}, rows={"south": {"blue": [10]}},
                      tiles={"b1": "discard"}, draw_pile=["pink 1", "pink 2"])
    t = lay(state, "blue 3", 0, "b1")
    t = apply_move(t.state, TileDiscard("south", card("blue 3"), from_row=True))
    assert t.legal and t.state.row("south", "blue") == (card("blue 10"),)
    assert t.state.discard_top("blue") == card("blue 3")
    t = apply_move(t.state, Draw("south", "pile"))
    assert t.legal and t.state.turn == "north"


def test_discard_tile_must_be_obeyed_unless_optional():
    """RULES §2: the discard tile is a must (variant discard_tile_optional, default false)."""
    state = mini_game(hands={"south": ["blue 5"] + ["green 1"] * 7}, tiles={"b1": "discard"})
    t = lay(state, "blue 5", 0, "b1")
    assert codes(apply_move(t.state, SkipTileDiscard("south"))) == ["discard-tile-not-used"]
    assert codes(apply_move(t.state, Draw("south", "pile"))) == ["discard-tile-not-used"]
    optional = mini_game(settings=Settings(discard_tile_optional=True), hands={"south": ["blue 5"] + ["green 1"] * 7},
                         tiles={"b1": "discard"})
    t = lay(optional, "blue 5", 0, "b1")
    assert SkipTileDiscard("south") in legal_moves(t.state)
    assert apply_move(t.state, SkipTileDiscard("south")).legal


def test_discard_tile_takes_only_the_top_of_a_row():
    """RULES §2: the top card of any of your rows, or a card from the hand."""
    state = mini_game(hands={"south": ["blue 5"] + ["green 1"] * 7}, rows={"south": {"red": [2, 4, 6]}},
                      tiles={"b1": "discard"})
    t = lay(state, "blue 5", 0, "b1")
    middle = apply_move(t.state, TileDiscard("south", card("red 4"), from_row=True))
    assert codes(middle) == ["row-changed"]
    top = apply_move(t.state, TileDiscard("south", card("red 6"), from_row=True))
    assert top.legal and top.state.row("south", "red") == (card("red 2"), card("red 4"))


# ---- the end (RULES §2 End) --------------------------------------------------------------------------
def test_fifth_goal_pawn_takes_neither_tile_nor_wish_stone():
    """RULES §2 End: as in the base game the game ends at once when the fifth pawn enters the goal area;
    the action of its stone (tile or wish pile) is not carried out."""
    state = mini_game(hands={"south": ["blue 5"]}, pawns={"south": ["a3", "b4", "a5"], "north": ["eR", "eG"]},
                      tiles={"a4": "points-3"})
    assert state.goal_pawns == 4
    t = lay(state, "blue 5", 0, "a4")
    assert t.legal and t.state.game_over
    assert t.state.points_of("south") == 0 and t.state.wish_held("south") == {} and t.state.wish_piles[4] == 3


def test_clover_step_can_be_the_fifth_goal_pawn():
    """RULES §2 End: any pawn entering the goal area counts, a clover step too."""
    state = mini_game(hands={"south": ["red 5"]}, pawns={"south": ["start", "a3", "b4", "a5"], "north": ["eR", "eG"]},
                      tiles={"a1": "clover"})
    assert state.goal_pawns == 4
    t = lay(state, "red 5", 0, "a1")
    t = apply_move(t.state, CloverStep("south", 1, "a4"))
    assert t.legal and t.state.game_over and t.state.wish_piles[4] == 3


# ---- what the camera sees (RULES §2 wish stones, FORMATS §2) ---------------------------------------------
def test_observe_face_up_and_face_down():
    """RULES §2 variant wish_face_down: the camera cannot read the colours; observe() says so instead of lying."""
    for face_down in (False, True):
        state = mini_game(settings=Settings(wish_face_down=face_down), hands={"south": ["yellow 5"]},
                          pawns={"south": ["a1"]}, wish={"south": {"red": 1}})
        t = lay(state, "yellow 5", 0, "a2")
        obs = observe(t.state)
        seat = obs.seats["south"]
        if face_down:
            assert seat.wish == {} and seat.extra["wish_face_down"] == 2 and obs.extra["wish_face_down"] is True
        else:
            assert seat.wish == {"red": 1, "yellow": 1} and "wish_face_down" not in seat.extra
        assert parse_observation(obs.to_json()) == obs


def test_observe_shows_pawns_tiles_rows_and_discard_tops():
    """FORMATS §2: pawns incl. those on the start, every tile spot (null where empty), rows as codes."""
    state = mini_game(hands={"south": ["red 5", "blue 2"]}, tiles={"a1": "wish-pink", "b1": "clover"},
                      rows={"south": {"red": [10]}}, discards={"green": [3, 4]})
    t = lay(state, "red 5", 0, "a1")
    obs = observe(t.state)
    assert obs.game == "keltis" and obs.board == "mini-nwnz" and obs.usable
    assert len(obs.pawns) == 10 and sum(p.stone == "start" for p in obs.pawns) == 9
    assert [p for p in obs.pawns if p.stone == "a1"][0].big is True
    assert obs.tiles["a1"] is None and obs.tiles["b1"] == "clover" and set(obs.tiles) == {
        "a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4"}
    assert obs.seats["south"].rows == {"red": ("10", "5")} and obs.seats["north"].rows == {}
    assert obs.discard_tops == {"red": None, "yellow": None, "pink": None, "green": "4", "blue": None}
    assert obs.seats["south"].player == "black" and obs.seats["north"].player == "white"


def test_discard_move_on_nwnz_is_plain():
    """RULES §1 Turn (unchanged by §2): discarding goes onto its colour's pile; no pawn moves."""
    state = mini_game(seats=SEATS2, hands={"south": ["blue 5"]})
    t = apply_move(state, Discard("south", card("blue 5")))
    assert t.legal and t.state.discard_top("blue") == card("blue 5") and t.state.pawns == state.pawns
