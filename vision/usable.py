"""Stage: can this frame be read at all? Decided on a small (320×180) image in about a millisecond.

- `too-dark`: the board's brightness relative to its art (its exposure gain) is below `dark_gain`;
  with no registration, the brightest pixels of the frame are below `dark_level`.
- `occluded`: something large that is not the board's art lies over the board: the difference to
  the colour-normalised art (same measure as vision.appearance), opened by a kernel larger than any
  pawn or tile, covers more than `hand_min_area_mm2`. The hand's seat is the side of the board
  where the blob meets the board's edge the most (the arm comes in across that seat's table edge);
  `hands` names it.
- `no-board`: decided by the reader when the markers do not register.

What is precomputed once per registration (`build_usable_model`): where each small-image pixel
lies on the board, the board's art warped into the small image, the board mask and the edge bands.

Not done yet (see docs/vision.md): a hand only over a seat's cards (not over the board) and telling
a moving hand (`motion`) from a still one — every hand is reported as `occluded`.

Run alone: `python -m vision.usable FRAME.jpg --overlay out.jpg` (works on any size; resizes to 320×180).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

SIDE_SEATS = {"top": "north", "bottom": "south", "left": "west", "right": "east"}


@dataclass(frozen=True)
class UsableConfig:
    """Every threshold of the usable-frame decision."""

    size: tuple[int, int] = (320, 180)
    dark_gain: float = 0.13            # board brightness / art brightness below this: too dark
    dark_level: float = 45.0           # without a registration: 99th percentile of grey below this
    offset: float = 12.0
    chroma_min: float = 0.35
    dark_ratio: float = 0.38
    bright_ratio: float = 1.6
    open_mm: float = 34.0              # opening kernel: larger than a pawn's or tile's footprint
    hand_min_area_mm2: float = 2500.0  # a hand's palm is ~ 80 x 90 mm; a tile is 490 mm²
    edge_band_mm: float = 30.0
    quantiles: tuple[float, float] = (20.0, 80.0)  # the board's contrast (a glare's veil lowers it)
    seat_band_mm: tuple[float, float] = (-40.0, 20.0)  # across each seat's far edge (inside -, outside +)
    seat_bin_mm: float = 10.0
    arm_max_mm: float = 220.0          # ... and at most this (a table's edge or a row of cards spans more)
    arm_min_mm: float = 50.0           # an arm crossing a seat's edge is at least this wide
    table_chroma: float = 0.22         # a band pixel this far from the table's colour is not table
    table_lum: float = 0.45


DEFAULT_CONFIG = UsableConfig()


@dataclass(frozen=True, eq=False)
class UsableModel:
    """The small image's view of the board (once per registration)."""

    size: tuple[int, int]
    board_mask: Any = field(repr=False)
    log_art: Any = field(repr=False)
    art_lum: float
    mm_per_px: float
    open_kernel: Any = field(repr=False)
    edge_bands: dict[str, Any] = field(repr=False, default_factory=dict)
    seats: tuple[str, ...] = ()
    seat_bands: dict[str, Any] = field(repr=False, default_factory=dict)   # seat -> (bins x samples) pixel indices


@dataclass(frozen=True)
class UsableVerdict:
    usable: bool
    reason: str | None = None
    hands: list[str | None] | None = None
    anomaly_mm2: float = 0.0
    gain: float | None = None


