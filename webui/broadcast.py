"""One reader of the tracker, many phones: change messages built once and shared by every stream.

A single thread blocks in `tracker.wait()`; for each batch of live events it takes one snapshot,
computes what changed since the previous one (a *patch*: new list items appended, other fields
replaced) and stores the encoded SSE message in a bounded backlog. Each phone's stream only reads
that backlog, so 30 phones cost one snapshot per change, not thirty.

Message ids are the tracker's event ids (the SQLite ids), so a phone that lost its connection
resumes with Last-Event-ID: if that id starts a message still in the backlog it gets exactly
the messages it missed; otherwise (server restarted, backlog overflowed) a full snapshot.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

log = logging.getLogger(__name__)

#: Snapshot fields that are append-only lists in normal play (a patch sends only the new items).
LIST_FIELDS = ("moves", "warnings", "score_history")
#: At most this many live events are echoed in one message (the patch carries the state anyway).
MAX_EVENTS_PER_MESSAGE = 100
#: Stored inputs no page reads (the frames fed to the decoder: large, and their moves come as events).
NOT_ECHOED = frozenset({"frames"})


def diff_snapshots(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The patch turning `old` into `new`: {"set": {key: value}, "append": {key: [items]}}.

    List fields whose old value is a prefix of the new one are appended to; anything else that
    changed (an undo shortens the move list, a correction rewrites it) is replaced whole.
    """
    if old is None:
        return {"set": dict(new), "append": {}}
    set_: dict[str, Any] = {}
    append: dict[str, list[Any]] = {}
    for key, value in new.items():
        if key not in old:
            set_[key] = value
            continue
        before = old[key]
        if before == value:
            continue
        if (key in LIST_FIELDS and isinstance(before, list) and isinstance(value, list)
                and len(value) > len(before) and value[:len(before)] == before):
            append[key] = value[len(before):]
        else:
            set_[key] = value
    for key in old:
        if key not in new:
            set_[key] = None
    return {"set": set_, "append": append}


