"""Board registration: find the table markers in a frame and map the board frame (mm) into it.

Two pipeline stages, each a function of (config, image):
- `detect_markers(config, image)`: ArUco markers (id, four corners in image pixels).
- `register_board(config, calibration, image)`: the homography image <- board mm from the
  markers the calibration places (FORMATS §4), with the RMS reprojection error in pixels.
When the calibration knows the camera (K, dist) the marker corners are undistorted first and
the homography maps board mm to *undistorted* pixels; `Registration.board_to_image` and
`image_to_board` hide that and work in the raw image.

With the markers at the four board corners each marker acts almost like a single point, so the
homography can bend to fit a marker laid a few centimetres off its corner; only its own corners
(size and shape) give it away. A grossly misplaced marker makes the registration not ok (per-
marker error), a slightly misplaced one shifts the board a little: `calibrate check` shows it.

`draw_registration` renders the debug overlay `keltis-cam calibrate check` writes.
Run alone: `python -m calibration.registration FRAME.jpg --calibration calibration.json --out overlay.jpg`.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Sequence

from .markers import aruco_dictionary
from .model import camera_model, marker_corners_mm


@dataclass(frozen=True)
class RegistrationConfig:
    """Every threshold of marker detection and board registration."""

    dictionary: str = "DICT_4X4_50"          # used by detect_markers when no calibration says otherwise
    min_markers: int = 2                     # fewer known markers found: no registration
    corner_refinement: str = "subpix"        # none | subpix | contour | apriltag
    adaptive_thresh_win_min: int = 3
    adaptive_thresh_win_max: int = 23
    adaptive_thresh_win_step: int = 10
    min_marker_perimeter_rate: float = 0.02  # of the image's larger side; 40 mm markers seen from ~1.2 m
    detect_max_side: int = 1280              # larger frames are searched downscaled to this, then corners
                                             # are refined at full resolution (4x less work at 2304x1296)
    refine_window: int = 5                   # cornerSubPix half-window at full resolution (px)
    # Small frames (a 480x270 recording: 40 mm markers ~10 px wide, 1.6 px per module after JPEG)
    # are searched upscaled and sharpened, where the contour and bit reading find them; their
    # corners come back to the frame's pixels. Larger frames are searched as they are.
    upscale_below_side: int = 900            # frames whose larger side is smaller are searched upscaled
    upscale_factor: int = 3                  # ... this many times (cubic), then unsharp-masked:
    upscale_sharpen: float = 0.8             # amount of the unsharp mask (0: none)
    small_error_correction_rate: float = 1.0 # ArUco errorCorrectionRate for those (default 0.6): the
                                             # JPEG-blurred bits of a 10-px marker need all of 4x4_50's margin
    # On such a frame two markers place the far board corners badly (their 7-px squares barely fix
    # the tilt), so a marker the first search missed is looked for again where the two put it: a crop
    # around that place, upscaled further.
    small_search_radius_px: int = 32         # half the side of that crop, in frame pixels
    small_search_factor: int = 6             # its upscaling
    # A large frame (a full-resolution still) is searched downscaled to detect_max_side: a camera hung high
    # leaves a 40 mm marker ~45 px wide in a 4608-px still, ~12 px after that, and the search misses it; two
    # markers found then place the board degrees off (session 31: nwnz-4p-83863's phantom pawns). A marker
    # missed there is looked for again at full resolution, in a crop around where the markers found put it.
    large_search: bool = True
    large_search_radius: float = 0.04        # half the side of that crop, as a share of the frame's larger side
    large_search_below: int = 3              # ... only when fewer markers than this were found: three fix the
                                             # homography (RANSAC); with a fourth found this way dev frames read
                                             # no better (dev 83790: one card frame's rows 1 -> 5 errors)
    # The crop search needs min_markers found to place the others. A camera hung 2-2.6 m high leaves a marker
    # ~8 px wide at detect_max_side and often fewer than two are found (session 32: 8 of dev H84040's 37 good
    # frames unregistered, "no-board"); such a frame is searched once more, downscaled less. Not at full
    # resolution: the adaptive threshold's windows (px) are then too small for a marker ~35 px wide, and it
    # found fewer there than at 2304 px (dev H84040: 5 frames unregistered against 2).
    retry_max_side: int = 2304               # 0: no second search
    ransac_px: float = 4.0                   # RANSAC inlier threshold when 3+ markers are found
    max_reprojection_px: float = 2.5         # a marker fitting worse than this (RMS px) makes the registration not ok
    reprojection_reference_side: int = 2304  # ... in a frame this large; larger ones (a full-resolution still)
                                             # allow proportionally more: the same misfit in mm is more pixels


DEFAULT_CONFIG = RegistrationConfig()


@dataclass(frozen=True)
class DetectedMarker:
    """One ArUco marker found in an image: id and corners (4x2, image px, ArUco order TL TR BR BL)."""

    id: int
    corners: Any

    @property
    def centre(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass(frozen=True)
class Registration:
    """Where the board frame lies in one image.

    `homography` maps board mm to (undistorted, when `camera` is known) image pixels, or is None
    when registration failed (`reason` says why). `marker_ids` are the calibration markers used,
    `unknown_ids` markers of the same dictionary the calibration does not place.
    """

    homography: Any
    marker_ids: tuple[int, ...]
    reprojection_error: float | None
    image_size: tuple[int, int]
    camera: Any = None
    reason: str | None = None
    unknown_ids: tuple[int, ...] = ()
    markers: tuple[DetectedMarker, ...] = field(default=(), repr=False)
    max_error: float = DEFAULT_CONFIG.max_reprojection_px
    marker_errors: Mapping[int, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """A usable registration: a homography that fits every marker used within the configured error."""
        return (self.homography is not None and self.reprojection_error is not None
                and max(self.marker_errors.values(), default=self.reprojection_error) <= self.max_error)

    def board_to_image(self, points_mm: Any) -> Any:
        """Board-frame points (Nx2 mm) to raw image pixels (Nx2), distortion applied."""
        import cv2
        import numpy as np

        if self.homography is None:
            raise ValueError(f"no registration: {self.reason}")
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        und = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        if self.camera is None:
            return und
        K, dist = self.camera
        # undistorted pixels -> normalised rays -> distorted pixels
        norm = cv2.undistortPoints(und.reshape(-1, 1, 2), K, None).reshape(-1, 2)
        rays = np.hstack([norm, np.ones((len(norm), 1))])
        out, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, dist)
        return out.reshape(-1, 2)

    def image_to_board(self, points_px: Any) -> Any:
        """Raw image pixels (Nx2) to board-frame mm (Nx2)."""
        import cv2
        import numpy as np

        if self.homography is None:
            raise ValueError(f"no registration: {self.reason}")
        pts = np.asarray(points_px, dtype=np.float64).reshape(-1, 1, 2)
        if self.camera is not None:
            K, dist = self.camera
            pts = cv2.undistortPoints(pts, K, dist, P=K)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def to_json(self) -> dict[str, Any]:
        """A summary for logs and the web page."""
        return {"ok": self.ok, "marker_ids": list(self.marker_ids), "unknown_ids": list(self.unknown_ids),
                "reprojection_error": None if self.reprojection_error is None else round(self.reprojection_error, 3),
                "marker_errors": {str(k): round(v, 3) for k, v in self.marker_errors.items()},
                "image_size": list(self.image_size), "undistorted": self.camera is not None, "reason": self.reason,
                "homography": None if self.homography is None else [[float(v) for v in row]
                                                                     for row in self.homography]}


@dataclass(frozen=True)
class BoardResolution:
    """How many image pixels a board millimetre gets in the registered frame (px per mm, the square root
    of the area scale of the board → image map there, lens included): at the board's centre and at its
    worst corner (the corner farthest from the camera or deepest in the lens's barrel)."""

    centre: float
    worst_corner: float

    def to_json(self) -> dict[str, float]:
        return {"centre": round(self.centre, 3), "worst_corner": round(self.worst_corner, 3)}


def board_resolution(registration: Registration, size_mm: Sequence[float] | None = None) -> BoardResolution | None:
    """The board's resolution in the frame `registration` was made from (None without a homography).
    `size_mm`: the board's (width, height) — the board frame's origin is its top-left corner (FORMATS §1);
    None: the markers' bounding box stands in for the board. Computed once per registration: a few points."""
    import numpy as np

    if registration.homography is None:
        return None
    if size_mm is None:
        pts = np.array([c for m in registration.markers if m.id in registration.marker_ids for c in m.corners], float)
        if not len(pts):
            return None
        box = registration.image_to_board(pts)
        x0, y0 = box.min(0)
        x1, y1 = box.max(0)
    else:
        x0, y0, x1, y1 = 0.0, 0.0, float(size_mm[0]), float(size_mm[1])
    points = [((x0 + x1) / 2, (y0 + y1) / 2), (x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    d = 2.0   # mm: the map is smooth at this scale (a homography and a lens)
    scales = []
    for x, y in points:
        px = registration.board_to_image([(x - d, y), (x + d, y), (x, y - d), (x, y + d)])
        jx, jy = (px[1] - px[0]) / (2 * d), (px[3] - px[2]) / (2 * d)
        scales.append(float(np.sqrt(abs(jx[0] * jy[1] - jx[1] * jy[0]))))
    return BoardResolution(scales[0], min(scales[1:]))


_REFINE = {"none": "CORNER_REFINE_NONE", "subpix": "CORNER_REFINE_SUBPIX", "contour": "CORNER_REFINE_CONTOUR",
           "apriltag": "CORNER_REFINE_APRILTAG"}


@lru_cache(maxsize=8)
def _detector(dictionary: str, config: RegistrationConfig, small: bool = False):
    """One ArucoDetector per (dictionary, config, small frame or not): built once, not per frame."""
    import cv2

    params = cv2.aruco.DetectorParameters()
    if small:
        params.errorCorrectionRate = config.small_error_correction_rate
    params.cornerRefinementMethod = getattr(cv2.aruco, _REFINE[config.corner_refinement])
    params.adaptiveThreshWinSizeMin = config.adaptive_thresh_win_min
    params.adaptiveThreshWinSizeMax = config.adaptive_thresh_win_max
    params.adaptiveThreshWinSizeStep = config.adaptive_thresh_win_step
    params.minMarkerPerimeterRate = config.min_marker_perimeter_rate
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def _grey(image: Any) -> Any:
    import cv2

    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)


def detect_markers(config: RegistrationConfig, image: Any, dictionary: str | None = None,
                   max_side: int | None = None) -> list[DetectedMarker]:
    """All ArUco markers of `dictionary` (default config.dictionary) in a BGR or grey image, by id; a frame
    larger than `max_side` (default config.detect_max_side) is searched downscaled to it."""
    import numpy as np

    import cv2

    grey = _grey(image)
    if max(grey.shape[:2]) < config.upscale_below_side and config.upscale_factor > 1:
        return _detect_small(config, grey, dictionary or config.dictionary)
    scale = min(1.0, (max_side or config.detect_max_side) / max(grey.shape[:2]))
    small = grey if scale >= 1.0 else cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners, ids, _rejected = _detector(dictionary or config.dictionary, config).detectMarkers(small)
    if ids is None:
        return []
    pts = np.concatenate([np.asarray(c, dtype=np.float32).reshape(4, 2) for c in corners])
    if scale < 1.0:
        # back to full-resolution pixel coordinates (pixel centres), then sub-pixel corners there
        pts = (pts + 0.5) / scale - 0.5
        cv2.cornerSubPix(grey, pts.reshape(-1, 1, 2), (config.refine_window, config.refine_window), (-1, -1),
                         (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01))
    found = [DetectedMarker(int(i), pts[4 * k:4 * k + 4].astype(np.float64)) for k, i in enumerate(ids.ravel())]
    return sorted(found, key=lambda m: m.id)


def _detect_small(config: RegistrationConfig, grey: Any, dictionary: str) -> list[DetectedMarker]:
    """detect_markers for a small frame: search it upscaled and sharpened (see RegistrationConfig)."""
    import numpy as np

    import cv2

    f = config.upscale_factor
    big = cv2.resize(grey, None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
    if config.upscale_sharpen > 0:
        blur = cv2.GaussianBlur(big, (0, 0), f)
        big = cv2.addWeighted(big, 1 + config.upscale_sharpen, blur, -config.upscale_sharpen, 0)
    corners, ids, _rejected = _detector(dictionary, config, small=True).detectMarkers(big)
    if ids is None:
        return []
    # (corners are refined sub-pixel in the upscaled image; back to the frame's pixel centres)
    found = [DetectedMarker(int(i), (np.asarray(c, dtype=np.float64).reshape(4, 2) + 0.5) / f - 0.5)
             for c, i in zip(corners, ids.ravel())]
    return sorted(found, key=lambda m: m.id)


def _search_missing(config: RegistrationConfig, calibration: Mapping[str, Any], image: Any,
                    usable: list[DetectedMarker], placed: dict[int, Any], camera: Any,
                    large: bool = False) -> list[DetectedMarker]:
    """Small frames: look again for the calibration's markers not found yet, each in a crop around
    where the markers found place it (see RegistrationConfig.small_search_radius_px); `large`: a frame
    searched downscaled, looked at again at full resolution (RegistrationConfig.large_search)."""
    import cv2
    import numpy as np

    src = np.array([p for m in usable for p in marker_corners_mm(placed[m.id])], dtype=np.float64)
    dst = np.concatenate([m.corners for m in usable]).astype(np.float64)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        return []
    grey = _grey(image)
    h, w = grey.shape[:2]
    r, f = config.small_search_radius_px, config.small_search_factor
    if large:
        r, f = int(round(config.large_search_radius * max(w, h))), 1
    have = {m.id for m in usable}
    out: list[DetectedMarker] = []
    for mid in sorted(set(placed) - have):
        corners = cv2.perspectiveTransform(np.array(marker_corners_mm(placed[mid]), float).reshape(-1, 1, 2), H)
        cx, cy = corners.reshape(-1, 2).mean(axis=0)
        x0, y0 = int(max(0, cx - r)), int(max(0, cy - r))
        x1, y1 = int(min(w, cx + r)), int(min(h, cy + r))
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue  # (predicted outside the frame)
        if large:
            crop = np.ascontiguousarray(grey[y0:y1, x0:x1])
        else:
            crop = cv2.resize(grey[y0:y1, x0:x1], None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
            if config.upscale_sharpen > 0:
                blur = cv2.GaussianBlur(crop, (0, 0), f)
                crop = cv2.addWeighted(crop, 1 + config.upscale_sharpen, blur, -config.upscale_sharpen, 0)
        cs, ids, _ = _detector(calibration["markers"]["dictionary"], config, small=not large).detectMarkers(crop)
        hits = [c for c, i in zip(cs, ids.ravel()) if int(i) == mid] if ids is not None else []
        if len(hits) == 1:
            pts = (np.asarray(hits[0], np.float64).reshape(4, 2) + 0.5) / f - 0.5 + (x0, y0)
            out.append(DetectedMarker(mid, pts))
    return out


def register_board(config: RegistrationConfig, calibration: Mapping[str, Any], image: Any) -> Registration:
    """Register the board frame in `image` from the calibration's markers (see the module docstring)."""
    import cv2
    import numpy as np

    h, w = image.shape[:2]
    camera = camera_model(calibration, (w, h))
    markers_cfg = calibration["markers"]
    placed = {int(item["id"]): item for item in markers_cfg["items"]}
    found = detect_markers(config, image, markers_cfg["dictionary"])
    if (config.retry_max_side > config.detect_max_side and max(w, h) > config.detect_max_side
            and len({m.id for m in found if m.id in placed}) < config.min_markers):
        # (a camera hung high: see RegistrationConfig.retry_max_side) the ids the first search missed
        have = {m.id for m in found}
        found = found + [m for m in detect_markers(config, image, markers_cfg["dictionary"], config.retry_max_side)
                         if m.id not in have]
    # A marker id seen twice (a reflection, a second printed sheet) is ambiguous: use neither.
    counts: dict[int, int] = {}
    for m in found:
        counts[m.id] = counts.get(m.id, 0) + 1
    usable = [m for m in found if m.id in placed and counts[m.id] == 1]
    if (max(w, h) < config.upscale_below_side and config.min_markers <= len(usable) < len(placed)):
        extra = _search_missing(config, calibration, image, usable, placed, camera)
        found = found + extra
        usable = usable + extra
    elif (config.large_search and max(w, h) > config.detect_max_side
          and config.min_markers <= len(usable) < min(len(placed), config.large_search_below)):
        extra = _search_missing(config, calibration, image, usable, placed, camera, large=True)
        found = found + extra
        usable = usable + extra
    unknown = tuple(sorted({m.id for m in found if m.id not in placed}))
    ids = tuple(m.id for m in usable)

    def failed(reason: str) -> Registration:
        return Registration(None, ids, None, (w, h), camera, reason, unknown, tuple(found), config.max_reprojection_px)

    if len(usable) < config.min_markers:
        missing = sorted(set(placed) - set(ids))
        return failed(f"found {len(usable)} of {len(placed)} table markers (need {config.min_markers}); "
                      f"missing ids {missing}")
    src = np.array([p for m in usable for p in marker_corners_mm(placed[m.id])], dtype=np.float64)
    dst = np.concatenate([m.corners for m in usable]).astype(np.float64)
    if camera is not None:
        K, dist = camera
        dst = cv2.undistortPoints(dst.reshape(-1, 1, 2), K, dist, P=K).reshape(-1, 2)
    if len(usable) >= 3:
        H, _mask = cv2.findHomography(src, dst, cv2.RANSAC, config.ransac_px)
    else:
        H, _mask = cv2.findHomography(src, dst, 0)
    if H is None:
        return failed("the markers found do not define a homography (degenerate placement)")
    proj = cv2.perspectiveTransform(src.reshape(-1, 1, 2), H).reshape(-1, 2)
    sq = np.sum((proj - dst) ** 2, axis=1)
    err = float(np.sqrt(np.mean(sq)))
    # Per marker: with one marker per board corner a misplaced marker bends the homography to fit,
    # and only the marker's own corners (its size and shape) give it away.
    per_marker = {mid: float(np.sqrt(np.mean(sq[4 * i:4 * i + 4]))) for i, mid in enumerate(ids)}
    worst = max(per_marker, key=per_marker.get)
    reason = None
    limit = config.max_reprojection_px * max(1.0, max(w, h) / config.reprojection_reference_side)
    if per_marker[worst] > limit:
        reason = (f"marker {worst} fits the others with an error of {per_marker[worst]:.1f} px (limit "
                  f"{limit:g} px): a marker is not where the calibration places it (moved, or the wrong corner)")
    return Registration(H, ids, err, (w, h), camera, reason, unknown, tuple(found), limit, per_marker)


# ---------------------------------------------------------------------------- debug overlay

_SEAT_COLOURS = {"south": (60, 60, 230), "west": (60, 200, 60), "north": (230, 140, 40), "east": (40, 200, 230)}


def _polyline(reg: Registration, pts_mm: Sequence[tuple[float, float]], closed: bool = True, steps: int = 24) -> Any:
    """A board-frame polygon as image pixels, edges sampled so lens distortion bends them correctly."""
    import numpy as np

    pts = list(pts_mm) + ([pts_mm[0]] if closed else [])
    dense = []
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        for s in np.linspace(0.0, 1.0, steps, endpoint=False):
            dense.append((x0 + (x1 - x0) * s, y0 + (y1 - y0) * s))
    dense.append(pts[-1])
    return np.round(reg.board_to_image(dense)).astype(np.int32).reshape(-1, 1, 2)


def draw_registration(image: Any, calibration: Mapping[str, Any], registration: Registration,
                      board: Any = None) -> Any:
    """A copy of `image` showing the markers found, the board outline and stones, and the seat zones."""
    import cv2
    import numpy as np

    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(out.shape[:2]) / 1000.0
    thick = max(1, int(round(2 * scale)))
    font = cv2.FONT_HERSHEY_SIMPLEX
    for m in registration.markers:
        colour = (0, 200, 0) if m.id in registration.marker_ids else (0, 0, 255)
        cv2.polylines(out, [np.round(m.corners).astype(np.int32).reshape(-1, 1, 2)], True, colour, thick)
        cx, cy = m.centre
        cv2.putText(out, str(m.id), (int(cx), int(cy)), font, 0.8 * scale, colour, thick)
    if registration.homography is not None:
        if board is None and calibration.get("board"):
            try:
                from engine.board import bundled_board

                board = bundled_board(calibration["board"])
            except Exception:  # an unknown board name: draw seats and markers only
                board = None
        if board is not None:
            bw, bh = board.size_mm
        elif calibration.get("board") is None:
            from .model import CARD_GAME_AREA

            bw, bh = CARD_GAME_AREA
        else:
            bw = bh = None
        if bw:
            cv2.polylines(out, [_polyline(registration, [(0, 0), (bw, 0), (bw, bh), (0, bh)])], False,
                          (255, 255, 255), thick)
        if board is not None:
            stones = list(board.stones.values())
            centres = registration.board_to_image([(s.x, s.y) for s in stones])
            rims = registration.board_to_image([(s.x + s.r, s.y) for s in stones])
            for (cx, cy), (rx, ry) in zip(centres, rims):
                r = max(2, int(round(np.hypot(rx - cx, ry - cy))))
                cv2.circle(out, (int(round(cx)), int(round(cy))), r, (255, 255, 0), max(1, thick // 2))
        for seat, rect in calibration.get("seats", {}).items():
            x, y, w, h = rect["x"], rect["y"], rect["w"], rect["h"]
            colour = _SEAT_COLOURS.get(seat, (200, 200, 200))
            cv2.polylines(out, [_polyline(registration, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])], False,
                          colour, thick)
            (lx, ly), = registration.board_to_image([(x + w / 2, y + h / 2)])
            cv2.putText(out, seat, (int(lx) - int(40 * scale), int(ly)), font, 1.0 * scale, colour, thick)
    text = (f"markers {list(registration.marker_ids)}  error {registration.reprojection_error:.2f}px"
            if registration.reprojection_error is not None else f"NO REGISTRATION: {registration.reason}")
    colour = (0, 200, 0) if registration.ok else (0, 0, 255)
    cv2.putText(out, text, (int(10 * scale), int(30 * scale)), font, 0.8 * scale, (0, 0, 0), thick + 2)
    cv2.putText(out, text, (int(10 * scale), int(30 * scale)), font, 0.8 * scale, colour, thick)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run registration alone on one image file (a stage on a fixture, from the command line)."""
    import cv2

    from .model import default_calibration, load_calibration

    ap = argparse.ArgumentParser(prog="python -m calibration.registration", description=main.__doc__)
    ap.add_argument("image")
    ap.add_argument("--calibration", help="calibration.json (default: the default layout of --board)")
    ap.add_argument("--board", default="base")
    ap.add_argument("--out", help="write the debug overlay here")
    args = ap.parse_args(argv)
    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        print(f"{args.image}: cannot read image", file=sys.stderr)
        return 2
    cal = load_calibration(args.calibration) if args.calibration else default_calibration(args.board)
    reg = register_board(DEFAULT_CONFIG, cal, image)
    print(reg.to_json())
    if args.out:
        cv2.imwrite(args.out, draw_registration(image, cal, reg))
    return 0 if reg.ok else 1


if __name__ == "__main__":
    sys.exit(main())
