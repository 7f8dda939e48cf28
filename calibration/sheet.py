"""The printable marker sheet: `keltis-cam calibrate markers OUT.pdf`.

Page 1: the table markers at true size, each on a square to cut out. With the default layout a
square is exactly as large as its marker's offset from the board corner, so laying the square
with its marked corner touching the board's corner puts the marker where the calibration says,
with no measuring. Page 2: where everything goes (diagram and steps). Page 3: the ChArUco board
for `keltis-cam calibrate lens`. Every page has a 100 mm bar to check the print scale.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from .markers import CHARUCO, CharucoSpec, charuco_board, marker_modules
from .model import CARD_GAME_AREA
from .pdf import A4, Page

MARGIN = 12.0
CORNER_NAMES = {(0, 0): "north-west", (1, 0): "north-east", (1, 1): "south-east", (0, 1): "south-west"}
#: Horizontal x vertical field of view (degrees) of the usual cameras in their default keltis-cam mode.
CAMERAS_FOV = {"Camera Module 3": (66.0, 41.0), "Camera Module 3 Wide": (102.0, 67.0),
               "Camera Module 2": (62.2, 48.8)}


def draw_modules(page: Page, modules: Any, x: float, y: float, side: float) -> None:
    """Draw an ArUco module grid (0 = black) as black rectangles, one per horizontal run of modules."""
    n = modules.shape[0]
    cell = side / n
    for r in range(n):
        c = 0
        while c < n:
            if modules[r, c] == 0:
                start = c
                while c < n and modules[r, c] == 0:
                    c += 1
                page.rect(x + start * cell, y + r * cell, (c - start) * cell, cell, fill=0.0)
            else:
                c += 1


def draw_scale_bar(page: Page, x: float, y: float) -> None:
    """A 100 mm bar with 10 mm ticks and the instruction to check it."""
    page.rect(x, y, 100.0, 2.0, fill=0.0)
    for i in range(11):
        h = 4.0 if i % 5 == 0 else 2.5
        page.line(x + 10 * i, y - h, x + 10 * i, y, width=0.25)
    page.text(x + 104, y + 1.8, "100 mm: measure this bar. If it is not 100 mm, print again at 100 % "
                                "(\"Actual size\", not \"Fit to page\").", size=7)


def _board_size(calibration: Mapping[str, Any], board: Any) -> tuple[float, float]:
    if board is not None:
        return tuple(board.size_mm)
    return CARD_GAME_AREA


def marker_tiles(calibration: Mapping[str, Any], board_size: tuple[float, float]) -> list[dict[str, Any]]:
    """For each marker: the square to cut out (side) and, when it touches a board corner, which."""
    bw, bh = board_size
    tiles = []
    for item in calibration["markers"]["items"]:
        x, y, size = float(item["x"]), float(item["y"]), float(item["size"])
        tile = {"id": item["id"], "x": x, "y": y, "size": size, "side": size + 2 * max(8.0, size / 4),
                "corner": None}
        for (cx, cy), name in CORNER_NAMES.items():
            corner = (cx * bw, cy * bh)
            dx, dy = x - corner[0], y - corner[1]
            outward = (dx < 0) == (cx == 0) and (dy < 0) == (cy == 0)
            if outward and math.isclose(abs(dx), abs(dy), abs_tol=0.01) and 2 * abs(dx) >= size + 10:
                tile.update(side=2 * abs(dx), corner=name, corner_xy=corner)
        tiles.append(tile)
    return tiles


def markers_page(calibration: Mapping[str, Any], board: Any, title: str) -> Page:
    page = Page(*A4)
    dictionary = calibration["markers"]["dictionary"]
    tiles = marker_tiles(calibration, _board_size(calibration, board))
    page.text(MARGIN, MARGIN + 5, f"keltis-cam table markers - {title}", size=15, bold=True)
    y = page.paragraph(MARGIN, MARGIN + 13,
                       "Cut out each square along its dashed line (glue it on card so it lies flat). Lay each square "
                       "beside the board so that its corner with the black triangle touches the board corner named "
                       "on it and its edges run along the board edges; the writing then reads upright from the south "
                       "seat (the start stone's side). Page 2 shows the whole table.",
                       A4[0] - 2 * MARGIN, size=9)
    gap = 10.0
    cell = max(t["side"] for t in tiles) + gap
    grid_top = y + 2
    # Corner tiles sit on the page as on the table (north-west top left, ...), the others after them.
    slots = {"north-west": (0, 0), "north-east": (1, 0), "south-west": (0, 1), "south-east": (1, 1)}
    taken = {slots[t["corner"]] for t in tiles if t["corner"] in slots}
    free = iter((c, r) for r in range(20) for c in range(2) if (c, r) not in taken)
    rows_used = 0
    for tile in tiles:
        side = tile["side"]
        col, row = slots[tile["corner"]] if tile["corner"] in slots else next(free)
        rows_used = max(rows_used, row + 1)
        left = MARGIN + col * cell + (cell - gap - side)  * (1 - col)
        top = grid_top + row * cell
        page.rect(left, top, side, side, fill=None, stroke=0.45, line_width=0.25, dash=(2.0, 1.5))
        s = tile["size"]
        mx, my = left + (side - s) / 2, top + (side - s) / 2
        draw_modules(page, marker_modules(dictionary, int(tile["id"])), mx, my, s)
        label = f"marker {tile['id']}"
        if tile["corner"]:
            label += f" - {tile['corner']} corner"
            # the triangle sits in the square's corner that touches the board corner
            cx = left + side if tile["corner"].endswith("west") else left
            cy = top + side if tile["corner"].startswith("north") else top
            sx = -1 if tile["corner"].endswith("west") else 1
            sy = -1 if tile["corner"].startswith("north") else 1
            page.polygon([(cx, cy), (cx + sx * 7, cy), (cx, cy + sy * 7)], fill=0.0)
        else:
            label += f" - centre at x {tile['x']:g}, y {tile['y']:g} mm"
        page.text(left + 3, top + 5, label, size=7)
        page.text(left + side / 2, top + side - 3, "this edge toward the south seat", size=6, align="centre", grey=0.3)
    top = grid_top + rows_used * cell
    page.paragraph(MARGIN, top + 4, f"Dictionary {dictionary}; each black square is {tiles[0]['size']:g} mm wide. "
                                    "Keep the markers uncovered, flat and unmoved during the game. If one is moved, "
                                    "put it back and run: keltis-cam calibrate check", A4[0] - 2 * MARGIN, size=8)
    draw_scale_bar(page, MARGIN, A4[1] - MARGIN - 2)
    return page


def camera_heights(area: tuple[float, float]) -> list[tuple[str, float]]:
    """How high above the table centre each usual camera must be to see `area` (w, h mm): (name, metres)."""
    w, h = area
    out = []
    for name, (fov_h, fov_v) in CAMERAS_FOV.items():
        # the camera's long side along the table's long side
        long_side, short_side = max(w, h), min(w, h)
        need = max(long_side / 2 / math.tan(math.radians(fov_h / 2)), short_side / 2 / math.tan(math.radians(fov_v / 2)))
        out.append((name, need * 1.1 / 1000.0))  # 10 % spare around the edges
    return out


def table_extent(calibration: Mapping[str, Any], board_size: tuple[float, float]) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in mm covering the board, the markers and the seats."""
    xs = [0.0, board_size[0]]
    ys = [0.0, board_size[1]]
    for item in calibration["markers"]["items"]:
        h = item["size"] / 2
        xs += [item["x"] - h, item["x"] + h]
        ys += [item["y"] - h, item["y"] + h]
    for rect in calibration.get("seats", {}).values():
        xs += [rect["x"], rect["x"] + rect["w"]]
        ys += [rect["y"], rect["y"] + rect["h"]]
    return min(xs), min(ys), max(xs), max(ys)


