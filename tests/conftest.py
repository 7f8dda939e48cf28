"""Fixtures every floor's tests may use: the fake picamera2/libcamera of tests/fakes."""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

FAKES = Path(__file__).resolve().parent / "fakes"

# what the product keeps in the user's cache (numerals taught for a components folder) goes to a
# folder of this test run, never into the home of whoever runs the suite
os.environ["KELTIS_CAM_CACHE"] = tempfile.mkdtemp(prefix="keltis-cam-test-cache-")
# and that folder goes when the run (or an xdist worker) ends, so runs do not pile folders up in /tmp
atexit.register(shutil.rmtree, os.environ["KELTIS_CAM_CACHE"], ignore_errors=True)


def _forget_fake_modules() -> None:
    for name in list(sys.modules):
        if name.split(".")[0] in ("picamera2", "libcamera"):
            del sys.modules[name]


def _fake_picamera2(monkeypatch):
    _forget_fake_modules()
    monkeypatch.syspath_prepend(str(FAKES))
    import picamera2

    picamera2.WORLD.reset()
    yield picamera2
    for cam in list(picamera2.WORLD.instances):
        cam.close()
    _forget_fake_modules()


@pytest.fixture
def fake_picamera2(monkeypatch):
    """The fake `picamera2` (and `libcamera`) importable for one test; yields the module (use .WORLD)."""
    yield from _fake_picamera2(monkeypatch)


@pytest.fixture(scope="module")
def module_fake_picamera2():
    """fake_picamera2 for a module's fixture made once (its tests share what it filmed)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield from _fake_picamera2(monkeypatch)


@pytest.fixture
def no_picamera2(monkeypatch):
    """Make `import picamera2` fail as on a machine without python3-picamera2."""
    _forget_fake_modules()
    monkeypatch.setitem(sys.modules, "picamera2", None)
    yield
    _forget_fake_modules()


# The whole suite (`bash scripts/dev.sh test`) runs on one worker a core, but the tests that time a real
# server, a browser or a camera thread against the wall clock run alone afterwards, so another
# worker's load cannot make them late. They are marked `serial` by where they live (and by hand).
SERIAL_FOLDERS = ("webui", "camera", "app")


def pytest_collection_modifyitems(config, items):
    tests_root = Path(__file__).resolve().parent
    for item in items:
        try:
            folder = Path(str(item.fspath)).resolve().relative_to(tests_root).parts[0]
        except ValueError:
            continue
        if folder in SERIAL_FOLDERS:
            item.add_marker(pytest.mark.serial)
