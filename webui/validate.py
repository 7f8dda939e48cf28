"""Checks on what the table sends (a new game's setup, a correction) before the tracker sees it.

A request that fails here gets 400 with the reason (and the field) and changes nothing. A setup is
validated by the engine (engine/setup.py), the one setup validation; this module adds only what
is the page's own: the body's shape and the fields it may carry. The rule settings offered
are read from the game modules' Settings dataclasses (RULES.md variants as Literal fields), so the
form always matches the engine.
"""
from __future__ import annotations

import dataclasses
import typing
from typing import Any

from engine.cards import COLOURS, PLAYER_COLOURS, SEATS
from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry
from engine.observation import TILE_CODES
from engine.settings import settings_to_json
from engine.setup import SETUP_FIELDS, Setup

CORRECTION_KINDS = ("pawn", "row", "tile", "seats", "end")
#: The fields each correction kind takes (tracking/model.py reads exactly these); any other field is
#: refused by name rather than silently ignored. A kind not listed here is only shape-checked.
CORRECTION_FIELDS = {
    "pawn": {"player", "seat", "to", "stone", "big", "from"},
    "row": {"seat", "colour", "cards"},
    "tile": {"stone", "tile"},
    "seats": {"seats", "names"},
    "end": {"ended", "reason"},
    "turn": {"seat"},
    "points": {"seat", "points"},
    "wish": {"seat", "colour", "count"},
    "discard": {"pile", "top"},
    "discarded": {"pile", "card", "seat", "question"},   # the answer to the decoder's "who discarded the red 7?"
    "took": {"pile", "card", "seat", "question"},        # ... and to "who took the green 0 from its discard pile?"
}


class RequestError(MalformedInput):
    """A request body that cannot be used; the message is shown to whoever sent it."""


def bundled_boards(games: GameRegistry = GAMES) -> list[str]:
    """The bundled boards the registry's board games are played on (base first)."""
    return list(dict.fromkeys(b for g in games for b in g.boards))


def settings_class(game: str, games: GameRegistry = GAMES) -> type | None:
    """The game's Settings dataclass, or None while that game module is not available."""
    try:
        cls = games.get(game).settings_class()
    except (ImportError, AttributeError):
        return None
    return cls if dataclasses.is_dataclass(cls) else None


def rule_options(game: str, games: GameRegistry = GAMES) -> list[dict[str, Any]]:
    """The rule settings of a game: [{"name", "choices", "default"}] (bool settings: [false, true])."""
    cls = settings_class(game, games)
    if cls is None:
        return []
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        hint = hints.get(f.name)
        if typing.get_origin(hint) is typing.Literal:
            choices = list(typing.get_args(hint))
        elif hint is bool:
            choices = [False, True]
        else:
            continue  # not a choice the table makes
        default = f.default if f.default is not dataclasses.MISSING else choices[0]
        out.append({"name": f.name, "choices": choices, "default": default})
    return out


def setup_options(games: GameRegistry = GAMES) -> dict[str, Any]:
    """Everything the new-game screen offers: the games of the registry, their boards and rules."""
    return {"games": list(games.ids()), "boards": bundled_boards(games), "seats": list(SEATS),
            "colours": list(PLAYER_COLOURS), "rules": {g: rule_options(g, games) for g in games.ids()}}


def _object(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise RequestError(f"expected a JSON object, got {type(body).__name__}", source=what)
    return body


def validate_setup(body: Any, games: GameRegistry = GAMES) -> dict[str, Any]:
    """A checked, normalised setup for tracker.new_game(): the engine's validation (Setup.from_json,
    whose MalformedInput names the bad field) after the page's own check of the body's shape. The
    rule settings come back complete, defaults included, so the page shows which a game uses."""
    body = _object(body, "setup")
    unknown = sorted(set(body) - set(SETUP_FIELDS))
    if unknown:
        raise RequestError(f"unknown field(s) {unknown} (known: {sorted(SETUP_FIELDS)})", source="setup")
    setup = Setup.from_json(body, "setup", games)
    out = setup.to_json()
    out["rules"] = settings_to_json(games.get(setup.game).settings(setup.rules, "setup.rules"))
    return out


def correction_kinds() -> tuple[str, ...]:
    """The corrections the tracker knows (tracking/model.py), else the contract's five."""
    try:
        from tracking.model import CORRECTION_KINDS as kinds
    except ImportError:
        return CORRECTION_KINDS
    return tuple(kinds)


def _int_field(body: dict[str, Any], key: str, lo: int, hi: int) -> None:
    value = body.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi):
        raise RequestError(f"expected a whole number {lo}–{hi}, got {value!r}", source="correction", field=key)


