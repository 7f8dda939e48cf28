"""engine.board_svg.board_to_svg and `keltis-cam board show` (README, "Board files")."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from engine.board import load_board, parse_board
from engine.board_svg import FILL, board_to_svg
from keltis_cam.cli import main

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{{{NS['svg']}}}{tag}") if e.get("class") == cls]


def texts(root: ET.Element, cls: str | None = None) -> list[str]:
    return [e.text or "" for e in root.iter(f"{{{NS['svg']}}}text") if cls is None or e.get("class") == cls]


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_svg_is_xml_at_one_to_one_scale(name):
    board = load_board(name)
    root = parse(board_to_svg(board))
    assert root.tag == f"{{{NS['svg']}}}svg"
    x0, y0, vw, vh = map(float, root.get("viewBox").split())
    assert root.get("width") == f"{vw:g}mm" and root.get("height") == f"{vh:g}mm"  # 1 unit = 1 mm
    outline = by_class(root, "rect", "board")
    assert len(outline) == 1
    w, h = board.size_mm
    assert (float(outline[0].get("width")), float(outline[0].get("height"))) == (w, h)
    assert (float(outline[0].get("x")), float(outline[0].get("y"))) == (0, 0)
    assert x0 < 0 and y0 < 0 and x0 + vw > w and y0 + vh > h  # margins for values, title, legend


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_one_circle_per_stone_in_its_colour_and_place(name):
    board = load_board(name)
    root = parse(board_to_svg(board))
    circles = by_class(root, "circle", "stone")
    assert len(circles) == len(board.stones)
    assert {c.get("data-id") for c in circles} == set(board.stones)
    for c in circles:
        s = board.stones[c.get("data-id")]
        assert (float(c.get("cx")), float(c.get("cy")), float(c.get("r"))) == pytest.approx((s.x, s.y, s.r), abs=0.06)
        if s.kind == "stone":
            assert c.get("fill") == FILL[s.color]
    ids = texts(root, "stone-id")
    assert sorted(ids) == sorted(s for s in board.stones if s != board.start.id)


@pytest.mark.parametrize("name", ["base", "nwnz"])
def test_arrows_tiles_piles_ends_and_goal(name):
    board = load_board(name)
    root = parse(board_to_svg(board))
    steps = by_class(root, "line", "step")
    edges = {(s.id, n) for s in board.stones.values() for n in s.next}
    assert {(e.get("data-from"), e.get("data-to")) for e in steps} == edges and len(steps) == len(edges)
    assert all(e.get("marker-end") == "url(#arrow)" for e in steps)
    assert root.find(".//svg:defs/svg:marker[@id='arrow']", NS) is not None
    assert len(by_class(root, "circle", "tile-spot")) == len(board.tile_spots)
    assert len(by_class(root, "circle", "end-ring")) == 5
    piles = by_class(root, "g", "wish-pile")
    assert {(g.get("data-colour"), g.get("data-stone")) for g in piles} == set(board.wish_piles.items())
    for g in piles:
        assert f"{g.get('data-colour')} wish" in texts(g)
        assert len(g.findall("svg:ellipse", NS)) == 3  # a stack of stones
    assert len(by_class(root, "polygon", "goal-area")) == 1


def test_row_values_in_the_margin():
    board = load_board("nwnz")
    root = parse(board_to_svg(board))
    values = by_class(root, "text", "row-value")
    assert len(values) == board.max_row
    expected = ["\u22124", "\u22123", "0", "+1", "+2", "+3", "+4", "+5", "+8", "+7", "+6", "+10"]
    by_row = sorted(values, key=lambda e: -float(e.get("y")))  # row 1 is lowest (south)
    assert [e.text for e in by_row] == expected
    assert all(float(e.get("x")) < 0 for e in values)  # left of the board outline


def test_title_and_reconstructed_note(raw_board):
    board = load_board("nwnz")
    root = parse(board_to_svg(board))
    assert "Neue Wege, neue Ziele" in root.find("svg:title", NS).text
    assert any("Neue Wege, neue Ziele" in t for t in texts(root, "title"))
    assert len(by_class(root, "text", "reconstructed")) == 1
    data = raw_board("nwnz")
    data["reconstructed"] = False
    data["title"] = 'Measured <board> & "co"'
    root = parse(board_to_svg(parse_board(data, "measured.json")))
    assert by_class(root, "text", "reconstructed") == []
    assert any('Measured <board> & "co"' in t for t in texts(root, "title"))


def test_legend_lists_only_what_the_board_has():
    base = parse(board_to_svg(load_board("base")))
    nwnz = parse(board_to_svg(load_board("nwnz")))
    assert not any("joker" in t for t in texts(base)) and not any("pile" in t for t in texts(base))
    assert any("joker" in t for t in texts(nwnz)) and any("wish-stone pile" in t for t in texts(nwnz))
    assert "tile spot (22)" in texts(nwnz) and "tile spot (25)" in texts(base)


# --- the command line -----------------------------------------------------------------------------

def test_cli_board_show_writes_svg(tmp_path, capsys):
    out = tmp_path / "out.svg"
    assert main(["board", "show", "nwnz", "--svg", str(out)]) == 0
    root = parse(out.read_text(encoding="utf-8"))
    assert len(by_class(root, "circle", "stone")) == len(load_board("nwnz").stones)
    assert "wrote" in capsys.readouterr().out


def test_cli_board_show_takes_a_path_and_prints_to_stdout(raw_board, write_board, capsys):
    data = raw_board("base")
    data["name"] = "my-base"
    path = write_board(data, "my-base.json")
    assert main(["board", "show", str(path)]) == 0
    root = parse(capsys.readouterr().out)
    assert len(by_class(root, "circle", "stone")) == 46


def test_cli_board_show_malformed_board_exits_2_with_one_line(raw_board, write_board, capsys):
    data = raw_board("nwnz")
    data["stones"][5]["next"] = ["nowhere"]
    path = write_board(data, "bad-board.json")
    assert main(["board", "show", str(path), "--svg", str(path.with_suffix(".svg"))]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and err.startswith("keltis-cam board: error:")
    assert str(path) in err and "nowhere" in err
    assert not path.with_suffix(".svg").exists()
    assert captured.out == ""


def test_cli_board_show_unknown_name_exits_2(capsys):
    assert main(["board", "show", "atlantis"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no bundled board named 'atlantis'" in err
