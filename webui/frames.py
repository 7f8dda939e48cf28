"""Camera pictures for the phones: the latest frame with what was read drawn on it, and the live
view with the registration overlay for the calibration check.

The pipeline's source keeps its latest frame (one capture thread, consumers never block the
camera); this module only reads it. Work is done on request and cached per frame, so thirty phones
asking for the same picture cost one registration and one JPEG encoding. OpenCV is imported lazily.

Every picture is drawn on one long-lived thread (`PAINTER`), never on the server's request
threads: OpenCV's text drawing keeps memory per calling thread that it never gives back, so 48
waitress threads drawing in turn grew the server from ~90 MB to ~380 MB (bench/frame_memory.py).
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

#: Longest side of a picture sent to phones (a Pi frame is 2304 px wide; phones need far less).
MAX_SIDE = 960
JPEG_QUALITY = 80
#: Longest a request waits for its picture to be drawn (a Pi draws one in well under a second).
DRAW_TIMEOUT_SECONDS = 10.0
#: The one thread every picture is drawn on (module docstring); it lives as long as the process.
PAINTER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="keltis-pictures")
#: Frames smaller than this are placeholders, not camera pictures.
MIN_SIDE = 64
#: Pawn colours in BGR, with a contrasting outline.
PAWN_BGR = {"black": (27, 27, 27), "white": (255, 255, 255), "grey": (152, 143, 138), "brown": (43, 90, 139)}
TILE_BGR = {"clover": (60, 200, 60), "points": (0, 215, 255), "wish": (255, 160, 60), "discard": (60, 60, 230)}
CARD_BGR = {"red": (36, 47, 155), "yellow": (0, 180, 224), "pink": (155, 99, 217), "green": (62, 139, 46),
            "blue": (176, 100, 42)}


def latest_frame(pipeline: Any) -> Any | None:
    """The newest frame the pipeline's source delivered (image, timestamp, index, seq), or None."""
    if pipeline is None:
        return None
    getter = getattr(pipeline, "latest_frame", None)
    try:
        if callable(getter):
            frame = getter()
        else:
            source = getattr(pipeline, "source", None)
            frame = source.latest(timeout=0) if source is not None and hasattr(source, "latest") else None
    except Exception:
        log.exception("reading the latest frame failed")
        return None
    image = getattr(frame, "image", None) if frame is not None else None
    if image is None or getattr(image, "ndim", 0) < 2 or min(image.shape[:2]) < MIN_SIDE:
        return None  # no picture, or a placeholder (synthesized sessions carry 8×8 dummy JPEGs)
    return frame


def _fit(cv2: Any, image: Any) -> tuple[Any, float]:
    h, w = image.shape[:2]
    scale = min(1.0, MAX_SIDE / max(h, w))
    if scale < 1:
        image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return image, scale


