"""The tracking hook: `make_observer(session=..., config=...)` returns the vision observer
(tracking.observers.make_observer("vision", ...) imports this module by name).

A frame is anything with `.index`, `.timestamp` and either `.image` (a decoded BGR frame, as the live
camera gives) or, for a recorded session, a FrameRef the session can decode; a frame that cannot be
decoded reads as unusable (reason "bad-frame") and is listed in `.problems` naming the file.
"""
from __future__ import annotations

import logging
from typing import Any, Mapping

from engine.errors import MalformedInput
from engine.observation import Observation

from .reader import Reader, ReaderConfig

log = logging.getLogger("keltis.vision")


class VisionObserver:
    """Reads each frame with one vision.reader.Reader (registration kept between frames)."""

    name = "vision"

    def __init__(self, calibration: Mapping[str, Any], game: str, board: Any, seats: Mapping[str, str] | None,
                 session: Any = None, config: ReaderConfig | None = None, components: Any = None):
        from .components import load_components

        self.session = session
        self.game = game
        self.reader = Reader(calibration, game=game, board=board, seats=seats,
                             components=components or load_components(), config=config or ReaderConfig())
        self.problems: list[str] = []

    def observe(self, frame: Any) -> Observation:
        from camera.session import FrameError

        image = getattr(frame, "image", None)
        if image is None and self.session is not None:
            try:
                image = self.session.read_frame(frame)
            except FrameError as exc:
                self.problems.append(str(exc))
                log.warning("%s", exc)
                return Observation(self.game, self.reader.board.name if self.reader.board else None, False,
                                   "bad-frame")
        if image is None:
            raise MalformedInput(f"frame {getattr(frame, 'index', '?')} has no image to read")
        return self.reader.read(image).observation


def make_observer(session: Any = None, config: Any = None) -> VisionObserver:
    """The vision observer for a recorded session (its calibration, board and seats) or a live camera
    (`config`: a mapping with "calibration" (dict or file), "game", "board", "seats", "components")."""
    from calibration.model import default_calibration, load_calibration
    from engine.board import bundled_board, load_board

    from .components import load_components

    cfg = dict(config) if isinstance(config, Mapping) else {}
    game = cfg.get("game") or (session.info.game if session is not None else "keltis")
    board_name = cfg.get("board") or (session.info.board if session is not None else None)
    seats = cfg.get("seats") or (dict(session.info.seats) if session is not None else None)
    cal = cfg.get("calibration")
    if isinstance(cal, str):
        cal = load_calibration(cal)
    if cal is None and session is not None and session.info.calibration:
        cal = load_calibration(session.folder / session.info.calibration)
    if cal is None:
        cal = default_calibration(board_name if game == "keltis" else None)
    board = None
    if game == "keltis" and board_name:
        board = load_board(board_name) if str(board_name).endswith(".json") else bundled_board(board_name)
    return VisionObserver(cal, game, board, seats, session=session,
                          components=load_components(cfg.get("components")))
