"""Wish stones held (vision.wishstones) and discard piles (vision.discards): the parts apart, on views
composed from the bundled art, and eval's error kinds for both groups."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cardart import _base_art, card_art
from vision.cards import CardConfig, field_labels
from vision.components import load_components
from engine.cards import COLOURS as COLOURS_
from vision.discards import DiscardConfig, table_labels
from vision.evaluation import explain_discards, explain_wish_held
from vision.wishstones import WishStoneConfig, colour_distance, count_held, find_tokens, token_bank, token_kinds

PPM = 1.25          # the half-resolution seat view the reader searches
SEEN = 1.3          # what the camera resolves there


def _evaluated(spec, folder):
    """One simulated frame rendered (simulator.dataset.render_single) and read as `keltis-cam eval` reads it:
    (its truth, vision.evaluation's result)."""
    import json

    from simulator.dataset import render_single
    from vision.evaluation import evaluate_frame

    jpeg, truth = render_single(spec)
    (folder / "f.jpg").write_bytes(jpeg)
    (folder / "f.json").write_text(json.dumps(truth), encoding="utf-8")
    return truth, evaluate_frame((str(folder / "f.jpg"), str(folder / "f.json"), False, None))


def _table(bgr: tuple[int, int, int], size=(300, 500), seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.empty((*size, 3), np.float32)
    img[:] = bgr
    img += rng.normal(0, 4, img.shape)
    return np.clip(img, 0, 255)


def _paste(view: np.ndarray, key: str, centre: tuple[float, float], turn: float = 0.0) -> None:
    """One token of the art, turned and scaled to the view, laid centred at `centre` (view px)."""
    comps = load_components()
    bgr, alpha = comps.image(key)
    ppm = comps.tile_ppm if key.startswith("tile-") else comps.wish_ppm
    rgba = np.dstack([bgr, alpha * 255]).astype(np.float32)
    h, w = rgba.shape[:2]
    rgba = cv2.warpAffine(rgba, cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0), (w, h))
    # as blurred as the camera sees it, then at the view's scale
    seen = cv2.resize(rgba, None, fx=SEEN / ppm, fy=SEEN / ppm, interpolation=cv2.INTER_AREA)
    f = PPM / ppm
    big = cv2.resize(seen, (int(round(w * f)), int(round(h * f))), interpolation=cv2.INTER_LINEAR)
    a = big[..., 3:] / 255.0
    y0, x0 = int(round(centre[1] - big.shape[0] / 2)), int(round(centre[0] - big.shape[1] / 2))
    region = view[y0:y0 + big.shape[0], x0:x0 + big.shape[1]]
    region[:] = region * (1 - a) + big[..., :3] * a


def _read(view: np.ndarray, kinds: tuple[str, ...], light=(1.0, 1.0, 1.0)) -> dict[str, int]:
    comps = load_components()
    lit = np.clip(view * np.asarray(light, np.float32), 0, 255).astype(np.uint8)
    cream = _base_art(comps)[0] * np.asarray(light, np.float32)
    return count_held(find_tokens(WishStoneConfig(), lit, PPM, SEEN, comps, kinds, None, cream))


@pytest.mark.parametrize("table", [(60, 100, 70), (214, 226, 230), (78, 120, 168), (40, 40, 150)],
                         ids=["green-felt", "white", "wood", "red-cloth"])
def test_stones_of_every_colour_on_any_table(table):
    view = _table(table)
    colours = ("red", "yellow", "pink", "green", "blue")
    for k, c in enumerate(colours):
        _paste(view, f"wish-{c}", (60 + 45 * k, 80), turn=37 * k)
    assert _read(view, token_kinds("nwnz")) == {c: 1 for c in colours}


def test_two_touching_stones_of_one_colour_and_a_face_down_one():
    view = _table((78, 120, 168))
    d = 20.0 * PPM
    for k in range(3):
        _paste(view, "wish-green", (100 + d * k, 120), turn=50 * k)      # three touching in a line
    _paste(view, "wish-back", (300, 120))                               # face down: not counted
    assert _read(view, token_kinds("nwnz")) == {"green": 3}


def test_base_board_wish_tiles_under_warm_light():
    view = _table((200, 196, 186))
    for k in range(4):
        _paste(view, "tile-wish-any", (90 + 25.0 * PPM * k, 150), turn=20 * k)   # four touching
    assert _read(view, token_kinds("base"), light=(0.55, 0.8, 1.0)) == {"any": 4}


def test_a_plain_table_holds_no_stones():
    for table in ((60, 100, 70), (214, 226, 230), (78, 120, 168)):
        assert _read(_table(table, seed=3), token_kinds("nwnz")) == {}


def test_each_gem_colour_is_nearest_its_own_kind_even_flattened():
    bank = token_bank(load_components(), token_kinds("nwnz"), PPM, SEEN)
    cfg = WishStoneConfig()
    for i, kind in enumerate(bank.kinds):
        for flat in (1.0, 0.5, 0.35):      # blur and glare flatten a gem against its rim
            d = colour_distance(cfg, bank.gem_logs, bank.gem_logs[i] * flat)
            assert bank.kinds[int(np.argmin(d))] == kind


def test_discard_colour_table_matches_the_card_readers_labels():
    comps = load_components()
    art = card_art(comps, 2.5, 1.2)
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (40, 60, 3), dtype=np.uint8)
    cream = np.array([180.0, 200.0, 210.0], np.float32)
    cfg = DiscardConfig(glare_hue_max_rad=0.0)      # no second look for colours under a veil
    # the cached table is built for the stock colour rounded to cream_step (log): compare at that colour
    key = np.exp(np.round(np.log(cream) / cfg.cream_step) * cfg.cream_step).astype(np.float32)
    assert np.array_equal(table_labels(cfg, CardConfig(), img, cream, art), field_labels(CardConfig(), img, key, art))


