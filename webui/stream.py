"""GET /api/stream: the live page's Server-Sent Events.

On connect: a full snapshot (`event: snapshot`), unless the client sends the id of the last
message it saw (the browser's automatic Last-Event-ID header on reconnect, or `?last_event_id=`
when the page itself reconnects): then exactly the change messages it missed. After that, each
change (`event: change`, increasing ids) as it happens, and a comment line every
heartbeat_seconds so a phone that walked away is noticed and its server thread freed.
Streams are limited (each holds a server thread; webui/slots.py): beyond the limit per address 429,
beyond the limit in all 503, each saying so; the page then polls. The table screen always gets a slot.
"""
from __future__ import annotations

import time

from flask import Blueprint, Response, request

from . import security
from .context import deps, error_response
from .broadcast import sse_message

bp = Blueprint("stream", __name__)

RETRY_MS = 2000


def _last_event_id() -> int | None:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        raw = request.args.get("last_event_id")
    if raw is None or raw == "":
        return None
    raw = raw.strip()
    if not raw.isdigit() or len(raw) > 18:
        raise ValueError(f"Last-Event-ID must be a non-negative integer, got {raw!r}")
    return int(raw)


@bp.get("/api/stream")
def stream():
    """The live event stream (text/event-stream)."""
    d = deps()
    try:
        last_id = _last_event_id()
    except ValueError as exc:
        return error_response(400, str(exc))
    address = request.remote_addr or "?"
    table = security.table_logged_in()
    refused = d.stream_slots.acquire(address, table=table)
    if refused is not None:
        resp = error_response(refused.status, refused.reason)
        resp.headers["Retry-After"] = "15"
        return resp
    with d.lock:
        d.open_streams += 1
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            with d.lock:
                d.open_streams -= 1
            d.stream_slots.release(address, table=table)

    broadcaster = d.broadcaster
    heartbeat = d.config.heartbeat_seconds
    max_seconds = d.config.stream_max_seconds
    try:
        seq = broadcaster.resume_from(last_id) if last_id is not None else None
        first = None
        if seq is None:
            first, seq = broadcaster.snapshot_message()
        health = broadcaster.current_status()
        if health is not None:  # what the camera is doing now, before any change
            first = (first or b"") + sse_message("status", health)
    except Exception:
        release()
        raise

    def events():
        nonlocal seq
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            if first is not None:
                yield first
            opened = time.monotonic()
            while not broadcaster.stopped:
                if max_seconds and time.monotonic() - opened >= max_seconds:
                    return
                got = broadcaster.messages_after(seq, heartbeat)
                if got is None:  # fell behind the backlog: start again from the present
                    message, seq = broadcaster.snapshot_message()
                    yield message
                    continue
                messages, seq = got
                if messages:
                    yield b"".join(m.payload for m in messages)
                else:
                    yield f": ping {int(time.time())}\n\n".encode()
        finally:
            release()

    resp = Response(events(), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache, no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    resp.call_on_close(release)
    return resp
