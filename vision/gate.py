"""Stage: when is a frame worth the full reader? Work only when it matters.

A live camera gives 10–15 frames a second; the table changes a few times a minute. The gate looks
at each frame's small picture (vision.motion) and decides, from the stillness of the play area
and the time since it was last read:

- `moving`   — the play area changed since the previous frame: only the cheap hands test runs
               (the frame is unusable: `motion`, or `occluded` with the arm's seat);
- `settling` — still, but not yet for `settle_seconds`: unusable (`settling`), nothing read;
- `read`     — still long enough and not read since it went still (or read again
               `read_again_seconds` later, up to `reads_per_still` readings in one still period,
               so the tracker has a few independent readings to vote over; or the picture has
               drifted from the one last read, a slow change no single frame shows): the full reader;
- `reuse`    — still, and read enough: the last reading stands (no work at all).

While the reader is busy with a frame, the frames the camera gives meanwhile are only watched
(`Gate.watch`, session 36): the play area moving (`moving`, with the hands test) or settling after a move;
a still frame then is `busy` (nothing can be read, nothing is given). A move seen while a reading runs
means that reading's picture is older than the table: `read_done` does not count it for the still
period after the move, which is read in its turn.

Frames that come further apart than `slow_frame_seconds` (a 1 fps recording) are never held back:
each one that changed is read in full, as there is nothing to gain from waiting for the next one.
A reading that was itself unusable (a hand resting still on the table) is retried every
`read_again_seconds` for as long as the table stays still.

The gate is pure logic on (small picture, time): `Gate.decide` returns the decision and
`Gate.read_done` is told what the reader made of the frame; vision.observer joins it to the reader.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .motion import MotionConfig, judge_motion

MOVING, SETTLING, READ, REUSE = "moving", "settling", "read", "reuse"
BUSY = "busy"   # (watch: a still frame that came while the reader read an earlier one: nothing to do)


@dataclass(frozen=True)
class GateConfig:
    """Every timing and threshold of the gate."""

    motion: MotionConfig = MotionConfig()
    settle_seconds: float = 0.15       # still this long before the first full reading
    read_again_seconds: float = 0.3    # ... then read again after this long
    reads_per_still: int = 3           # at most this many full readings per still period
    drift_fraction: float = 0.004      # share of the play area changed since the last reading: read again
    slow_frame_seconds: float = 0.5    # frames this far apart are each read when they changed


DEFAULT_CONFIG = GateConfig()


@dataclass
class Gate:
    """The gate's state between frames (one per camera)."""

    config: GateConfig = DEFAULT_CONFIG
    previous: Any = field(default=None, repr=False)    # the previous frame's small picture
    previous_t: float | None = None
    previous_index: int | None = None
    still_since: float | None = None                   # when the play area last stopped changing
    at_read: Any = field(default=None, repr=False)     # the small picture of the last full reading
    read_t: float | None = None
    reads: int = 0                                     # full readings in this still period
    read_usable: bool = False                          # the last full reading was usable
    moved_t: float | None = None                       # the time of the last frame that showed motion
    counts: dict[str, int] = field(default_factory=lambda: {MOVING: 0, SETTLING: 0, READ: 0, REUSE: 0})

    def _motion(self, small: Any, t: float, mask: Any, index: int | None) -> tuple[bool, bool]:
        """(moving, slow) for this frame against the previous one; the stillness follows it."""
        cfg = self.config
        slow = False
        if self.previous_t is not None:
            # the camera's own frame interval: frames a busy reader skipped do not make a camera slow
            steps = index - self.previous_index if index is not None and self.previous_index is not None else 1
            slow = (t - self.previous_t) / max(1, steps) > cfg.slow_frame_seconds
        motion = judge_motion(cfg.motion, small, self.previous, mask)
        if motion.moving:
            self.still_since = None
            self.reads = 0
            self.moved_t = t
        elif self.still_since is None:
            # the table has looked like this since the previous frame was taken
            self.still_since = self.previous_t if self.previous_t is not None else t
        self.previous, self.previous_t, self.previous_index = small, t, index
        return motion.moving, slow

    def watch(self, small: Any, t: float, mask: Any = None, index: int | None = None) -> str:
        """A frame that came while the reader reads an earlier one: `moving`, `settling` (still, not yet
        for settle_seconds after a move) or `busy` (still: nothing to read now, the reading in hand
        stands). Its motion counts for the stillness as in decide."""
        moving, _ = self._motion(small, t, mask, index)
        if moving:
            decision = MOVING
        elif t - self.still_since < self.config.settle_seconds:   # (only after a move: the frame read was still)
            decision = SETTLING
        else:
            decision = BUSY
        self.counts[decision] = self.counts.get(decision, 0) + 1
        return decision

    def decide(self, small: Any, t: float, mask: Any = None, index: int | None = None) -> str:
        """The decision for frame `index` taken at `t` (seconds) whose small picture is `small`."""
        cfg = self.config
        moving, slow = self._motion(small, t, mask, index)
        if moving:
            decision = READ if slow else MOVING
        elif t - self.still_since < cfg.settle_seconds:
            decision = SETTLING
        elif self.reads == 0 or self.read_t is None:
            decision = READ
        elif judge_motion(cfg.motion, small, self.at_read, mask).changed > cfg.drift_fraction:
            self.reads = 0
            decision = READ
        elif t - self.read_t >= cfg.read_again_seconds and (self.reads < cfg.reads_per_still
                                                            or not self.read_usable):
            decision = READ
        else:
            decision = REUSE
        self.counts[decision] += 1
        return decision

    def read_done(self, small: Any, t: float, usable: bool) -> None:
        """The full reader read the frame of `t`: remember its picture, time and verdict. When the play area
        moved after `t` (frames watched while the reader read), the reading is of the table before that move:
        it does not count for the still period after it (read in its own turn)."""
        self.at_read, self.read_t, self.read_usable = small, t, usable
        if self.moved_t is None or self.moved_t <= t:
            self.reads += 1

    def reset(self) -> None:
        """Forget everything (a new registration, a camera that came back)."""
        self.previous = self.previous_t = self.previous_index = self.still_since = self.at_read = self.read_t = None
        self.moved_t = None
        self.reads = 0
        self.read_usable = False