@pytest.mark.parametrize("kind", ["red", "yellow", "pink", "green", "blue"])
def test_a_pile_field_under_a_veil_of_glare_keeps_its_colour(kind):
    """Glare adds the lamp's light to every channel alike (over the stock): a red field turns pink to the
    log hue, but its linear chroma is as it was. Every colour field of the art, under any veil up to
    brighter than the stock and in shade or bright light, is named its own kind; with no veil the
    second look changes no field's name."""
    from vision.cardart import FIELD_KINDS

    comps = load_components()
    art = card_art(comps, 2.5, 1.2)
    cream = np.array([150.0, 170.0, 180.0], np.float32)
    field = art.fields[kind]
    for exposure in (0.7, 1.0, 1.3):
        for veil in (0.0, 0.2, 0.5, 0.8):
            lit = (field * exposure + veil) * cream
            if lit.max() > 250:
                continue        # clipped: no colour left to go by
            bgr = lit.astype(np.uint8).reshape(1, 1, 3)
            got = int(table_labels(DiscardConfig(), CardConfig(), bgr, cream, art)[0, 0])
            assert FIELD_KINDS[got] == kind, (exposure, veil, FIELD_KINDS[got] if got >= 0 else None)
            if veil == 0.0:
                before = int(table_labels(DiscardConfig(glare_hue_max_rad=0.0), CardConfig(), bgr, cream, art)[0, 0])
                assert before == got
    # a red pile under a rendered hotspot (a dev frame's pixel over its markers' stock): pink to the log hue
    veiled_red = np.array([[[123, 127, 201]]], np.uint8)
    stock = np.array([144.8, 163.1, 171.1], np.float32)
    before = table_labels(DiscardConfig(glare_hue_max_rad=0.0), CardConfig(), veiled_red, stock, art)[0, 0]
    assert FIELD_KINDS[int(before)] == "pink"
    assert FIELD_KINDS[int(table_labels(DiscardConfig(), CardConfig(), veiled_red, stock, art)[0, 0])] == "red"


def test_wish_errors_are_sorted_by_kind():
    truth = {"seats": {"south": {"wish": {"green": 2, "pink": 1}}, "north": {"wish": {}}}}
    read = {"seats": {"south": {"wish": {"green": 1, "red": 1}}, "north": {"wish": {"blue": 1}}}}
    kinds = [k for k, _d in explain_wish_held(truth, read)]
    assert sorted(kinds) == sorted(["wrong colour", "wrong colour", "missed stone", "extra stone"])


def test_discard_errors_are_sorted_by_kind():
    truth = {"discard_tops": {"red": "3", "yellow": None, "pink": "7", "green": "5", "blue": None},
             "render": {"cards": [{"kind": "discard", "pile": "green", "in_view": False}]}}
    read = {"discard_tops": {"red": "4", "yellow": "2", "pink": None, "green": None, "blue": "7"}}
    got = sorted(k for k, _d in explain_discards(truth, read))
    assert got == sorted(["wrong value", "empty pile read as a card", "wrong colour", "wrong colour",
                          "pile out of view"])


@pytest.mark.parametrize("table_top", [("cloth", (150, 40, 40)), ("wood", (120, 80, 50))], ids=["red-cloth", "red-wood"])
def test_a_discard_pile_on_a_table_of_its_own_colour(table_top):
    """The red pile's field blends into a red table: it is cut from the table along its outline."""
    from card_helpers import read_cards

    truth, got = read_cards(rows={"blue": ["5"]}, discard_tops={"red": "6", "green": "3"}, table_top=table_top)
    assert truth.discard_tops["red"] == "6"
    assert got.discard_tops["red"] == "6" and got.discard_tops["green"] == "3"


