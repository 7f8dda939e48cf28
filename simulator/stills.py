"""Full-resolution stills of a simulated session: the simulator as the camera's still mode.

A live camera films the table on a small video stream and takes a full-resolution still when the
reader needs one (camera.sources: Frame.still). A simulated session recorded that way
(`sim session --size 480x270 --stills 2304x1296`) keeps only the video frames; this module renders,
on request, the still the camera would have taken at any of its frames: the same game, table, light
and hands at that instant, at the still size, with sensor noise of its own (a still is another
exposure). The replay source asks for one exactly when a live camera would be asked
(keltis_cam.pipeline wires it in), so a bundled game replays through the whole camera path while the
recording stays small.
"""
from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import MalformedInput

from .conditions import drift
from .record import SessionOptions, _frame_hands, plan_session

SIMULATOR_FILE = "simulator.json"


def stills_size(folder: str | Path) -> tuple[int, int] | None:
    """The still size a simulated session offers (its simulator.json's options "stills"), or None."""
    path = Path(folder) / SIMULATOR_FILE
    if not path.is_file():
        return None
    try:
        size = json.loads(path.read_text(encoding="utf-8")).get("options", {}).get("stills")
    except (OSError, ValueError, AttributeError):
        return None
    if not size:
        return None
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise MalformedInput(f"expected [width, height], got {size!r}", source=str(path),
                             field="options.stills") from None
    if w < 16 or h < 16:
        raise MalformedInput(f"a still of {w}x{h} is too small", source=str(path), field="options.stills")
    return w, h


class SessionStills:
    """Renders the full-resolution still of a simulated session's table at any of its frames."""

    def __init__(self, folder: str | Path, size: tuple[int, int] | None = None):
        path = Path(folder) / SIMULATOR_FILE
        try:
            sim = json.loads(path.read_text(encoding="utf-8"))
            raw = dict(sim["options"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise MalformedInput(f"not a simulator description: {exc}", source=str(path)) from None
        known = {f.name for f in fields(SessionOptions)}
        raw = {k: v for k, v in raw.items() if k in known}
        size = size or stills_size(folder) or tuple(raw.get("size", (2304, 1296)))
        raw["size"] = (int(size[0]), int(size[1]))
        self.size = raw["size"]
        self.video_fps = float(raw.get("fps", 1.0))
        self.opts = SessionOptions(**raw)
        self._plan: Any = None
        self._conditions: list[Any] = []       # the room's light at each frame, as the video drifted it
        self._cond_rng: Any = None

    @property
    def plan(self) -> Any:
        """The session's game and timeline, played once on first use (a second or two)."""
        if self._plan is None:
            self._plan = plan_session(self.opts)
            self._cond_rng = np.random.default_rng([self.opts.seed, 14])   # as record_session drifts it
            self._conditions = [self._plan.table.conditions]
        return self._plan

    def _conditions_at(self, k: int) -> Any:
        self.plan   # the game played once: the conditions start from its table's
        while len(self._conditions) <= k:
            self._conditions.append(drift(self._conditions[-1], self._cond_rng, 1.0 / self.video_fps))
        return self._conditions[k]

    def still(self, k: int) -> np.ndarray:
        """The BGR still of frame k (the table, light and hands at that frame's time)."""
        if k < 0:
            raise ValueError(f"no frame {k}")
        plan = self.plan
        k = min(int(k), plan.n_frames - 1)
        tk = k / self.video_fps
        cond = self._conditions_at(k)
        step_i, state_i = plan.at(tk)
        hands, _seats = _frame_hands(plan, step_i, tk, cond)
        # the still's own sensor noise, the same each time this frame's still is asked for
        rng = np.random.default_rng([self.opts.seed, 15, k])
        frame = plan.table.renderer.frame(plan.scene_of(state_i), cond, rng, hands=hands)
        return frame.image
