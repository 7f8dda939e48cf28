"""What the pieces look like, as data: a components folder (`keltis-cam sim components DIR` writes one).

The reader never hard-codes a colour of the art: board images, tile images, wish-stone images and
pawn colours come from `components.json` and the images it names. A small default set (the
simulator's art at half resolution) is bundled in vision/components_default/; `--components DIR`
reads another art set (a real board photographed flat and scaled to `px_per_mm` works the same).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.errors import MalformedInput

DEFAULT_DIR = Path(__file__).parent / "components_default"


class ComponentsError(MalformedInput):
    """A components folder that cannot be read (names the file)."""


@dataclass(frozen=True, eq=False)
class Components:
    """Art and sizes of the pieces: images as float32 BGR (0-255) with alpha masks."""

    folder: Path
    catalogue: dict[str, Any] = field(repr=False)

    def _file(self, key: str) -> Path | None:
        name = self.catalogue.get("files", {}).get(key)
        if name:
            return self.folder / name
        for ext in (".png", ".jpg"):
            p = self.folder / f"{key}{ext}"
            if p.exists():
                return p
        return None

    def image(self, key: str) -> tuple[Any, Any] | None:
        """(BGR float32, alpha float32 0-1) of one component image, or None when the set lacks it
        (new arrays each call: the decoded pictures are kept as 8-bit, a quarter of the memory)."""
        import numpy as np

        got = _load_image(self._file(key))
        if got is None:
            return None
        bgr, alpha = got
        return bgr.astype(np.float32), (alpha.astype(np.float32) / 255.0 if alpha is not None
                                        else np.ones(bgr.shape[:2], np.float32))

    @property
    def board_ppm(self) -> float:
        return float(self.catalogue["board"]["px_per_mm"])

    @property
    def tile_ppm(self) -> float:
        return float(self.catalogue["tile"]["px_per_mm"])

    @property
    def tile_diameter(self) -> float:
        return float(self.catalogue["tile"]["diameter"])

    @property
    def wish_ppm(self) -> float:
        return float(self.catalogue.get("wish_stone", {}).get("px_per_mm", self.tile_ppm))

    @property
    def wish_diameter(self) -> float:
        return float(self.catalogue.get("wish_stone", {}).get("diameter", 20.0))

    def pawn_bgr(self) -> dict[str, tuple[float, float, float]]:
        """Pawn colour by player as BGR."""
        return {k: (float(v[2]), float(v[1]), float(v[0]))
                for k, v in self.catalogue["pawn"]["colours_rgb"].items()}

    def pawn_size(self, big: bool) -> tuple[float, float]:
        """(base width, height) in mm."""
        d = self.catalogue["pawn"]["big" if big else "small"]
        return float(d["width"]), float(d["height"])

    def board_thickness(self) -> float:
        return float(self.catalogue["board"].get("thickness", 3.0))

    # cards (the card reader): sizes in mm, images by face name (card-red-7, card-points-3, card-end-blue,
    # card-wish-5, card-back)
    @property
    def has_cards(self) -> bool:
        return "card" in self.catalogue and self._file("card-back") is not None

    @property
    def card_ppm(self) -> float:
        return float(self.catalogue["card"]["px_per_mm"])

    @property
    def card_size(self) -> tuple[float, float]:
        w, h = self.catalogue["card"]["size"]
        return float(w), float(h)

    def numeral_boxes(self) -> dict[str, tuple[float, float, float, float]]:
        """Where a card prints its value, in card mm (x, y, w, h) from its top-left corner."""
        return {k: tuple(float(v) for v in box) for k, box in self.catalogue["card"]["numeral_boxes"].items()}


@lru_cache(maxsize=64)
def _load_image(path: Path | None):
    """A component picture decoded once: (BGR uint8, alpha uint8 or None when opaque)."""
    import cv2
    import numpy as np

    if path is None:
        return None
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ComponentsError("cannot read component image", source=str(path))
    if img.dtype != np.uint8:   # a 16-bit scan: 8 bits are plenty for what the readers compare
        img = (img / 257.0).round().astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return np.ascontiguousarray(img[:, :, :3]), np.ascontiguousarray(img[:, :, 3])
    return img, None


@lru_cache(maxsize=8)
def load_components(folder: str | Path | None = None) -> Components:
    """The components folder `folder` (default: the bundled set)."""
    path = Path(folder) if folder else DEFAULT_DIR
    cat_file = path / "components.json"
    try:
        cat = json.loads(cat_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ComponentsError("no components.json here (write one with `keltis-cam sim components DIR`)",
                              source=str(path)) from None
    except json.JSONDecodeError as exc:
        raise ComponentsError(f"not JSON: {exc}", source=str(cat_file)) from None
    if not str(cat.get("format", "")).startswith("keltis-components/"):
        raise ComponentsError(f"format {cat.get('format')!r} is not keltis-components", source=str(cat_file),
                              field="format")
    for key in ("board", "tile", "pawn"):
        if key not in cat:
            raise ComponentsError(f"missing {key!r}", source=str(cat_file), field=key)
    return Components(path, cat)
