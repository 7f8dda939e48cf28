"""The JSON API: GET /api/state, POST /api/game, /api/corrections, /api/questions/dismiss, /api/undo, and /healthz.

Every POST has already passed the PIN/CSRF guard (app.py). A body that cannot be used gets 400
(415 when it is not JSON) with the reason, and the tracker is not called.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from flask import Blueprint, jsonify, request

from engine.errors import MalformedInput
from engine.jsontext import loads

from .context import deps, error_response
from .validate import setup_options, validate_correction, validate_dismiss, validate_setup

log = logging.getLogger(__name__)
bp = Blueprint("api", __name__)


def json_body(*, optional: bool = False) -> Any:
    """The request's JSON body; raises MalformedInput (→ 400/415) when it is not one."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if optional:
            return {}
        raise MalformedInput("the request has no body; expected a JSON object", source="request body")
    if request.mimetype != "application/json":
        raise UnsupportedBody(f"expected Content-Type application/json, got {request.mimetype or 'none'!r}")
    return loads(raw, "request body")


class UnsupportedBody(MalformedInput):
    """A body that is not JSON at all (415)."""


def state_with_pipeline() -> dict[str, Any]:
    """The tracker's live snapshot, plus the pipeline's status when there is a pipeline."""
    d = deps()
    snap = dict(d.broadcaster.snapshot())  # with the warnings in words
    if d.pipeline is not None:
        try:
            snap["pipeline"] = d.pipeline.status()
        except Exception as exc:  # the page should still show the game
            snap["pipeline"] = {"error": str(exc)}
    return snap


def run_command(fn, *args) -> tuple[Any, tuple[int, str] | None]:
    """Call a tracker command: (result, None), or (None, (status, reason)) when the tracker refuses —
    400 for malformed input, 409 for a command that does not fit the game now."""
    try:
        return fn(*args), None
    except MalformedInput as exc:
        return None, (400, str(exc), *([{"field": exc.field}] if getattr(exc, "field", None) else []))
    except (ValueError, LookupError) as exc:
        # (a stale question or an answer no reading allows names its field: tracking.decoded.StaleQuestion)
        return None, (409, f"cannot do that now: {exc}",
                      *([{"field": exc.field}] if getattr(exc, "field", None) else []))


@bp.get("/healthz")
def healthz():
    """Liveness for scripts and the Pi's service manager: 200 while the tracker answers."""
    d = deps()
    try:
        snap = d.tracker.snapshot()
    except Exception as exc:
        return jsonify({"ok": False, "error": str(exc)}), 503
    body: dict[str, Any] = {"ok": True, "event_id": snap.get("event_id"),
                            "game": bool(snap.get("game")), "streams": d.open_streams,
                            "uptime_seconds": round(time.time() - d.started, 1)}
    if d.pipeline is not None:
        try:
            body["pipeline"] = d.pipeline.status()
        except Exception as exc:
            body["pipeline"] = {"error": str(exc)}
    return jsonify(body)


@bp.get("/api/state")
def state():
    """The live state: setup, turn, scores with breakdown, moves, warnings, score history, table."""
    return jsonify(state_with_pipeline())


@bp.get("/api/setup-options")
def options():
    """Games, boards, seats, pawn colours and rule settings the new-game screen offers."""
    return jsonify(setup_options(deps().games))


def _refused(err: tuple) -> Any:
    """run_command's refusal as a response: (status, reason[, {"field": ...}])."""
    return error_response(err[0], err[1], **(err[2] if len(err) > 2 else {}))


def _validated_command(validate, action, what: str):
    """Validate the JSON body, run the tracker command, answer (415/400 for a bad body, the
    command's own error otherwise); the same steps for every command that takes a body."""
    try:
        body = validate(json_body())
    except UnsupportedBody as exc:
        return None, error_response(415, str(exc))
    except MalformedInput as exc:  # the engine's message names the field; JSON clients also get it apart
        return None, error_response(400, str(exc), **({"field": exc.field} if exc.field else {}))
    result, err = run_command(action, body)
    if err is not None:
        return None, _refused(err)
    log.info("%s: %s", what, body)
    return result, None


@bp.post("/api/game")
def new_game():
    """Start a new game from a setup (docs/tracking-api.md new_game)."""
    d = deps()
    result, failed = _validated_command(lambda body: validate_setup(body, d.games), d.tracker.new_game, "new game")
    return failed if failed is not None else (jsonify(result), 201)


@bp.post("/api/corrections")
def correct():
    """Fix a misread (docs/tracking-api.md correct); scores recompute."""
    result, failed = _validated_command(validate_correction, deps().tracker.correct, "correction")
    return failed if failed is not None else jsonify(result)


@bp.post("/api/questions/dismiss")
def dismiss_question():
    """The page's "don't know / dismiss" of a decoder question {"pile", "card", "kind", "question"?}: withdrawn
    for every phone at once, stored (a restart keeps it), the decoder's reading kept. 409 (naming the field) when
    no such question is open any more."""
    d = deps()
    if not hasattr(d.tracker, "dismiss_question"):
        return error_response(501, "this tracker asks no questions")
    result, failed = _validated_command(validate_dismiss, d.tracker.dismiss_question, "question dismissed")
    return failed if failed is not None else jsonify(result)


@bp.post("/api/undo")
def undo():
    """Undo the last accepted move. The body, if any, must be an empty JSON object."""
    try:
        body = json_body(optional=True)
    except UnsupportedBody as exc:
        return error_response(415, str(exc))
    except MalformedInput as exc:
        return error_response(400, str(exc))
    if body != {}:
        return error_response(400, f"undo takes no parameters, got {body!r}")
    result, err = run_command(deps().tracker.undo)
    if err is not None:
        return _refused(err)
    log.info("undo")
    return jsonify(result)


@bp.post("/api/disputed")
def resolve_disputed():
    """After an undo the table still shows the move: {"keep": true} keeps it, false: "I took it back"."""
    d = deps()
    try:
        body = json_body()
    except UnsupportedBody as exc:
        return error_response(415, str(exc))
    except MalformedInput as exc:
        return error_response(400, str(exc))
    if not isinstance(body, dict) or set(body) != {"keep"} or not isinstance(body["keep"], bool):
        return error_response(400, f"expected {{\"keep\": true or false}}, got {body!r}"[:200])
    if not hasattr(d.tracker, "resolve_disputed"):
        return error_response(501, "this tracker cannot hold an undone move")
    result, err = run_command(d.tracker.resolve_disputed, body["keep"])
    if err is not None:
        return _refused(err)
    log.info("undone move %s", "kept" if body["keep"] else "taken back")
    return jsonify(result)


@bp.get("/api/boards/<name>")
def board(name: str):
    """A bundled board's stones (colour, value, kind), so the page can name stones in its language."""
    from engine.board import bundled_board

    from .validate import bundled_boards

    boards = bundled_boards(deps().games)
    if name not in boards:
        return error_response(404, f"no bundled board {name!r} (bundled: {boards})")
    b = bundled_board(name)
    stones = {s.id: {"kind": s.kind, "color": s.color, "value": s.value, "row": s.row, "next": list(s.next)}
              for s in b.stones.values()}
    resp = jsonify({"name": b.name, "title": b.title, "stones": stones})
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp
