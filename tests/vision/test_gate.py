"""The gate (vision/gate.py) and the stillness test (vision/motion.py): the full reader runs only
once the table has been still, a few times, and again only when something changes (issue 20 item 2)."""
import numpy as np
import pytest

from vision.gate import MOVING, READ, REUSE, SETTLING, Gate, GateConfig
from vision.motion import MotionConfig, judge_motion, small_picture


def table(seed=0, card_at=None):
    """A 320x180 grey 'table' with sensor noise drawn afresh, and optionally a bright card at (x, y)."""
    rng = np.random.default_rng(seed)
    img = np.full((180, 320), 90, np.float32)
    img[40:140, 100:220] = 60  # the board
    if card_at is not None:
        x, y = card_at
        img[y:y + 30, x:x + 20] = 230
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def test_sensor_noise_is_not_motion_but_a_card_laid_is():
    cfg = MotionConfig()
    assert not judge_motion(cfg, table(1), table(2)).moving
    moved = judge_motion(cfg, table(3, card_at=(20, 20)), table(4))
    assert moved.moving and moved.changed > 0.005


def test_motion_outside_the_play_area_is_ignored():
    cfg = MotionConfig()
    mask = np.zeros((180, 320), np.uint8)
    mask[30:150, 80:240] = 255
    assert judge_motion(cfg, table(5, card_at=(10, 10)), table(6)).moving
    assert not judge_motion(cfg, table(5, card_at=(10, 10)), table(6), mask).moving
    assert judge_motion(cfg, table(5, card_at=(120, 60)), table(6), mask).moving


def run(gate, pictures, fps=15.0, t0=0.0):
    return [gate.decide(p, t0 + i / fps) for i, p in enumerate(pictures)]


def feed(gate, picture, t, usable=True):
    d = gate.decide(picture, t)
    if d == READ:
        gate.read_done(picture, t, usable)
    return d


def test_a_still_table_is_read_a_few_times_then_reused():
    gate = Gate(GateConfig(settle_seconds=0.15, read_again_seconds=0.3, reads_per_still=3))
    got = [feed(gate, table(i), i / 15) for i in range(60)]   # 4 s of a still table at 15 fps
    assert got[0] == MOVING                      # nothing to compare the first frame with
    assert got[1:3] == [SETTLING, SETTLING]      # still for 1/15 s and 2/15 s: not yet
    assert got[3] == READ                        # still for 0.2 s
    assert got.count(READ) == 3                  # then twice more, 0.3 s apart...
    assert set(got[14:]) == {REUSE}              # ...and never again while nothing changes
    reads = [i for i, d in enumerate(got) if d == READ]
    assert reads == [3, 8, 13]


def test_a_change_starts_a_new_still_period():
    gate = Gate()
    t = 0.0
    for i in range(30):
        feed(gate, table(i), t)
        t += 1 / 15
    hand = table(99, card_at=(150, 60))
    got = []
    for i in range(5):   # a hand moves over the board: changing every frame
        got.append(feed(gate, table(100 + i, card_at=(150 + 8 * i, 60)), t))
        t += 1 / 15
    assert set(got) == {MOVING}
    after = []
    for i in range(30):  # the card now lies there, still
        after.append(feed(gate, table(200 + i, card_at=(120, 60)), t))
        t += 1 / 15
    assert after[0] == MOVING and after.count(READ) == 3 and after[-1] == REUSE
    assert hand is not None


def test_a_slow_drift_no_single_frame_shows_is_read_again():
    gate = Gate(GateConfig(settle_seconds=0.1, reads_per_still=1))
    base = table(0).astype(np.int16)
    got = []
    for i in range(80):  # the lamp brightens by 0.5 grey levels a frame: 40 levels in all
        got.append(feed(gate, np.clip(base + i // 2, 0, 255).astype(np.uint8), i / 15))
    assert got.count(MOVING) == 1        # only the very first frame
    assert got.count(READ) >= 2          # read again once the picture drifted from the one read


def test_frames_a_second_apart_are_read_when_they_changed():
    gate = Gate()
    assert feed(gate, table(0), 0.0) == MOVING
    assert feed(gate, table(1, card_at=(150, 60)), 1.0) == READ   # changed, and no next frame soon
    assert feed(gate, table(2, card_at=(150, 60)), 2.0) == READ   # still for a second: read again
    assert feed(gate, table(3, card_at=(150, 60)), 3.0) == READ
    assert feed(gate, table(4, card_at=(150, 60)), 4.0) == REUSE  # three readings of one still table


def test_an_unusable_reading_is_retried_while_the_table_stays_still():
    gate = Gate(GateConfig(read_again_seconds=0.3, reads_per_still=2))
    got = [feed(gate, table(i), i / 15, usable=False) for i in range(60)]   # a hand resting still
    assert got.count(READ) >= 10         # every 0.3 s, not just twice


def test_small_picture_keeps_the_aspect():
    frame = np.zeros((1296, 2304, 3), np.uint8)
    assert small_picture(MotionConfig(), frame).shape == (180, 320, 3)
    assert small_picture(MotionConfig(), np.zeros((180, 320, 3), np.uint8)).shape == (180, 320, 3)


@pytest.mark.parametrize("fps", [10.0, 15.0, 30.0])
def test_first_reading_comes_settle_seconds_after_the_table_went_still(fps):
    cfg = GateConfig(settle_seconds=0.15)
    gate = Gate(cfg)
    got = run(gate, [table(i) for i in range(int(fps))], fps=fps)
    first = got.index(READ)
    # still since frame 0 was taken; read at the first frame at least settle_seconds later
    assert first / fps >= cfg.settle_seconds and (first - 1) / fps < cfg.settle_seconds


def test_a_reach_watched_during_a_reading_makes_the_table_after_it_read_afresh():
    """Frames that come while the reader reads (Gate.watch, session 36): a reach among them is `moving`, the
    table after it `settling` then `busy`; the reading done meanwhile is older than the reach, so the next
    decided frame reads the table again, though it looks as before (a draw from the draw pile). Without a reach
    meanwhile the reading counts as usual (one per still period, as with stills)."""
    from vision.gate import BUSY

    for reach in (True, False):
        gate = Gate(GateConfig(settle_seconds=0.15, reads_per_still=1))
        got = [gate.decide(table(i), i / 15) for i in range(4)]
        assert got[-1] == READ                                   # frame 3 is read: a 1.5 s reading begins
        watched = []
        for i in range(4, 26):                                   # the frames that come meanwhile
            arm = (40 + 10 * (i - 8), 60) if reach and 8 <= i < 16 else None
            watched.append(gate.watch(table(i, card_at=arm), i / 15))
        gate.read_done(table(3), 3 / 15, True)                   # the reading of frame 3 is done
        after = gate.decide(table(26), 26 / 15)
        if reach:
            assert MOVING in watched and SETTLING in watched and watched[-1] == BUSY
            assert after == READ
        else:
            assert set(watched) == {BUSY} and after == REUSE
