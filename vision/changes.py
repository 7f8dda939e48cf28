"""Stage: which parts of the table changed since they were last read (each seat area, the discard piles).

A settled table is read again when something moved, but a move changes one seat's cards (and the
board, the piles): reading every seat's rows again is work done before. `RegionWatch` keeps, per
region, a coarse colour sample grid of the region as it looked when it was last read (built once per
registration from the seat views' and the table view's remaps, sampled from the frame scaled down by
`average_px`, which averages sensor noise away). A region whose samples changed by more than
`pixel_delta` levels (of 255, in any colour channel) in `min_changed` places, after taking out the
region's overall gain so that a lamp dimming is no change, is read again; the others keep their last
reading. In the table around (the discard piles' region) changed places joined to its outside edge are
left out (`edge_joined_ignored`): an arm resting at the table's edge or reaching in from beyond the
picture is no pile, and a hand over the play area makes the frame unusable before this test runs;
a discard lies apart from the edge once the arm is gone. A reading of the piles taken while such an arm
reaches in (`arm_reading_untrusted`: at least `arm_min_samples` changed samples joined to the edge) may have
missed a pile under or beside it: it does not become the region's reference (the last reading without an arm
stays), and the piles are read again at the next reading. There, too, a changed sample whose channels all
changed by one factor (`light_only_ignored`: a shadow falling or leaving, the hue kept) does not count: a
card brings another hue. Every region is read again at least every
`reread_every` readings, so a change missed once does not stand for long.

    python -m vision.changes BEFORE.jpg AFTER.jpg [--game keltis-card] [--calibration FILE] [--seats ...]
        [--overlay OUT.png]
prints the regions that changed between two frames of one table and draws them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class ChangeConfig:
    """Thresholds of the change test (levels of 0-255 in any colour channel, samples of the coarse grid)."""

    average_px: int = 4         # the frame is scaled down this many times first (area average: noise away)
    sample_mm: float = 2.0      # one sample every this many mm of a seat area (a wish stone spans ~7)
    pile_sample_mm: float = 4.0  # ... of the table around (a discard pile's card spans 14 x 22)
    pixel_delta: float = 22.0   # a sample changed by more than this (after the region's median shift) ...
    min_changed: int = 5        # ... in at least this many places: the region changed
    reread_every: int = 6       # read every region again at least every n readings
    edge_joined_ignored: bool = True   # the table around: changes joined to its outside edge (arms) do not count
    # the table around: a sample whose three channels changed by one factor is a change of the light only — a shadow
    # falling or leaving (an arm's beyond the picture, a player leaning over), no pile; a card laid or discarded
    # brings its stock's white or its field's colour, another hue than the table's (dev 85100: a shadow of 168-1390
    # samples, <= 1 of them left; dev 85101: a new pile of 502, 493 left)
    light_only_ignored: bool = True
    light_hue_log: float = 0.15         # the channels' log(now / before) within this of each other: the hue kept ...
    light_noise: float = 3.0            # ... plus what this many levels of noise make of it in the darker reading's
                                        # darkest channel (a shadow's dark samples are noisy)
    # the table around: a reading of the piles taken while an arm reaches in from the edge (changed samples joined to
    # it, light-only ones left out) may miss a pile under or beside the arm; it does not become the reference (the
    # last trusted one stays) and the piles are read again at the next reading, whatever changed (dev 85011: south's
    # arm at the draw pile hid the pink 6 just discarded; the table after it, the arm gone, looked as that reading's)
    arm_reading_untrusted: bool = True
    arm_min_samples: int = 20           # an arm: at least this many such samples (320 mm2; a pile's card is ~300 samples;
                                        # settled stills without arms, dev 84990/85010-85012/85280: 0-1)


@dataclass(eq=False)
class _Region:
    name: str
    map_x: Any = field(repr=False)      # the sample points in the scaled-down frame, only those inside the frame
    map_y: Any = field(repr=False)      # (and, for the table, where piles may lie), in rows of _BLOCK (_block)
    where: Any = field(repr=False)      # their flat indices in the region's sample grid
    grid: tuple[int, int]               # that grid's shape (rows, columns)
    spread: Any = field(repr=False)     # every 7th sample (the light's shift)
    outside: Any = field(default=None, repr=False)     # the grid's samples next to its outside edge (None: not used)
    reference: Any = field(default=None, repr=False)   # colour samples when last read
    age: int = 0                        # readings since the region was last read
    untrusted: bool = False             # its last reading was taken with an arm in it: read it again next time


class RegionWatch:
    """The regions of one registration and how each looked when last read."""

    def __init__(self, config: ChangeConfig, image_size: tuple[int, int], seat_views: Mapping[str, Any],
                 table_view: Any = None):
        import numpy as np

        self.config = config
        f = float(config.average_px)
        self.size = (max(1, int(image_size[0] // config.average_px)), max(1, int(image_size[1] // config.average_px)))
        self.regions: dict[str, _Region] = {}
        self.last_changed: dict[str, Any] = {}          # per region: its changed samples in the last test
        self.last_arm: dict[str, int] = {}              # per edge region: its changed samples joined to the edge

        def add(name: str, map_x: Any, map_y: Any, ppm: float, sample_mm: float, keep: Any = None,
                edge: bool = False) -> None:
            import cv2

            if getattr(map_x, "ndim", 2) == 3:   # fixed-point maps (cv2.convertMaps): back to pixel positions
                map_x, map_y = cv2.convertMaps(map_x, map_y, cv2.CV_32FC1)
            step = max(1, int(round(sample_mm * ppm)))
            mx = (map_x[::step, ::step] + 0.5) / f - 0.5
            my = (map_y[::step, ::step] + 0.5) / f - 0.5
            inside = (mx >= 0) & (my >= 0) & (mx <= self.size[0] - 1) & (my <= self.size[1] - 1)
            valid = inside.copy()
            outside = None
            if edge:
                # the outside edge: the view's own border and whatever lies beyond the picture (the seats'
                # and the board's holes in the table are inside: an arm over them spoils the frame anyway)
                beyond = ~inside
                beyond[0, :] = beyond[-1, :] = True
                beyond[:, 0] = beyond[:, -1] = True
                outside = cv2.dilate(beyond.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            if keep is not None:
                valid &= keep[::step, ::step] > 0
            if valid.any():
                # only the samples that count are sampled and compared (the table around is ~60 % of its grid)
                where = np.flatnonzero(valid)
                self.regions[name] = _Region(name, _block(mx.ravel()[where]), _block(my.ravel()[where]), where,
                                             valid.shape, np.arange(0, where.size, 7), outside)

        for seat, sv in seat_views.items():
            add(seat, *sv.maps(), sv.ppm, config.sample_mm)
        if table_view is not None:
            add("discards", table_view.map_x, table_view.map_y, table_view.ppm, config.pile_sample_mm, table_view.keep,
                edge=config.edge_joined_ignored)

    def _samples(self, image: Any) -> dict[str, Any]:
        import cv2

        small = box_shrink(image, self.size).astype("float32")
        # each region's samples as one column of colours (n x 1 x 3), cut from the remap's block
        return {name: cv2.remap(small, r.map_x, r.map_y, cv2.INTER_LINEAR).reshape(-1, 1, 3)[:r.where.size]
                for name, r in self.regions.items()}

    def changed(self, image: Any) -> tuple[set[str], dict[str, int]]:
        """The regions to read again in `image` (changed, never read, or due), and how many samples
        changed in each region that has a reference."""
        import numpy as np

        import cv2

        cfg = self.config
        samples = self._samples(image)
        out: set[str] = set()
        counts: dict[str, int] = {}
        self.last_arm = {}
        for name, r in self.regions.items():
            if r.reference is None or r.age + 1 >= cfg.reread_every or r.untrusted:
                out.add(name)
            if r.reference is None:
                continue
            cur = samples[name]
            # the light changed over the whole region: no change (the median gain, per channel: a dimmer
            # lamp darkens a white card more than a black marker)
            ref = r.reference[r.spread]
            gain = np.median(cur[r.spread] / np.maximum(ref, 8.0), axis=0)
            diff = cv2.absdiff(cur, r.reference * gain.astype(np.float32))
            # per colour channel: a yellow card on a cream table differs in blue, hardly in grey
            b, g, red = cv2.split(diff)
            hit = (cv2.max(cv2.max(b, g), red) > cfg.pixel_delta).ravel()
            joined = None
            if r.outside is not None and hit.any():
                apart = _apart_from(r, hit)
                joined = hit & ~apart
                hit = apart
            if r.outside is not None and cfg.light_only_ignored and hit.any():
                # after the edge rule: an arm's skin may keep the table's hue in places, which would cut it
                # into pieces apart from the edge
                at = np.flatnonzero(hit)
                hit[at[_light_only(cfg, cur[at], r.reference[at] * gain.astype(np.float32))]] = False
            if r.outside is not None and cfg.arm_reading_untrusted:
                arm = 0
                if joined is not None and joined.any():
                    at = np.flatnonzero(joined)
                    if cfg.light_only_ignored:   # a shadow reaching in from beyond the picture is no arm
                        at = at[~_light_only(cfg, cur[at], r.reference[at] * gain.astype(np.float32))]
                    arm = int(at.size)
                self.last_arm[name] = arm
            self.last_changed[name] = hit
            counts[name] = int(np.count_nonzero(hit))
            if counts[name] >= cfg.min_changed:
                out.add(name)
        self._last = samples
        return out, counts

    def forget(self) -> None:
        """No region has a reading to compare with any more: the next change test reads them all."""
        for r in self.regions.values():
            r.reference, r.age, r.untrusted = None, 0, False

    def mark_read(self, read: Iterable[str]) -> None:
        """After a reading of the image last given to changed(): `read` were read in it, the others
        kept their readings (one reading older)."""
        read = set(read)
        samples = getattr(self, "_last", {})
        cfg = self.config
        for name, r in self.regions.items():
            if name in read and name in samples:
                if cfg.arm_reading_untrusted and self.last_arm.get(name, 0) >= cfg.arm_min_samples:
                    # read with an arm reaching in: the last trusted look stays the reference, read it again
                    r.age, r.untrusted = 0, True
                else:
                    r.reference, r.age, r.untrusted = samples[name], 0, False
            else:
                r.age += 1


def box_shrink(image: Any, size: tuple[int, int]) -> Any:
    """`image` scaled down to `size` by averaging: INTER_AREA, but a halving first wherever the size halves
    exactly (INTER_LINEAR at exactly half the size is the mean of each 2x2 block, ~3x cheaper on a
    full-resolution still than INTER_AREA over the whole factor)."""
    import cv2

    w, h = image.shape[1], image.shape[0]
    while w % 2 == 0 and h % 2 == 0 and w // 2 >= size[0] and h // 2 >= size[1]:
        w, h = w // 2, h // 2
        image = cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR)
    if (w, h) == tuple(size):
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


#: a region's samples are remapped in rows of this many (cv2.remap takes at most 32767 a row)
_BLOCK = 1024


def _block(values: Any) -> Any:
    """n sample positions as rows of _BLOCK (float32), the last row filled with -1 (outside any picture)."""
    import numpy as np

    cols = min(_BLOCK, max(1, values.size))
    out = np.full(-(-values.size // cols) * cols, -1.0, np.float32)
    out[:values.size] = values
    return out.reshape(-1, cols)


def _light_only(config: ChangeConfig, cur: Any, ref: Any) -> Any:
    """Per sample (n x 1 x 3 colours now and as last read, the region's gain taken out): every channel changed
    by about one factor (darker or brighter, the hue kept): only the light changed there."""
    import numpy as np

    cur, ref = np.maximum(cur.reshape(-1, 3), 4.0), np.maximum(ref.reshape(-1, 3), 4.0)
    ratio = np.log(cur / ref)
    tolerance = config.light_hue_log + config.light_noise / np.minimum(cur, ref).min(1)
    return ratio.max(1) - ratio.min(1) <= tolerance


def _apart_from(region: _Region, hit: Any) -> Any:
    """The changed samples (`hit`, over the region's samples) not joined, 8-connected through changed
    samples, to the region's outside edge."""
    import cv2
    import numpy as np

    grid = np.zeros(region.grid, np.uint8)
    grid.flat[region.where[hit]] = 1
    n, labels = cv2.connectedComponents(grid, connectivity=8)
    if n <= 1:
        return hit
    joined = np.unique(labels[region.outside & (grid > 0)])
    return hit & ~np.isin(labels.ravel()[region.where], joined[joined > 0])


def main(argv: list[str] | None = None) -> int:
    import sys

    import cv2

    from camera.session import FrameError

    from .cards import CardConfig
    from .discards import DiscardConfig, build_table_view
    from .seatview import build_seat_views
    from .stagecli import parse_seats, read_image, registered_inputs, seats_from_truth, stage_parser

    p = stage_parser("vision.changes", __doc__.splitlines()[0])
    p.add_argument("after", help="a later frame of the same table")
    p.add_argument("--game", default="keltis", choices=("keltis", "keltis-card"))
    args = p.parse_args(argv)
    loaded = registered_inputs(args)
    if isinstance(loaded, int):
        return loaded
    before, cal, board, reg = loaded
    try:
        after = read_image(args.after)
    except FrameError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    seats = parse_seats(args.seats) or seats_from_truth(args.image)
    in_play = tuple(seats) if seats else None
    board_size = tuple(board.size_mm) if board is not None and args.game == "keltis" else None
    watch = RegionWatch(ChangeConfig(), reg.image_size, build_seat_views(CardConfig().view, cal, reg, in_play),
                        build_table_view(DiscardConfig(), cal, reg, board_size, in_play))
    watch.changed(before)
    watch.mark_read(watch.regions)
    changed, counts = watch.changed(after)
    for name in watch.regions:
        print(f"{name:<10} {'CHANGED' if name in changed else 'same':<8} {counts.get(name, 0)} samples changed")
    if args.overlay:
        out = after.copy()
        f = watch.config.average_px
        for name, r in watch.regions.items():
            # every third sample of each region (green: the region kept its reading, orange: read again),
            # and every changed sample that counted in red
            colour = (0, 140, 255) if name in changed else (0, 200, 0)
            xs, ys = r.map_x.ravel()[:r.where.size], r.map_y.ravel()[:r.where.size]
            for x, y in zip(xs[::3], ys[::3]):
                cv2.circle(out, (int((x + 0.5) * f), int((y + 0.5) * f)), 1, colour, -1)
            hit = watch.last_changed.get(name)
            if hit is not None:
                for x, y in zip(xs[hit], ys[hit]):
                    cv2.circle(out, (int((x + 0.5) * f), int((y + 0.5) * f)), 3, (0, 0, 255), -1)
        cv2.imwrite(args.overlay, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
