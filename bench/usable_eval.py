"""`keltis-cam eval`'s usable-frame figures from the usable stage alone (no pawns, tiles or cards read).

    .venv/bin/python bench/usable_eval.py FOLDER [FOLDER ...] [--list] [--cache DIR]

FOLDER: frames with truth/ and index.jsonl (`keltis-cam sim frames` or `scripts/train_usable.py render`).
Each frame is registered from its markers as the reader does (Reader._registration_of; a frame that does
not register is judged too dark or `no-board`, as the reader judges it) and decided by vision.usable on its
320x180 picture. Printed as eval prints them: unusable frames caught (by the truth's reason), good frames
rejected, the hand's seat right on hand frames. On dev seed 79300 (150 frames) this gives eval's figures
exactly, in a fraction of its time, so the hand-heavy folders of `scripts/train_usable.py render` can be
measured whole. `--cache DIR` keeps each frame's registration and small picture (pickles) for reruns;
`--list` prints every hand frame, unusable frame and rejected frame with the truth and the reading.
Run from the tree to measure (PYTHONPATH=TREE for another worktree).
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _frame(folder: Path, entry: dict, cache: Path | None) -> dict:
    path = cache / f"{folder.name}_{entry['index']:06d}.pkl" if cache else None
    if path is not None and path.is_file():
        return pickle.loads(path.read_bytes())
    from calibration.model import parse_calibration
    from engine.board import bundled_board
    from vision import usable as U
    from vision.components import load_components
    from vision.reader import Reader, read_image

    truth = json.loads((folder / entry["truth"]).read_text(encoding="utf-8"))
    image = read_image(folder / entry["file"])
    cal = parse_calibration(truth["render"]["calibration"], str(folder / entry["truth"]))
    game = truth.get("game", "keltis")
    board = bundled_board(truth["board"]) if game == "keltis" and truth.get("board") else None
    reader = Reader(cal, game=game, board=board, components=load_components(None))
    out = dict(truth=truth, cal=cal, game=game, reg=reader._registration_of(image),
               small=U.small_image(U.DEFAULT_CONFIG, image))
    if path is not None:
        path.write_bytes(pickle.dumps(out))
    return out


def judged_frames(folders: list[str], cache: str | None) -> Iterator[tuple[str, dict, Any, Any]]:
    """Each frame of the folders, registered and judged as the usable stage judges it: (name "FOLDER/INDEX", the
    frame (`_frame`), the usable model or None where the frame does not register, the verdict)."""
    from engine.board import bundled_board
    from vision import usable as U
    from vision.components import load_components

    cache_dir = Path(cache) if cache else None
    if cache_dir:
        cache_dir.mkdir(parents=True, exist_ok=True)
    components = load_components(None)
    cfg = U.DEFAULT_CONFIG
    for folder in map(Path, folders):
        for line in open(folder / "index.jsonl", encoding="utf-8"):
            entry = json.loads(line)
            f = _frame(folder, entry, cache_dir)
            t = f["truth"]
            name = f"{folder.name}/{entry['index']}"
            if not f["reg"].ok:
                yield name, f, None, U.judge_usable(cfg, None, f["small"])
                continue
            board = bundled_board(t["board"]) if f["game"] == "keltis" and t.get("board") else None
            # the seats in play, as eval gives them to the reader
            table = t if t.get("seats") else (t.get("table") or {})
            model = U.build_usable_model(cfg, f["cal"], f["reg"], board, components,
                                         players=tuple(table.get("seats") or ()) or None)
            yield name, f, model, U.judge_small(cfg, model, f["small"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--cache", default=None)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for name, f, _model, v in judged_frames(args.folders, args.cache):
        t = f["truth"]
        row = dict(name=name, game=f["game"], usable=bool(t["usable"]),
                   reason=t.get("reason"), hands=[h.get("seat") for h in t.get("hands") or []],
                   drawn=[(h["seat"], h["moving"], round(h.get("over_play_mm2", 0.0)))
                          for h in (t["render"].get("hands") or []) if h.get("in_view")])
        if not f["reg"].ok:
            row.update(read=False, read_reason=v.reason or "no-board", read_hands=None)
        else:
            row.update(read=v.usable, read_reason=v.reason, read_hands=v.hands)
        rows.append(row)

    def seat_right(r: dict) -> bool:
        return r["read_hands"] is not None and sorted(map(str, r["read_hands"])) == sorted(r["hands"])

    if args.list:
        for r in rows:
            if r["drawn"] or not r["usable"] or not r["read"]:
                bad = r["usable"] != r["read"] or (r["hands"] and not seat_right(r))
                print(f"{'XX' if bad else '  '} {r['name']:16s} {r['game']:11s} truth={r['usable']!s:5s} "
                      f"{str(r['reason']):9s} {r['hands']} drawn={r['drawn']}  read={r['read']!s:5s} "
                      f"{r['read_reason']} {r['read_hands']}")
    unusable = [r for r in rows if not r["usable"]]
    print(f"frames: {len(rows)}")
    print(f"unusable frames caught: {sum(1 for r in unusable if not r['read'])}/{len(unusable)}")
    for reason in sorted({str(r["reason"]) for r in unusable}):
        sub = [r for r in unusable if str(r["reason"]) == reason]
        print(f"  {reason:9s} {sum(1 for r in sub if not r['read'])}/{len(sub)}")
    good = [r for r in rows if r["usable"]]
    rejected = [r for r in good if not r["read"]]
    print(f"good frames rejected: {len(rejected)}/{len(good)}  "
          f"{dict(Counter(str(r['read_reason']) for r in rejected))}")
    hands = [r for r in rows if r["hands"]]
    print(f"hand seat right (hand frames): {sum(1 for r in hands if seat_right(r))}/{len(hands)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
