"""Recorded sessions of simulated games (FORMATS §3): `keltis-cam sim session`.

A game is played with the rules engine (seeded random legal play, optionally with injected
illegal moves) and filmed by a fixed simulated camera at a steady frame rate. Each move is a
little scene in time: the player thinks (a pause), reaches in, dwells over each place the move
touches (the card row, the stone the pawn goes to, a pile), and withdraws; the table changes at
the last touch. Frames that show a hand are marked unusable (reason "motion" while it moves fast,
"occluded" while it is still). Light drifts slowly through the session.

The folder is written with camera.session.SessionWriter: session.json, frames.jsonl, frames/,
truth/NNNNNN.json (FORMATS §2 plus a "render" extension), truth/events.jsonl, calibration.json
(the true camera K/dist and the calibration's markers and seats), and simulator.json (everything
needed to reproduce it, plus the geometry that never changes: stones, markers, seats).
"""
from __future__ import annotations

import bisect
import json
import math
import random
import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .camera import HEIGHT_RANGE, Camera, sample_camera
from .conditions import Conditions, drift, sample_conditions
from .games import Game
from .hands import SKIN_RGB, SLEEVE_RGB, HandPose, reach_pose
from .render import Renderer, TableStyle, sample_table
from .scene import Distractor, Scene, TableLayout, place_distractors, seat_frame

DISTRACTORS = ("mug", "phone", "box", "mug", "phone", "box", "pad", "pen")
STATIC_KEYS = ("stones", "board", "seats")


@dataclass(frozen=True)
class SessionOptions:
    """What `sim session` records (see the CLI help for each)."""

    game: str = "keltis"
    board: str | None = "nwnz"
    players: int = 3
    seed: int = 7
    size: tuple[int, int] = (2304, 1296)
    fps: float = 1.0
    max_moves: int | None = None
    illegal: int = 0
    hard: bool = False
    quality: int | None = None
    distractors: bool = True
    rules: dict[str, Any] = field(default_factory=dict)
    #: "full": each frame's truth carries the `render` extension (where everything is in the image);
    #: "none": only the observed state (long sessions stay small; simulator.json keeps the geometry).
    truth_render: str = "full"
    #: the size of the full-resolution stills a replay may ask for (simulator.stills), or None: the
    #: video frames are then all there is, as with a camera without a still mode
    stills: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "board": self.board, "players": self.players, "seed": self.seed,
                "size": list(self.size), "fps": self.fps, "max_moves": self.max_moves, "illegal": self.illegal,
                "hard": self.hard, "quality": self.quality, "distractors": self.distractors, "rules": self.rules,
                "truth_render": self.truth_render, "stills": list(self.stills) if self.stills else None}


@dataclass
class Table:
    """A simulated table: the game, its layout, camera, table top, first conditions, renderer."""

    game: Game
    calibration: dict[str, Any]
    layout: TableLayout
    camera: Camera
    style: TableStyle
    conditions: Conditions
    renderer: Renderer
    distractors: tuple[Distractor, ...]
    hand_style: dict[str, dict[str, Any]]


#: What a drawn camera must see whole (besides at least MIN_MARKERS of the four markers):
#: "play-area": the board, every seat in play and the piles (a camera mounted for the whole game);
#: "board": the board with room for a pawn standing on it (what the board reader needs; the seats'
#: cards may reach out of the picture, as they do under a low camera on a real table).
VIEWS = ("play-area", "board")
MIN_MARKERS = 3


