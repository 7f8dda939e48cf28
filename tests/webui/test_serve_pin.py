"""PIN hygiene (issue 18 item 13): never in the process arguments, never printed when run as a
service, 6 random digits by default, the docs' example refused, repeated wrong PINs slowed down."""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine.errors import MalformedInput
from keltis_cam.commands.serve import choose_pin, is_service
from serve_process import ROOT, start_serve
from webui.security import AttemptLimiter, check_pin_strength, generate_pin

README = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
UNIT = (ROOT / "webui" / "deploy" / "keltis-cam.service").read_text(encoding="utf-8")


@pytest.mark.parametrize("pin", ["123456", "4711", "1234", "111111", "654321", "0000"])
def test_pins_anyone_tries_first_are_refused(pin):
    with pytest.raises(ValueError):
        check_pin_strength(pin)


@pytest.mark.parametrize("pin", ["1357", "829301", "480215"])
def test_other_pins_are_accepted(pin):
    assert check_pin_strength(pin) == pin


def test_the_docs_example_pins_are_refused():
    examples = set(re.findall(r"(?:KELTIS_CAM_PIN=|--pin |pin = \")(\d+)", README + UNIT))
    assert examples, "the docs show how to set a PIN"
    for pin in examples:
        with pytest.raises(ValueError):
            check_pin_strength(pin)


def test_random_pins_have_six_digits():
    assert all(len(p) == 6 and p.isdigit() for p in (generate_pin() for _ in range(50)))


def args(**kw):
    return argparse.Namespace(**{"pin": None, "pin_file": None, "service": None, **kw})


def test_the_pin_comes_from_a_file_the_environment_or_the_config(tmp_path):
    pin_file = tmp_path / "pin"
    pin_file.write_text("582913\n")
    assert choose_pin(args(pin_file=str(pin_file)), {}, {}) == ("582913", "--pin-file")
    assert choose_pin(args(), {}, {"KELTIS_CAM_PIN": "730194"}) == ("730194", "KELTIS_CAM_PIN")
    assert choose_pin(args(), {"pin_file": str(pin_file)}, {}) == ("582913", "web.pin_file")
    assert choose_pin(args(), {"pin": 846102}, {}) == ("846102", "web.pin")
    assert choose_pin(args(pin="1357"), {"pin": 846102}, {"KELTIS_CAM_PIN": "730194"})[0] == "1357"
    assert choose_pin(args(), {}, {}) == (None, "")
    with pytest.raises(MalformedInput, match="KELTIS_CAM_PIN.*example"):
        choose_pin(args(), {}, {"KELTIS_CAM_PIN": "123456"})
    with pytest.raises(MalformedInput, match="--pin-file"):
        choose_pin(args(pin_file=str(tmp_path / "missing")), {}, {})


def test_service_mode_follows_the_flag_else_the_terminal():
    class Tty:
        def isatty(self):
            return True

    class Pipe:
        def isatty(self):
            return False

    assert is_service(args(), Pipe()) and not is_service(args(), Tty())
    assert is_service(args(service=True), Tty()) and not is_service(args(service=False), Pipe())


def test_wrong_pins_wait_longer_each_round():
    now = [1000.0]
    limiter = AttemptLimiter(5, 300.0, clock=lambda: now[0])
    for _ in range(5):
        limiter.failed("10.0.0.9")
    first = limiter.blocked_for("10.0.0.9")
    assert 299 <= first <= 300
    now[0] += 301
    assert limiter.blocked_for("10.0.0.9") == 0
    for _ in range(5):
        limiter.failed("10.0.0.9")
    assert limiter.blocked_for("10.0.0.9") >= 599  # the second round waits twice as long
    limiter.succeeded("10.0.0.9")
    assert limiter.blocked_for("10.0.0.9") == 0


def post_undo(port: int, pin: str) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/undo", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json", "X-Keltis-PIN": pin})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def stop(proc) -> str:
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=15)
    return out + err


def test_a_service_never_prints_or_passes_the_pin(tmp_path):
    proc, port, lines = start_serve(tmp_path, env={"KELTIS_CAM_PIN": "730194"})
    try:
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        environ_ok = post_undo(port, "730194") != 403  # the PIN works (409: no move to undo yet)
        wrong = post_undo(port, "730195")
    finally:
        printed = "".join(lines) + stop(proc)
    assert "730194" not in cmdline
    assert environ_ok and wrong == 403
    assert "730194" not in printed and "not printed" in printed


def test_a_service_writes_its_random_pin_to_a_private_file_and_the_table_screen_shows_it(tmp_path):
    proc, port, lines = start_serve(tmp_path)  # stdout is a pipe: a service
    try:
        pin_file = tmp_path / "data" / "table-pin"
        pin = pin_file.read_text().strip()
        mode = stat.S_IMODE(os.stat(pin_file).st_mode)
        works = post_undo(port, pin)
        table_page = table_home(port, pin)
    finally:
        printed = "".join(lines) + stop(proc)
    assert len(pin) == 6 and pin.isdigit() and mode == 0o600
    assert works != 403
    assert pin not in printed and str(pin_file) in printed
    assert pin in table_page


def table_home(port: int, pin: str) -> str:
    """Log in on /table/login with the PIN and return the table screen."""
    import http.cookiejar

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = f"http://127.0.0.1:{port}"
    form = opener.open(base + "/table/login", timeout=5).read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode({"pin": pin, "csrf_token": token, "next": "/table/"}).encode()
    return opener.open(base + "/table/login", data=data, timeout=5).read().decode()


def test_a_terminal_user_still_sees_the_pin(tmp_path):
    proc, port, lines = start_serve(tmp_path, "--no-service", env={"KELTIS_CAM_PIN": "730194"})
    printed = "".join(lines) + stop(proc)
    assert "Table PIN:" in printed and "730194" in printed


def test_serve_refuses_the_docs_example_pin(tmp_path):
    import subprocess
    import sys

    env = {**os.environ, "KELTIS_CAM_CONFIG": "/nonexistent/x.toml", "KELTIS_CAM_PIN": "123456"}
    done = subprocess.run([sys.executable, "-m", "keltis_cam", "serve", "--source", "replay:fixtures/sessions/demo",
                           "--port", "0"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "KELTIS_CAM_PIN" in done.stderr, done.stderr


def test_the_service_unit_keeps_the_pin_out_of_arguments_and_journal():
    exec_start = next(line for line in UNIT.splitlines() if line.startswith("ExecStart="))
    assert "--pin" not in exec_start and "--service" in exec_start
    assert "journalctl" not in UNIT or "grep PIN" not in UNIT
