"""Table calibration files (FORMATS §4): load, validate, migrate, save, and the default layout.

A calibration is kept as a plain dict in the current format ("keltis-calibration/1"), so any
part can read it without this module; `parse_calibration` is the one gate every file passes:
it migrates older layouts, checks every field, and keeps fields it does not know.

Older layouts migrated on load:
- unversioned (no "format", the draft layout used before files were versioned)::

      {"board": "nwnz", "image_size": [w, h], "camera_matrix": [[...]], "dist_coeffs": [...],
       "aruco_dictionary": "DICT_4X4_50", "marker_size": 40,
       "markers": [{"id": 0, "x": -40, "y": -40}] or {"0": [-40, -40], ...},
       "seats": {"south": [x, y, w, h]} or {"south": {"x", "y", "w", "h"}}}

  (seat "facing" then comes from the seat name: south 0, west 90, north 180, east 270.)
- "keltis-calibration/0": the same draft layout with a format field.
A major version above 1 is refused with a message naming the file.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping

from engine.cards import SEATS
from engine.errors import FormatVersionError, MalformedInput
from engine.jsontext import loads

FORMAT = "keltis-calibration/1"
FORMAT_KIND, FORMAT_MAJOR = "keltis-calibration", 1
#: The direction each player looks at the board (FORMATS §4), in degrees.
SEAT_FACING = {"south": 0, "west": 90, "north": 180, "east": 270}
#: OpenCV's predefined ArUco dictionaries (cv2.aruco.DICT_*), checked without importing cv2.
ARUCO_DICTIONARIES = tuple(
    [f"DICT_{n}X{n}_{k}" for n in (4, 5, 6, 7) for k in (50, 100, 250, 1000)]
    + ["DICT_ARUCO_ORIGINAL", "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9", "DICT_APRILTAG_36h10",
       "DICT_APRILTAG_36h11", "DICT_ARUCO_MIP_36h12"])
#: Defaults of the printed marker sheet: where `keltis-cam calibrate markers` tells players to put them.
DEFAULT_DICTIONARY = "DICT_4X4_50"
DEFAULT_MARKER_SIZE = 40.0     # mm, side of the black square
DEFAULT_MARKER_OFFSET = 40.0   # mm, marker centre diagonally outside each board corner (x and y)
DEFAULT_SEAT_GAP = 25.0        # mm between the board edge and a seat's rectangle
DEFAULT_SEAT_DEPTH = 300.0     # mm, how far a seat's rectangle reaches toward the player
#: Where the card game's virtual "board" (the middle of the table) is when no board is in play.
CARD_GAME_AREA = (560.0, 395.0)


class CalibrationError(MalformedInput):
    """A calibration file that breaks FORMATS §4 (names the file and field)."""


# ---------------------------------------------------------------------------- validation

def _number(value: Any, source: str, field: str, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CalibrationError(f"must be a number, got {value!r}", source=source, field=field)
    if positive and value <= 0:
        raise CalibrationError(f"must be > 0, got {value!r}", source=source, field=field)
    return value


def _parse_camera(camera: Any, source: str) -> dict[str, Any] | None:
    if camera is None:
        return None
    if not isinstance(camera, dict):
        raise CalibrationError(f"must be an object or null, got {camera!r}", source=source, field="camera")
    size = camera.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               and v > 0 for v in size)):
        raise CalibrationError(f"must be [width, height] in pixels, got {size!r}", source=source,
                               field="camera.size")
    K = camera.get("K")
    if not (isinstance(K, list) and len(K) == 3 and all(isinstance(r, list) and len(r) == 3 for r in K)):
        raise CalibrationError(f"must be a 3x3 matrix, got {K!r}", source=source, field="camera.K")
    for i, row in enumerate(K):
        for j, v in enumerate(row):
            _number(v, source, f"camera.K[{i}][{j}]")
    if K[0][0] <= 0 or K[1][1] <= 0 or [float(v) for v in K[2]] != [0.0, 0.0, 1.0]:
        raise CalibrationError(f"is not a camera matrix (fx, fy > 0, last row [0, 0, 1]): {K!r}", source=source,
                               field="camera.K")
    dist = camera.get("dist", [0, 0, 0, 0, 0])
    if not (isinstance(dist, list) and len(dist) in (4, 5, 8, 12, 14)):
        raise CalibrationError(f"must be a list of 4, 5, 8, 12 or 14 OpenCV distortion coefficients, got {dist!r}",
                               source=source, field="camera.dist")
    for i, v in enumerate(dist):
        _number(v, source, f"camera.dist[{i}]")
    out = dict(camera)
    out.update(size=list(size), K=[[float(v) for v in row] for row in K], dist=[float(v) for v in dist])
    return out


def _parse_markers(markers: Any, source: str) -> dict[str, Any]:
    if not isinstance(markers, dict):
        raise CalibrationError(f"must be an object with dictionary and items, got {markers!r}", source=source,
                               field="markers")
    name = markers.get("dictionary")
    if name not in ARUCO_DICTIONARIES:
        raise CalibrationError(f"unknown ArUco dictionary {name!r} (known: {', '.join(ARUCO_DICTIONARIES)})",
                               source=source, field="markers.dictionary")
    items = markers.get("items")
    if not isinstance(items, list) or not items:
        raise CalibrationError(f"must be a non-empty list of markers, got {items!r}", source=source,
                               field="markers.items")
    seen: set[int] = set()
    parsed = []
    for i, item in enumerate(items):
        where = f"markers.items[{i}]"
        if not isinstance(item, dict):
            raise CalibrationError(f"must be an object, got {item!r}", source=source, field=where)
        mid = item.get("id")
        if not isinstance(mid, int) or isinstance(mid, bool) or mid < 0:
            raise CalibrationError(f"must be a marker id >= 0, got {mid!r}", source=source, field=f"{where}.id")
        if mid in seen:
            raise CalibrationError(f"marker id {mid} appears twice", source=source, field=f"{where}.id")
        seen.add(mid)
        out = dict(item)
        out.update(id=mid, x=_number(item.get("x"), source, f"{where}.x"),
                   y=_number(item.get("y"), source, f"{where}.y"),
                   size=_number(item.get("size"), source, f"{where}.size", positive=True))
        parsed.append(out)
    result = dict(markers)
    result["items"] = parsed
    return result


def _parse_seats(seats: Any, source: str) -> dict[str, Any]:
    if not isinstance(seats, dict):
        raise CalibrationError(f"must be an object by seat name, got {seats!r}", source=source, field="seats")
    parsed: dict[str, Any] = {}
    for seat, rect in seats.items():
        where = f"seats.{seat}"
        if seat not in SEATS:
            raise CalibrationError(f"unknown seat {seat!r} (seats are {', '.join(SEATS)})", source=source,
                                   field=where)
        if not isinstance(rect, dict):
            raise CalibrationError(f"must be an object with x, y, w, h, facing, got {rect!r}", source=source,
                                   field=where)
        out = dict(rect)
        out.update(x=_number(rect.get("x"), source, f"{where}.x"), y=_number(rect.get("y"), source, f"{where}.y"),
                   w=_number(rect.get("w"), source, f"{where}.w", positive=True),
                   h=_number(rect.get("h"), source, f"{where}.h", positive=True),
                   facing=_number(rect.get("facing", SEAT_FACING[seat]), source, f"{where}.facing"))
        parsed[seat] = out
    # Keep the turn order of engine.cards.SEATS whatever order the file used.
    return {s: parsed[s] for s in SEATS if s in parsed}


def _major_of(data: Mapping[str, Any]) -> int | None:
    """The major version of a calibration object (None for the unversioned draft layout)."""
    fmt = data.get("format")
    if fmt is None:
        return None
    if not isinstance(fmt, str) or "/" not in fmt:
        raise FormatVersionError(f"missing or malformed format {fmt!r}, expected {FORMAT!r}")
    kind, _, version = fmt.partition("/")
    if kind != FORMAT_KIND:
        raise FormatVersionError(f"format {fmt!r} is not a {FORMAT_KIND} file")
    try:
        return int(version.split(".")[0])
    except ValueError:
        raise FormatVersionError(f"malformed format version {fmt!r}") from None


def migrate(data: Mapping[str, Any], source: str = "<calibration>") -> dict[str, Any]:
    """Bring any known calibration layout to the current format (no validation beyond the version)."""
    try:
        major = _major_of(data)
    except FormatVersionError as exc:
        raise FormatVersionError(str(exc), source=source, field="format") from None
    if major == FORMAT_MAJOR:
        return dict(data)
    if major not in (None, 0):
        raise FormatVersionError(f"format version {data.get('format')!r} is not supported (this reader knows "
                                 f"{FORMAT_KIND}/0 and /{FORMAT_MAJOR}); upgrade keltis-cam", source=source,
                                 field="format")
    return _migrate_v0(dict(data), source)


def _migrate_v0(old: dict[str, Any], source: str) -> dict[str, Any]:
    """The unversioned draft layout (see the module docstring) to keltis-calibration/1."""
    new: dict[str, Any] = {"format": FORMAT, "board": old.pop("board", None)}
    old.pop("format", None)
    K, dist, size = old.pop("camera_matrix", None), old.pop("dist_coeffs", None), old.pop("image_size", None)
    camera = old.pop("camera", None)
    if camera is None and K is not None:
        camera = {"size": size, "K": K, "dist": dist if dist is not None else [0, 0, 0, 0, 0]}
    new["camera"] = camera
    dictionary = old.pop("aruco_dictionary", DEFAULT_DICTIONARY)
    default_size = old.pop("marker_size", DEFAULT_MARKER_SIZE)
    markers = old.pop("markers", None)
    if isinstance(markers, dict) and "items" in markers:
        new["markers"] = markers
    else:
        items = []
        if isinstance(markers, dict):  # {"0": [x, y], ...}
            for key, pos in markers.items():
                try:
                    mid = int(key)
                    x, y = pos[0], pos[1]
                except (TypeError, ValueError, IndexError, KeyError):
                    raise CalibrationError(f"draft layout marker {key!r}: expected {{id: [x, y]}}, got {pos!r}",
                                           source=source, field=f"markers.{key}") from None
                items.append({"id": mid, "x": x, "y": y, "size": default_size})
        elif isinstance(markers, list):
            for m in markers:
                items.append({"size": default_size, **m} if isinstance(m, dict) else m)
        new["markers"] = {"dictionary": dictionary, "items": items if markers is not None else markers}
    seats = old.pop("seats", None)
    if isinstance(seats, dict):
        converted = {}
        for seat, rect in seats.items():
            if isinstance(rect, list) and len(rect) == 4:
                rect = {"x": rect[0], "y": rect[1], "w": rect[2], "h": rect[3]}
            if isinstance(rect, dict) and "facing" not in rect and seat in SEAT_FACING:
                rect = {**rect, "facing": SEAT_FACING[seat]}
            converted[seat] = rect
        seats = converted
    new["seats"] = seats
    new.update(old)  # unknown draft fields are kept, as FORMATS asks
    return new


def parse_calibration(data: Any, source: str = "<calibration>") -> dict[str, Any]:
    """Migrate and validate a calibration object; returns it in the current format."""
    if not isinstance(data, dict):
        raise FormatVersionError(f"expected a JSON object, got {type(data).__name__}", source=source)
    cal = migrate(data, source)
    board = cal.get("board")
    if board is not None and not isinstance(board, str):
        raise CalibrationError(f"must be a board name or null, got {board!r}", source=source, field="board")
    out: dict[str, Any] = {"format": FORMAT, "board": board,
                           "camera": _parse_camera(cal.get("camera"), source),
                           "markers": _parse_markers(cal.get("markers"), source),
                           "seats": _parse_seats(cal.get("seats", {}), source)}
    for key, value in cal.items():
        if key not in out:
            out[key] = value
    return out


def load_calibration(path: str | Path) -> dict[str, Any]:
    """Read, migrate and validate a calibration.json; errors name the file and field."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CalibrationError("no such calibration file (write one with `keltis-cam calibrate default "
                               "--board NAME --out FILE`)", source=str(path)) from None
    except OSError as exc:
        raise CalibrationError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    try:
        data = loads(raw, str(path))
    except MalformedInput as exc:
        raise CalibrationError(str(exc)) from None
    return parse_calibration(data, str(path))


