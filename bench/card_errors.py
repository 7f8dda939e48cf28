"""Card rows, points rows and wish cards of a `sim frames` folder: the errors by class (vision.card_errors),
the values confused, the errors by how many frame pixels a millimetre spans at the seat, and the
card stages' CPU time. Only the card part is read (registration, seat views, rows): much faster than
`keltis-cam eval`, for finding what to fix first.

    .venv/bin/python bench/card_errors.py DIR [--limit N] [--components DIR] [--dump readings.json]
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from calibration.model import parse_calibration  # noqa: E402
from vision.card_errors import card_error_classes  # noqa: E402
from vision.cardart import card_art  # noqa: E402
from vision.cards import CardConfig, paper_points, paper_white, read_seat_cards, seat_reading  # noqa: E402
from vision.components import load_components  # noqa: E402
from vision.evaluation import count_points_row, count_rows, count_wish_cards, list_frames  # noqa: E402
from vision.numerals import numeral_model_for  # noqa: E402
from vision.reader import DEFAULT_READER_CONFIG, Reader  # noqa: E402
from vision.seatview import build_seat_views  # noqa: E402
from vision.stagecli import read_image  # noqa: E402


def read_frame(frame: Path, truth: dict, comps, model, config: CardConfig) -> tuple[dict | None, dict, dict]:
    """(seats as FORMATS §2 JSON or None when not registered, px/mm per seat, CPU ms per stage)."""
    image = read_image(frame)
    cal = parse_calibration(truth["render"]["calibration"], str(frame))
    table = truth if truth.get("seats") else (truth.get("table") or {})
    seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
    reader = Reader(cal, game=truth.get("game", "keltis"), seats=seats or None, components=comps)
    reg = reader._registration_of(image)
    if not reg.ok:
        return None, {}, {}
    views = build_seat_views(config.view, cal, reg, tuple(seats))
    quiet = float((comps.catalogue.get("marker") or {}).get("quiet_zone", 0.25))
    white = paper_white(image, paper_points(cal, reg, quiet))
    card_game = truth.get("game") != "keltis"
    out, ppm, times = {}, {}, Counter()
    for seat, sv in views.items():
        art = card_art(comps, sv.ppm, round(sv.px_per_mm, 1))
        sc = read_seat_cards(config, image, sv, art, white, model, card_game)
        got = seat_reading(sc, card_game)
        out[seat] = {"rows": {c: list(v) for c, v in got.rows.items()}, "points_row": got.points_row,
                     "wish_cards": list(got.wish_cards)}
        ppm[seat] = sv.px_per_mm
        times.update(sc.timings)
    return out, ppm, dict(times)


def stage_parser(doc: str, config_name: str) -> argparse.ArgumentParser:
    """The options of a one-stage bench over a `sim frames` folder (this one, bench/discard_errors.py)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--components")
    ap.add_argument("--frames", help="only these frame names (comma separated stems)")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help=f"override a {config_name} field (a Python literal)")
    return ap


def stage_inputs(args: argparse.Namespace, config: Any) -> tuple[Any, Any, Any, list]:
    """(components, numeral model, `config` with the --set overrides, the frames chosen: (frame, truth) paths)."""
    cv2.setNumThreads(1)
    comps = load_components(args.components)
    model = numeral_model_for(comps)
    for item in args.set:
        name, _, value = item.partition("=")
        config = dataclasses.replace(config, **{name: ast.literal_eval(value)})
    pairs = list_frames(Path(args.dir))
    if args.frames:
        keep = set(args.frames.split(","))
        pairs = [p for p in pairs if p[0].stem in keep]
    if args.limit:
        pairs = pairs[:args.limit]
    return comps, model, config, pairs


def main() -> int:
    ap = stage_parser(__doc__, "CardConfig")
    ap.add_argument("--dump", help="write every frame's truth and reading of the seats here (JSON)")
    args = ap.parse_args()
    comps, model, config, pairs = stage_inputs(args, DEFAULT_READER_CONFIG.cards)
    classes: Counter = Counter()
    confusions: Counter = Counter()
    totals = Counter()
    by_ppm: dict[str, Counter] = {}
    by_edge: dict[str, Counter] = {}
    stage_ms: dict[str, list[float]] = {}
    dump = []
    t0 = time.perf_counter()
    for k, (frame, tpath) in enumerate(pairs):
        truth = json.loads(tpath.read_text(encoding="utf-8"))
        if not truth.get("usable") or not truth.get("seats"):
            continue
        seats, ppm, times = read_frame(frame, truth, comps, model, config)
        if seats is None:
            print(f"{frame.name}: not registered")
            continue
        read = {"seats": seats}
        c, conf = card_error_classes(truth, read)
        classes.update(c)
        confusions.update(conf)
        for name, fn in (("rows", count_rows), ("wishcard", count_wish_cards), ("pointrow", count_points_row)):
            if name != "rows" and truth.get("game") != "keltis-card":
                continue
            n, e = fn(truth, read)
            totals[name + " n"] += n
            totals[name + " e"] += e
        w, h = truth["render"]["size"]
        cut = {c["seat"] for c in truth["render"]["cards"] if c.get("kind") == "card" and
               (not c.get("in_view", True) or any(not (0 <= x < w and 0 <= y < h) for x, y in c["quad"]))}
        for seat, p in ppm.items():
            n, e = count_rows({"seats": {seat: truth["seats"][seat]}}, {"seats": {seat: seats[seat]}})
            key = f"{min(2.0, int(p * 4) / 4):.2f}"
            by_ppm.setdefault(key, Counter()).update({"n": n, "e": e})
            where = "a card cut by the frame's edge" if seat in cut else "every card whole in the frame"
            by_edge.setdefault(where, Counter()).update({"n": n, "e": e})
        for s, v in times.items():
            stage_ms.setdefault(s, []).append(v)
        dump.append({"frame": frame.stem, "game": truth.get("game"), "truth": truth["seats"], "read": seats,
                     "ppm": ppm, "classes": dict(c), "confusions": dict(conf)})
        sys.stderr.write(f"\r{k + 1}/{len(pairs)} {time.perf_counter() - t0:.0f}s ")
    sys.stderr.write("\n")
    for name in ("rows", "wishcard", "pointrow"):
        n, e = totals[name + " n"], totals[name + " e"]
        print(f"{name:9s} {100.0 * e / max(1, n):6.2f}% ({e}/{n})")
    print("error classes (cards; rows aligned by fewest edits):")
    for k, v in classes.most_common():
        print(f"  {k:14s} {v}")
    print("values confused (truth→read): " + ", ".join(f"{k} {v}" for k, v in confusions.most_common(20)))
    print("rows error by frame px/mm at the seat:")
    for key in sorted(by_ppm):
        c = by_ppm[key]
        print(f"  {key}+  {100.0 * c['e'] / max(1, c['n']):6.2f}% ({c['e']}/{c['n']})")
    print("rows error by seat:")
    for key, c in sorted(by_edge.items()):
        print(f"  {key:30s} {100.0 * c['e'] / max(1, c['n']):6.2f}% ({c['e']}/{c['n']})")
    print("card stages, CPU ms per frame (all seats): " + ", ".join(
        f"{s} median {statistics.median(v):.1f}" for s, v in stage_ms.items()))
    if args.dump:
        Path(args.dump).write_text(json.dumps(dump, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
