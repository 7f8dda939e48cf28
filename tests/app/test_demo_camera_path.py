"""The bundled demo's way of replaying a game through the camera path: a small video stream for the
motion gate and full-resolution stills on request (`sim session --stills`), read by the vision
reader, which is every source's default observer (issue 20 items 1 and 5)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from keltis_cam.cli import main
from keltis_cam.pipeline import bundled_session, build_pipeline
from simulator.record import SessionOptions, record_session
from simulator.stills import stills_size

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def filmed_small(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-like") / "s"
    record_session(out, SessionOptions(game="keltis", board="nwnz", players=2, seed=1612, size=(480, 270),
                                       max_moves=2, quality=60, truth_render="none", stills=(1152, 648)))
    return out


def test_the_bundled_demo_offers_full_resolution_stills_and_is_read_by_vision():
    demo = bundled_session()
    assert demo is not None and demo.name == "demo"
    assert stills_size(demo) == (2304, 1296)
    built = build_pipeline(f"replay:{demo}")
    try:
        assert built.observer_name == "vision"
        source = built.make_source()
        assert source.takes_stills
    finally:
        built.close()
    truth = build_pipeline(f"replay:{demo}", observer="truth")   # still there for tests and benches
    try:
        assert truth.observer_name == "truth" and not truth.make_source().takes_stills
    finally:
        truth.close()


def test_a_replay_by_default_reads_the_stills_through_the_vision_reader(filmed_small, capsys):
    code = main(["replay", str(filmed_small), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["observer"] == "vision"
    # the reader asked for stills (one per still period, not one per frame) and read usable tables
    usable = result["frames"] - sum(result["unusable_frames"].values())
    assert 0 < result["stills_read"] <= usable
    assert usable > 0
