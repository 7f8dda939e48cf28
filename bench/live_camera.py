"""The live camera path: CPU per second of play, and the time from a still table to the phones.

    python bench/live_camera.py [--session DIR | --seed 5151 --players 4 --board nwnz --moves 6]
                                [--fps 15] [--content truth|vision] [--clients 3] [--no-latency]
                                [--stills 4608x2592]

A recorded session (default: a fresh `keltis-cam sim session` of a 4-player NWNZ game at 2 fps,
its first `--moves` moves) is played as a live camera would give it: `--fps` frames a second, each
showing the recorded picture of that instant, with a low-resolution picture (320 wide, as
picamera2's lores stream) carrying fresh sensor noise every frame. The camera's own costs (the ISP
scaling the lores stream, the JPEG decode of the recording) are not counted: a camera delivers
arrays.

1. CPU (simulated time, one core): every camera frame goes through the vision observer (its gate
   decides: hands test, nothing, a full reading, or the last reading again) and the tracker.
   Printed: CPU seconds per second of play, with the lores stream (picamera2) and without it
   (a USB camera: the observer scales each frame down itself), and the gate's decisions.
   Target (issue 20): ≤ 0.25 of one core on average.
2. Latency (real time): the same camera in a thread feeding `ServedPipeline` → tracker → web app on
   a real waitress server; `--clients` SSE clients on /api/stream. For every move update (a turn's
   first message and its completion), latency = from the moment the camera first delivered the
   still table it was read from (the first frame after the last arm, by the recording's truth) to
   the change message carrying it at each client. A turn stays open until the table shows the next
   one begin (its player may still draw from a pile), so its completion is timed from the still
   table of the reading that sent it, not from its own. A move the tracker shows and later takes
   back (`{"id", "removed": true}`: an invented move withdrawn) is listed apart, not timed: it is the
   decoder changing its mind, not a still table reaching the phones (until session 22 it was timed
   as the move's first message, from the still table of an older reading: 82996 gave 9.4 s).
   Target: median ≤ 1.0 s, p95 ≤ 1.5 s.
   `--updates` lists every timed update, its latency cut into parts (session 35): `gate` (the still table's
   first delivery -> the camera frame the gate read: its settling, frames the pipeline was too busy to look
   at), `queue` (that frame delivered -> the observer took it), `still` (asking for the still -> having it),
   `read` (the reader, with its own stages' CPU ms), `decoder` (the reading done -> the feed that sent the
   update: later frames the decoder waited for), `feed` and `push` (-> the phone); then every recorded move
   with the readings of the table it left and the move events they sent (a draw from the draw pile sends
   none of its own: its turn is completed by the next turn's first reading).

`--content truth` (default) gives the tracker the recording's truth wherever the vision observer
made a full reading (the reader's full cost and the gate's timing are real; what it read is
replaced), so that latency is measured on moves the tracker does make while the readers' accuracy
is below what whole games need (measured by `keltis-cam eval`). `--content vision` uses what the
reader read.
"""
from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def render_session(out: Path, seed: int, players: int, board: str, moves: int, stills: str | None = None) -> Path:
    """A fresh simulated session (2 fps, whole frames) written by `keltis-cam sim session`; with
    `stills` (WxH) its full-resolution stills are rendered on request as a Pi camera takes them."""
    cmd = [sys.executable, "-m", "keltis_cam", "sim", "session", "--game", "keltis", "--board", board,
           "--players", str(players), "--seed", str(seed), "--fps", "2", "--max-moves", str(moves),
           "--out", str(out), "--overwrite"] + (["--stills", stills] if stills else [])
    print("rendering the session:", " ".join(cmd[3:]), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return out


def kept_stills_folder(session_folder: Path) -> Path:
    """Where a simulated session's rendered stills are kept for the next run: in keltis-cam's cache folder
    (vision.numerals.cache_dir), never in the session (it may be a bundled fixture), under a digest of
    its simulator.json (the seed and every option the stills are rendered from)."""
    import hashlib

    from simulator.stills import SIMULATOR_FILE
    from vision.numerals import cache_dir

    digest = hashlib.sha1((Path(session_folder) / SIMULATOR_FILE).read_bytes()).hexdigest()[:16]
    return cache_dir() / "bench-stills" / digest


#: stills rendered once per process: (session folder, recorded position) -> JPEG bytes
_RENDERED_STILLS: dict[tuple[str, int], bytes] = {}


class Recording:
    """The session's frames as a camera at `fps` shows them: the recorded picture of each instant."""

    def __init__(self, session: Any, fps: float, noise: float = 1.5, seed: int = 0):
        import numpy as np

        self.session = session
        self.fps = fps
        self.noise = noise
        self.rng = np.random.default_rng(seed)
        self.refs = list(session.frames)
        self.duration = self.refs[-1].t + 1.0 / fps
        self.count = int(self.duration * fps)
        self._cache: dict[int, tuple[Any, Any]] = {}
        from tracking.observers import make_observer

        truth = make_observer("truth", session)   # which recorded frames show an arm
        self.usable = [truth.observe(type("Ref", (), {"index": r.index, "timestamp": r.t})()).usable
                       for r in self.refs]
        self.state_ids = [(session.truth(r) or {}).get("state_id") for r in self.refs]
        self._stills: dict[int, bytes] = {}   # still run's first recorded position -> its still (JPEG)
        self.stills = None
        self.camera_cpu = 0.0                  # CPU the camera's part of a still took here (not the reader's)

    def prepare_stills(self, arms: bool = False) -> None:
        """Render, before the camera runs, the still of every still table of a session filmed with
        stills (one per run of still frames: the table does not change within it). A Pi camera takes
        one in ~0.5 s; the simulator needs seconds, which must not count as the camera path's time.
        `arms` (the real-time latency part): the stills of the frames that show an arm too — the gate
        watches only the play area, so an arm withdrawing beyond it is no motion and may be in a still;
        rendered then, it would cost the camera seconds no Pi camera spends."""
        import cv2

        from simulator.stills import SessionStills, stills_size

        if stills_size(self.session.folder) is None:
            return
        self.stills = SessionStills(self.session.folder)
        wanted = sorted({self.still_onset(p) for p in range(len(self.refs)) if self.usable[p] or arms})
        kept = kept_stills_folder(self.session.folder)   # a kept session's stills, rendered by an earlier run
        for n, pos in enumerate(wanted):
            key = (str(self.session.folder), pos)
            path = kept / f"{self.refs[pos].index:06d}.jpg"
            if key not in _RENDERED_STILLS and path.is_file():
                _RENDERED_STILLS[key] = path.read_bytes()
            if key not in _RENDERED_STILLS:
                print(f"\r  rendering the stills: {n + 1}/{len(wanted)}", end="", flush=True)
                picture = self.stills.still(self.refs[pos].index)
                _RENDERED_STILLS[key] = cv2.imencode(".jpg", picture, [int(cv2.IMWRITE_JPEG_QUALITY), 95])[1].tobytes()
                try:
                    kept.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(_RENDERED_STILLS[key])
                except OSError:
                    pass   # no cache folder: rendered again next time
            self._stills[pos] = _RENDERED_STILLS[key]
        print("\r" + " " * 60 + "\r", end="")

    def still_of(self, k: int) -> Any:
        """The full-resolution still a camera takes while showing camera frame k (its table now)."""
        import cv2
        import numpy as np

        t0 = time.process_time()
        pos = self.shown(k)
        data = self._stills.get(self.still_onset(pos))
        if data is None:   # an arm in the picture: the still shows it (rendered now; prepared for the latency part)
            picture = self.stills.still(self.refs[pos].index)
        else:
            picture = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        self.camera_cpu += time.process_time() - t0
        return picture

    def shown(self, k: int) -> int:
        """The recorded frame (position in the session) camera frame k shows."""
        t = k / self.fps
        lo, hi = 0, len(self.refs) - 1
        while lo < hi:   # the last recorded frame taken at or before t
            mid = (lo + hi + 1) // 2
            if self.refs[mid].t <= t + 1e-9:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _decoded(self, pos: int) -> tuple[Any, Any]:
        import cv2

        hit = self._cache.get(pos)
        if hit is None:
            image = self.session.read_frame(self.refs[pos])
            h, w = image.shape[:2]
            small = cv2.resize(image, (320, max(2, round(320 * h / w / 2) * 2)), interpolation=cv2.INTER_AREA)
            hit = self._cache[pos] = (image, small)
            for old in [p for p in self._cache if p < pos - 1]:
                del self._cache[old]
        return hit

    def frame(self, k: int, lores: bool = True) -> tuple[Any, Any, int]:
        """(image, small or None, recorded position) of camera frame k. Between two recorded frames
        of which one shows an arm, every other camera frame shows the next one: the arm moves all
        the time, as a live camera sees it (a 2 fps recording would show it standing still for
        half a second, and the gate would take it for a still table)."""
        import numpy as np

        pos = self.shown(k)
        image, small = self._decoded(pos)
        if k % 2 and pos + 1 < len(self.refs) and not (self.usable[pos] and self.usable[pos + 1]):
            image, small = self._decoded(pos + 1)
        if not lores:
            return image, None, pos
        noisy = small.astype(np.float32) + self.rng.normal(0.0, self.noise, small.shape).astype(np.float32)
        return image, np.clip(noisy, 0, 255).astype(np.uint8), pos

    def table_shown(self, pos: int) -> int:
        """The recorded frame whose truth is the table recorded frame `pos` shows: itself, or for a frame
        with an arm (no state in its truth) the nearest frame without one in the same game state (the
        gate watches only the play area: an arm beyond it leaves a still table that the reader reads as
        usable, and its table is that state's)."""
        if self.usable[pos]:
            return pos
        sid = self.state_ids[pos]
        for way in (range(pos + 1, len(self.refs)), range(pos - 1, -1, -1)):
            for q in way:
                if self.state_ids[q] != sid:
                    break
                if self.usable[q]:
                    return q
        return pos

    def still_onset(self, pos: int) -> int:
        """The first recorded frame of the still run `pos` belongs to (after the last arm)."""
        while pos > 0 and self.usable[pos - 1] and self.usable[pos]:
            pos -= 1
        return pos


class LiveFrame:
    """What a camera source delivers (camera.sources.Frame's fields)."""

    def __init__(self, image: Any, small: Any, timestamp: float, index: int, still: Any = None):
        self.image, self.small, self.timestamp, self.index, self.seq = image, small, timestamp, index, index + 1
        self.still = still


class TruthContent:
    """The vision observer's decisions and costs, with the recording's truth as what a full reading says."""

    name = "vision"

    def __init__(self, vision: Any, truth: Any, recording: Recording, positions: dict[int, int]):
        self.vision, self.truth, self.recording, self.positions = vision, truth, recording, positions

    def observe(self, frame: Any) -> Any:
        from vision.gate import READ

        obs = self.vision.observe(frame)
        if not obs.usable:
            return obs
        pos = self.positions.get(frame.index, self.recording.shown(frame.index))
        if self.vision.last_decision == READ:
            self.read_pos = pos
        else:
            # the gate repeats its last reading: the truth of the picture it read then, not of
            # the picture now (a change the gate has not seen must not reach the tracker early)
            pos = getattr(self, "read_pos", pos)
        ref = self.recording.refs[self.recording.table_shown(pos)]
        obs = self.truth.observe(type("Ref", (), {"index": ref.index, "timestamp": ref.t})())
        if self.vision.last_decision == READ and not obs.usable:
            # what a full reading says is the truth: its gate must know the reading was unusable (an arm
            # still in the picture), or with stills (one reading a still period) it never reads again
            self.vision.gate.read_usable = False
        return obs

    def status(self) -> dict[str, Any]:
        return self.vision.status()

    def watch_readings(self, watcher: Any) -> None:
        self.vision.watch_readings(watcher)

    def watch(self, frame: Any) -> Any:
        return self.vision.watch(frame)   # (unusable or None: no truth to give)


def make_observers(session: Any, content: str, recording: Recording, positions: dict[int, int]) -> Any:
    from tracking.observers import make_observer

    vision = make_observer("vision", session)
    if content == "vision":
        return vision
    return TruthContent(vision, make_observer("truth", session), recording, positions)


def cpu_part(session: Any, fps: float, content: str, lores: bool) -> dict[str, Any]:
    """Every camera frame through observer and tracker in simulated time; CPU per second of play."""
    from keltis_cam.pipeline import setup_of_session
    from tracking.store import EventStore
    from tracking.tracker import GameTracker

    recording = Recording(session, fps)
    recording.prepare_stills()
    positions: dict[int, int] = {}
    observer = make_observers(session, content, recording, positions)
    tracker = GameTracker(EventStore(":memory:"), observer="vision")
    tracker.new_game(setup_of_session(session))
    cpu = 0.0
    per_frame: list[float] = []
    for k in range(recording.count):
        image, small, pos = recording.frame(k, lores)
        positions[k] = pos
        still = (lambda k=k: recording.still_of(k)) if recording.stills is not None else None
        frame = LiveFrame(image, small, k / fps, k, still)
        camera_before = recording.camera_cpu
        t0 = time.process_time()
        obs = observer.observe(frame)
        tracker.feed(obs, frame.timestamp, k)
        # a camera delivers a still as an array: its decoding here is not the camera path's cost
        dt = time.process_time() - t0 - (recording.camera_cpu - camera_before)
        cpu += dt
        per_frame.append(dt * 1000)
        if k % 50 == 0:
            print(f"\r  cpu ({'lores' if lores else 'no lores'}): frame {k}/{recording.count}", end="", flush=True)
    print("\r" + " " * 60 + "\r", end="")
    moves = sum(1 for e in tracker.store.events(0) if e.kind == "move")
    return {"seconds_of_play": recording.duration, "cpu_seconds": cpu, "per_second": cpu / recording.duration,
            "frames": recording.count, "gate": observer.status().get("gate"), "moves": moves,
            "frame_ms_median": statistics.median(per_frame), "frame_ms_max": max(per_frame)}


class SSEClient(threading.Thread):
    """A phone on /api/stream: notes when each tracker move event arrives."""

    def __init__(self, port: int, deadline: float):
        super().__init__(daemon=True)
        self.port, self.deadline = port, deadline
        self.moves: list[tuple[float, dict, Any]] = []   # (perf_counter at arrival, the move's payload,
        #                                                     the frame of the reading that sent it)
        self.error: str | None = None

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request("GET", "/api/stream", headers={"Accept": "text/event-stream"})
            resp = conn.getresponse()
            event = None
            while time.monotonic() < self.deadline:
                line = resp.fp.readline()
                if not line:
                    return
                now = time.perf_counter()
                text = line.decode("utf-8").rstrip("\n")
                if text.startswith("event: "):
                    event = text[7:]
                elif text.startswith("data: ") and event == "change":
                    body = json.loads(text[6:])
                    # the reading that caused this message: the newest frame a move in it was read
                    # from (a turn is completed by the reading that shows the next one begin)
                    frames = [(e.get("data") or {}).get("frame") for e in body.get("events", [])
                              if e.get("type") in ("state", "move")]
                    cause = max((f for f in frames if f is not None), default=None)
                    for e in body.get("events", []):
                        if e.get("type") == "move":
                            self.moves.append((now, e.get("data") or {}, cause))
        except Exception as exc:  # noqa: BLE001 - reported
            if time.monotonic() < self.deadline:
                self.error = f"{type(exc).__name__}: {exc}"


def latency_part(session: Any, fps: float, content: str, clients: int) -> dict[str, Any]:
    """A real server; the camera plays in real time; SSE clients time each move."""
    from camera.sources.base import CaptureThreadSource
    from keltis_cam.pipeline import setup_of_session
    from tracking.pipeline import ServedPipeline
    from tracking.store import EventStore
    from tracking.tracker import GameTracker
    from webui.app import create_app
    from webui.server import make_server, shutdown

    recording = Recording(session, fps, seed=1)
    recording.prepare_stills(arms=True)
    positions: dict[int, int] = {}
    first_shown: dict[int, float] = {}     # recorded position -> perf_counter when the camera first gave it

    class PlayedCamera(CaptureThreadSource):
        takes_stills = recording.stills is not None

        def __init__(self) -> None:
            super().__init__("played-camera")
            self.k = 0
            self.start_at = 0.0

        def _open(self) -> None:
            self.start_at = time.perf_counter()

        def _take_still(self, of_frame: int | None = None) -> Any:
            # a Pi switches to the still mode and back: ~0.5 s without video, whatever the decode here took
            t0 = time.perf_counter()
            picture = recording.still_of(self.k - 1 if of_frame is None else of_frame)
            time.sleep(max(0.0, STILL_SECONDS - (time.perf_counter() - t0)))
            return picture

        def _read(self) -> Any:
            now = time.perf_counter()
            if self.takes_stills and now - self.start_at > (self.k + 1) / fps:
                # the frames a still's pause cost are never filmed; the table they show went still when
                # it did all the same (a latency is timed from then)
                skip_to = int((now - self.start_at) * fps)
                for k in range(self.k, min(skip_to, recording.count)):
                    first_shown.setdefault(recording.shown(k), self.start_at + k / fps)
                self.k = skip_to
            if self.k >= recording.count:
                return None
            wait = self.start_at + self.k / fps - time.perf_counter()
            if wait > 0 and self._sleep(wait):   # answers a still asked for meanwhile
                return None
            image, small, pos = recording.frame(self.k)
            positions[self.k] = pos
            first_shown.setdefault(pos, time.perf_counter())
            timeline.delivered[self.k] = time.perf_counter()
            item = (image, self.k / fps, self.k, small)
            self.k += 1
            return item

        def _close(self) -> None:
            pass

    observer = make_observers(session, content, recording, positions)
    tracker = GameTracker(EventStore(":memory:"), observer="vision")
    timeline = Timeline(observer, tracker)
    observer = timeline.observer
    camera = PlayedCamera()
    pipeline = ServedPipeline(lambda *a, **k: camera, observer, tracker, setup=setup_of_session(session))
    app = create_app(tracker, pipeline=pipeline)
    server = make_server(app, host="127.0.0.1", port=0, threads=16)
    port = server.effective_port
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + recording.duration + 30
    phones = [SSEClient(port, deadline) for _ in range(clients)]
    for p in phones:
        p.start()
    time.sleep(1.0)   # the phones hold their snapshots
    pipeline.start()
    while pipeline.state not in ("ended", "failed", "stopped") and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2.0)   # the last moves reach the phones
    app.extensions["keltis"].broadcaster.stop()
    pipeline.stop()
    shutdown(server)
    # every move message: from the moment the table it was read from went still to its arrival
    latencies: list[float] = []
    untimed: list[tuple] = []   # move updates whose frame the camera did not give (id, complete, frame)
    details: list[tuple] = []   # (latency, move id, complete, camera frame, recorded position, still onset)
    removed: set[Any] = set()   # moves the tracker showed and took back (an invented move withdrawn)
    for phone in phones:
        seen: set[tuple[Any, Any]] = set()
        for arrived, move, cause in phone.moves:
            if move.get("removed"):
                # a withdrawal is the decoder changing its mind about an earlier reading, not a still table
                # reaching the phones: counted apart, not timed
                removed.add(move.get("id"))
                continue
            key = (move.get("id"), move.get("complete"))
            k = cause if cause is not None else move.get("frame")
            if key in seen:
                continue
            if k is None or k not in positions:
                untimed.append((move.get("id"), bool(move.get("complete")), k))
                seen.add(key)
                continue
            seen.add(key)
            onset = first_shown.get(recording.still_onset(positions[k]))
            if onset is not None:
                latencies.append(arrived - onset)
                details.append((arrived - onset, move.get("id"), bool(move.get("complete")), k, positions[k],
                                recording.still_onset(positions[k]),
                                timeline.parts(key, onset, arrived, positions, recording),
                                recording.state_ids[recording.table_shown(positions[k])]))
    events = [line for line in (session.folder / "truth" / "events.jsonl").read_text().splitlines()
              if line.strip() and '"final"' not in line[:12]]
    errors = [p.error for p in phones if p.error]
    truth_moves = []   # (recorded move, recorded frame, still onset of the table after it)
    for line in events:
        e = json.loads(line)
        # the first still table in the state the move left (its state_id)
        pos = next((p for p, sid in enumerate(recording.state_ids) if sid == e.get("state_id") and recording.usable[p]),
                   None)
        truth_moves.append((e.get("index"), e.get("seat"), (e.get("move") or {}).get("move"), e["frame"],
                            recording.still_onset(pos) if pos is not None else None, e.get("state_id")))
    stories = {m[5]: timeline.story(m[5], positions, recording) for m in truth_moves}
    return {"moves_true": len(events), "truth_moves": truth_moves, "stories": stories, "moves_seen": [len({(m.get("id"), m.get("complete")) for _, m, _ in p.moves
                                                           if not m.get("removed")})
                                                      for p in phones],
            "latencies": latencies, "details": details, "untimed": untimed, "errors": errors,
            "removed": sorted(removed, key=str), "gate": observer.status().get("gate"),
            "watched": getattr(pipeline.pipeline, "watched", 0),
            "watch_cpu": timeline.watch_cpu, "seconds": recording.duration}


