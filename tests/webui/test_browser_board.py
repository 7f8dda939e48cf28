"""The board drawing on a 360 px phone (headless chromium): every pawn a distinct disc in its
player's colour, the big pawn bigger, pawns sharing a stone fanned out, every tile a badge with its
symbol. Measured on a crowded hand-made table and on a real simulated game's table."""
from __future__ import annotations

import math
import os
from pathlib import Path


from browser_support import sync_api
from engine.observation import parse_observation
from webui_fakes import start_game

playwright_api = sync_api()
PHONE_360 = {"width": 360, "height": 780}
COLOURS = {"black": "#1b1b1b", "white": "#ffffff", "grey": "#8a8f98", "brown": "#8b5a2b"}
GLYPHS = {"clover": "♣", "points-1": "1", "points-2": "2", "points-3": "3", "discard": "✕"}
#: Four players' pawns on one stone, neighbours on the next stones, tiles nearby, the rest at the start.
CROWDED = {"format": "keltis-observation/1", "game": "keltis", "board": "base",
           "pawns": [{"stone": "r3", "player": "black", "big": True}, {"stone": "r3", "player": "white", "big": False},
                     {"stone": "r3", "player": "grey", "big": True}, {"stone": "r3", "player": "brown", "big": False},
                     {"stone": "r4", "player": "white", "big": True}, {"stone": "r2", "player": "brown", "big": True},
                     {"stone": "b3", "player": "black", "big": False}, {"stone": "y3", "player": "grey", "big": False},
                     *[{"stone": "start", "player": p, "big": False} for p in ("black", "white", "grey", "brown")
                       for _ in range(2)]],
           "tiles": {"r5": "clover", "b2": "points-2", "y4": "discard", "g3": "wish-any", "p3": "points-3"},
           "seats": {"south": {"player": "black", "rows": {"red": ["3"]}}, "west": {"player": "white", "rows": {}},
                     "north": {"player": "grey", "rows": {}}, "east": {"player": "brown", "rows": {}}}}


def open_board(browser, live_server):
    ctx = browser.new_context(viewport=PHONE_360, locale="en-GB", device_scale_factor=2)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_server.url + "/")
    page.wait_for_selector("#board svg .stone", timeout=10_000)
    page.locator("#board-fig").scroll_into_view_if_needed()
    return ctx, page, errors


def discs(page) -> list[dict]:
    return page.evaluate("""() => Array.from(document.querySelectorAll('#board svg .pawn')).map(g => {
        const c = g.querySelector('.disc'); const b = c.getBoundingClientRect();
        return {player: g.dataset.player, stone: g.dataset.stone, big: g.dataset.big === '1',
                fill: c.getAttribute('fill'), x: b.x + b.width / 2, y: b.y + b.height / 2, d: b.width};
    })""")


def tiles(page) -> list[dict]:
    return page.evaluate("""() => Array.from(document.querySelectorAll('#board svg .tile')).map(g => {
        const b = g.querySelector('.badge').getBoundingClientRect();
        return {tile: g.dataset.tile, stone: g.dataset.stone, glyph: g.querySelector('text').textContent,
                x: b.x + b.width / 2, y: b.y + b.height / 2, d: b.width};
    })""")


def check_readable(page, obs: dict) -> list[dict]:
    pawns = discs(page)
    assert len(pawns) == len(obs["pawns"])
    board_width = page.locator("#board svg").bounding_box()["width"]
    assert board_width >= 300  # the drawing uses the phone's width
    for p in pawns:
        assert p["fill"] == COLOURS[p["player"]]
    for i, a in enumerate(pawns):  # distinct discs: no two overlap
        for b in pawns[i + 1:]:
            gap = math.hypot(a["x"] - b["x"], a["y"] - b["y"]) - (a["d"] + b["d"]) / 2
            assert gap >= 0.5, f"{a} overlaps {b}"
    small = [p["d"] for p in pawns if not p["big"]]
    big = [p["d"] for p in pawns if p["big"]]
    if small:
        assert min(small) >= 11, f"small pawns {min(small):.1f} px wide at 360 px"
    if small and big:
        assert min(big) >= 1.3 * max(small), (big, small)
    badges = tiles(page)
    wanted = {k: v for k, v in (obs.get("tiles") or {}).items() if v}
    assert sorted(t["stone"] for t in badges) == sorted(wanted)
    for t in badges:
        assert t["d"] >= 11 and t["glyph"] == GLYPHS.get(t["tile"], "◆")
        for p in pawns:  # a pawn never hides a tile
            assert math.hypot(t["x"] - p["x"], t["y"] - p["y"]) >= t["d"] / 2 + p["d"] / 2, (t, p)
    return pawns


def test_a_crowded_board_is_readable_at_360px(browser, live_server, tracker):
    start_game(tracker, players=4)
    tracker.feed(parse_observation(CROWDED), 1.0, 1)
    ctx, page, errors = open_board(browser, live_server)
    try:
        pawns = check_readable(page, CROWDED)
        on_r3 = [p for p in pawns if p["stone"] == "r3"]
        assert sorted(p["player"] for p in on_r3) == ["black", "brown", "grey", "white"]
        # fanned out around their stone: the four sit close together, nearer r3's pawns than any other
        cx = sum(p["x"] for p in on_r3) / 4
        cy = sum(p["y"] for p in on_r3) / 4
        assert max(math.hypot(p["x"] - cx, p["y"] - cy) for p in on_r3) < 40
        assert not errors
    finally:
        ctx.close()


def test_a_simulated_game_board_is_readable_at_360px(browser, live_server, tracker):
    from tracking.synth import simulate_game

    sim = simulate_game("keltis", "nwnz", 4, 3)
    frames = list(sim.observations())
    _, _, obs = frames[int(len(frames) * 0.6)]  # mid-game: pawns spread, tiles taken and left
    data = obs.to_json()
    tracker.new_game({"game": "keltis", "board": "nwnz", "seats": dict(sim.setup["seats"]),
                      "names": {"south": "Anna", "west": "Ben", "north": "Chiara", "east": "Dai"}, "rules": {}})
    tracker.feed(obs, 1.0, 1)
    ctx, page, errors = open_board(browser, live_server)
    try:
        check_readable(page, data)
        shots = os.environ.get("KELTIS_SCREENSHOTS")  # `KELTIS_SCREENSHOTS=docs/img pytest ...` refreshes the README's
        if shots:
            page.locator("#board-fig").screenshot(path=str(Path(shots) / "phone-board.png"))
        assert not errors
    finally:
        ctx.close()
