"""scripts/install-pi.sh: syntax, and what it would run (--dry-run executes nothing)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-pi.sh"
ON_A_PI = "Raspberry Pi" in (Path("/proc/device-tree/model").read_bytes().decode("utf-8", "replace")
                             if Path("/proc/device-tree/model").exists() else "")


def run(*args, home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KELTIS_CAM", "XDG_"))}
    env["HOME"] = str(home)
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)


def test_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="needs a Debian-style /usr/bin/python3")
def test_dry_run_shows_the_install_plan(tmp_path):
    result = run("--dry-run", home=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "apt-get install -y --no-install-recommends python3-picamera2 python3-numpy python3-venv" in out
    assert f"/usr/bin/python3 -m venv --system-site-packages {tmp_path}/.local/share/keltis-cam/venv" in out
    assert "-c " in out and "keltis-constraints.txt" in out  # numpy pinned to apt's
    assert "opencv-python-headless==4.10.0.84" in out or "python3-opencv" in out
    assert f"config init {tmp_path}/.config/keltis-cam/config.toml\n" in out  # config init finds the camera
    assert not (tmp_path / ".local").exists()  # nothing was done


@pytest.mark.skipif(ON_A_PI, reason="on a Pi the script would really install")
def test_refuses_to_run_on_a_machine_that_is_not_a_pi(tmp_path):
    result = run(home=tmp_path)
    assert result.returncode == 1 and "not a Raspberry Pi" in result.stderr


def test_unknown_option(tmp_path):
    result = run("--colour", "red", home=tmp_path)
    assert result.returncode == 64 and "unknown option --colour" in result.stderr
