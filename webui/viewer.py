"""What every phone may see (read-only): the live page, the pictures, the exports, the QR code."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, g, redirect, render_template, request

from engine.errors import MalformedInput

from .context import deps, error_response
from .i18n import LANG_COOKIE
from .qr import lan_ip, qr_svg_document
from .render import chart_svg, game_title, ranking, summary_svg, table_svg

bp = Blueprint("viewer", __name__)

RECORD_FORMAT = "keltis-game-record/1"


def tr(key: str, **kw: Any) -> str:
    """Translate for the current request."""
    d = deps()
    return d.translations.gettext(g.get("lang", d.translations.fallback), key, **kw)


def page_address() -> str:
    """The address other phones use to open this page (what the QR code holds)."""
    d = deps()
    if d.page_url:
        return d.page_url
    parts = urlsplit(request.host_url)
    host = parts.hostname or "127.0.0.1"
    if host in ("localhost", "127.0.0.1", "::1"):
        host = lan_ip() or host
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}/"


def source_note(snapshot: dict[str, Any]) -> str:
    """The small print under the page: where the game is read from."""
    d = deps()
    if d.config.source_label:
        base = d.config.source_label
    else:
        base = ""
    observer = ((snapshot.get("game") or {}).get("observer")
                or (snapshot.get("status") or {}).get("observer"))
    if observer == "truth":
        note = tr("source.truth")
    elif observer == "vision":
        note = tr("source.vision")
    else:
        note = ""
    return " · ".join(p for p in (base, note) if p)


@bp.get("/")
def live():
    """The live page every player opens."""
    d = deps()
    snapshot, _, _ = d.broadcaster.current()
    strings = d.translations.bundle(g.lang)
    return render_template("live.html", snapshot=snapshot, strings=strings,
                           title=game_title(snapshot, tr), source_note=source_note(snapshot),
                           source_label=d.config.source_label or "", has_frames=d.pipeline is not None,
                           can_replay=bool(getattr(d.pipeline, "can_restart", False)))


@bp.get("/lang/<code>")
def set_language(code: str):
    """The language switch: remember the choice and go back."""
    d = deps()
    if code not in d.translations.languages:
        return error_response(404, f"no such language {code!r} (offered: {list(d.translations.languages)})")
    target = request.args.get("next") or "/"
    if not target.startswith("/") or target.startswith("//"):
        target = "/"
    resp = redirect(target)
    resp.set_cookie(LANG_COOKIE, code, max_age=365 * 86400, samesite="Lax")
    return resp


@bp.get("/view/table.svg")
def table_picture():
    """What the camera read on the board at the last accepted table state."""
    snapshot = deps().tracker.snapshot()
    game = snapshot.get("game") or {}
    if not game or not game.get("board"):
        return error_response(404, "no board game in play")
    from engine.board import load_board

    try:
        board = load_board(game["board"])
    except MalformedInput as exc:
        return error_response(404, str(exc))
    names = {colour: (game.get("names") or {}).get(seat) for seat, colour in (game.get("seats") or {}).items()}
    svg = table_svg(board, snapshot.get("table"), tr, {c: n for c, n in names.items() if n})
    return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


@bp.get("/view/frame.jpg")
def camera_picture():
    """The camera frame behind the last reading, with what was read drawn on it (if there is a camera)."""
    d = deps()
    jpeg = d.pictures.annotated(d.tracker.snapshot())
    if jpeg is None:
        return error_response(404, "no camera frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-cache"})


@bp.get("/qr.svg")
def qr_code():
    """A QR code of this page's local address, to join from another phone."""
    return Response(qr_svg_document(page_address()), mimetype="image/svg+xml",
                    headers={"Cache-Control": "no-cache"})


def game_record() -> dict[str, Any]:
    """The game as a JSON record: setup, moves, warnings, scores and their history."""
    snap = deps().tracker.snapshot()
    return {"format": RECORD_FORMAT,
            "exported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "event_id": snap.get("event_id"), "game": snap.get("game"),
            "game_over": snap.get("game_over"), "end_reason": snap.get("end_reason"),
            "scores": snap.get("scores"), "moves": snap.get("moves") or [],
            "warnings": snap.get("warnings") or [], "score_history": snap.get("score_history") or [],
            "table": snap.get("table")}


def _download_name(ext: str) -> str:
    return f"keltis-{datetime.now().strftime('%Y%m%d-%H%M')}.{ext}"


@bp.get("/export/game.json")
def export_json():
    """Download the game record."""
    body = json.dumps(game_record(), ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{_download_name("json")}"'})


@bp.get("/export/summary")
def export_summary():
    """A printable one-page summary of the game."""
    snap = dict(deps().broadcaster.snapshot())  # the warnings in words
    snap["warnings"] = [w for w in snap.get("warnings") or [] if not w.get("withdrawn")]  # misreads taken back
    return render_template("summary.html", snapshot=snap, title=game_title(snap, tr), ranking=ranking(snap),
                           chart=chart_svg(snap, tr, width=700, height=260),
                           exported=datetime.now().strftime("%Y-%m-%d %H:%M"))


@bp.get("/export/summary.svg")
def export_summary_svg():
    """The one-page summary as an image."""
    snap = deps().tracker.snapshot()
    svg = summary_svg(snap, tr, datetime.now().strftime("%Y-%m-%d %H:%M"))
    return Response(svg, mimetype="image/svg+xml",
                    headers={"Content-Disposition": f'inline; filename="{_download_name("svg")}"'})
