"""What every blueprint of the web app shares: its dependencies (`deps()`) and how errors look.

Kept apart from the app factory (webui/app.py) so that the factory imports the blueprints and the
blueprints import this, never the factory: no circle.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, jsonify, render_template, request

from engine.games import GAMES, GameRegistry

from . import security
from .broadcast import Broadcaster
from .config import WebConfig
from .frames import FramePictures
from .i18n import Translations
from .slots import StreamSlots


@dataclass
class WebDeps:
    """What the blueprints use, reachable as `deps()` inside a request."""

    tracker: Any
    pipeline: Any
    pin: str
    config: WebConfig
    broadcaster: Broadcaster
    translations: Translations
    limiter: security.AttemptLimiter
    stream_slots: StreamSlots
    pictures: FramePictures
    games: GameRegistry = GAMES  # the games the new-game screen offers and the setups it accepts
    started: float = field(default_factory=time.time)
    page_url: str | None = None  # set by the server once it knows its host and port
    open_streams: int = 0
    #: First run (no configuration file): writes the configuration for a setup, returns where (serve sets it).
    save_setup: Any = None
    setup_saved: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def deps() -> WebDeps:
    """The current app's dependencies."""
    return current_app.extensions["keltis"]


def wants_json() -> bool:
    """API paths, and clients that ask for JSON, get JSON errors."""
    if request.path.startswith(("/api/", "/view/", "/export/game.json")) or request.path == "/healthz":
        return True
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json" and request.accept_mimetypes[best] > request.accept_mimetypes["text/html"]


def error_response(status: int, reason: str, **extra: Any):
    """A 4xx/5xx answer with its reason: JSON for the API, a small page for browsers."""
    if wants_json():
        resp = jsonify({"error": reason, "status": status, **extra})
    else:
        resp = current_app.make_response((render_template("error.html", status=status, reason=reason), status))
    resp.status_code = status
    return resp
