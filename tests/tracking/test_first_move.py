"""The game's first move reaches the phones with the first reading of the table it left (session 36: on the
live bench the first move's message once came with the next table's reading; that was the reader misreading
the new row, which the decoder rightly held as misreads — a table showing the move plainly sends it at once,
whether or not the camera path saw the reach: a slow first reading may hide it)."""
from __future__ import annotations

import pytest

from tracking_helpers import game, make_tracker


@pytest.mark.parametrize("reach_seen", [True, False])
@pytest.mark.parametrize("seed", [5, 7])   # a first lay (a row and a pawn changed), a first discard (a pile)
def test_the_first_move_is_sent_by_the_first_reading_of_the_table_it_left(seed, reach_seen):
    sim = game("keltis", "nwnz", 4, seed, max_moves=4, fps=5.0)
    frames = sim.frames
    reach = next(i for i, (_, obs) in enumerate(frames) if not obs.usable)
    after = next(i for i, (_, obs) in enumerate(frames) if i > reach and obs.usable)
    assert frames[after][1] != frames[0][1]                    # the first move changed the table
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    sent = []
    for i, (t, obs) in enumerate(frames[:after + 1]):
        if not reach_seen and reach <= i < after:
            continue   # the reach fell inside a long reading (the game's first: registration, models)
        sent += [(i, e.data) for e in tracker.feed(obs, t, i) if e.type == "move"]
    assert [i for i, _ in sent] == [after], sent
    assert sent[0][1]["seat"] == sim.turns[0].seat
