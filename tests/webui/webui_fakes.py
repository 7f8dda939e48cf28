"""Test helpers for the web layer: a small fake tracker implementing exactly the TRACKING_API.md contract
(new_game, feed, snapshot, wait, correct, undo, LiveEvent), the app around it, logged-in clients,
an SSE reader for the test client, and a real threaded server for the browser tests.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from engine.cards import SEATS
from engine.errors import MalformedInput
from engine.scoring import ScorePart, sheet

PIN = "4321"


@dataclass(frozen=True)
class LiveEvent:
    """TRACKING_API.md LiveEvent(id, type, data)."""

    id: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)


class FakeTracker:
    """The tracker contract with scripted play: `play()` stands in for a move inferred from frames."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._events: list[LiveEvent] = []
        self._next_id = 1
        self.setup: dict[str, Any] | None = None
        self.moves: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []
        self.points: list[dict[str, int]] = []  # per move: seat → points gained
        self.table: dict[str, Any] | None = None
        self.game_over = False
        self.end_reason: str | None = None
        self.calls: list[tuple[str, Any]] = []
        self.started = 0

    # -- helpers ----------------------------------------------------------------------------
    def _emit(self, kind: str, data: dict[str, Any]) -> LiveEvent:
        ev = LiveEvent(self._next_id, kind, data)
        self._next_id += 1
        self._events.append(ev)
        return ev

    def _totals_after(self, n_moves: int) -> dict[str, int]:
        seats = (self.setup or {}).get("seats", {})
        totals = {s: 0 for s in seats}
        for gained in self.points[:n_moves]:
            for s, p in gained.items():
                totals[s] = totals.get(s, 0) + p
        return totals

    def _turn(self) -> str | None:
        if not self.setup:
            return None
        order = [s for s in SEATS if s in self.setup["seats"]]
        return order[len(self.moves) % len(order)]

    # -- the contract -----------------------------------------------------------------------
    def new_game(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Start a game (the fake accepts any setup the web layer lets through)."""
        if not isinstance(setup, dict) or "seats" not in setup:
            raise MalformedInput("setup needs seats", source="setup")
        with self._cond:
            self.calls.append(("new_game", setup))
            self.started += 1
            self.setup = dict(setup)
            self.moves, self.warnings, self.points = [], [], []
            self.table, self.game_over, self.end_reason = None, False, None
            self._emit("game", {"setup": setup})
            self._cond.notify_all()
        return self.snapshot()

    def feed(self, obs: Any, t: float, frame_index: int | None = None) -> list[LiveEvent]:
        """Take an observation as the new table state (the fake infers no moves from it); stored as
        the real tracker stores the frames it decodes (a "frames" event)."""
        with self._cond:
            self.table = obs.to_json()
            ev = self._emit("frames", {"frames": [{"frame": frame_index, "t": t, "raw": self.table}]})
            self._cond.notify_all()
            return [ev]

    def play(self, seat: str, text: str, gained: dict[str, int] | None = None,
             violations: list[dict[str, Any]] | None = None) -> list[LiveEvent]:
        """Record a move as if inferred from the camera (events: move, warnings, score)."""
        with self._cond:
            if self.setup is None:
                raise RuntimeError("no game")
            move_id = len(self.moves) + 1
            violations = violations or []
            self.moves.append({"id": move_id, "seat": seat, "text": text, "legal": not violations,
                               "violations": violations, "t": float(move_id)})
            self.points.append(dict(gained or {}))
            out = [self._emit("move", self.moves[-1])]
            for v in violations:
                w = {"id": len(self.warnings) + 1, "code": v["code"], "message": v["message"],
                     "seat": seat, "move_id": move_id, "t": float(move_id), "details": v.get("details") or {}}
                self.warnings.append(w)
                out.append(self._emit("warning", w))
            out.append(self._emit("score", {"totals": self._totals_after(len(self.moves))}))
            self._cond.notify_all()
            return out

    def snapshot(self) -> dict[str, Any]:
        """The contract's snapshot shape."""
        with self._cond:
            seats = (self.setup or {}).get("seats", {})
            totals = self._totals_after(len(self.moves))
            parts = {s: [ScorePart("pawns", f"pawns of {s}", totals.get(s, 0))] for s in seats}
            scores = sheet([(s, seats[s], parts[s]) for s in seats], final=self.game_over).to_json()
            game = None
            if self.setup:
                game = {**self.setup, "started": f"2024-01-01T10:00:0{self.started}", "observer": "truth"}
            return {
                "event_id": self._events[-1].id if self._events else 0,
                "game": game, "turn": None if self.game_over else self._turn(),
                "game_over": self.game_over, "end_reason": self.end_reason, "scores": scores,
                "moves": [dict(m) for m in self.moves], "warnings": [dict(w) for w in self.warnings],
                "score_history": [{"move_id": i, "totals": self._totals_after(i)} for i in range(len(self.moves) + 1)]
                if self.setup else [],
                "table": self.table, "status": {"observer": "truth", "source": "fake"},
            }

    def wait(self, after_id: int, timeout: float) -> list[LiveEvent]:
        """Events newer than after_id, waiting up to timeout for one."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._cond:
            while True:
                out = [e for e in self._events if e.id > after_id]
                remaining = deadline - time.monotonic()
                if out or remaining <= 0:
                    return out
                self._cond.wait(remaining)

    def correct(self, correction: dict[str, Any]) -> dict[str, Any]:
        """Apply a correction (kind "end" ends the game; others are recorded as events)."""
        with self._cond:
            if self.setup is None:
                raise LookupError("no game is being tracked: start one first")
            self.calls.append(("correct", correction))
            if correction.get("kind") == "end":
                self.game_over, self.end_reason = True, correction.get("reason") or "declared"
                self._emit("game-over", {"over": True, "reason": self.end_reason})
            else:
                self._emit("correction", dict(correction))
            self._cond.notify_all()
        return self.snapshot()

    def undo(self) -> dict[str, Any]:
        """Take back the last move."""
        with self._cond:
            if not self.moves:
                raise LookupError("there is no move to undo")
            self.calls.append(("undo", None))
            move = self.moves.pop()
            self.points.pop()
            self.warnings = [w for w in self.warnings if w["move_id"] != move["id"]]
            self._emit("undo", {"move_id": move["id"]})
            self._cond.notify_all()
        return self.snapshot()


def start_game(tracker: FakeTracker, players: int = 3) -> None:
    """A game with named players at south, west (and north)."""
    seats = dict(list({"south": "black", "west": "white", "north": "grey", "east": "brown"}.items())[:players])
    names = dict(list({"south": "Anna", "west": "Ben", "north": "Chiara", "east": "Dai"}.items())[:players])
    tracker.new_game({"game": "keltis", "board": "base", "seats": seats, "names": names, "rules": {}})


def login(client) -> str:
    """Log a test client in with the PIN; returns its CSRF token."""
    client.get("/table/login")
    with client.session_transaction() as sess:
        token = sess["csrf"]
    resp = client.post("/table/login", data={"pin": PIN, "csrf_token": token, "next": "/table/"})
    assert resp.status_code == 302, resp.get_data(as_text=True)
    with client.session_transaction() as sess:
        return sess["csrf"]


def sse_messages(resp, *, until=None, timeout: float = 5.0) -> Iterator[dict[str, Any]]:
    """Parse a streamed SSE response from the test client: yields {"id", "event", "data"} messages
    (comments as {"comment": text}); stops when `until(msg)` is true or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    buf = ""
    for chunk in resp.response:
        buf += chunk.decode("utf-8") if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            msg: dict[str, Any] = {}
            for line in block.split("\n"):
                if line.startswith(":"):
                    msg["comment"] = line[1:].strip()
                elif ":" in line:
                    key, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    msg[key] = json.loads(value) if key == "data" else value
            if msg:
                yield msg
                if until is not None and until(msg):
                    return
        if time.monotonic() > deadline:
            raise AssertionError(f"no matching SSE message within {timeout} s")


class LiveServer:
    """The app behind a real waitress server on a free loopback port, in a thread."""

    def __init__(self, app, threads: int = 12):
        from webui.server import make_server

        self.app = app
        self.server = make_server(app, host="127.0.0.1", port=0, threads=threads)
        self.port = self.server.effective_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, name="test-waitress", daemon=True)
        self.thread.start()

    def close(self) -> None:
        from webui.server import shutdown

        self.app.extensions["keltis"].broadcaster.stop()
        shutdown(self.server)
        self.thread.join(5)