def test_board_game_piles_are_never_read_as_points_cards():
    """The board games have no points cards: a colour the points cards' grey would take goes to the next
    field kind (or none), and every other colour keeps its label."""
    from vision.cardart import FIELD_KINDS
    from vision.discards import art_in_play

    comps = load_components()
    art = card_art(comps, 2.5, 1.2)
    q = np.arange(32, dtype=np.uint8) * 8 + 4
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    every = np.stack([b.ravel(), g.ravel(), r.ravel()], 1).reshape(32, 1024, 3)
    cream = np.array([150.0, 170.0, 180.0], np.float32)
    cfg = DiscardConfig()
    full = table_labels(cfg, CardConfig(), every, cream, art)
    board = table_labels(cfg, CardConfig(), every, cream, art_in_play(art, card_game=False))
    pts = FIELD_KINDS.index("points")
    assert (full == pts).any() and not (board == pts).any()
    assert np.array_equal(board[full != pts], full[full != pts])
    assert (board[full == pts] == FIELD_KINDS.index("green")).any()
    assert art_in_play(art, card_game=True) is art and art_in_play(art, card_game=False) is art_in_play(art, False)


def test_a_gem_washed_out_by_glare_keeps_its_colour_and_a_plain_middle_is_no_colour():
    """Under a hotspot a gem may keep an eighth of its contrast to the rim: still its kind when clearly the
    nearest; a middle no different from the rim, or as near one faint colour as another, is not given one."""
    from vision.wishstones import nearest_kind

    bank = token_bank(load_components(), token_kinds("nwnz"), PPM, SEEN)
    cfg = WishStoneConfig()
    colours = [k for k in bank.kinds if k != "back"]
    for kind in colours:
        i = bank.kinds.index(kind)
        for flat in (0.35, 0.2, 0.14):
            assert bank.kinds[nearest_kind(cfg, bank.gem_logs, bank.gem_logs[i] * flat)[0]] == kind
    back = bank.kinds.index("back")
    assert nearest_kind(cfg, bank.gem_logs, np.array([-0.04, -0.04, -0.04]))[0] == back
    # a faint middle halfway between two colours' faint versions is not read as either
    g, y = bank.gem_logs[bank.kinds.index("green")], bank.gem_logs[bank.kinds.index("yellow")]
    assert bank.kinds[nearest_kind(cfg, bank.gem_logs, 0.08 * (g + y))[0]] not in ("green", "yellow")


def test_a_round_thing_of_a_piles_colour_is_not_card_sized():
    """A cup seen from above (66×82 mm with its side) is as large as a card but not as slender; a field, a
    whole card with its border, and one slightly cut are."""
    from vision.discards import _card_sized

    cfg, size = DiscardConfig(), (56.0, 87.0)
    assert not _card_sized(cfg, size, 66.0, 82.0)
    assert not _card_sized(cfg, size, 100.0, 160.0)      # two piles run together
    for short, long_ in ((51.6, 82.6), (56.0, 87.0), (66.7, 97.0), (48.4, 79.2)):
        assert _card_sized(cfg, size, short, long_)


def test_no_points_pile_seen_on_a_table_lit_brighter_than_the_seats_stock_guess(tmp_path):
    # a simulated card-game frame (development seed 7500, frame 4) with no points pile: the piles were
    # once judged against the seats' stock guesses, a quarter dimmer than the stock under the markers'
    # light, and a patch of the table then passed for a points card's grey (read P10; frame 36 alike: P0)
    from simulator.dataset import FrameSpec

    spec = FrameSpec(game="keltis-card", board=None, players=3, seed=437711427, progress=0.7154, size=(2304, 1296),
                     hard=True, dark=False, hand=None, distractors=False, view="play-area")
    truth, res = _evaluated(spec, tmp_path)
    assert truth["discard_tops"]["points"] is None
    assert "empty pile read as a card" not in [kind for kind, _d in res.errors.get("discards", ())]


