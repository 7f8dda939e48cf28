"""The component catalogue: real dimensions, every piece drawn, exported for other tools."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from engine.board import bundled_board
from engine.cards import COLOURS
from simulator import components as comp
from simulator.export import export_components
from simulator.pawns import pawn_profile


def test_card_art_has_the_real_size_and_rounded_corners():
    art = comp.card_art(comp.CardFace("number", "red", 7))
    assert art.shape == (round(87 * comp.PPM_CARD), round(56 * comp.PPM_CARD), 4)
    assert art[0, 0, 3] == 0 and art[-1, -1, 3] == 0          # corners cut round
    assert art[art.shape[0] // 2, art.shape[1] // 2, 3] == 255


def test_each_colour_and_value_prints_differently_in_its_numeral_boxes():
    p = comp.PPM_CARD
    for name, (bx, by, bw, bh) in comp.NUMERAL_BOXES.items():
        crops = {}
        for v in range(11):
            art = comp.card_art(comp.CardFace("number", "blue", v))
            crops[v] = art[int(by * p):int((by + bh) * p), int(bx * p):int((bx + bw) * p), :3].astype(int)
            # The numeral is light on the card colour: the box holds both.
            assert crops[v].min(axis=2).max() > 200, (name, v)
        for a in range(11):
            for b in range(a + 1, 11):
                assert np.abs(crops[a] - crops[b]).mean() > 3, (name, a, b)


def test_numerals_stay_inside_the_strip_left_showing_in_a_row():
    from simulator.scene import MIN_STRIP

    for bx, by, bw, bh in comp.NUMERAL_BOXES.values():
        assert by + bh <= MIN_STRIP + 3
        assert 0 <= bx and bx + bw <= comp.CARD_W


def test_card_colours_are_distinct_from_each_other():
    cols = [np.array(v, float) for v in comp.CARD_RGB.values()]
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            assert np.linalg.norm(cols[i] - cols[j]) > 60


def test_tiles_are_round_and_coloured_by_whether_they_are_taken():
    for code in comp.TILE_CODES:
        art = comp.tile_art(code)
        n = round(comp.TILE_D * comp.PPM_TILE)
        assert art.shape == (n, n, 4)
        assert art[0, 0, 3] == 0 and art[n // 2, n // 2, 3] == 255
    stay = comp.tile_art("clover")[20, 100, :3][::-1].astype(int)
    taken = comp.tile_art("wish-red")[20, 100, :3][::-1].astype(int)
    assert taken[0] > taken[2] + 80          # orange
    assert stay[1] > stay[0] and stay[1] > stay[2]  # light green


def test_board_art_puts_each_stone_in_its_colour_where_the_board_file_says():
    for name in ("base", "nwnz"):
        board = bundled_board(name)
        art = comp.board_art(name)
        assert art.shape[:2] == (round(board.size_mm[1] * comp.PPM_BOARD), round(board.size_mm[0] * comp.PPM_BOARD))
        for s in board.stones.values():
            if s.kind == "start":
                continue
            # Half a radius off the centre (the centre may carry the tile-spot dot).
            x, y = int((s.x + 0.5 * s.r) * comp.PPM_BOARD), int(s.y * comp.PPM_BOARD)
            b, g, r = art[y, x, :3].astype(float)
            want = np.array(comp.STONE_RGB[s.color], float)
            got = np.array([r, g, b])
            assert np.linalg.norm(got / got.sum() - want / want.sum()) < 0.12, (name, s.id, got, want)


def test_pawn_profiles_have_the_real_size():
    for big, (w, h) in ((False, comp.PAWN_SMALL), (True, comp.PAWN_BIG)):
        prof = pawn_profile(big)
        assert max(z for z, _ in prof) == pytest.approx(h, abs=0.01)
        assert 2 * max(r for _, r in prof) == pytest.approx(w, abs=0.01)


def test_export_writes_every_image_and_the_dimensions(tmp_path):
    cat = export_components(tmp_path, boards=("base",))
    data = json.loads((tmp_path / "components.json").read_text())
    assert data["card"]["size"] == [56.0, 87.0] and data["tile"]["diameter"] == 25.0
    assert data["pawn"]["big"] == {"width": 19.0, "height": 50.0}
    for c in COLOURS:
        for v in range(11):
            assert (tmp_path / f"card-{c}-{v}.png").exists()
        assert (tmp_path / f"tile-wish-{c}.png").exists() and (tmp_path / f"wish-{c}.png").exists()
    for f in ("tile-clover.png", "tile-points-3.png", "tile-discard.png", "board-base.png", "card-points-10.png",
              "card-end-red.png", "card-wish-9.png", "card-back.png", "pawn-brown-big.png", "marker-0.png"):
        assert (tmp_path / f).exists(), f
    img = cv2.imread(str(tmp_path / "card-green-3.png"), cv2.IMREAD_UNCHANGED)
    assert img.shape == (round(87 * data["card"]["px_per_mm"]), round(56 * data["card"]["px_per_mm"]), 4)
    assert set(cat["files"]) == {p.stem for p in tmp_path.glob("*.png")}
    # The exported marker is the calibration's ArUco marker.
    marker = cv2.imread(str(tmp_path / "marker-2.png"), cv2.IMREAD_GRAYSCALE)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    _, ids, _ = det.detectMarkers(cv2.copyMakeBorder(marker, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255))
    assert ids is not None and ids.ravel().tolist() == [2]
