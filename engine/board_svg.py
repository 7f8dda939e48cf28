"""Draw any valid board file (FORMATS §1) as SVG at 1:1 scale (1 user unit = 1 mm).

The drawing is for a person holding a print or a screen against their physical board: the board
outline at size_mm in the board's own frame, every stone in its colour with its id, the `next`
steps as arrows, row values in the left margin, tile spots, wish piles, end stones and the goal
area. Row values, title and legend sit in a margin outside the outline so the board itself keeps
the board frame's coordinates.
"""
from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from .board import Board, Stone

#: Fill colours of the stones; base-game red is a dark red / rust ("Rotbraun", RULES §1).
FILL = {"red": "#8e2f1c", "yellow": "#e9c32a", "pink": "#e48db3", "green": "#3f9a45",
        "blue": "#2e68b8", "joker": "#9c9c9c", None: "#d8cfb8"}
INK = "#2b2b2b"
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 46, 10, 24, 30


def _n(v: float) -> str:
    """A coordinate with at most one decimal, no trailing zeros."""
    return f"{round(v, 1):g}"


def _text_ink(fill: str) -> str:
    """Black or white text, whichever reads better on this fill."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Convex hull (monotone chain), counter-clockwise; fewer than 3 points come back as they are."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _text(x: float, y: float, s: str, size: float, *, anchor: str = "middle", fill: str = INK,
          weight: str = "normal", halo: bool = False, cls: str = "label") -> str:
    halo_attrs = ' stroke="#ffffff" stroke-width="0.9" paint-order="stroke"' if halo else ""
    return (f'<text class="{cls}" x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" '
            f'dominant-baseline="central" font-family="DejaVu Sans, Arial, sans-serif" font-weight="{weight}" '
            f'fill="{fill}"{halo_attrs}>{escape(s)}</text>')


def _arrow(a: Stone, b: Stone) -> str:
    """A `next` step from the rim of stone a to the rim of stone b."""
    dx, dy = b.x - a.x, b.y - a.y
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    x1, y1 = a.x + ux * (a.r + 0.8), a.y + uy * (a.r + 0.8)
    x2, y2 = b.x - ux * (b.r + 0.8), b.y - uy * (b.r + 0.8)
    return (f'<line class="step" data-from={quoteattr(a.id)} data-to={quoteattr(b.id)} x1="{_n(x1)}" '
            f'y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="#4a4136" stroke-width="0.9" '
            f'marker-end="url(#arrow)"/>')


def _seg_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from point p to segment ab."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _free_side(s: Stone, board: Board) -> tuple[float, float]:
    """Where beside stone s a small symbol is least in the way of arrows and other stones."""
    segments = [((a.x, a.y), (board.stones[n].x, board.stones[n].y)) for a in board.stones.values() for n in a.next]
    best, best_clear = (s.x + s.r + 6.5, s.y), -1.0
    for deg in (0, 180, -35, -145, 35, 145, -90, 90):
        p = (s.x + (s.r + 6.5) * math.cos(math.radians(deg)), s.y + (s.r + 6.5) * math.sin(math.radians(deg)))
        probes = (p, (p[0], p[1] + 8.6))  # the stack and its label below it
        clear = min([_seg_dist(q, a, b) for q in probes for a, b in segments]
                    + [math.hypot(q[0] - o.x, q[1] - o.y) - o.r for q in probes for o in board.stones.values()])
        if clear > best_clear + 0.5:
            best, best_clear = p, clear
    return best


def _wish_pile(s: Stone, board: Board) -> list[str]:
    """A small stack of wish stones beside the stone, in the pile's colour, labelled."""
    cx, cy = _free_side(s, board)
    base = cy + 3.2
    out = ['<g class="wish-pile" data-stone=' + quoteattr(s.id) + ' data-colour=' + quoteattr(str(s.wish_pile)) + '>']
    for k in range(3):
        out.append(f'<ellipse cx="{_n(cx)}" cy="{_n(base - 3.2 * k)}" rx="5.2" ry="2.3" '
                   f'fill="{FILL[s.wish_pile]}" stroke="{INK}" stroke-width="0.5"/>')
    out.append(_text(cx, base + 5.4, f"{s.wish_pile} wish", 3.2, halo=True))
    out.append("</g>")
    return out


