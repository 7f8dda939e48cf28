"""The component catalogue: real dimensions and procedural art of every piece on a Keltis table.

Every flat piece (board, cards, path tiles, wish stones, marker sheets) is drawn here once as a
BGRA image with straight alpha at a stated resolution (`px_per_mm`), in the piece's own frame:
origin at its top-left corner as its owner reads it, x right, y down, millimetres. The renderer
(simulator/render.py) warps these images onto the table; `export_components` writes them as PNG
files plus `components.json` with every dimension, so any other tool can draw the same pieces.

Art is deterministic: every image is drawn from a seed derived from its name (never from the
session's seed), so a red 7 looks the same in every frame and every session.
"""
from __future__ import annotations

import math
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

import cv2
import numpy as np

from engine.board import Board, bundled_board
from engine.cards import COLOURS

from . import textures as tx
from .textures import bgr

# ----------------------------------------------------------------------------- dimensions (mm)

CARD_W, CARD_H = 56.0, 87.0          # Keltis cards (both games)
CARD_CORNER_R = 3.5
CARD_THICKNESS = 0.3
#: Where the value is printed, in card mm (x, y, w, h): both top corners (FORMATS §4 rows show
#: the top strip of every covered card, so these regions stay visible).
NUMERAL_BOXES = {"top-left": (2.5, 2.5, 17.0, 13.0), "top-right": (36.5, 2.5, 17.0, 13.0)}
NUMERAL_HEIGHT = 10.0                # digit cap height
TILE_D = 25.0                        # round path tiles
TILE_THICKNESS = 2.0
WISH_STONE_D = 20.0                  # NWNZ wish-stone tokens
WISH_STONE_THICKNESS = 2.5
BOARD_THICKNESS = 3.0
#: Pawns: (base width, height) in mm (RULES §1: 4 small and 1 big per player).
PAWN_SMALL = (16.0, 25.0)
PAWN_BIG = (19.0, 50.0)
MARKER_QUIET = 0.25                  # white paper around a marker, as a fraction of its side

#: Resolution of each kind of art (pixels per millimetre at full detail).
PPM_CARD = 6.0
PPM_TILE = 8.0
PPM_BOARD = 4.0
PPM_MARKER = 6.0

# ----------------------------------------------------------------------------- colours (RGB)

CARD_RGB = {"red": (168, 44, 38), "yellow": (236, 192, 40), "pink": (222, 112, 158),
            "green": (64, 148, 70), "blue": (42, 100, 182)}
STONE_RGB = {"red": (160, 48, 40), "yellow": (224, 184, 52), "pink": (214, 118, 160),
             "green": (84, 158, 76), "blue": (52, 104, 176), "joker": (150, 150, 146)}
POINTS_RGB = (150, 152, 156)
WISH_CARD_RGB = (236, 132, 38)
BACK_RGB = (38, 70, 64)
TILE_STAY_RGB = (176, 208, 126)      # light green: the tile stays on the board (RULES §2)
TILE_TAKEN_RGB = (238, 150, 54)      # orange: the tile is taken by the first to reach it
BOARD_RGB = (72, 108, 60)
PAWN_RGB = {"black": (34, 32, 30), "white": (228, 224, 212), "grey": (128, 128, 126), "brown": (118, 72, 38)}
CREAM = (246, 238, 216)
INK = (30, 26, 24)

FONT = cv2.FONT_HERSHEY_DUPLEX

#: Other printings of the same components, for measuring that the readers take how components look
#: from a components folder (issue "Vision II", item 8): what a group's own cards may change — the
#: typeface of the numerals, the card colours, the card stock's cream and the ink.
ART_STYLES: dict[str, dict[str, Any]] = {
    "default": {},
    "alt": {"FONT": cv2.FONT_HERSHEY_TRIPLEX, "CREAM": (234, 230, 218), "INK": (22, 30, 52),
            "CARD_RGB": {"red": (192, 34, 56), "yellow": (244, 208, 74), "pink": (234, 128, 178),
                         "green": (44, 132, 98), "blue": (34, 82, 162)},
            "POINTS_RGB": (128, 136, 150), "WISH_CARD_RGB": (226, 150, 30), "BACK_RGB": (70, 40, 60)},
}


@contextmanager
def art_style(name: str) -> Iterator[None]:
    """Draw with the art style `name` (ART_STYLES) inside the block."""
    if name not in ART_STYLES:
        raise ValueError(f"unknown art style {name!r} (known: {', '.join(ART_STYLES)})")
    module = globals()
    saved = {k: module[k] for k in ART_STYLES[name]}

    def clear() -> None:   # the drawn art is cached per style
        for v in list(module.values()):
            if callable(getattr(v, "cache_clear", None)) and getattr(v, "__module__", None) == __name__:
                v.cache_clear()
    module.update(ART_STYLES[name])
    clear()
    try:
        yield
    finally:
        module.update(saved)
        clear()


def _seed(name: str) -> np.random.Generator:
    """A generator seeded from a piece's name: the same art in every run (stable across processes)."""
    return np.random.default_rng(zlib.crc32(name.encode("utf-8")))


# ----------------------------------------------------------------------------- drawing helpers

def _px(v_mm: float, ppm: float) -> int:
    return int(round(v_mm * ppm))


