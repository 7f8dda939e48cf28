"""Builders for hand-made observed states of the board game (FORMATS §2), used by the
test_observed_board_*.py tests.

Stones are found on the real board files by their properties (colour, wish pile, goal area, …)
rather than hard-coded, so the tests keep working when a board file is corrected.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from engine.board import Board, bundled_board
from engine.cards import COLOURS
from engine.observation import Observation, parse_observation

TWO_SEATS = {"south": "black", "west": "white"}


def observation_json(board: str = "base", *, seats: Mapping[str, str] = TWO_SEATS,
                     pawns: Mapping[str, Iterable[str]] | None = None, big: Mapping[str, str] | None = None,
                     rows: Mapping[str, Mapping[str, list[str]]] | None = None,
                     wish: Mapping[str, Mapping[str, int]] | None = None,
                     tiles: Mapping[str, str | None] | None = None,
                     discard: Mapping[str, str | None] | None = None,
                     list_start: bool = True) -> dict[str, Any]:
    """A FORMATS §2 object. pawns: player colour → stones of small pawns; big: player → stone of
    the big pawn (default the start). The rest of a player's five pawns stand on the start and are
    listed unless list_start is False. tiles: every tile spot empty except those given."""
    b = bundled_board(board)
    out_pawns = []
    for player in seats.values():
        smalls = list((pawns or {}).get(player, []))
        big_stone = (big or {}).get(player, "start")
        out_pawns.append({"stone": big_stone, "player": player, "big": True})
        out_pawns += [{"stone": s, "player": player, "big": False} for s in smalls]
        out_pawns += [{"stone": "start", "player": player, "big": False} for _ in range(4 - len(smalls))]
    if not list_start:
        out_pawns = [p for p in out_pawns if p["stone"] != "start"]
    all_tiles: dict[str, str | None] = {s: None for s in b.tile_spots}
    all_tiles.update(tiles or {})
    return {
        "format": "keltis-observation/1", "game": "keltis", "board": board, "usable": True, "reason": None,
        "pawns": out_pawns, "tiles": all_tiles,
        "seats": {seat: {"player": player, "rows": dict((rows or {}).get(seat, {})), "points_row": 0,
                         "wish": dict((wish or {}).get(seat, {})), "wish_cards": []}
                  for seat, player in seats.items()},
        "discard_tops": {c: (discard or {}).get(c) for c in COLOURS},
        "confidence": {},
    }


def obs(board: str = "base", **kw: Any) -> Observation:
    """observation_json(...) parsed and validated like a file."""
    return parse_observation(observation_json(board, **kw), f"<test {board}>")


def codes(report: Any) -> list[str]:
    """The violation codes of a ChangeReport, in order."""
    return [v.code for v in report.violations]


def kinds(report: Any) -> list[str]:
    """The event kinds of a ChangeReport, in order."""
    return [c.kind for c in report.changes]


def stones(board: Board, pred: Callable[[Any], bool]) -> list[str]:
    """Ids of the path stones (not the start) that match, in file order."""
    return [s.id for s in board.stones.values() if s.kind == "stone" and pred(s)]


def edge(board: Board, pred: Callable[[Any, Any], bool]) -> tuple[str, str]:
    """The first forward step (a, b) that matches (a may be the start)."""
    for a in board.stones.values():
        for nid in a.next:
            if pred(a, board.stones[nid]):
                return a.id, nid
    raise LookupError("no step matches")


def chain(board: Board, pred: Callable[[Any, Any, Any], bool]) -> tuple[str, str, str]:
    """The first two-step chain a → b → c that matches."""
    for a in board.stones.values():
        for bid in a.next:
            for cid in board.stones[bid].next:
                if pred(a, board.stones[bid], board.stones[cid]):
                    return a.id, bid, cid
    raise LookupError("no chain matches")


def other_colour(colour: str) -> str:
    """A card colour different from `colour`."""
    return next(c for c in COLOURS if c != colour)


def plain(board: Board, stone: Any) -> bool:
    """A stone where nothing special happens: coloured (no joker), no wish pile, not in the goal."""
    return (stone.kind == "stone" and stone.color != "joker" and not stone.wish_pile
            and not board.in_goal(stone.id))