def board_to_svg(board: Board) -> str:
    """The whole board as a standalone SVG document (UTF-8 text)."""
    w, h = board.size_mm
    stones = list(board.stones.values())
    if w <= 0 or h <= 0:  # a file without size_mm: fit the stones
        w = max(s.x + s.r for s in stones) + 10
        h = max(s.y + s.r for s in stones) + 10
    vb_w, vb_h = w + MARGIN_LEFT + MARGIN_RIGHT, h + MARGIN_TOP + MARGIN_BOTTOM
    title = f"{board.title} ({board.name}, {board.ruleset} rules)"
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(vb_w)}mm" height="{_n(vb_h)}mm" '
        f'viewBox="{_n(-MARGIN_LEFT)} {_n(-MARGIN_TOP)} {_n(vb_w)} {_n(vb_h)}">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(board.notes or title)}</desc>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" '
        'markerWidth="4.2" markerHeight="4.2" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#4a4136"/>'
        "</marker></defs>",
        f'<rect x="{_n(-MARGIN_LEFT)}" y="{_n(-MARGIN_TOP)}" width="{_n(vb_w)}" height="{_n(vb_h)}" fill="#ffffff"/>',
        f'<rect class="board" x="0" y="0" width="{_n(w)}" height="{_n(h)}" rx="4" fill="#eef2e4" '
        f'stroke="{INK}" stroke-width="1.2"/>',
    ]

    # Goal area: the padded convex hull of its stones (works for straight and branching boards).
    goal = [s for s in stones if s.kind == "stone" and s.row in board.goal_rows]
    if goal:
        pad = 2 * (max(s.r for s in goal) + 5)
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in _hull([(s.x, s.y) for s in goal]))
        out.append(f'<polygon class="goal-area" points="{pts}" fill="#f6e3a8" stroke="#f6e3a8" '
                   f'stroke-width="{_n(pad)}" stroke-linejoin="round" opacity="0.75"/>')
        top = min(s.y - s.r for s in goal)
        out.append(_text(w - 4, max(top - 9, 4), "goal area", 4, anchor="end", fill="#8a6d12", weight="bold"))

    # Row values in the left margin, level with each row's mean height, with a faint guide.
    rows: dict[int, list[Stone]] = {}
    for s in stones:
        if s.kind == "stone":
            rows.setdefault(s.row, []).append(s)
    out.append(_text(-MARGIN_LEFT / 2 - 2, -7, "row: value", 3.4, fill="#555555"))
    for row, members in sorted(rows.items()):
        y = sum(s.y for s in members) / len(members)
        values = sorted({s.value for s in members})
        label = " / ".join(f"{v:+d}".replace("-", "\u2212").replace("+0", "0") for v in values)
        x_first = min(s.x - s.r for s in members)
        out.append(f'<line class="row-guide" x1="-6" y1="{_n(y)}" x2="{_n(max(x_first - 3, -6))}" y2="{_n(y)}" '
                   'stroke="#b9b29c" stroke-width="0.4" stroke-dasharray="1.5,1.5"/>')
        out.append(_text(-27, y, f"{row}", 3.2, anchor="end", fill="#777777", cls="row-number"))
        out.append(_text(-8, y, label, 5.2, anchor="end", weight="bold",
                         fill="#8a6d12" if row in board.goal_rows else INK, cls="row-value"))

    # Steps, drawn under the stones.
    for s in stones:
        for n in s.next:
            out.append(_arrow(s, board.stones[n]))

    # Stones.
    for s in stones:
        fill = FILL.get(s.color, FILL[None]) if s.kind == "stone" else FILL[None]
        if s.end:
            out.append(f'<circle class="end-ring" cx="{_n(s.x)}" cy="{_n(s.y)}" r="{_n(s.r + 2.4)}" '
                       f'fill="none" stroke="#b8860b" stroke-width="1.8"/>')
        stroke_w = 1.6 if s.kind == "start" else 0.7
        out.append(f'<circle class="stone" id={quoteattr("stone-" + s.id)} data-id={quoteattr(s.id)} '
                   f'data-color={quoteattr(str(s.color))} cx="{_n(s.x)}" cy="{_n(s.y)}" r="{_n(s.r)}" '
                   f'fill="{fill}" stroke="{INK}" stroke-width="{stroke_w}"/>')
        ink = _text_ink(fill)
        if s.kind == "start":
            out.append(_text(s.x, s.y, "start", max(3.5, s.r * 0.4), fill=ink, weight="bold"))
            continue
        if s.tile_spot:
            out.append(f'<circle class="tile-spot" cx="{_n(s.x)}" cy="{_n(s.y - s.r * 0.42)}" '
                       f'r="{_n(max(1.6, s.r * 0.24))}" fill="#6d6d6d" stroke="#ffffff" stroke-width="0.5"/>')
        size = min(4.2, max(2.6, s.r * 0.36))
        out.append(_text(s.x, s.y + s.r * 0.3, s.id, size, fill=ink, cls="stone-id"))
        if s.end:
            out.append(_text(s.x, s.y - s.r - 6.5, f"{s.color} end", 3.2, fill="#8a6d12", halo=True))
    for s in stones:
        if s.wish_pile:
            out.extend(_wish_pile(s, board))

    # Title above, reconstruction note and legend below.
    out.append(_text(0, -MARGIN_TOP / 2, title, 7, anchor="start", weight="bold", cls="title"))
    y_note = h + 8
    if board.reconstructed:
        out.append(_text(0, y_note, "Reconstructed layout, not measured from a real board: check it against "
                         "yours and correct the file (README, \u201cBoard files\u201d).", 3.8, anchor="start",
                         fill="#a33a1a", weight="bold", cls="reconstructed"))
    y_leg = h + 19
    legend: list[str] = []
    x = 0.0

    def entry(symbol: str, label: str) -> None:
        nonlocal x
        legend.append(symbol.replace("X0", _n(x + 4)).replace("X1", _n(x + 1)))
        legend.append(_text(x + 10, y_leg, label, 3.4, anchor="start"))
        x += 18 + 1.9 * len(label)

    dot = 'fill="#6d6d6d" stroke="#ffffff" stroke-width="0.5"'
    entry(f'<circle cx="X0" cy="{_n(y_leg)}" r="2" {dot}/>', f"tile spot ({len(board.tile_spots)})")
    entry(f'<circle cx="X0" cy="{_n(y_leg)}" r="3.4" fill="none" stroke="#b8860b" stroke-width="1.5"/>',
          "end stone")
    if any(s.color == "joker" for s in stones):
        entry(f'<circle cx="X0" cy="{_n(y_leg)}" r="3.4" fill="{FILL["joker"]}" stroke="{INK}" '
              'stroke-width="0.5"/>', "joker (any colour)")
    if board.wish_piles:
        entry(f'<ellipse cx="X0" cy="{_n(y_leg + 1.6)}" rx="4" ry="1.8" fill="#ffffff" stroke="{INK}" '
              f'stroke-width="0.5"/><ellipse cx="X0" cy="{_n(y_leg - 1)}" rx="4" ry="1.8" fill="#ffffff" '
              f'stroke="{INK}" stroke-width="0.5"/>', f"wish-stone pile ({board.wish_stones_per_pile} each)")
    entry(f'<rect x="X1" y="{_n(y_leg - 3)}" width="7" height="6" fill="#f6e3a8"/>', "goal area (last 3 rows)")
    legend.append(_text(w, y_leg, f"1 unit = 1 mm \u00b7 board {_n(w)} \u00d7 {_n(h)} mm, seen from the south seat",
                        3.2, anchor="end", fill="#555555"))
    out.append('<g class="legend">' + "".join(legend) + "</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
