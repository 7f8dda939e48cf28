"""The colours' evidence shifted by the frame's own sure lone pawns (vision.pawnnet.frame_colour_offsets, session 30):
a frame whose sure white pawns the net reads a little grey moves its grey/white boundary towards grey; colours the
net tells apart easily (log-odds beyond the cap on both sides) move nothing; a pair without anchors of both colours
moves nothing; off (PawnNetConfig.frame_colour_shift 0) nothing changes."""
from __future__ import annotations

import dataclasses

import numpy as np

from vision.pawnnet import COLOURS, DEFAULT_CONFIG, decode_pawns, frame_colour_offsets

ON = dataclasses.replace(DEFAULT_CONFIG, frame_colour_shift=1.0, frame_colour_sure=0.6, frame_colour_cap=4.0)
OFF = dataclasses.replace(DEFAULT_CONFIG, frame_colour_shift=0.0)
W, G, K = COLOURS.index("white"), COLOURS.index("grey"), COLOURS.index("black")
ONE = [0.02, 0.95, 0.03, 0.0, 0.0]      # the count head: one pawn on the stone


def _stones(smalls, counts):
    """Per stone, P(1 small) per colour (P(2+) 0, no big pawns) and the count head's P(0..4+)."""
    n = len(smalls)
    p_big = np.full((n, len(COLOURS)), 0.001, np.float32)
    p_small = np.zeros((n, len(COLOURS), 3), np.float32)
    p_small[:, :, 0] = 1.0
    for i, s in enumerate(smalls):
        for c, p in s.items():
            p_small[i, c] = (1.0 - p, p, 0.0)
    return p_big, p_small, np.array(counts, np.float32)


def _read(config, p_big, p_small, p_count, cols):
    p_big, p_small = frame_colour_offsets(config, p_big, p_small, p_count, cols)
    _big, small, _m = decode_pawns(config, p_big, p_small, cols)
    return [sorted(COLOURS[c] for c in cols for _ in range(int(small[i, c]))) for i in range(len(small))]


def test_a_frame_whose_white_pawns_look_greyish_reads_an_unsure_pawn_white():
    # two sure white pawns the net gives only ~0.6 : 0.25 (log-odds ~0.9), two sure grey ones 0.02 : 0.9 (-3.8):
    # the midpoint -1.45 says this frame's light makes white look grey; the last stone (white 0.45, grey 0.55) is white
    pb, ps, pc = _stones([{W: 0.6, G: 0.25}, {W: 0.62, G: 0.25}, {W: 0.02, G: 0.9}, {W: 0.02, G: 0.9},
                          {W: 0.45, G: 0.55}], [ONE] * 4 + [[0.3, 0.6, 0.1, 0, 0]])
    cols = [W, G]
    assert _read(OFF, pb, ps, pc, cols)[4] == ["grey"]
    assert _read(ON, pb, ps, pc, cols)[4] == ["white"]
    assert _read(ON, pb, ps, pc, cols)[:4] == [["white"], ["white"], ["grey"], ["grey"]]


def test_colours_told_apart_easily_move_nothing():
    # white against black: anchors far beyond the cap on both sides, the midpoint is 0
    pb, ps, pc = _stones([{W: 0.9, K: 0.0}, {W: 0.0, K: 0.95}, {W: 0.45, K: 0.4}], [ONE, ONE, ONE])
    b2, s2 = frame_colour_offsets(ON, pb, ps, pc, [W, K])
    assert np.allclose(b2, pb) and np.allclose(s2, ps)


def test_no_anchor_of_one_colour_or_off_changes_nothing():
    pb, ps, pc = _stones([{W: 0.6, G: 0.25}, {W: 0.45, G: 0.45}], [ONE, ONE])
    for config in (ON, OFF):
        b2, s2 = frame_colour_offsets(config, pb, ps, pc, [W, G])
        assert b2 is pb and s2 is ps
    # anchors need the count head's word that one pawn stands there
    pb, ps, pc = _stones([{W: 0.6, G: 0.25}, {W: 0.02, G: 0.9}, {W: 0.45, G: 0.55}], [[0, 0.3, 0.7, 0, 0]] * 3)
    b2, s2 = frame_colour_offsets(ON, pb, ps, pc, [W, G])
    assert b2 is pb and s2 is ps
