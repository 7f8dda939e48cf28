"""The renderer: a scene (simulator/scene.py) + a camera + conditions → a camera frame and its truth.

Work is split by how often it changes:
- once per process: component art and its mip pyramids (`SpriteBank`);
- once per camera/table (a session): the table texture warped onto the canvas, the lens maps, the
  sensor-noise buffer (`Renderer.__init__`);
- once per table state: flat pieces warped on, shadows, 3-D pawns (`Renderer.static_layer`, cached);
- every frame: hands, lens distortion (one cv2.remap), lighting, blur, noise, JPEG (`Renderer.frame`).

The truth's geometry (`render` extension, docs/formats-extensions.md) is computed from the same
scene and camera model, never read back from pixels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np

from . import components as comp
from . import textures as tx
from .camera import Camera
from .conditions import Conditions
from .hands import HandPose, arm_over_mm2, draw_hand, hand_capsules
from .pawns import Lighting3D, draw_turned, mug_profile, pawn_profile, revolve, turned_shadow
from .scene import Flat, Scene, TableLayout

# ----------------------------------------------------------------------------- sprites


@dataclass
class Sprite:
    """A flat piece's art ready to warp: premultiplied BGRA mip levels with a soft contact shadow."""

    levels: list[np.ndarray]
    ppm: float
    margin: tuple[float, float]  # mm of shadow fringe left of and above the piece in the image
    size: tuple[float, float]  # the piece itself, mm

    def pick(self, px_per_mm: float) -> tuple[np.ndarray, float]:
        """The coarsest level still at least as sharp as the image (no aliasing, no waste)."""
        k = 0
        while k + 1 < len(self.levels) and self.ppm / 2 ** (k + 1) >= px_per_mm:
            k += 1
        return self.levels[k], self.ppm / 2 ** k


