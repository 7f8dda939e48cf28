"""Memory stays flat (issue 18 item 9): OpenCV keeps memory per thread that draws text, so every
picture is drawn on one long-lived thread, whichever server thread the request arrives on.
(The memory figure itself: bench/frame_memory.py.)"""
from __future__ import annotations

import itertools
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from webui.app import create_app
from webui.config import WebConfig
from webui_fakes import PIN, LiveServer, start_game

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")


def test_pictures_are_drawn_on_one_thread_whatever_thread_serves_the_request(tracker, monkeypatch):
    seq = itertools.count()
    image = np.full((270, 480, 3), 90, np.uint8)

    def latest_frame():  # a new frame for every request: each one is drawn, none comes from the cache
        n = next(seq)
        return SimpleNamespace(image=image, index=n, seq=n, timestamp=float(n))

    drawn_on: list[str] = []
    real_put_text = cv2.putText

    def put_text(*args, **kwargs):
        drawn_on.append(threading.current_thread().name)
        return real_put_text(*args, **kwargs)

    monkeypatch.setattr(cv2, "putText", put_text)
    start_game(tracker)
    pipeline = SimpleNamespace(latest_frame=latest_frame, status=lambda: {"state": "running"})
    app = create_app(tracker, pipeline=pipeline, pin=PIN, config=WebConfig(poll_seconds=0.05))
    server = LiveServer(app, threads=8)
    try:
        def fetch(_):
            with urllib.request.urlopen(server.url + "/view/frame.jpg", timeout=10) as resp:
                assert resp.headers["Content-Type"] == "image/jpeg"
                return resp.read()

        with ThreadPoolExecutor(6) as pool:
            pictures = list(pool.map(fetch, range(40)))
    finally:
        server.close()
    assert all(p.startswith(b"\xff\xd8") for p in pictures)
    assert len(drawn_on) >= 40
    assert len(set(drawn_on)) == 1, f"text drawn on {len(set(drawn_on))} threads: {sorted(set(drawn_on))}"
    assert drawn_on[0].startswith("keltis-pictures")
