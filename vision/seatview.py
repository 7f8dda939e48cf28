"""Seat views: each calibration seat rectangle (FORMATS §4) seen from straight above, in the player's frame.

A seat view is a remap of the frame onto the seat rectangle at `ppm` pixels per mm: its x axis runs
along `u` (toward the player's right), its y axis along `v` (from the board toward the player), so
every card of a row stands upright with its top strip toward y = 0. The rectangle is widened by
`margin_mm` on every side: players do not keep exactly inside it, and a row the rectangle's edge
cuts must still be seen whole. The maps are built once per registration; per frame it is one remap.

    python -m vision.seatview FRAME.jpg --overlay seats.png   # every seat view side by side
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class SeatViewConfig:
    ppm: float = 3.0            # seat view pixels per mm (the frame gives ~1-2 px/mm: this oversamples)
    margin_mm: float = 14.0     # seen beyond the seat rectangle on every side
    half: float = 0.5           # the rows (and wish stones) are looked for on the view at this share of its ppm (0.5:
                                # the halving's maps; another share, e.g. rows at 1.25 px/mm under a 2.0 view, is
                                # remapped from the coarse grid; session 34: coarser shares or ppm all lost rows on dev)


@dataclass(frozen=True)
class SeatFrame:
    """A seat rectangle in the player's own view: origin at the corner nearest the board on the
    player's left, `u` toward the player's right, `v` toward the player; extents along u and v."""

    seat: str
    origin: tuple[float, float]
    u: tuple[float, float]
    v: tuple[float, float]
    width: float
    depth: float
    facing: float

    def point(self, pu: Any, pv: Any) -> tuple[Any, Any]:
        """Seat (u, v) mm → board-frame (x, y) mm (scalars or arrays)."""
        return (self.origin[0] + pu * self.u[0] + pv * self.v[0], self.origin[1] + pu * self.u[1] + pv * self.v[1])

    def local(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Board-frame (x, y) mm → seat (u, v) mm."""
        dx, dy = x - self.origin[0], y - self.origin[1]
        return dx * self.u[0] + dy * self.u[1], dx * self.v[0] + dy * self.v[1]


def seat_frame(seat: str, rect: Mapping[str, Any]) -> SeatFrame:
    """The player's frame of a calibration seat rectangle (facing: south 0, west 90, north 180, east 270)."""
    f = math.radians(float(rect.get("facing", 0.0)))
    u = (math.cos(f), math.sin(f))
    v = (-math.sin(f), math.cos(f))
    x, y, w, h = (float(rect[k]) for k in ("x", "y", "w", "h"))
    corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    du = [c[0] * u[0] + c[1] * u[1] for c in corners]
    dv = [c[0] * v[0] + c[1] * v[1] for c in corners]
    k = min(range(4), key=lambda i: du[i] + dv[i])
    return SeatFrame(seat, corners[k], u, v, max(du) - min(du), max(dv) - min(dv), float(rect.get("facing", 0.0)))


