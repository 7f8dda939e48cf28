"""Pawn errors of a `keltis-cam eval --errors` output, split by how many pawns stand on the stone (truth), with
each error's conditions (light, glare near the stone, stone colour, tilt, image edge, neighbours) for the ones on
stones of at most `--max-pawns` pawns.

    python bench/pawn_errors_by_crowd.py EVAL.txt DIR [--max-pawns 2] [--list] [--json OUT]

A path error (missing, wrong colour, wrong size, colour+size, wrong stone) counts on its truth stone; a
"start: extra" (a pawn read on a path stone that stands on the start) on the stone it was read on (its truth
crowd may be 0: a phantom on an empty stone); "start: follows a path error" is a consequence and not counted.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(\S+\.jpg)\s+pawns\s+(path: [a-z+ ]+?|start: [a-z ]+?)\s{2,}(.+?) -> (.+)$")


def parse_errors(text: str) -> list[dict]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line.strip())
        if not m:
            continue
        frame, kind, truth, read = m.groups()
        out.append({"frame": frame, "kind": kind.strip(), "truth": truth.strip(), "read": read.strip()})
    return out


def error_stone(e: dict) -> str | None:
    """The stone an error counts on: a path error's truth stone; a "start: extra"'s stone it was read on; None for
    "start: follows a path error" (a consequence, not counted)."""
    if e["kind"] == "start: follows a path error":
        return None
    side = e["read"] if e["kind"] == "start: extra" else e["truth"]
    return side.split()[0]


def stone_crowds(pawns: list[dict]) -> Counter:
    """Truth pawns per path stone."""
    return Counter(p["stone"] for p in pawns if p["stone"] != "start")


def stone_colours(board: str) -> dict:
    data = json.loads((ROOT / "engine" / "boards" / f"{board}.json").read_text(encoding="utf-8"))
    return {s["id"]: s.get("color") or s.get("kind") for s in data["stones"]}


def board_xy(board: str) -> dict:
    data = json.loads((ROOT / "engine" / "boards" / f"{board}.json").read_text(encoding="utf-8"))
    return {s["id"]: (float(s["x"]), float(s["y"])) for s in data["stones"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eval_txt")
    ap.add_argument("dir")
    ap.add_argument("--max-pawns", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print every error on a stone of <= max pawns")
    ap.add_argument("--json", help="write those errors with their conditions to this file")
    args = ap.parse_args(argv)
    folder = Path(args.dir)
    errors = parse_errors(Path(args.eval_txt).read_text(encoding="utf-8"))
    index = {Path(r["file"]).name: r for r in
             (json.loads(l) for l in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines() if l.strip())}
    by_frame = defaultdict(list)
    for e in errors:
        by_frame[e["frame"]].append(e)
    denom = Counter()          # (board, n on stone) -> truth pawns
    count = Counter()          # (board, n) -> errors
    path_only = Counter()      # the same, path errors only (a pawn read off the start left out)
    kinds = Counter()
    listed = []
    for name, rec in sorted(index.items()):
        if not rec.get("usable") or rec.get("game") != "keltis":
            continue
        truth = json.loads((folder / rec["truth"]).read_text(encoding="utf-8"))
        board = truth["board"]
        crowd = stone_crowds(truth["pawns"])
        for sid, n in crowd.items():
            denom[(board, n)] += n
        render = truth["render"]
        cond = render["conditions"]
        w, h = render["size"]
        cols = stone_colours(board)
        xy = board_xy(board)
        tiles = truth.get("tiles") or {}
        for e in by_frame.get(name, []):
            sid = error_stone(e)
            if sid is None:
                continue
            n = crowd.get(sid, 0)
            count[(board, n)] += 1
            if e["kind"].startswith("path"):
                path_only[(board, n)] += 1
            if n > args.max_pawns:
                continue
            kinds[(n, e["kind"])] += 1
            st = render["stones"].get(sid, {})
            c = st.get("centre", [w / 2, h / 2])
            g = cond.get("glare") or {}
            gd = math.hypot(c[0] / w - g.get("x", 9), (c[1] / h - g.get("y", 9)) * h / w) / max(g.get("radius", 1e-6), 1e-6) \
                if g else None
            here = [p for p in truth["pawns"] if p["stone"] == sid]
            near = sum(1 for p in truth["pawns"] if p["stone"] not in ("start", sid)
                       and math.dist(xy.get(p["stone"], (1e9, 1e9)), xy[sid]) < 70)
            start_near = math.dist(xy["start"], xy[sid]) < 80
            row = dict(e, stone=sid, n=n, board=board, stone_colour=cols.get(sid), tile=tiles.get(sid),
                       here=[f"{p['player']}{'B' if p['big'] else 's'}" for p in here],
                       temp=round(cond.get("colour_temp", 0)), exposure=round(cond.get("exposure", 0), 2),
                       glare_i=round(g.get("intensity", 0), 2) if g else 0,
                       glare_d=round(gd, 1) if gd is not None else None,
                       shadow=round(cond.get("shadow_strength", 0), 2), dark=rec.get("dark"), hard=rec.get("hard"),
                       tilt=round(rec["camera"]["tilt_deg"]), height=round(rec["camera"]["height_mm"]),
                       r_px=round(st.get("radius_px", 0), 1),
                       edge=round(min(c[0], c[1], w - c[0], h - c[1]) / max(st.get("radius_px", 1), 1), 1),
                       near=near, first_row=start_near)
            listed.append(row)
    print("errors per pawn by pawns on the stone (truth; 0 = a pawn read on an empty stone):")
    for board in ("nwnz", "base"):
        parts = []
        for n in range(0, 7):
            if denom[(board, n)] or count[(board, n)]:
                d = denom[(board, n)]
                parts.append(f"{n}: {count[(board, n)]}/{d}" + (f" ({100 * count[(board, n)] / d:.1f} %)" if d else ""))
        print(f"  {board}: " + ", ".join(parts))
    print("path errors only:")
    for board in ("nwnz", "base"):
        parts = [f"{n}: {path_only[(board, n)]}/{denom[(board, n)]}" for n in range(1, 7) if denom[(board, n)]]
        print(f"  {board}: " + ", ".join(parts))
    print("by kind (stones of <= %d pawns):" % args.max_pawns)
    for (n, k), v in sorted(kinds.items()):
        print(f"  {n} {k}: {v}")
    if args.list:
        for r in listed:
            print(json.dumps(r))
    if args.json:
        Path(args.json).write_text(json.dumps(listed, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
