"""Scoring the Keltis board game (RULES §1 Scoring, §2 Scoring) with a readable breakdown.

The part builders take plain data (pawn stones, points tiles, wish counts), so the same code
scores a GameState here and an observed state in observed.py.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from ..board import Board
from ..scoring import ScorePart, ScoreSheet, sheet
from ..tables import BASE_WISH_BY_COUNT, NWNZ_THREE_OF_A_COLOUR_BONUS, NWNZ_WISH_BY_COLOURS, lookup
from .state import WISH_KEYS, GameState, board_info


def pawn_parts(board: Board, pawns: Iterable[tuple[str, bool]]) -> list[ScorePart]:
    """One part per pawn on a stone: its stone's value, doubled for the big pawn (also when negative);
    pawns on the start score 0 and are summed up in one part (RULES §1 Scoring)."""
    info = board_info(board)
    pawns = list(pawns)
    parts: list[ScorePart] = []
    on_start = [big for stone, big in pawns if stone == info.start]
    for stone, big in pawns:
        if stone == info.start:
            continue
        value = info.value[stone]
        if big:
            parts.append(ScorePart("pawns", f"big pawn on {info.label[stone]}, doubled", 2 * value))
        else:
            parts.append(ScorePart("pawns", f"small pawn on {info.label[stone]}", value))
    if on_start:
        names = (["the big pawn"] if any(on_start) else []) + (
            [f"{sum(not b for b in on_start)} small pawn{'s' * (sum(not b for b in on_start) != 1)}"]
            if not all(on_start) else [])
        parts.append(ScorePart("pawns", f"{' and '.join(names)} still on the start", 0))
    return parts


def points_parts(board: Board, taken: Iterable[tuple[str | None, int]]) -> list[ScorePart]:
    """One part per points tile scored (its value, never doubled: RULES §1 Tiles, §2 Tiles)."""
    info = board_info(board)
    return [ScorePart("tiles", f"points tile on {info.label[stone]}" if stone in info.label else "points tiles",
                      value) for stone, value in taken]


def wish_parts(ruleset: str, wish: Mapping[str, int]) -> list[ScorePart]:
    """Wish stones: base by count (RULES §1); NWNZ by number of colours + 10 per colour held ≥3 times (§2)."""
    if ruleset == "base":
        n = sum(wish.values())
        return [ScorePart("wish", f"{n} wish stone{'s' * (n != 1)}", lookup(BASE_WISH_BY_COUNT, n))]
    held = {c: n for c, n in wish.items() if n > 0}
    k = len(held)
    detail = ", ".join(f"{n} {c}" for c, n in held.items())
    label = f"wish stones in {k} colour{'s' * (k != 1)}" + (f" ({detail})" if detail else "")
    parts = [ScorePart("wish", label, lookup(NWNZ_WISH_BY_COLOURS, k))]
    for colour, n in held.items():
        if n >= 3:
            parts.append(ScorePart("bonus", f"{n} {colour} wish stones (three or more of a colour)",
                                   NWNZ_THREE_OF_A_COLOUR_BONUS))
    return parts


def score(state: GameState) -> ScoreSheet:
    """The live score of every seat with its breakdown; final (winners decided) once the game is over."""
    board = state.board
    rows = []
    for i, seat in enumerate(state.seats):
        parts = pawn_parts(board, ((stone, k == 0) for k, stone in enumerate(state.pawns[i])))
        parts += points_parts(board, state.points[i])
        parts += wish_parts(board.ruleset, dict(zip(WISH_KEYS, state.wish[i])))
        rows.append((seat, state.players[i], parts))
    return sheet(rows, final=state.game_over)
