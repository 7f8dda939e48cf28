"""What the cards look like, learned from a components folder (built once per art set and resolution).

Everything here comes from the card images of the folder (`card-<colour>-<0..10>`, `card-points-<n>`,
`card-end-<colour>`, `card-wish-<n>`, `card-back`) and its catalogue's card size and numeral boxes:

- `cream`: the card stock's colour (the border every card has), the white reference of a seat view;
- `fields`: each kind's printed field colour divided by the cream, so it compares with a frame
  normalised by the cream the frame shows (light colour and brightness cancel);
- numeral templates: both top corners of every face as the "whiteness" channel (the smallest of
  B, G, R over the cream), brought to the resolution the camera really gives (down to the frame's
  px/mm, then up to the view's), so a template blurs like the frame does.

    python -m vision.cardart [--components DIR] --overlay sheet.png   # the templates at 1.2 px/mm
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.cards import COLOURS

from .components import Components, load_components

#: The field kinds a card can show: its colour for number and end cards, else its kind.
FIELD_KINDS: tuple[str, ...] = (*COLOURS, "points", "wish", "back")
#: The centre picture (CardArt.symbols) is a square this share of the card's width.
SYMBOL_SIDE = 0.55
#: card_art's default margin round the corner glyphs' box, mm (the warm-up builds _corner_crops with it).
CORNER_MARGIN_MM = 1.0


@dataclass(frozen=True, eq=False)
class CardArt:
    """Card colours and numeral templates at one view resolution (see the module docstring)."""

    size: tuple[float, float]                      # card (w, h) mm
    boxes: dict[str, tuple[float, float, float, float]]
    cream: Any                                     # BGR of the card stock in the art
    fields: dict[str, Any]                         # kind -> BGR / cream
    templates: dict[str, dict[str, dict[str, Any]]] = field(repr=False)   # kind -> label -> corner -> float32
    view_ppm: float = 3.0
    seen_ppm: float = 1.2
    # kind -> the card's centre picture (BGR over the stock, float32): the mean over the kind's
    # faces, so a symbol every face of the kind shares (a colour's sign, the wish cards' stone); also
    # "<colour>/E", an end card's own picture, and "back", the backs' middle
    symbols: dict[str, Any] = field(default_factory=dict, repr=False)


def _whiteness(bgr: Any, cream: Any) -> Any:
    import numpy as np

    c = np.maximum(np.asarray(cream, np.float32), 1.0)
    if bgr.ndim == 3 and bgr.shape[2] == 3 and bgr.dtype == np.float32 and c.shape == (3,):
        import cv2

        # the same quotients a plane at a time (a reduction over a last axis of 3 is numpy's slowest)
        b, g, r = cv2.split(bgr)
        return np.minimum(np.minimum(b / c[0], g / c[1]), r / c[2])
    return np.min(bgr / c, axis=2)


def _faces(comps: Components) -> dict[str, list[tuple[str, str]]]:
    """kind -> [(label, face name)]: the faces each field kind can carry in its corners."""
    out: dict[str, list[tuple[str, str]]] = {}
    for c in COLOURS:
        out[c] = [(str(v), f"card-{c}-{v}") for v in range(11)] + [("E", f"card-end-{c}")]
    out["points"] = [(str(v), f"card-points-{v}") for v in range(11)]
    out["wish"] = [(str(v), f"card-wish-{v}") for v in range(1, 10)]
    return out


def _region(img: Any, ppm: float, x0: float, y0: float, x1: float, y1: float) -> Any:
    return img[int(round(y0 * ppm)):int(round(y1 * ppm)), int(round(x0 * ppm)):int(round(x1 * ppm))]


@lru_cache(maxsize=16)
def _base_art(comps: Components) -> tuple[Any, dict[str, Any], dict[str, dict[str, Any]]]:
    """(cream, fields, face images) at the art's own resolution."""
    import numpy as np

    ppm = comps.card_ppm
    w, h = comps.card_size
    first = comps.image(f"card-{COLOURS[0]}-0")
    if first is None:
        raise ValueError(f"{comps.folder}: no card images (card-{COLOURS[0]}-0)")
    creams = []
    for c in COLOURS:
        img = comps.image(f"card-{c}-0")
        if img is not None:
            # the border strip down the left side, clear of the corner rounding
            creams.append(np.median(_region(img[0], ppm, 0.7, 20, 1.5, h - 20).reshape(-1, 3), 0))
    cream = np.median(np.array(creams), 0).astype(np.float32)
    fields: dict[str, Any] = {}
    for kind, name in [*((c, f"card-{c}-0") for c in COLOURS), ("points", "card-points-0"),
                       ("wish", "card-wish-1"), ("back", "card-back")]:
        img = comps.image(name)
        if img is None:
            continue
        # between the numerals and the centre symbol: plain field
        patch = _region(img[0], ppm, 8, 17.5, w - 8, 26)
        fields[kind] = (np.median(patch.reshape(-1, 3), 0) / np.maximum(cream, 1)).astype(np.float32)
    faces: dict[str, dict[str, Any]] = {}
    for kind, lst in _faces(comps).items():
        for label, name in lst:
            img = comps.image(name)
            if img is not None:
                faces.setdefault(kind, {})[label] = img[0].astype(np.uint8)   # kept: 8 bits, a quarter of the memory
    return cream, fields, faces


