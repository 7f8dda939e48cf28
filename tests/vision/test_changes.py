"""A live reading reads again only the seats and piles that changed (vision.changes, issue 20 item 2:
work only when it matters): the same table read twice keeps every seat's reading, a card laid at one
seat reads that seat again, a dimmer lamp is no change, and every seat is read again now and then."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from calibration.model import parse_calibration
from camera.session import open_session
from keltis_cam.cli import main
from vision.changes import ChangeConfig
from vision.reader import DEFAULT_READER_CONFIG, Reader, read_image


@pytest.fixture(scope="module")
def card_table(tmp_path_factory):
    """A 3-player card game filmed at 1152x648: west lays a blue 9 as the 4th move."""
    out = tmp_path_factory.mktemp("changes") / "s"
    assert main(["sim", "session", "--game", "keltis-card", "--players", "3", "--seed", "7", "--size", "1152x648",
                 "--max-moves", "4", "--out", str(out)]) == 0
    s = open_session(out)
    lay = next(e for e in s.events() if (e.get("move") or {}).get("move") == "lay")
    usable = [ref.index for ref in s.frames if s.truth(ref)["usable"]]
    before = max(i for i in usable if i < lay["frame"])
    return s, lay, before


def _reader(s, config=DEFAULT_READER_CONFIG):
    cal = parse_calibration(json.loads((s.folder / "calibration.json").read_text()), "calibration.json")
    return Reader(cal, game="keltis-card", seats=dict(s.info.seats), config=config)


def _image(s, index):
    return read_image(s.folder / "frames" / f"{index:06d}.jpg")


def test_the_same_table_read_again_keeps_every_seats_reading(card_table):
    s, _lay, before = card_table
    reader = _reader(s)
    image = _image(s, before)
    first = reader.read(image, incremental=True)
    assert set(reader.reread) == set(s.info.seats) | {"discards"}      # nothing to compare with yet: all read
    again = reader.read(image.copy(), incremental=True)
    assert reader.reread == ()
    assert again.observation.seats == first.observation.seats
    assert again.observation.discard_tops == first.observation.discard_tops
    assert "cards.rows" not in again.timings                            # no seat's rows were looked at


def test_a_card_laid_at_one_seat_reads_that_seat_again(card_table):
    s, lay, before = card_table
    reader = _reader(s)
    reader.read(_image(s, before), incremental=True)
    after_image = _image(s, lay["frame"])
    reading = reader.read(after_image, incremental=True)
    assert lay["seat"] in reader.reread
    assert set(reader.reread) < set(s.info.seats) | {"discards"}        # not every seat
    # what was read again is what a reading of its own gives
    fresh = _reader(s).read(after_image).observation
    assert reading.observation.seats[lay["seat"]] == fresh.seats[lay["seat"]]


def test_a_dimmer_lamp_is_no_change_and_a_new_card_is(card_table):
    s, _lay, before = card_table
    reader = _reader(s)
    image = _image(s, before)
    reader.read(image, incremental=True)
    dim = np.clip(image.astype(np.float32) * 0.85, 0, 255).astype(np.uint8)
    changed, _counts = reader.watch.changed(dim)
    assert changed == set()
    # a card-sized bright patch in the middle of one seat area
    seat = sorted(s.info.seats)[0]
    sv = reader.seat_views[seat]
    u0, v0 = sv.frame.width / 2 - 28, sv.frame.depth / 2 - 44
    quad = sv.to_image([u0, u0 + 56, u0 + 56, u0], [v0, v0, v0 + 88, v0 + 88], reader.registration)
    import cv2

    card = image.copy()
    cv2.fillConvexPoly(card, np.round(quad).astype(np.int32), (235, 235, 240))
    changed, counts = reader.watch.changed(card)
    assert changed == {seat}, counts


def test_every_seat_is_read_again_now_and_then(card_table):
    s, _lay, before = card_table
    config = replace(DEFAULT_READER_CONFIG, changes=ChangeConfig(reread_every=3))
    reader = _reader(s, config)
    image = _image(s, before)
    rereads = []
    for _ in range(4):
        reader.read(image, incremental=True)
        rereads.append(set(reader.reread))
    everything = set(s.info.seats) | {"discards"}
    assert rereads == [everything, set(), set(), everything]


def test_a_reading_of_its_own_resets_what_incremental_readings_kept(card_table):
    s, _lay, before = card_table
    reader = _reader(s)
    image = _image(s, before)
    reader.read(image, incremental=True)
    reader.read(image)                               # eval's kind of reading: every seat, nothing kept
    reader.read(image, incremental=True)
    assert set(reader.reread) == set(s.info.seats) | {"discards"}


def test_the_stage_runs_alone_and_draws_its_overlay(card_table, tmp_path, capsys):
    from vision.changes import main as changes_main

    s, lay, before = card_table
    overlay = tmp_path / "changes.png"
    seats = ",".join(f"{seat}={colour}" for seat, colour in s.info.seats.items())
    assert changes_main([str(s.folder / "frames" / f"{before:06d}.jpg"),
                         str(s.folder / "frames" / f"{lay['frame']:06d}.jpg"), "--game", "keltis-card",
                         "--calibration", str(s.folder / "calibration.json"), "--seats", seats,
                         "--overlay", str(overlay)]) == 0
    lines = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    assert lines[lay["seat"]].startswith("CHANGED")
    assert overlay.stat().st_size > 1000


def _arm_and_card(image):
    """The frame with an arm reaching in from the picture's left edge over the table around (short of every
    seat), and the frame with a card-sized patch of a pile's colour lying apart from any edge."""
    import cv2

    arm = image.copy()
    cv2.line(arm, (0, 290), (300, 300), (120, 150, 200), 36)
    cv2.circle(arm, (300, 300), 20, (120, 150, 200), -1)
    card = image.copy()
    cv2.fillConvexPoly(card, np.array([[590, 530], [640, 524], [648, 590], [598, 596]], np.int32), (40, 40, 200))
    return arm, card


