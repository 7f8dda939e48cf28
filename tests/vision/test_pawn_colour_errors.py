"""bench/pawn_colour_errors.py: eval's colour errors split by pair, crowd, stone colour and light, each bin against the
path pawns of the usable board frames in it."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

_BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(_BENCH))
_spec = importlib.util.spec_from_file_location("pawn_colour_errors", _BENCH / "pawn_colour_errors.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

EVAL = """000000.jpg pawns  path: wrong colour           b1 white small -> b1 grey small
000000.jpg pawns  path: wrong size             d1 grey big -> d1 grey small
000001.jpg pawns  path: wrong colour+size      h1 brown small -> h1 black big
"""


def _frame(folder: Path, i: int, pawns: list, temp: float, exposure: float, glare: bool) -> dict:
    truth = {"board": "nwnz", "pawns": pawns, "seats": {"south": {"player": "white"}, "north": {"player": "grey"}},
             "render": {"conditions": {"colour_temp": temp, "exposure": exposure, "glare": {"x": 0.5} if glare else None}}}
    (folder / "truth" / f"{i:06d}.json").write_text(json.dumps(truth), encoding="utf-8")
    return {"file": f"frames/{i:06d}.jpg", "truth": f"truth/{i:06d}.json", "usable": True, "game": "keltis"}


def test_colour_errors_by_bin(tmp_path, capsys):
    (tmp_path / "truth").mkdir()
    rows = [_frame(tmp_path, 0, [{"stone": "b1", "player": "white", "big": False},
                                 {"stone": "b1", "player": "grey", "big": False},
                                 {"stone": "d1", "player": "grey", "big": True},
                                 {"stone": "start", "player": "white", "big": True}], 3000, 0.5, False),
            _frame(tmp_path, 1, [{"stone": "h1", "player": "brown", "big": False}], 6000, 1.0, True)]
    (tmp_path / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    ev = tmp_path / "eval.txt"
    ev.write_text(EVAL, encoding="utf-8")
    assert bench.main([str(ev), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "colour errors: 2" in out
    assert "white -> grey 1" in out and "brown -> black 1" in out
    assert "pawns on the stone: 1 1/2 (50.0 %), 2 1/2 (50.0 %)" in out
    assert "stone colour: blue 1/2 (50.0 %), pink 1/1 (100.0 %), red 0/1 (0.0 %)" in out
    assert "lamp: 3500-5000 K" not in out and "<3500 K 1/3" in out and ">=5000 K 1/1" in out
    assert "read colour also on the stone: no 1, yes 1" in out
