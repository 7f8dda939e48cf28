"""The stability filter: a new table state only when still and usable (issue 6, deliverable 1)."""
from __future__ import annotations

import dataclasses

from engine.board import bundled_board
from engine.observation import Observation
from tracking.config import TrackingConfig
from tracking.noise import misread_card, misread_tile
from tracking.stability import (StableStateFilter, changed_fields, fields_equal, fields_to_observation,
                                       observation_fields, suspicious_fields)

from tracking_helpers import game

SIM = game("keltis", "base", 2, 21, max_moves=12)
TABLE_A = SIM.frames[0][1]                                        # the dealt table
TABLE_B = next(obs for _, obs in SIM.frames if obs.usable and obs != TABLE_A)  # after the first move
HAND = Observation("keltis", "base", False, "occluded")
FPS = 5.0


def run(filt: StableStateFilter, frames: list[Observation], t0: float = 0.0) -> list[tuple[float, Observation]]:
    """Feed frames at 5 fps; return (t, state) for every acceptance."""
    out = []
    for k, obs in enumerate(frames):
        t = t0 + k / FPS
        got = filt.feed(obs, t)
        if got is not None:
            out.append((t, got))
    return out


def same(a: Observation, b: Observation) -> bool:
    return fields_equal(observation_fields(a), observation_fields(b))


def test_first_state_accepted_after_still_seconds():
    filt = StableStateFilter(TrackingConfig(still_seconds=0.6))
    got = run(filt, [TABLE_A] * 10)
    assert len(got) == 1
    t, obs = got[0]
    assert abs(t - 0.6) < 1e-6 and same(obs, TABLE_A)


def test_hand_over_the_table_then_move_accepted_once_still():
    filt = StableStateFilter()
    frames = [TABLE_A] * 6 + [HAND] * 8 + [TABLE_B] * 10
    got = run(filt, frames)
    assert [same(o, s) for (_, o), s in zip(got, [TABLE_A, TABLE_B])] == [True, True]
    # accepted 0.6 s after the first still frame of the new table (frame 14 at t=2.8)
    assert abs(got[1][0] - (2.8 + 0.6)) < 1e-6
    assert filt.last_acceptance.hand is True


def test_no_state_while_hands_cover_the_table():
    filt = StableStateFilter()
    got = run(filt, [HAND] * 40)
    assert got == []
    assert filt.status()["state"] == "paused" and filt.status()["reason"] == "occluded"


def test_single_unusable_frame_and_single_misread_frames_are_ignored():
    filt = StableStateFilter()
    flipped = misread_card(TABLE_B, __import__("random").Random(3))
    assert flipped is not None and not same(flipped, TABLE_B)
    frames = [TABLE_A] * 6 + [HAND] * 6 + [TABLE_B] * 3 + [flipped] + [TABLE_B] * 4 + [HAND][:0] \
        + [TABLE_B] * 2 + [Observation("keltis", "base", False, "motion")] + [TABLE_B] * 10
    got = run(filt, frames)
    assert len(got) == 2 and same(got[1][1], TABLE_B)  # the flipped card never became a state


def test_misread_persisting_a_few_frames_without_a_hand_is_not_a_move():
    filt = StableStateFilter()
    missed_tile = misread_tile(TABLE_A, __import__("random").Random(1))
    assert missed_tile is not None
    frames = [TABLE_A] * 10 + [missed_tile] * 8 + [TABLE_A] * 20   # 1.6 s of a wrong reading
    got = run(filt, frames)
    assert len(got) == 1 and same(got[0][1], TABLE_A)


def test_odd_change_right_after_a_hand_waits_while_the_move_is_taken():
    """A misread that starts as the hand leaves (a tile read as gone) does not ride in with the move."""
    board = bundled_board("base")
    filt = StableStateFilter()
    filt.suspicious = lambda ref, new: suspicious_fields(ref, new, board)
    gone = misread_tile(TABLE_B, __import__("random").Random(2))
    assert gone is not None
    frames = [TABLE_A] * 6 + [HAND] * 6 + [gone] * 6 + [TABLE_B] * 20
    got = run(filt, frames)
    assert len(got) == 2
    assert same(got[1][1], TABLE_B)          # the move, without the misread tile


def test_real_change_without_a_hand_is_accepted_after_the_longer_wait():
    cfg = TrackingConfig()
    filt = StableStateFilter(cfg)
    frames = [TABLE_A] * 10 + [TABLE_B] * 30
    got = run(filt, frames)
    assert len(got) == 2 and same(got[1][1], TABLE_B)
    assert filt.last_acceptance.hand is False
    waited = got[1][0] - 10 / FPS
    assert cfg.still_seconds_without_hand - 0.5 <= waited <= cfg.still_seconds_without_hand + 0.5


