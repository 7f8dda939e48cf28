"""Warnings in words a player uses: every rule code the engine can report gets a sentence in every
offered language that names the player (and the card or stone when the details say which), and
never shows a raw code or an unfilled {placeholder}."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.violations import CODES
from webui.i18n import Translations
from webui.warning_words import WarningWords

ROOT = Path(__file__).resolve().parents[2]
GAME = {"game": "keltis", "board": "base", "seats": {"south": "black", "west": "white"},
        "names": {"south": "Anna", "west": "Ben"}}
#: Every detail the engine's violations carry (engine/boardgame, engine/cardgame, engine/rows.py,
#: tracking/inference.py), so every template variant can be reached.
RICH = {"card": "4", "colour": "red", "cards": [["red", "4"], ["blue", "7"]], "stone": "r3", "to": "r3",
        "from": "r2", "src": "r2", "dst": "r3", "stones": ["r2", "r3"], "tile": "clover", "before": "clover",
        "after": "points-2", "piles": ["red", "blue"], "expected": "west", "steps": 2, "plays": 2,
        "allowed": 1, "pawns_in_goal": 5, "wish": 4, "discarded": [4, 5], "pile": "red"}
WORDS = WarningWords(Translations())


def emitted_codes() -> set[str]:
    """The codes the engine and the tracking actually raise (grep of their sources)."""
    found: set[str] = set()
    pattern = re.compile(r"""(?:Violation\(|violate\(|violation\()\s*(?:"([a-z-]+)"|\n\s*"([a-z-]+)")""")
    for folder in ("engine", "tracking"):
        for path in (ROOT / folder).rglob("*.py"):
            for m in pattern.finditer(path.read_text(encoding="utf-8")):
                found.add(m.group(1) or m.group(2))
    return found


def test_the_grep_finds_the_engines_codes():
    codes = emitted_codes()
    assert len(codes) >= 30 and codes <= set(CODES), sorted(codes - set(CODES))


def clean(sentence: str, code: str) -> None:
    assert sentence.strip()
    assert code not in sentence, f"raw code in {sentence!r}"
    assert "{" not in sentence and "}" not in sentence, f"unfilled placeholder in {sentence!r}"


@pytest.mark.parametrize("lang", ["en", "it", "ja"])
@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_has_a_sentence_without_code_or_placeholder(code, lang):
    for seat in ("south", None):
        for details in ({}, RICH, {"cards": [], "stones": [], "piles": []}):
            clean(WORDS.sentence(lang, {"code": code, "seat": seat, "details": details}, GAME), code)
    assert WORDS.templates(lang, code), f"no warn.{code} in {lang}"
    # the fallback needs nothing but the player, so an old warning without details still reads well
    assert any(needs <= {"player"} for _, needs in WORDS.templates(lang, code)), code


@pytest.mark.parametrize("lang", ["en", "it"])
def test_every_template_can_be_filled(lang):
    known = set(WORDS.values(lang, {"code": "tile-changed", "seat": "south", "details": RICH}, GAME))
    known |= set(WORDS.values(lang, {"code": "row-changed", "seat": "south",
                                     "details": {"before": ["3"], "after": []}}, GAME))
    known |= set(WORDS.values(lang, {"code": "out-of-turn", "seat": "south", "details": RICH}, GAME))
    known |= set(WORDS.values(lang, {"code": "wish-unexplained", "seat": "south",
                                     "details": {"delta": -1, "expected": 0}}, GAME))
    known |= set(WORDS.values(lang, {"code": "wish-unexplained", "seat": "south",
                                     "details": {"delta": 2, "expected": 0}}, GAME))
    for code in CODES:
        for text, needs in WORDS.templates(lang, code):
            assert needs <= known, f"{code} {lang}: {text!r} needs {sorted(needs - known)}"


def test_the_issue_example_in_english_and_italian():
    w = {"code": "two-cards", "seat": "south", "details": {"cards": [["red", "4"], ["blue", "7"]]}}
    assert WORDS.sentence("en", w, GAME) == "Anna laid 2 cards this turn: red 4 and blue 7"
    assert WORDS.sentence("it", w, GAME) == "Anna ha posato 2 carte in questo turno: il 4 rosso e il 7 blu"


def test_a_stone_is_named_by_its_colour_value_and_id():
    w = {"code": "pawn-backwards", "seat": "west", "details": {"src": "r3", "dst": "r2"}}
    text = WORDS.sentence("en", w, GAME)
    assert text.startswith("Ben moved a pawn back from red ") and "(r3)" in text and "(r2)" in text


def test_an_unnamed_player_is_their_seat_and_an_unknown_one_someone():
    game = {**GAME, "names": {}}
    assert WORDS.sentence("it", {"code": "out-of-turn", "seat": "west", "details": {"expected": "south"}},
                          game) == "Ovest ha giocato, ma era il turno di Sud"
    assert WORDS.sentence("en", {"code": "clover-not-used", "seat": None}, game).startswith("Someone ")


def test_the_snapshot_names_the_warnings_of_the_last_move_as_current():
    snap = {"game": GAME, "moves": [{"id": 1, "seat": "south"}, {"id": 2, "seat": "west"}],
            "warnings": [{"id": 1, "code": "no-card", "seat": "south", "move_id": 1, "withdrawn": False},
                         {"id": 2, "code": "out-of-turn", "seat": "west", "move_id": 2, "withdrawn": False},
                         {"id": 3, "code": "no-card", "seat": "west", "move_id": 2, "withdrawn": True}]}
    out = WORDS.decorate(snap)
    assert out["current_warnings"] == [2]
    assert out["warnings"][1]["text"]["en"] == "Ben played out of turn"
    assert out["warnings"][1]["text"]["it"] == "Ben ha giocato fuori turno"


def test_a_warning_without_a_seat_names_the_player_of_its_move_and_italian_contracts():
    snap = {"game": GAME, "moves": [{"id": 1, "seat": "south"}],
            "warnings": [{"id": 1, "code": "two-cards", "seat": None, "move_id": 1, "withdrawn": False,
                          "details": {"piles": ["pink"]}},
                         {"id": 2, "code": "two-steps", "seat": "south", "move_id": 1, "withdrawn": False,
                          "details": {"src": "start", "dst": "r2", "steps": 2}}]}
    out = WORDS.decorate(snap)["warnings"]
    assert out[0]["text"]["en"].startswith("Anna laid a card and discarded onto the pink pile")
    assert "dalla partenza a " in out[1]["text"]["it"] and "da la" not in out[1]["text"]["it"]


def test_a_warning_raised_after_the_next_move_began_is_still_current():
    """The decoder raises a warning once it is sure of its move, which may be after the next move was
    shown: a phone joining then still sees it; once a later move is made, it is history."""
    snap = {"game": GAME, "moves": [{"id": 1, "seat": "south", "t": 10.0}, {"id": 2, "seat": "west", "t": 14.0}],
            "warnings": [{"id": 1, "code": "out-of-turn", "seat": "south", "move_id": 1, "t": 15.5,
                          "withdrawn": False},
                         {"id": 2, "code": "no-card", "seat": "south", "move_id": 1, "t": 12.0, "withdrawn": False}]}
    assert WORDS.decorate(snap)["current_warnings"] == [1]
    later = {**snap, "moves": [*snap["moves"], {"id": 3, "seat": "north", "t": 20.0}]}
    assert WORDS.decorate(later)["current_warnings"] == []

