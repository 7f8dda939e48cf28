"""The ArUco markers of the table and the ChArUco board of lens calibration, as images.

The simulator draws exactly these images, the printed sheet (calibration/sheet.py) prints
exactly these modules, and registration detects them: one definition for all three.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: The ChArUco board printed on the sheet's last page and used by `keltis-cam calibrate lens`.
#: A different dictionary from the table markers, so a ChArUco board lying on the table can never
#: be mistaken for a table marker.
@dataclass(frozen=True)
class CharucoSpec:
    """A ChArUco board: squares across and down, square and marker side in mm, ArUco dictionary."""

    squares_x: int = 7
    squares_y: int = 9
    square_mm: float = 25.0
    marker_mm: float = 18.0
    dictionary: str = "DICT_5X5_100"

    @property
    def size_mm(self) -> tuple[float, float]:
        return self.squares_x * self.square_mm, self.squares_y * self.square_mm


CHARUCO = CharucoSpec()


@lru_cache(maxsize=None)
def aruco_dictionary(name: str):
    """The cv2.aruco dictionary for a name such as "DICT_4X4_50" (ValueError for an unknown name)."""
    import cv2

    key = getattr(cv2.aruco, name, None)
    if key is None:
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(key)


def marker_modules(dictionary: str, marker_id: int) -> Any:
    """The marker as a (n+2)x(n+2) uint8 grid, 0 = black module, 255 = white, black border included."""
    import cv2

    d = aruco_dictionary(dictionary)
    if not 0 <= marker_id < d.bytesList.shape[0]:
        raise ValueError(f"marker id {marker_id} is outside {dictionary} (ids 0-{d.bytesList.shape[0] - 1})")
    cells = d.markerSize + 2
    return cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1)


def marker_image(dictionary: str, marker_id: int, side_px: int, *, quiet_px: int = 0) -> Any:
    """The marker as a square uint8 image of `side_px` (the black square), with an optional white
    quiet zone of `quiet_px` on every side. Module edges are crisp (nearest-neighbour scaling)."""
    import cv2
    import numpy as np

    modules = marker_modules(dictionary, marker_id)
    img = cv2.resize(modules, (side_px, side_px), interpolation=cv2.INTER_NEAREST)
    if quiet_px:
        img = cv2.copyMakeBorder(img, quiet_px, quiet_px, quiet_px, quiet_px, cv2.BORDER_CONSTANT, value=255)
    return np.ascontiguousarray(img)


@lru_cache(maxsize=4)
def charuco_board(spec: CharucoSpec = CHARUCO):
    """The cv2.aruco.CharucoBoard for a spec (lengths in mm)."""
    import cv2

    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), spec.square_mm, spec.marker_mm,
                                  aruco_dictionary(spec.dictionary))


def charuco_image(spec: CharucoSpec = CHARUCO, px_per_mm: float = 4.0, margin_px: int = 0) -> Any:
    """The ChArUco board as a uint8 image at `px_per_mm`, as OpenCV draws it."""
    w, h = spec.size_mm
    size = (int(round(w * px_per_mm)) + 2 * margin_px, int(round(h * px_per_mm)) + 2 * margin_px)
    return charuco_board(spec).generateImage(size, marginSize=margin_px, borderBits=1)
