"""Pawn colour errors of a `keltis-cam eval --errors` output ("path: wrong colour" and "path: wrong colour+size"),
split by colour pair (truth -> read), by how many pawns stand on the stone (truth), the stone's colour, the lamp's
colour temperature, the exposure, glare in the frame, and whether the pawn's stone also holds a pawn of the colour it
was read as; each bin with its share of the path pawns in that bin (truth).

    python bench/pawn_colour_errors.py EVAL.txt DIR [--list]

The denominators are every path pawn of the usable board frames in DIR's index (a good frame the reader rejected
counts there with no errors).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pawn_errors_by_crowd import parse_errors, stone_colours, stone_crowds  # noqa: E402

COLOUR_KINDS = ("path: wrong colour", "path: wrong colour+size")


def band(value: float, bounds: tuple[float, ...], unit: str = "") -> str:
    """The band of `value` among ascending `bounds` ("<a", "a-b", ">=z")."""
    for i, b in enumerate(bounds):
        if value < b:
            return f"<{b:g}{unit}" if i == 0 else f"{bounds[i - 1]:g}-{b:g}{unit}"
    return f">={bounds[-1]:g}{unit}"


def pawn_bins(truth: dict, sid: str, player: str, cols: dict, crowd: Counter) -> dict[str, str]:
    """The bins one path pawn (its truth stone `sid`) falls in."""
    cond = truth["render"]["conditions"]
    n = crowd.get(sid, 0)
    return {"pawns on the stone": str(n) if n < 4 else "4+",
            "stone colour": str(cols.get(sid)),
            "lamp": band(float(cond.get("colour_temp", 0)), (3500, 5000), " K"),
            "exposure": band(float(cond.get("exposure", 0)), (0.6, 0.9)),
            "glare": "glare" if cond.get("glare") else "no glare",
            "players": str(len(truth.get("seats") or {}))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("eval_txt")
    ap.add_argument("dir")
    ap.add_argument("--list", action="store_true", help="print every colour error with its bins")
    args = ap.parse_args(argv)
    folder = Path(args.dir)
    errors = [e for e in parse_errors(Path(args.eval_txt).read_text(encoding="utf-8")) if e["kind"] in COLOUR_KINDS]
    index = {Path(r["file"]).name: r for r in
             (json.loads(line) for line in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()
              if line.strip())}
    by_frame = defaultdict(list)
    for e in errors:
        by_frame[e["frame"]].append(e)
    base: Counter = Counter()      # (bin name, value) -> path pawns
    count: Counter = Counter()     # (bin name, value) -> colour errors
    pairs: Counter = Counter()
    listed = []
    for name, rec in sorted(index.items()):
        if not rec.get("usable") or rec.get("game") != "keltis":
            continue
        truth = json.loads((folder / rec["truth"]).read_text(encoding="utf-8"))
        crowd = stone_crowds(truth["pawns"])
        cols = stone_colours(truth["board"])
        for p in truth["pawns"]:
            if p["stone"] == "start":
                continue
            for k, v in pawn_bins(truth, p["stone"], p["player"], cols, crowd).items():
                base[(k, v)] += 1
        for e in by_frame.get(name, []):
            sid, t_player = e["truth"].split()[:2]
            r_player = e["read"].split()[1]
            pairs[f"{t_player} -> {r_player}"] += 1
            bins = pawn_bins(truth, sid, t_player, cols, crowd)
            here = [q["player"] for q in truth["pawns"] if q["stone"] == sid]
            bins["read colour also on the stone"] = "yes" if r_player in here else "no"
            for k, v in bins.items():
                count[(k, v)] += 1
            listed.append(dict(e, **bins))
    print(f"colour errors: {len(errors)} ({', '.join(f'{k} {v}' for k, v in Counter(e['kind'] for e in errors).items())})")
    print("by pair (truth -> read): " + ", ".join(f"{k} {v}" for k, v in pairs.most_common()))
    for key in ("pawns on the stone", "stone colour", "lamp", "exposure", "glare", "players",
                "read colour also on the stone"):
        values = sorted({v for (k, v) in list(base) + list(count) if k == key})
        parts = []
        for v in values:
            b = base.get((key, v), 0)
            c = count.get((key, v), 0)
            parts.append(f"{v} {c}" + (f"/{b} ({100 * c / b:.1f} %)" if b else ""))
        print(f"  {key}: " + ", ".join(parts))
    if args.list:
        for row in listed:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
