"""Single frames with truth: `keltis-cam sim render` (one state of a seeded game) and `keltis-cam sim
frames` (a data set across the whole range of games, cameras, light and clutter, for measuring
vision accuracy on seeds no test tunes to).

Each frame's truth is a FORMATS §2 observed state plus the "render" extension with the complete
geometry and the frame's own calibration (FORMATS §4 with the true camera), since every frame of a
data set has its own camera.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from engine.errors import MalformedInput

from .camera import Camera
from .conditions import sample_conditions
from .games import Game
from .hands import HandPose
from .record import hand_pose, HandPlan, setup_table
from .scene import TableLayout

DARK_EXPOSURE = 0.15   # below this a frame is marked unusable, reason "too-dark"
ARM_OVER_PLAY_MM2 = 100.0   # an arm hiding at least this much of the play area (a fingertip) makes a frame unusable


@dataclass(frozen=True)
class FrameSpec:
    """One single frame to render: which game, how far into it, and the conditions to draw."""

    game: str = "keltis"
    board: str | None = "nwnz"
    players: int = 3
    seed: int = 3
    progress: float = 0.6          # fraction of the seeded game played before the frame
    size: tuple[int, int] = (2304, 1296)
    hard: bool = False
    dark: bool = False
    hand: str | None = None        # None, "still" or "moving"
    distractors: bool = True
    #: What the camera must see whole (record.VIEWS); None: the board with a pawn's height for the
    #: board games, the whole play area for the card game (whose cards are all there is to read).
    view: str | None = None
    #: the camera's height above the table is drawn from this range (mm; None: simulator.camera.HEIGHT_RANGE)
    camera_height: tuple[float, float] | None = None

    @property
    def camera_view(self) -> str:
        return self.view or ("board" if self.game == "keltis" else "play-area")

    def to_json(self) -> dict[str, Any]:
        out = {"game": self.game, "board": self.board, "players": self.players, "seed": self.seed,
               "progress": round(self.progress, 4), "size": list(self.size), "hard": self.hard, "dark": self.dark,
               "hand": self.hand, "distractors": self.distractors, "view": self.camera_view}
        if self.camera_height is not None:
            out["camera_height"] = list(self.camera_height)
        return out


def render_single(spec: FrameSpec, *, camera: Callable[[Any], Camera] | None = None,
                  edit: Callable[[Any, Any], Any] | None = None) -> tuple[bytes, dict[str, Any]]:
    """Render one frame of `spec`: (JPEG bytes, truth). camera: makes the camera from the table's
    layout instead of drawing one (benches that place the camera on purpose). edit: (observation,
    board) -> the observation to draw and record instead (training sets that want other pawn layouts
    than the seeded game's; the frame's truth is what is drawn)."""
    game = Game.new(spec.game, spec.board, spec.players, spec.seed)
    # Play the whole seeded game, then stop at the wanted point of it.
    states = [game.state]
    r = random.Random(f"sim-frame-{spec.seed}")
    while not game.over and len(states) < 5000:
        m = game.choose(r)
        if m is None:
            break
        game.apply(m)
        states.append(game.state)
    game.state = states[int(round(spec.progress * (len(states) - 1)))]
    fixed = None
    if camera is not None:
        from calibration.model import default_calibration

        fixed = camera(TableLayout(default_calibration(game.board), game.board, spec.seed, tuple(game.seats)))
    table = setup_table(game, spec.seed, spec.size, hard=spec.hard, distractors=spec.distractors,
                        view=spec.camera_view, camera=fixed, height_range=spec.camera_height)
    cond = table.conditions
    if spec.dark:
        cond = sample_conditions(np.random.default_rng([spec.seed, 21]), dark=True)
    obs = game.observe()
    if edit is not None:
        obs = edit(obs, game.board)
    scene = table.layout.scene(obs, game.hints(), table.distractors)
    rng = np.random.default_rng([spec.seed, 22])
    hands: list[HandPose] = []
    seats: list[str] = []
    if spec.hand:
        pose, seat = _random_hand(table, scene, spec, rng)
        hands.append(pose)
        seats.append(seat)
    frame = table.renderer.frame(scene, cond, rng, hands=hands)
    for h, seat in zip(frame.render["hands"], seats):
        h["seat"] = seat
    # The rule (Vision I item 5): a frame with an arm over the play area is unusable; a hand
    # in the picture beyond it (resting at the table's edge, reaching past an empty seat) hides nothing.
    in_view = [h for h in frame.render["hands"] if h["in_view"] and h.get("over_play_mm2", 0.0) >= ARM_OVER_PLAY_MM2]
    if in_view:
        reason = "motion" if any(h["moving"] for h in in_view) else "occluded"
    elif cond.exposure < DARK_EXPOSURE:
        reason = "too-dark"
    else:
        reason = None
    if reason:
        truth: dict[str, Any] = {"format": "keltis-observation/1", "game": game.game, "board": game.board_name,
                                 "usable": False, "reason": reason, "pawns": None, "tiles": None, "seats": None,
                                 "discard_tops": None, "confidence": {}}
        if in_view:  # FORMATS §2 extension: the seats whose arms reach over the table
            truth["hands"] = [{"seat": h["seat"]} for h in in_view]
        # What lies on the table all the same, for measuring partial readings of unusable frames.
        truth["table"] = obs.to_json()
    else:
        truth = obs.to_json()
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    render = dict(frame.render)
    render["calibration"] = cal
    render["spec"] = spec.to_json()
    render["table"] = table.style.to_json()
    truth["render"] = render
    truth["state_id"] = int(game.state.id)
    return frame.jpeg, truth


def _random_hand(table, scene, spec: FrameSpec, rng: np.random.Generator) -> tuple[HandPose, str]:
    """A hand reaching over the play area from a random seat's table edge (any of the four, played
    or not), still or moving, and that seat."""
    seats = list(table.calibration["seats"])
    seat = seats[int(rng.integers(len(seats)))]
    pts = [f.centre for f in scene.flats if (f.truth or {}).get("kind") in ("card", "tile", "board", "discard")]
    x, y = pts[int(rng.integers(len(pts)))] if pts else table.layout.play_area().mean(0)
    p = float(rng.uniform(0.55, 1.0))
    t0 = 0.0
    plan = HandPlan(seat, [(t0, x, y, 60.0, 0.0), (t0 + 1.0, x, y, 30.0, 1.0)] if spec.hand == "moving"
                    else [(t0, x, y, 30.0, p), (t0 + 1.0, x, y, 30.0, p)])
    t = 0.55 if spec.hand == "moving" else 0.5
    return hand_pose(table, plan, t, 1 / 20), seat


def sample_spec(seed: int, index: int, size: tuple[int, int], view: str | None = None,
                camera_height: tuple[float, float] | None = None) -> FrameSpec:
    """The `index`-th frame of data set `seed`: games, boards, players, progress and conditions vary."""
    r = random.Random(f"sim-frames-{seed}-{index}")
    u = r.random()
    game, board = ("keltis", "nwnz") if u < 0.4 else ("keltis", "base") if u < 0.7 else ("keltis-card", None)
    hand = None
    v = r.random()
    if v < 0.1:
        hand = "still"
    elif v < 0.2:
        hand = "moving"
    return FrameSpec(game=game, board=board, players=r.choice((2, 3, 3, 4, 4)), seed=r.randrange(1 << 30),
                     progress=r.uniform(0.0, 1.0), size=size, hard=r.random() < 0.15, dark=r.random() < 0.03,
                     hand=hand, distractors=r.random() < 0.6, view=view, camera_height=camera_height)


def index_extras(truth: dict[str, Any]) -> dict[str, Any]:
    """What `index.jsonl` says about a frame besides its spec, all read from its truth: the seats
    whose arms reach in, how many markers are whole in the picture and uncovered, whether every
    card lies whole in the picture, the camera's pose and lens, the table top, the things beside
    the play area ("things": a spec's "distractors" only says whether they were asked for)."""
    render = truth["render"]
    cam = render["camera"]
    markers = [i for i in render["items"] if i.get("kind") == "marker"]
    return {"hands": [h["seat"] for h in truth.get("hands") or []],
            "markers_visible": sum(1 for m in markers if m["in_view"] and not m["covered"]),
            "cards_in_view": all(c["in_view"] for c in render["cards"]),
            "camera": {k: cam[k] for k in ("height_mm", "tilt_deg", "yaw_deg", "hfov_deg")},
            "table_top": render["table"]["kind"],
            "things": sorted(i["what"] for i in render["items"] if i.get("kind") == "distractor")}


def write_dataset(out: str | Path, n: int, seed: int, size: tuple[int, int], *, overwrite: bool = False,
                  progress: Callable[[str], None] | None = None, view: str | None = None,
                  camera_height: tuple[float, float] | None = None) -> dict[str, Any]:
    """Write `n` frames with truth into `out` (frames/, truth/, index.jsonl, dataset.json); `view`
    (record.VIEWS) makes every frame's camera see that whole (None: FrameSpec's default); `camera_height`
    (mm, low and high) the range each frame's camera height is drawn from (None: the simulator's)."""
    folder = Path(out)
    if folder.exists() and any(folder.iterdir()):
        if not overwrite:
            raise MalformedInput("folder is not empty (pass --overwrite to replace the data set in it)",
                                 source=str(folder))
        # Remove only what a data set writes.
        for sub, pattern in (("frames", "*.jpg"), ("truth", "*.json")):
            for p in (folder / sub).glob(pattern) if (folder / sub).is_dir() else ():
                p.unlink()
        for name in ("index.jsonl", "dataset.json"):
            (folder / name).unlink(missing_ok=True)
    (folder / "frames").mkdir(parents=True, exist_ok=True)
    (folder / "truth").mkdir(exist_ok=True)
    counts: dict[str, int] = {}
    with open(folder / "index.jsonl", "w", encoding="utf-8") as index:
        for i in range(n):
            spec = sample_spec(seed, i, size, view, camera_height)
            jpeg, truth = render_single(spec)
            name = f"{i:06d}"
            (folder / "frames" / f"{name}.jpg").write_bytes(jpeg)
            (folder / "truth" / f"{name}.json").write_text(json.dumps(truth) + "\n", encoding="utf-8")
            key = f"{spec.game}/{spec.board}" + ("" if truth["usable"] else f" unusable:{truth['reason']}")
            counts[key] = counts.get(key, 0) + 1
            index.write(json.dumps({"index": i, "file": f"frames/{name}.jpg", "truth": f"truth/{name}.json",
                                    "usable": truth["usable"], "reason": truth["reason"], **spec.to_json(),
                                    **index_extras(truth)}) + "\n")
            if progress and (i % 25 == 0 or i == n - 1):
                progress(f"frame {i + 1}/{n}")
    summary = {"format": "keltis-frames/1", "seed": seed, "n": n, "size": list(size), "counts": counts,
               "view": view or "auto"}
    if camera_height is not None:
        summary["camera_height"] = list(camera_height)
    (folder / "dataset.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary
