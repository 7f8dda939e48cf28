"""Property tests: the camera-side check agrees with the game model (engine.boardgame.game).

- every whole turn of a random legal game, seen as two observed states, breaks no rule;
- a random rule-breaking move, seen the same way, is reported with the code the model expects,
  unless that rule break cannot be seen by a camera comparing two pictures (listed below);
- scoring the observed state gives the model's score.

What a stateless camera check cannot see (documented, asserted as such below):
- out-of-turn by a discard: the pile shows a new card, not whose hand it came from;
- draw-count (drawing before playing) and draw-own-discard: hands and the draw pile are hidden,
  and a discard drawn back leaves its pile as it was;
- two-cards by a second discard: only when it lands on a pile that was empty at the turn's
  start (a draw cannot fill an empty pile) beyond the discards the turn allows; otherwise it looks
  like the turn's draw;
- two-steps when the pawn passed over a clover (identical to a legal clover step) or over a stone
  where another own pawn of its size stood (identical to two pawns moving one stone each);
- discard-tile-not-used: only when every discard pile was empty (any non-empty pile could hide a
  discarded duplicate of its top card);
- game-over: only when the game ended by the fifth goal pawn (not by the last card drawn) and the
  move changed something visible (a card drawn from the draw pile does not).
"""
from __future__ import annotations

import random
import typing

from hypothesis import HealthCheck, given, settings, strategies as st

from engine.boardgame import game
from engine.boardgame.game import CloverStep, Discard, LayCard, SkipTileDiscard
from engine.boardgame.observed import check_change, score_observation
from engine.boardgame.settings import Settings
from engine.boardgame.state import board_info
from engine.cards import COLOURS

SEATS4 = {"south": "black", "west": "white", "north": "grey", "east": "brown"}
INVISIBLE = {"out-of-turn", "draw-count", "draw-own-discard"}


def seats(n: int) -> dict[str, str]:
    return dict(list(SEATS4.items())[:n])


def _choices(name: str) -> tuple:
    hint = typing.get_type_hints(Settings)[name]
    return typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else (False, True)


rule_settings = st.builds(Settings, tiles_taken=st.sampled_from(_choices("tiles_taken")),
                          discard_tile_optional=st.booleans(), wish_tile=st.sampled_from(_choices("wish_tile")),
                          wish_face_down=st.booleans())
boards = st.sampled_from(["base", "nwnz"])
players = st.integers(2, 4)
seeds = st.integers(0, 2**31 - 1)


def turn_starts(states) -> list[int]:
    """For each state index, the index of the state its turn started from."""
    out, start = [], 0
    for k, s in enumerate(states):
        if k and s.turn_number != states[k - 1].turn_number:
            start = k
        out.append(start)
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, n=players, seed=seeds, rules=rule_settings)
def test_every_whole_turn_of_a_legal_game_is_legal_to_the_camera(board, n, seed, rules):
    record = game.play_random_game(seats(n), rules, seed, board=board)
    states = record.states
    assert not record.violations
    starts = turn_starts(states)
    boundaries = sorted(set(starts)) + [len(states) - 1]
    for a, b in zip(boundaries, boundaries[1:]):
        before, after = states[a], states[b]
        report = check_change(game.observe(before), game.observe(after), rules, turn=before.turn)
        assert report.legal, (board, seed, [str(m) for m in record.moves[a:b]], report.violations)


def _passes_lookalike(state, start, pawn: int, frm: str, to: str) -> bool:
    """Does some shortest way from frm to to pass (not end) on a clover, or on a stone where another
    own pawn of the same size stands now or stood at the turn's start (then the picture is that of
    two pawns moving one stone each)?"""
    info = board_info(state.board)
    tiles = state.tiles_on_board()
    i = state.turn_index
    twins = {s for own in (state.pawns[i], start.pawns[i]) for k, s in enumerate(own)
             if k != pawn and (k == 0) == (pawn == 0)}
    n = info.steps(frm, to)
    if n is None or n < 2:
        return False
    frontier = {frm}
    for _ in range(n - 1):
        frontier = {x for s in frontier for x in info.next[s] if info.steps(x, to) is not None}
        if any(tiles.get(s) == "clover" or s in twins for s in frontier):
            return True
    return False


def _visible(code: str, move, state, start, before_obs, after_obs) -> bool:
    """Can a camera comparing the turn's start with the table after `move` see this rule break?"""
    if code in INVISIBLE:
        return False
    i = state.turn_index
    if code == "two-steps":
        if isinstance(move, (LayCard, CloverStep)):
            return not _passes_lookalike(state, start, move.pawn, state.pawns[i][move.pawn], move.to)
        return True
    if code == "two-cards" and isinstance(move, Discard):
        earlier = [COLOURS[ci] for ci, _ in state.turn_discards]
        onto_empty = {c for c in earlier + [move.card.colour] if start.discard_top(c) is None}
        return len(onto_empty) > len(earlier)
    if code == "discard-tile-not-used" and isinstance(move, SkipTileDiscard):
        return all(start.discard_top(c) is None for c in COLOURS)
    if code == "game-over":
        in_goal = sum(1 for p in before_obs.pawns if state.board.in_goal(p.stone))
        return in_goal >= 5 and before_obs.to_json() != after_obs.to_json()
    return True


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, n=players, seed=seeds)
def test_a_random_illegal_move_is_reported_with_the_expected_code(board, n, seed):
    rules = Settings()
    record = game.play_random_game(seats(n), rules, seed, board=board)
    states = record.states
    starts = turn_starts(states)
    rng = random.Random(seed)
    for k in rng.sample(range(len(states)), min(15, len(states))):
        state = states[k]
        picked = game.random_illegal_move(state, rng)
        if picked is None:
            continue
        move, code = picked
        t = game.apply_move(state, move)
        assert code in [v.code for v in t.violations]
        start = state if state.game_over else states[starts[k]]
        before_obs, after_obs = game.observe(start), game.observe(t.state)
        report = check_change(before_obs, after_obs, rules, turn=state.turn)
        got = [v.code for v in report.violations]
        if _visible(code, move, state, start, before_obs, after_obs):
            assert code in got, (board, seed, k, str(move), code, got, [c.text for c in report.changes])


@settings(max_examples=20, deadline=None)
@given(board=boards, n=players, seed=seeds)
def test_observed_score_equals_the_model_score(board, n, seed):
    """RULES §1–2 Scoring from the camera's view, with the points-tile points passed in, equals game.score."""
    record = game.play_random_game(seats(n), Settings(), seed, board=board)
    states = record.states
    for state in (states[len(states) // 3], states[2 * len(states) // 3], states[-1]):
        points = {s: state.points_of(s) for s in state.seats}
        seen = score_observation(game.observe(state), points)
        model = game.score(state)
        assert {s: p.total for s, p in seen.scores.items()} == {s: p.total for s, p in model.scores.items()}
        assert seen.winners == model.winners
        if sum(1 for own in state.pawns for s in own if state.board.in_goal(s)) >= 5:
            assert seen.final


def test_the_visibility_list_names_real_codes():
    from engine.violations import CODES
    assert INVISIBLE <= set(CODES)
    assert all(c in CODES for c in ("two-steps", "two-cards", "discard-tile-not-used", "game-over"))