def rounded_rect_polygon(w: float, h: float, r: float, steps: int = 8) -> np.ndarray:
    """The outline of a w×h rectangle with corner radius r (float points, origin top-left)."""
    pts = []
    for cx, cy, a0 in ((w - r, r, -90), (w - r, h - r, 0), (r, h - r, 90), (r, r, 180)):
        for i in range(steps + 1):
            a = math.radians(a0 + 90 * i / steps)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts, np.float64)


def _fill_poly_aa(img: np.ndarray, pts: np.ndarray, colour, shift: int = 4) -> None:
    """Anti-aliased filled polygon with sub-pixel vertices."""
    p = np.round(np.asarray(pts, np.float64) * (1 << shift)).astype(np.int32)
    cv2.fillPoly(img, [p], colour, cv2.LINE_AA, shift)


def _circle_aa(img: np.ndarray, c: tuple[float, float], r: float, colour, thickness: int = -1, shift: int = 4) -> None:
    s = 1 << shift
    cv2.circle(img, (int(round(c[0] * s)), int(round(c[1] * s))), max(1, int(round(r * s))), colour, thickness,
               cv2.LINE_AA, shift)


def text_size(text: str, height_px: float, thickness_frac: float = 0.14) -> tuple[float, int, float]:
    """(font scale, thickness, width px) that print `text` with digits `height_px` tall."""
    thick = max(1, int(round(height_px * thickness_frac)))
    (_, h1), _ = cv2.getTextSize("0", FONT, 1.0, thick)
    scale = height_px / max(1, h1)
    thick = max(1, int(round(height_px * thickness_frac)))
    (w, _), _ = cv2.getTextSize(text, FONT, scale, thick)
    return scale, thick, w


def draw_text(img: np.ndarray, text: str, centre: tuple[float, float], height_px: float, colour,
              outline=None, thickness_frac: float = 0.14, outline_frac: float = 0.12) -> None:
    """Print `text` centred on `centre` with digits `height_px` tall, optionally outlined.

    The glyphs are drawn into a mask and the outline grown from it with a dilation, which looks
    the same whichever way the OpenCV build strokes its fonts. A zero is drawn as a plain oval:
    some OpenCV builds give the Hershey "0" a slash, which no printed Keltis card has.
    """
    scale, thick, w = text_size(text, height_px, thickness_frac)
    pad = int(height_px * (0.6 + outline_frac)) + 4
    x0 = int(math.floor(centre[0] - w / 2)) - pad
    y0 = int(math.floor(centre[1] - height_px / 2)) - pad
    mw, mh = int(w) + 2 * pad, int(height_px) + 2 * pad
    mask = np.zeros((mh, mw), np.uint8)
    cx = centre[0] - w / 2 - x0
    base = centre[1] + height_px / 2 - y0
    for ch in text:
        (cw, _), _ = cv2.getTextSize(ch, FONT, scale, thick)
        if ch == "0":
            (zw, _), _ = cv2.getTextSize("8", FONT, scale, thick)
            c = (cx + cw / 2, base - height_px / 2)
            axes = (max(1.0, zw / 2 - thick / 2), max(1.0, height_px / 2 - thick / 2))
            cv2.ellipse(mask, (int(round(c[0] * 16)), int(round(c[1] * 16))),
                        (int(round(axes[0] * 16)), int(round(axes[1] * 16))), 0, 0, 360, 255, thick, cv2.LINE_AA, 4)
        else:
            cv2.putText(mask, ch, (int(round(cx)), int(round(base))), FONT, scale, 255, thick, cv2.LINE_AA)
        cx += cw
    # Clip the text box to the image.
    H, W = img.shape[:2]
    ix0, iy0, ix1, iy1 = max(0, x0), max(0, y0), min(W, x0 + mw), min(H, y0 + mh)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    m = mask[iy0 - y0:iy1 - y0, ix0 - x0:ix1 - x0]
    roi = img[iy0:iy1, ix0:ix1].astype(np.float32)
    if outline is not None:
        r = max(1, int(round(height_px * outline_frac / 2)))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        o = cv2.dilate(m, k).astype(np.float32)[..., None] / 255
        roi = roi * (1 - o) + np.array(outline, np.float32) * o
    a = m.astype(np.float32)[..., None] / 255
    roi = roi * (1 - a) + np.array(colour, np.float32) * a
    img[iy0:iy1, ix0:ix1] = np.clip(roi, 0, 255).astype(np.uint8)