def layout_page(calibration: Mapping[str, Any], board: Any, title: str) -> Page:
    page = Page(*A4)
    bw, bh = _board_size(calibration, board)
    x0, y0, x1, y1 = table_extent(calibration, (bw, bh))
    page.text(MARGIN, MARGIN + 5, "Where everything goes", size=15, bold=True)
    # diagram, scaled to the page width
    avail_w, avail_h = A4[0] - 2 * MARGIN, 120.0
    scale = min(avail_w / (x1 - x0), avail_h / (y1 - y0))
    ox = MARGIN + (avail_w - (x1 - x0) * scale) / 2 - x0 * scale
    oy = MARGIN + 12 - y0 * scale

    def P(x: float, y: float) -> tuple[float, float]:
        return ox + x * scale, oy + y * scale

    for seat, rect in calibration.get("seats", {}).items():
        (sx, sy), (ex, ey) = P(rect["x"], rect["y"]), P(rect["x"] + rect["w"], rect["y"] + rect["h"])
        page.rect(sx, sy, ex - sx, ey - sy, fill=0.93, stroke=0.5, line_width=0.2)
        page.text((sx + ex) / 2, (sy + ey) / 2, seat, size=8, bold=True, align="centre")
        page.text((sx + ex) / 2, (sy + ey) / 2 + 3.5, "seat area", size=6, align="centre")
    (bx, by), (ex, ey) = P(0, 0), P(bw, bh)
    page.rect(bx, by, ex - bx, ey - by, fill=0.8, stroke=0.0, line_width=0.3)
    page.text((bx + ex) / 2, (by + ey) / 2 - 2, "board" if calibration.get("board") else "play area (card game)",
              size=9, bold=True, align="centre")
    page.text((bx + ex) / 2, (by + ey) / 2 + 3, f"{bw:g} x {bh:g} mm, start stone toward south", size=7,
              align="centre")
    for tile in marker_tiles(calibration, (bw, bh)):
        h = tile["size"] / 2
        (mx, my), (nx, ny) = P(tile["x"] - h, tile["y"] - h), P(tile["x"] + h, tile["y"] + h)
        page.rect(mx, my, nx - mx, ny - my, fill=0.0)
        page.text((mx + nx) / 2, ny + 3, str(tile["id"]), size=7, align="centre")
    bottom = oy + y1 * scale + 8
    heights = ", ".join(f"{name} {m:.1f} m" for name, m in camera_heights((x1 - x0, y1 - y0)))
    steps = [
        "1. Print this file at 100 % (\"Actual size\"). Check the 100 mm bar at the bottom of each page.",
        "2. Put the board in the middle of the table, the start stone toward the south seat.",
        "3. Cut out the marker squares of page 1 and lay each one at its corner of the board: the corner with the "
        "black triangle touching the board corner, the square's edges along the board's edges.",
        "4. Each player keeps their card rows and wish stones inside their grey seat area.",
        f"5. Mount the camera straight above the middle of the board, looking down, high enough to see all four "
        f"markers and every seat area ({(x1 - x0) / 10:.0f} x {(y1 - y0) / 10:.0f} cm): about {heights}.",
        "6. Run: keltis-cam calibrate check  - it photographs the table and draws the board and seat areas it "
        "found into an image. Adjust the camera until they line up.",
        "7. Optional, for the best accuracy: print page 3 and run keltis-cam calibrate lens once per camera.",
    ]
    y = bottom
    for step in steps:
        y = page.paragraph(MARGIN, y, step, A4[0] - 2 * MARGIN, size=9) + 1.5
    draw_scale_bar(page, MARGIN, A4[1] - MARGIN - 2)
    return page


