"""Wish stones held lie beside the card rows, and the token search skips only where a row's cards lie
(vision/reader.py: `SeatReading.row_bands`, the bands read as rows).

Found on the bundled demo (session 16): from frame ~838 on, west's six wish stones (red, yellow, two pink,
green, blue) lie in a tight cluster beside the red row on a red cloth. The card stage outlines the
cluster as a second, one-card red band; the reader keeps the longer red band as the row, but the
token search skipped both bands, so no stone was read and west's score lost its wish stones on every
phone to the end of the game."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from camera.session import open_session
from simulator.stills import SessionStills
from vision.cardart import card_art
from vision.cards import paper_white, read_seat_cards, seat_reading
from vision.observer import make_observer
from vision.wishstones import count_held, find_tokens, token_kinds

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "demo"
FRAME = 838     # the table as the gate reads it then: a still the camera takes (2304x1296)


def test_wish_stones_beside_a_row_are_read_though_the_card_stage_outlines_them_as_a_band():
    session = open_session(DEMO)
    truth = session.truth(session.frames[FRAME])["seats"]["west"]["wish"]
    assert truth == {"red": 1, "yellow": 1, "pink": 2, "green": 1, "blue": 1}
    image = SessionStills(DEMO).still(FRAME)
    reader = make_observer(session=session).reader
    got = reader.read(image).observation.seats["west"].wish
    # every colour held is seen, none more than held (session 24: the second pink stone too)
    assert set(got) == set(truth) and all(got[c] <= truth[c] for c in got) and sum(got.values()) >= 5

    # the bands the token search skips: only rows' (session 16: the reader dropped the cluster's one-card band; since
    # session 24 the card stage no longer outlines it — a one-card band must show its kind's centre picture,
    # CardConfig.single_symbol_min — so one band a colour is left, each kept as a row)
    sv = reader.seat_views["west"]
    white = paper_white(image, reader.paper)             # as the reader does
    sc = read_seat_cards(reader.config.cards, image, sv, card_art(reader.components, sv.ppm, round(sv.px_per_mm, 1)),
                         white, reader.numeral_model, False)
    kept = seat_reading(sc, False).row_bands
    assert len({b.kind for b in kept}) == len(kept) and all(b in sc.bands for b in kept)
    rows_only = find_tokens(reader.config.wish, sc.small, sv.ppm * 0.5, sv.px_per_mm, reader.components,
                            token_kinds("nwnz"), replace(sc, bands=list(kept)).rows_mask(sv), sc.cream)
    assert count_held(rows_only) == got
