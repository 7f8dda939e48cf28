"""Resident memory of a real `keltis-cam serve` while phones poll the camera picture.

    .venv/bin/python bench/frame_memory.py [--seconds 600] [--clients 5] [--source replay:SESSION]

Starts `keltis-cam serve` on loopback (default: the bundled demo replay, looping, at 4x its pace
so the picture changes often), lets it warm up, then has `--clients` threads fetch
/view/frame.jpg back to back for `--seconds` (default 10 minutes). Prints the server's RSS
(/proc/PID/status VmRSS) at the start, every minute, and at the end, with the growth. The target
(issue 18): growth within 20 MB. OpenCV's text drawing leaks memory per calling thread, so the
pictures must be drawn on one long-lived thread (webui/frames.py), not on waitress's 48.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def rss_mb(pid: int) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", text).group(1)) / 1024


def start_serve(source: str | None) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "KELTIS_CAM_CONFIG": "/nonexistent/keltis-bench-config.toml", "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "keltis_cam", "serve", "--host", "127.0.0.1", "--port", "0", "--speed", "4",
           "--loop"]
    if source:
        cmd += ["--source", source]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if m:
            threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain the rest
            return proc, int(m.group(1))
        if not line:
            break
    proc.kill()
    raise SystemExit("serve did not start")


def poll(url: str, stop: threading.Event, counts: list[int], errors: dict[str, int], i: int) -> None:
    while not stop.is_set():
        try:
            with urllib.request.urlopen(url, timeout=10) as resp:
                resp.read()
            counts[i] += 1
        except urllib.error.HTTPError as exc:  # 404 while a looping replay pauses between runs
            errors[f"HTTP {exc.code}"] = errors.get(f"HTTP {exc.code}", 0) + 1
            time.sleep(0.2)
        except OSError as exc:
            errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
            time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="how long the clients poll (default 600)")
    ap.add_argument("--clients", type=int, default=5, help="phones polling the picture (default 5)")
    ap.add_argument("--source", help="serve's --source (default: the bundled demo replay)")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds of polling before the first reading")
    args = ap.parse_args(argv)

    proc, port = start_serve(args.source)
    url = f"http://127.0.0.1:{port}/view/frame.jpg"
    stop = threading.Event()
    counts, errors = [0] * args.clients, {}
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the replay's first frame
            try:
                urllib.request.urlopen(url, timeout=5).read()
                break
            except urllib.error.HTTPError:
                time.sleep(0.2)
        idle = rss_mb(proc.pid)
        threads = [threading.Thread(target=poll, args=(url, stop, counts, errors, i), daemon=True)
                   for i in range(args.clients)]
        for t in threads:
            t.start()
        time.sleep(args.warmup)
        start = rss_mb(proc.pid)
        t0 = time.monotonic()
        print(f"serve pid {proc.pid} on port {port}; {args.clients} clients polling /view/frame.jpg "
              f"for {args.seconds:.0f} s")
        print(f"RSS idle:  {idle:7.1f} MB")
        print(f"RSS start: {start:7.1f} MB  (after {args.warmup:.0f} s of polling)")
        next_report = 60.0
        while (elapsed := time.monotonic() - t0) < args.seconds:
            time.sleep(min(1.0, args.seconds - elapsed))
            if elapsed >= next_report:
                print(f"  {elapsed:5.0f} s: {rss_mb(proc.pid):7.1f} MB, {sum(counts)} pictures")
                next_report += 60.0
        end = rss_mb(proc.pid)
        stop.set()
        for t in threads:
            t.join(15)
        took = time.monotonic() - t0
        print(f"RSS end:   {end:7.1f} MB  after {took:.0f} s; growth {end - start:+.1f} MB (target: within 20 MB)")
        print(f"pictures served: {sum(counts)} ({sum(counts) / took:.1f}/s), not served: {errors or 'none'}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