@lru_cache(maxsize=8)
def _corner_crops(comps: Components, margin_mm: float) -> tuple[dict[str, tuple[float, float, float, float]],
                                                                 dict[str, dict[str, dict[str, Any]]]]:
    """(each corner's glyph box grown by `margin_mm`, card mm (x0, y0, x1, y1); kind -> label -> corner ->
    the face's whiteness over that box at the art's resolution): what card_art needs at every resolution,
    worked out once (it is most of card_art's time; session 36 wt36-warm: built by the warm-up)."""
    import numpy as np

    cream, _fields, faces = _base_art(comps)
    ppm = comps.card_ppm
    boxes = comps.numeral_boxes()
    # The glyphs' own box within each numeral box (all values of all kinds together) plus a margin:
    # the plain field around them would only make every template alike.
    glyph = {}
    for corner, (bx, by, bw, bh) in boxes.items():
        acc = None
        for labels in faces.values():
            for img in labels.values():
                # only the box: the whole face at the art's resolution costs ~100x more
                crop = _whiteness(_region(img, ppm, bx, by, bx + bw, by + bh), cream)
                ink = np.abs(crop - np.median(crop)) > 0.25
                acc = ink if acc is None else (acc | ink)
        ys, xs = np.nonzero(acc)
        glyph[corner] = (bx + xs.min() / ppm - margin_mm, by + ys.min() / ppm - margin_mm,
                         bx + (xs.max() + 1) / ppm + margin_mm, by + (ys.max() + 1) / ppm + margin_mm)
    crops: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, labels in faces.items():
        for label, img in labels.items():
            for corner, (x0, y0, x1, y1) in glyph.items():
                crops.setdefault(kind, {}).setdefault(label, {})[corner] = \
                    _whiteness(_region(img, ppm, x0, y0, x1, y1), cream)
    return glyph, crops


@lru_cache(maxsize=8)
def _middles(comps: Components) -> dict[str, Any]:
    """CardArt.symbols' pictures at the art's resolution (card_art scales and blurs them; worked out once):
    kind -> the mean of its faces' middles over the stock, float32."""
    import numpy as np

    cream, _fields, faces = _base_art(comps)
    ppm = comps.card_ppm
    w, h = comps.card_size
    half = SYMBOL_SIDE * w / 2

    def middle(imgs: list[Any]) -> Any:
        crops = [_region(img, ppm, w / 2 - half, h / 2 - half, w / 2 + half, h / 2 + half).astype(np.float32)
                 / np.maximum(cream, 1.0) for img in imgs]
        return np.mean(crops, axis=0)

    out: dict[str, Any] = {}
    for kind, labels in faces.items():
        # in colour over the stock (not whiteness: a blurred sun and a blurred stone are both a pale blob
        # on a dark field in the smallest channel; the stone is blue, the sun is not); an end card has
        # another picture: its own, "<kind>/E"
        out[kind] = middle([img for lb, img in labels.items() if lb != "E"])
        if "E" in labels:
            out[f"{kind}/E"] = middle([labels["E"]])
    back = comps.image("card-back")
    if back is not None:
        # the backs' middle: what the draw pile shows where a face has its picture
        out["back"] = middle([back[0]])
    return out


