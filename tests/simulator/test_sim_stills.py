"""The simulator as a camera's still mode: a session filmed small (`--size`) renders, on request, the
full-resolution still of the table at any of its frames (`--stills`, simulator/stills.py)."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from camera.session import open_session
from engine.errors import MalformedInput
from simulator.record import SessionOptions, record_session
from simulator.stills import SessionStills, stills_size


@pytest.fixture(scope="module")
def small_session(tmp_path_factory):
    out = tmp_path_factory.mktemp("stills") / "s"
    record_session(out, SessionOptions(game="keltis", board="nwnz", players=2, seed=1611, size=(320, 180),
                                       max_moves=3, quality=95, truth_render="none", stills=(640, 360)))
    return out


def test_the_session_says_which_stills_it_offers(small_session, tmp_path):
    assert stills_size(small_session) == (640, 360)
    assert stills_size(tmp_path) is None
    (tmp_path / "simulator.json").write_text(json.dumps({"options": {"stills": [640]}}))
    with pytest.raises(MalformedInput, match="options.stills"):
        stills_size(tmp_path)


def test_a_still_shows_the_table_of_its_frame_at_the_still_size(small_session):
    session = open_session(small_session)
    stills = SessionStills(small_session)
    truths = [session.truth(ref) for ref in session.frames]
    usable = [ref for ref, tr in zip(session.frames, truths) if tr["usable"]]
    hand = next(ref for ref, tr in zip(session.frames, truths) if not tr["usable"])
    ref = usable[len(usable) // 2]
    still = stills.still(ref.index)
    assert still.shape == (360, 640, 3)
    video = session.read_frame(ref).astype(np.float32)
    down = cv2.resize(still, (320, 180), interpolation=cv2.INTER_AREA).astype(np.float32)
    same = float(np.abs(down - video).mean())
    # the same table, light and camera: only the sensor noise and the scaling differ
    assert same < 6.0, same
    other = session.read_frame(hand).astype(np.float32)   # an arm over the table
    assert float(np.abs(down - other).mean()) > same
    # asked again, the same picture (a replay is reproducible)
    assert np.array_equal(stills.still(ref.index), still)