@dataclass(frozen=True, eq=False)
class SeatView:
    """One seat's remap: view pixel (col, row) = seat (u, v) = ((col + .5) / ppm - margin, ...).

    The whole view's maps are not kept (4 seats' of a still are ~30 MB, and the reading never warps a
    whole view): `maps()` works them out from the coarse grid when an overlay or the change test's setup
    asks; rows are found on the half view (`half_x`/`half_y`, kept) and read through `frame_maps`."""

    frame: SeatFrame
    ppm: float
    margin: float
    size: tuple[int, int]       # the whole view (w, h) px
    px_per_mm: float = 0.0      # frame pixels per mm at the seat's centre (what the camera really resolves)
    half_x: Any = field(default=None, repr=False)   # the maps of the view at half its ppm (built once)
    half_y: Any = field(default=None, repr=False)
    coarse: Any = field(default=None, repr=False)   # frame (x, y) of every `coarse_step`-th view pixel (float32)
    coarse_step: int = 8
    half_scale: float = 0.5     # the half view's share of ppm

    def maps(self) -> tuple[Any, Any]:
        """The whole view's maps (float32 frame x, y of every view pixel), worked out afresh."""
        return _view_maps(self.coarse, self.coarse_step, self.size)

    def warp(self, image: Any) -> Any:
        import cv2

        map_x, map_y = self.maps()
        return cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def warp_half(self, image: Any) -> Any:
        """The view at half its ppm, straight from the frame (a quarter of `warp`'s pixels): view
        pixel (c, r) of it is (2c + ½, 2r + ½) of the whole view, the middle of the 2×2 it stands for."""
        import cv2

        if self.half_x is None:
            return cv2.resize(self.warp(image), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        return cv2.remap(image, self.half_x, self.half_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def frame_maps(self, cols: Any, rows: Any, in_place: bool = False) -> tuple[Any, Any]:
        """View pixel coordinates (float32 arrays) → frame pixel coordinates, for a remap of just
        those points from the frame (no whole view warped). `rows` may be one per row of `cols`
        (1-D, its length cols' rows: every pixel of a row at that row); `in_place`: `cols` may be
        overwritten (a copy saved)."""
        import cv2
        import numpy as np

        # the view's maps are the coarse grid interpolated linearly: interpolating them again
        # between view pixels is the same as interpolating the grid there (one small remap)
        k = 1.0 / self.coarse_step
        if in_place:
            cols *= k
        else:
            cols = cols * k
        rows = rows * k
        if rows.ndim == 1 and cols.ndim == 2:
            rows = np.repeat(rows[:, None], cols.shape[1], axis=1)
        xy = cv2.remap(self.coarse, cols, rows, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return xy[..., 0], xy[..., 1]

    def to_view(self, pu: Any, pv: Any) -> tuple[Any, Any]:
        """Seat mm → view pixel coordinates."""
        return (pu + self.margin) * self.ppm, (pv + self.margin) * self.ppm

    def to_seat(self, col: Any, row: Any) -> tuple[Any, Any]:
        """View pixel coordinates → seat mm."""
        return col / self.ppm - self.margin, row / self.ppm - self.margin

    def to_image(self, pu: Any, pv: Any, registration: Any) -> Any:
        """Seat mm points → frame pixels (N×2)."""
        import numpy as np

        x, y = self.frame.point(np.asarray(pu, np.float64), np.asarray(pv, np.float64))
        return registration.board_to_image(np.stack([np.ravel(x), np.ravel(y)], 1))


def _view_maps(coarse: Any, step: int, size: tuple[int, int]) -> tuple[Any, Any]:
    """A view's maps from its coarse grid: view pixel (i, j) is grid point (i / step, j / step), bilinear
    between grid points."""
    import cv2
    import numpy as np

    w, h = size
    gx = np.repeat((np.arange(w, dtype=np.float32) / step)[None, :], h, 0)
    gy = np.repeat((np.arange(h, dtype=np.float32) / step)[:, None], w, 1)
    img = cv2.remap(coarse, gx, gy, cv2.INTER_LINEAR)
    return img[..., 0].copy(), img[..., 1].copy()


def build_seat_views(config: SeatViewConfig, calibration: Mapping[str, Any], registration: Any,
                     seats: tuple[str, ...] | None = None) -> dict[str, SeatView]:
    """The remap of every seat in play (all of the calibration's when `seats` is None)."""
    import cv2
    import numpy as np

    out: dict[str, SeatView] = {}
    for seat, rect in (calibration.get("seats") or {}).items():
        if seats is not None and seat not in seats:
            continue
        fr = seat_frame(seat, rect)
        m, p = config.margin_mm, config.ppm
        w, h = int(round((fr.width + 2 * m) * p)), int(round((fr.depth + 2 * m) * p))
        # the mapping is smooth: worked out on a coarse grid (every `step` view pixels), then resized
        step = 8
        gw, gh = w // step + 2, h // step + 2
        uu = (np.arange(gw, dtype=np.float64) * step + 0.5) / p - m
        vv = (np.arange(gh, dtype=np.float64) * step + 0.5) / p - m
        gu, gv = np.meshgrid(uu, vv)
        x, y = fr.point(gu, gv)
        coarse = registration.board_to_image(np.stack([x.ravel(), y.ravel()], 1)).reshape(gh, gw, 2)
        coarse = coarse.astype(np.float32)
        # how many frame pixels a millimetre spans at the seat's centre (for resolution reports)
        c = registration.board_to_image(np.array([fr.point(fr.width / 2, fr.depth / 2),
                                                  fr.point(fr.width / 2 + 10, fr.depth / 2)]))
        ppm_img = float(np.hypot(*(c[1] - c[0]))) / 10.0
        mx, my = _view_maps(coarse, step, (w, h))
        # half resolution: linear resizing samples (2c + ½, 2r + ½), the middle of each 2×2
        if config.half == 0.5:
            hw, hh = w // 2, h // 2
            half_x = cv2.resize(mx[:2 * hh, :2 * hw], (hw, hh), interpolation=cv2.INTER_LINEAR)
            half_y = cv2.resize(my[:2 * hh, :2 * hw], (hw, hh), interpolation=cv2.INTER_LINEAR)
        else:
            # half view pixel c stands for whole view pixel (c + 1/2) / half - 1/2
            s_ = config.half
            hw, hh = int(w * s_), int(h * s_)
            hx = np.repeat((((np.arange(hw, dtype=np.float32) + 0.5) / s_ - 0.5) / step)[None, :], hh, 0)
            hy = np.repeat((((np.arange(hh, dtype=np.float32) + 0.5) / s_ - 0.5) / step)[:, None], hw, 1)
            img = cv2.remap(coarse, hx, hy, cv2.INTER_LINEAR)
            half_x, half_y = img[..., 0].copy(), img[..., 1].copy()
        out[seat] = SeatView(fr, p, m, (w, h), ppm_img, half_x, half_y, coarse, step, config.half)
    return out


def main(argv: list[str] | None = None) -> int:
    import cv2
    import numpy as np

    from .stagecli import registered_inputs, stage_parser

    ap = stage_parser("vision.seatview", __doc__)
    args = ap.parse_args(argv)
    loaded = registered_inputs(args)
    if isinstance(loaded, int):
        return loaded
    image, cal, _board, reg = loaded
    views = build_seat_views(SeatViewConfig(), cal, reg)
    tiles = []
    for seat, sv in views.items():
        v = sv.warp(image)
        print(f"{seat}: {v.shape[1]}x{v.shape[0]} view px, the frame resolves {sv.px_per_mm:.2f} px/mm there")
        cv2.putText(v, seat, (8, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 255, 255), 2)
        tiles.append(v)
    if args.overlay and tiles:
        h = max(t.shape[0] for t in tiles)
        out = np.hstack([cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, 4, cv2.BORDER_CONSTANT) for t in tiles])
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
