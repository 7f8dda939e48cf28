"""The one place that builds a running pipeline: source → observer → tracker → store.

`serve`, `replay` and `record` all get their frame source from here (`choose_source`,
`open_camera_source`), and `serve` and `replay` their whole pipeline (`build_pipeline`), so the
two can never drift apart. The floors below stay unaware of each other's wiring: the camera floor
gives sources, tracking gives the observer, tracker, store and the frame loop (`Pipeline`,
`ServedPipeline`); this module only joins them, with the configuration read by `keltis_cam.config`.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry
from tracking.config import TrackingConfig

#: The bundled example game, relative to the repository (fixtures/ is not installed as package data).
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PREFERRED_DEMO = ("sessions/demo", "sessions/base-2p")


def bundled_session(fixtures: Path = FIXTURES) -> Path | None:
    """The example session shipped in fixtures/ (a board game with truth), or None."""
    for rel in PREFERRED_DEMO:
        p = fixtures / rel
        if (p / "session.json").is_file() and (p / "truth").is_dir():
            return p
    found = sorted(p.parent for p in fixtures.glob("**/session.json") if (p.parent / "truth").is_dir())
    board_games = [p for p in found if '"keltis"' in (p / "session.json").read_text(encoding="utf-8")]
    return (board_games or found or [None])[0]


def pi_camera_present() -> bool:
    """True when picamera2 is installed and sees a camera (never raises)."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except Exception:
        return False
    try:
        return bool(Picamera2.global_camera_info())
    except Exception:
        return False


def opencv_camera_opens(device: int) -> bool:
    """True when OpenCV opens /dev/videoN and reads a frame from it (never raises)."""
    try:
        import cv2
    except ImportError:
        return False
    cap = None
    try:
        cap = cv2.VideoCapture(device)
        return bool(cap.isOpened() and cap.read()[0])
    except Exception:
        return False
    finally:
        if cap is not None:
            cap.release()


def video_devices() -> list[int]:
    """The N of every /dev/videoN, USB (uvcvideo) cameras first."""
    from camera.doctor import v4l2_cameras

    nodes = v4l2_cameras()
    ordered = sorted(nodes, key=lambda c: c[2] != "uvcvideo")
    return [int(dev.removeprefix("/dev/video")) for dev, _name, _driver in ordered
            if dev.removeprefix("/dev/video").isdigit()]


def detect_camera_source(*, camera_present: Callable[[], bool] | None = None,
                         devices: Callable[[], list[int]] | None = None,
                         opens: Callable[[int], bool] | None = None) -> tuple[str | None, str]:
    """(a source that works on this machine, why): the Pi camera if one is connected, else the
    first /dev/videoN OpenCV opens, else (None, why) — then `serve` falls back to the demo."""
    camera_present = camera_present or pi_camera_present
    devices = devices or video_devices
    opens = opens or opencv_camera_opens
    if camera_present():
        return "picamera2", "a Raspberry Pi camera is connected"
    for n in devices():
        if opens(n):
            return f"opencv:{n}", f"OpenCV opens /dev/video{n}"
    return None, "no Pi camera and no /dev/video* camera that OpenCV opens"


def source_problem(spec: str, *, camera_present: Callable[[], bool] | None = None,
                   opens: Callable[[int], bool] | None = None) -> str | None:
    """Why `spec` cannot start on this machine (None when it can): what `config init --source` checks."""
    from camera.sources import parse_spec

    camera_present = camera_present or pi_camera_present
    opens = opens or opencv_camera_opens
    kind, target, _options = parse_spec(spec)
    if kind == "picamera2":
        return None if camera_present() else "no Raspberry Pi camera is connected to this machine"
    if kind == "opencv":
        if target.isdigit():
            return None if opens(int(target)) else f"OpenCV cannot open /dev/video{target}"
        return None if Path(target).expanduser().is_file() else f"no video file {target}"
    if kind == "replay":
        from camera.session import open_session

        try:
            open_session(target)
        except MalformedInput as exc:
            return str(exc)
    return None