def sample_table_camera(layout: TableLayout, rng: np.random.Generator, size: tuple[int, int], *,
                        hard: bool = False, view: str = "play-area",
                        height_range: tuple[float, float] | None = None) -> Camera:
    """The camera of a table: pose and lens drawn over the whole range (simulator/camera.py)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (expected one of {', '.join(VIEWS)})")
    tilt = (18.0, 25.0) if hard else (0.0, 25.0)
    area = layout.pieces_area() if view == "play-area" else layout.board_volume()
    spread = 25.0 if view == "play-area" else 60.0
    return sample_camera(rng, size, area, tilt_range=tilt, markers=layout.marker_areas(), min_markers=MIN_MARKERS,
                         target_spread=spread, height_range=height_range or HEIGHT_RANGE)


def setup_table(game: Game, seed: int, size: tuple[int, int], *, hard: bool = False, distractors: bool = True,
                camera: Camera | None = None, view: str = "play-area",
                height_range: tuple[float, float] | None = None) -> Table:
    """Everything fixed for a session: calibration, layout, camera, table, light, players' hands.
    `height_range`: the camera's height above the table is drawn from it (mm; None: camera.HEIGHT_RANGE)."""
    from calibration.model import default_calibration

    cal = default_calibration(game.board)
    layout = TableLayout(cal, game.board, seed, tuple(game.seats))
    rng = np.random.default_rng([seed, 11])
    if camera is None:
        camera = sample_table_camera(layout, rng, size, hard=hard, view=view, height_range=height_range)
    style = sample_table(rng, layout)
    cond = sample_conditions(np.random.default_rng([seed, 12]), hard=hard)
    placed: tuple[Distractor, ...] = ()
    if distractors:
        r = random.Random(f"distractors-{seed}")
        # A cup, a phone or the card box (often), a score pad or a pen (now and then).
        kinds = tuple(r.sample(DISTRACTORS, r.randint(1, 3)))
        placed = place_distractors(layout, camera, kinds, seed)
    hands = {}
    # Every seat's edge may have an arm (a player, or someone reaching in from an empty side).
    for s in cal["seats"]:
        r = random.Random(f"hand-{seed}-{s}")
        hands[s] = {"skin": r.choice(SKIN_RGB), "sleeve": r.choice(SLEEVE_RGB), "left": r.random() < 0.15}
    return Table(game, dict(cal), layout, camera, style, cond, Renderer(camera, layout, style, seed=seed), placed,
                 hands)


# ----------------------------------------------------------------------------- what a move touches

def _identities(scene: Scene) -> dict[tuple, tuple[float, float, float]]:
    """Each piece a move can change, by identity → (x, y, hover height for a hand over it)."""
    out: dict[tuple, tuple[float, float, float]] = {}
    held: dict[tuple, int] = {}
    for f in scene.flats:
        t = f.truth or {}
        k = t.get("kind")
        if k == "card":
            out[("card", t["seat"], t["row"], t["index"], t["code"])] = (*f.centre, 25.0)
        elif k == "discard":
            out[("discard", t["pile"], t["code"])] = (*f.centre, 25.0)
        elif k == "tile":
            out[("tile", t["spot"], t["code"])] = (*f.centre, 35.0)
        elif k == "wish-pile":
            out[("wish-pile", t["colour"], t["count"])] = (*f.centre, 35.0)
        elif k == "wish-held":
            n = held[(t["seat"], t["colour"])] = held.get((t["seat"], t["colour"]), 0) + 1
            out[("wish-held", t["seat"], t["colour"], n)] = (*f.centre, 25.0)
        elif k == "wish-card":
            out[("wish-card", t["value"])] = (*f.centre, 25.0)
    count: dict[tuple, int] = {}
    for p in scene.turned:
        t = p.truth or {}
        if t.get("kind") == "pawn":
            key = (t["stone"], t["player"], t["big"])
            count[key] = count.get(key, 0) + 1
            out[("pawn", *key, count[key])] = (*p.position, 60.0 if t["big"] else 40.0)
    return out