def _shade(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    """A colour darker (f < 1) or lighter (f > 1, toward white)."""
    if f <= 1:
        return tuple(int(c * f) for c in rgb)  # type: ignore[return-value]
    return tuple(int(c + (255 - c) * (f - 1)) for c in rgb)  # type: ignore[return-value]


def _with_alpha(img: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    out = np.dstack([img, alpha])
    out[alpha == 0, :3] = 0
    return out


# ----------------------------------------------------------------------------- symbols

def _spiral(img, c, r, colour, thick, turns=1.6, phase=0.0):
    pts = []
    n = 60
    for i in range(n + 1):
        t = i / n
        a = phase + t * turns * 2 * math.pi
        rr = r * (0.15 + 0.85 * t)
        pts.append((c[0] + rr * math.cos(a), c[1] + rr * math.sin(a)))
    p = np.round(np.array(pts) * 16).astype(np.int32)
    cv2.polylines(img, [p], False, colour, thick, cv2.LINE_AA, 4)


def draw_symbol(img: np.ndarray, kind: str, c: tuple[float, float], r: float, rgb, ink=INK) -> None:
    """A Celtic symbol of radius r: one per colour (red triskele, yellow sun, pink knot, green
    clover, blue waves) plus "points", "seal", "gem", "clover" and "discard" for other pieces."""
    col, dark = bgr(rgb), bgr(ink)
    t = max(1, int(round(r * 0.11)))
    if kind == "red":  # triskele: three spirals around the centre
        for k in range(3):
            a = math.radians(90 + 120 * k)
            cc = (c[0] + 0.45 * r * math.cos(a), c[1] - 0.45 * r * math.sin(a))
            _spiral(img, cc, 0.5 * r, dark, t + 2, phase=-a)
            _spiral(img, cc, 0.5 * r, col, t, phase=-a)
    elif kind == "yellow":  # sun
        for k in range(12):
            a = math.radians(30 * k)
            p0 = (c[0] + 0.55 * r * math.cos(a), c[1] + 0.55 * r * math.sin(a))
            p1 = (c[0] + 0.98 * r * math.cos(a), c[1] + 0.98 * r * math.sin(a))
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), dark, t + 3, cv2.LINE_AA)
            cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), col, t + 1, cv2.LINE_AA)
        _circle_aa(img, c, 0.48 * r, dark)
        _circle_aa(img, c, 0.42 * r, col)
        _circle_aa(img, c, 0.22 * r, dark, t)
    elif kind == "pink":  # trinity knot: three interlaced arcs
        for k in range(3):
            a = math.radians(90 + 120 * k)
            cc = (c[0] + 0.38 * r * math.cos(a), c[1] - 0.38 * r * math.sin(a))
            _circle_aa(img, cc, 0.55 * r, dark, t + 3)
            _circle_aa(img, cc, 0.55 * r, col, t + 1)
        _circle_aa(img, c, 0.9 * r, dark, t)
    elif kind in ("green", "clover"):  # four-leaf clover: heart-shaped leaves, points inward
        leaf = col if kind == "green" else bgr((46, 128, 52))
        ts = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        hx = 16 * np.sin(ts) ** 3
        hy = -(13 * np.cos(ts) - 5 * np.cos(2 * ts) - 2 * np.cos(3 * ts) - np.cos(4 * ts))
        heart = np.stack([hx, hy + 5], 1) / 17.0  # unit heart, its point toward +y
        cv2.line(img, (int(c[0]), int(c[1])), (int(c[0] + 0.2 * r), int(c[1] + 0.95 * r)), dark, t + 2, cv2.LINE_AA)
        for grow, colour in ((1.18, dark), (1.0, leaf)):
            for k in range(4):
                a = math.radians(90 * k + 45)
                rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
                # Rotate so the heart's point (+y) faces the centre.
                pts = (heart * 0.3 * r * grow) @ np.array([[0, 1], [-1, 0]]).T @ rot.T
                off = np.array([math.cos(a), math.sin(a)]) * 0.4 * r
                _fill_poly_aa(img, pts * -1 + off + c, colour)
    elif kind == "blue":  # waves
        for k in range(3):
            y = c[1] + (k - 1) * 0.5 * r
            pts = [(c[0] + x * r, y + 0.16 * r * math.sin(x * 5.5)) for x in np.linspace(-0.9, 0.9, 40)]
            p = np.round(np.array(pts) * 16).astype(np.int32)
            cv2.polylines(img, [p], False, dark, t + 4, cv2.LINE_AA, 4)
            cv2.polylines(img, [p], False, col, t + 1, cv2.LINE_AA, 4)
    elif kind == "points":  # laurel ring with dots
        _circle_aa(img, c, 0.85 * r, dark, t + 2)
        _circle_aa(img, c, 0.85 * r, col, t)
        for k in range(10):
            a = math.radians(36 * k)
            _circle_aa(img, (c[0] + 0.62 * r * math.cos(a), c[1] + 0.62 * r * math.sin(a)), 0.08 * r, dark)
    elif kind == "seal":  # wax seal: a red disc with a knot
        _circle_aa(img, c, 0.85 * r, bgr((120, 20, 24)))
        _circle_aa(img, c, 0.72 * r, bgr((160, 36, 36)), t)
        _spiral(img, c, 0.5 * r, bgr((110, 18, 20)), t + 1)
    elif kind == "gem":  # a faceted wish stone
        draw_gem(img, c, r, rgb)
    elif kind == "discard":  # a card with an arrow leaving it
        w, h = 0.62 * r, 0.9 * r
        x0, y0 = c[0] - 0.55 * r, c[1] - 0.5 * r
        _fill_poly_aa(img, rounded_rect_polygon(w, h, 0.1 * r) + (x0, y0), dark)
        _fill_poly_aa(img, rounded_rect_polygon(w - 2 * t, h - 2 * t, 0.08 * r) + (x0 + t, y0 + t), bgr(CREAM))
        pts = np.array([(c[0] - 0.05 * r, c[1] + 0.15 * r), (c[0] + 0.55 * r, c[1] + 0.15 * r),
                        (c[0] + 0.55 * r, c[1] + 0.35 * r), (c[0] + 0.95 * r, c[1]),
                        (c[0] + 0.55 * r, c[1] - 0.35 * r), (c[0] + 0.55 * r, c[1] - 0.15 * r),
                        (c[0] - 0.05 * r, c[1] - 0.15 * r)])
        _fill_poly_aa(img, pts, bgr((180, 40, 30)))
    else:
        raise ValueError(f"unknown symbol {kind!r}")