def init_source(explicit: str | None) -> tuple[str | None, str]:
    """The source `config init` writes: the one asked for if it can start here, else one that exists.

    Never a source that cannot start on this machine (then `serve` would fail): an explicit one
    that cannot is refused, naming why; without one, detect_camera_source picks (or leaves it unset)."""
    if explicit:
        problem = source_problem(explicit)
        if problem:
            raise MalformedInput(f"{explicit} cannot start on this machine: {problem} (leave out --source to "
                                 "write the camera found here, or none)", field="--source")
        return explicit, "--source"
    return detect_camera_source()


def choose_source(explicit: str | None, configured: str | None, *,
                  camera_present: Callable[[], bool] = pi_camera_present,
                  fixtures: Path = FIXTURES) -> tuple[str, str]:
    """(source spec, why it was chosen) for `serve`: --source, the config's, the Pi camera, the demo."""
    if explicit:
        return explicit, "--source"
    if configured:
        return configured, "the config file's [camera] source"
    if camera_present():
        return "picamera2", "a Raspberry Pi camera is connected"
    demo = bundled_session(fixtures)
    if demo is None:
        raise MalformedInput("no camera found and no bundled example session in fixtures/; "
                             "give --source replay:SESSION_FOLDER or --source opencv:0", field="--source")
    return f"replay:{demo}", "no camera found: replaying the bundled example game"


def required_source(explicit: str | None, cfg: Any) -> tuple[str, dict[str, Any]]:
    """`record` and `calibrate`: --source, else the config's [camera] source (never a guess), and its options."""
    from camera.sources import SPEC_HELP

    spec = explicit or cfg.camera.source
    if not spec:
        raise MalformedInput(f"no frame source: pass --source ({SPEC_HELP}) or set [camera] source in {cfg.path}",
                             field="--source")
    return spec, cfg.camera.source_options()


def open_camera_source(spec: str, options: dict[str, Any] | None = None) -> Any:
    """A camera-floor frame source for a spec (picamera2, opencv:N, replay:SESSION), not started."""
    from camera.sources import open_source

    return open_source(spec, **(options or {}))


def parse_speed(text: str | None) -> float | None:
    """A --speed value: N times the recorded pace, or None for as fast as possible ("fast", "0", empty)."""
    if text in (None, "", "fast", "0"):
        return None
    try:
        value = float(text)  # type: ignore[arg-type]
    except ValueError:
        raise MalformedInput(f"expected a number or 'fast', got {text!r}", field="--speed") from None
    if not value > 0:
        raise MalformedInput(f"expected a speed > 0, got {text!r}", field="--speed")
    return value


def session_identity(session: Any) -> dict[str, Any]:
    """What names a recorded session for a game stored from it: its folder's name, when it was
    recorded, and a hash of its session.json (a renamed copy is the same recording; a different
    recording with the same folder name is not)."""
    import hashlib

    from camera.session import SESSION_FILE

    digest = hashlib.sha256((session.folder / SESSION_FILE).read_bytes()).hexdigest()
    return {"session": session.folder.name, "started": session.info.started, "session_sha256": digest}


def same_recording(stored: dict[str, Any] | None, current: dict[str, Any]) -> bool:
    """True when a stored game's origin is this recording (the hash decides; the name may differ)."""
    return bool(stored) and stored.get("session_sha256") == current.get("session_sha256")


def describe_origin(origin: dict[str, Any] | None) -> str:
    if not origin:
        return "no recorded session (a camera, or a database from before sessions were stored with games)"
    return f"session {origin.get('session')!r} recorded {origin.get('started')}"


def last_frame_taken(tracker: Any) -> int | None:
    """The index of the last usable frame the tracker's current game took (None: none)."""
    if tracker.decoded is None:
        return None
    frames = [f for f in tracker.decoded.frames_taken if isinstance(f, int)]
    return max(frames) if frames else None