def apply_patch(state: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Apply a patch from `diff_snapshots` (the browser does the same in live.js)."""
    out = dict(state)
    out.update(patch.get("set", {}))
    for key, items in patch.get("append", {}).items():
        out[key] = list(out.get(key) or []) + list(items)
    return out


def sse_message(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One Server-Sent Events message (JSON data on a single line)."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


@dataclass(frozen=True)
class ChangeMessage:
    """One encoded change: it covers the tracker events after `after_id` up to and including `id`."""

    seq: int
    after_id: int
    id: int
    payload: bytes


class Broadcaster:
    """Follows the tracker in one thread and fans its changes out to any number of streams."""

    def __init__(self, tracker: Any, *, poll_seconds: float = 1.0, backlog: int = 512,
                 clock: Callable[[], float] = time.time, follow: bool = True,
                 status: Callable[[], dict[str, Any]] | None = None, status_seconds: float = 2.0,
                 decorate: Callable[[dict[str, Any]], dict[str, Any]] | None = None):
        self._tracker = tracker
        self._decorate = decorate         # adds what the page needs once for every phone (warning words)
        self._status_fn = status          # the pipeline's health (camera lost, ...): no tracker event
        self._status_seconds = status_seconds
        self._status_checked = 0.0
        self._status: dict[str, Any] | None = None
        self._follow = follow  # False: no thread; the owner calls poll_once() (tests, tools)
        self._poll = poll_seconds
        self._clock = clock
        self._cond = threading.Condition()
        self._messages: deque[ChangeMessage] = deque(maxlen=max(1, backlog))
        self._next_seq = 0
        self._state: dict[str, Any] | None = None
        self._last_id = 0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._start_lock = threading.Lock()
        self.errors = 0

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Take the first snapshot and start following the tracker (idempotent)."""
        with self._start_lock:
            if self._state is None:
                snap = self.snapshot()
                with self._cond:
                    self._state = snap
                    self._last_id = int(snap.get("event_id") or 0)
            if self._thread is None and self._follow and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="keltis-broadcaster", daemon=True)
                self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop following and wake every stream so it can end."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def stopped(self) -> bool:
        """True once stop() was called."""
        return self._stop.is_set()

    def snapshot(self) -> dict[str, Any]:
        """The tracker's snapshot as the page gets it (decorated)."""
        snap = self._tracker.snapshot()
        return self._decorate(snap) if self._decorate is not None else snap

    # -- the follower thread --------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                wait = self._poll if self._status_fn is None else min(self._poll, self._status_seconds)
                self.poll_once(wait)
                if self._status_fn is not None and time.monotonic() - self._status_checked >= self._status_seconds:
                    self.check_status()
            except Exception:  # keep serving the last good state; the status line shows errors
                self.errors += 1
                log.exception("broadcaster: reading the tracker failed")
                self._stop.wait(min(self._poll, 1.0) or 0.1)

    def poll_once(self, timeout: float) -> ChangeMessage | None:
        """Wait up to `timeout` for tracker events and publish one change message for them."""
        events = list(self._tracker.wait(self._last_id, timeout))
        if not events or self._stop.is_set():
            return None
        snap = self.snapshot()
        new_id = max(int(snap.get("event_id") or 0), events[-1].id)
        if new_id > events[-1].id:  # events that landed between wait() and snapshot()
            events += [e for e in self._tracker.wait(events[-1].id, 0) if e.id <= new_id]
        return self._publish(events, snap, new_id)

    def _publish(self, events: list[Any], snap: dict[str, Any], new_id: int) -> ChangeMessage:
        with self._cond:
            patch = diff_snapshots(self._state, snap)
            shown = [e for e in events if e.type not in NOT_ECHOED]
            echoed = shown[-MAX_EVENTS_PER_MESSAGE:]
            body = {"event_id": new_id, "after_id": self._last_id,
                    "events": [{"id": e.id, "type": e.type, "data": e.data} for e in echoed],
                    "events_dropped": len(shown) - len(echoed),
                    "patch": patch, "server_time": round(self._clock(), 3)}
            msg = ChangeMessage(self._next_seq, self._last_id, new_id, sse_message("change", body, new_id))
            self._next_seq += 1
            self._messages.append(msg)
            self._state = snap
            self._last_id = new_id
            self._cond.notify_all()
            return msg

    def check_status(self) -> ChangeMessage | None:
        """Publish the pipeline's health when it changed (a camera lost or back, a failed pipeline).

        Such a message has no SSE id: it is not part of the game's history, so it never moves a
        client's Last-Event-ID; it only tells the page what the camera is doing now.
        """
        self._status_checked = time.monotonic()
        status = health(self._status_fn()) if self._status_fn is not None else None
        if status is None or status == self._status:
            return None
        with self._cond:
            self._status = status
            msg = ChangeMessage(self._next_seq, self._last_id, self._last_id, sse_message("status", status))
            self._next_seq += 1
            self._messages.append(msg)
            self._cond.notify_all()
            return msg

    def current_status(self) -> dict[str, Any] | None:
        """The last health published (None before the first check)."""
        with self._cond:
            return self._status

    # -- what streams call ----------------------------------------------------------------
    def current(self) -> tuple[dict[str, Any], int, int]:
        """(snapshot, its event id, the seq of the next message) as one consistent triple."""
        self.start()
        with self._cond:
            return dict(self._state or {}), self._last_id, self._next_seq

    def snapshot_message(self) -> tuple[bytes, int]:
        """The full-snapshot SSE message and the seq to read changes from after it."""
        state, last_id, seq = self.current()
        return sse_message("snapshot", state, last_id), seq

    def resume_from(self, last_event_id: int) -> int | None:
        """The seq to continue from for a client that saw everything up to `last_event_id`.

        None when that id is not a message boundary still in the backlog (send a snapshot).
        """
        self.start()
        with self._cond:
            if last_event_id == self._last_id:
                return self._next_seq
            for msg in self._messages:
                if msg.after_id == last_event_id and msg.id != msg.after_id:
                    return msg.seq
            return None

    def messages_after(self, seq: int, timeout: float) -> tuple[list[ChangeMessage], int] | None:
        """Messages with seq ≥ `seq` (waiting up to `timeout` for one) and the next seq to read.

        None when the client fell behind the backlog (it must take a fresh snapshot).
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if self._messages and seq < self._messages[0].seq:
                    return None
                if seq < self._next_seq:
                    first = self._messages[0].seq
                    out = list(self._messages)[seq - first:]
                    return out, self._next_seq
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stop.is_set():
                    return [], seq
                self._cond.wait(remaining)


def health(status: dict[str, Any] | None) -> dict[str, Any] | None:
    """The part of a pipeline status that matters to players: is the camera delivering frames."""
    if not isinstance(status, dict):
        return None
    source = status.get("source") if isinstance(status.get("source"), dict) else {}
    return {"pipeline": status.get("serve_state") or status.get("state"),
            "camera": source.get("state"),
            "error": status.get("serve_error") or source.get("error") or status.get("last_error")}