def draw_gem(img: np.ndarray, c: tuple[float, float], r: float, rgb) -> None:
    """A rounded, faceted pebble in `rgb` with a highlight (wish stones)."""
    n = 9
    pts = np.array([(c[0] + r * (0.92 + 0.08 * math.cos(3 * k)) * math.cos(2 * math.pi * k / n),
                     c[1] + 0.8 * r * (0.92 + 0.08 * math.sin(2 * k)) * math.sin(2 * math.pi * k / n))
                    for k in range(n)])
    _fill_poly_aa(img, pts, bgr(_shade(rgb, 0.55)))
    _fill_poly_aa(img, (pts - c) * 0.86 + c, bgr(rgb))
    _fill_poly_aa(img, (pts - c) * 0.45 + c + (0.1 * r, 0.12 * r), bgr(_shade(rgb, 0.8)))
    _fill_poly_aa(img, np.array([(c[0] - 0.55 * r, c[1] - 0.25 * r), (c[0] - 0.2 * r, c[1] - 0.55 * r),
                                 (c[0] - 0.05 * r, c[1] - 0.4 * r), (c[0] - 0.4 * r, c[1] - 0.1 * r)]),
                  bgr(_shade(rgb, 1.6)))


# ----------------------------------------------------------------------------- cards

@dataclass(frozen=True)
class CardFace:
    """What a card shows: kind ("number", "points", "end", "wish", "back"), colour, value."""

    kind: str
    colour: str | None = None
    value: int | None = None

    @property
    def name(self) -> str:
        """File stem: card-red-7, card-points-3, card-end-blue, card-wish-5, card-back."""
        if self.kind == "number":
            return f"card-{self.colour}-{self.value}"
        if self.kind == "points":
            return f"card-points-{self.value}"
        if self.kind == "end":
            return f"card-end-{self.colour}"
        if self.kind == "wish":
            return f"card-wish-{self.value}"
        return "card-back"

    @property
    def label(self) -> str | None:
        """The text printed in the top corners (None for end cards and backs)."""
        if self.kind in ("number", "points", "wish"):
            return str(self.value)
        return None

    @property
    def rgb(self) -> tuple[int, int, int]:
        if self.kind in ("number", "end"):
            return CARD_RGB[self.colour]  # type: ignore[index]
        if self.kind == "points":
            return POINTS_RGB
        if self.kind == "wish":
            return WISH_CARD_RGB
        return BACK_RGB


def face_from_code(code: str, colour: str | None) -> CardFace:
    """The face of an observed row entry ("7", "P7", "E") in a row of `colour` (FORMATS §2)."""
    if code == "E":
        return CardFace("end", colour)
    if code.startswith("P"):
        return CardFace("points", None, int(code[1:]))
    return CardFace("number", colour, int(code))


def _card_field(face: CardFace, ppm: float) -> np.ndarray:
    """The card's printed background (before numerals): shared by all values of a colour."""
    return _card_field_cached(face.kind, face.colour, ppm)


@lru_cache(maxsize=16)
def _card_field_cached(kind: str, colour: str | None, ppm: float) -> np.ndarray:
    face = CardFace(kind, colour)
    w, h = _px(CARD_W, ppm), _px(CARD_H, ppm)
    rng = _seed(f"card-field-{kind}-{colour}")
    rgb = face.rgb
    img = tx.paper(rng, h, w, CREAM, 0.04)
    # Colour field inside a cream border, lit a little toward the top (printed gradient).
    b = _px(2.2, ppm)
    field = tx.mottled(rng, h - 2 * b, w - 2 * b, rgb, 0.12, scale=18 * ppm)
    grad = np.linspace(1.08, 0.9, h - 2 * b, dtype=np.float32)[:, None, None]
    field = np.clip(field.astype(np.float32) * grad, 0, 255).astype(np.uint8)
    mask = np.zeros((h, w), np.uint8)
    _fill_poly_aa(mask, rounded_rect_polygon((w - 2 * b) , (h - 2 * b), 2.0 * ppm) + (b, b), 255)
    m = (mask.astype(np.float32) / 255)[..., None]
    canvas = np.zeros_like(img)
    canvas[b:h - b, b:w - b] = field
    img = (img * (1 - m) + canvas * m).astype(np.uint8)
    # Inner ornamental frame.
    frame_col = bgr(_shade(rgb, 0.6)) if kind != "back" else bgr((200, 170, 90))
    inset = 4.2 * ppm
    cv2.polylines(img, [np.round((rounded_rect_polygon(w - 2 * inset, h - 2 * inset, 2.5 * ppm) + inset) * 16)
                        .astype(np.int32)], True, frame_col, max(1, int(0.5 * ppm)), cv2.LINE_AA, 4)
    if kind == "back":
        for k in range(7):
            cy = h / 2 + (k - 3) * 10 * ppm
            _spiral(img, (w / 2 - 9 * ppm, cy), 4 * ppm, bgr((200, 170, 90)), max(1, int(0.6 * ppm)))
            _spiral(img, (w / 2 + 9 * ppm, cy), 4 * ppm, bgr((200, 170, 90)), max(1, int(0.6 * ppm)), phase=math.pi)
    return img


