"""What `keltis-cam serve` runs behind the web app: the tracking pipeline in a thread, kept going.

A camera pipeline runs until the server stops. A replayed session runs to its end, the tracker then
closes the game ("recording ended"), and with `loop` the same recording starts again as a new game
after a pause (the bundled demo: a newcomer always finds a game in progress). The web app holds
this object as its `pipeline`: status() and latest_frame() always speak for the current run.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)


class ServedPipeline:
    """Runs Pipeline(source, observer, tracker) in a thread; restarts replays when looping."""

    def __init__(self, make_source: Callable[[], Any], observer: Any, tracker: Any, *,
                 setup: dict[str, Any] | None = None, loop: bool = False, pause_seconds: float = 20.0):
        self.make_source = make_source
        self.observer = observer
        self.tracker = tracker
        self.setup = setup            # a replay's game: started anew for every run
        self.loop = loop
        self.pause_seconds = pause_seconds
        self.runs = 0
        self.pipeline: Any = None
        self.state = "idle"
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> "ServedPipeline":
        """Start the first run in a background thread."""
        if self._thread is None:
            if self.setup is not None:  # the game exists before the first page is served
                self.tracker.new_game(self.setup)
            self._thread = threading.Thread(target=self._run, name="keltis-serve-pipeline", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        from engine.tracking.pipeline import Pipeline

        first = True
        while not self._stop.is_set():
            if self.setup is not None and not first:
                self.tracker.new_game(self.setup)
            first = False
            source = self.make_source()
            with self._lock:
                self.pipeline = Pipeline(source, self.observer, self.tracker)
                self.runs += 1
                self.state = "running"
            if hasattr(source, "start"):
                source.start()
            try:
                self.pipeline.run()
            except Exception as exc:  # shown on the page; the server keeps serving the last state
                self.state, self.error = "failed", str(exc)
                log.exception("the tracking pipeline stopped")
                return
            finally:
                if hasattr(source, "stop"):
                    source.stop()
            if self._stop.is_set():
                break
            if hasattr(self.tracker, "finish"):
                self.tracker.finish("recording ended")
            if not self.loop:
                self.state = "ended"
                return
            self.state = "pausing"
            if self._stop.wait(self.pause_seconds):
                break
        self.state = "stopped"

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the current run and the loop."""
        self._stop.set()
        with self._lock:
            pipeline = self.pipeline
        if pipeline is not None:
            pipeline.stop(timeout)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        """The current run's status, plus the loop's."""
        with self._lock:
            pipeline = self.pipeline
        inner = pipeline.status() if pipeline is not None else {}
        out = dict(inner)
        out.update({"serve_state": self.state, "runs": self.runs, "loop": self.loop})
        if self.error:
            out["serve_error"] = self.error
        return out

    def latest_frame(self) -> Any | None:
        """The newest camera (or recorded) frame with its image, or None."""
        with self._lock:
            pipeline = self.pipeline
        source = getattr(pipeline, "source", None)
        latest = getattr(source, "latest", None)
        if latest is None:
            return None
        try:
            return latest(timeout=0)
        except Exception:
            return None
