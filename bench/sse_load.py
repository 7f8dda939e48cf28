"""Load test of the phone dashboard's live pushes: N phones on the event stream of a real
`keltis-cam serve` (waitress, the real tracker replaying a session), on loopback, bounded in time.

    python bench/sse_load.py [--clients 30] [--rounds 20] [--duration 60] [--session DIR] [--json]

It measures
- connect: time until every client holds its first snapshot;
- push latency: the table sends a correction (POST /api/corrections, "whose turn", with the PIN);
  latency = from just before the POST until each client has the change message that carries it
  (so it includes the request itself, the tracker's SQLite commit, the broadcast and the delivery);
- fan-out spread: for every change the replay itself produces (moves read from the recording),
  the time between the first and the last client receiving it, and whether every client got it;
- the server process's threads and memory at the end.
Without --session it writes a simulated session (tracking.synth) to a temporary folder.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PIN = "8642"


def write_session(folder: Path, frames: int = 1500) -> Path:
    """A simulated board game for three (first `frames` frames at 5 fps, tiny dummy JPEGs)."""
    from tracking.synth import TINY_JPEG, simulate_game
    from camera.session import SessionInfo, SessionWriter

    sim = simulate_game("keltis", "base", 3, 5, illegal_rate=0.2)
    info = SessionInfo(game="keltis", board="base", seats=dict(sim.setup["seats"]), rules={}, source="simulator")
    with SessionWriter(folder, info, overwrite=True) as writer:
        for i, t, obs in sim.observations():
            if i >= frames:
                break
            writer.add_frame(TINY_JPEG, t, truth=obs.to_json())
    return folder


class Client(threading.Thread):
    """One phone: reads the event stream and notes when each message id arrives."""

    def __init__(self, host: str, port: int, deadline: float):
        super().__init__(daemon=True)
        self.host, self.port, self.deadline = host, port, deadline
        self.received: dict[int, float] = {}   # message id -> perf_counter at arrival
        self.snapshot_at: float | None = None
        self.pings = 0
        self.error: str | None = None
        self.started = time.perf_counter()
        self._cond = threading.Condition()

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=max(1.0, self.deadline - time.monotonic()))
            conn.request("GET", "/api/stream", headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            if resp.status != 200:
                self.error = f"HTTP {resp.status}"
                return
            event, msg_id = None, None
            while time.monotonic() < self.deadline:
                line = resp.fp.readline()
                if not line:
                    self.error = self.error or "stream closed"
                    return
                now = time.perf_counter()
                text = line.decode("utf-8").rstrip("\n")
                if text.startswith(":"):
                    self.pings += 1
                elif text.startswith("id: "):
                    msg_id = int(text[4:])
                elif text.startswith("event: "):
                    event = text[7:]
                elif text == "" and msg_id is not None:
                    with self._cond:
                        if event == "snapshot" and self.snapshot_at is None:
                            self.snapshot_at = now
                        self.received[msg_id] = now
                        self._cond.notify_all()
                    event, msg_id = None, None
        except Exception as exc:  # reported, never hidden
            if time.monotonic() < self.deadline:
                self.error = f"{type(exc).__name__}: {exc}"

    def time_of(self, event_id: int, timeout: float) -> float | None:
        """When the first message with an id >= event_id arrived (waiting up to timeout)."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                hits = [t for i, t in self.received.items() if i >= event_id]
                if hits:
                    return min(hits)
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def proc_status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(re.findall(r"^(Threads|VmRSS):\s+(.+)$", text, re.M))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=20, help="triggered changes (corrections) to time")
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between triggered changes")
    ap.add_argument("--duration", type=float, default=60.0, help="hard bound on the whole run (seconds)")
    ap.add_argument("--session", help="session folder to replay (default: a simulated one)")
    ap.add_argument("--threads", type=int, default=48, help="server threads (serve --threads)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    deadline = time.monotonic() + args.duration

    with tempfile.TemporaryDirectory(prefix="keltis-sse-bench-") as tmp:
        session = Path(args.session) if args.session else write_session(Path(tmp) / "session")
        env = {**os.environ, "KELTIS_CAM_CONFIG": str(Path(tmp) / "none.toml"), "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen(
            [sys.executable, "-m", "keltis_cam", "serve", "--source", f"replay:{session}", "--host", "127.0.0.1",
             "--port", "0", "--pin", PIN, "--speed", "1", "--no-loop", "--threads", str(args.threads),
             "--data-dir", str(Path(tmp) / "data")],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            return run(args, server, deadline)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()


def run(args: argparse.Namespace, server: subprocess.Popen, deadline: float) -> int:
    url = None
    while url is None and time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            print("the server did not start:\n" + server.stderr.read(), file=sys.stderr)
            return 1
        m = re.search(r"Open on phones.*?http://([\d.]+):(\d+)/", line)
        if m:
            url = (m.group(1), int(m.group(2)))
    host, port = url
    base = f"http://{host}:{port}"
    state = json.loads(urllib.request.urlopen(base + "/api/state", timeout=10).read())
    seats = list(state["game"]["seats"])

    t_connect = time.perf_counter()
    clients = [Client(host, port, deadline) for _ in range(args.clients)]
    for c in clients:
        c.start()
    while time.monotonic() < deadline and not all(c.snapshot_at or c.error for c in clients):
        time.sleep(0.01)
    connected = [c for c in clients if c.snapshot_at]
    connect_times = [c.snapshot_at - t_connect for c in connected]

    latencies: list[float] = []
    post_times: list[float] = []
    missed = 0
    for r in range(args.rounds):
        if time.monotonic() > deadline - 3:
            break
        body = json.dumps({"kind": "turn", "seat": seats[r % len(seats)]}).encode()
        req = urllib.request.Request(base + "/api/corrections", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "X-Keltis-PIN": PIN})
        t0 = time.perf_counter()
        with urllib.request.urlopen(req, timeout=10) as resp:
            event_id = json.loads(resp.read())["event_id"]
        post_times.append(time.perf_counter() - t0)
        for c in connected:
            t = c.time_of(event_id, timeout=max(0.1, min(5.0, deadline - time.monotonic())))
            if t is None:
                missed += 1
            else:
                latencies.append(t - t0)
        time.sleep(args.interval)

    # Fan-out of every message the clients saw (the replay's own moves and the corrections).
    ids = sorted(set().union(*(c.received for c in connected))) if connected else []
    spreads, incomplete = [], 0
    for i in ids:
        times = [c.received[i] for c in connected if i in c.received]
        if len(times) < len(connected):
            incomplete += 1
        if len(times) > 1:
            spreads.append(max(times) - min(times))
    status = proc_status(server.pid)
    errors = [c.error for c in clients if c.error]
    figures: dict[str, Any] = {
        "clients": args.clients, "connected": len(connected), "client_errors": errors[:5],
        "connect_all_s": round(max(connect_times), 3) if connect_times else None,
        "rounds": len(post_times), "deliveries": len(latencies), "missed_deliveries": missed,
        "push_latency_ms": {k: round(pct(latencies, p) * 1000, 1) for k, p in
                            (("p50", 50), ("p95", 95), ("max", 100))} if latencies else None,
        "push_latency_mean_ms": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
        "post_ms_p50": round(pct(post_times, 50) * 1000, 1) if post_times else None,
        "messages_seen": len(ids), "messages_not_at_every_client": incomplete,
        "fanout_spread_ms": {k: round(pct(spreads, p) * 1000, 1) for k, p in
                             (("p50", 50), ("p95", 95), ("max", 100))} if spreads else None,
        "server_threads": status.get("Threads"), "server_rss": status.get("VmRSS"),
    }
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"SSE load: {figures['connected']}/{args.clients} clients connected "
              f"(all holding a snapshot after {figures['connect_all_s']} s)")
        if latencies:
            pl = figures["push_latency_ms"]
            print(f"push latency over {len(post_times)} corrections x {len(connected)} clients "
                  f"({len(latencies)} deliveries, {missed} missed): p50 {pl['p50']} ms, p95 {pl['p95']} ms, "
                  f"max {pl['max']} ms (mean {figures['push_latency_mean_ms']} ms; the POST alone: p50 "
                  f"{figures['post_ms_p50']} ms)")
        if spreads:
            fs = figures["fanout_spread_ms"]
            print(f"fan-out spread over {len(ids)} messages (first to last client): p50 {fs['p50']} ms, "
                  f"p95 {fs['p95']} ms, max {fs['max']} ms; messages not at every client: {incomplete}")
        print(f"server: {figures['server_threads']} threads, {figures['server_rss']} resident")
        if errors:
            print(f"client errors: {errors[:5]}")
    ok = len(connected) == args.clients and missed == 0 and not errors
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