@lru_cache(maxsize=256)
def card_art(face: CardFace, ppm: float = PPM_CARD) -> np.ndarray:
    """The card as BGRA (straight alpha), CARD_W×CARD_H mm at `ppm`, its top edge up."""
    w, h = _px(CARD_W, ppm), _px(CARD_H, ppm)
    img = _card_field(face, ppm).copy()
    rgb = face.rgb
    cx, cy = w / 2, h * 0.56
    sym_r = 15.0 * ppm
    if face.kind == "number":
        draw_symbol(img, face.colour, (cx, cy), sym_r, _shade(rgb, 1.45))  # type: ignore[arg-type]
    elif face.kind == "points":
        draw_symbol(img, "points", (cx, cy), sym_r, _shade(rgb, 1.5))
        draw_text(img, str(face.value), (cx, cy), 9 * ppm, bgr(CREAM), bgr(INK))
    elif face.kind == "end":
        draw_symbol(img, "seal", (cx, cy), sym_r, rgb)
    elif face.kind == "wish":
        draw_symbol(img, "gem", (cx, cy), sym_r * 0.9, (120, 200, 230))
    label = face.label
    if label is not None:
        for box in NUMERAL_BOXES.values():
            bx, by, bw, bh = (v * ppm for v in box)
            draw_text(img, label, (bx + bw / 2, by + bh / 2), NUMERAL_HEIGHT * ppm, bgr((250, 248, 240)),
                      bgr(INK), thickness_frac=0.16, outline_frac=0.16)
    elif face.kind == "end":
        for box in NUMERAL_BOXES.values():
            bx, by, bw, bh = (v * ppm for v in box)
            draw_symbol(img, "seal", (bx + bw / 2, by + bh / 2), 0.45 * bh, rgb)
    # Slight bend: cards bow a little along their long axis, so one side catches more light.
    bend = (1.0 + 0.05 * np.cos(np.linspace(-1.2, 1.9, w, dtype=np.float32)))[None, :, None] - 0.03
    img = np.clip(img.astype(np.float32) * bend, 0, 255).astype(np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    _fill_poly_aa(alpha, rounded_rect_polygon(w - 1, h - 1, CARD_CORNER_R * ppm) + 0.5, 255)
    # A thin darker edge where the card stock's cut shows.
    edge = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, int(0.25 * ppm)))
    img[(alpha > 0) & (edge == 0)] = (img[(alpha > 0) & (edge == 0)] * 0.7).astype(np.uint8)
    return _with_alpha(img, alpha)


# ----------------------------------------------------------------------------- tiles and tokens

def tile_taken(code: str) -> bool:
    """Tiles on an orange background are taken by the first to reach them (RULES §2): wish tiles."""
    return code.startswith("wish")


@lru_cache(maxsize=32)
def tile_art(code: str, ppm: float = PPM_TILE) -> np.ndarray:
    """A round path tile (TILE_D mm) as BGRA: clover, points-N, discard, wish-<colour>, wish-any, back."""
    n = _px(TILE_D, ppm)
    rng = _seed(f"tile-{code}")
    if code == "back":
        bg = (130, 130, 128)
    else:
        bg = TILE_TAKEN_RGB if tile_taken(code) else TILE_STAY_RGB
    img = tx.paper(rng, n, n, bg, 0.07)
    c, r = (n / 2, n / 2), n / 2
    _circle_aa(img, c, r * 0.86, bgr(_shade(bg, 0.7)), max(1, int(0.4 * ppm)))
    if code == "clover":
        draw_symbol(img, "clover", c, r * 0.72, (70, 160, 70))
    elif code.startswith("points-"):
        _circle_aa(img, c, r * 0.62, bgr((226, 186, 70)))
        _circle_aa(img, c, r * 0.62, bgr((120, 90, 30)), max(1, int(0.4 * ppm)))
        draw_text(img, code.split("-")[1], c, r * 0.7, bgr((250, 246, 230)), bgr(INK))
    elif code == "discard":
        draw_symbol(img, "discard", c, r * 0.7, (200, 60, 40))
    elif code == "wish-any":
        draw_gem(img, c, r * 0.6, (150, 200, 225))
    elif code.startswith("wish-"):
        draw_gem(img, c, r * 0.6, STONE_RGB[code.split("-", 1)[1]])
    elif code != "back":
        raise ValueError(f"unknown tile {code!r}")
    alpha = np.zeros((n, n), np.uint8)
    _circle_aa(alpha, (n / 2 - 0.5, n / 2 - 0.5), n / 2 - 0.5, 255)
    rim = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, int(0.3 * ppm)))
    img[(alpha > 0) & (rim == 0)] = (img[(alpha > 0) & (rim == 0)] * 0.6).astype(np.uint8)
    return _with_alpha(img, alpha)


TILE_CODES = ("clover", "points-1", "points-2", "points-3", "discard", *(f"wish-{c}" for c in COLOURS),
              "wish-any", "back")


@lru_cache(maxsize=8)
def wish_stone_art(colour: str, ppm: float = PPM_TILE) -> np.ndarray:
    """An NWNZ wish-stone token (WISH_STONE_D mm) face up as BGRA; colour "back" for its green back."""
    n = _px(WISH_STONE_D, ppm)
    rng = _seed(f"wish-{colour}")
    if colour == "back":
        img = tx.mottled(rng, n, n, (70, 140, 80), 0.12, scale=n / 3)
    else:
        img = tx.paper(rng, n, n, (232, 222, 196), 0.06)
        draw_gem(img, (n / 2, n / 2), n * 0.38, STONE_RGB[colour])
    alpha = np.zeros((n, n), np.uint8)
    _circle_aa(alpha, (n / 2 - 0.5, n / 2 - 0.5), n / 2 - 0.5, 255)
    rim = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, int(0.3 * ppm)))
    img[(alpha > 0) & (rim == 0)] = (img[(alpha > 0) & (rim == 0)] * 0.55).astype(np.uint8)
    return _with_alpha(img, alpha)