def check_resumable(tracker: Any, identity: dict[str, Any], where: str) -> None:
    """`replay --resume`: refuse (MalformedInput) unless the stored game came from this recording."""
    if tracker.decoded is None:
        raise MalformedInput("there is no game to resume in this data directory", source=where)
    if not same_recording(getattr(tracker, "origin", None), identity):
        raise MalformedInput(f"the stored game was recorded from {describe_origin(tracker.origin)}, not from "
                             f"{describe_origin(identity)}: replay that session, or leave out --resume to start "
                             "a new game", source=where, field="--resume")


def setup_of_session(session: Any) -> dict[str, Any]:
    """The game a recorded session was played with, as the tracker's new_game() takes it."""
    info = session.info
    return {"game": info.game, "board": info.board, "seats": dict(info.seats), "rules": dict(info.rules or {})}


@dataclass
class BuiltPipeline:
    """Everything a running pipeline needs, built but not started."""

    spec: str
    why: str
    kind: str                          # "replay", "picamera2", "opencv", ...
    session: Any                       # the recorded session of a replay, else None
    setup: dict[str, Any] | None       # a replay's game, else None (the page starts games)
    observer: Any
    observer_name: str
    tracker: Any
    make_source: Callable[[], Any]
    data_dir: Path | None
    speed: float | None
    temp_dir: Any = None
    origin: dict[str, Any] | None = None      # a replay's session identity, stored with its games
    extra: dict[str, Any] = field(default_factory=dict)

    def resumable(self) -> bool:
        """True when the tracker resumed an unfinished game of this very recording (a restart)."""
        if self.kind != "replay" or self.tracker.decoded is None:
            return False
        return (same_recording(getattr(self.tracker, "origin", None), self.origin or {})
                and not self.tracker.snapshot().get("game_over"))

    def served(self, *, loop: bool) -> Any:
        """The pipeline `serve` runs in a thread.

        A camera: the tracker already resumed the latest game from the database; games start when
        the table asks. A replay: its game starts anew on every run, except that after a restart an
        unfinished game of the same recording continues from the frame after the last one it took.
        """
        from tracking.pipeline import ServedPipeline

        resume_after = None
        if self.resumable():
            resume_after = last_frame_taken(self.tracker)
            if resume_after is None:
                resume_after = -1
        return ServedPipeline(self.make_source, self.observer, self.tracker, setup=self.setup, loop=loop,
                              origin=self.origin, resume_after=resume_after)

    def warm_up(self) -> Any:
        """Start the vision reader's warm-up in a background thread (tracking.pipeline.start_warm_up; `serve`'s
        ServedPipeline.start does it itself); the thread, or None for an observer without one."""
        from tracking.pipeline import start_warm_up

        return start_warm_up(self.observer)

    def close(self) -> None:
        """Close the store and remove a throw-away data directory (after a warm-up under way: a thread inside
        OpenCV when the process ends aborts it)."""
        from tracking.pipeline import wait_warm_up

        wait_warm_up(self.observer)
        self.tracker.store.close()
        if self.temp_dir is not None:
            self.temp_dir.cleanup()
            self.temp_dir = None


def simulated_stills(folder: Any) -> Callable[[int], Any] | None:
    """For a simulated session filmed as a small video stream with stills on request (`sim session
    --stills WxH`, the bundled demo): the renderer of its full-resolution stills, else None. A real
    recording stores the stills it read (`record --live`); a simulated one renders them when asked."""
    from simulator.stills import SessionStills, stills_size

    if stills_size(folder) is None:
        return None
    return SessionStills(folder).still


