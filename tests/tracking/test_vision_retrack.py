"""bench/vision_retrack.py: the tracker alone on the readings a replay kept (session 16)."""
from __future__ import annotations

import json
import shutil
import sys

from camera.session import open_session
from tracking.observers import make_observer
from tracking.pipeline import SessionFrame

from tracking_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
import vision_retrack  # noqa: E402


def test_kept_readings_are_what_the_tracker_reads(short_session, tmp_path, capsys):
    """Readings kept for every frame are fed to the tracker frame by frame, in place of the session's own:
    the session's truth kept reads the game it shows; the same with the second half of the frames kept
    as unusable loses that half's turns."""
    folder = tmp_path / "session"
    shutil.copytree(short_session, folder)
    session = open_session(folder)
    truth = make_observer("truth", session)
    readings = [(ref.index, truth.observe(SessionFrame(ref.index, ref.t)).to_json()) for ref in session.frames]

    def kept(lines):
        (folder / vision_retrack.READINGS_FILE).write_text("".join(json.dumps({"index": i, "obs": o}) + "\n"
                                                                   for i, o in lines))
        return vision_retrack.run(folder, record=False)

    whole = kept(readings)["check"]
    assert whole["true_turns"] > 5 and whole["exact"] == whole["true_turns"], whole["mismatches"][:2]
    assert whole["final_totals"]["match"]
    half = len(readings) // 2
    blind = kept(readings[:half] + [(i, {**o, "usable": False, "reason": "occluded"}) for i, o in readings[half:]])
    assert blind["check"]["exact"] < whole["exact"]
    assert vision_retrack.main(["replay", str(folder), "--set", "decoder_partial_pawns=false", "--quiet"]) == 0
    assert f"{blind['check']['exact']}/{whole['true_turns']} visible turns exact" in capsys.readouterr().out
