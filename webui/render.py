"""Pictures drawn on the server as SVG: what the camera read on the board, the score chart, the
one-page summary. Pure functions of JSON data (the snapshot), so they are easy to test.
"""
from __future__ import annotations

import math
from typing import Any, Callable
from xml.sax.saxutils import escape, quoteattr

from engine.cards import SEATS

#: Screen colours of the five card colours (daylight-readable, RULES §1 Components).
CARD_COLOURS = {"red": "#9b2f24", "yellow": "#e0b400", "pink": "#d9639b", "green": "#2e8b3e",
                "blue": "#2a64b0", "joker": "#8a8f98"}
#: Screen colours of the pawns, and a dash pattern per player so chart lines differ without colour.
PAWN_COLOURS = {"black": "#1b1b1b", "white": "#ffffff", "grey": "#8a8f98", "brown": "#8b5a2b"}
LINE_COLOURS = {"black": "#1b1b1b", "white": "#8c6bb1", "grey": "#6b7280", "brown": "#8b5a2b"}
LINE_DASH = {"black": "", "white": "7 4", "grey": "2 3", "brown": "10 3 2 3"}
TILE_GLYPHS = {"clover": "♣", "points-1": "+1", "points-2": "+2", "points-3": "+3", "discard": "✕",
               "wish-any": "◆"}

Translate = Callable[..., str]


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def player_name(snapshot: dict[str, Any], seat: str, t: Translate) -> str:
    """The name a seat's player gave, else the seat's name."""
    names = ((snapshot.get("game") or {}).get("names") or {})
    return names.get(seat) or t(f"seat.{seat}")


def table_svg(board: Any, table: dict[str, Any] | None, t: Translate) -> str:
    """The board as read from the last accepted frame: stones, tiles on them, pawns (big ones ringed)."""
    w, h = board.size_mm
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(w)} {_num(h)}" '
           f'role="img" aria-label={quoteattr(t("view.board_read", board=board.title))}>',
           f'<rect width="{_num(w)}" height="{_num(h)}" rx="12" fill="#f3efe2"/>']
    stones = board.stones
    for stone in stones.values():  # the paths first, under the stones
        for nxt in stone.next:
            b = stones[nxt]
            out.append(f'<line x1="{_num(stone.x)}" y1="{_num(stone.y)}" x2="{_num(b.x)}" y2="{_num(b.y)}" '
                       f'stroke="#c9c1a8" stroke-width="3"/>')
    tiles = (table or {}).get("tiles") or {}
    for stone in stones.values():
        fill = "#d8d2bf" if stone.kind == "start" else CARD_COLOURS.get(stone.color or "", "#bbb")
        ring = ' stroke="#111" stroke-width="2.5"' if stone.end else ' stroke="#5c5648" stroke-width="1"'
        out.append(f'<circle cx="{_num(stone.x)}" cy="{_num(stone.y)}" r="{_num(stone.r)}" fill="{fill}"{ring}/>')
        tile = tiles.get(stone.id)
        if tile:
            glyph = TILE_GLYPHS.get(tile, "◆")
            colour = CARD_COLOURS.get(tile[5:], "#222") if tile.startswith("wish-") and tile != "wish-any" else "#222"
            key = "tile.wish" if tile.startswith("wish-") else "tile." + tile
            out.append(f'<g><title>{escape(t(key))}</title>'
                       f'<circle cx="{_num(stone.x)}" cy="{_num(stone.y)}" r="{_num(stone.r * 0.62)}" fill="#fffdf5" stroke="#222" stroke-width="1"/>'
                       f'<text x="{_num(stone.x)}" y="{_num(stone.y + stone.r * 0.25)}" font-size="{_num(stone.r * 0.8)}" '
                       f'text-anchor="middle" font-family="sans-serif" font-weight="700" fill="{colour}">{escape(glyph)}</text></g>')
    by_stone: dict[str, list[dict[str, Any]]] = {}
    for pawn in (table or {}).get("pawns") or []:
        by_stone.setdefault(pawn.get("stone"), []).append(pawn)
    for stone_id, pawns in by_stone.items():
        stone = stones.get(stone_id)
        if stone is None:
            continue
        n = len(pawns)
        spread = 0 if n == 1 else stone.r * 0.55
        for i, pawn in enumerate(pawns):
            angle = -math.pi / 2 + 2 * math.pi * i / max(n, 1)
            x = stone.x + spread * math.cos(angle)
            y = stone.y + spread * math.sin(angle)
            size = stone.r * (0.62 if pawn.get("big") else 0.42) * (0.8 if n > 2 else 1)
            fill = PAWN_COLOURS.get(pawn.get("player"), "#f0f")
            label = t("view.pawn_big" if pawn.get("big") else "view.pawn", player=t("colour." + str(pawn.get("player"))),
                      stone=stone_id)
            out.append(f'<g><title>{escape(label)}</title>'
                       f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(size)}" fill="{fill}" stroke="#000" stroke-width="1.6"/>')
            if pawn.get("big"):
                out.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(size * 0.55)}" fill="none" '
                           f'stroke="{"#fff" if pawn.get("player") in ("black", "brown", "grey") else "#000"}" stroke-width="1.4"/>')
            out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def chart_svg(snapshot: dict[str, Any], t: Translate, width: int = 640, height: int = 260) -> str:
    """Score over time: one line per player over the accepted moves (the live page draws the same in JS)."""
    history = snapshot.get("score_history") or []
    seats = [s for s in SEATS if s in ((snapshot.get("game") or {}).get("seats") or {})]
    colours = (snapshot.get("game") or {}).get("seats") or {}
    left, right, top, bottom = 36, 90, 12, 26
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label={quoteattr(t("chart.title"))}>']
    values = [p.get("totals", {}).get(s, 0) for p in history for s in seats] or [0]
    lo, hi = min(0, min(values)), max(10, max(values))
    span = hi - lo or 1
    n = max(len(history) - 1, 1)

    def px(i: int) -> float:
        return left + (width - left - right) * i / n

    def py(v: float) -> float:
        return top + (height - top - bottom) * (hi - v) / span

    step = max(1, round(span / 5 / 5) * 5) if span > 10 else 5
    v = math.ceil(lo / step) * step
    while v <= hi:
        y = py(v)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{_num(y)}" y2="{_num(y)}" '
                   f'stroke="{"#444" if v == 0 else "#ddd"}" stroke-width="{1.5 if v == 0 else 1}"/>'
                   f'<text x="{left - 6}" y="{_num(y + 4)}" font-size="11" text-anchor="end" fill="#444" '
                   f'font-family="sans-serif">{v}</text>')
        v += step
    out.append(f'<text x="{left}" y="{height - 6}" font-size="11" fill="#444" font-family="sans-serif">'
               f'{escape(t("chart.moves", n=max(len(history) - 1, 0)))}</text>')
    labels: list[list[Any]] = []
    for seat in seats:
        player = colours.get(seat, "black")
        pts = [(px(i), py(p.get("totals", {}).get(seat, 0))) for i, p in enumerate(history)]
        if not pts:
            continue
        path = " ".join(f"{_num(x)},{_num(y)}" for x, y in pts)
        dash = f' stroke-dasharray="{LINE_DASH[player]}"' if LINE_DASH.get(player) else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{LINE_COLOURS.get(player, "#000")}" '
                   f'stroke-width="2.5" stroke-linejoin="round"{dash}/>')
        total = history[-1].get("totals", {}).get(seat, 0)
        labels.append([pts[-1][1], f"{player_name(snapshot, seat, t)} {total}"])
    labels.sort(key=lambda lb: lb[0])
    for i in range(1, len(labels)):  # keep the end labels apart
        labels[i][0] = max(labels[i][0], labels[i - 1][0] + 14)
    for y, text in labels:
        out.append(f'<text x="{width - right + 6}" y="{_num(y + 4)}" font-size="12" font-family="sans-serif" '
                   f'fill="#111">{escape(text)}</text>')
    out.append("</svg>")
    return "".join(out)


