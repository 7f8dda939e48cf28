"""The first-run page (/table/setup): with no configuration file yet, the table screen opens here.

Game, board, players (names and seat colours), the marker sheet to print, where the camera goes,
and the camera check; its form is validated by the same setup checks as every new game, starts
the game (tracker.new_game) and has the configuration file written (WebDeps.save_setup, given by
`keltis-cam serve`: the web layer does not know where config files live).
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for

from engine.cards import SEATS
from engine.errors import MalformedInput

from .api import run_command
from .context import deps, error_response
from .table import table_required
from .validate import bundled_boards, setup_options, validate_setup
from .viewer import tr

bp = Blueprint("first_run", __name__, url_prefix="/table/setup")

#: Seat colours offered before anything is chosen (two players; more seats are one tap each).
DEFAULT_COLOURS = {"south": "black", "west": "white", "north": "", "east": ""}


@bp.before_app_request
def _open_setup_first():
    """While the first run is not done, the table screen's home is the setup page."""
    d = deps()
    if d.save_setup is not None and not d.setup_saved and request.endpoint == "table.home":
        return redirect(url_for("first_run.setup"))
    return None


def setup_from_form(form: Any) -> dict[str, Any]:
    """The setup the form describes (checked afterwards by validate_setup)."""
    game = form.get("game")
    seats = {s: form.get(f"colour_{s}") for s in SEATS if form.get(f"colour_{s}")}
    names = {s: form.get(f"name_{s}", "") for s in seats if form.get(f"name_{s}", "").strip()}
    setup: dict[str, Any] = {"game": game, "seats": seats, "rules": {}}
    if game == "keltis":
        setup["board"] = form.get("board")
    if names:
        setup["names"] = names
    return setup


def _page(status: int = 200, form: Any = None):
    d = deps()
    return render_template("table_setup.html", options=setup_options(), form=form or {}, pin=d.pin,
                           defaults=DEFAULT_COLOURS, camera=d.config.extra.get("camera_source"),
                           config_path=d.config.extra.get("config_path", "config.toml")), status


@bp.route("", methods=["GET", "POST"])
@table_required
def setup():
    """The first-run form; POST: check it, start the game, write the configuration."""
    d = deps()
    if request.method == "GET":
        return _page()
    try:
        setup = validate_setup(setup_from_form(request.form))
    except MalformedInput as exc:
        flash(str(exc), "error")
        return _page(400, request.form)
    # Without a camera the example game is being replayed: its frames would be read as this game's,
    # so the game starts when serve starts again with a camera; the configuration is written now.
    no_camera = "camera_source" in d.config.extra and not d.config.extra["camera_source"]
    if not no_camera:
        _, err = run_command(d.tracker.new_game, setup)
        if err is not None:
            flash(err[1], "error")
            return _page(err[0], request.form)
    where = d.config.extra.get("config_path", "")
    if d.save_setup is not None:
        try:
            where = str(d.save_setup(setup))
        except (OSError, MalformedInput) as exc:  # the game runs; only the file is missing
            flash(f"the game started, but the configuration was not written: {exc}", "error")
            return _page(500, request.form)
        d.setup_saved = True
    flash(tr("firstrun.saved_no_camera" if no_camera else "firstrun.saved", path=where), "ok")
    return redirect(url_for("viewer.live"))


@bp.get("/markers.pdf")
@table_required
def markers():
    """The printable marker sheet for a bundled board's default layout (or the card game's)."""
    board_name = request.args.get("board") or "nwnz"
    if board_name not in (*bundled_boards(), "card"):
        return error_response(404, f"no bundled board {board_name!r} (bundled: {bundled_boards()}, or card)")
    from calibration.model import default_calibration
    from calibration.sheet import write_sheet
    from engine.board import bundled_board

    board = None if board_name == "card" else bundled_board(board_name)
    cal = default_calibration(board)
    with tempfile.TemporaryDirectory(prefix="keltis-markers-") as tmp:
        path = Path(tmp) / "markers.pdf"
        write_sheet(str(path), cal, board)
        data = path.read_bytes()
    return Response(data, mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="keltis-markers-{board_name}.pdf"'})
