"""Stage: white balance and exposure from the board's known art, and what differs from it.

The board view (vision.geometry) of a frame is divided by a smooth per-channel gain map: in every
cell of `cell_mm` the median ratio of the view to the board's art (components folder), so the lamp's
colour, the exposure, a brightness gradient and vignetting all cancel and the pieces' colours can be
compared with the art's colours. Pieces cover only part of a cell, so the median ignores them.

`difference(config, normalised, expected)` is the per-pixel evidence that something stands on the
board where the art (with the tiles read) is expected: a chroma change, or a brightness change
beyond what a pawn's shadow does.

Run alone: `python -m vision.appearance FRAME.jpg --overlay out.jpg` (normalised view | difference).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AppearanceConfig:
    """Every threshold of the normalisation and of the difference map."""

    cell_mm: float = 40.0           # gain map cell (the lamp's gradient is much smoother than this)
    offset: float = 12.0            # added before logs: keeps dark pixels' noise from dominating
    quantiles: tuple[float, float] = (20.0, 80.0)   # contrast measured between these percentiles
    min_spread: float = 30.0        # art cells flatter than this (8-bit levels) do not measure contrast
    chroma_min: float = 0.30        # log-chroma distance that marks a pixel as "not the art"
    dark_ratio: float = 0.42        # darker than this fraction of the art: not a shadow (shadows keep >= ~0.4)
    bright_ratio: float = 1.45      # brighter than this: something stands there
    art_blur: float = 1.0           # sigma (frame pixels) of the frame's own blur: lens, demosaicing, JPEG
    blur_px: int = 3                # box blur before comparing (noise, JPEG, sub-pixel misalignment)


DEFAULT_CONFIG = AppearanceConfig()


_ART_QUANTILES: dict[int, tuple[Any, Any, Any]] = {}


def block_percentiles(x: Any, qs: tuple[float, ...]) -> Any:
    """np.percentile(x, qs, axis=2) (linear interpolation) by one sort: numpy's general percentile
    costs ~1 ms per frame here on a few hundred small cells, the sort a tenth of that."""
    import numpy as np

    s = np.sort(x, axis=2)
    n = s.shape[2]
    out = []
    for q in qs:
        pos = q / 100.0 * (n - 1)
        i = min(int(np.floor(pos)), n - 1)
        j = min(i + 1, n - 1)
        f = pos - i
        out.append(s[:, :, i] + (s[:, :, j] - s[:, :, i]) * f)
    return np.stack(out)


@dataclass(eq=False)
class NormaliseBuffers:
    """The per-frame arrays of one board view's normalisation, allocated once per registration (one
    reader's; not shared between threads): fresh 6 MB arrays every frame cost page faults, and how
    much depends on the allocator's history (~7 or ~11 ms for this stage at 2304x1296)."""

    view_f: Any     # the view as float32
    gain: Any       # HxWx3 float32 gain map
    offset: Any     # HxWx3 float32 offset map
    norm: Any       # the normalised view, then (normalised_log) its log
    log_norm: Any   # the log, box-blurred


def normalise_buffers(shape: tuple[int, ...]) -> NormaliseBuffers:
    """Buffers for views of `shape` (H, W, 3)."""
    import numpy as np

    h, w = shape[:2]
    return NormaliseBuffers(*(np.empty((h, w, 3), np.float32) for _ in range(5)))


def _buffers_for(view: Any, buffers: NormaliseBuffers | None) -> NormaliseBuffers:
    if buffers is None or buffers.view_f.shape != (view.shape[0], view.shape[1], 3):
        return normalise_buffers(view.shape)
    return buffers


def _as_float(view: Any, buffers: NormaliseBuffers) -> Any:
    import numpy as np

    if view is buffers.view_f:
        return view
    np.copyto(buffers.view_f, view)
    return buffers.view_f


def _nanmedian_columns(x: Any) -> Any:
    """np.nanmedian(x, axis=0) of a few hundred values (the same values; np.nanmedian's masked arrays
    cost ~0.1 ms a frame)."""
    import numpy as np

    out = np.empty(x.shape[1], np.result_type(x, np.float64) if x.dtype.kind != "f" else x.dtype)
    for c in range(x.shape[1]):
        col = x[:, c]
        col = col[~np.isnan(col)]
        out[c] = np.median(col) if col.size else np.nan
    return out


