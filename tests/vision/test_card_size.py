"""The art is data (issue 16 item 8): a group's cards of another size than the bundled 56x87 mm are
read from a components folder that says so, with no code change (vision.cards.sized_for)."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace

from engine.board import bundled_board
from simulator.render import SpriteBank
from vision.cards import CardConfig, sized_for
from vision.components import load_components
from vision.reader import Reader

from card_helpers import SEAT, render_cards

BIG = 1.25    # cards a quarter larger each way (70 x 108.75 mm)


class BigCards(SpriteBank):
    """The simulator's sprites with every card drawn BIG times larger (the same picture at fewer px/mm)."""

    def get(self, key):
        s = super().get(key)
        if not key.startswith("card:"):
            return s
        return replace(s, ppm=s.ppm / BIG, margin=(s.margin[0] * BIG, s.margin[1] * BIG),
                       size=(s.size[0] * BIG, s.size[1] * BIG))


def big_card_components(folder):
    """The bundled components folder, its cards printed BIG times larger: the same pictures, the
    catalogue's card size and numeral boxes scaled (and px/mm with them)."""
    shutil.copytree(load_components(None).folder, folder)
    path = folder / "components.json"
    cat = json.loads(path.read_text(encoding="utf-8"))
    card = cat["card"]
    card["size"] = [v * BIG for v in card["size"]]
    card["px_per_mm"] = card["px_per_mm"] / BIG
    card["numeral_boxes"] = {k: [v * BIG for v in box] for k, box in card["numeral_boxes"].items()}
    for key in ("numeral_height", "corner_radius"):
        if key in card:
            card[key] = card[key] * BIG
    path.write_text(json.dumps(cat), encoding="utf-8")
    return folder


def spread_seat_cards(scene):
    """The seat's cards BIG times larger and laid BIG times farther apart (from the corner of its
    rows nearest the board on the player's left), as a group with bigger cards would lay them."""
    cards = [f for f in scene.flats if f.truth and f.truth.get("kind") == "card" and f.truth.get("seat") == SEAT]
    ax = min(f.centre[0] - f.size[0] / 2 for f in cards)
    ay = min(f.centre[1] - f.size[1] / 2 for f in cards)
    for f in cards:
        f.centre = (ax + BIG * (f.centre[0] - ax), ay + BIG * (f.centre[1] - ay))
        f.size = (f.size[0] * BIG, f.size[1] * BIG)


def test_the_card_figures_follow_the_card_size():
    base = CardConfig()
    big = sized_for(base, (56.0 * BIG, 87.0 * BIG))
    assert big.field_width_mm == tuple(v * BIG for v in base.field_width_mm)
    assert big.centre_mm == tuple(v * BIG for v in base.centre_mm)
    assert big.min_strip_mm == base.min_strip_mm * BIG
    assert big.corner_slack_mm == base.corner_slack_mm          # a tolerance, not a card figure
    assert sized_for(big, (56.0 * BIG, 87.0 * BIG)) == big       # sized once is sized
    assert sized_for(base, (56.0, 87.0)) == base


def test_rows_of_bigger_cards_are_read_from_a_folder_that_gives_their_size(tmp_path):
    rows = {"red": ["2", "5"], "blue": ["3", "6", "9"], "green": ["7"]}
    image, cal, truth, seats, board = render_cards(rows=rows, edit=spread_seat_cards, sprites=BigCards())
    comps = load_components(big_card_components(tmp_path / "big"))
    assert comps.card_size == (56.0 * BIG, 87.0 * BIG)
    reader = Reader(cal, game="keltis", board=bundled_board(board), seats=seats, components=comps)
    got = reader.read(image).observation
    assert {c: list(v) for c, v in got.seats[SEAT].rows.items()} == rows
