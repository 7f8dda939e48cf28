"""Stage: camera pose and board geometry from the registration (once per registration, not per frame).

`estimate_pose(config, calibration, registration)` recovers where the camera is (cv2.solvePnP on
the table markers' corners). With a lens calibration (calibration `camera`) it uses K and dist;
without one it estimates the focal length from the markers' homography (the two orthogonality
constraints of a planar view, principal point at the image centre, square pixels). That estimate
is only as good as the view is tilted: for a camera looking straight down the focal length and the
camera's height cannot be told apart, so below `min_tilt_for_focal_deg` the prior field of view
`prior_hfov_deg` is used instead (the pose then still fits the markers exactly; only heights above
the table — where a pawn's head appears — scale with the guessed distance).

`board_view(config, pose, board_size, image_size)` precomputes the remap that warps a frame into
the board's top surface seen straight from above (`ppm` pixels per mm), and the camera's nadir and
height in that view: a point `h` mm above the board at board point p appears in the view at
N + (p - N) * H / (H - h) (N the nadir, H the camera's height above the board). Pawn silhouettes
(vision.pawns) are built from that.

Run alone: `python -m vision.geometry FRAME.jpg [--calibration FILE] [--board nwnz] --overlay out.jpg`
draws, for each stone, where the top of a small (25 mm) and a big (50 mm) pawn standing on it appears.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

from calibration.model import camera_model, marker_corners_mm


@dataclass(frozen=True)
class GeometryConfig:
    """Every threshold of pose recovery and the board view."""

    prior_hfov_deg: float = 75.0          # field of view assumed when the focal length cannot be measured
    min_tilt_for_focal_deg: float = 6.0   # below this tilt the marker homography says nothing about f
    focal_range: tuple[float, float] = (0.3, 2.5)   # plausible f as a multiple of the image width
    ppm: float = 1.5                      # pixels per mm of the board view
    board_thickness_mm: float = 3.0       # the board's top lies this far above the table (markers on the table)


DEFAULT_CONFIG = GeometryConfig()


@dataclass(frozen=True, eq=False)
class Pose:
    """The camera: K, dist, rvec, tvec (world = board frame, mm, z down into the table)."""

    K: Any
    dist: Any
    rvec: Any
    tvec: Any
    focal_source: str          # "lens" (calibration), "markers" (estimated), "prior" (assumed field of view)
    reprojection_px: float

    @property
    def centre(self) -> Any:
        """The camera's centre in the world frame (mm; z negative = above the table)."""
        import cv2
        import numpy as np

        R, _ = cv2.Rodrigues(self.rvec)
        return (-R.T @ np.asarray(self.tvec, np.float64).reshape(3)).reshape(3)

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        import cv2
        import numpy as np

        R, _ = cv2.Rodrigues(self.rvec)
        axis = R.T @ np.array([0.0, 0.0, 1.0])
        return float(math.degrees(math.acos(max(-1.0, min(1.0, axis[2])))))

    def project(self, points_xyz: Any) -> Any:
        """World points (Nx3 mm) to raw image pixels (Nx2)."""
        import cv2
        import numpy as np

        pts = np.asarray(points_xyz, np.float64).reshape(-1, 1, 3)
        out, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return out.reshape(-1, 2)

    def to_json(self) -> dict[str, Any]:
        c = self.centre
        return {"focal_px": round(float(self.K[0, 0]), 1), "focal_source": self.focal_source,
                "height_mm": round(float(-c[2]), 1), "tilt_deg": round(self.tilt_deg, 2),
                "reprojection_px": round(self.reprojection_px, 3)}


