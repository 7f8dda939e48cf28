"""The start crowd's reach over the pawns seen on path stones (vision.pawns.beyond_crowd): the crowd is
every pawn not seen on a path, so which sightings it swallows decides its size."""
from __future__ import annotations

import pytest

from engine.board import bundled_board
from vision.pawns import beyond_crowd, crowd_distances, crowd_radius

PITCH = 13.3


@pytest.fixture(scope="module")
def distances():
    return crowd_distances(bundled_board("nwnz"), PITCH / 2)


def test_pawns_seen_far_from_the_start_are_all_path_pawns(distances):
    far = crowd_radius(distances, 20, PITCH) + 5.0
    assert beyond_crowd([far, far + 40.0, far + 80.0], 20, distances, PITCH) == [True, True, True]


def test_first_row_pawns_of_a_game_under_way_stay_when_the_crowd_left_cannot_reach_them(distances):
    """12 of 20 pawns seen: 8 in the crowd. Four on a first-row stone just beyond the reach of 8 (but
    within the reach of 12, the crowd counted as if they were its own) stay path pawns."""
    near = (crowd_radius(distances, 8, PITCH) + crowd_radius(distances, 9, PITCH)) / 2
    assert near < crowd_radius(distances, 12, PITCH)
    far = crowd_radius(distances, 20, PITCH) + 5.0
    gaps = [near] * 4 + [far] * 8
    assert beyond_crowd(gaps, 20, distances, PITCH) == [True] * 12


def test_at_the_start_the_whole_crowd_swallows_what_is_read_next_to_it(distances):
    """Nothing on a path: 20 pawns crowd the start; three sightings next to it are the crowd's own."""
    near = crowd_radius(distances, 17, PITCH) - 1.0
    assert beyond_crowd([near, near, near], 20, distances, PITCH) == [False, False, False]


def test_a_swallowed_pawn_grows_the_crowd_which_may_then_swallow_the_next(distances):
    """One sighting inside the smallest crowd's reach joins it; the grown crowd reaches a second one
    that the smallest crowd did not reach; a third beyond both stays."""
    total = 20
    r_small = crowd_radius(distances, total - 3, PITCH)
    r_grown = crowd_radius(distances, total - 2, PITCH)
    r_grown2 = crowd_radius(distances, total - 1, PITCH)
    assert r_small < r_grown < r_grown2
    a = r_small - 0.5                    # inside the smallest crowd's reach
    b = (r_small + r_grown) / 2           # inside the crowd grown by a
    c = r_grown2 + 5.0                    # beyond even the crowd grown by a and b
    assert beyond_crowd([a, b, c], total, distances, PITCH) == [False, False, True]
