"""The Flask app factory: `create_app(tracker, *, pipeline=None, pin=None, config=None, games=GAMES)`.

Blueprints: viewer (the phone page, pictures, exports), table (PIN-protected setup, corrections,
calibration check), api (JSON state and commands, /healthz), stream (Server-Sent Events).
The tracker is anything with the docs/tracking-api.md contract (new_game, feed, snapshot, wait,
correct, undo); the pipeline, when given, is asked for its status() and latest camera frame.
"""
from __future__ import annotations

import logging
import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, g, request
from werkzeug.exceptions import HTTPException

from engine.games import GAMES, GameRegistry

from . import security
from .context import WebDeps, deps, error_response
from .broadcast import Broadcaster
from .config import WebConfig
from .frames import FramePictures
from .i18n import LANG_COOKIE, Translations
from .slots import StreamSlots
from .warning_words import WarningWords

__all__ = ["create_app", "deps", "error_response"]

log = logging.getLogger(__name__)


def _secret_key(data_dir: Path | None) -> bytes:
    """The session-signing key: kept in the data dir so table logins survive a restart."""
    if data_dir is None:
        return secrets.token_bytes(32)
    path = Path(data_dir) / "web-secret.key"
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    return key


def create_app(tracker: Any, *, pipeline: Any = None, pin: str | None = None,
               config: WebConfig | None = None, games: GameRegistry = GAMES) -> Flask:
    """Build the web app around a tracker (and optionally the pipeline feeding it); the new-game
    screen offers the games of `games` (engine/games.py)."""
    config = config or WebConfig()
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        SECRET_KEY=_secret_key(config.data_dir),
        MAX_CONTENT_LENGTH=config.max_body_bytes,
        SESSION_COOKIE_NAME="keltis_table",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=config.table_session_hours),
        JSON_AS_ASCII=False,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
    )
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    the_pin = security.check_pin_format(pin) if pin else security.generate_pin()
    translations = Translations(config.languages)
    app.extensions["keltis"] = WebDeps(
        tracker=tracker, pipeline=pipeline, pin=the_pin, config=config,
        broadcaster=Broadcaster(tracker, poll_seconds=config.poll_seconds, backlog=config.backlog,
                                status=pipeline.status if pipeline is not None and hasattr(pipeline, "status")
                                else None, decorate=WarningWords(translations).decorate),
        translations=translations,
        limiter=security.AttemptLimiter(config.pin_attempts, config.pin_window_seconds),
        stream_slots=StreamSlots(config.max_streams, config.max_streams_per_address, config.table_stream_reserve),
        pictures=FramePictures.from_file(pipeline, config.calibration_file), games=games,
        page_url=config.public_url.rstrip("/") + "/" if config.public_url else None)

    from .api import bp as api_bp
    from .first_run import bp as first_run_bp
    from .stream import bp as stream_bp
    from .table import bp as table_bp
    from .viewer import bp as viewer_bp

    app.register_blueprint(viewer_bp)
    app.register_blueprint(table_bp)
    app.register_blueprint(api_bp)
    app.register_blueprint(stream_bp)
    app.register_blueprint(first_run_bp)

    @app.before_request
    def _language_and_guard():
        d = deps()
        g.lang = d.translations.choose(request.args.get("lang"), request.cookies.get(LANG_COOKIE),
                                       request.accept_languages)
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        if request.endpoint == "table.login":
            return None  # checks the PIN itself (with its own CSRF token and attempt limit)
        return _guard_change()

    @app.after_request
    def _headers(resp):
        q = request.args.get("lang")
        if q in deps().translations.languages:
            resp.set_cookie(LANG_COOKIE, q, max_age=365 * 86400, samesite="Lax")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith(("/table", "/api/")):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        reasons = {413: f"the request body is larger than {config.max_body_bytes} bytes"}
        return error_response(exc.code or 500, reasons.get(exc.code or 0, exc.description or exc.name))

    @app.context_processor
    def _template_helpers():
        d = deps()
        lang = g.get("lang", d.translations.fallback)
        return {"t": lambda key, **kw: d.translations.gettext(lang, key, **kw),
                "lang": lang, "languages": d.translations.names(),
                "csrf_token": security.csrf_token, "is_table": security.table_logged_in(),
                "asset_version": ASSET_VERSION}

    return app


def _guard_change():
    """Every state-changing request needs the PIN: a logged-in table session with its CSRF token,
    or the PIN in the X-Keltis-PIN header."""
    d = deps()
    who = request.remote_addr or "?"
    header_pin = request.headers.get(security.PIN_HEADER)
    if header_pin is not None:
        wait = d.limiter.blocked_for(who)
        if wait:
            return error_response(429, f"too many wrong PINs; try again in {int(wait) + 1} s",
                                  retry_after=int(wait) + 1)
        if security.pin_matches(d.pin, header_pin):
            d.limiter.succeeded(who)
            return None
        d.limiter.failed(who)
        return error_response(403, f"wrong PIN in the {security.PIN_HEADER} header")
    if not security.table_logged_in():
        return error_response(403, "this needs the table PIN: log in on /table/login "
                                   f"or send it in the {security.PIN_HEADER} header")
    given = request.headers.get(security.CSRF_HEADER)
    if given is None and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        given = request.form.get(security.CSRF_FIELD)
    if not security.csrf_ok(given):
        return error_response(403, "missing or wrong CSRF token (reload the page and try again)")
    return None


def _asset_version() -> str:
    """A short hash of the static files: their URLs change with them, so phones never keep an old script."""
    import hashlib

    digest = hashlib.sha1()
    for path in sorted((Path(__file__).parent / "static").glob("*")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


ASSET_VERSION = _asset_version()