def _focal_from_homography(H: Any, w: int, h: int) -> float | None:
    """f (px) from a plane's homography with the principal point at the centre (None if unobservable)."""
    import numpy as np

    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], np.float64)
    G = T @ H
    h1, h2 = G[:, 0], G[:, 1]
    a1, b1 = h1[0] * h2[0] + h1[1] * h2[1], -h1[2] * h2[2]
    a2, b2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h2[2] ** 2 - h1[2] ** 2
    den = a1 * a1 + a2 * a2
    if den <= 0:
        return None
    inv_f2 = (a1 * b1 + a2 * b2) / den
    if inv_f2 <= 0:
        return None
    return float(1.0 / math.sqrt(inv_f2))


def estimate_pose(config: GeometryConfig, calibration: Mapping[str, Any], registration: Any) -> Pose:
    """The camera's pose from the registered markers (see the module docstring)."""
    import cv2
    import numpy as np

    if not registration.ok and registration.homography is None:
        raise ValueError(f"no registration: {registration.reason}")
    w, h = registration.image_size
    placed = {int(item["id"]): item for item in calibration["markers"]["items"]}
    by_id = {m.id: m for m in registration.markers}
    obj = np.array([(x, y, 0.0) for mid in registration.marker_ids for x, y in marker_corners_mm(placed[mid])],
                   np.float64)
    img = np.concatenate([by_id[mid].corners for mid in registration.marker_ids]).astype(np.float64)
    cam = camera_model(calibration, (w, h))
    if cam is not None:
        K, dist = cam
        source = "lens"
    else:
        dist = np.zeros(5)
        Hraw, _ = cv2.findHomography(obj[:, :2], img, 0)
        f = _focal_from_homography(Hraw, w, h) if Hraw is not None else None
        lo, hi = config.focal_range
        source = "markers"
        f_prior = (w / 2) / math.tan(math.radians(config.prior_hfov_deg) / 2)
        if f is None or not lo * w <= f <= hi * w:
            f, source = f_prior, "prior"
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)
        if source == "markers":
            # A near-vertical view makes f unobservable: check the tilt the estimate implies.
            ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
            R, _ = cv2.Rodrigues(rvec)
            tilt = math.degrees(math.acos(min(1.0, abs((R.T @ np.array([0, 0, 1.0]))[2]))))
            if tilt < config.min_tilt_for_focal_deg:
                K[0, 0] = K[1, 1] = f_prior
                source = "prior"
    ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise ValueError("solvePnP failed on the table markers")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, rvec, tvec)
    proj, _ = cv2.projectPoints(obj.reshape(-1, 1, 3), rvec, tvec, K, dist)
    err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - img) ** 2, axis=1))))
    return Pose(K, dist, rvec.reshape(3), tvec.reshape(3), source, err)


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board's top surface seen from straight above: remap maps and the parallax model."""

    ppm: float
    size_px: tuple[int, int]
    map1: Any = field(repr=False)
    map2: Any = field(repr=False)
    nadir: tuple[float, float]        # board mm
    height_mm: float                  # camera above the board's top
    inside: Any = field(repr=False)   # bool mask: view pixels that fall inside the image

    def warp(self, image: Any, out: Any = None) -> Any:
        """The frame warped into the view (one cv2.remap with the precomputed maps); into `out` when
        it is given and fits (a buffer kept per registration)."""
        import cv2

        if out is not None and (out.shape[:2] != (self.size_px[1], self.size_px[0]) or out.dtype != image.dtype
                                or out.shape[2:] != image.shape[2:]):
            out = None
        return cv2.remap(image, self.map1, self.map2, cv2.INTER_LINEAR, dst=out, borderMode=cv2.BORDER_REPLICATE)

    def lifted(self, x: float, y: float, h: float) -> tuple[float, float, float]:
        """Where a point `h` mm above board point (x, y) appears in the view: (x', y', scale) in mm."""
        s = self.height_mm / max(self.height_mm - h, 1.0)
        nx, ny = self.nadir
        return nx + (x - nx) * s, ny + (y - ny) * s, s