def marker_art(dictionary: str, marker_id: int, size_mm: float, ppm: float = PPM_MARKER) -> np.ndarray:
    """A printed marker on white paper as BGRA: the black square `size_mm` plus a quiet zone of
    MARKER_QUIET × size on every side (calibration.markers draws the modules)."""
    from calibration.markers import marker_image

    side = _px(size_mm, ppm)
    quiet = _px(size_mm * MARKER_QUIET, ppm)
    grey = marker_image(dictionary, marker_id, side, quiet_px=quiet)
    rng = _seed(f"marker-paper-{marker_id}")
    n = grey.shape[0]
    paper = tx.paper(rng, n, n, (245, 245, 240), 0.03).astype(np.float32) / 255
    img = (paper * grey[..., None].astype(np.float32))
    img = np.where(grey[..., None] < 128, np.float32(28), img)  # printer black, not pure black
    return _with_alpha(np.clip(img, 0, 255).astype(np.uint8), np.full((n, n), 255, np.uint8))


# ----------------------------------------------------------------------------- the board

def row_value_positions(board: Board) -> list[tuple[int, int, float]]:
    """(row, value, y mm) for every row: where the row's value is printed at both board edges."""
    rows: dict[int, list] = {}
    for s in board.stones.values():
        if s.kind == "stone":
            rows.setdefault(s.row, []).append(s)
    return [(row, stones[0].value, float(np.mean([s.y for s in stones]))) for row, stones in sorted(rows.items())]


def _draw_stone(img: np.ndarray, c: tuple[float, float], r: float, rgb, rng: np.random.Generator, ppm: float) -> None:
    """A printed stone: granite texture, bevel shading, dark rim."""
    n = int(2 * r + 4)
    x0, y0 = int(c[0] - n / 2), int(c[1] - n / 2)
    h, w = img.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + n > w or y0 + n > h:
        return
    tex = tx.granite(rng, n, n, rgb).astype(np.float32)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    lx, ly = xx - (c[0] - x0), yy - (c[1] - y0)
    d = np.sqrt(lx * lx + ly * ly) / r
    # Domed: light from the upper left, darker toward the lower-right rim.
    shade = 1.0 + 0.22 * (-(lx + ly) / (1.41 * r)) * np.clip(d, 0, 1) - 0.18 * np.clip(d - 0.75, 0, 1) / 0.25
    tex *= shade[..., None]
    a = np.clip((r - d * r) + 0.5, 0, 1)[..., None]
    roi = img[y0:y0 + n, x0:x0 + n].astype(np.float32)
    # Soft printed shadow beside the stone.
    sh = np.clip((r + 0.12 * r * ppm / 4 - np.sqrt((lx - 0.08 * r) ** 2 + (ly - 0.1 * r) ** 2)) / (0.15 * r), 0, 1)
    roi *= (1 - 0.35 * sh[..., None])
    roi = roi * (1 - a) + np.clip(tex, 0, 255) * a
    img[y0:y0 + n, x0:x0 + n] = roi.astype(np.uint8)
    _circle_aa(img, c, r, bgr(_shade(rgb, 0.45)), max(1, int(0.45 * ppm)))


@lru_cache(maxsize=4)
def board_art(name: str, ppm: float = PPM_BOARD) -> np.ndarray:
    """The printed board side `name` (a bundled board) as BGRA at `ppm`."""
    return draw_board(bundled_board(name), ppm)