def ranking(snapshot: dict[str, Any]) -> list[tuple[int, str, dict[str, Any]]]:
    """(place, seat, score) best first; ties share a place (RULES §1, §3)."""
    scores = ((snapshot.get("scores") or {}).get("scores") or {})
    ordered = sorted(scores.items(), key=lambda kv: -kv[1].get("total", 0))
    out, place, prev = [], 0, None
    for i, (seat, score) in enumerate(ordered, 1):
        if score.get("total") != prev:
            place, prev = i, score.get("total")
        out.append((place, seat, score))
    return out


def summary_svg(snapshot: dict[str, Any], t: Translate, exported: str) -> str:
    """The game on one page (A4 portrait proportions): result, score breakdown, chart, warnings."""
    width, height = 794, 1123
    game = snapshot.get("game") or {}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'font-family="DejaVu Sans, Noto Sans, sans-serif">',
           f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<rect width="{width}" height="92" fill="#14532d"/>',
           f'<text x="40" y="52" font-size="30" font-weight="700" fill="#fff">{escape(t("summary.title"))}</text>',
           f'<text x="40" y="78" font-size="15" fill="#d9f2de">{escape(game_title(snapshot, t))} · {escape(exported)}</text>']
    y = 136
    rank = ranking(snapshot)
    final = bool(snapshot.get("game_over"))
    winners = [player_name(snapshot, s, t) for p, s, _ in rank if p == 1]
    headline = t("result.winners" if final else "result.leading", names=", ".join(winners)) if winners else t("result.none")
    out.append(f'<text x="40" y="{y}" font-size="24" font-weight="700" fill="#111">{escape(headline)}</text>')
    y += 22
    if final and snapshot.get("end_reason"):
        reason = str(snapshot.get("end_reason"))
        said = t("end." + reason)
        out.append(f'<text x="40" y="{y + 6}" font-size="14" fill="#444">'
                   f'{escape(reason if said == "end." + reason else said)}</text>')
        y += 22
    y += 18
    categories = []
    for _, _, score in rank:
        for part in score.get("parts", []):
            if part.get("category") not in categories:
                categories.append(part.get("category"))
    col_w = (width - 80 - 240) / max(len(categories) + 1, 1)
    out.append(f'<text x="40" y="{y}" font-size="13" font-weight="700" fill="#444">{escape(t("summary.place"))}</text>')
    out.append(f'<text x="90" y="{y}" font-size="13" font-weight="700" fill="#444">{escape(t("summary.player"))}</text>')
    for i, cat in enumerate(categories):
        out.append(f'<text x="{_num(280 + col_w * i)}" y="{y}" font-size="13" font-weight="700" fill="#444">'
                   f'{escape(t("category." + str(cat)))}</text>')
    out.append(f'<text x="{_num(280 + col_w * len(categories))}" y="{y}" font-size="13" font-weight="700" '
               f'fill="#111">{escape(t("score.total"))}</text>')
    y += 10
    for place, seat, score in rank:
        y += 34
        player = score.get("player", "black")
        out.append(f'<line x1="40" x2="{width - 40}" y1="{y - 24}" y2="{y - 24}" stroke="#ddd"/>')
        out.append(f'<text x="40" y="{y}" font-size="20" font-weight="700" fill="#111">{place}.</text>')
        out.append(f'<circle cx="100" cy="{y - 7}" r="9" fill="{PAWN_COLOURS.get(player, "#000")}" stroke="#000"/>')
        out.append(f'<text x="116" y="{y}" font-size="18" fill="#111">{escape(player_name(snapshot, seat, t))}</text>')
        by_cat: dict[str, int] = {}
        for part in score.get("parts", []):
            by_cat[part.get("category")] = by_cat.get(part.get("category"), 0) + int(part.get("points", 0))
        for i, cat in enumerate(categories):
            out.append(f'<text x="{_num(280 + col_w * i)}" y="{y}" font-size="17" fill="#333">{by_cat.get(cat, 0)}</text>')
        out.append(f'<text x="{_num(280 + col_w * len(categories))}" y="{y}" font-size="20" font-weight="700" '
                   f'fill="#111">{score.get("total", 0)}</text>')
    y += 40
    out.append(f'<text x="40" y="{y}" font-size="16" font-weight="700" fill="#111">{escape(t("chart.title"))}</text>')
    chart = chart_svg(snapshot, t, width=714, height=300)
    out.append(f'<svg x="40" y="{y + 10}" width="714" height="300" viewBox="0 0 714 300">'
               f'{chart[chart.index(">") + 1:-len("</svg>")]}</svg>')
    y += 340
    moves = snapshot.get("moves") or []
    warnings = [w for w in snapshot.get("warnings") or [] if not w.get("withdrawn")]
    out.append(f'<text x="40" y="{y}" font-size="16" font-weight="700" fill="#111">'
               f'{escape(t("summary.counts", moves=len(moves), warnings=len(warnings)))}</text>')
    for w in warnings[-12:]:
        y += 24
        who = player_name(snapshot, w["seat"], t) + ": " if w.get("seat") else ""
        text = f"⚠ {who}{w.get('message', '')}"
        out.append(f'<text x="48" y="{y}" font-size="13" fill="#7a1d12">{escape(text[:110])}</text>')
    rules = game.get("rules") or {}
    if rules:
        y = max(y + 34, height - 60)
        text = t("summary.rules") + " " + "; ".join(f"{t('rule.' + k)}: {rule_value(t, k, v)}" for k, v in rules.items())
        for i in range(0, min(len(text), 360), 120):  # up to three lines of small print
            out.append(f'<text x="40" y="{min(y, height - 44) + i // 120 * 14}" font-size="11" fill="#666">'
                       f'{escape(text[i:i + 120])}</text>')
    out.append(f'<text x="40" y="{height - 14}" font-size="11" fill="#888">keltis-cam</text>')
    out.append("</svg>")
    return "".join(out)


def game_title(snapshot: dict[str, Any], t: Translate) -> str:
    """"Keltis · Neue Wege, neue Ziele" style title of the game in play."""
    game = snapshot.get("game") or {}
    if not game:
        return t("game.none")
    title = t("game." + str(game.get("game")))
    if game.get("board"):
        title += " · " + t("board." + str(game.get("board")))
    return title


def rule_value(t: Translate, name: str, value: Any) -> str:
    """A rule setting's value in words ("take the tile"), else as written."""
    raw = str(value).lower() if isinstance(value, bool) else str(value)
    key = f"rule.{name}.{raw}"
    text = t(key)
    return raw if text == key else text