def _caption(cv2: Any, image: Any, text: str, ok: bool = True) -> Any:
    """A dark band with text along the top (readable whatever the frame shows; ASCII only)."""
    h, w = image.shape[:2]
    band = max(22, h // 24)
    cv2.rectangle(image, (0, 0), (w, band), (24, 24, 24), -1)
    cv2.putText(image, text.encode("ascii", "replace").decode(), (8, int(band * 0.72)), cv2.FONT_HERSHEY_SIMPLEX,
                band / 40, (255, 255, 255) if ok else (80, 80, 255), 1, cv2.LINE_AA)
    return image


def describe_reading(snapshot: dict[str, Any]) -> str:
    """One line about the last accepted reading."""
    table = snapshot.get("table") or {}
    parts = []
    if table.get("pawns") is not None:
        parts.append(f"{len(table['pawns'])} pawns")
    if table.get("tiles") is not None:
        parts.append(f"{sum(1 for v in table['tiles'].values() if v)} tiles")
    seats = table.get("seats") or {}
    if seats:
        cards = sum(len(r) for s in seats.values() for r in (s.get("rows") or {}).values())
        parts.append(f"{cards} cards in rows")
    return ", ".join(parts) or "no reading accepted yet"


def _register_board(calibration: dict[str, Any], image: Any) -> Any:
    from calibration.registration import DEFAULT_CONFIG, register_board

    return register_board(DEFAULT_CONFIG, calibration, image)


class FramePictures:
    """JPEGs of the latest frame for the page and the calibration check, cached per frame."""

    def __init__(self, pipeline: Any, calibration: dict[str, Any] | None = None, *,
                 register: Callable[[dict[str, Any], Any], Any] | None = None):
        """register(calibration, image) -> Registration: how a frame is registered (default:
        calibration.registration.register_board with its DEFAULT_CONFIG)."""
        self.pipeline = pipeline
        self.calibration = calibration
        self.register = register or _register_board
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[Any, bytes]] = {}
        self._registration: tuple[Any, Any] | None = None  # (frame seq, Registration)

    @classmethod
    def from_file(cls, pipeline: Any, path: str | Path | None, *,
                  register: Callable[[dict[str, Any], Any], Any] | None = None) -> "FramePictures":
        """With the calibration read from `path` (None or an unreadable file: pictures without overlay)."""
        calibration = None
        if path:
            try:
                from calibration.model import load_calibration

                calibration = load_calibration(path)
            except Exception as exc:  # the pictures are a help, never a reason not to serve
                log.warning("no registration overlay: %s", exc)
        return cls(pipeline, calibration, register=register)

    def _cached(self, kind: str, key: Any, make) -> bytes | None:
        with self._lock:
            hit = self._cache.get(kind)
            if hit is not None and hit[0] == key:
                return hit[1]
            data = PAINTER.submit(make).result(DRAW_TIMEOUT_SECONDS)  # drawn on the painter thread
            if data is not None:
                self._cache[kind] = (key, data)
            return data

    def _register(self, frame: Any) -> Any | None:
        """The board registration of this frame (cached for the frame), or None without calibration."""
        if self.calibration is None:
            return None
        key = getattr(frame, "seq", None), getattr(frame, "index", None)
        if self._registration is not None and self._registration[0] == key:
            return self._registration[1]
        try:
            reg = self.register(self.calibration, frame.image)
        except Exception as exc:
            log.warning("registration failed: %s", exc)
            reg = None
        self._registration = (key, reg)
        return reg

    def registration_of(self, frame: Any) -> Any | None:
        """The board registration of a frame (the same one the overlay draws), or None."""
        return self._register(frame)

    def calibration_board(self) -> Any | None:
        """The board the calibration was made for (None: unknown or no calibration)."""
        return self._board((self.calibration or {}).get("board"))

    def _board(self, name: str | None) -> Any | None:
        if not name:
            return None
        try:
            from engine.board import load_board

            return load_board(name)
        except Exception:
            return None

    # -- the page's picture: what the camera read ---------------------------------------------
    def annotated(self, snapshot: dict[str, Any]) -> bytes | None:
        """The latest frame with the accepted reading drawn where it lies on the table."""
        frame = latest_frame(self.pipeline)
        if frame is None:
            return None
        key = (getattr(frame, "seq", None), frame.index, snapshot.get("event_id"))
        return self._cached("annotated", key, lambda: self._draw_reading(frame, snapshot))

    def _draw_reading(self, frame: Any, snapshot: dict[str, Any]) -> bytes | None:
        try:
            import cv2
            import numpy as np
        except ImportError:
            return None
        table = snapshot.get("table") or {}
        reg = self._register(frame)
        board = self._board((snapshot.get("game") or {}).get("board"))
        image, scale = _fit(cv2, frame.image.copy())
        font = max(0.35, image.shape[1] / 1700)
        line = max(1, round(image.shape[1] / 600))

        def to_px(points_mm: list[tuple[float, float]]) -> Any:
            return np.asarray(reg.board_to_image(points_mm), dtype=float) * scale

        def label(text: str, pos: tuple[int, int], colour: tuple[int, int, int]) -> None:
            cv2.putText(image, text, pos, cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), line + 2, cv2.LINE_AA)
            cv2.putText(image, text, pos, cv2.FONT_HERSHEY_SIMPLEX, font, colour, line, cv2.LINE_AA)

        placed = reg is not None and reg.homography is not None
        if placed and board is not None:
            stones = board.stones
            for stone_id, tile in (table.get("tiles") or {}).items():
                stone = stones.get(stone_id)
                if stone is None or not tile:
                    continue
                centre, rim = to_px([(stone.x, stone.y), (stone.x + stone.r, stone.y)])
                r = max(3, int(np.hypot(*(rim - centre))))
                colour = TILE_BGR.get(tile.split("-")[0], (255, 255, 255))
                cv2.circle(image, tuple(int(v) for v in centre), r, colour, line, cv2.LINE_AA)
            by_stone: dict[str, list[dict[str, Any]]] = {}
            for pawn in table.get("pawns") or []:
                by_stone.setdefault(pawn.get("stone"), []).append(pawn)
            for stone_id, pawns in by_stone.items():
                stone = stones.get(stone_id)
                if stone is None:
                    continue
                centre, rim = to_px([(stone.x, stone.y), (stone.x + stone.r, stone.y)])
                r = max(4, int(np.hypot(*(rim - centre))))
                if stone.kind == "start":
                    label(f"{len(pawns)} on start", (int(centre[0] - r), int(centre[1] + 2.2 * r)), (255, 255, 255))
                    continue
                for i, pawn in enumerate(pawns):
                    c = (int(centre[0] + (i - (len(pawns) - 1) / 2) * r * 0.9), int(centre[1]))
                    size = max(3, int(r * (0.7 if pawn.get("big") else 0.45)))
                    cv2.circle(image, c, size, PAWN_BGR.get(pawn.get("player"), (255, 0, 255)), -1, cv2.LINE_AA)
                    cv2.circle(image, c, size + line, (0, 215, 255), line, cv2.LINE_AA)
        if placed:
            for seat, rect in (self.calibration or {}).get("seats", {}).items():
                rows = ((table.get("seats") or {}).get(seat) or {}).get("rows") or {}
                if not rows:
                    continue
                (x, y), = to_px([(rect["x"] + rect["w"] / 2, rect["y"] + rect["h"] / 2)])
                for j, (colour, cards) in enumerate(rows.items()):
                    text = " ".join(cards)
                    pos = (int(x) - int(len(text) * 9 * font), int(y + (j - len(rows) / 2) * 30 * font))
                    label(text, pos, CARD_BGR.get(colour, (255, 255, 255)))
        note = "" if placed else " (no registration: reading not placed)"
        image = _caption(cv2, image, f"frame {frame.index}: {describe_reading(snapshot)}{note}")
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return buf.tobytes() if ok else None

    # -- the calibration check ----------------------------------------------------------------
    def calibration_view(self) -> bytes | None:
        """The latest frame with the markers found, the board outline and stones, and the seat zones."""
        frame = latest_frame(self.pipeline)
        if frame is None:
            return None
        key = (getattr(frame, "seq", None), frame.index)
        return self._cached("calibration", key, lambda: self._draw_registration(frame))

    def _draw_registration(self, frame: Any) -> bytes | None:
        try:
            import cv2
        except ImportError:
            return None
        image = frame.image
        ok = True
        if self.calibration is None:
            caption = "no calibration file: showing the camera only (keltis-cam calibrate default ...)"
            ok = False
        else:
            reg = self._register(frame)
            if reg is None:
                caption, ok = "registration failed (see the server log)", False
            else:
                from calibration.registration import draw_registration

                image = draw_registration(image, self.calibration, reg,
                                          board=self._board(self.calibration.get("board")))
                caption = ("registration ok" if reg.ok else f"NOT registered: {reg.reason}")[:90]
                ok = bool(reg.ok)
        image, _ = _fit(cv2, image.copy())
        image = _caption(cv2, image, f"frame {frame.index}: {caption}", ok)
        good, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        return buf.tobytes() if good else None