def gain_map(config: AppearanceConfig, view: Any, art: Any, ppm: float,
             buffers: NormaliseBuffers | None = None) -> tuple[Any, Any]:
    """Per-channel gain and offset maps (HxWx3 float32 each): view ≈ gain · art + offset.

    The offset is the veil a glossy board's glare (or haze) adds; the gain the lamp's colour and
    brightness. Both come from robust statistics per cell (quantiles of the view against the same
    quantiles of the art), so the pieces, a minority of every cell, do not move them. With `buffers`
    the maps are written into buffers.gain and buffers.offset (and the float view into view_f)."""
    import cv2
    import numpy as np

    buffers = _buffers_for(view, buffers)
    h, w = view.shape[:2]
    step = max(1, int(round(4.0 * ppm)))
    sv = cv2.resize(_as_float(view, buffers), (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_AREA)
    n = max(2, int(round(config.cell_mm / 4.0)))
    gh, gw = max(1, sv.shape[0] // n), max(1, sv.shape[1] // n)

    def blocks(x):
        return x[:gh * n, :gw * n].reshape(gh, n, gw, n, 3).transpose(0, 2, 1, 3, 4).reshape(gh, gw, n * n, 3)

    lo, hi = config.quantiles
    qv = block_percentiles(blocks(sv), (lo, 50, hi))
    # the art's quantiles are the same every frame of a registration: computed once
    key = (sv.shape, n, lo, hi)
    cached = _ART_QUANTILES.get(id(art))
    if cached is None or cached[0] is not art or cached[1] != key:
        sa = cv2.resize(art.astype(np.float32), (sv.shape[1], sv.shape[0]), interpolation=cv2.INTER_AREA)
        cached = (art, key, np.percentile(blocks(sa), [lo, 50, hi], axis=2))
        _ART_QUANTILES.clear()   # one registration's art at a time
        _ART_QUANTILES[id(art)] = cached
    qa = cached[2]
    spread_a = qa[2] - qa[0]
    gain = (qv[2] - qv[0]) / np.maximum(spread_a, 1.0)
    # cells whose art is too flat to measure contrast: the median ratio of the whole board
    glob = np.median(((qv[1] + 1) / (qa[1] + 1)).reshape(-1, 3), axis=0)
    weak = spread_a < config.min_spread
    gain = np.where(weak, np.nan, gain)
    g_fill = _nanmedian_columns(gain.reshape(-1, 3)) if np.isfinite(gain).any() else glob
    g_fill = np.where(np.isfinite(g_fill), g_fill, glob)
    gain = np.where(np.isfinite(gain), gain, g_fill)
    gain = np.clip(gain, 0.05, 10.0)
    offset = qv[1] - gain * qa[1]
    offset = np.clip(offset, -40.0, 200.0)
    g = cv2.resize(gain.astype(np.float32), (w, h), dst=buffers.gain, interpolation=cv2.INTER_LINEAR)
    o = cv2.resize(offset.astype(np.float32), (w, h), dst=buffers.offset, interpolation=cv2.INTER_LINEAR)
    return g.reshape(h, w, 3), o.reshape(h, w, 3)


def normalise(config: AppearanceConfig, view: Any, art: Any, ppm: float,
              buffers: NormaliseBuffers | None = None) -> tuple[Any, Any]:
    """(view in the art's colours (float32), (gain, offset) maps). With `buffers` (normalise_buffers,
    kept per registration) nothing large is allocated: the results are the buffers' arrays, valid until
    their next use."""
    import cv2

    buffers = _buffers_for(view, buffers)
    g, o = gain_map(config, view, art, ppm, buffers)
    # cv2's element-wise operations (the same values as numpy's, ~20 % faster on this size)
    x = cv2.subtract(buffers.view_f, o, dst=buffers.norm)
    # cv2.max on the one-channel view of the same memory (a scalar there means every value; np.maximum
    # takes three times as long)
    flat = x.reshape(x.shape[0], -1)
    cv2.max(flat, 0.0, dst=flat)
    # no floor on the gain needed: the cells' gains are clipped to >= 0.05 and bilinear
    # interpolation stays within its nodes' range
    return cv2.divide(x, g, dst=x), (g, o)


def log_image(config: AppearanceConfig, img: Any, out: Any = None) -> Any:
    import cv2
    import numpy as np

    # cv2.log: numpy's values to a float32 ulp, a quarter faster on the board view
    if out is None:
        return cv2.log(img.astype(np.float32) + np.float32(config.offset))
    np.add(img, np.float32(config.offset), out=out)
    return cv2.log(out, dst=out)


def normalised_log(config: AppearanceConfig, view: Any, art: Any, ppm: float,
                   buffers: NormaliseBuffers | None = None) -> tuple[Any, Any]:
    """(the normalised view's log, box-blurred by `blur_px` as the stages compare it, (gain, offset)):
    normalise then log_image, in `buffers` (see normalise)."""
    import cv2

    buffers = _buffers_for(view, buffers)
    norm, gain = normalise(config, view, art, ppm, buffers)
    log_norm = log_image(config, norm, out=norm)
    if config.blur_px > 1:
        log_norm = cv2.blur(log_norm, (config.blur_px, config.blur_px), dst=buffers.log_norm)
    return log_norm, gain


def difference(config: AppearanceConfig, log_norm: Any, log_expected: Any) -> Any:
    """A 0/1 float32 map: 1 where the normalised view is not what the art expects (see module doc)."""
    import cv2
    import numpy as np

    d = log_norm - log_expected
    if config.blur_px > 1:
        d = cv2.blur(d, (config.blur_px, config.blur_px))
    lum = d.mean(axis=2)
    chroma = np.sqrt(((d - lum[..., None]) ** 2).sum(axis=2))
    fg = (chroma > config.chroma_min) | (lum < np.log(config.dark_ratio)) | (lum > np.log(config.bright_ratio))
    return fg.astype(np.float32)


def prepare_view(geometry_config: Any, config: AppearanceConfig, calibration: Any, registration: Any, board: Any,
                 components: Any) -> tuple[Any, Any, Any, Any]:
    """(pose, board view, board art in the view, its log, the blur (view px) that matches the frame's
    resolution) for one registration (done once)."""
    import cv2
    import numpy as np

    from .components import ComponentsError
    from .geometry import board_view, estimate_pose

    pose = estimate_pose(geometry_config, calibration, registration)
    view = board_view(geometry_config, pose, board.size_mm, registration.image_size)
    art_img = components.image(f"board-{board.name}")
    if art_img is None:
        raise ComponentsError(f"no art for board {board.name!r} (board-{board.name}.png)",
                              source=str(components.folder))
    art = cv2.resize(art_img[0], view.size_px, interpolation=cv2.INTER_AREA)
    # the frame resolves the board more coarsely than the art: blur the art to the frame's resolution
    bw, bh = board.size_mm
    (x0, y0), (x1, y1) = pose.project([(bw / 2, bh / 2, -geometry_config.board_thickness_mm),
                                       (bw / 2 + 10, bh / 2, -geometry_config.board_thickness_mm)])
    frame_ppm = float(np.hypot(x1 - x0, y1 - y0)) / 10.0
    sigma = config.art_blur * view.ppm / max(frame_ppm, 0.2)
    if sigma > 0.3:
        art = cv2.GaussianBlur(art, (0, 0), sigma)
    return pose, view, art, log_image(config, art), sigma


def stage_view(args: Any) -> tuple[Any, ...] | None:
    """For a stage's command line: (image, calibration, board, pose, view, art, log_art, log_norm, components)."""
    import cv2

    from .components import load_components
    from .geometry import DEFAULT_CONFIG as GEOMETRY
    from .stagecli import load_stage_inputs

    inputs = load_stage_inputs(args)
    if inputs is None:
        return None
    image, cal, board, reg = inputs
    if not reg.ok or board is None:
        print(f"{args.image}: no board registered: {reg.reason}", file=sys.stderr)
        return None
    comps = load_components(args.components)
    pose, view, art, log_art, sigma = prepare_view(GEOMETRY, DEFAULT_CONFIG, cal, reg, board, comps)
    norm, _g = normalise(DEFAULT_CONFIG, view.warp(image), art, view.ppm)
    log_norm = log_image(DEFAULT_CONFIG, norm)
    if DEFAULT_CONFIG.blur_px > 1:
        log_norm = cv2.blur(log_norm, (DEFAULT_CONFIG.blur_px, DEFAULT_CONFIG.blur_px))
    return image, cal, board, pose, view, art, log_art, log_norm, comps, norm, sigma


def main(argv: list[str] | None = None) -> int:
    """Run the normalisation and the difference map alone on one frame."""
    import cv2
    import numpy as np

    from .stagecli import stage_parser

    args = stage_parser("vision.appearance", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, norm, _sigma = got
    fg = difference(DEFAULT_CONFIG, log_norm, log_art)
    print(f"difference to the bare board's art: {fg.mean():.3f} of the board")
    if args.overlay:
        out = np.hstack([np.clip(norm, 0, 255).astype(np.uint8), cv2.cvtColor((fg * 255).astype(np.uint8),
                                                                               cv2.COLOR_GRAY2BGR)])
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