def test_an_arm_at_the_tables_edge_is_no_new_discard_pile(card_table):
    """A player's arm resting at the table's edge or reaching in from beyond the picture changes the table
    around the seats, but no pile: the discard piles are not read again for it (each such reading costs a
    live table ~0.1 s). A card put down apart from the edge is read again."""
    s, _lay, before = card_table
    image = _image(s, before)
    arm, card = _arm_and_card(image)
    reader = _reader(s)
    reader.read(image, incremental=True)
    assert reader.watch.changed(arm)[0] == set()
    assert reader.watch.changed(card)[0] == {"discards"}
    both = card.copy()
    both[arm != image] = arm[arm != image]
    assert reader.watch.changed(both)[0] == {"discards"}
    # the arm does lie in the table around: without the edge rule it is a change of the piles
    plain = _reader(s, replace(DEFAULT_READER_CONFIG, changes=ChangeConfig(edge_joined_ignored=False)))
    plain.read(image, incremental=True)
    assert plain.watch.changed(arm)[0] == {"discards"}


def test_the_change_tests_shrink_averages_like_inter_area():
    """vision.changes.box_shrink halves where it can (cheaper on a 12-megapixel still) and averages as
    INTER_AREA does, to rounding."""
    import cv2

    from vision.changes import box_shrink

    rng = np.random.default_rng(3)
    for size, out in (((4608, 2592), (1152, 648)), ((2304, 1296), (576, 324))):
        image = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
        ref = cv2.resize(image, out, interpolation=cv2.INTER_AREA).astype(np.int16)
        got = box_shrink(image, out)
        assert got.shape == ref.shape
        assert np.abs(got.astype(np.int16) - ref).max() <= 1       # whole 4x4 blocks: the same mean
    # a size that does not halve all the way: the last step is INTER_AREA over a fraction of a pixel more
    # or less, which on a picture (not pixel noise) is the same to a level or two
    image = cv2.GaussianBlur(rng.integers(0, 256, (750, 1000, 3), dtype=np.uint8), (0, 0), 3)
    ref = cv2.resize(image, (250, 187), interpolation=cv2.INTER_AREA).astype(np.int16)
    assert np.abs(box_shrink(image, (250, 187)).astype(np.int16) - ref).max() <= 2


def _pile(image, value, shift=(0, 0)):
    """The frame with a red discard pile apart from every edge and seat (a cream card, its red field and a white
    numeral `value`), its card moved by `shift` px (a card discarded onto a pile never lies exactly on it)."""
    import cv2

    out = image.copy()
    dx, dy = shift
    card = np.array([[590, 524], [640, 518], [648, 596], [598, 602]], np.int32) + (dx, dy)
    cv2.fillConvexPoly(out, card, (225, 232, 238))
    cv2.fillConvexPoly(out, np.array([[595, 530], [635, 525], [642, 590], [602, 595]], np.int32) + (dx, dy),
                       (40, 40, 200))
    cv2.putText(out, str(value), (605 + dx, 575 + dy), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (245, 245, 245), 4)
    return out


