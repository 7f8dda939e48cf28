"""A player read with more small pawns than it owns and no big one (docs/vision.md, session 24): its big
pawn, seen small, is read on the small-read stone where the classifier's P(big) is highest instead of a
small pawn being dropped (before, the big read small stayed small and a real small pawn elsewhere went
missing: two errors from one)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
from vision_helpers import one_colour_pawn_outputs

from vision.pawnnet import COLOURS, DEFAULT_CONFIG, decode_pawns

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "pawn-inputs" / "surplus-small.npz"
OFF = dataclasses.replace(DEFAULT_CONFIG, surplus_small_as_big=False)


_board = one_colour_pawn_outputs


ONE = [0.02, 0.97, 0.01]


def test_five_small_and_no_big_reads_the_big_where_it_is_likeliest():
    pb, ps = _board([ONE, ONE, [0.03, 0.96, 0.01], ONE, [0.1, 0.89, 0.01]], [0.02, 0.2, 0.1, 0.01, 0.06])
    big, small, margin = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [0, 1, 0, 0, 0]
    assert small[:, 0].tolist() == [1, 0, 1, 1, 1]
    assert float(margin[1]) == 0.0          # the counts overruled the classifier there
    # switched off: the least sure small pawn (stone 4) is dropped and no big pawn is read (main before)
    big, small, _ = decode_pawns(OFF, pb, ps, [0])
    assert big[:, 0].tolist() == [0] * 5 and small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_a_big_already_read_leaves_the_surplus_to_the_old_rule():
    pb, ps = _board([ONE, ONE, ONE, ONE, [0.1, 0.89, 0.01], [0.9, 0.1, 0.0]], [0.02, 0.2, 0.1, 0.01, 0.06, 0.8])
    for cfg in (DEFAULT_CONFIG, OFF):
        big, small, _ = decode_pawns(cfg, pb, ps, [0])
        assert big[:, 0].tolist() == [0, 0, 0, 0, 0, 1]
        assert small[:, 0].tolist() == [1, 1, 1, 1, 0, 0]


def test_no_big_evidence_anywhere_drops_a_small_as_before():
    """Below `surplus_small_big_floor` the classifier is sure no big pawn is there: a phantom small it is."""
    pb, ps = _board([ONE, ONE, ONE, ONE, [0.1, 0.89, 0.01]], [0.0, 0.01, 0.02, 0.0, 0.01])
    big, small, _ = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert not big[:, 0].any() and small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_a_pair_turned_big_plus_small_keeps_its_small_when_more_must_go():
    """Six small read (a pair on stone 0, whose P(big) is highest): big + small there, and the one still
    too many is dropped elsewhere, not from the stone the rule already lowered."""
    pb, ps = _board([[0.02, 0.5, 0.48], ONE, ONE, ONE, [0.2, 0.79, 0.01]], [0.25, 0.02, 0.02, 0.02, 0.02])
    big, small, _ = decode_pawns(DEFAULT_CONFIG, pb, ps, [0])
    assert big[:, 0].tolist() == [1, 0, 0, 0, 0]
    assert small[:, 0].tolist() == [1, 1, 1, 1, 0]


def test_recorded_dev_frame():
    """The classifier's probabilities (after the second look) on every path stone of a dev still: brown's
    big pawn on e4 is read small (P(big) 0.28, under the 0.3 threshold) and brown has five small pawns
    read. Before: e4 small and the least sure real small pawn (b1, beside the start) dropped; now e4 big
    and b1 kept — the frame's path pawns all right."""
    z = np.load(RECORDED)
    meta = json.loads(str(z["meta"]))
    cols = [COLOURS.index(p) for p in meta["players"]]
    want = sorted(tuple(t) for t in meta["truth"])

    def read(cfg):
        big, small, _ = decode_pawns(cfg, z["p_big"], z["p_small"], cols)
        out = []
        for i, sid in enumerate(meta["stones"]):
            for c in cols:
                out += [(sid, COLOURS[c], True)] * int(big[i, c]) + [(sid, COLOURS[c], False)] * int(small[i, c])
        return sorted(out)

    assert read(DEFAULT_CONFIG) == want
    before = read(OFF)
    assert ("e4", "brown", False) in before and ("b1", "brown", False) not in before
