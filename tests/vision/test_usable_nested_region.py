"""The usable stage (vision/usable.py `region_features`) measures every not-table region, also one lying
in a hole of another: `cv2.findContours(RETR_EXTERNAL)` gives such a region no outer contour of the
whole mask.

Found replaying fixtures/sessions/base-hard with full-resolution stills through the vision observer
(session 16): a hand over the board at frame 27 left a region inside another's hole, and the reader
failed on the frame ("KeyError: 7") instead of judging it."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from calibration.model import load_calibration
from camera.session import open_session
from engine.board import bundled_board
from vision.reader import Reader
from vision.usable import DEFAULT_CONFIG, REGION_FEATURES, TablePixels, region_features

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "base-hard"


@lru_cache(maxsize=None)
def usable_model():
    """The usable stage's model of the base-hard table, registered on its first frame that shows it."""
    session = open_session(SESSION)
    reader = Reader(load_calibration(SESSION / session.info.calibration), game="keltis",
                    board=bundled_board(session.info.board), seats=dict(session.info.seats))
    for ref in session.frames:
        reader.read(session.read_frame(ref))
        if reader.usable_model is not None:
            break
    assert reader.usable_model is not None
    return reader.usable_model


def features(mask):
    """(kept region labels, their features, labels) of a small-picture mask, as judge_small measures them."""
    model = usable_model()
    n, labels, stats, _c = cv2.connectedComponentsWithStats(mask, 8, cv2.CV_32S)
    zeros = np.zeros(mask.shape, np.float32)
    px = TablePixels(mask, np.ones_like(mask), model.frame_border.astype(np.uint8), 1.0, zeros, zeros, (0.1, 0.1))
    keep, feats = region_features(DEFAULT_CONFIG, model, px, labels, stats, n)
    return keep, feats, labels


def test_a_region_inside_another_regions_hole_is_measured_as_if_alone():
    h, w = usable_model().frame_border.shape
    ring = np.zeros((h, w), np.uint8)
    cv2.rectangle(ring, (100, 40), (220, 140), 1, thickness=6)      # a frame of shadow ...
    blob = np.zeros((h, w), np.uint8)
    cv2.ellipse(blob, (160, 90), (30, 12), 20, 0, 360, 1, -1)     # ... with a hand-sized part in its hole
    keep, feats, labels = features(ring | blob)
    assert len(keep) == 2 and feats.shape == (2, len(REGION_FEATURES))
    inner = keep.index(int(labels[90, 160]))
    alone_keep, alone, _l = features(blob)
    assert len(alone_keep) == 1
    # its shape (the rectangle's sides, the hull's fill) as measured on it alone
    for name in ("log_length", "log_width", "fill", "solidity", "log_area", "toward_middle"):
        j = REGION_FEATURES.index(name)
        assert abs(feats[inner, j] - alone[0, j]) < 1e-4, name