def _upright(comps, key: str, light=(1.0, 1.0, 1.0), veil=0.0, table=(60, 90, 120), q=2.5, pad=4.0) -> np.ndarray:
    """A card of the art cut upright as vision.discards.upright_card cuts it (`pad` mm of table above and below),
    lit by `light` (BGR gains) under a veil of white light of this share of the stock."""
    bgr = comps.image(key)[0]
    w, h = comps.card_size
    seen = cv2.resize(bgr, None, fx=1.2 / comps.card_ppm, fy=1.2 / comps.card_ppm, interpolation=cv2.INTER_AREA)
    card = cv2.resize(seen, (int(round(w * q)), int(round(h * q))), interpolation=cv2.INTER_LINEAR)
    img = np.empty((int(round((h + 2 * pad) * q)), card.shape[1], 3), np.float32)
    img[:] = table
    img[int(round(pad * q)):int(round(pad * q)) + card.shape[0]] = card
    img = img * np.asarray(light, np.float32) + veil * 230.0
    return np.clip(img + np.random.default_rng(1).normal(0, 3, img.shape), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("style", ["bundled", "alt"])
def test_the_draw_pile_is_no_discard_pile_and_a_grey_thing_no_points_pile(style, tmp_path):
    """The draw pile's backs, dimmed, warm-lit or veiled, may take a pile's colour (a dark green back: the points
    cards' grey): their middle is the backs' picture, not a pile's. Every pile's top (an end card too) keeps
    its own, and a grey thing without the points cards' picture is no points pile."""
    from vision.discards import _middle_fits

    if style == "alt":
        from simulator.components import art_style
        from simulator.export import export_components

        with art_style("alt"):
            export_components(tmp_path, ("nwnz",))
        comps = load_components(tmp_path)
    else:
        comps = load_components()
    art = card_art(comps, 2.5, 1.2)
    cfg = DiscardConfig()
    for light, veil in (((1.0, 1.0, 1.0), 0.0), ((0.45, 0.6, 0.8), 0.0), ((0.5, 0.6, 0.7), 0.5)):
        cream = art.cream * np.asarray(light, np.float32) + veil * 230.0
        back = _upright(comps, "card-back", light, veil)
        for kind in (*COLOURS_, "points"):
            assert not _middle_fits(cfg, back, cream, art, 2.5, 4.0, kind), (kind, light, veil)
        for kind, key in (("points", "card-points-6"), ("points", "card-points-0"), ("red", "card-red-3"),
                          ("pink", "card-end-pink"), ("green", "card-green-10")):
            assert _middle_fits(cfg, _upright(comps, key, light, veil), cream, art, 2.5, 4.0, kind), (key, light, veil)
        grey = _upright(comps, "card-back", light, veil)
        grey[:] = np.median(_upright(comps, "card-points-6", light, veil).reshape(-1, 3), 0)
        grey[40:120, 30:110] = (grey[40:120, 30:110] * 0.6).astype(np.uint8)      # a shaded side, no picture
        assert not _middle_fits(cfg, grey, cream, art, 2.5, 4.0, "points")


def test_no_points_pile_read_off_the_draw_pile(tmp_path):
    # a simulated card-game frame (development seed 81950, frame 55; here at half its size) with no points
    # pile: the draw pile's dark green backs on a brown wood table passed for a points card's grey (read P0)
    from simulator.dataset import FrameSpec

    spec = FrameSpec(game="keltis-card", board=None, players=3, seed=412442770, progress=0.9171, size=(2304, 1296),
                     hard=False, dark=False, hand=None, distractors=True, view="play-area")
    truth, res = _evaluated(spec, tmp_path)
    assert truth["discard_tops"]["points"] is None and truth["discard_tops"]["pink"] == "3"
    assert res.errors.get("discards", []) == []


def test_piles_under_a_glare_found_against_the_white_near_them(tmp_path):
    # a simulated hard-light frame (dim warm lamp and a glare over the piles; development seed 81960, frame 38,
    # here at half its size): the glare makes the stock round the red and yellow piles whiter than the stock
    # elsewhere, so every border there was "simply white" along with the table and the piles were lost; judged
    # against the white near them (vision.discards.local_white) they are outlined, named and read
    from simulator.dataset import FrameSpec

    spec = FrameSpec(game="keltis", board="nwnz", players=4, seed=642794268, progress=0.5289, size=(2304, 1296),
                     hard=True, dark=False, hand=None, distractors=True, view="board")
    truth, res = _evaluated(spec, tmp_path)
    assert truth["discard_tops"]["red"] == "8" and truth["discard_tops"]["yellow"] == "2"
    wrong = {d.split()[0] for _kind, d in res.errors.get("discards", [])}
    assert "red" not in wrong and "yellow" not in wrong


def test_a_board_games_pile_is_never_read_as_an_end_card():
    """End cards belong to the card game only (RULES; a board game's rows already exclude them): a board-game
    pile whose corners look most like an end card's (here one really lies there) is read as a number card,
    never "E" — which no board-game observation may hold, so parse_observation refused the whole frame and
    the tracker lost it (seen on whole games through the camera path, session 20)."""
    from engine.observation import parse_observation
    from vision_helpers import render_case

    case = render_case(seed=5, pawns=[], discard_tops={"yellow": "E", "red": "3"})
    obs = case.reader().read(case.image).observation
    assert obs.discard_tops["yellow"] != "E" and obs.discard_tops["red"] == "3"
    parse_observation(obs.to_json())
