"""Take the README's screenshot of the demo as it runs: `keltis-cam serve` on the bundled game (the
camera path, as `bash scripts/dev.sh demo` runs it), a phone-sized page in Debian's chromium.

    .venv/bin/python scripts/screenshot_demo.py [--moves N] [--speed S] [--out docs/img/dashboard.png]

It waits until the page shows N moves (default 12), then saves the screenshot. Needs
/usr/bin/chromium (apt) and the playwright package (the test extra); never downloads a browser.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=12, help="moves on the page before the picture (default 12)")
    p.add_argument("--speed", default="4", help="replay speed (default 4)")
    p.add_argument("--timeout", type=float, default=900, help="give up after this many seconds")
    p.add_argument("--out", default=str(ROOT / "docs" / "img" / "dashboard.png"))
    args = p.parse_args()
    from playwright.sync_api import sync_playwright

    env = {**os.environ, "KELTIS_CAM_CONFIG": "/nonexistent/keltis-screenshot.toml", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "keltis_cam", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--speed", args.speed, "--no-loop", "--pin", "246810", "--no-service"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
    try:
        url = None
        for line in proc.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
            if found:
                url = found.group(1)
                break
        if url is None:
            print("serve printed no address", file=sys.stderr)
            return 1
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport=PHONE, device_scale_factor=2)
            page.goto(url)
            deadline = time.monotonic() + args.timeout
            while time.monotonic() < deadline:
                moves = page.evaluate("() => document.querySelectorAll('#history li.move').length")
                print(f"\r{moves} moves on the page", end="", flush=True)
                if moves >= args.moves:
                    break
                time.sleep(2)
            print()
            page.screenshot(path=args.out)
            browser.close()
        print(f"written {args.out}")
        return 0
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    sys.exit(main())
