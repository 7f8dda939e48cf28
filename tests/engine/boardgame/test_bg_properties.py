"""Property tests over whole random games (RULES §1–2 as a whole) on the base, NWNZ and mini boards."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from bg_builders import mini_nwnz_board, nwnz_board
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import bundled_board
from engine.boardgame.game import (Settings, apply_move, legal_moves, move_from_json, observe, play_random_game,
                                   random_illegal_move, random_policy, replay, score, steady_policy)
from engine.boardgame.score import pawn_parts, points_parts, wish_parts
from engine.cards import PLAYER_COLOURS, SEATS, board_game_deck

NWNZ = nwnz_board()
BOARDS = {"base": bundled_board("base"), "mini-nwnz": mini_nwnz_board(), **({"nwnz": NWNZ} if NWNZ else {})}
BOARD_PARAMS = ["base", pytest.param("nwnz", marks=pytest.mark.skipif(
    NWNZ is None, reason="engine/boards/nwnz.json does not exist yet")), "mini-nwnz"]
SEAT_CHOICES = [dict(zip(("south", "north"), PLAYER_COLOURS)), dict(zip(SEATS[:3], PLAYER_COLOURS)),
                dict(zip(SEATS, PLAYER_COLOURS))]

settings_strategy = st.builds(Settings, tiles_taken=st.sampled_from(["wish-tiles", "none"]),
                              discard_tile_optional=st.booleans(), wish_tile=st.sampled_from(["take-tile", "from-pile"]),
                              wish_face_down=st.booleans())
# (seed, seats, settings, policy): random_policy explores every kind of step; steady_policy plays like a
# person, so pawns reach the goal area and games also end by the fifth goal pawn.
games = st.tuples(st.integers(0, 2**31), st.sampled_from(SEAT_CHOICES), settings_strategy,
                  st.sampled_from([random_policy, steady_policy]))
PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def score_from_observation(state, announced: Counter) -> dict[str, int]:
    """Totals rebuilt from what the camera sees (observe) plus the points tiles announced in the events
    (not the state's own points field)."""
    obs = observe(state)
    out = {}
    for seat, seen in obs.seats.items():
        pawns = [(p.stone, p.big) for p in obs.pawns if p.player == seen.player]
        wish = seen.wish if not seen.extra.get("wish_face_down") else state.wish_held(seat)
        parts = (pawn_parts(state.board, pawns) + wish_parts(state.board.ruleset, wish)
                 + points_parts(state.board, [(None, announced[seat])]))
        out[seat] = sum(p.points for p in parts)
    return out


@pytest.mark.parametrize("board_name", BOARD_PARAMS)
@PROPERTY
@given(game=games)
def test_random_legal_games(board_name, game):
    """Random legal play (RULES §1–2): never a violation, ends by one of the two end rules, replays from
    its move log (also through JSON), ids count the moves, no card is lost, scores add up."""
    seed, seats, rules, policy = game
    board = BOARDS[board_name]
    record = play_random_game(seats, rules, seed, board=board, policy=policy)
    final = record.final
    assert record.violations == ()
    assert final.game_over and final.end_reason in ("5 pawns are in the goal area",
                                                   "the last card was drawn from the draw pile")
    if final.end_reason.startswith("5"):
        assert final.goal_pawns == 5
    else:
        assert final.draw_pile == ()
    assert [s.id for s in record.states] == list(range(len(record.moves) + 1))
    assert replay(record.initial, record.moves) == final
    assert replay(record.initial, [move_from_json(m.to_json()) for m in record.moves]) == final
    assert Counter(final.all_cards()) == Counter(board_game_deck())
    # points held = the points tiles announced in the events (RULES §1/§2 Tiles: scored at once)
    announced = Counter()
    wish_events = Counter()
    for e in record.events:
        if e.kind == "points-scored":
            announced[e.seat] += e.data["points"]
        if e.kind == "wish-taken":
            wish_events[(e.seat, e.data["colour"])] += 1
    assert {s: final.points_of(s) for s in final.seats} == {s: announced[s] for s in final.seats}
    for s in final.seats:
        assert final.wish_held(s) == {c: n for (seat, c), n in wish_events.items() if seat == s}
    # wish stones are conserved: what the players hold came off the piles or off the board
    def wish_tiles(state):
        return sum(1 for t in state.tiles if t and t.startswith("wish-"))
    held = sum(sum(w) for w in final.wish)
    assert held == (sum(record.initial.wish_piles) - sum(final.wish_piles)
                    + wish_tiles(record.initial) - wish_tiles(final))
    # the live score equals a recomputation from the observed table plus the announced points
    sheet = score(final)
    assert {s: p.total for s, p in sheet.scores.items()} == score_from_observation(final, announced)
    assert sheet.final


@pytest.mark.parametrize("board_name", BOARD_PARAMS)
@PROPERTY
@given(game=games, picks=st.randoms(use_true_random=False))
def test_random_illegal_move_is_flagged(board_name, game, picks):
    """A rule-breaking move (RULES §1–2) is applied and reported with its code, at any moment of a game."""
    seed, seats, rules, policy = game
    record = play_random_game(seats, rules, seed, board=BOARDS[board_name], policy=policy)
    states = list(record.states)
    for state in [picks.choice(states) for _ in range(6)] + [record.final]:
        rng = random.Random(picks.random())
        found = random_illegal_move(state, rng)
        assert found is not None  # out-of-turn or game-over is always possible
        move, code = found
        t = apply_move(state, move)
        assert code in [v.code for v in t.violations], (move, code, t.violations)
        assert all(v.message for v in t.violations)
        assert t.state.id == state.id + 1


@pytest.mark.parametrize("board_name", BOARD_PARAMS)
@PROPERTY
@given(game=games)
def test_legal_moves_are_legal(board_name, game):
    """Every move legal_moves lists is applied without a violation (RULES §1–2), at every tenth state."""
    seed, seats, rules, policy = game
    record = play_random_game(seats, rules, seed, board=BOARDS[board_name], policy=policy)
    for state in record.states[::10]:
        moves = legal_moves(state)
        assert bool(moves) != state.game_over
        assert len(set(moves)) == len(moves)
        for move in moves:
            assert apply_move(state, move).violations == (), move


@pytest.mark.parametrize("board_name", BOARD_PARAMS)
def test_illegal_move_kinds_are_all_reachable(board_name):
    """random_illegal_move covers the rule breaks the tracker must recognise (RULES §1–2)."""
    board = BOARDS[board_name]
    seen = Counter()
    for seed in range(12):
        record = play_random_game(SEAT_CHOICES[2], Settings(), seed, board=board)
        rng = random.Random(seed)
        for state in record.states:
            found = random_illegal_move(state, rng)
            if found:
                seen[found[1]] += 1
    must = {"row-order", "two-steps", "out-of-turn", "game-over", "draw-count", "two-cards",
            "draw-own-discard"}
    must |= {"second-pawn-on-path"} if board.ruleset == "base" else {"wrong-colour", "clover-not-used"}
    assert must <= set(seen), must - set(seen)
    assert {"tile-not-taken", "wish-not-taken"} & set(seen)


@pytest.mark.parametrize("board_name", ["base", "mini-nwnz"])
def test_both_end_conditions_occur_in_random_play(board_name):
    """RULES §1 End: random games end both ways (fifth goal pawn, last card drawn), and legally."""
    reasons = set()
    for seed in range(20):
        record = play_random_game(SEAT_CHOICES[1], Settings(), seed, board=BOARDS[board_name], policy=steady_policy)
        assert record.violations == ()
        reasons.add(record.final.end_reason)
    assert reasons == {"5 pawns are in the goal area", "the last card was drawn from the draw pile"}


def test_same_seed_same_game():
    """Seeded random play is deterministic (boardgame.io style: the log replays, seeds included)."""
    a = play_random_game(SEAT_CHOICES[1], Settings(), 77, board=BOARDS["mini-nwnz"])
    b = play_random_game(SEAT_CHOICES[1], Settings(), 77, board=BOARDS["mini-nwnz"])
    assert a.moves == b.moves and a.final == b.final
    c = play_random_game(SEAT_CHOICES[1], Settings(), 78, board=BOARDS["mini-nwnz"])
    assert c.moves != a.moves
