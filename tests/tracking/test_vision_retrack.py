"""bench/vision_retrack.py: the tracker alone on the readings a replay kept (session 16)."""
from __future__ import annotations

import dataclasses
import json
import shutil
import sys

from camera.session import open_session
from tracking.observers import make_observer
from tracking.pipeline import SessionFrame

from tracking_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
import vision_retrack  # noqa: E402


def truth_kept(short_session, tmp_path):
    """A copy of the session whose kept readings are its truth, frame by frame."""
    folder = tmp_path / "session"
    shutil.copytree(short_session, folder)
    session = open_session(folder)
    truth = make_observer("truth", session)
    (folder / vision_retrack.READINGS_FILE).write_text("".join(
        json.dumps({"index": ref.index, "obs": truth.observe(SessionFrame(ref.index, ref.t)).to_json()}) + "\n"
        for ref in session.frames))
    return folder


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


def test_misreads_prints_the_kept_readings_beside_the_injected_tiles_by_cover(short_session, tmp_path, capsys):
    """`misreads` measures the kept readings against the truth: the truth kept reads nothing wrong (no tile misread,
    under a pawn or open), and a tile under a pawn read as another on every frame is counted as covered, not open."""
    folder = tmp_path / "session"
    shutil.copytree(short_session, folder)
    session = open_session(folder)
    truth = make_observer("truth", session)
    readings = [(ref.index, truth.observe(SessionFrame(ref.index, ref.t))) for ref in session.frames]

    def keep(lines):
        (folder / vision_retrack.READINGS_FILE).write_text("".join(json.dumps({"index": i, "obs": o.to_json()}) + "\n"
                                                                   for i, o in lines))
        vision_retrack.main(["misreads", str(folder)])
        return capsys.readouterr().out.split("tiles by cover, vision:")[1].split("tiles by cover, injected:")[0]

    clean = keep(readings)
    assert "read as another tile    0.0%" in clean and "open tile read as another tile    0.0%" in clean
    covered = []
    for i, obs in readings:
        stones = {p.stone for p in obs.pawns or ()}
        spots = [s for s, c in (obs.tiles or {}).items() if c is not None and s in stones] if obs.usable else []
        covered.append((i, dataclasses.replace(obs, tiles={**obs.tiles, **{s: "points-3" if obs.tiles[s] != "points-3"
                                                                           else "clover" for s in spots}})
                        if spots else obs))
    assert any(o is not r for (_, o), (_, r) in zip(covered, readings)), "no tile under a pawn in the session"
    misread = keep(covered)
    assert "tile under a pawn read as another tile  100.0%" in misread
    assert "open tile read as another tile    0.0%" in misread


def test_compare_prints_the_camera_path_beside_truth_with_the_models_misreads(short_session, tmp_path, capsys):
    """`compare` (session 21): the kept readings' turns beside truth + tracking.noise at each rate, per session and
    kind; the truth kept reads every turn, as does truth without misreads; s18 and s21 both run."""
    folder = truth_kept(short_session, tmp_path)
    for model in ("s18", "s21"):
        assert vision_retrack.main(["compare", str(folder), "--rates", "0", "0.3", "--noise-model", model]) == 0
        out = capsys.readouterr().out
        line = next(x for x in out.splitlines() if x.startswith("session:"))
        cells = line.split(" | ")
        assert cells[0].split("camera path")[1].strip().startswith("100.0%")
        assert cells[1].startswith("truth+0 ") and "100.0%" in cells[1]
        assert cells[2].startswith("truth+0.3 ")
        assert "per kind" in out and "\n  all " in out



def test_causes_names_the_class_of_mistakes_whose_truth_makes_a_lost_turn_exact(short_session, tmp_path, capsys):
    """`causes` replays the kept readings with one class of the reader's mistakes at a time read as the truth shows
    it: every discard pile read empty on every frame loses the turns that discarded, and each of those is named
    "tops" (the truth of the piles alone makes it exact)."""
    folder = tmp_path / "session"
    shutil.copytree(short_session, folder)
    session = open_session(folder)
    truth = make_observer("truth", session)
    readings = []
    for ref in session.frames:
        obs = truth.observe(SessionFrame(ref.index, ref.t)).to_json()
        if obs.get("usable"):
            obs = {**obs, "discard_tops": {pile: None for pile in obs.get("discard_tops") or {}}}
        readings.append((ref.index, obs))
    (folder / vision_retrack.READINGS_FILE).write_text("".join(json.dumps({"index": i, "obs": o}) + "\n"
                                                               for i, o in readings))
    assert vision_retrack.main(["causes", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    lost = [line.split(": ", 1)[1] for line in lines if line.strip().startswith("true turn")]
    assert lost and all("tops" in cause.split("+") for cause in lost), lines


def test_hash_seeds_replays_in_child_processes_and_compares(short_session, tmp_path, capsys):
    """`replay --hash-seeds 1 2` runs the replay under two string-hash seeds and says the outputs agree (the
    decoder follows no set's order: session 23's float sum); the option and its values are not passed on."""
    assert vision_retrack._without_hash_seeds(["replay", "S", "--hash-seeds", "1", "2", "--quiet"]) == \
        ["replay", "S", "--quiet"]
    folder = truth_kept(short_session, tmp_path)
    assert vision_retrack.main(["replay", str(folder), "--quiet", "--hash-seeds", "1", "2"]) == 0
    out = capsys.readouterr().out
    assert "visible turns exact" in out and "the same under PYTHONHASHSEED 1, 2" in out
