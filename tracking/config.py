"""Every threshold of tracking in one place (brief: "every threshold lives in config")."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput


@dataclass(frozen=True)
class TrackingConfig:
    """Tuning of the stability filter and the tracker; the defaults suit a 3–10 fps camera."""

    #: A new table state is accepted once the table has read the same (by per-field majority) and
    #: usable frames have covered this many seconds since the last hand over the table.
    still_seconds: float = 0.6
    #: A change seen with no hand over the table in between (a misread that persists, a nudged
    #: pawn) must hold this long before it is accepted.
    still_seconds_without_hand: float = 3.0
    #: When the next hand comes, a state taken since the last hand is read again over the whole
    #: still period: a field whose reading changed (with no hand) and then held this long up to the
    #: hand is revised (a misread that held the first frames after the previous hand). A field whose
    #: last min_frames frames before the hand read it as it was before the state is revised at once.
    revise_seconds: float = 2.0
    #: A discard pile that the last this many frames before a hand read otherwise than the state
    #: taken is evidence of a misread, used when the next state reads the pile that way too.
    tail_frames: int = 2
    #: Each field's most common reading must have at least this share of the frames in the window.
    agree_fraction: float = 0.6
    #: ... and the window must hold at least this many usable frames (2 when frames come
    #: slow_frame_seconds or more apart: a 1 fps camera).
    min_frames: int = 3
    slow_frame_seconds: float = 0.4
    #: Unusable frames spanning at least this long (or `hand_min_frames` frames in a row) count as
    #: a hand over the table; a single unusable frame is ignored as a glitch.
    hand_min_seconds: float = 0.3
    hand_min_frames: int = 2
    #: Reading one accepted change as two or more turns means a still moment between them was
    #: missed: unlikely with a fast camera (cost in "rule breaks" ×10 of inference), common at 1 fps.
    split_cost_fast: int = 10
    split_cost_slow: int = 2
    #: Players go on with their own turn quickly (drawing after laying) and take over from another
    #: player after a moment: a rest longer than this before a reach hints at a new turn (a tie
    #: breaker worth pause_cost, never stronger than a rule).
    turn_pause_seconds: float = 1.4
    pause_margin_seconds: float = 0.4  # rests within this of turn_pause_seconds say nothing
    pause_cost: int = 3
    #: A warning on a move is shown once the table it was read from has held this long, or with the
    #: next table state taken: a misread that held the first frames after a hand is read again over
    #: the whole still period when the next hand comes (and one that held until the next hand is
    #: found by the next state), and must not flash a warning before that.
    warning_settle_seconds: float = 1.5
    #: No frame for this long is a camera gap: tracking pauses and needs fresh stillness.
    gap_seconds: float = 2.0
    #: Frames kept for voting (seconds); older frames never vote.
    window_seconds: float = 2.0
    #: The tracker reports the state as paused after this long without a usable frame.
    paused_after_seconds: float = 3.0
    #: End the game by itself when the draw pile runs out by the tracker's count (replays and
    #: benches: no players to press "end"); live, the page asks the players instead.
    auto_end_on_empty_draw_pile: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, source: str = "tracking config") -> "TrackingConfig":
        """Read from JSON; unknown names or wrongly typed values raise MalformedInput naming them."""
        data = dict(data or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for name, value in data.items():
            if name not in fields:
                raise MalformedInput(f"unknown tracking setting {name!r} (known: {sorted(fields)})", source=source)
            default = getattr(cls, name)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not ok or (not isinstance(value, bool) and value < 0):
                raise MalformedInput(f"bad value {value!r}", source=source, field=name)
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        """All settings with their values."""
        return dataclasses.asdict(self)
