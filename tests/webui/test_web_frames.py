"""Camera pictures: the latest frame with the reading drawn where it lies, and the calibration check
overlay, on a rendered frame of a bundled session (simulator, with its calibration)."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from webui.app import create_app
from webui.config import WebConfig
from webui.frames import FramePictures
from webui_fakes import PIN, FakeTracker, login, start_game

cv2 = pytest.importorskip("cv2")
np = pytest.importorskip("numpy")

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "base-2p"


def _index() -> int:
    """The last frame of the fixture that shows the table (no hand over it) with a big pawn on the path."""
    found = None
    for path in sorted((SESSION / "truth").glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("usable") and any(p["big"] and p["stone"] != "start" for p in data.get("pawns") or ()):
            found = int(path.stem)
    return found if found is not None else -1


INDEX = _index() if (SESSION / "truth").is_dir() else -1


@pytest.fixture(scope="module")
def frame():
    if INDEX < 0 or not (SESSION / "frames" / f"{INDEX:06d}.jpg").exists():
        pytest.skip("fixtures/sessions/base-2p is not there")
    image = cv2.imread(str(SESSION / "frames" / f"{INDEX:06d}.jpg"))
    return SimpleNamespace(image=image, index=INDEX, seq=1, timestamp=float(INDEX))


@pytest.fixture(scope="module")
def truth():
    return json.loads((SESSION / "truth" / f"{INDEX:06d}.json").read_text())


def decode(jpeg: bytes):
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def pipeline_with(frame):
    return SimpleNamespace(latest_frame=lambda: frame, status=lambda: {"state": "running"})


def test_the_reading_is_drawn_where_the_board_lies(frame, truth):
    pics = FramePictures.from_file(pipeline_with(frame), SESSION / "calibration.json")
    reg = pics._register(frame)
    assert reg is not None and reg.ok
    snapshot = {"event_id": 7, "game": {"board": "base"}, "table": truth}
    drawn = decode(pics.annotated(snapshot))
    plain = decode(pics.annotated({"event_id": 8, "game": {"board": "base"}, "table": None}))
    assert drawn.shape == plain.shape and max(drawn.shape[:2]) <= 960
    from engine.board import bundled_board

    big = next(p for p in truth["pawns"] if p["big"] and p["stone"] != "start")
    stone = bundled_board("base").stones[big["stone"]]  # a big pawn read there
    (x, y), = reg.board_to_image([(stone.x, stone.y)])
    scale = drawn.shape[1] / frame.image.shape[1]
    x, y = int(x * scale), int(y * scale)
    patch = np.abs(drawn[y - 3:y + 4, x - 3:x + 4].astype(int) - plain[y - 3:y + 4, x - 3:x + 4].astype(int))
    assert patch.mean() > 20  # the pawn marker is painted on the stone
    far = np.abs(drawn[-40:, :200].astype(int) - plain[-40:, :200].astype(int))
    assert far.mean() < 2  # away from the board and seats nothing changes


def test_calibration_view_shows_the_registration(frame):
    with_cal = decode(FramePictures.from_file(pipeline_with(frame), SESSION / "calibration.json").calibration_view())
    without = decode(FramePictures(pipeline_with(frame), None).calibration_view())
    assert with_cal.shape == without.shape
    assert np.abs(with_cal.astype(int) - without.astype(int)).mean() > 1  # outline, stones, seat zones


def test_pictures_are_made_once_per_frame(frame):
    """The calibration check of one frame is drawn (and its frame registered) once, however often asked."""
    from calibration.registration import DEFAULT_CONFIG, register_board

    calls = []

    def counting_register(calibration, image):
        calls.append(1)
        return register_board(DEFAULT_CONFIG, calibration, image)

    pics = FramePictures.from_file(pipeline_with(frame), SESSION / "calibration.json", register=counting_register)
    first = pics.calibration_view()
    assert pics.calibration_view() is first and len(calls) == 1


def test_placeholder_frames_are_not_pictures():
    tiny = SimpleNamespace(image=np.zeros((8, 8, 3), np.uint8), index=0, seq=1, timestamp=0.0)
    assert FramePictures(pipeline_with(tiny)).annotated({"table": None}) is None


def test_the_picture_routes(frame, truth, tmp_path):
    tracker = FakeTracker()
    start_game(tracker, players=2)
    app = create_app(tracker, pipeline=pipeline_with(frame), pin=PIN,
                     config=WebConfig(calibration_file=SESSION / "calibration.json"))
    try:
        client = app.test_client()
        resp = client.get("/view/frame.jpg")
        assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
        decode(resp.data)
        assert 'data-frames="1"' in client.get("/").get_data(as_text=True)
        assert client.get("/table/camera.jpg").status_code == 302  # the camera view needs the PIN
        login(client)
        html = client.get("/table/calibration").get_data(as_text=True)
        assert 'id="camera"' in html and "Live view" in html
        resp = client.get("/table/camera.jpg")
        assert resp.status_code == 200 and resp.headers["Cache-Control"] == "no-store"
        decode(resp.data)
    finally:
        app.extensions["keltis"].broadcaster.stop()
