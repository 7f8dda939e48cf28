"""A real `keltis-cam serve` process on a free loopback port, for the tests that need one."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from webui_replay import write_replay_session

ROOT = Path(__file__).resolve().parents[2]


def start_serve(tmp_path: Path, *extra: str, env: dict[str, str] | None = None,
                speed: str = "1") -> tuple[subprocess.Popen, int, list[str]]:
    """Start serve on a replayed session; returns the process, its port and the lines printed so far."""
    session = tmp_path / "session"
    if not session.exists():
        write_replay_session(session)
    full_env = {k: v for k, v in os.environ.items() if k != "KELTIS_CAM_PIN"}  # only the PIN the test gives
    full_env.update({"KELTIS_CAM_CONFIG": "/nonexistent/keltis-test-config.toml", "PYTHONUNBUFFERED": "1",
                     **(env or {})})
    proc = subprocess.Popen([sys.executable, "-m", "keltis_cam", "serve", "--source", f"replay:{session}",
                             "--observer", "truth", "--host", "127.0.0.1", "--port", "0", "--speed", speed, "--data-dir",
                             str(tmp_path / "data"), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=full_env)
    lines: list[str] = []
    port = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()  # to the banner's end: communicate() later skips what readline buffered
        if not line:
            break
        lines.append(line)
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        port = port or (int(m.group(1)) if m else None)
        if line.startswith("Stop with Ctrl-C") and port:
            return proc, port, lines
    proc.kill()
    raise AssertionError(f"serve printed no address: {proc.stderr.read()}")
