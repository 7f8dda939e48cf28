"""`keltis-cam serve` starts the vision reader's warm-up (session 36, wt36-warm) in the background when it starts the
pipeline (ServedPipeline.start): the page comes up at once, before the warm-up ends; the game's first full reading
waits for it instead of building the same caches beside it."""
from __future__ import annotations

import threading
from pathlib import Path

from keltis_cam.cli import build_parser
from keltis_cam.commands import serve as cli
from vision.reader import Reader

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"


def test_serve_answers_the_phones_while_the_warm_up_still_runs(tmp_path, monkeypatch):
    release, started = threading.Event(), threading.Event()

    def slow_warm_up(self):
        started.set()
        release.wait(10)
        return {"slow": 1.0}

    monkeypatch.setattr(Reader, "warm_up", slow_warm_up)
    monkeypatch.setenv("KELTIS_CAM_CONFIG", str(tmp_path / "none.toml"))
    args = build_parser().parse_args(["serve", "--source", f"replay:{SESSION}", "--observer", "vision",
                                      "--data-dir", str(tmp_path / "data"), "--pin", "1357", "--port", "0"])
    parts = cli.build(args)
    try:
        observer = parts["built"].observer
        assert observer._warm_thread is None               # building the app warms nothing up ...
        parts["pipeline"].start()                           # ... starting the pipeline (cmd_serve) does
        assert started.wait(5)
        thread = observer._warm_thread
        assert thread is not None and thread.is_alive()     # ... in the background, and still runs
        page = parts["app"].test_client().get("/")
        assert page.status_code == 200 and thread.is_alive()   # the page is served meanwhile
        release.set()
        thread.join(5)
        assert not thread.is_alive() and observer.warmed == {"slow": 1.0}
    finally:
        release.set()
        parts["pipeline"].stop()
        parts["built"].close()