def _shadow(image, centre=(610, 560), radius=70.0, depth=0.45):
    """The frame with a soft shadow (every channel darkened by one factor, `depth` at its middle)."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    fall = 1.0 - depth * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius ** 2))
    return np.clip(image * fall[..., None], 0, 255).astype(np.uint8)


def test_a_shadow_over_the_table_around_is_no_new_pile(card_table):
    """A shadow falling on the table around (an arm's beyond the picture, dev 85100: 168-1390 changed samples on
    5 of 9 readings) or leaving it changes every channel by one factor: the piles are not read again for it. A
    card put down in the shadow is."""
    s, _lay, before = card_table
    image = _image(s, before)
    shaded = _shadow(image, (560, 300), 35.0, 0.5)               # apart from the seats and the picture's edge
    reader = _reader(s)
    reader.read(image, incremental=True)
    changed, counts = reader.watch.changed(shaded)
    assert "discards" not in changed, counts                    # (a seat it falls on is read again: not this rule's)
    plain = _reader(s, replace(DEFAULT_READER_CONFIG, changes=ChangeConfig(light_only_ignored=False)))
    plain.read(image, incremental=True)
    assert "discards" in plain.watch.changed(shaded)[0]          # without the rule: a change of the piles
    assert "discards" in reader.watch.changed(_pile(shaded, 4, (-59, -260)))[0]
    reader = _reader(s)
    reader.read(shaded, incremental=True)
    assert "discards" not in reader.watch.changed(image)[0]      # the shadow leaving


def test_a_discard_onto_a_pile_reads_it_again_a_shadow_over_it_does_not(card_table):
    """A covered pile must not keep a stale top: a red 7 discarded onto the red 4 (a few px off it) changes the
    numeral's place only, and reads the piles again; the same pile under a shadow keeps its reading."""
    s, _lay, before = card_table
    image = _image(s, before)
    four = _pile(image, 4)
    reader = _reader(s)
    reader.read(four, incremental=True)
    changed, counts = reader.watch.changed(_pile(image, 7, (2, 1)))
    assert changed == {"discards"}, counts
    assert "discards" not in reader.watch.changed(_shadow(four, depth=0.35))[0]


def test_a_card_laid_at_a_seat_beside_the_piles_does_not_read_them_again(card_table):
    """West's lay changes west's seat area only: the piles on the table keep their reading."""
    s, lay, before = card_table
    reader = _reader(s)
    reader.read(_pile(_image(s, before), 4), incremental=True)
    reader.read(_pile(_image(s, lay["frame"]), 4), incremental=True)
    assert lay["seat"] in reader.reread
    assert "discards" not in reader.reread



def _arm_over_pile(image):
    """The frames of a small pile at the end of the arm of `_arm_and_card` (the table around, apart from the edge):
    (the pile, the pile with the arm lying over it, the arm alone)."""
    import cv2

    pile = image.copy()
    cv2.rectangle(pile, (272, 288), (292, 310), (225, 232, 238), -1)
    cv2.rectangle(pile, (275, 291), (289, 307), (40, 40, 200), -1)
    arms = []
    for base in (pile, image):
        arm = base.copy()
        cv2.line(arm, (0, 290), (300, 300), (120, 150, 200), 40)
        cv2.circle(arm, (300, 300), 24, (120, 150, 200), -1)
        arms.append(arm)
    return pile, arms[0], arms[1]


def test_a_pile_reading_taken_under_an_arm_is_read_again_when_the_arm_is_gone(card_table):
    """Dev 85011 (issue 20): south discarded a pink 6 and reached to the draw pile; the still read with the arm over
    the table around read no pink 6, became the table the watch compares with, and the table after it, the arm gone,
    differed from it only where the arm had been — joined to the edge, so no change: the pink 6 was never read. A
    reading taken while an arm reaches in is not the reference, and the piles are read again next time."""
    s, _lay, before = card_table
    image = _image(s, before)
    _arm, card = _arm_and_card(image)
    pile, pile_under_arm, arm_alone = _arm_over_pile(image)
    assert np.array_equal(pile_under_arm, arm_alone)                    # the pile hidden under the arm
    under_arm = np.where(card != image, card, pile_under_arm)           # and a card put down apart from it
    after = np.where(card != image, card, pile)                         # the arm gone
    reader = _reader(s)
    reader.read(image, incremental=True)
    assert reader.watch.changed(pile)[0] == {"discards"}               # the pile alone, seen: a change of the piles

    def watch_after(config):
        watch = _reader(s, replace(DEFAULT_READER_CONFIG, changes=config))
        watch.read(image, incremental=True)
        watch = watch.watch
        changed, counts = watch.changed(under_arm)                      # the card: the piles are read, the arm there
        assert changed == {"discards"}, counts
        arm = getattr(watch, "last_arm", {}).get("discards")            # (an arm reaching in: seen)
        watch.mark_read(changed)
        return watch.changed(after)[0], arm

    again, arm = watch_after(ChangeConfig())
    assert again == {"discards"}
    assert arm >= ChangeConfig().arm_min_samples
    # before session 36 the arm's reading stood: the arm leaving was an edge-joined change, so no change
    assert watch_after(ChangeConfig(arm_reading_untrusted=False))[0] == set()
    # a table read without an arm is the reference as before: that table again is no change
    watch = reader.watch
    changed, _counts = watch.changed(after)
    assert changed == {"discards"} and watch.last_arm["discards"] == 0
    watch.mark_read(changed)
    assert watch.changed(after.copy())[0] == set()
