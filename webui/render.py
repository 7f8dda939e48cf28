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
TILE_GLYPHS = {"clover": "♣", "points-1": "1", "points-2": "2", "points-3": "3", "discard": "✕",
               "wish-any": "◆"}

Translate = Callable[..., str]


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def player_name(snapshot: dict[str, Any], seat: str, t: Translate) -> str:
    """The name a seat's player gave, else the seat's name."""
    names = ((snapshot.get("game") or {}).get("names") or {})
    return names.get(seat) or t(f"seat.{seat}")


#: Pawn and tile sizes on the drawing (board units, mm): chosen so that at a 360 px wide phone a small
#: pawn is a ~12 px disc, a big one ~17 px, and pawns on neighbouring stones (28 mm apart at the
#: closest) never touch.
SMALL_PAWN_R, BIG_PAWN_R, PAWN_GAP, TILE_R = 10.0, 14.0, 1.6, 10.0
#: Room below the board for the pawns still at the start (up to 20 of them stand there).
TRAY = 32.0
#: The outline of every pawn: a white halo under a dark ring, so black, white, grey and brown pawns
#: all stand out on any stone colour.
PAWN_HALO, PAWN_RING = 2.6, 1.4


def _free(x: float, y: float, r: float, placed: list[tuple[float, float, float]], w: float, h: float) -> bool:
    if x - r < 0 or y - r < 0 or x + r > w or y + r > h:
        return False
    return all(math.hypot(x - px, y - py) >= r + pr + PAWN_GAP for px, py, pr in placed)


def _spots(cx: float, cy: float, r: float):
    """Places for a pawn of radius r around a stone centre: the centre, then rings fanning out."""
    yield cx, cy
    step = 2 * r + PAWN_GAP
    for ring in range(1, 7):
        n = 6 * ring
        for k in range(n):
            a = -math.pi / 2 + 2 * math.pi * k / n + (math.pi / n if ring % 2 == 0 else 0)
            yield cx + ring * step * math.cos(a), cy + ring * step * math.sin(a)


def pawn_layout(board: Any, pawns: list[dict[str, Any]], tiles: dict[str, Any]) -> list[tuple[dict[str, Any], float, float, float]]:
    """Where each pawn is drawn: (pawn, x, y, radius), no two discs overlapping and none on a tile.

    Pawns sharing a stone fan out around it (the big pawn first, at the centre when it is free);
    a pawn pushed off its stone by its neighbours gets the nearest free place.
    """
    w, h = board.size_mm
    h += TRAY
    placed: list[tuple[float, float, float]] = []
    for stone_id in tiles:
        st = board.stones.get(stone_id)
        if st is not None:
            placed.append((st.x, st.y, TILE_R * 1.2))  # (the badge is a square)
    by_stone: dict[str, list[dict[str, Any]]] = {}
    for pawn in pawns:
        if pawn.get("stone") in board.stones:
            by_stone.setdefault(pawn["stone"], []).append(pawn)
    out = []
    # the pawns waiting at the start stand in a row in the tray under the board, out of the paths' way
    start = board.start
    waiting = sorted(by_stone.pop(start.id, []), key=lambda p: (str(p.get("player")), not p.get("big")))
    x_left = start.x - (sum(2 * (BIG_PAWN_R if p.get("big") else SMALL_PAWN_R) + PAWN_GAP for p in waiting)) / 2
    for pawn in waiting:
        r = BIG_PAWN_R if pawn.get("big") else SMALL_PAWN_R
        x = min(max(x_left + r, r), w - r)
        placed.append((x, h - TRAY / 2, r))
        out.append((pawn, x, h - TRAY / 2, r))
        x_left += 2 * r + PAWN_GAP
    # lone pawns first, on their stones; crowded stones then fan out into the room that is left
    for stone_id in sorted(by_stone, key=lambda sid: (len(by_stone[sid]), sid)):
        stone = board.stones[stone_id]
        group = sorted(by_stone[stone_id], key=lambda p: (not p.get("big"), str(p.get("player"))))
        for pawn in group:
            r = BIG_PAWN_R if pawn.get("big") else SMALL_PAWN_R
            cy = stone.y
            spot = next(((x, y) for x, y in _spots(stone.x, cy, r) if _free(x, y, r, placed, w, h)),
                        (stone.x, stone.y))
            placed.append((spot[0], spot[1], r))
            out.append((pawn, spot[0], spot[1], r))
    return out