def validate_correction(body: Any) -> dict[str, Any]:
    """Shape checks on a correction; the tracker checks it against the game and may still refuse."""
    body = _object(body, "correction")
    kinds = correction_kinds()
    kind = body.get("kind")
    if kind not in kinds:
        raise RequestError(f"{kind!r} is not one of {list(kinds)}", source="correction", field="kind")
    takes = CORRECTION_FIELDS.get(kind)
    unknown = sorted(set(body) - {"kind"} - takes) if takes is not None else []
    if unknown:
        raise RequestError(f"a {kind} correction takes {sorted(takes)}, not {unknown}", source="correction",
                           field=unknown[0])
    seat = body.get("seat")
    if seat is not None and seat not in SEATS:
        raise RequestError(f"unknown seat {seat!r}", source="correction", field="seat")
    player = body.get("player")
    if player is not None and player not in PLAYER_COLOURS:
        raise RequestError(f"unknown pawn colour {player!r}", source="correction", field="player")
    colour = body.get("colour")
    allowed = (*COLOURS, "any") if kind == "wish" else COLOURS
    if colour is not None and colour not in allowed:
        raise RequestError(f"unknown colour {colour!r}", source="correction", field="colour")
    pile = body.get("pile")
    if pile is not None and pile not in (*COLOURS, "points"):
        raise RequestError(f"unknown discard pile {pile!r}", source="correction", field="pile")
    tile = body.get("tile")
    if kind == "tile" and tile is not None and tile not in TILE_CODES:
        raise RequestError(f"unknown tile {tile!r}", source="correction", field="tile")
    if kind in ("discarded", "took") and (body.get("seat") is None or body.get("pile") is None
                                          or not isinstance(body.get("card"), str)):
        raise RequestError(f"who {kind} a card: give pile, card and seat", source="correction",
                           field="seat" if body.get("seat") is None else "pile" if body.get("pile") is None else "card")
    if kind in ("discarded", "took"):
        _question_id(body, "correction")
    for key in ("stone", "from", "to", "top", "card"):
        value = body.get(key)
        if value is not None and (not isinstance(value, str) or not value or len(value) > 32):
            raise RequestError(f"expected a short text, got {value!r}", source="correction", field=key)
    for key in ("big", "ended"):
        if key in body and not isinstance(body[key], bool):
            raise RequestError(f"expected true or false, got {body[key]!r}", source="correction", field=key)
    _int_field(body, "count", 0, 25)
    _int_field(body, "points", 0, 200)
    reason = body.get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > 40):
        raise RequestError(f"expected a short reason, got {reason!r}", source="correction", field="reason")
    cards = body.get("cards")
    if cards is not None:
        if not isinstance(cards, list) or len(cards) > 40 or not all(isinstance(c, str) for c in cards):
            raise RequestError(f"expected a list of row entries, got {cards!r}", source="correction", field="cards")
        from engine.cards import parse_row_code

        for i, code in enumerate(cards):
            try:
                parse_row_code(code, colour or "red")
            except ValueError as exc:
                raise RequestError(str(exc), source="correction", field=f"cards[{i}]") from None
    if kind == "seats":
        seats = body.get("seats")
        if seats is not None and (not isinstance(seats, dict)
                                  or any(k not in SEATS or v not in PLAYER_COLOURS for k, v in seats.items())):
            raise RequestError(f"expected seat → pawn colour, got {seats!r}", source="correction", field="seats")
    return body


#: The fields a dismiss of a question takes (POST /api/questions/dismiss: the page's "don't know").
DISMISS_FIELDS = ("pile", "card", "kind", "question")


def _question_id(body: dict[str, Any], source: str) -> None:
    """The optional "question": the id the page showed the question with (tracker snapshot questions[].id)."""
    qid = body.get("question")
    if qid is not None and (isinstance(qid, bool) or not isinstance(qid, int) or qid < 1):
        raise RequestError(f"question: expected the question's id (a whole number from 1), got {qid!r}",
                           source=source, field="question")


def validate_dismiss(body: Any) -> dict[str, Any]:
    """Shape checks on a dismiss {"pile", "card", "kind": "discard" | "draw", "question"?}; the tracker checks
    that such a question is open."""
    body = _object(body, "dismiss")
    unknown = sorted(set(body) - set(DISMISS_FIELDS))
    if unknown:
        raise RequestError(f"a dismiss takes {list(DISMISS_FIELDS)}, not {unknown}", source="dismiss", field=unknown[0])
    if body.get("pile") not in (*COLOURS, "points"):
        raise RequestError(f"unknown discard pile {body.get('pile')!r}", source="dismiss", field="pile")
    if not isinstance(body.get("card"), str):
        raise RequestError(f"card: expected the card as the question shows it, got {body.get('card')!r}",
                           source="dismiss", field="card")
    if body.get("kind", "discard") not in ("discard", "draw"):
        raise RequestError(f"kind: expected \"discard\" or \"draw\", got {body.get('kind')!r}", source="dismiss",
                           field="kind")
    _question_id(body, "dismiss")
    return body
