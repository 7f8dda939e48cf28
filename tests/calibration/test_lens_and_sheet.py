"""Lens calibration on synthetic ChArUco views; the printable marker sheet (PDF) and what it prints."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.lens import DEFAULT_LENS_CONFIG, ViewCollector, calibrate_lens, detect_charuco
from calibration.markers import CHARUCO, charuco_image, marker_image, marker_modules
from calibration.model import default_calibration, load_calibration, save_calibration
from calibration.pdf import Page, pdf_bytes, rasterize
from calibration.registration import DEFAULT_CONFIG, detect_markers
from calibration.sheet import charuco_origin, sheet_pages, tile_positions
from engine.board import load_board
from keltis_cam.cli import main

SIZE = (800, 600)
K_TRUE = np.array([[700.0, 0, 395], [0, 700.0, 305], [0, 0, 1]])
DIST_TRUE = np.array([-0.15, 0.05, 0, 0, 0])


def render_charuco_views(n: int, seed: int = 3):
    """n views of the ChArUco board through K_TRUE/DIST_TRUE at random poses."""
    ppm, margin = 3.0, 40
    board = cv2.copyMakeBorder(charuco_image(CHARUCO, ppm), margin, margin, margin, margin, cv2.BORDER_CONSTANT,
                               value=255)
    S = np.array([[1 / ppm, 0, -margin / ppm], [0, 1 / ppm, -margin / ppm], [0, 0, 1]])
    w, h = SIZE
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    und = cv2.undistortPoints(np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2), K_TRUE, DIST_TRUE,
                              P=K_TRUE).reshape(h, w, 2)
    rng = np.random.default_rng(seed)
    bw, bh = CHARUCO.size_mm
    for _ in range(n):
        R, _ = cv2.Rodrigues(np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), rng.uniform(-0.4, 0.4)]))
        t = np.array([rng.uniform(-bw * 0.9, -bw * 0.1), rng.uniform(-bh * 0.8, -bh * 0.2), rng.uniform(420, 600)])
        H = K_TRUE @ np.column_stack([R[:, 0], R[:, 1], t]) @ S
        flat = cv2.warpPerspective(board, H, SIZE, borderValue=128)
        yield cv2.remap(flat, und[..., 0], und[..., 1], cv2.INTER_LINEAR, borderValue=128)


@pytest.fixture(scope="module")
def views():
    return list(render_charuco_views(24))


def test_lens_calibration_recovers_K_and_distortion(views):
    collector = ViewCollector(DEFAULT_LENS_CONFIG)
    kept = [collector.offer(detect_charuco(DEFAULT_LENS_CONFIG, v)) for v in views]
    assert sum(kept) >= DEFAULT_LENS_CONFIG.min_views
    assert sum(kept) < len(views)  # near-duplicate poses are not kept twice
    result = calibrate_lens(DEFAULT_LENS_CONFIG, collector.views, SIZE)
    assert result.ok and result.rms < 0.5
    assert np.allclose(result.K[0, 0], 700, rtol=0.02) and np.allclose(result.K[1, 1], 700, rtol=0.02)
    assert abs(result.K[0, 2] - 395) < 8 and abs(result.K[1, 2] - 305) < 8
    assert abs(result.dist[0] - DIST_TRUE[0]) < 0.03
    cam = result.to_camera_json()
    assert cam["size"] == [800, 600] and len(cam["dist"]) == 5 and cam["views"] == len(collector.views)


def test_too_few_views_is_a_clear_error(views):
    collector = ViewCollector(DEFAULT_LENS_CONFIG)
    collector.offer(detect_charuco(DEFAULT_LENS_CONFIG, views[0]))
    with pytest.raises(ValueError, match="needs at least"):
        calibrate_lens(DEFAULT_LENS_CONFIG, collector.views, SIZE)
    assert detect_charuco(DEFAULT_LENS_CONFIG, np.full((600, 800), 200, np.uint8)) is None


def test_cli_lens_from_images_updates_the_calibration_file(views, tmp_path, capsys):
    paths = []
    for i, view in enumerate(views):
        path = tmp_path / f"v{i:02d}.png"
        cv2.imwrite(str(path), view)
        paths.append(str(path))
    cal_path = tmp_path / "calibration.json"
    base = default_calibration("base")
    base["notes"] = "kept"
    save_calibration(base, cal_path)
    assert main(["calibrate", "lens", "--images", *paths, "--out", str(cal_path)]) == 0
    cal = load_calibration(cal_path)
    assert cal["camera"]["size"] == [800, 600] and abs(cal["camera"]["K"][0][0] - 700) < 14
    assert cal["markers"] == base["markers"] and cal["notes"] == "kept"
    assert "RMS" in capsys.readouterr().out


def test_marker_images_match_the_dictionary():
    modules = marker_modules("DICT_4X4_50", 7)
    assert modules.shape == (6, 6) and set(np.unique(modules)) <= {0, 255}
    img = marker_image("DICT_4X4_50", 7, 120, quiet_px=30)
    assert img.shape == (180, 180)
    found = detect_markers(DEFAULT_CONFIG, img)
    assert [m.id for m in found] == [7]
    with pytest.raises(ValueError):
        marker_modules("DICT_4X4_50", 50)


@pytest.fixture(scope="module")
def pages():
    board = load_board("base")
    return sheet_pages(default_calibration(board), board)


def test_sheet_pdf_is_a_valid_three_page_a4_document(pages, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    path = tmp_path / "markers.pdf"
    assert main(["calibrate", "markers", str(path), "--board", "base"]) == 0
    reader = pypdf.PdfReader(str(path))
    assert len(reader.pages) == 3
    for page in reader.pages:
        assert [round(float(v), 1) for v in page.mediabox] == [0, 0, 595.3, 841.9]  # A4 in points
    text = [p.extract_text() for p in reader.pages]
    assert "marker 0 - north-west corner" in text[0] and "100 mm" in text[0]
    assert "start stone toward the south seat" in text[1] and "keltis-cam calibrate check" in text[1]
    assert "ChArUco" in text[2]


def test_printed_markers_are_detectable_at_true_size(pages):
    px_per_mm = 4.0
    found = detect_markers(DEFAULT_CONFIG, rasterize(pages[0], px_per_mm))
    assert [m.id for m in found] == [0, 1, 2, 3]
    for m in found:
        side_mm = np.linalg.norm(m.corners[1] - m.corners[0]) / px_per_mm
        assert abs(side_mm - 40.0) < 0.5
    # each cut-out square is twice the marker offset (80 mm), so its corner touches the board corner
    assert sorted({round(side, 3) for _x, _y, side in tile_positions(pages[0])}) == [80.0]


def test_printed_scale_bar_is_100_mm(pages):
    for page in pages:
        bars = [op for op in page.ops if op[0] == "rect" and op[3] == 100.0 and op[4] == 2.0]
        assert len(bars) == 1


def test_printed_charuco_board_is_the_one_lens_calibration_detects(pages):
    img = rasterize(pages[2], 4.0)
    view = detect_charuco(DEFAULT_LENS_CONFIG, img)
    assert view is not None and len(view.ids) == (CHARUCO.squares_x - 1) * (CHARUCO.squares_y - 1)
    # and it matches OpenCV's own drawing of the board pixel for pixel (but for edge pixels)
    w, h = CHARUCO.size_mm
    left, top = charuco_origin(CHARUCO)
    crop = img[int(round(top * 4)):int(round((top + h) * 4)), int(round(left * 4)):int(round((left + w) * 4))]
    ref = charuco_image(CHARUCO, 4.0)
    assert crop.shape == ref.shape
    assert (np.abs(crop.astype(int) - ref.astype(int)) > 128).mean() < 0.03


def test_pdf_writer_escapes_text_and_keeps_offsets_right():
    page = Page()
    page.text(10, 10, "a (tricky) \\ text")
    data = pdf_bytes([page])
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    xref_at = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert data[xref_at:xref_at + 4] == b"xref"
    offsets = [int(line[:10]) for line in data[xref_at:].split(b"\n")[3:] if line.endswith(b" n ")]
    for i, off in enumerate(offsets, start=1):
        assert data[off:].startswith(b"%d 0 obj" % i)


def test_card_game_sheet_and_custom_marker_positions():
    cal = default_calibration(None)
    cal["markers"]["items"].append({"id": 9, "x": 280, "y": -150, "size": 30})
    pages = sheet_pages(cal, None, lens_board=False)
    assert len(pages) == 2
    found = detect_markers(DEFAULT_CONFIG, rasterize(pages[0], 4.0))
    assert sorted(m.id for m in found) == [0, 1, 2, 3, 9]
    json.dumps(cal)