def build_pipeline(spec: str, *, why: str = "", observer: str | None = None, noise: float = 0.0, seed: int = 0,
                   speed: float | None = None, data_dir: str | Path | None = None, throwaway_replay: bool = False,
                   decode_frames: bool = True, start_after: Callable[[Any], int | None] | None = None,
                   source_options: dict[str, Any] | None = None,
                   tracking: TrackingConfig | None = None, games: GameRegistry = GAMES,
                   observer_config: dict[str, Any] | None = None, noise_model: Any = None) -> BuiltPipeline:
    """Build source, observer, tracker and store for a spec.

    observer: "vision" (the default: the camera path), "truth" (a recording's truth files) or
    "recorded" (the readings a live recording stored).
    noise/seed: misreads injected into that share of frames (benches and tests of the tracker), by the noise model
    `noise_model` names (tracking.noise.NOISE_MODELS, or a NoiseModel; None: the default).
    data_dir: where tracking.db lives (None: in memory; throwaway_replay: a temporary folder for a
    replay, deleted by close()). decode_frames=False lets the truth observer read a recording's
    frame list without decoding any image. start_after(tracker) names the last frame a resumed
    game already took. tracking: the tracker's settings (default TrackingConfig(); replays end the
    game by the draw-pile count since no player is there to say so). games: the games a setup may
    name (engine/games.py). observer_config: what a live camera's vision reader starts from (its
    "calibration", a file or mapping: the table's `keltis-cam calibrate`; "components": a components
    folder; "board"); a game started on the table screen then names the board and seats it reads
    (vision.observer.VisionObserver.follow_setup). A recording's reader follows its session instead.
    """
    from camera.sources import parse_spec
    from tracking.noise import MisreadInjector
    from tracking.observers import make_observer
    from tracking.pipeline import SessionFrames
    from tracking.store import EventStore, default_db_path
    from tracking.tracker import GameTracker

    kind, target, _options = parse_spec(spec)
    session = None
    setup = None
    if kind == "replay":
        from camera.session import open_session

        session = open_session(target)
        if not session.frames:
            raise MalformedInput("the session lists no frames", source=str(session.folder))
        setup = setup_of_session(session)
    observer_name = observer or "vision"
    if not 0 <= noise <= 1:
        raise MalformedInput(f"expected a share of frames between 0 and 1, got {noise}", field="--noise")
    looks = None
    if observer_name == "vision" and observer_config:
        # a recording says where its table lay; how its pieces look may still be the group's own
        looks = observer_config if session is None else {"components": observer_config.get("components")}
    reader = make_observer(observer_name, session, looks)
    if noise:
        reader = MisreadInjector(reader, noise, seed, noise_model=noise_model)

    temp_dir = None
    if data_dir is None and throwaway_replay and kind == "replay":
        temp_dir = tempfile.TemporaryDirectory(prefix="keltis-serve-")
        data_dir = temp_dir.name
    if data_dir is not None:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
    store = EventStore(default_db_path(data_dir) if data_dir is not None else ":memory:")
    config = tracking or TrackingConfig()
    if kind == "replay" and not config.auto_end_on_empty_draw_pile:
        import dataclasses

        config = dataclasses.replace(config, auto_end_on_empty_draw_pile=True)
    tracker = GameTracker(store, config=config, observer=observer_name, games=games)
    first_frame = start_after(tracker) if start_after is not None else None

    def make_source(start_after: int | None = None) -> Any:
        """A new source (start_after: a served replay continuing a resumed game)."""
        if kind != "replay":
            return open_camera_source(spec, source_options)
        after = first_frame if start_after is None else start_after
        if observer_name == "recorded":   # every camera frame of a live recording (live.jsonl)
            recorded = reader if hasattr(reader, "lines") else reader.observer   # (under injected misreads)
            return SessionFrames(recorded, speed=speed, start_after=after)
        if not decode_frames and observer_name == "truth":
            return SessionFrames(session, speed=speed, start_after=after)
        options: dict[str, Any] = {"start_after": after} if after is not None else {}
        if observer_name == "vision":
            still_of = simulated_stills(session.folder)
            if still_of is not None:
                options["still_of"] = still_of
        return open_camera_source(f"replay:{session.folder}?speed={'fast' if speed is None else speed}",
                                  options or None)

    return BuiltPipeline(spec=spec, why=why, kind=kind, session=session, setup=setup, observer=reader,
                         observer_name=observer_name, tracker=tracker, make_source=make_source,
                         data_dir=Path(data_dir) if data_dir is not None else None, speed=speed, temp_dir=temp_dir,
                         origin=session_identity(session) if session is not None else None)
