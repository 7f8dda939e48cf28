"""A one-card points row must show a points card's centre picture (the ring of dots), as a one-card colour row
must show its kind's (vision.cards, `CardConfig.single_symbol_min`): a patch of a pale cloth that the light makes
the points cards' grey is no points card (docs/vision.md, session 25)."""
from __future__ import annotations

from dataclasses import replace

from vision_helpers import session_still


def _card_game(seed: int) -> dict:
    """bench/vision_games.py's 3-player card-game session options (`--stills 4608x2592`)."""
    return {"game": "keltis-card", "board": None, "players": 3, "seed": seed, "size": [2304, 1296], "fps": 1.0,
            "max_moves": 24, "illegal": 0, "hard": False, "quality": None, "distractors": True, "rules": {},
            "truth_render": "full", "stills": [4608, 2592]}


def _south_bands(tmp_path, seed: int, index: int, **changes) -> list[tuple[str, list[str]]]:
    from vision.cardart import card_art
    from vision.cards import paper_points, paper_white, read_seat_cards
    from vision.numerals import numeral_model_for
    from vision.reader import DEFAULT_READER_CONFIG
    from vision.seatview import build_seat_views

    still = session_still(tmp_path, _card_game(seed), index)
    config = replace(DEFAULT_READER_CONFIG.cards, **changes)
    sv = build_seat_views(config.view, still.calibration, still.registration, tuple(still.seats))["south"]
    art = card_art(still.components, sv.ppm, round(sv.px_per_mm, 1))
    white = paper_white(still.image, paper_points(still.calibration, still.registration))
    sc = read_seat_cards(config, still.image, sv, art, white, numeral_model_for(still.components), True)
    return [(b.kind, [c.code for c in b.cards]) for b in sc.bands]


def test_a_patch_of_pale_cloth_is_no_points_card(tmp_path):
    # card game 83342 (session 25's dev game), frame 47: south holds a yellow 8 and the wish card 4, no points
    # card; a patch of the pale cloth beside them, grey in this light, was read as a one-card points row on
    # frames 10-108 (its picture scores 0.14; real one-card points rows 0.71-0.94 on 83 dev stills)
    bands = _south_bands(tmp_path, 83342, 47)
    assert "points" not in [kind for kind, _ in bands]
    assert ("wish", ["4"]) in bands
    # without the picture rule the patch is read as a points card (what main read)
    assert "points" in [kind for kind, _ in _south_bands(tmp_path, 83342, 47, single_symbol_min=None)]


def test_a_real_one_card_points_row_beside_a_grey_patch_is_kept(tmp_path):
    # card game 82572 (dev), frame 91: south's one points card (picture 0.94) and a grey patch (0.21) both
    # outlined as one-card points rows: the card is kept, the patch dropped
    bands = _south_bands(tmp_path, 82572, 91)
    assert [kind for kind, _ in bands].count("points") == 1
    assert [kind for kind, _ in _south_bands(tmp_path, 82572, 91, single_symbol_min=None)].count("points") == 2