def move_targets(before: Scene, after: Scene, move: dict[str, Any], layout: TableLayout
                 ) -> list[tuple[float, float, float]]:
    """The table points a player's hand visits to make `move`: first what is picked up (a pile, a
    tile), then what is put down (a card in a row, a pawn on its new stone)."""
    b, a = _identities(before), _identities(after)
    removed = [b[k] for k in b if k not in a and k[0] in ("tile", "wish-pile", "wish-card", "discard")]
    added = [a[k] for k in a if k not in b]
    added.sort(key=lambda p: p[2])  # cards (low hover) before pawns
    picks: list[tuple[float, float, float]] = []
    if move.get("move") == "draw":
        src = move.get("from")
        pile = "draw" if src == "pile" else src
        if pile in layout.piles:
            x, y, _ = layout.piles[pile]
            picks.append((x, y, 30.0))
    targets = picks + removed + added
    # Drawing from a discard pile both removes its top and reveals the next: one visit is enough.
    out: list[tuple[float, float, float]] = []
    for t in targets:
        if all(math.hypot(t[0] - o[0], t[1] - o[1]) > 20 for o in out):
            out.append(t)
    return out[:3]


# ----------------------------------------------------------------------------- the timeline

@dataclass
class HandPlan:
    """One hand visit: keyframes (t, x, y, hover, progress) from the rest position and back."""

    seat: str
    keys: list[tuple[float, float, float, float, float]]

    @property
    def t0(self) -> float:
        return self.keys[0][0]

    @property
    def t1(self) -> float:
        return self.keys[-1][0]

    def at(self, t: float) -> tuple[float, float, float, float]:
        """(x, y, hover, progress) at time t (linear between keyframes, eased in time)."""
        keys = self.keys
        if t <= keys[0][0]:
            return keys[0][1:]
        for k0, k1 in zip(keys, keys[1:]):
            if k0[0] <= t <= k1[0]:
                u = (t - k0[0]) / max(1e-9, k1[0] - k0[0])
                u = 0.5 - 0.5 * math.cos(math.pi * u)
                x = k0[1] + (k1[1] - k0[1]) * u
                y = k0[2] + (k1[2] - k0[2]) * u
                lift = 40.0 * math.sin(math.pi * u) if (k0[4] == 1 and k1[4] == 1 and (k0[1], k0[2]) != (k1[1], k1[2])) else 0
                hover = k0[3] + (k1[3] - k0[3]) * u + lift
                p = k0[4] + (k1[4] - k0[4]) * u
                return x, y, hover, p
        return keys[-1][1:]


@dataclass
class Step:
    """One move in time: the state before/after, when the table changes, the hand that makes it."""

    index: int
    move: Any
    transition: Any
    injected: str | None
    before: int
    after: int
    switch: float
    hand: HandPlan | None


def hand_pose(table: Table, plan: HandPlan, t: float, exposure_s: float) -> HandPose:
    """The hand of `plan` at time t, with the image motion during the exposure."""
    def pose_at(tt: float) -> HandPose:
        x, y, hover, p = plan.at(tt)
        fr = table.layout.frames.get(plan.seat) or seat_frame(plan.seat, table.calibration["seats"][plan.seat])
        far = fr.point(fr.width * 0.5, fr.depth)
        st = table.hand_style[plan.seat]
        rng = np.random.default_rng(zlib.crc32(f"{plan.seat}-{plan.t0:.3f}".encode()))
        return reach_pose(far, tuple(fr.v), (x, y), rng=rng, skin=st["skin"], sleeve=st["sleeve"], hover=hover,
                          progress=p, left=st["left"])

    now = pose_at(t)
    before = pose_at(t - exposure_s)
    tips = table.camera.project(np.array([now.tip, before.tip]))
    motion = tuple(float(v) for v in (tips[0] - tips[1]))
    return HandPose(now.shoulder, now.wrist, now.tip, now.skin, now.sleeve, now.left, now.curl, motion)


@dataclass
class SessionPlan:
    """A session's game played and planned in time (everything but the pictures)."""

    opts: SessionOptions
    game: Game
    table: Table
    states: list[Any]
    observations: list[Any]
    steps: list[Step]
    end_t: float
    scene_of: Callable[[int], Scene]

    @property
    def n_frames(self) -> int:
        """Frames filmed at opts.fps."""
        return int(math.floor(self.end_t * self.opts.fps)) + 1

    def at(self, tk: float) -> tuple[int, int]:
        """(steps whose table change has happened by time tk, the index of the state the table shows)."""
        step_i = bisect.bisect_right([st.switch for st in self.steps], tk)
        return step_i, (self.steps[step_i - 1].after if step_i else 0)