def draw_board(board: Board, ppm: float = PPM_BOARD) -> np.ndarray:
    """The board art of any Board: green textured ground, paths, stones in their colours with a
    stone texture, tile-spot dots, wish-pile rings, the start stone, and row values at both edges."""
    W, H = board.size_mm
    w, h = _px(W, ppm), _px(H, ppm)
    rng = _seed(f"board-{board.name}")
    img = tx.mottled(rng, h, w, BOARD_RGB, 0.22, scale=40 * ppm)
    grass = tx.fractal_noise(rng, h, w, scale=2 * ppm, octaves=2)
    img = np.clip(img.astype(np.float32) * (1 + 0.08 * grass[..., None]), 0, 255).astype(np.uint8)
    # Darker toward the edges, like the printed board's vignette.
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    edge = np.minimum(np.minimum(xx, w - 1 - xx), np.minimum(yy, h - 1 - yy)) / (25 * ppm)
    img = (img.astype(np.float32) * (0.72 + 0.28 * np.clip(edge, 0, 1))[..., None]).astype(np.uint8)
    # Goal area: a lighter band behind the last three rows.
    goal = [s for s in board.stones.values() if s.kind == "stone" and s.row in board.goal_rows]
    if goal:
        y_top = min(s.y - s.r for s in goal) - 6
        y_bot = max(s.y + s.r for s in goal) + 6
        band = img[_px(y_top, ppm):_px(y_bot, ppm)].astype(np.float32)
        img[_px(y_top, ppm):_px(y_bot, ppm)] = np.clip(band * 1.12 + 6, 0, 255).astype(np.uint8)
        for yl in (y_top, y_bot):
            for x in np.arange(8, W - 8, 6):
                cv2.line(img, (_px(x, ppm), _px(yl, ppm)), (_px(x + 3, ppm), _px(yl, ppm)), bgr((220, 210, 150)),
                         max(1, int(0.5 * ppm)), cv2.LINE_AA)
    # Ornamental border: double line with a spiral at each corner.
    gold = bgr((212, 186, 110))
    for inset, th in ((4, 1.2), (7, 0.5)):
        cv2.rectangle(img, (_px(inset, ppm), _px(inset, ppm)), (_px(W - inset, ppm), _px(H - inset, ppm)), gold,
                      max(1, int(th * ppm)), cv2.LINE_AA)
    for cx, cy in ((12, 12), (W - 12, 12), (W - 12, H - 12), (12, H - 12)):
        _spiral(img, (cx * ppm, cy * ppm), 5 * ppm, gold, max(1, int(0.6 * ppm)))
    # Paths: a sandy trail along every step, under the stones.
    trail_dark, trail = bgr((96, 84, 50)), bgr((170, 150, 98))
    for s in board.stones.values():
        for nid in s.next:
            t = board.stones[nid]
            p0, p1 = (_px(s.x, ppm), _px(s.y, ppm)), (_px(t.x, ppm), _px(t.y, ppm))
            cv2.line(img, p0, p1, trail_dark, max(2, int(0.55 * t.r * ppm)), cv2.LINE_AA)
            cv2.line(img, p0, p1, trail, max(1, int(0.38 * t.r * ppm)), cv2.LINE_AA)
    # Stones.
    for s in board.stones.values():
        c = (s.x * ppm, s.y * ppm)
        if s.kind == "start":
            _draw_stone(img, c, s.r * ppm, (150, 146, 136), rng, ppm)
            for k in range(3):
                a = math.radians(90 + 120 * k)
                cc = (c[0] + 0.35 * s.r * ppm * math.cos(a), c[1] - 0.35 * s.r * ppm * math.sin(a))
                _spiral(img, cc, 0.36 * s.r * ppm, bgr((90, 86, 80)), max(1, int(0.8 * ppm)), phase=-a)
            continue
        _draw_stone(img, c, s.r * ppm, STONE_RGB[s.color], rng, ppm)  # type: ignore[index]
        if s.tile_spot:
            _circle_aa(img, c, 0.28 * s.r * ppm, bgr((118, 118, 116)))
            _circle_aa(img, c, 0.28 * s.r * ppm, bgr((70, 70, 70)), max(1, int(0.3 * ppm)))
        if s.wish_pile:
            _circle_aa(img, c, 0.72 * s.r * ppm, bgr((250, 240, 200)), max(1, int(0.6 * ppm)))
        if s.end:
            _circle_aa(img, c, s.r * ppm + 1.2 * ppm, gold, max(1, int(0.8 * ppm)))
    # Row values at both edges, in small cream badges.
    for row, value, y in row_value_positions(board):
        xs = [s.x for s in board.stones.values() if s.kind == "stone" and s.row == row]
        left = max(11.0, min(min(xs) - 22.0, 22.0))
        right = min(W - 11.0, max(max(xs) + 22.0, W - 22.0))
        for x in (left, right):
            c = (x * ppm, y * ppm)
            _circle_aa(img, c, 8.0 * ppm, bgr((80, 60, 30)))
            _circle_aa(img, c, 7.0 * ppm, bgr((236, 224, 186)))
            draw_text(img, str(value), c, 6.0 * ppm, bgr(INK), thickness_frac=0.16)
    alpha = np.full((h, w), 255, np.uint8)
    return _with_alpha(img, alpha)


# ----------------------------------------------------------------------------- catalogue + export

def catalogue() -> dict[str, Any]:
    """Every component's dimensions (mm) and art resolution, as written to components.json."""
    return {
        "format": "keltis-components/1",
        "units": "mm; images are BGRA PNG with straight alpha, top-left origin, px_per_mm as stated",
        "card": {"size": [CARD_W, CARD_H], "corner_radius": CARD_CORNER_R, "thickness": CARD_THICKNESS,
                 "px_per_mm": PPM_CARD, "numeral_boxes": {k: list(v) for k, v in NUMERAL_BOXES.items()},
                 "numeral_height": NUMERAL_HEIGHT,
                 "colours_rgb": {**{c: list(v) for c, v in CARD_RGB.items()}, "points": list(POINTS_RGB),
                                 "wish": list(WISH_CARD_RGB), "back": list(BACK_RGB)},
                 "files": "card-<colour>-<0..10>, card-points-<0..10>, card-end-<colour>, card-wish-<1..9>, card-back"},
        "tile": {"diameter": TILE_D, "thickness": TILE_THICKNESS, "px_per_mm": PPM_TILE,
                 "background_rgb": {"stays": list(TILE_STAY_RGB), "taken": list(TILE_TAKEN_RGB)},
                 "codes": list(TILE_CODES), "files": "tile-<code>"},
        "wish_stone": {"diameter": WISH_STONE_D, "thickness": WISH_STONE_THICKNESS, "px_per_mm": PPM_TILE,
                       "files": "wish-<colour>, wish-back"},
        "pawn": {"small": {"width": PAWN_SMALL[0], "height": PAWN_SMALL[1]},
                 "big": {"width": PAWN_BIG[0], "height": PAWN_BIG[1]},
                 "colours_rgb": {k: list(v) for k, v in PAWN_RGB.items()},
                 "profile": "surface of revolution, see simulator/pawns.py pawn_profile()",
                 "files": "pawn-<colour>-small, pawn-<colour>-big (side views, 8 px/mm)"},
        "board": {"thickness": BOARD_THICKNESS, "px_per_mm": PPM_BOARD,
                  "stone_rgb": {k: list(v) for k, v in STONE_RGB.items()}, "background_rgb": list(BOARD_RGB),
                  "files": "board-<name> (size from the board file's size_mm)"},
        "marker": {"quiet_zone": MARKER_QUIET, "px_per_mm": PPM_MARKER,
                   "note": "black square of the calibration's marker size plus a white quiet zone of "
                           "quiet_zone x size on every side; modules from calibration.markers.marker_image",
                   "files": "marker-<id> (default calibration sizes)"},
    }