class Timeline:
    """Where each timed update's latency went (`--updates`): the camera's delivery of every frame, the
    observer's work on it (the still's wait, the reading), the tracker's feed and the move events it gave.
    Only watches: the observer and the tracker do what they did without it."""

    def __init__(self, observer: Any, tracker: Any):
        from vision.gate import READ

        self.READ = READ
        self.inner = observer
        self.vision = getattr(observer, "vision", observer)
        self.delivered: dict[int, float] = {}       # camera frame -> perf_counter when delivered
        self.observed: dict[int, tuple] = {}        # camera frame -> (start, end, still seconds, decision)
        self.read_of: dict[int, int | None] = {}    # camera frame -> the camera frame whose reading it carries
        self.feeds: list[tuple] = []                # (camera frame, start, end, [(id, complete, removed)])
        self.watch_cpu = 0.0                        # CPU seconds the frames watched during readings took
        self._read_k: int | None = None
        self.observer = _TimedObserver(self)
        self.reader_parts: dict[int, dict[str, float]] = {}   # camera frame -> the reader's own timings (ms)
        self._reading: list[dict[str, float]] = []
        reader = getattr(self.vision, "reader", None)
        if reader is not None:
            read = reader.read

            def timed_read(*a: Any, **k: Any) -> Any:
                got = read(*a, **k)
                self._reading.append(dict(getattr(got, "timings", {}) or {}))
                return got

            reader.read = timed_read
        feed = tracker.feed

        def timed_feed(obs: Any, t: float, frame_index: int | None = None) -> Any:
            t0 = time.perf_counter()
            out = feed(obs, t, frame_index)
            t1 = time.perf_counter()
            moves = [((e.data or {}).get("id"), bool((e.data or {}).get("complete")),
                      bool((e.data or {}).get("removed"))) for e in out if e.type == "move"]
            self.feeds.append((frame_index, t0, t1, moves))
            return out

        tracker.feed = timed_feed

    def observe(self, frame: Any) -> Any:
        import dataclasses

        spent = [0.0]
        still = getattr(frame, "still", None)
        if still is not None and dataclasses.is_dataclass(frame):
            def timed_still(*a: Any, **k: Any) -> Any:
                s0 = time.perf_counter()
                try:
                    return still(*a, **k)
                finally:
                    spent[0] += time.perf_counter() - s0
            frame = dataclasses.replace(frame, still=timed_still)
        self._reading = []
        t0 = time.perf_counter()
        obs = self.inner.observe(frame)
        t1 = time.perf_counter()
        if self._reading:
            self.reader_parts[frame.index] = self._reading[-1]
        decision = getattr(self.vision, "last_decision", None)
        if decision == self.READ and obs.usable:
            # (a reading judged unusable is thrown away: the frames after it repeat the last usable one)
            self._read_k = frame.index
        self.observed[frame.index] = (t0, t1, spent[0], decision, obs.usable, obs.reason)
        self.read_of[frame.index] = self._read_k if obs.usable else None
        return obs

    def watch(self, frame: Any) -> Any:
        """A frame watched while a reading ran (the pipeline's watch thread): noted as `watch:<gate decision>`."""
        t0, c0 = time.perf_counter(), time.thread_time()
        obs = self.inner.watch(frame)
        t1 = time.perf_counter()
        self.watch_cpu += time.thread_time() - c0   # (the watch thread's own CPU)
        decision = "watch:" + ("busy" if obs is None else obs.reason or "?")
        self.observed[frame.index] = (t0, t1, 0.0, decision, False, None if obs is None else obs.reason)
        self.read_of[frame.index] = None
        return obs

    def parts(self, key: tuple, onset: float, arrived: float, positions: dict[int, int], recording: Any) -> dict:
        """The parts of one update's latency (seconds): `gate` (still table -> the camera frame that was read:
        the gate's settling, frames the camera skipped), `queue` (delivered -> the observer took it), `still`
        (asking for the still -> having it), `read` (the reader), `decoder` (the reading done -> the feed that
        sent the update: frames the decoder waited for), `feed` (that feed's own time), `push` (-> the phone);
        `emit`/`read_k`: the camera frames that sent it and whose reading it was; `other_table`: that reading
        is of another still table than the one timed (a later one: the decoder waited past a move)."""
        mid, complete = key
        emit = next((f for f in self.feeds if any(m[0] == mid and m[1] == complete and not m[2] for m in f[3])), None)
        if emit is None:
            return {}
        k_emit, f0, f1, _ = emit
        k_read = self.read_of.get(k_emit)
        out = {"emit": k_emit, "read_k": k_read, "feed": f1 - f0, "push": arrived - f1}
        if k_read is None or k_read not in self.observed:
            out["decoder"] = f0 - onset
            return out
        o0, o1, still = self.observed[k_read][:3]
        delivered = self.delivered.get(k_read, o0)
        out.update({"gate": delivered - onset, "queue": o0 - delivered, "still": still,
                    "read": o1 - o0 - still, "decoder": f0 - o1, "reader": self.reader_parts.get(k_read, {})})
        if k_read in positions:
            out["other_table"] = recording.still_onset(positions[k_read])
            # what the gate did on this table's frames before the one read (motion it saw, readings it threw away)
            table = recording.still_onset(positions[k_read])
            before = [k for k in sorted(self.observed) if k < k_read and k in positions
                      and recording.still_onset(positions[k]) == table]
            out["before"] = " ".join(f"{k}:{o[3]}" + ("" if o[3] != self.READ else f"({'usable' if o[4] else o[5]})")
                                     for k in before for o in [self.observed[k]])
        return out


    def story(self, onset: int, positions: dict[int, int], recording: Any) -> str:
        """What became of the table in the recorded state `onset` (a state_id): its full readings (camera frame:
        usable or why not) and the move events its frames' feeds sent (id, first/complete/removed; a re-sent
        one too)."""
        frames = sorted(k for k, p in positions.items() if recording.state_ids[recording.table_shown(p)] == onset)
        if not frames:
            return "never filmed (a still's pause skipped it)"
        reads = [f"{k}:{'usable' if o[4] else o[5]}" for k in frames if (o := self.observed.get(k)) and o[3] == self.READ]
        sent = [f"{mid}{' removed' if rem else ' complete' if comp else ' first'}@{k}"
                for k, _, _, moves in self.feeds if k in frames for mid, comp, rem in moves]
        return f"readings {' '.join(reads) or 'none'}; move events {' '.join(sent) or 'none'}"