def plan_session(opts: SessionOptions) -> SessionPlan:
    """Play the game of `opts` with the rules engine and plan each move's hand in time."""
    game = Game.new(opts.game, opts.board, opts.players, opts.seed, opts.rules)
    table = setup_table(game, opts.seed, opts.size, hard=opts.hard, distractors=opts.distractors)
    if opts.quality:
        table.conditions = replace(table.conditions, jpeg_quality=int(opts.quality))
    rng = random.Random(f"sim-session-{opts.seed}")
    play_rng = random.Random(f"sim-play-{opts.seed}")

    # 1. Play the game and plan its timeline.
    states = [game.state]
    observations = [game.observe()]
    hints = [game.hints()]
    scenes: dict[int, Scene] = {}

    def scene_of(i: int) -> Scene:
        if i not in scenes:
            scenes[i] = table.layout.scene(observations[i], hints[i], table.distractors)
            if len(scenes) > 4:
                scenes.pop(min(k for k in scenes if k != i))
        return scenes[i]

    steps: list[Step] = []
    t = 1.5 + rng.uniform(0, 1.5)
    limit = opts.max_moves if opts.max_moves is not None else 100_000
    gap = max(3, (min(limit, 220)) // (opts.illegal + 1)) if opts.illegal else 0
    injected_left = opts.illegal
    last_seat = None
    while not game.over and len(steps) < limit:
        injected = None
        move = None
        if injected_left and len(steps) >= gap and (len(steps) % gap == 0 or limit - len(steps) <= injected_left):
            bad = game.illegal(play_rng)
            if bad is not None:
                move, injected = bad
                injected_left -= 1
        if move is None:
            move = game.choose(play_rng)
            if move is None:
                break
        tr = game.apply(move)
        states.append(game.state)
        observations.append(game.observe())
        hints.append(game.hints())
        i = len(states) - 2
        mj = move.to_json()
        seat = mj.get("seat")
        t += rng.uniform(1.5, 4.0) if seat != last_seat else rng.uniform(0.3, 1.2)
        last_seat = seat
        targets = move_targets(scene_of(i), scene_of(i + 1), mj, table.layout)
        if targets and seat in table.layout.frames:
            keys = [(t, targets[0][0], targets[0][1], targets[0][2] + 40, 0.0)]
            t += rng.uniform(0.7, 1.1)
            keys.append((t, *targets[0], 1.0))
            t += rng.uniform(0.4, 0.9)
            keys.append((t, *targets[0], 1.0))
            for tg in targets[1:]:
                t += rng.uniform(0.5, 0.8)
                keys.append((t, *tg, 1.0))
                t += rng.uniform(0.4, 0.8)
                keys.append((t, *tg, 1.0))
            switch = t
            t += rng.uniform(0.6, 1.0)
            keys.append((t, targets[-1][0], targets[-1][1], targets[-1][2] + 40, 0.0))
            plan = HandPlan(seat, keys)
        else:
            t += rng.uniform(0.3, 0.8)
            switch, plan = t, None
        steps.append(Step(i, move, tr, injected, i, i + 1, switch, plan))
    end_t = t + 3.0

    return SessionPlan(opts, game, table, states, observations, steps, end_t, scene_of)


def _frame_hands(plan: SessionPlan, step_i: int, tk: float, cond: Conditions) -> tuple[list[HandPose], list[str]]:
    """The hands over the table at time tk (step_i: steps whose table change has happened) and whose seat."""
    hands, seats = [], []  # whose arm each hand is: its pose reaches in from that seat's table edge
    for st in plan.steps[max(0, step_i - 2): step_i + 2]:
        if st.hand is not None and st.hand.t0 <= tk <= st.hand.t1:
            exposure_s = 1 / 30 if cond.exposure >= 0.7 else 1 / 15
            hands.append(hand_pose(plan.table, st.hand, tk, exposure_s))
            seats.append(st.hand.seat)
    return hands, seats


def _frame_truth(plan: SessionPlan, state_i: int, hand_boxes: list[dict[str, Any]]) -> dict[str, Any]:
    """A frame's truth (FORMATS §2, without the render extension) from the state shown and the hands' boxes."""
    in_view = [h for h in hand_boxes if h["in_view"]]
    if in_view:
        reason = "motion" if any(h["moving"] for h in in_view) else "occluded"
        return {"format": "keltis-observation/1", "game": plan.game.game, "board": plan.game.board_name,
                "usable": False, "reason": reason, "pawns": None, "tiles": None, "seats": None,
                "discard_tops": None, "confidence": {},
                # FORMATS §2 extension: the seats whose arms reach over the table
                "hands": [{"seat": h["seat"]} for h in in_view]}
    return plan.observations[state_i].to_json()


def _move_event(plan: SessionPlan, j: int, frame: int | None) -> dict[str, Any]:
    """truth/events.jsonl's line of step j (frame: the first usable frame showing its result)."""
    st = plan.steps[j]
    tr = st.transition
    return {"index": j, "frame": frame, "t": round(st.switch, 3), "seat": st.move.to_json().get("seat"),
            "move": st.move.to_json(), "events": [e.text for e in tr.events],
            "violations": [{"code": v.code, "message": v.message, "seat": v.seat,
                            **({"injected": True} if st.injected else {})} for v in tr.violations],
            **({"injected": True, "expected_code": st.injected} if st.injected else {}),
            "state_id": int(plan.states[st.after].id)}


def _first_usable(plan: SessionPlan, frame_times: list[float], usable: list[bool]) -> list[int | None]:
    """For each step, the first usable frame at or after its table change."""
    out: list[int | None] = []
    for st in plan.steps:
        out.append(next((k for k, (tk, ok) in enumerate(zip(frame_times, usable)) if tk >= st.switch and ok), None))
    return out


def session_truth(opts: SessionOptions, plan: SessionPlan | None = None) -> dict[str, Any]:
    """What `record_session` would write as truth, without rendering a picture (benches of the
    tracker): {"setup", "frames": [(t, truth)], "events": [truth/events.jsonl lines], "final"}.
    The hands' boxes are projected as the renderer projects them, so the usable frames and hands
    are the same. plan: the game already played (plan_session; the frame rate is `opts.fps`, so
    one plan can be filmed at several rates)."""
    from .render import _hand_truth

    plan = plan or plan_session(opts)
    table = plan.table
    cond_rng = np.random.default_rng([opts.seed, 14])
    cond = table.conditions
    frames: list[tuple[float, dict[str, Any]]] = []
    for k in range(int(math.floor(plan.end_t * opts.fps)) + 1):
        tk = k / opts.fps
        cond = drift(cond, cond_rng, 1.0 / opts.fps) if k else cond
        step_i, state_i = plan.at(tk)
        poses, seats = _frame_hands(plan, step_i, tk, cond)
        boxes = [dict(_hand_truth(table.camera, pose), seat=seat) for pose, seat in zip(poses, seats)]
        truth = _frame_truth(plan, state_i, boxes)
        truth["state_id"] = int(plan.states[state_i].id)
        truth["t"] = round(tk, 3)
        frames.append((tk, truth))
    first = _first_usable(plan, [t for t, _ in frames], [bool(tr.get("usable")) for _, tr in frames])
    game = plan.game
    setup = {"game": game.game, "board": game.board_name, "seats": dict(game.seats), "rules": game.rules_json()}
    final = _final_line(plan)
    return {"setup": setup, "frames": frames,
            "events": [_move_event(plan, j, first[j]) for j in range(len(plan.steps))] + [final],
            "final": final["final"]}


def _final_line(plan: SessionPlan) -> dict[str, Any]:
    """truth/events.jsonl's last line: the totals and winners when filming stopped (the game may
    not be over), so `replay --check` can compare the tracked final scores."""
    game = plan.game
    final = game.module.score(game.state)
    return {"final": {"totals": {s: p.total for s, p in final.scores.items()}, "winners": list(final.winners),
                      "end_reason": getattr(game.state, "end_reason", None), "over": game.over}}


def record_session(out: str | Path, opts: SessionOptions, *, overwrite: bool = False,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play and film a game into the session folder `out`; returns a summary."""
    from camera.session import SessionInfo, SessionWriter

    plan = plan_session(opts)
    game, table, states, steps, end_t = plan.game, plan.table, plan.states, plan.steps, plan.end_t
    scene_of = plan.scene_of

    # 2. Film it.
    folder = Path(out)
    started = (datetime(2025, 1, 1, 19, 0, tzinfo=timezone.utc) + timedelta(minutes=opts.seed % 100_000)).isoformat()
    info = SessionInfo(game=game.game, board=game.board_name, seats=dict(game.seats), rules=game.rules_json(),
                       source="simulator", started=started,
                       extra={"simulator": "simulator.json", "frame_size": list(opts.size), "fps": opts.fps})
    cal = dict(table.calibration)
    cal["camera"] = table.camera.calibration_camera()
    frame_rng = np.random.default_rng([opts.seed, 13])
    cond_rng = np.random.default_rng([opts.seed, 14])
    cond = table.conditions
    n_frames = plan.n_frames
    frame_times: list[float] = []
    usable_frames: list[bool] = []
    with SessionWriter(folder, info, overwrite=overwrite) as writer:
        writer.write_calibration(cal)
        static = None
        for k in range(n_frames):
            tk = k / opts.fps
            cond = drift(cond, cond_rng, 1.0 / opts.fps) if k else cond
            step_i, state_i = plan.at(tk)
            hands, hand_seats = _frame_hands(plan, step_i, tk, cond)
            frame = table.renderer.frame(scene_of(state_i), cond, frame_rng, hands=hands)
            render = frame.render
            for h, seat in zip(render["hands"], hand_seats):
                h["seat"] = seat
            truth = _frame_truth(plan, state_i, render["hands"])
            if static is None:
                static = {k2: render[k2] for k2 in STATIC_KEYS if k2 in render}
                static["camera"] = render["camera"]
                static["markers"] = [it for it in render["items"] if it.get("kind") == "marker"]
            if opts.truth_render != "none":
                dyn = {k2: v for k2, v in render.items() if k2 not in STATIC_KEYS and k2 != "camera"}
                dyn["items"] = [it for it in dyn.get("items", []) if it.get("kind") != "marker"]
                dyn["static"] = "simulator.json"
                truth["render"] = dyn
            truth["state_id"] = int(states[state_i].id)
            truth["t"] = round(tk, 3)
            writer.add_frame(frame.jpeg, tk, truth)
            frame_times.append(tk)
            usable_frames.append(bool(truth["usable"]))
            if progress and k % 50 == 0:
                progress(f"frame {k + 1}/{n_frames}")
        # 3. The moves, each with the first usable frame that shows its result.
        for j, frame_index in enumerate(_first_usable(plan, frame_times, usable_frames)):
            writer.add_event(_move_event(plan, j, frame_index))
        writer.add_event(_final_line(plan))
    sim = {"format": "keltis-simulator/1", "options": opts.to_json(), "table": table.style.to_json(),
           "conditions_start": table.conditions.to_json(), "distractors": [d.to_json() for d in table.distractors],
           "hands": {s: {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}
                     for s, d in table.hand_style.items()},
           "render_static": static}
    (folder / "simulator.json").write_text(json.dumps(sim, indent=1) + "\n", encoding="utf-8")
    return {"folder": str(folder), "frames": n_frames, "moves": len(steps),
            "usable_frames": int(sum(usable_frames)), "injected": sum(1 for s in steps if s.injected),
            "violations": sum(len(s.transition.violations) for s in steps), "game_over": game.over,
            "duration_s": round(end_t, 1)}
