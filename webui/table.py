"""The table screens, behind the PIN: setup (PIN, QR code, new game), corrections and undo, and the
calibration check. Plain HTML forms (they work on any phone); every POST also passed the
PIN/CSRF guard in app.py.
"""
from __future__ import annotations

from functools import wraps
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from engine.cards import COLOURS, PLAYER_COLOURS, SEATS
from engine.errors import MalformedInput
from engine.observation import TILE_CODES

from . import frames, security
from .api import run_command
from .context import deps, error_response
from .qr import qr_svg
from .validate import rule_options, setup_options, validate_correction, validate_setup
from .viewer import page_address, tr

bp = Blueprint("table", __name__, url_prefix="/table")


def table_required(view):
    """Send a browser that has not given the PIN to the login screen."""
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):
        if not security.table_logged_in():
            if request.method != "GET":
                return error_response(403, "this needs the table PIN")
            return redirect(url_for("table.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)
    return wrapper


def _safe_next(target: str | None) -> str:
    if not target or not target.startswith("/") or target.startswith("//"):
        return url_for("table.home")
    return target


@bp.route("/login", methods=["GET", "POST"])
def login():
    """Ask for the PIN shown on the server's console."""
    d = deps()
    if request.method == "GET":
        return render_template("table_login.html", next=_safe_next(request.args.get("next")), error=None)
    who = request.remote_addr or "?"
    nxt = _safe_next(request.form.get("next"))
    wait = d.limiter.blocked_for(who)
    if wait:
        resp = Response(render_template("table_login.html", next=nxt, error=tr("login.too_many", s=int(wait) + 1)),
                        status=429)
        resp.headers["Retry-After"] = str(int(wait) + 1)
        return resp
    if not security.csrf_ok(request.form.get(security.CSRF_FIELD)):
        return render_template("table_login.html", next=nxt, error=tr("login.csrf")), 403
    if not security.pin_matches(d.pin, request.form.get("pin")):
        d.limiter.failed(who)
        return render_template("table_login.html", next=nxt, error=tr("login.wrong")), 403
    d.limiter.succeeded(who)
    security.log_in(d.config.table_session_hours)
    return redirect(nxt)


@bp.post("/logout")
def logout():
    """Forget this browser's table login."""
    security.log_out()
    return redirect(url_for("viewer.live"))


@bp.get("/")
@table_required
def home():
    """The setup screen: the PIN, the page's address and its QR code, and the table's tools."""
    d = deps()
    address = page_address()
    return render_template("table_home.html", pin=d.pin, address=address, qr=qr_svg(address),
                           snapshot=d.tracker.snapshot(), can_replay=can_play_again())


def can_play_again() -> bool:
    """A replayed recording can be played again from its start (the demo's "play again")."""
    return bool(getattr(deps().pipeline, "can_restart", False))


@bp.post("/again")
@table_required
def play_again():
    """Play the replayed recording again from its first frame, as a new game."""
    if not can_play_again():
        return error_response(409, "only a replayed recording can be played again (this is a live camera)")
    _, err = run_command(deps().pipeline.restart)
    if err is not None:
        flash(err[1], "error")
        return redirect(url_for("table.home"))
    flash(tr("again.started"), "ok")
    return redirect(url_for("viewer.live"))


def _setup_from_form(form: Any) -> dict[str, Any]:
    games = deps().games
    game = form.get("game")
    seats = {s: form.get(f"colour_{s}") for s in SEATS if form.get(f"colour_{s}")}
    names = {s: form.get(f"name_{s}", "") for s in seats if form.get(f"name_{s}", "").strip()}
    rules: dict[str, Any] = {}
    if game in games:
        for opt in rule_options(game, games):
            raw = form.get(f"rule_{game}_{opt['name']}")
            if raw is None:
                continue
            if opt["choices"] == [False, True]:
                rules[opt["name"]] = raw == "true"
            else:
                rules[opt["name"]] = raw
    setup: dict[str, Any] = {"game": game, "seats": seats, "rules": rules}
    if game in games and games.get(game).has_board:
        setup["board"] = form.get("board")
    if names:
        setup["names"] = names
    return setup


@bp.route("/new", methods=["GET", "POST"])
@table_required
def new_game():
    """Start a new game: which game and board, who sits where with which pawns, the rule settings."""
    d = deps()
    current = (d.tracker.snapshot().get("game") or {})
    if request.method == "POST":
        try:
            setup = validate_setup(_setup_from_form(request.form), d.games)
        except MalformedInput as exc:
            flash(str(exc), "error")
            return render_template("table_new.html", options=setup_options(d.games), current=current,
                                   form=request.form), 400
        _, err = run_command(d.tracker.new_game, setup)
        if err is not None:
            flash(err[1], "error")
            return render_template("table_new.html", options=setup_options(d.games), current=current,
                                   form=request.form), err[0]
        flash(tr("new.started"), "ok")
        return redirect(url_for("viewer.live"))
    return render_template("table_new.html", options=setup_options(d.games), current=current, form=None)


def _correction_from_form(form: Any) -> dict[str, Any]:
    kind = form.get("kind")
    c: dict[str, Any] = {"kind": kind}
    if kind == "pawn":
        c.update(player=form.get("player"), to=form.get("to") or None, big=form.get("big") == "true")
        if form.get("from"):
            c["from"] = form.get("from")
    elif kind == "row":
        c.update(seat=form.get("seat"), colour=form.get("colour"),
                 cards=[x for x in form.get("cards", "").replace(",", " ").split() if x])
    elif kind == "tile":
        c.update(stone=form.get("stone"), tile=form.get("tile") or None)
    elif kind == "seats":
        c["seats"] = {s: form.get(f"seat_{s}") for s in SEATS if form.get(f"seat_{s}")}
    elif kind == "turn":
        c["seat"] = form.get("seat")
    elif kind == "points":
        c.update(seat=form.get("seat"), points=_number(form.get("points")))
    elif kind == "wish":
        c.update(seat=form.get("seat"), colour=form.get("colour"), count=_number(form.get("count")))
    elif kind == "discard":
        c.update(pile=form.get("pile"), top=form.get("top") or None)
    return c


def _number(text: str | None) -> Any:
    """A whole number from a form field; anything else is passed on for the checks to name."""
    text = (text or "").strip()
    # ASCII digits only ("²".isdigit() is true) and short: int() of 5000 digits raises ValueError
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else text


def _fix_page(status: int = 200):
    d = deps()
    snap = d.tracker.snapshot()
    return render_template("table_fix.html", snapshot=snap, seats=SEATS, colours=COLOURS,
                           players=PLAYER_COLOURS, tiles=TILE_CODES), status


@bp.route("/fix", methods=["GET", "POST"])
@table_required
def fix():
    """Correct a misread (pawn, row, tile, seats, or end the game) or undo the last move."""
    if request.method == "POST":
        try:
            correction = validate_correction(_correction_from_form(request.form))
        except MalformedInput as exc:
            flash(str(exc), "error")
            return _fix_page(400)
        _, err = run_command(deps().tracker.correct, correction)
        if err is not None:
            flash(err[1], "error")
            return _fix_page(err[0])
        flash(tr("fix.done"), "ok")
        return redirect(url_for("table.fix"))
    return _fix_page()


@bp.post("/undo")
@table_required
def undo():
    """Undo the last accepted move."""
    _, err = run_command(deps().tracker.undo)
    if err is not None:
        flash(err[1], "error")
        return _fix_page(err[0])
    flash(tr("fix.undone"), "ok")
    return redirect(url_for("table.fix"))


@bp.get("/calibration")
@table_required
def calibration():
    """The calibration check: the live camera view with the registration overlay."""
    d = deps()
    status = None
    if d.pipeline is not None:
        try:
            status = d.pipeline.status()
        except Exception as exc:
            status = {"error": str(exc)}
    return render_template("table_calibration.html", has_camera=frames.latest_frame(d.pipeline) is not None,
                           status=status, checklist=_worded(camera_checklist()))


def camera_checklist() -> list[dict[str, Any]]:
    """The camera check as lines a person can act on: camera found, focus, exposure, markers seen,
    board registered, seats found (calibration/camera_check.py), on the latest frame."""
    from calibration.camera_check import DEFAULT_CONFIG, CheckLine, check_image

    d = deps()
    frame = frames.latest_frame(d.pipeline)
    state = None
    read_size = None   # the picture the reader reads (a full-resolution still when the camera takes them)
    if d.pipeline is not None:
        try:
            status = d.pipeline.status()
            state = (status.get("source") or {}).get("state") if isinstance(status.get("source"), dict) else None
            state = "failed" if status.get("serve_state") == "failed" else state
            source = status.get("source") if isinstance(status.get("source"), dict) else {}
            read_size = (((status.get("reader") or {}).get("resolution") or {}).get("image_size")
                         or source.get("still_size"))
        except Exception:
            state = "failed"
    if frame is None or getattr(frame, "image", None) is None:
        camera = CheckLine("camera", False, state if state in ("lost", "failed") else "none")
        return [camera.to_json()]
    lines = [CheckLine("camera", state not in ("lost", "failed"), state if state in ("lost", "failed") else "ok")]
    calibration = d.pictures.calibration
    registration = d.pictures.registration_of(frame) if calibration is not None else None
    width = frame.image.shape[1]
    read_scale = read_size[0] / width if read_size and width else 1.0
    board = d.pictures.calibration_board() if calibration is not None else None
    lines += check_image(DEFAULT_CONFIG, frame.image, calibration, registration,
                         board_size_mm=tuple(board.size_mm) if board is not None else None, read_scale=read_scale)
    return [line.to_json() for line in lines]


def _worded(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each line with its title, what it found and, when it failed, what to do, in the page's language."""
    out = []
    for line in lines:
        values = {k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in line["values"].items()}
        base = f"check.{line['key']}"
        out.append({**line, "title": tr(f"{base}.title"), "text": tr(f"{base}.{line['state']}", **values),
                    "todo": None if line["ok"] else tr(f"{base}.{line['state']}.todo", **values)})
    return out


@bp.get("/camera-check.json")
@table_required
def camera_check():
    """The checklist as JSON (the camera check page refreshes it)."""
    return {"lines": _worded(camera_checklist())}


@bp.get("/camera.jpg")
@table_required
def camera():
    """The latest camera frame with the registration overlay."""
    jpeg = deps().pictures.calibration_view()
    if jpeg is None:
        return error_response(404, "no camera frame yet")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
