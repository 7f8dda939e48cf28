"""The tracker's event log: every game, the frames it took, moves, warnings and corrections, in SQLite.

One file per data directory (`tracking.db`), WAL mode, `synchronous=FULL`: a committed event
survives a pulled plug, and because every append (or group of appends that belong together, such
as the frames fed with the move and warnings they cause) is one transaction, the database never
holds half of one. Event ids increase strictly; the web page resumes its live feed by them
(Server-Sent Events Last-Event-ID).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from engine.errors import MalformedInput

DB_FILE = "tracking.db"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    setup   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game    INTEGER NOT NULL REFERENCES games(id),
    kind    TEXT NOT NULL,
    wall    REAL NOT NULL,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events (game, id);
"""


class StoreError(MalformedInput):
    """The tracking database cannot be opened or read (names the file)."""


@dataclass(frozen=True)
class StoredEvent:
    """One journal entry: its id (increasing), game, kind, wall-clock time and JSON payload."""

    id: int
    game: int
    kind: str
    wall: float
    payload: dict[str, Any]


def default_db_path(data_dir: str | Path) -> Path:
    """Where the tracking database of a data directory lives."""
    return Path(data_dir) / DB_FILE


class EventStore:
    """Append-only SQLite journal of tracking events; thread-safe (one connection behind a lock)."""

    def __init__(self, path: str | Path, *, clock=time.time):
        self.path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            if self.path != ":memory:":
                mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StoreError(f"cannot switch the database to WAL mode (got {mode!r})", source=self.path)
            # FULL: a commit is on disk before append() returns (the plug may be pulled any time).
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self._db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"database schema {row[0]} is newer than this keltis-cam knows ({SCHEMA_VERSION})",
                                 source=self.path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"not a usable tracking database: {exc}", source=self.path) from None

    # -- writing ---------------------------------------------------------------------------------

    def _transaction(self, work) -> Any:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(self._db)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
                return result
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot write: {exc}", source=self.path) from None

    def new_game(self, setup: dict[str, Any], started: str, payload: dict[str, Any] | None = None) -> tuple[int, int]:
        """Start a game: its row and its "game" event in one transaction; returns (game id, event id)."""
        setup_text = json.dumps(setup, sort_keys=True)
        event_text = json.dumps(payload if payload is not None else {"setup": setup, "started": started})
        wall = self._clock()

        def work(db: sqlite3.Connection) -> tuple[int, int]:
            game = db.execute("INSERT INTO games (started, setup) VALUES (?, ?)", (started, setup_text)).lastrowid
            eid = db.execute("INSERT INTO events (game, kind, wall, payload) VALUES (?, 'game', ?, ?)",
                             (game, wall, event_text)).lastrowid
            return int(game), int(eid)

        return self._transaction(work)

    def append(self, game: int, kind: str, payload: dict[str, Any]) -> int:
        """Append one event in its own transaction; returns its id."""
        return self.append_many(game, [(kind, payload)])[0]

    def append_many(self, game: int, items: Sequence[tuple[str, dict[str, Any]]]) -> list[int]:
        """Append events that belong together (one accepted state and what it caused) atomically."""
        # Serialise first: a payload that cannot be written never opens a transaction.
        rows = [(kind, json.dumps(payload)) for kind, payload in items]
        wall = self._clock()

        def work(db: sqlite3.Connection) -> list[int]:
            return [int(db.execute("INSERT INTO events (game, kind, wall, payload) VALUES (?, ?, ?, ?)",
                                   (game, kind, wall, text)).lastrowid) for kind, text in rows]

        return self._transaction(work) if rows else []

    # -- reading ---------------------------------------------------------------------------------

    def events(self, after_id: int = 0, *, game: int | None = None, kinds: Iterable[str] | None = None,
               limit: int | None = None) -> list[StoredEvent]:
        """Events with id > after_id, oldest first (optionally of one game and of some kinds)."""
        sql = "SELECT id, game, kind, wall, payload FROM events WHERE id > ?"
        args: list[Any] = [after_id]
        if game is not None:
            sql += " AND game = ?"
            args.append(game)
        kinds = list(kinds) if kinds is not None else None
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            try:
                rows = self._db.execute(sql, args).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"cannot read: {exc}", source=self.path) from None
        return [StoredEvent(int(i), int(g), k, float(w), json.loads(p)) for i, g, k, w, p in rows]

    def games(self) -> list[dict[str, Any]]:
        """Every game: {"id", "started", "setup", "events"} oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.started, g.setup, (SELECT COUNT(*) FROM events e WHERE e.game = g.id) "
                "FROM games g ORDER BY g.id").fetchall()
        return [{"id": int(i), "started": s, "setup": json.loads(setup), "events": int(n)} for i, s, setup, n in rows]

    def latest_game(self) -> int | None:
        """The id of the most recent game, or None for an empty database."""
        with self._lock:
            row = self._db.execute("SELECT MAX(id) FROM games").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def last_event_id(self) -> int:
        """The highest event id (0 for an empty database)."""
        with self._lock:
            row = self._db.execute("SELECT MAX(id) FROM events").fetchone()
        return int(row[0] or 0)

    def journal_mode(self) -> str:
        """SQLite's journal mode ("wal" for a file database)."""
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0]).lower()

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
