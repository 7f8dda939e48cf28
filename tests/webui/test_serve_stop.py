"""A real `keltis-cam serve` stops quickly and cleanly on SIGTERM while phones hold event streams."""
from __future__ import annotations

import signal
import socket
import sqlite3
import time
from pathlib import Path

from serve_process import start_serve

STOP_LIMIT_SECONDS = 2.0


def open_stream(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /api/stream HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n")
    head = s.recv(65536)
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    return s


def read_to_end(s: socket.socket, seconds: float) -> bool:
    """True when the server closed the connection within `seconds`."""
    s.settimeout(seconds)
    try:
        while s.recv(65536):
            pass
        return True
    except OSError:
        return False


def test_sigterm_with_open_streams_stops_within_two_seconds(tmp_path):
    proc, port, _ = start_serve(tmp_path)
    streams = []
    try:
        streams = [open_stream(port) for _ in range(5)]
        time.sleep(0.5)  # the streams are past their first message and waiting for changes
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert took < STOP_LIMIT_SECONDS, f"serve took {took:.2f} s to stop with 5 open streams"
    assert "stopping" in err and "still running" not in err
    assert all(read_to_end(s, 1.0) for s in streams), "an event stream was left open"
    for s in streams:
        s.close()
    db = tmp_path / "data" / "tracking.db"
    assert not Path(str(db) + "-wal").exists() or Path(str(db) + "-wal").stat().st_size == 0  # closed cleanly
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1


def test_ctrl_c_stops_as_quickly(tmp_path):
    proc, port, _ = start_serve(tmp_path)
    try:
        streams = [open_stream(port) for _ in range(3)]
        time.sleep(0.3)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    for s in streams:
        s.close()
    assert proc.returncode == 0, err
    assert took < STOP_LIMIT_SECONDS, f"serve took {took:.2f} s to stop on Ctrl-C"