class _TimedObserver:
    """The observer as the pipeline sees it, timed by its Timeline."""

    def __init__(self, timeline: Timeline):
        self._timeline = timeline

    def observe(self, frame: Any) -> Any:
        return self._timeline.observe(frame)

    def watch(self, frame: Any) -> Any:
        return self._timeline.watch(frame)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._timeline.inner, name)


#: how long a Pi camera's still takes (the video pauses meanwhile; docs/camera-path.md)
STILL_SECONDS = 0.5


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--session", help="a recorded session (default: render a fresh one)")
    parser.add_argument("--seed", type=int, default=5151)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--board", default="nwnz")
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--content", choices=("truth", "vision"), default="truth")
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--no-cpu", action="store_true")
    parser.add_argument("--updates", action="store_true", help="print every timed move update")
    parser.add_argument("--stills", metavar="WxH",
                        help="film the fresh session with full-resolution stills of this size (4608x2592: a Camera "
                             "Module 3 with stills on, picamera2's default): the reader reads a still of each settled "
                             "table, taken in 0.5 s as on a Pi (the stills are rendered before the camera runs)")
    args = parser.parse_args(argv)

    from camera.session import open_session

    tmp = None
    if args.session:
        folder = Path(args.session)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="keltis-live-bench-")
        folder = render_session(Path(tmp.name) / "session", args.seed, args.players, args.board, args.moves,
                                args.stills)
    session = open_session(folder)
    print(f"session {folder} ({session.info.game} {session.info.board}, {len(session.info.seats)} players, "
          f"{len(session.frames)} recorded frames over {session.frames[-1].t:.1f} s), camera at {args.fps:g} fps, "
          f"content {args.content}")
    if not args.no_cpu:
        for lores in (True, False):
            r = cpu_part(session, args.fps, args.content, lores)
            print(f"CPU per second of play ({'picamera2 lores stream' if lores else 'no lores: frames scaled down'}): "
                  f"{r['per_second']:.3f} of one core  ({r['cpu_seconds']:.1f} s CPU for {r['seconds_of_play']:.1f} s, "
                  f"{r['frames']} frames; per frame median {r['frame_ms_median']:.2f} ms, max {r['frame_ms_max']:.0f} ms)"
                  f"  target <= 0.25")
            print(f"  gate decisions: {r['gate']}; moves the tracker made: {r['moves']}")
    if not args.no_latency:
        r = latency_part(session, args.fps, args.content, args.clients)
        lat = r["latencies"]
        print(f"still table -> phone: {len(lat)} move updates timed at {args.clients} SSE clients "
              f"(recorded moves {r['moves_true']}; move updates per client {r['moves_seen']})")
        if lat:
            print(f"  median {statistics.median(lat):.3f} s, p95 {pct(lat, 95):.3f} s, max {max(lat):.3f} s  "
                  f"(targets: median <= 1.0 s, p95 <= 1.5 s)")
        print(f"  gate decisions: {r['gate']}")
        if r["watched"] or r["watch_cpu"]:
            print(f"  frames watched while a reading ran and fed: {r['watched']}; the watch thread's CPU "
                  f"{r['watch_cpu']:.2f} s ({r['watch_cpu'] / r['seconds']:.3f} of one core over the play)")
        if args.updates:
            print("  (parts: gate = still table -> the camera frame read; queue; still = the still's wait; read = the "
                  "reader; decoder = reading -> the feed that sent it; feed; push = -> the phone)")
            for lat_s, mid, complete, k, pos, onset, parts, _sid in sorted(r["details"], key=lambda d: (d[1], d[2])):
                words = " ".join(f"{n} {parts[n]:.2f}" for n in ("gate", "queue", "still", "read", "decoder", "feed",
                                                                "push") if n in parts)
                where = (f"; sent by camera frame {parts.get('emit')}, reading of camera frame {parts.get('read_k')}"
                         + (f" (table still from recorded frame {parts['other_table']})"
                            if parts.get("other_table", onset) != onset else "")) if parts else ""
                inside = " ".join(f"{n} {v:.0f}" for n, v in (parts.get("reader") or {}).items() if v >= 5)
                print(f"  move {mid} {'complete' if complete else 'first  '}: {lat_s:.3f} s  (camera frame {k}, "
                      f"recorded frame {pos}, table still from recorded frame {onset}){where}\n      {words}"
                      + (f"  (reader ms: {inside})" if inside else "")
                      + (f"\n      this table's frames before: {parts['before']}" if parts.get("before") else ""))
            print("  recorded moves (recorded frame; the table it left still from recorded frame; the updates timed "
                  "from a reading of that table at each client; what its readings sent):")
            for idx, seat, kind, frame, onset, sid in r["truth_moves"]:
                n = sum(1 for d in r["details"] if d[7] == sid)
                print(f"    {idx} {seat} {kind} at {frame}; still from {onset}; {n} timed; {r['stories'][sid]}")
        if r["removed"]:
            print(f"  moves shown and then withdrawn (not timed): {r['removed']}")
        if r["untimed"]:
            print(f"  move updates not timed (their frame was not one the camera gave): {r['untimed']}")
        if r["errors"]:
            print("  client errors:", r["errors"])
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
