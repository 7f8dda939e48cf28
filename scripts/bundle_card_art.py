"""Add the card images of a `keltis-cam sim components` folder to the bundled art set (vision/components_default).

    .venv/bin/python -m keltis_cam sim components /tmp/comp
    .venv/bin/python scripts/bundle_card_art.py /tmp/comp

Cards are stored at half resolution as JPEG (a card reads at 1-2 px/mm in a frame; the folder stays small)
and the catalogue's "card" entry is copied with its px_per_mm halved.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

DEST = Path(__file__).resolve().parent.parent / "vision" / "components_default"


def main(src: str) -> int:
    src_dir = Path(src)
    cat = json.loads((src_dir / "components.json").read_text(encoding="utf-8"))
    dest_cat = json.loads((DEST / "components.json").read_text(encoding="utf-8"))
    card = dict(cat["card"])
    card["px_per_mm"] = card["px_per_mm"] / 2
    dest_cat["card"] = card
    files = dest_cat.setdefault("files", {})
    for key, name in sorted(cat["files"].items()):
        if not key.startswith("card-"):
            continue
        img = cv2.imread(str(src_dir / name), cv2.IMREAD_UNCHANGED)
        small = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(DEST / f"{key}.jpg"), small[:, :, :3], [cv2.IMWRITE_JPEG_QUALITY, 90])
        files[key] = f"{key}.jpg"
    dest_cat["note"] = ("keltis-cam vision default: the images of `keltis-cam sim components` at half resolution "
                        "(boards and cards as JPEG); pass --components DIR for another art set")
    (DEST / "components.json").write_text(json.dumps(dest_cat, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
