"""A sighting beside the start of a player the reading leaves with its last pawn on the start is the stone's, not the
start crowd's (ReaderConfig.crowd_keep_last; docs/vision.md, session 36 (wt36-pevid)). Late in a 4-player NWNZ game
the crowd (three players' pawns) still reaches d1 and f1, and the start-crowd rule took every unsure pawn read there
into it — also a player's last pawn, which stepped there (kept game nwnz-4p-84813: grey's small pawn on f1, read at
0.52-0.63 in every reading from 49 to 90, never reported; the tracker lost turn 5). The crowd's own pawns leaning in
are read as their own colours, and a colour with one pawn left in the crowd hardly ever leans in: of the sightings
the rule dropped in the kept NWNZ games, those of a player with one pawn left were right 19 of 19, those of a player
with all five there right 0 of 61."""
from __future__ import annotations

import dataclasses

from vision.reader import ReaderConfig

import test_pawn_crowd_sure
from test_pawn_crowd_sure import det, on_paths

PLAYERS = ("black", "white", "grey", "brown")
OFF = dataclasses.replace(ReaderConfig(), crowd_keep_last=0)


def reader(config=None):
    return test_pawn_crowd_sure.reader(PLAYERS, config)


# grey has four pawns out (two small on b1, one on h1, its big one on f2), the other three players all five on the
# start: 15 in the crowd, which reaches d1 and f1
GREY_OUT = [det("b1", "grey", evidence=0.97), det("b1", "grey", evidence=0.9), det("h1", "grey", evidence=0.96),
            det("f2", "grey", big=True, evidence=0.99)]


def test_a_players_last_pawn_beside_the_start_is_the_stones():
    """nwnz-4p-84813, readings 52-58: grey's last small pawn read on f1 at 0.55-0.61 beside a white phantom on d1 at
    0.52-0.70 (white: five on the start). Grey's is kept, white's stays the crowd's and is reported as dropped."""
    last, phantom = det("f1", "grey", evidence=0.58), det("d1", "white", evidence=0.62)
    dropped = []
    pawns, conf = reader()._pawn_list(GREY_OUT + [last, phantom], dropped=dropped)
    assert on_paths(pawns) == sorted([("b1", "grey", False), ("b1", "grey", False), ("h1", "grey", False),
                                      ("f2", "grey", True), ("f1", "grey", False)])
    assert [(d.stone, d.player) for d in dropped] == [("d1", "white")]
    assert conf <= 0.5   # the crowd rule still judged the frame: as unsure as before
    # off (main before session 36): both taken into the crowd
    dropped = []
    pawns, _ = reader(OFF)._pawn_list(GREY_OUT + [last, phantom], dropped=dropped)
    assert ("f1", "grey", False) not in on_paths(pawns)
    assert sorted((d.stone, d.player) for d in dropped) == [("d1", "white"), ("f1", "grey")]


def test_a_player_with_pawns_left_in_the_crowd_is_judged_by_the_rule():
    """Grey with three pawns out (two left on the start): its sighting on f1 is the crowd's, as before."""
    pawns, _ = reader()._pawn_list(GREY_OUT[1:] + [det("f1", "grey", evidence=0.58)])
    assert ("f1", "grey", False) not in on_paths(pawns)


def test_only_one_pawn_is_taken_back_per_player():
    """Two sightings of grey's last pawn (f1 and d1): the surer one is kept, the other is the crowd's."""
    pawns, _ = reader()._pawn_list(GREY_OUT + [det("f1", "grey", evidence=0.58), det("d1", "grey", evidence=0.7)])
    assert ("d1", "grey", False) in on_paths(pawns)
    assert ("f1", "grey", False) not in on_paths(pawns)


def test_a_big_sighting_needs_the_players_big_pawn_on_the_start():
    """Grey's big pawn is out (f2): a big grey sighting on d1 cannot be its last pawn; it stays the crowd's."""
    pawns, _ = reader()._pawn_list(GREY_OUT + [det("d1", "grey", big=True, evidence=0.6)])
    assert on_paths(pawns) == sorted([("b1", "grey", False), ("b1", "grey", False), ("h1", "grey", False),
                                      ("f2", "grey", True)])