def dump_calibration(calibration: Mapping[str, Any]) -> str:
    """The calibration as JSON text: indented, one marker and one seat per line."""
    cal = dict(calibration)
    lines = ["{"]
    keys = list(cal)
    for n, key in enumerate(keys):
        value = cal[key]
        comma = "," if n < len(keys) - 1 else ""
        if key == "markers" and isinstance(value, dict) and isinstance(value.get("items"), list):
            rest = {k: v for k, v in value.items() if k != "items"}
            head = json.dumps(rest)[1:-1]
            items = ",\n".join(f"      {json.dumps(item)}" for item in value["items"])
            lines.append(f'  "markers": {{{head}{", " if head else ""}"items": [\n{items}\n  ]}}{comma}')
        elif key in ("seats", "camera") and isinstance(value, dict):
            inner = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f'  {json.dumps(key)}: {{\n{inner}\n  }}{comma}')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_calibration(calibration: Mapping[str, Any], path: str | Path) -> dict[str, Any]:
    """Validate and write a calibration file atomically; returns what was written."""
    path = Path(path)
    cal = parse_calibration(dict(calibration), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(dump_calibration(cal), encoding="utf-8")
    os.replace(tmp, path)
    return cal


# ---------------------------------------------------------------------------- default layout

def default_calibration(board: Any, *, dictionary: str = DEFAULT_DICTIONARY,
                        marker_size: float = DEFAULT_MARKER_SIZE, marker_offset: float = DEFAULT_MARKER_OFFSET,
                        seat_gap: float = DEFAULT_SEAT_GAP, seat_depth: float = DEFAULT_SEAT_DEPTH) -> dict[str, Any]:
    """The calibration the printed marker sheet sets up, for a board name, a Board, or None (card game).

    Four markers (ids 0-3, clockwise from the north-west corner) lie diagonally just outside the
    board corners; the four seats are rectangles beside the four board edges. No camera model.
    """
    if board is None or board in ("none", "card", "keltis-card"):
        name, (width, height) = None, CARD_GAME_AREA
    else:
        if isinstance(board, (str, os.PathLike)):
            from engine.board import load_board

            board = load_board(board)
        name, (width, height) = board.name, board.size_mm
    o = marker_offset
    corners = [(-o, -o), (width + o, -o), (width + o, height + o), (-o, height + o)]
    items = [{"id": i, "x": _tidy(x), "y": _tidy(y), "size": _tidy(marker_size)} for i, (x, y) in enumerate(corners)]
    g, d = seat_gap, seat_depth
    seats = {
        "south": {"x": 0, "y": height + g, "w": width, "h": d},
        "west": {"x": -g - d, "y": 0, "w": d, "h": height},
        "north": {"x": 0, "y": -g - d, "w": width, "h": d},
        "east": {"x": width + g, "y": 0, "w": d, "h": height},
    }
    seats = {s: {k: _tidy(v) for k, v in r.items()} | {"facing": SEAT_FACING[s]} for s, r in seats.items()}
    seats = {s: seats[s] for s in SEATS}
    return parse_calibration({"format": FORMAT, "board": name, "camera": None,
                              "markers": {"dictionary": dictionary, "items": items}, "seats": seats},
                             source="<default calibration>")


def _tidy(v: float) -> float | int:
    """Whole millimetres as ints, so default files read cleanly."""
    return int(v) if float(v).is_integer() else float(v)


# ---------------------------------------------------------------------------- geometry helpers

def marker_corners_mm(item: Mapping[str, Any]) -> list[tuple[float, float]]:
    """A marker's four corners in the board frame, in ArUco order (top-left, top-right, bottom-right,
    bottom-left as the marker is read), its top edge facing north (negative y)."""
    x, y, h = float(item["x"]), float(item["y"]), float(item["size"]) / 2
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


def camera_model(calibration: Mapping[str, Any], image_size: tuple[int, int] | None = None):
    """(K, dist) as numpy arrays for an image of `image_size` (w, h), or None when the calibration has no
    camera. K is scaled when the image is a resized version of the calibrated size (same aspect)."""
    import numpy as np

    camera = calibration.get("camera")
    if not camera:
        return None
    K = np.array(camera["K"], dtype=np.float64)
    dist = np.array(camera["dist"], dtype=np.float64)
    if image_size is not None:
        cw, ch = camera["size"]
        w, h = image_size
        if (w, h) != (cw, ch):
            sx, sy = w / cw, h / ch
            if abs(sx - sy) > 0.01 * max(sx, sy):
                raise CalibrationError(f"image size {w}x{h} does not match the calibrated camera size {cw}x{ch} "
                                       f"(different aspect ratio; recalibrate the lens for this resolution)",
                                       field="camera.size")
            K = K.copy()
            K[0, :] *= sx
            K[1, :] *= sy
            K[2, :] = (0, 0, 1)
    return K, dist
