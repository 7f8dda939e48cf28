"""The reader's pawn rules on hand-made detections (no rendering): each player has 1 big + 4 small
pawns (two of one player may share a stone), and the start crowd covers the stones it reaches."""
from __future__ import annotations

from engine.board import bundled_board
from vision.pawns import PawnDetection
from vision.reader import Reader

CALIBRATION = {"seats": {}}


def reader(players=("black", "white")):
    return Reader(CALIBRATION, board=bundled_board("nwnz"),
                  seats={s: p for s, p in zip(("south", "north", "west", "east"), players)})


def det(stone, player, big=False, cover=0.9, x=0.0, y=0.0):
    return PawnDetection(stone, player, big, x, y, cover, 0.2)


def on_paths(pawns):
    return sorted((p.stone, p.player, p.big) for p in pawns if p.stone != "start")


def test_two_pawns_of_one_player_on_one_stone_are_kept_with_a_lower_confidence():
    """RULES §1: any number of pawns may share a stone, several of a player's own on one path."""
    pawns, conf = reader()._pawn_list([det("c4", "black", cover=0.7), det("c4", "black", cover=0.95),
                                       det("c4", "white")])
    assert on_paths(pawns) == [("c4", "black", False), ("c4", "black", False), ("c4", "white", False)]
    assert len(pawns) == 10 and conf <= 0.6


def test_every_player_keeps_five_pawns_and_the_rest_stand_on_start():
    pawns, conf = reader()._pawn_list([det("c4", "black", big=True), det("e5", "black")])
    assert on_paths(pawns) == [("c4", "black", True), ("e5", "black", False)]
    assert sum(1 for p in pawns if p.stone == "start" and p.player == "black") == 3
    assert sum(1 for p in pawns if p.stone == "start" and p.player == "white") == 5
    assert conf > 0.5


def test_a_pawn_on_a_first_row_stone_is_the_crowd_only_while_the_crowd_reaches_it():
    board = bundled_board("nwnz")
    d1 = board.stones["d1"]
    far = [det(s, p) for s, p in (("b6", "black"), ("c4", "black"), ("e5", "black"),
                                   ("b6", "white"), ("c4", "white"), ("e5", "white"))]
    beside_start = det("d1", "white", x=d1.x, y=d1.y)
    # two players, 10 pawns, 6 seen far away: a crowd of 4 does not reach d1
    pawns, _ = reader()._pawn_list(far + [beside_start])
    assert ("d1", "white", False) in on_paths(pawns)
    # four players, nothing seen elsewhere: a crowd of 20 covers d1
    pawns, conf = reader(("black", "white", "grey", "brown"))._pawn_list([beside_start])
    assert on_paths(pawns) == [] and conf <= 0.5


def test_the_crowd_shrinks_by_every_pawn_seen_beyond_it_also_two_of_one_player_on_one_stone():
    """Four players, 20 pawns: ten are seen far from the start, in pairs of one player on a stone. The
    crowd left is 10 pawns, which does not reach d1 (counting the five pairs as five would leave 15
    that cover it and swallow the white pawn standing there)."""
    board = bundled_board("nwnz")
    d1 = board.stones["d1"]
    pairs = [det(s, p) for s, p in (("c4", "black"), ("c4", "white"), ("e5", "grey"), ("e5", "brown"),
                                     ("b6", "black")) for _ in range(2)]
    pawns, _ = reader(("black", "white", "grey", "brown"))._pawn_list(pairs + [det("d1", "white", x=d1.x, y=d1.y)])
    assert ("d1", "white", False) in on_paths(pawns)
    assert len(on_paths(pawns)) == 11