@lru_cache(maxsize=64)
def card_art(comps: Components, view_ppm: float, seen_ppm: float, margin_mm: float = CORNER_MARGIN_MM,
             blur_px: float = 0.6) -> CardArt:
    """The art at `view_ppm` as a camera resolving `seen_ppm` px/mm shows it (see the module docstring).

    Each corner template covers the glyphs' box grown by `margin_mm`; `boxes` are those boxes."""
    import cv2
    import numpy as np

    cream, fields, faces = _base_art(comps)
    ppm = comps.card_ppm
    glyph, crops = _corner_crops(comps, margin_mm)
    templates: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, labels in faces.items():
        for label in labels:
            for corner, (x0, y0, x1, y1) in glyph.items():
                crop = crops[kind][label][corner]
                seen = cv2.resize(crop, None, fx=seen_ppm / ppm, fy=seen_ppm / ppm, interpolation=cv2.INTER_AREA)
                # the lens and the JPEG blur a little more than the pixel grid alone
                seen = cv2.GaussianBlur(seen, (0, 0), blur_px)
                tw = int(round((x1 - x0) * view_ppm))
                th = int(round((y1 - y0) * view_ppm))
                t = cv2.resize(seen, (tw, th), interpolation=cv2.INTER_LINEAR).astype(np.float32)
                templates.setdefault(kind, {}).setdefault(label, {})[corner] = t
    boxes = {k: (x0, y0, x1 - x0, y1 - y0) for k, (x0, y0, x1, y1) in glyph.items()}
    w, h = comps.card_size
    half = SYMBOL_SIDE * w / 2
    side = int(round(2 * half * view_ppm))

    def seen_middle(mean: Any) -> Any:
        """The mean of the images' middles (_middles) as the camera sees them, at `view_ppm`."""
        seen = cv2.resize(mean, None, fx=seen_ppm / ppm, fy=seen_ppm / ppm, interpolation=cv2.INTER_AREA)
        seen = cv2.GaussianBlur(seen, (0, 0), blur_px)
        return cv2.resize(seen, (side, side), interpolation=cv2.INTER_LINEAR).astype(np.float32)

    symbols = {kind: seen_middle(mean) for kind, mean in _middles(comps).items()}
    return CardArt(comps.card_size, boxes, cream, fields, templates, view_ppm, seen_ppm, symbols)


def main(argv: list[str] | None = None) -> int:
    import cv2
    import numpy as np

    ap = argparse.ArgumentParser(prog="python -m vision.cardart", description=__doc__)
    ap.add_argument("--components")
    ap.add_argument("--seen-ppm", type=float, default=1.2)
    ap.add_argument("--view-ppm", type=float, default=3.0)
    ap.add_argument("--overlay", required=True)
    args = ap.parse_args(argv)
    art = card_art(load_components(args.components), args.view_ppm, args.seen_ppm)
    rows = []
    for kind, labels in art.templates.items():
        row = [np.clip(t["top-left"] * 200, 0, 255).astype(np.uint8) for t in labels.values()]
        rows.append(np.hstack([cv2.copyMakeBorder(r, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=128) for r in row]))
    width = max(r.shape[1] for r in rows)
    sheet = np.vstack([cv2.copyMakeBorder(r, 0, 0, 0, width - r.shape[1], cv2.BORDER_CONSTANT) for r in rows])
    cv2.imwrite(args.overlay, cv2.resize(sheet, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))
    print("fields / cream:", {k: np.round(v, 2).tolist() for k, v in art.fields.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