def all_card_faces() -> list[CardFace]:
    """Every card face of both games, plus the back."""
    faces = [CardFace("number", c, v) for c in COLOURS for v in range(11)]
    faces += [CardFace("points", None, v) for v in range(11)]
    faces += [CardFace("end", c) for c in COLOURS]
    faces += [CardFace("wish", None, v) for v in range(1, 10)]
    faces.append(CardFace("back"))
    return faces


# ----------------------------------------------------------------------------- distractors

@lru_cache(maxsize=4)
def thing_art(kind: str, ppm: float = 3.0) -> np.ndarray:
    """Everyday things that end up beside a board: "phone", "pad" (a score pad), "pen", "box" (the
    card game's box lid); BGRA."""
    size = {"phone": (72.0, 150.0), "pad": (105.0, 148.0), "pen": (10.0, 140.0), "box": (124.0, 186.0)}[kind]
    w, h = _px(size[0], ppm), _px(size[1], ppm)
    rng = _seed(f"thing-{kind}")
    if kind == "phone":
        img = np.full((h, w, 3), bgr((28, 28, 32)), np.uint8)
        scr = tx.mottled(rng, h - _px(10, ppm), w - _px(6, ppm), (18, 22, 30), 0.3, scale=20 * ppm)
        # The dark screen mirrors the room: a soft diagonal sheen.
        yy, xx = np.mgrid[0:scr.shape[0], 0:scr.shape[1]].astype(np.float32)
        sheen = np.exp(-((xx - yy * 0.5 - scr.shape[1] * 0.2) / (scr.shape[1] * 0.25)) ** 2) * 40
        scr = np.clip(scr.astype(np.float32) + sheen[..., None], 0, 255).astype(np.uint8)
        img[_px(5, ppm):_px(5, ppm) + scr.shape[0], _px(3, ppm):_px(3, ppm) + scr.shape[1]] = scr
        radius = 8.0
    elif kind == "pad":
        img = tx.paper(rng, h, w, (246, 244, 236), 0.03)
        for y in np.arange(18, size[1] - 6, 7.0):
            cv2.line(img, (_px(6, ppm), _px(y, ppm)), (w - _px(6, ppm), _px(y, ppm)), bgr((170, 190, 220)), 1,
                     cv2.LINE_AA)
        cv2.line(img, (_px(30, ppm), _px(12, ppm)), (_px(30, ppm), h - _px(6, ppm)), bgr((220, 120, 120)), 1,
                 cv2.LINE_AA)
        # Pencilled scores.
        for k in range(int(rng.integers(4, 12))):
            y = 18 + 7 * k + 5
            draw_text(img, str(int(rng.integers(-12, 60))), (_px(18, ppm), _px(y - 2.5, ppm)), 3.5 * ppm,
                      bgr((60, 60, 70)), thickness_frac=0.1)
        radius = 1.0
    elif kind == "box":
        # A printed lid: a deep green field, a lighter frame, a title band and the game's symbols.
        img = tx.mottled(rng, h, w, (30, 84, 70), 0.15, scale=30 * ppm)
        m = _px(7, ppm)
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), bgr((200, 170, 90)), max(1, _px(2.0, ppm)), cv2.LINE_AA)
        band = (_px(20, ppm), _px(58, ppm))
        img[band[0]:band[1], m + _px(4, ppm):w - m - _px(4, ppm)] = bgr((214, 190, 120))
        draw_text(img, "KELTIS", (w / 2, (band[0] + band[1]) / 2), 22 * ppm, bgr((30, 60, 50)), thickness_frac=0.14)
        for k, colour in enumerate(COLOURS):
            cx = w / 2 + (k - 2) * 21 * ppm
            cv2.circle(img, (int(cx), _px(120, ppm)), _px(8, ppm), bgr(CARD_RGB[colour]), -1, cv2.LINE_AA)
        radius = 2.0
    else:  # pen
        img = np.zeros((h, w, 3), np.uint8)
        prof = np.cos(np.linspace(-1.3, 1.3, w))[None, :, None]
        img[:] = np.clip(np.array(bgr((40, 70, 160)), np.float32) * (0.5 + 0.7 * prof), 0, 255).astype(np.uint8)
        img[: _px(20, ppm)] = np.clip(np.array(bgr((200, 200, 205)), np.float32) * (0.5 + 0.6 * prof[0]), 0, 255)
        radius = 4.5
    alpha = np.zeros((h, w), np.uint8)
    _fill_poly_aa(alpha, rounded_rect_polygon(w - 1, h - 1, radius * ppm) + 0.5, 255)
    return _with_alpha(img, alpha)
