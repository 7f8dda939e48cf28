"""The camera path on the recorded fixture sessions (issue 20 item 8): `keltis-cam replay SESSION
--observer vision --check` reproduces each session's true move log.

The sessions are stored as a live camera gives them (scripts/make_fixtures.sh): small video frames
for the motion gate and `"stills": [2304, 1296]` in simulator.json, so the replay source renders the
full-resolution still the camera would take when the reader asks for one. The bundled demo (a whole
game, ~900 frames) is measured by `keltis-cam replay fixtures/sessions/demo --check` instead (docs/benchmarks.md)."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from keltis_cam.cli import main

SESSIONS = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"

#: sessions the camera path does not read right yet, and why
#: (base-hard, issue 15: two small pawns' steps unseen in hard light, read since the pawn net's session-19
#: fine-tune on crowded stones)
VISION_MISSES: dict[str, str] = {}


def _sessions() -> list:
    names = sorted(p.name for p in SESSIONS.iterdir() if (p / "truth" / "events.jsonl").is_file() and p.name != "demo")
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=VISION_MISSES[n]))
            if n in VISION_MISSES else n for n in names]


@pytest.mark.parametrize("name", _sessions())
def test_the_camera_path_reproduces_the_fixtures_true_move_log(name):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(SESSIONS / name), "--observer", "vision", "--check", "--json"])
    result = json.loads(out.getvalue())
    assert result["observer"] == "vision"
    check = result["check"]
    assert check["true_turns"] >= 2
    assert check["exact"] == check["true_turns"], check["mismatches"]
    assert code == 0