def build_usable_model(config: UsableConfig, calibration: Mapping[str, Any], registration: Any, board: Any,
                       components: Any) -> UsableModel | None:
    """Precompute the small image's board mask and art (None for the card game: no board art)."""
    import cv2
    import numpy as np

    if board is None:
        return None
    art_img = components.image(f"board-{board.name}")
    if art_img is None:
        return None
    W, H = registration.image_size
    sw, sh = config.size
    sx, sy = W / sw, H / sh
    gx, gy = np.meshgrid((np.arange(sw) + 0.5) * sx - 0.5, (np.arange(sh) + 0.5) * sy - 0.5)
    mm = registration.image_to_board(np.stack([gx.ravel(), gy.ravel()], 1)).reshape(sh, sw, 2).astype(np.float32)
    bw, bh = board.size_mm
    inside = (mm[..., 0] >= 0) & (mm[..., 0] < bw) & (mm[..., 1] >= 0) & (mm[..., 1] < bh)
    art, _alpha = art_img
    ppm = components.board_ppm
    # blur the art to the small image's scale before sampling it
    mm_per_px = float(np.median(np.hypot(*np.gradient(mm[..., 0]))) + 1e-6)
    k = max(1, int(round(mm_per_px * ppm)))
    art_blur = cv2.blur(art, (k, k)) if k > 1 else art
    small_art = cv2.remap(art_blur, mm[..., 0] * ppm - 0.5, mm[..., 1] * ppm - 0.5, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    log_art = np.log(small_art + config.offset).astype(np.float32)
    art_lum = float(np.median(small_art[inside].mean(axis=1))) if inside.any() else 1.0
    ksz = max(3, int(round(config.open_mm / mm_per_px)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ksz, ksz))
    band = config.edge_band_mm
    bands = {
        "north": inside & (mm[..., 1] < band), "south": inside & (mm[..., 1] > bh - band),
        "west": inside & (mm[..., 0] < band), "east": inside & (mm[..., 0] > bw - band)}
    seats = tuple(calibration.get("seats", {}).keys())
    seat_bands = _seat_bands(config, calibration, registration, (sw, sh), (sx, sy))
    return UsableModel((sw, sh), inside, log_art, art_lum, mm_per_px, kernel, bands, seats, seat_bands)


def _seat_bands(config: UsableConfig, calibration: Mapping[str, Any], registration: Any, size: tuple[int, int],
                scale: tuple[float, float]) -> dict[str, Any]:
    """For each seat: small-image pixel indices of a band across its far edge (where the player's arm
    comes in), as bins along the edge x samples across it; -1 where a sample falls outside the image."""
    import math

    import numpy as np

    sw, sh = size
    out = {}
    for seat, rect in calibration.get("seats", {}).items():
        f = math.radians(float(rect.get("facing", 0.0)))
        # toward the player (away from the board) in the board frame: south (facing 0) is +y
        toward = np.array([-math.sin(f), math.cos(f)])
        along = np.array([math.cos(f), math.sin(f)])
        x, y, w, h = (float(rect[k]) for k in ("x", "y", "w", "h"))
        corners = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
        depth_c = corners @ toward
        far = corners[np.argsort(-depth_c)[:2]]            # the two corners of the far edge
        a0, a1 = sorted(far @ along)
        d_far = float(depth_c.max())
        n_bins = max(1, int((a1 - a0) // config.seat_bin_mm))
        lo, hi = config.seat_band_mm
        across = np.arange(lo, hi + 1e-6, 10.0)
        pts = []
        for i in range(n_bins):
            a = a0 + (i + 0.5) * config.seat_bin_mm
            for d in across:
                pts.append(along * a + toward * (d_far + d))
        img = registration.board_to_image(np.array(pts))
        u = np.round((img[:, 0] + 0.5) / scale[0] - 0.5).astype(int)
        v = np.round((img[:, 1] + 0.5) / scale[1] - 0.5).astype(int)
        ok = (u >= 0) & (u < sw) & (v >= 0) & (v < sh)
        idx = np.where(ok, v * sw + u, -1).reshape(n_bins, len(across))
        out[seat] = idx
    return out


def _arm_seats(config: UsableConfig, model: UsableModel, small: Any) -> list[str]:
    """Seats whose far-edge band is crossed by something that is not the table, wider than an arm."""
    import numpy as np

    flat = small.reshape(-1, 3).astype(np.float32)
    logs = np.log(flat + config.offset)
    pools = [idx[idx >= 0] for idx in model.seat_bands.values()]
    pool = np.concatenate(pools) if pools else np.zeros(0, int)
    if len(pool) < 20:
        return []
    # the table's colour from every seat's band together: arms cover a minority of them
    table = np.median(logs[pool], axis=0)
    seats = []
    need = max(1, int(round(config.arm_min_mm / config.seat_bin_mm)))
    for seat, idx in model.seat_bands.items():
        valid = idx >= 0
        if valid.sum() < need:
            continue
        d = logs[np.where(valid, idx, 0)] - table
        lum = d.mean(axis=-1)
        chroma = np.sqrt(((d - lum[..., None]) ** 2).sum(axis=-1))
        odd = (chroma > config.table_chroma) | (np.abs(lum) > config.table_lum)
        frac = np.where(valid, odd, False).sum(axis=1) / np.maximum(valid.sum(axis=1), 1)
        run = best = 0
        flags = frac > 0.5
        for v in flags:
            run = run + 1 if v else 0
            best = max(best, run)
        limit = int(round(config.arm_max_mm / config.seat_bin_mm))
        if need <= best <= limit and flags.sum() <= best + need:
            seats.append(seat)
    return seats


def small_image(config: UsableConfig, image: Any) -> Any:
    import cv2

    if (image.shape[1], image.shape[0]) == tuple(config.size):
        return image
    return cv2.resize(image, config.size, interpolation=cv2.INTER_AREA)


def judge_usable(config: UsableConfig, model: UsableModel | None, image: Any) -> UsableVerdict:
    """The verdict on one frame (any size; it is resized to `config.size` first)."""
    small = small_image(config, image)
    return judge_small(config, model, small)


def judge_small(config: UsableConfig, model: UsableModel | None, small: Any) -> UsableVerdict:
    """The verdict on a frame already at `config.size` (the part the 2 ms budget covers)."""
    import cv2
    import numpy as np

    if model is None:
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        if float(np.percentile(grey, 99)) < config.dark_level:
            return UsableVerdict(False, "too-dark")
        return UsableVerdict(True)
    inside = model.board_mask
    px = small[inside].astype(np.float32)
    if len(px) == 0:
        return UsableVerdict(True)
    art_px = np.exp(model.log_art[inside]) - config.offset
    lo, hi = config.quantiles
    qv = np.percentile(px, [lo, 50, hi], axis=0)
    qa = np.percentile(art_px, [lo, 50, hi], axis=0)
    gain_c = (qv[2] - qv[0]) / np.maximum(qa[2] - qa[0], 1.0)
    off_c = qv[1] - gain_c * qa[1]
    gain = float(np.median(px.mean(axis=1))) / max(model.art_lum, 1.0)
    if gain < config.dark_gain:
        return UsableVerdict(False, "too-dark", gain=gain)
    arms = _arm_seats(config, model, small)
    if arms:
        return UsableVerdict(False, "occluded", list(arms), gain=gain)
    norm = np.maximum(small.astype(np.float32) - off_c, 0) / np.maximum(gain_c, 1e-3)
    d = np.log(norm + config.offset) - model.log_art
    lum = d.mean(axis=2)
    chroma = np.sqrt(((d - lum[..., None]) ** 2).sum(axis=2))
    anomaly = ((chroma > config.chroma_min) | (lum < np.log(config.dark_ratio)) | (lum > np.log(config.bright_ratio)))
    anomaly = (anomaly & inside).astype(np.uint8)
    opened = cv2.morphologyEx(anomaly, cv2.MORPH_OPEN, model.open_kernel)
    area = float(opened.sum()) * model.mm_per_px ** 2
    if area < config.hand_min_area_mm2:
        return UsableVerdict(True, anomaly_mm2=area, gain=gain)
    # whose arm: the board side the blob touches most
    best, best_n = None, 0
    for seat, band in model.edge_bands.items():
        n = int(opened[band].sum())
        if n > best_n:
            best, best_n = seat, n
    if best is not None and model.seats and best not in model.seats:
        best = None
    return UsableVerdict(False, "occluded", [best], anomaly_mm2=area, gain=gain)


def main(argv: list[str] | None = None) -> int:
    """Run the usable-frame decision alone on one frame."""
    import time

    import cv2

    from calibration.registration import DEFAULT_CONFIG as REG
    from calibration.registration import register_board

    from .components import load_components
    from .stagecli import load_stage_inputs, stage_parser

    args = stage_parser("vision.usable", main.__doc__).parse_args(argv)
    inputs = load_stage_inputs(args)
    if inputs is None:
        return 2
    image, cal, board, reg = inputs
    model = build_usable_model(DEFAULT_CONFIG, cal, reg, board, load_components(args.components)) if reg.ok else None
    small = small_image(DEFAULT_CONFIG, image)
    t0 = time.perf_counter()
    verdict = judge_small(DEFAULT_CONFIG, model, small)
    ms = (time.perf_counter() - t0) * 1000
    if not reg.ok and verdict.usable:
        verdict = UsableVerdict(False, "no-board")
    print(f"usable={verdict.usable} reason={verdict.reason} hands={verdict.hands} "
          f"anomaly={verdict.anomaly_mm2:.0f}mm² gain={verdict.gain} ({ms:.2f} ms)")
    if args.overlay:
        out = cv2.resize(small, (640, 360), interpolation=cv2.INTER_NEAREST)
        cv2.putText(out, f"{verdict.reason or 'usable'} {verdict.hands or ''}", (8, 24), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7, (0, 0, 255), 2)
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
