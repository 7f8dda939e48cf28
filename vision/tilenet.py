"""Stage: the path tile on every tile spot (or none) by a small learned classifier on one patch per spot.

Once per registration (`build_tile_maps`): each tile spot's square patch of the board view
(`half_mm` each side of the spot's centre, a sample every `step_mm`, the board's axes), and the
art's patches. Per frame (`tile_features`): one remap of the colour-normalised log view into a
mosaic of all spots; in each patch, a residual white-balance error is removed by the median
difference to the art over the patch's corners (outside the tile's disc, where the art shows).
The inputs are that difference and the corrected colour per pixel (as vision.pawnnet's).

The classifier (vision.pawnnet.PatchNet, a small CNN, weights `vision/models/tiles.npz`, trained by
scripts/train_pawns.py) scores every code of both boards' tile sets and "empty"; only the board's
own `tile_set` codes and "empty" are possible answers. A pawn standing on the tile or a shadow
across it are in its training data.

Run alone: `python -m vision.tilenet FRAME.jpg --overlay out.jpg`.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .pawnnet import PatchNet, load_mlp, softmax

EMPTY = "empty"
#: The classifier's classes, in its output order.
CODES = (EMPTY, "clover", "discard", "points-1", "points-2", "points-3", "wish-any", "wish-red", "wish-yellow",
         "wish-pink", "wish-green", "wish-blue")
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "models" / "tiles.npz"


@dataclass(frozen=True)
class TileNetConfig:
    """Patch geometry and confidence of the learned tile reader."""

    weights: str = str(DEFAULT_WEIGHTS)
    step_mm: float = 1.0       # the numerals of points tiles need the frame's full resolution
    half_mm: float = 15.0      # a 25 mm tile and a little of the board around it
    art_ring_mm: float = 13.5  # the residual white balance is measured outside this radius
    sure_margin: float = 0.3   # probability margin to the runner-up for full confidence


DEFAULT_CONFIG = TileNetConfig()


@dataclass(frozen=True, eq=False)
class TileMaps:
    spots: tuple[str, ...]
    shape: tuple[int, int]
    map_x: Any = field(repr=False)
    map_y: Any = field(repr=False)
    art: Any = field(repr=False)        # N x rows x cols x 3 log art
    ring: Any = field(repr=False)       # bool rows x cols: the corners outside the tile


def build_tile_maps(config: TileNetConfig, board: Any, view: Any, log_art: Any) -> TileMaps:
    """Every tile spot's patch in the board view (once per registration)."""
    import cv2
    import numpy as np

    offs = np.arange(-config.half_mm, config.half_mm + 1e-6, config.step_mm)
    gy, gx = np.meshgrid(offs, offs, indexing="ij")
    spots = tuple(board.tile_spots)
    mx = [((board.stones[s].x + gx) * view.ppm - 0.5).astype(np.float32) for s in spots]
    my = [((board.stones[s].y + gy) * view.ppm - 0.5).astype(np.float32) for s in spots]
    map_x, map_y = np.concatenate(mx), np.concatenate(my)
    n, (rows, cols) = len(spots), gx.shape
    art = cv2.remap(log_art.astype(np.float32), map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ring = np.hypot(gx, gy) > config.art_ring_mm
    return TileMaps(spots, (rows, cols), map_x, map_y, art.reshape(n, rows, cols, 3), ring)


def tile_features(maps: TileMaps, log_norm: Any) -> Any:
    """N x F float32 inputs of the classifier, one row per spot of `maps.spots`."""
    import cv2
    import numpy as np

    n = len(maps.spots)
    rows, cols = maps.shape
    patch = cv2.remap(log_norm.astype(np.float32, copy=False), maps.map_x, maps.map_y, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE).reshape(n, rows, cols, 3)
    diff = patch - maps.art
    med = np.median(diff[:, maps.ring], axis=1)[:, None, None, :]
    return np.concatenate([diff - med, patch - med], axis=3).reshape(n, -1).astype(np.float32)


def read_spot_tiles(net: PatchNet, maps: TileMaps, log_norm: Any, tile_set: Iterable[str]
                    ) -> tuple[dict[str, str | None], dict[str, float]]:
    """(code or None per spot, probability margin to the runner-up per spot); only the board's codes."""
    import numpy as np

    allowed = np.array([c == EMPTY or c in set(tile_set) for c in CODES])
    z = net.logits(tile_features(maps, log_norm))
    z = np.where(allowed[None, :], z, -1e9)
    p = softmax(z)
    order = np.argsort(-p, axis=1)
    tiles, margins = {}, {}
    for i, sid in enumerate(maps.spots):
        code = CODES[int(order[i, 0])]
        tiles[sid] = None if code == EMPTY else code
        margins[sid] = float(p[i, order[i, 0]] - p[i, order[i, 1]])
    return tiles, margins


def main(argv: list[str] | None = None) -> int:
    """Run the learned tile stage alone on one frame."""
    from .appearance import stage_view
    from .stagecli import stage_parser
    from .tiles import TileReading, draw_tiles

    args = stage_parser("vision.tilenet", main.__doc__).parse_args(argv)
    got = stage_view(args)
    if got is None:
        return 2
    image, cal, board, pose, view, art, log_art, log_norm, comps, _norm, _sigma = got
    net = load_mlp(DEFAULT_CONFIG.weights)
    if net is None:
        print(f"no classifier weights at {DEFAULT_CONFIG.weights} (scripts/train_pawns.py)", file=sys.stderr)
        return 2
    maps = build_tile_maps(DEFAULT_CONFIG, board, view, log_art)
    tiles, margins = read_spot_tiles(net, maps, log_norm, board.tile_set)
    for sid, code in tiles.items():
        print(f"{sid:5s} {code or '-':12s} margin {margins[sid]:.3f}")
    if args.overlay:
        import cv2

        cv2.imwrite(args.overlay, draw_tiles(image, pose, board, TileReading(tiles, {}, {}, margins, 1.0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
