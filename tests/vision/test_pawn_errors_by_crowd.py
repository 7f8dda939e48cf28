"""bench/pawn_errors_by_crowd.py: `keltis-cam eval --errors` pawn lines parsed, and each error counted on the stone
whose crowd it belongs to (a path error on its truth stone, a pawn read off the start on the stone it was read on)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "bench" / "pawn_errors_by_crowd.py"
_spec = importlib.util.spec_from_file_location("pawn_errors_by_crowd", _PATH)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

EVAL = """errors (frame, group, kind, truth -> read):
000002.jpg pawns  path: wrong colour           a4 white small -> a4 grey small
000002.jpg pawns  path: wrong stone            h2 black small -> d1 black small
000002.jpg pawns  path: missing                h1 grey small -> -
000002.jpg tiles  clover -> discard            f1
000003.jpg pawns  start: follows a path error  start grey small -> start black small
000012.jpg pawns  start: extra                 start brown small -> b2 brown small
000014.jpg pawns  path: wrong colour+size      p1 brown small -> p1 white big
"""


def test_parse_keeps_pawn_lines_only():
    errs = bench.parse_errors(EVAL)
    assert [e["kind"] for e in errs] == ["path: wrong colour", "path: wrong stone", "path: missing",
                                         "start: follows a path error", "start: extra", "path: wrong colour+size"]
    assert errs[1]["truth"] == "h2 black small" and errs[1]["read"] == "d1 black small"
    assert errs[2]["read"] == "-"


def test_each_error_counts_on_its_stone():
    errs = bench.parse_errors(EVAL)
    assert [bench.error_stone(e) for e in errs] == ["a4", "h2", "h1", None, "b2", "p1"]
    crowd = bench.stone_crowds([{"stone": "b2", "player": "brown", "big": True},
                                {"stone": "b2", "player": "grey", "big": False},
                                {"stone": "start", "player": "brown", "big": False}])
    assert crowd == {"b2": 2}