def test_camera_gap_pauses_and_never_invents_a_state():
    filt = StableStateFilter(TrackingConfig(gap_seconds=2.0))
    got = run(filt, [TABLE_A] * 10)
    assert len(got) == 1
    # 5 s without frames, then one frame of the new table: not enough to accept anything
    assert filt.feed(TABLE_B, 2.0 + 5.0) is None
    assert filt.gaps == 1
    # fresh stillness after the gap: accepted, and marked as coming after a disturbance
    got = run(filt, [TABLE_B] * 6, t0=7.2)
    assert len(got) == 1 and filt.last_acceptance.hand is True


def test_quiet_hands_are_counted():
    """A hand that leaves the table as it was (a card drawn from the draw pile) is counted."""
    filt = StableStateFilter()
    run(filt, [TABLE_A] * 6 + [HAND] * 6 + [TABLE_A] * 6 + [HAND] * 6 + [TABLE_B] * 6)
    assert filt.last_acceptance.quiet == 1


def test_slow_camera_one_frame_per_second():
    filt = StableStateFilter()
    out = []
    for k, obs in enumerate([TABLE_A] * 3 + [HAND] * 3 + [TABLE_B] * 3):
        got = filt.feed(obs, float(k))
        if got is not None:
            out.append((k, got))
    assert [k for k, _ in out] == [1, 7]  # two still frames a second apart are enough
    assert same(out[1][1], TABLE_B)


def test_per_field_vote_outvotes_different_misreads_in_different_fields():
    import random

    filt = StableStateFilter()
    noisy = [misread_card(TABLE_B, random.Random(k)) or TABLE_B for k in range(3)]
    frames = [TABLE_A] * 6 + [HAND] * 4 + [TABLE_B, noisy[0], TABLE_B, noisy[1], TABLE_B, TABLE_B, noisy[2]] \
        + [TABLE_B] * 6
    got = run(filt, frames)
    assert len(got) == 2 and same(got[1][1], TABLE_B)


def test_suspicious_fields():
    board = bundled_board("base")
    a = observation_fields(TABLE_A)
    b = observation_fields(TABLE_B)
    assert suspicious_fields(a, b, board) == set()              # a real move looks like a move
    assert suspicious_fields(b, a, board)                       # played backwards: odd
    wrong = dataclasses.replace(TABLE_B, pawns=tuple(
        dataclasses.replace(p, player="white" if p.player != "white" else "grey") for p in TABLE_B.pawns[:1])
        + TABLE_B.pawns[1:])
    assert suspicious_fields(b, observation_fields(wrong), board)


def test_the_end_of_the_stream_takes_a_move_still_waiting_for_its_longer_confirmation():
    """The first frame after the hand misread the move (a card flipped): the change waits for the
    longer confirmation, and a recording that ends sooner still shows the move (flush)."""
    before, after = observation_fields(TABLE_A), observation_fields(TABLE_B)
    laid = next(k for k in changed_fields(before, after) if k[0] == "row")
    misread = dict(after)
    misread[laid] = after[laid][:-1] + ("9" if after[laid][-1] != "9" else "8",)
    flipped = fields_to_observation(misread, TABLE_B)
    frames = [TABLE_A] * 6 + [HAND] * 6 + [flipped] + [TABLE_B] * 10   # 2 s still: under the 3 s wait
    filt = StableStateFilter()
    got = run(filt, frames)
    # (the pawn's step is taken at once; the card waits while the stream goes on ...)
    assert len(got) == 2 and not same(got[1][1], TABLE_B)
    last = filt.flush()
    assert last is not None and same(last, TABLE_B)   # ... and is when it ends
    assert filt.last_acceptance.reaches      # (with the hand that made it, as the longer wait takes it)
    assert filt.flush() is None              # (once)


def test_the_end_of_the_stream_never_takes_a_change_no_hand_made_or_one_not_yet_still():
    no_hand = StableStateFilter()
    assert len(run(no_hand, [TABLE_A] * 10 + [TABLE_B] * 10)) == 1   # (a bumped camera? waits 3 s)
    assert no_hand.flush() is None
    not_still = StableStateFilter()
    assert len(run(not_still, [TABLE_A] * 6 + [HAND] * 6 + [TABLE_B] * 2)) == 1
    assert not_still.flush() is None         # 0.2 s of frames: not still long enough
    covered = StableStateFilter()
    assert len(run(covered, [TABLE_A] * 6 + [HAND] * 6)) == 1
    assert covered.flush() is None