def board_view(config: GeometryConfig, pose: Pose, board_size_mm: tuple[float, float],
               image_size: tuple[int, int]) -> BoardView:
    """Precompute the view of the board's top surface (see the module docstring)."""
    import cv2
    import numpy as np

    bw, bh = board_size_mm
    vw, vh = int(round(bw * config.ppm)), int(round(bh * config.ppm))
    # project a coarse grid and interpolate: the lens' distortion is smooth, projectPoints on every
    # view pixel would cost ~1 s
    step = 8
    cw, ch = vw // step + 2, vh // step + 2
    xs = (np.arange(cw, dtype=np.float64) * step + 0.5) / config.ppm
    ys = (np.arange(ch, dtype=np.float64) * step + 0.5) / config.ppm
    gx, gy = np.meshgrid(xs, ys)
    z = -config.board_thickness_mm
    pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], 1)
    coarse = pose.project(pts).reshape(ch, cw, 2).astype(np.float32)
    # coarse node j sits at view pixel j*step: interpolate with corners aligned (cv2.resize would not)
    ux, uy = np.meshgrid(np.arange(vw, dtype=np.float32) / step, np.arange(vh, dtype=np.float32) / step)
    img = cv2.remap(coarse, ux, uy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    w, h = image_size
    inside = (img[..., 0] >= 0) & (img[..., 0] <= w - 1) & (img[..., 1] >= 0) & (img[..., 1] <= h - 1)
    map1, map2 = cv2.convertMaps(img[..., 0], img[..., 1], cv2.CV_16SC2)
    c = pose.centre
    return BoardView(config.ppm, (vw, vh), map1, map2, (float(c[0]), float(c[1])), float(z - c[2]), inside)


def pawn_top_points(pose: Pose, stones: Mapping[str, Any], heights: tuple[float, ...] = (25.0, 50.0),
                    board_thickness: float = 3.0) -> dict[str, Any]:
    """Image points of each stone's centre (on the board) and of a pawn's top at each height."""
    import numpy as np

    out = {}
    for sid, s in stones.items():
        pts = [(s.x, s.y, -board_thickness)] + [(s.x, s.y, -board_thickness - hh) for hh in heights]
        out[sid] = pose.project(np.array(pts))
    return out


def draw_geometry(image: Any, pose: Pose, board: Any, board_thickness: float = 3.0) -> Any:
    """Overlay: each stone's centre (cyan), a small pawn's top (yellow) and a big pawn's top (red)."""
    import cv2

    out = image.copy()
    stones = board.stones if board is not None else {}   # the card game: the pose only
    for sid, pts in pawn_top_points(pose, stones, board_thickness=board_thickness).items():
        (bx, by), (sx, sy), (gx, gy) = pts
        cv2.circle(out, (int(bx), int(by)), 4, (255, 255, 0), -1)
        cv2.line(out, (int(bx), int(by)), (int(gx), int(gy)), (0, 0, 255), 1)
        cv2.circle(out, (int(sx), int(sy)), 4, (0, 255, 255), -1)
        cv2.circle(out, (int(gx), int(gy)), 5, (0, 0, 255), 2)
    txt = " ".join(f"{k}={v}" for k, v in pose.to_json().items())
    cv2.putText(out, txt, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4)
    cv2.putText(out, txt, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the geometry stage alone on one frame and print the pose."""
    from .stagecli import load_stage_inputs, stage_parser

    args = stage_parser("vision.geometry", main.__doc__).parse_args(argv)
    inputs = load_stage_inputs(args)
    if inputs is None:
        return 2
    image, cal, board, reg = inputs
    if not reg.ok:
        print(f"{args.image}: no registration: {reg.reason}", file=sys.stderr)
        return 1
    pose = estimate_pose(DEFAULT_CONFIG, cal, reg)
    print(pose.to_json())
    if args.overlay:
        import cv2

        cv2.imwrite(args.overlay, draw_geometry(image, pose, board))
    return 0


if __name__ == "__main__":
    sys.exit(main())