def _tile_badge(x: float, y: float, tile: str, label: str, stone_id: str) -> str:
    """A tile: a square badge (pawns are discs) with its symbol (♣ clover, 1/2/3 points, ✕ discard, ◆ wish stone)."""
    glyph = TILE_GLYPHS.get(tile, "◆")
    wish = tile.startswith("wish-") and tile != "wish-any"
    colour = CARD_COLOURS.get(tile[5:], "#222") if wish else "#222"
    size = TILE_R * (1.25 if glyph in ("♣", "◆", "✕") else 1.05)
    return (f'<g class="tile" data-tile={quoteattr(tile)} data-stone={quoteattr(stone_id)}><title>{escape(label)}</title>'
            f'<rect class="badge" x="{_num(x - TILE_R)}" y="{_num(y - TILE_R)}" width="{_num(2 * TILE_R)}" '
            f'height="{_num(2 * TILE_R)}" rx="3" fill="#fff7d6" stroke="#6b5a2e" stroke-width="1.4"/>'
            f'<text x="{_num(x)}" y="{_num(y)}" font-size="{_num(size)}" text-anchor="middle" dominant-baseline="central" '
            f'font-family="DejaVu Sans, sans-serif" font-weight="700" fill="{colour}">{escape(glyph)}</text></g>')


def table_svg(board: Any, table: dict[str, Any] | None, t: Translate,
              names: dict[str, str] | None = None) -> str:
    """The board as read from the last accepted frame: stones, tiles on them, pawns.

    Readable on a phone: each pawn a disc in its player's colour with a halo and a ring (so it shows
    on any stone), the big pawn bigger and marked, pawns sharing a stone fanned out, each tile a badge
    with its symbol. Every stone, tile and pawn carries data-* attributes (the page taps them).
    `names`: player colour → the name typed at the table, for the pawns' titles.
    """
    w, h = board.size_mm
    names = names or {}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(w)} {_num(h + TRAY)}" class="board" '
           f'role="img" aria-label={quoteattr(t("view.board_read", board=board.title))}>',
           f'<rect width="{_num(w)}" height="{_num(h + TRAY)}" rx="12" fill="#f3efe2"/>']
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
        out.append(f'<circle class="stone" data-stone={quoteattr(stone.id)} cx="{_num(stone.x)}" '
                   f'cy="{_num(stone.y)}" r="{_num(stone.r)}" fill="{fill}"{ring}/>')
    for stone_id, tile in tiles.items():
        stone = stones.get(stone_id)
        if stone is None or not tile:
            continue
        key = "tile.wish" if str(tile).startswith("wish-") else f"tile.{tile}"
        out.append(_tile_badge(stone.x, stone.y, str(tile), t(key), stone_id))
    for pawn, x, y, r in pawn_layout(board, (table or {}).get("pawns") or [], {k: v for k, v in tiles.items() if v}):
        stone = stones[pawn["stone"]]
        player = str(pawn.get("player"))
        fill = PAWN_COLOURS.get(player, "#f0f")
        who = names.get(player) or t("colour." + player)
        label = t("view.pawn_big" if pawn.get("big") else "view.pawn", player=who, stone=pawn["stone"])
        big = bool(pawn.get("big"))
        out.append(f'<g class="pawn{" big" if big else ""}" data-player={quoteattr(player)} '
                   f'data-stone={quoteattr(pawn["stone"])} data-big="{int(big)}"><title>{escape(label)}</title>')
        if math.hypot(x - stone.x, y - stone.y) > stone.r:  # pushed off its stone: a lead shows where it stands
            out.append(f'<line x1="{_num(stone.x)}" y1="{_num(stone.y)}" x2="{_num(x)}" y2="{_num(y)}" '
                       f'stroke="#111" stroke-width="1.2" stroke-dasharray="2 1.5"/>')
        out.append(f'<circle class="disc" cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" fill="{fill}" '
                   f'stroke="#fff" stroke-width="{_num(PAWN_HALO * 2)}" paint-order="stroke"/>'
                   f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r)}" fill="none" stroke="#111" '
                   f'stroke-width="{_num(PAWN_RING)}"/>')
        if big:  # a crown-like inner ring: big at a glance even without comparing sizes
            inner = "#fff" if player in ("black", "brown", "grey") else "#111"
            out.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(r * 0.5)}" fill="none" '
                       f'stroke="{inner}" stroke-width="2"/>')
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
