"""`keltis-cam eval`'s error breakdown: each pawn and tile error counted once, under the right kind."""
from __future__ import annotations

from vision.evaluation import (FrameResult, count_pawns, count_tiles, error_breakdown, error_details,
                               explain_pawns, explain_tiles)


def _pawns(*on_paths, players=("black", "white")):
    """Every player's 1 big + 4 small pawns: those given as (stone, player, big) on paths, the rest on start."""
    out = [{"stone": s, "player": p, "big": b} for s, p, b in on_paths]
    for p in players:
        for big, n in ((True, 1), (False, 4)):
            left = n - sum(1 for _s, q, b in on_paths if q == p and b == big)
            out += [{"stone": "start", "player": p, "big": big}] * left
    return {"pawns": out}


def _kinds(truth, read):
    got = explain_pawns(truth, read)
    assert len(got) == count_pawns(truth, read)[1]   # every counted error explained, once
    return sorted(k for k, _d in got)


def test_a_right_reading_has_no_errors():
    truth = _pawns(("a1", "black", True), ("c3", "white", False))
    assert _kinds(truth, truth) == []


def test_a_missed_path_pawn_is_one_error_and_its_start_listing_none():
    truth = _pawns(("a1", "black", False))
    assert _kinds(truth, _pawns()) == ["path: missing"]
    assert explain_pawns(truth, _pawns()) == [("path: missing", "a1 black small -> start black small")]


def test_an_extra_pawn_read_on_a_path_is_a_start_error():
    assert _kinds(_pawns(), _pawns(("b2", "white", True))) == ["start: extra"]


def test_wrong_colour_costs_the_path_pawn_and_the_other_players_start_listing():
    truth = _pawns(("a1", "black", True))
    assert _kinds(truth, _pawns(("a1", "white", True))) == ["path: wrong colour", "start: follows a path error"]


def test_wrong_size_and_wrong_stone():
    truth = _pawns(("a1", "black", True), ("d4", "white", False))
    read = _pawns(("a1", "black", False), ("d5", "white", False))
    assert _kinds(truth, read) == ["path: wrong size", "path: wrong stone", "start: follows a path error"]


def test_tile_confusion_pairs_name_truth_and_reading_with_empty():
    truth = {"tiles": {"a1": "points-3", "b2": None, "c3": "clover", "d4": "discard"}}
    read = {"tiles": {"a1": "points-2", "b2": "clover", "c3": None, "d4": "discard"}}
    got = explain_tiles(truth, read)
    assert len(got) == count_tiles(truth, read)[1] == 3
    assert sorted(got) == [("clover -> empty", "c3"), ("empty -> clover", "b2"), ("points-3 -> points-2", "a1")]


def test_the_breakdown_sums_the_kinds_over_frames():
    a = FrameResult("a.jpg", groups={"pawns": (10, 2), "tiles": (4, 1)},
                    errors={"pawns": [("path: missing", "x"), ("path: wrong colour", "y")],
                            "tiles": [("points-3 -> points-2", "a1")]})
    b = FrameResult("b.jpg", groups={"pawns": (10, 2)},
                    errors={"pawns": [("path: missing", "z"), ("start: follows a path error", "w")]})
    text = "\n".join(error_breakdown([a, b]))
    assert "pawn errors by kind (4):" in text
    assert "on a path stone      3: missing 2, wrong colour 1" in text
    assert 'on "start"           1: follows a path error 1' in text
    assert "points-3 -> points-2 1" in text
    assert error_details([a, b]).splitlines()[0].startswith("a.jpg pawns  path: missing")


def test_tile_errors_are_split_by_a_pawn_standing_on_the_spot():
    """A tile under a pawn is partly hidden: eval prints its error rate apart from the open spots'."""
    from vision.evaluation import tiles_under_pawns

    truth = {"tiles": {"a1": "points-3", "b2": "clover", "c3": "discard", "d4": None},
             "pawns": [{"stone": "a1", "player": "black", "big": True}, {"stone": "c3", "player": "grey", "big": False}]}
    read = {"tiles": {"a1": "points-2", "b2": "points-1", "c3": "discard", "d4": None}}
    assert tiles_under_pawns(truth, read) == (2, 1)
    a = FrameResult("a.jpg", groups={"tiles": (4, 2)}, tiles_under_pawn=(2, 1),
                    errors={"tiles": [("points-3 -> points-2", "a1"), ("clover -> points-1", "b2")]})
    b = FrameResult("b.jpg", groups={"tiles": (4, -1)})      # not read (frame rejected): not counted
    text = "\n".join(error_breakdown([a, b]))
    assert "tile spots with a pawn on them: 50.00% (1/2) wrong; the other spots: 50.00% (1/2) wrong" in text


def test_errors_by_board_px_per_mm_band():
    """eval's breakdown of pawn, stone, tile and row errors by the registration's board px/mm (session 31)."""
    from vision.evaluation import count_stones, resolution_breakdown

    truth = _pawns(("a1", "black", True), ("d4", "white", False))
    read = _pawns(("a1", "black", True), ("d4", "white", True), ("h8", "grey", False))
    assert count_stones(truth, read) == (3, 2)     # a1 right; d4 wrong size; h8 a phantom
    low = FrameResult("a.jpg", groups={"pawns": (10, 3), "tiles": (20, 2), "rows": (8, 0)}, board_ppm=(1.1, 0.9),
                      stones=(3, 2))
    high = FrameResult("b.jpg", groups={"pawns": (10, 0), "tiles": (20, 0)}, board_ppm=(2.6, 2.2), stones=(2, 0))
    unread = FrameResult("c.jpg", groups={"pawns": (10, -1)}, board_ppm=(2.6, 2.2), read_usable=False)
    text = "\n".join(resolution_breakdown([low, high, unread]))
    lines = text.splitlines()
    assert lines[0].startswith("errors by board px/mm (worst corner):")
    corner = lines[1:lines.index(next(x for x in lines if x.startswith("errors by board px/mm (centre)")))]
    assert corner[0].split()[:2] == ["0.75-1.00", "1"] and "30.00% (3/10)" in corner[0] and "66.67% (2/3)" in corner[0]
    assert corner[0].rstrip().endswith("0.00% (0/1)")        # the board part not exact
    assert corner[1].split()[:2] == ["2.00-2.50", "1"] and corner[1].rstrip().endswith("100.00% (1/1)")
    assert "(centre)" in text and " 2.50-3.00 " in text
    assert resolution_breakdown([FrameResult("d.jpg")]) == []