def make_sprite(art: np.ndarray, ppm: float, size: tuple[float, float], halo: float, opacity: float,
                offset: tuple[float, float] = (0.3, 0.45)) -> Sprite:
    """Premultiply `art` (BGRA, straight alpha), add a blurred shadow fringe `halo` mm wide, pad to a
    multiple of 16 px and build the mip pyramid."""
    h, w = art.shape[:2]
    pad = int(math.ceil((2.5 * halo + max(abs(offset[0]), abs(offset[1]))) * ppm)) + 1
    W, H = w + 2 * pad, h + 2 * pad
    W16, H16 = -(-W // 16) * 16, -(-H // 16) * 16
    px, py = pad + (W16 - W) // 2, pad + (H16 - H) // 2
    a = np.zeros((H16, W16), np.float32)
    a[py:py + h, px:px + w] = art[..., 3].astype(np.float32) / 255
    rgb = np.zeros((H16, W16, 3), np.float32)
    rgb[py:py + h, px:px + w] = art[..., :3].astype(np.float32)
    rgb *= a[..., None]
    if halo > 0 and opacity > 0:
        m = np.float32([[1, 0, offset[0] * ppm], [0, 1, offset[1] * ppm]])
        sh = cv2.warpAffine(a, m, (W16, H16))
        sh = cv2.GaussianBlur(sh, (0, 0), halo * ppm)
        a = a + (1 - a) * sh * opacity
    level = np.dstack([np.clip(rgb, 0, 255), np.clip(a * 255, 0, 255)]).astype(np.uint8)
    levels = [level]
    while min(levels[-1].shape[:2]) >= 32:
        levels.append(cv2.resize(levels[-1], (levels[-1].shape[1] // 2, levels[-1].shape[0] // 2),
                                 interpolation=cv2.INTER_AREA))
    return Sprite(levels, ppm, (px / ppm, py / ppm), size)


class SpriteBank:
    """Every sprite the renderer needs, built on first use and kept for the process."""

    def __init__(self):
        self._sprites: dict[str, Sprite] = {}
        self._faces = {f.name: f for f in comp.all_card_faces()}
        self.art: Any = None     # a components folder whose pictures replace the drawn art (use_art)

    def use_art(self, folder: str | None) -> None:
        """Draw cards, tiles, wish stones and boards from the pictures of a components folder (the
        layout `sim components` writes; a piece it lacks keeps the drawn art); None: the drawn art."""
        import json
        from pathlib import Path

        self._sprites.clear()
        if folder is None:
            self.art = None
            return
        path = Path(folder)
        cat = json.loads((path / "components.json").read_text(encoding="utf-8"))
        self.art = (path, cat)

    def _art_sprite(self, kind: str, name: str) -> Sprite | None:
        path, cat = self.art
        key = {"card": name, "tile": f"tile-{name}", "wish": f"wish-{name}", "board": f"board-{name}"}[kind]
        file = (cat.get("files") or {}).get(key)
        img = cv2.imread(str(path / file), cv2.IMREAD_UNCHANGED) if file else None
        if img is None:
            return None
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        if kind == "card":
            return make_sprite(img, float(cat["card"]["px_per_mm"]), (comp.CARD_W, comp.CARD_H), 0.9, 0.4)
        if kind == "tile":
            return make_sprite(img, float(cat["tile"]["px_per_mm"]), (comp.TILE_D, comp.TILE_D), 1.2, 0.5,
                               (0.6, 0.8))
        if kind == "wish":
            ppm = float((cat.get("wish_stone") or {}).get("px_per_mm", cat["tile"]["px_per_mm"]))
            return make_sprite(img, ppm, (comp.WISH_STONE_D,) * 2, 1.2, 0.5, (0.6, 0.8))
        from .scene import board_for_key

        board = board_for_key(f"board:{name}")
        return make_sprite(img, float(cat["board"]["px_per_mm"]), board.size_mm, 3.0, 0.55, (1.0, 1.5))

    def get(self, key: str) -> Sprite:
        s = self._sprites.get(key)
        if s is None:
            s = self._sprites[key] = self._build(key)
        return s

    def _build(self, key: str) -> Sprite:
        kind, _, name = key.partition(":")
        if self.art is not None and kind in ("card", "tile", "wish", "board") and "@" not in name:
            sprite = self._art_sprite(kind, name)
            if sprite is not None:
                return sprite
        if kind == "card":
            return make_sprite(comp.card_art(self._faces[name]), comp.PPM_CARD, (comp.CARD_W, comp.CARD_H), 0.9, 0.4)
        if kind == "tile":
            return make_sprite(comp.tile_art(name), comp.PPM_TILE, (comp.TILE_D, comp.TILE_D), 1.2, 0.5, (0.6, 0.8))
        if kind == "wish":
            return make_sprite(comp.wish_stone_art(name), comp.PPM_TILE, (comp.WISH_STONE_D,) * 2, 1.2, 0.5,
                               (0.6, 0.8))
        if kind == "board":
            from .scene import board_for_key

            board = board_for_key(key)
            art = comp.board_art(board.name) if "@" not in name else comp.draw_board(board)
            return make_sprite(art, comp.PPM_BOARD, board.size_mm, 3.0, 0.55, (1.0, 1.5))
        if kind == "marker":
            dictionary, mid, size = name.split(":")
            art = comp.marker_art(dictionary, int(mid), float(size))
            side = float(size) * (1 + 2 * comp.MARKER_QUIET)
            return make_sprite(art, comp.PPM_MARKER, (side, side), 0.4, 0.2)
        if kind == "thing":
            size = {"phone": (72.0, 150.0), "pad": (105.0, 148.0), "pen": (10.0, 140.0), "box": (124.0, 186.0)}[name]
            return make_sprite(comp.thing_art(name), 3.0, size, 2.5, 0.5, (1.5, 2.0))
        raise KeyError(f"unknown sprite {key!r}")


SPRITES = SpriteBank()


# ----------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class TableStyle:
    """The table top (wood, cloth or plain colour, its colour, where its grain lies) and the floor
    beyond it."""

    kind: str
    rgb: tuple[int, int, int]
    rect: tuple[float, float, float, float]
    grain_angle: float
    seed: int
    floor_rgb: tuple[int, int, int] = (70, 60, 52)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "rgb": list(self.rgb), "rect_mm": [round(v, 1) for v in self.rect]}


WOODS = ((168, 122, 78), (196, 160, 116), (120, 80, 50), (150, 110, 80), (206, 186, 150), (96, 64, 44))
FLOORS = ((92, 84, 76), (120, 96, 70), (60, 58, 56), (150, 140, 126), (84, 62, 46))
CLOTHS = ((200, 196, 186), (60, 90, 130), (150, 40, 40), (70, 110, 80), (230, 226, 214))
#: Plain table tops: white, light and dark grey, black, cream, sage, a strong green and blue.
PLAINS = ((236, 236, 232), (176, 178, 176), (88, 90, 92), (34, 34, 36), (224, 212, 184), (150, 168, 140),
          (40, 110, 70), (60, 84, 140))
TABLE_KINDS = ("wood", "cloth", "plain")
#: How glossy each kind of table top is (peak of the lamp's highlight relative to the board's).
TABLE_GLOSS = {"wood": 0.4, "cloth": 0.0, "plain": 0.6}


def sample_table(rng: np.random.Generator, layout: TableLayout) -> TableStyle:
    """A random table under the layout: wood, a tablecloth or a plain colour."""
    u = rng.random()
    kind = "wood" if u < 0.45 else "cloth" if u < 0.72 else "plain"
    palette = {"wood": WOODS, "cloth": CLOTHS, "plain": PLAINS}[kind]
    rgb = tuple(int(v) for v in palette[int(rng.integers(0, len(palette)))])
    floor = FLOORS[int(rng.integers(0, len(FLOORS)))]
    return TableStyle(kind, rgb, layout.table_rect(rng), float(rng.uniform(0, 180)), int(rng.integers(1 << 30)),
                      floor)


TABLE_PPM = 1.6      # table texture resolution (px/mm); the texture tiles
TABLE_TEX = 1024


def _table_texture(style: TableStyle) -> np.ndarray:
    rng = np.random.default_rng(style.seed)
    if style.kind == "wood":
        return tx.wood(rng, TABLE_TEX, TABLE_TEX, style.rgb, plank_px=TABLE_TEX // int(rng.integers(2, 4)))
    if style.kind == "plain":
        return tx.plain(rng, TABLE_TEX, TABLE_TEX, style.rgb)
    return tx.cloth(rng, TABLE_TEX, TABLE_TEX, style.rgb)


#: How glossy each kind of flat piece is (1 = the printed, varnished board).
PIECE_GLOSS = {"board": 1.0, "card": 0.85, "tile": 0.8, "wish": 1.0, "marker": 0.25, "thing:phone": 1.3,
               "thing:pad": 0.1, "thing:pen": 0.6, "thing:box": 0.9}


def piece_gloss(sprite: str) -> float:
    kind = sprite.partition(":")[0]
    return PIECE_GLOSS.get(sprite, PIECE_GLOSS.get(kind, 0.5))


# ----------------------------------------------------------------------------- the renderer


@dataclass
class Frame:
    """One rendered frame: the BGR image, its JPEG bytes and the geometry truth ("render" extension)."""

    image: np.ndarray
    jpeg: bytes
    render: dict[str, Any]


#: backgrounds drawn lately, by camera and table (Renderer.background): drawing one takes a third of a
#: frame, and a new renderer of the same camera and table (a test, a data set's pinned view) draws the same
_BACKGROUNDS: dict[tuple, np.ndarray] = {}


class Renderer:
    """Renders frames of one table seen by one camera (a session, or a single dataset frame)."""

    def __init__(self, camera: Camera, layout: TableLayout, table: TableStyle, *, seed: int = 0,
                 sprites: SpriteBank | None = None):
        self.camera = camera
        self.layout = layout
        self.table = table
        self.seed = seed
        self.sprites = sprites or SPRITES
        self._static: dict[Any, tuple[np.ndarray, dict[str, Any]]] = {}
        self._background: np.ndarray | None = None

    # ------------------------------------------------------------------ once per camera

    @property
    def background(self) -> np.ndarray:
        """The bare table (and floor beyond its edge) on the canvas (read-only: shared by renderers of
        the same camera and table)."""
        if self._background is None:
            cam = self.camera
            key = (tuple(cam.size), *(np.asarray(a, np.float64).tobytes() for a in (cam.K, cam.dist, cam.R, cam.C)),
                   self.table)
            hit = _BACKGROUNDS.get(key)
            if hit is None:
                hit = self._draw_background()
                hit.flags.writeable = False
                if len(_BACKGROUNDS) >= 4:
                    _BACKGROUNDS.pop(next(iter(_BACKGROUNDS)))
                _BACKGROUNDS[key] = hit
            self._background = hit
        return self._background

    def _draw_background(self) -> np.ndarray:
        cam, style = self.camera, self.table
        cw, ch, _, _ = cam.canvas
        # The table is low-detail: warp at half resolution, then upsample.
        hw, hh = (cw + 1) // 2, (ch + 1) // 2
        half = np.diag([0.5, 0.5, 1.0])
        tex = _table_texture(style)
        a = math.radians(style.grain_angle)
        # texture px → table mm (rotated grain, arbitrary origin), then → canvas → half canvas.
        A = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]]) @ np.diag(
            [1 / TABLE_PPM, 1 / TABLE_PPM, 1.0])
        A[:2, 2] = (style.seed % 997, style.seed % 991)
        Ht = half @ cam.plane_homography(0.0) @ A
        top = cv2.warpPerspective(tex, np.linalg.inv(Ht), (hw, hh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_WRAP)
        x0, y0, x1, y1 = style.rect
        corners = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)
        poly = cam.project_canvas(corners) * 0.5
        inside = cv2.pointPolygonTest(poly.astype(np.float32), (0.0, 0.0), False) >= 0 and all(
            cv2.pointPolygonTest(poly.astype(np.float32), (float(px), float(py)), False) >= 0
            for px, py in ((hw - 1, 0), (0, hh - 1), (hw - 1, hh - 1)))
        if not inside:
            # The floor, 740 mm below the table, blurred (out of focus), then the table's thick edge.
            rng = np.random.default_rng(style.seed + 1)
            # A floor far below the lens's focus: soft, low-contrast, periodic so it can tile.
            ftex = tx.tint(tx.fractal_noise(rng, 256, 256, scale=96, octaves=3, periodic=True), style.floor_rgb, 0.18)
            Hf = half @ cam.plane_homography(-740.0) @ np.diag([1 / 0.25, 1 / 0.25, 1.0])
            floor = cv2.warpPerspective(ftex, np.linalg.inv(Hf), (hw, hh),
                                        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_WRAP)
            floor = cv2.GaussianBlur((floor * 0.5).astype(np.uint8), (0, 0), 2.0)
            edge = np.array([[x0, y0, 28], [x1, y0, 28], [x1, y1, 28], [x0, y1, 28]], np.float64)
            low = cam.project_canvas(edge) * 0.5
            dark = tuple(int(c * 0.45) for c in tx.bgr(style.rgb))
            for i in range(4):
                quad = np.array([poly[i], poly[(i + 1) % 4], low[(i + 1) % 4], low[i]])
                cv2.fillConvexPoly(floor, np.round(quad * 16).astype(np.int32), dark, cv2.LINE_AA, 4)
            mask = np.zeros((hh, hw), np.uint8)
            cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
            m = mask.astype(np.float32)[..., None] / 255
            top = (top * m + floor * (1 - m)).astype(np.uint8)
        return cv2.resize(top, (cw, ch), interpolation=cv2.INTER_LINEAR)

    # ------------------------------------------------------------------ once per table state

    def static_layer(self, scene: Scene, conditions: Conditions) -> tuple[np.ndarray, dict[str, Any]]:
        """The canvas with every piece of `scene` drawn and lit (cached per scene and lamp)."""
        key = (scene.key, conditions.scene_key())
        hit = self._static.get(key)
        if hit is None:
            if len(self._static) >= 3:
                self._static.pop(next(iter(self._static)))
            hit = self._static[key] = self._draw_static(scene, conditions)
        return hit

    def _draw_static(self, scene: Scene, conditions: Conditions) -> tuple[np.ndarray, dict[str, Any]]:
        cam = self.camera
        canvas = self.background.copy()
        light = conditions.light_dir
        gloss = None
        if conditions.gloss > 0:
            gloss = np.full(canvas.shape[:2], int(round(TABLE_GLOSS.get(self.table.kind, 0.0) * GLOSS_SCALE)), np.uint8)
        for flat in scene.flats:
            self._draw_flat(canvas, flat, light, gloss)
        if gloss is not None:
            self._add_specular(canvas, gloss, conditions)
        # Shadows of everything standing up, on a quarter-resolution mask, softened by the lamp size.
        scale = 0.25
        cw, ch = canvas.shape[1], canvas.shape[0]
        mask = np.zeros((int(ch * scale) + 1, int(cw * scale) + 1), np.uint8)
        for t in scene.turned:
            turned_shadow(mask, scale, cam, _profile(t.kind), t.position, t.base, light)
        for f in scene.flats:
            if f.thickness >= 2.0:
                self._flat_shadow(mask, scale, f, light)
        if mask.any():
            ppm = cam.px_per_mm(self.layout.play_area().mean(0))
            sigma = max(0.6, conditions.shadow_softness * ppm * scale * 0.5)
            mask = cv2.GaussianBlur(mask, (0, 0), sigma)
            ys, xs = np.nonzero(mask)
            y0, y1 = int(ys.min() / scale), min(ch, int((ys.max() + 1) / scale) + 1)
            x0, x1 = int(xs.min() / scale), min(cw, int((xs.max() + 1) / scale) + 1)
            m = cv2.resize(mask, (int(mask.shape[1] / scale), int(mask.shape[0] / scale)),
                           interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1].astype(np.float32) / 255
            roi = canvas[y0:y1, x0:x1]
            roi[:] = (roi * (1 - conditions.shadow_strength * m[..., None])).astype(np.uint8)
        lighting = Lighting3D(to_light=tuple(-light))
        order = sorted(range(len(scene.turned)), key=lambda i: -float(cam.depth(np.array(
            [[*scene.turned[i].position, -scene.turned[i].base - 10]]))[0]))
        for i in order:
            t = scene.turned[i]
            draw_turned(canvas, cam, _profile(t.kind), t.position, t.base, t.rgb, lighting,
                                   grain_seed=t.seed)
        return canvas, render_truth(scene, cam, self.layout)

    def _add_specular(self, canvas: np.ndarray, gloss: np.ndarray, c: Conditions) -> None:
        """The lamp mirrored in the glossy pieces: a Blinn-Phong lobe around the point where the table
        would reflect the lamp into the lens, weighted by each surface's gloss (drawn before shadows
        and standing pieces, which then darken or hide it)."""
        cam = self.camera
        ch, cw = canvas.shape[:2]
        step = 8
        gx, gy = np.meshgrid(np.arange(0, cw + step, step, dtype=np.float64),
                             np.arange(0, ch + step, step, dtype=np.float64))
        # Canvas pixel → point on the table top (board height) through the inverse plane homography.
        Hinv = np.linalg.inv(cam.plane_homography(comp.BOARD_THICKNESS))
        q = Hinv @ np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)])
        p = np.stack([q[0] / q[2], q[1] / q[2], np.full(gx.size, -comp.BOARD_THICKNESS)], 1)
        lamp = c.lamp_position(tuple(self.layout.pieces_area().mean(0)))
        to_cam = cam.C - p
        to_lamp = lamp - p
        half = to_cam / np.linalg.norm(to_cam, axis=1, keepdims=True) + to_lamp / np.linalg.norm(to_lamp, axis=1, keepdims=True)
        half /= np.linalg.norm(half, axis=1, keepdims=True)
        cos = np.clip(-half[:, 2], 0.0, 1.0)   # the surface normal points up (-z)
        lobe = (c.gloss * cos ** c.gloss_shininess).reshape(gx.shape).astype(np.float32)
        # Only where the highlight can add half a level on the glossiest piece (it falls off fast).
        hot = lobe * (float(gloss.max()) / GLOSS_SCALE) * 255.0 >= 0.5
        if not hot.any():
            return
        rows, cols = np.nonzero(hot.any(axis=1))[0], np.nonzero(hot.any(axis=0))[0]
        r0, r1 = max(0, rows[0] - 1), min(hot.shape[0] - 1, rows[-1] + 1)
        c0, c1 = max(0, cols[0] - 1), min(hot.shape[1] - 1, cols[-1] + 1)
        y0, x0 = r0 * step, c0 * step
        y1, x1 = min(ch, r1 * step + 1), min(cw, c1 * step + 1)
        if y1 <= y0 or x1 <= x0:
            return
        # Grid point k lies on canvas pixel k·step: stretch the grid cell-exactly over the region.
        sub = lobe[r0:r1 + 1, c0:c1 + 1]
        up = cv2.resize(sub, ((c1 - c0) * step + 1, (r1 - r0) * step + 1), interpolation=cv2.INTER_LINEAR)
        spec = up[:y1 - y0, :x1 - x0] * gloss[y0:y1, x0:x1].astype(np.float32) * (255.0 / GLOSS_SCALE)
        spec8 = np.clip(spec + 0.5, 0, 255).astype(np.uint8)
        roi = canvas[y0:y1, x0:x1]
        cv2.add(roi, cv2.merge([spec8, spec8, spec8]), roi)

    def _draw_flat(self, canvas: np.ndarray, f: Flat, light: np.ndarray, gloss: np.ndarray | None = None) -> None:
        cam = self.camera
        if f.thickness > 0.6:
            self._draw_sides(canvas, f, light)
        sprite = self.sprites.get(f.sprite)
        img, ppm = sprite.pick(cam.px_per_mm(f.centre, f.top))
        h, w = img.shape[:2]
        a = math.radians(f.angle)
        rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
        fw, fh = f.size
        # sprite px → piece mm (its top-left at 0,0) → centred → rotated → table mm.
        A = (np.array([[1, 0, f.centre[0]], [0, 1, f.centre[1]], [0, 0, 1.0]]) @ rot
             @ np.array([[1, 0, -fw / 2 - sprite.margin[0]], [0, 1, -fh / 2 - sprite.margin[1]], [0, 0, 1.0]])
             @ np.array([[1 / ppm, 0, 0.5 / ppm], [0, 1 / ppm, 0.5 / ppm], [0, 0, 1.0]]))
        Hc = cam.plane_homography(f.top) @ A
        src = np.array([[-0.5, -0.5, 1], [w - 0.5, -0.5, 1], [w - 0.5, h - 0.5, 1], [-0.5, h - 0.5, 1]]).T
        dst = Hc @ src
        dst = (dst[:2] / dst[2]).T
        ch, cw = canvas.shape[:2]
        x0, y0 = int(max(0, math.floor(dst[:, 0].min()))), int(max(0, math.floor(dst[:, 1].min())))
        x1, y1 = int(min(cw, math.ceil(dst[:, 0].max()) + 1)), int(min(ch, math.ceil(dst[:, 1].max()) + 1))
        if x1 - x0 < 1 or y1 - y0 < 1:
            return
        M = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ Hc
        warped = cv2.warpPerspective(img, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        roi = canvas[y0:y1, x0:x1]
        al = warped[..., 3:4].astype(np.float32) * (1 / 255)
        col = warped[..., :3].astype(np.float32)
        if f.shade != 1.0:
            col *= f.shade
        roi[:] = np.clip(roi.astype(np.float32) * (1 - al) + col, 0, 255).astype(np.uint8)
        if gloss is not None:
            g = gloss[y0:y1, x0:x1]
            g[:] = np.clip(g.astype(np.float32) * (1 - al[..., 0]) + al[..., 0] * (piece_gloss(f.sprite) * GLOSS_SCALE),
                           0, 255).astype(np.uint8)

    def _draw_sides(self, canvas: np.ndarray, f: Flat, light: np.ndarray) -> None:
        """The visible sides of a thick piece: a box (board, card stacks) or a cylinder (tiles, stones)."""
        cam = self.camera
        z0, z1 = -f.z, -f.top
        base = np.array([f.side_rgb[2], f.side_rgb[1], f.side_rgb[0]], np.float64)
        round_piece = f.sprite.startswith(("tile:", "wish:"))
        if round_piece:
            r = f.size[0] / 2
            th = np.linspace(0, 2 * np.pi, 40, endpoint=False)
            ring = np.stack([f.centre[0] + r * np.cos(th), f.centre[1] + r * np.sin(th)], 1)
            pts = np.vstack([np.hstack([ring, np.full((40, 1), z0)]), np.hstack([ring, np.full((40, 1), z1)])])
            p = cam.project_canvas(pts)
            hull = cv2.convexHull(np.round(p * 16).astype(np.int32))
            cv2.fillConvexPoly(canvas, hull, (base * 0.75).tolist(), cv2.LINE_AA, 4)
            if f.sprite.startswith("wish:") and f.thickness > 1.5 * comp.WISH_STONE_THICKNESS:
                # A stack: the seams between stones.
                for k in range(1, int(round(f.thickness / comp.WISH_STONE_THICKNESS))):
                    zz = -(f.z + k * comp.WISH_STONE_THICKNESS)
                    q = cam.project_canvas(np.hstack([ring, np.full((40, 1), zz)]))
                    cv2.polylines(canvas, [np.round(q * 16).astype(np.int32)], True, (base * 0.45).tolist(), 1,
                                  cv2.LINE_AA, 4)
            return
        c = f.corners()
        bottom = np.hstack([c, np.full((4, 1), z0)])
        top = np.hstack([c, np.full((4, 1), z1)])
        pb, pt = cam.project_canvas(bottom), cam.project_canvas(top)
        for i in range(4):
            j = (i + 1) % 4
            edge = c[j] - c[i]
            n = np.array([edge[1], -edge[0], 0.0])
            n /= np.linalg.norm(n) + 1e-9
            mid = np.array([*(c[i] + c[j]) / 2, (z0 + z1) / 2])
            if np.dot(n, cam.C - mid) <= 0:
                continue
            lam = max(0.0, float(np.dot(n, -light)))
            col = np.clip(base * (0.55 + 0.45 * lam), 0, 255)
            quad = np.array([pb[i], pb[j], pt[j], pt[i]])
            cv2.fillConvexPoly(canvas, np.round(quad * 16).astype(np.int32), col.tolist(), cv2.LINE_AA, 4)
            if f.sprite.startswith("card:") and f.thickness > 1.0:
                # Card edges in a stack: faint lines every few cards.
                for k in np.arange(0.9, f.thickness, 0.9):
                    zz = -(f.z + k)
                    q = cam.project_canvas(np.array([[*c[i], zz], [*c[j], zz]]))
                    cv2.line(canvas, tuple(np.round(q[0] * 16).astype(int)), tuple(np.round(q[1] * 16).astype(int)),
                             (col * 0.82).tolist(), 1, cv2.LINE_AA, 4)

    def _flat_shadow(self, mask: np.ndarray, scale: float, f: Flat, light: np.ndarray) -> None:
        cam = self.camera
        if f.sprite.startswith(("tile:", "wish:")):
            th = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            c = np.stack([f.centre[0] + f.size[0] / 2 * np.cos(th), f.centre[1] + f.size[0] / 2 * np.sin(th)], 1)
        else:
            c = f.corners()
        topz = f.top
        s = topz / max(light[2], 0.05)
        pushed = c + s * light[:2]
        g = np.vstack([c, pushed])
        p = cam.project_canvas(np.hstack([g, np.zeros((len(g), 1))])) * scale
        hull = cv2.convexHull(np.round(p * 16).astype(np.int32))
        cv2.fillConvexPoly(mask, hull, 255, cv2.LINE_AA, 4)

    # ------------------------------------------------------------------ every frame

    def frame(self, scene: Scene, conditions: Conditions, rng: np.random.Generator, *,
              hands: Sequence[HandPose] = ()) -> Frame:
        """Render one frame: the cached state layer, hands, lens, light, sensor, JPEG."""
        cam = self.camera
        static, truth = self.static_layer(scene, conditions)
        canvas = static
        hand_boxes = []
        if hands:
            canvas = static.copy()
            for pose in hands:
                draw_hand(canvas, cam, pose, conditions.light_dir, conditions.shadow_strength, rng)
                hand_boxes.append(_hand_truth(cam, pose, self.layout))
        m1, m2 = cam.distortion_maps
        img = cv2.remap(canvas, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        img = self._post(img, conditions, rng)
        ok, buf = cv2.imencode(".jpg", img, [int(cv2.IMWRITE_JPEG_QUALITY), int(conditions.jpeg_quality)])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        render = dict(truth)
        render["hands"] = hand_boxes
        render["conditions"] = conditions.to_json()
        return Frame(img, buf.tobytes(), render)

    def _post(self, img: np.ndarray, c: Conditions, rng: np.random.Generator) -> np.ndarray:
        """Light falloff, colour cast, glare, lens blur, sensor noise (all on the output image)."""
        h, w = img.shape[:2]
        scale_px = w / 2304.0
        if c.blur > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), max(0.3, c.blur * scale_px))
        sw, sh = max(8, w // 16), max(8, h // 16)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        nx = (xs + 0.5) / sw * 2 - 1
        ny = ((ys + 0.5) / sh * 2 - 1) * (h / w)
        a = math.radians(c.gradient_angle)
        gain = c.exposure * (1 + c.gradient * 0.5 * (nx * math.cos(a) + ny * math.sin(a)))
        r2 = (nx * nx + ny * ny) / (1 + (h / w) ** 2)
        gain = gain * (1 - c.vignetting * r2 ** 1.25)
        wb = c.white_balance()
        # Smooth maps are computed on a coarse grid and upsampled: out = img * gain + glare.
        gain3 = cv2.resize((gain[..., None] * wb[None, None, :]).astype(np.float32), (w, h),
                           interpolation=cv2.INTER_LINEAR)
        out = cv2.multiply(img, gain3, dtype=cv2.CV_32F)
        if c.glare is not None:
            g = c.glare
            gx, gy = g.x * 2 - 1, (g.y * 2 - 1) * (h / w)
            ga = math.radians(g.angle)
            dx, dy = nx - gx, ny - gy
            u = (dx * math.cos(ga) + dy * math.sin(ga)) / (g.radius * 2 * g.aspect)
            v = (-dx * math.sin(ga) + dy * math.cos(ga)) / (g.radius * 2)
            d2 = u * u + v * v
            glare = g.intensity * (np.exp(-d2 * 1.5) + 0.25 * np.exp(-d2 * 0.2))
            tint = 255.0 * np.clip(wb, 0.8, 1.2) * min(1.0, c.exposure + 0.3)
            glare3 = cv2.resize((glare[..., None] * tint[None, None, :]).astype(np.float32), (w, h),
                                interpolation=cv2.INTER_LINEAR)
            out += glare3
        sigma = c.noise * scale_px ** 0.5 / max(0.25, min(1.0, c.exposure)) ** 0.7
        if sigma > 0:
            add_sensor_noise(out, rng, float(sigma))
        np.clip(out, 0, 255, out=out)
        return out.astype(np.uint8)


#: Gloss values are kept in a uint8 mask as gloss × GLOSS_SCALE (1.3 × 190 < 255).
GLOSS_SCALE = 190.0


def sensor_noise(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """Unit sensor noise (float32, h×w×3) as `add_sensor_noise` draws it."""
    w, h = size
    out = np.zeros((h, w, 3), np.float32)
    add_sensor_noise(out, rng, 1.0)
    return out


def add_sensor_noise(out: np.ndarray, rng: np.random.Generator, sigma: float) -> None:
    """Add sensor noise of standard deviation `sigma` per channel to `out` (float32, h×w×3) in place:
    a new pattern every frame, seeded from the frame's own `rng` (same seed, same bytes). It is
    per-pixel luminance noise plus the blotchier colour noise an ISP's demosaicing and chroma
    denoising leave (drawn at half resolution)."""
    h, w = out.shape[:2]
    cv2.setRNGSeed(int(rng.integers(1, 2 ** 31 - 1)))
    luma = np.empty((h, w, 1), np.float32)
    cv2.randn(luma, 0.0, _LUMA * sigma)
    chroma = np.empty(((h + 1) // 2, (w + 1) // 2, 3), np.float32)
    # Linear upsampling by 2 (weights 3/4 and 1/4 per axis) keeps 0.625² of the variance: drawn larger.
    c = _CHROMA * sigma / 0.625
    cv2.randn(chroma, (0.0, 0.0, 0.0), (c, c, c))
    cv2.add(out, cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR), out)
    np.add(out, luma, out=out)


_LUMA, _CHROMA = 0.8, 0.6   # luminance and colour shares of the noise (0.8² + 0.6² = 1)


def _profile(kind: str):
    if kind == "pawn-small":
        return pawn_profile(False)
    if kind == "pawn-big":
        return pawn_profile(True)
    if kind == "mug":
        return mug_profile()
    raise KeyError(kind)


# ----------------------------------------------------------------------------- truth geometry


def _pts(a: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in a]


def _hand_truth(cam: Camera, pose: HandPose, layout: TableLayout | None = None) -> dict[str, Any]:
    """The hand's box in the output image (its capsules' outline points through the lens) and, with
    the layout, how much of the play area the arm hides from the camera (`over_play_mm2`)."""
    pts = []
    for p0, p1, r0, r1, _ in hand_capsules(pose):
        for p, r in ((p0, r0), (p1, r1)):
            th = np.linspace(0, 2 * np.pi, 8, endpoint=False)
            ring = np.stack([p[0] + r * np.cos(th), p[1] + r * np.sin(th), np.full(8, p[2])], 1)
            pts.append(ring)
    q = cam.project(np.vstack(pts))
    w, h = cam.size
    x0, y0 = np.clip(q.min(0), 0, [w, h])
    x1, y1 = np.clip(q.max(0), 0, [w, h])
    out = {"box": [round(float(x0), 1), round(float(y0), 1), round(float(x1), 1), round(float(y1), 1)],
           "moving": pose.moving, "motion_px": [round(float(v), 1) for v in pose.motion],
           "in_view": bool(x1 > x0 and y1 > y0)}
    if layout is not None:
        out["over_play_mm2"] = round(arm_over_mm2(pose, cam.C, layout.play_regions()), 1)
    return out


def render_truth(scene: Scene, cam: Camera, layout: TableLayout) -> dict[str, Any]:
    """Where every piece of the scene appears in the output image (see docs/formats-extensions.md)."""
    out: dict[str, Any] = {"format": "keltis-render/1", "size": list(cam.size), "camera": cam.to_json()}
    board = layout.board
    if board is not None:
        ids = list(board.stones)
        top = comp.BOARD_THICKNESS
        p = cam.project(np.array([[board.stones[i].x, board.stones[i].y, -top] for i in ids]))
        rim = []
        for i in ids:
            s = board.stones[i]
            th = np.linspace(0, 2 * np.pi, 12, endpoint=False)
            rim.append(np.stack([s.x + s.r * np.cos(th), s.y + s.r * np.sin(th), np.full(12, -top)], 1))
        rp = cam.project(np.vstack(rim)).reshape(len(ids), 12, 2)
        radii = np.linalg.norm(rp - p[:, None, :], axis=2)
        out["stones"] = {i: {"centre": _pts(p[k:k + 1])[0], "radius_px": round(float(radii[k].min()), 2)}
                         for k, i in enumerate(ids)}
        W, H = board.size_mm
        out["board"] = {"corners": _pts(cam.project(np.array([[0, 0, -top], [W, 0, -top], [W, H, -top], [0, H, -top]])))}
    items = []
    cards = []
    flats = scene.flats
    w_img, h_img = cam.size

    def in_image(q: np.ndarray) -> bool:
        return bool(np.all((q[:, 0] >= 0) & (q[:, 0] <= w_img - 1) & (q[:, 1] >= 0) & (q[:, 1] <= h_img - 1)))

    # The image outline of every everyday thing, to tell which markers one of them covers.
    things = []
    for f in flats:
        if (f.truth or {}).get("kind") == "distractor":
            c = f.corners()
            things.append(np.vstack([np.hstack([c, np.full((4, 1), -f.z)]), np.hstack([c, np.full((4, 1), -f.top)])]))
    for t in scene.turned:
        if (t.truth or {}).get("kind") == "distractor":
            v = revolve(tuple(_profile(t.kind)), 16).reshape(-1, 3)
            things.append(np.stack([v[:, 0] + t.position[0], v[:, 1] + t.position[1], -(v[:, 2] + t.base)], 1))
    thing_hulls = [cv2.convexHull(cam.project(p).astype(np.float32)) for p in things if np.all(cam.depth(p) > 1)]
    covers = [(k, f) for k, f in enumerate(flats)]
    for k, f in enumerate(flats):
        t = f.truth or {}
        kind = t.get("kind")
        quad = _pts(cam.project(np.hstack([f.corners(), np.full((4, 1), -f.top)])))
        if kind == "card" or kind == "discard" or kind == "wish-card":
            entry = dict(t)
            entry["quad"] = quad
            entry["in_view"] = in_image(np.array(quad))
            if kind == "card":
                entry["numerals"] = {}
                entry["numeral_visible"] = {}
                for name, (bx, by, bw, bh) in comp.NUMERAL_BOXES.items():
                    box = np.array([[bx, by], [bx + bw, by], [bx + bw, by + bh], [bx, by + bh]])
                    wpts = f.to_world(box)
                    entry["numerals"][name] = _pts(cam.project(np.hstack([wpts, np.full((4, 1), -f.top)])))
                    entry["numeral_visible"][name] = round(_visible_fraction(f, (bx, by, bw, bh), flats[k + 1:]), 3)
            cards.append(entry)
        elif kind == "marker":
            half = t["size"] / 2
            x, y = f.centre
            corners = np.array([[x - half, y - half, -f.top], [x + half, y - half, -f.top],
                                [x + half, y + half, -f.top], [x - half, y + half, -f.top]])
            q = cam.project(corners)
            quiet = f.corners()
            qz = cv2.convexHull(cam.project(np.hstack([quiet, np.full((4, 1), -f.top)])).astype(np.float32))
            covered = any(cv2.intersectConvexConvex(qz, h)[0] > 0.5 for h in thing_hulls)
            items.append({"kind": "marker", "id": t["id"], "corners": _pts(q),
                          "in_view": in_image(cam.project(np.hstack([quiet, np.full((4, 1), -f.top)]))),
                          "covered": covered})
        elif kind in ("tile", "wish-pile", "wish-held", "draw-pile", "distractor"):
            entry = dict(t)
            entry["centre"] = _pts(cam.project(np.array([[f.centre[0], f.centre[1], -f.top]])))[0]
            entry["quad"] = quad
            items.append(entry)
    pawns = []
    for t in scene.turned:
        prof = _profile(t.kind)
        verts = revolve(tuple(prof), 12).reshape(-1, 3)
        w = np.stack([verts[:, 0] + t.position[0], verts[:, 1] + t.position[1], -(verts[:, 2] + t.base)], 1)
        q = cam.project(w)
        base = cam.project(np.array([[t.position[0], t.position[1], -t.base]]))[0]
        topz = max(p[0] for p in prof)
        tip = cam.project(np.array([[t.position[0], t.position[1], -(t.base + topz)]]))[0]
        entry = dict(t.truth or {})
        entry.update(base=_pts([base])[0], top=_pts([tip])[0],
                     box=[round(float(v), 1) for v in (*q.min(0), *q.max(0))])
        if entry.get("kind") == "pawn":
            pawns.append(entry)
        else:
            items.append(entry)
    out["cards"] = cards
    out["pawns"] = pawns
    out["items"] = items
    out["seats"] = {s: _pts(cam.project(np.hstack([fr.corners(), np.zeros((4, 1))]))) for s, fr in layout.frames.items()}
    return out


def _visible_fraction(card: Flat, box: tuple[float, float, float, float], later: list[Flat]) -> float:
    """Share of a numeral box on `card` not covered by pieces drawn after it (pawns and hands aside)."""
    bx, by, bw, bh = box
    gx, gy = np.meshgrid(np.linspace(bx + 0.5, bx + bw - 0.5, 7), np.linspace(by + 0.5, by + bh - 0.5, 5))
    pts = card.to_world(np.stack([gx.ravel(), gy.ravel()], 1))
    free = np.ones(len(pts), bool)
    cx, cy = card.centre
    for f in later:
        if math.hypot(f.centre[0] - cx, f.centre[1] - cy) > 120:
            continue
        o = f.to_object(pts)
        inside = (o[:, 0] >= 0) & (o[:, 0] <= f.size[0]) & (o[:, 1] >= 0) & (o[:, 1] <= f.size[1])
        free &= ~inside
    return float(free.mean())
