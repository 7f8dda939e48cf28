"""Which hands the unusable-frame decision catches, by how much of the arm lies over the play area.

    .venv/bin/python bench/usable_hands.py FOLDER [FOLDER ...]

FOLDER: frames rendered by `scripts/train_usable.py render` (they carry each hand's drawn pixels in
masks/*.png). Each hand frame is registered from its markers (as the reader does; frames that do not
register are left out) and judged by vision.usable alone; the drawn arm (pixels the hand changed by more
than 60 grey levels, at the decision's 320x180) is measured over the play area (the middle of the table
and the seat areas, `UsableModel.play`). Until session 11 the simulator's truth called a frame unusable whenever any of
the hand was in the picture, also a hand still at the picture's edge outside the play area; `sim frames`
now counts a hand only when its arm hides at least 100 mm² of the play area (render truth
`over_play_mm2`); this table still bins every hand frame so both rules can be read off it. Also: the hand's seat right among the caught frames.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BINS = ((0.0, 1.0), (1.0, 2000.0), (2000.0, 10000.0), (10000.0, float("inf")))


def main(argv: list[str]) -> int:
    import cv2
    import numpy as np

    from calibration.model import parse_calibration
    from engine.board import bundled_board
    from vision import usable as U
    from vision.components import load_components
    from vision.reader import Reader, read_image

    if not argv:
        print(__doc__)
        return 2
    cfg = U.DEFAULT_CONFIG
    components = load_components(None)
    rows = []   # (mm² of arm over the play area, caught, seat right)
    for folder in map(Path, argv):
        for line in open(folder / "index.jsonl", encoding="utf-8"):
            entry = json.loads(line)
            mask_path = folder / "masks" / f"{Path(entry['file']).stem}.png"
            if not mask_path.is_file():
                continue
            truth = json.loads((folder / entry["truth"]).read_text(encoding="utf-8"))
            seen = [h for h in truth["render"].get("hands") or [] if h.get("in_view")]
            if not seen:   # every hand in the picture, over the play area or not (see the docstring)
                continue
            image = read_image(folder / entry["file"])
            cal = parse_calibration(truth["render"]["calibration"], str(folder / entry["truth"]))
            game = truth.get("game", "keltis")
            board = bundled_board(truth["board"]) if game == "keltis" and truth.get("board") else None
            reader = Reader(cal, game=game, board=board, components=components)
            reg = reader._registration_of(image)
            if not reg.ok:
                continue
            model = U.build_usable_model(cfg, cal, reg, board, components)
            verdict = U.judge_small(cfg, model, U.small_image(cfg, image))
            drawn = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            arm = cv2.resize((drawn > 60).astype(np.float32), cfg.size, interpolation=cv2.INTER_AREA) > 0.5
            over = float(model.area[arm & model.play].sum())
            want = sorted(h["seat"] for h in seen)
            rows.append((over, not verdict.usable, sorted(map(str, verdict.hands or [])) == want))
    print(f"{len(rows)} hand frames that register, from {', '.join(argv)}")
    print(f"{'arm over the play area (mm²)':32s} {'frames':>7s} {'caught':>14s} {'seat right of caught':>22s}")
    for lo, hi in BINS:
        sel = [r for r in rows if lo <= r[0] < hi]
        caught = [r for r in sel if r[1]]
        right = [r for r in caught if r[2]]
        span = f"{lo:.0f} - {hi:.0f}" if hi != float("inf") else f">= {lo:.0f}"
        print(f"{span:32s} {len(sel):7d} {len(caught):5d} ({len(caught) / max(len(sel), 1):6.1%}) "
              f"{len(right):8d} ({len(right) / max(len(caught), 1):6.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