def charuco_modules(spec: CharucoSpec) -> list[tuple[int, Any]]:
    """(marker id, module grid) for the ChArUco board's markers."""
    board = charuco_board(spec)
    return [(int(i), marker_modules(spec.dictionary, int(i))) for i in board.getIds().ravel()]


def draw_charuco(page: Page, spec: CharucoSpec, x: float, y: float) -> None:
    """The ChArUco board as vectors at true size with its top-left corner at (x, y) mm.

    Square colours and marker placement come from OpenCV's own board (its rendered image and its
    marker corner coordinates), so the print is exactly the board calibrate lens looks for."""
    import numpy as np

    board = charuco_board(spec)
    ppm = 4
    ref = board.generateImage((int(spec.size_mm[0] * ppm), int(spec.size_mm[1] * ppm)), marginSize=0, borderBits=1)
    corners = board.getObjPoints()
    marker_cells = set()
    for quad in corners:
        c = np.asarray(quad).reshape(4, 3)[:, :2].mean(axis=0)
        marker_cells.add((int(c[0] // spec.square_mm), int(c[1] // spec.square_mm)))
    for row in range(spec.squares_y):
        for col in range(spec.squares_x):
            if (col, row) in marker_cells:
                continue
            px = int((col + 0.5) * spec.square_mm * ppm)
            py = int((row + 0.5) * spec.square_mm * ppm)
            if ref[py, px] < 128:
                page.rect(x + col * spec.square_mm, y + row * spec.square_mm, spec.square_mm, spec.square_mm, fill=0.0)
    for (mid, modules), quad in zip(charuco_modules(spec), corners):
        q = np.asarray(quad).reshape(4, 3)[:, :2]
        tl, tr, _br, bl = q
        ux, vy = (tr - tl) / modules.shape[0], (bl - tl) / modules.shape[0]
        if abs(ux[1]) > 1e-6 or abs(vy[0]) > 1e-6:
            raise ValueError("ChArUco markers are expected axis-aligned")
        n = modules.shape[0]
        cell_w, cell_h = ux[0], vy[1]
        for r in range(n):
            for c in range(n):
                if modules[r, c] == 0:
                    x0 = x + tl[0] + c * cell_w
                    y0 = y + tl[1] + r * cell_h
                    page.rect(min(x0, x0 + cell_w), min(y0, y0 + cell_h), abs(cell_w), abs(cell_h), fill=0.0)


def charuco_origin(spec: CharucoSpec = CHARUCO) -> tuple[float, float]:
    """Where the ChArUco board's top-left corner lies on its page (mm)."""
    return (A4[0] - spec.size_mm[0]) / 2, MARGIN + 22


def charuco_page(spec: CharucoSpec = CHARUCO) -> Page:
    page = Page(*A4)
    page.text(MARGIN, MARGIN + 5, "Lens calibration board (ChArUco)", size=15, bold=True)
    page.paragraph(MARGIN, MARGIN + 12,
                   f"Glue flat on stiff card. Run keltis-cam calibrate lens and hold the board in front of the camera "
                   f"at different places and tilts until enough views are collected. {spec.squares_x} x "
                   f"{spec.squares_y} squares of {spec.square_mm:g} mm, markers {spec.marker_mm:g} mm, "
                   f"{spec.dictionary}.", A4[0] - 2 * MARGIN, size=8)
    draw_charuco(page, spec, *charuco_origin(spec))
    draw_scale_bar(page, MARGIN, A4[1] - MARGIN - 2)
    return page


def sheet_pages(calibration: Mapping[str, Any], board: Any = None, *, lens_board: bool = True) -> list[Page]:
    """All pages of the marker sheet for a calibration (and its Board, for the title and size)."""
    title = getattr(board, "title", None) or (calibration.get("board") or "card game (no board)")
    pages = [markers_page(calibration, board, title), layout_page(calibration, board, title)]
    if lens_board:
        pages.append(charuco_page())
    return pages


def write_sheet(path: str, calibration: Mapping[str, Any], board: Any = None, *, lens_board: bool = True) -> int:
    """Write the marker sheet PDF; returns the number of pages."""
    from .pdf import write_pdf

    pages = sheet_pages(calibration, board, lens_board=lens_board)
    write_pdf(pages, path, title="keltis-cam marker sheet")
    return len(pages)


def tile_positions(page: Page) -> Sequence[tuple]:
    """The dashed cut squares of a markers page (x, y, side), for tests."""
    return [(op[1], op[2], op[3]) for op in page.ops if op[0] == "rect" and op[8]]
