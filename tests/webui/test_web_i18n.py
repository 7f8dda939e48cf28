"""Translations are data: every language has every string, and every rule code has a title."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from werkzeug.datastructures import LanguageAccept

from engine.violations import CODES
from webui.i18n import Translations

I18N = Path(__file__).resolve().parents[2] / "webui" / "i18n"
ENGLISH = json.loads((I18N / "en.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("code", ["it", "ja"])
def test_every_language_has_every_string(code):
    strings = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
    assert set(strings) == set(ENGLISH)
    for key, text in strings.items():
        # the same {placeholders} as English, so no translation drops a name or a number
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", ENGLISH[key])), key
        assert text.strip(), key


@pytest.mark.parametrize("code", ["en", "it", "ja"])
def test_every_violation_code_has_a_title(code):
    strings = json.loads((I18N / f"{code}.json").read_text(encoding="utf-8"))
    missing = sorted(c for c in CODES if f"violation.{c}" not in strings)
    assert not missing, f"add violation.<code> titles to webui/i18n/{code}.json for {missing}"


def test_a_code_nobody_translated_yet_shows_the_engines_meaning():
    tr = Translations(codes={**CODES, "brand-new-code": "something new happened"})
    assert tr.gettext("it", "violation.brand-new-code") == "Something new happened"
    assert tr.bundle("ja")["violation.brand-new-code"] == "Something new happened"
    assert Translations().codes is CODES  # by default the engine's codes


def test_choice_order_query_cookie_header():
    tr = Translations()
    header = LanguageAccept([("ja", 1.0), ("en", 0.5)])
    assert tr.choose("it", "en", header) == "it"
    assert tr.choose(None, "it", header) == "it"
    assert tr.choose(None, None, header) == "ja"
    assert tr.choose("xx", "yy", LanguageAccept([("de", 1)])) == "en"
    assert tr.choose(None, None, LanguageAccept([("it-CH", 1)])) == "it"


def test_gettext_falls_back_to_english_then_the_key():
    tr = Translations()
    tr.strings["it"].pop("nav.live")
    assert tr.gettext("it", "nav.live") == ENGLISH["nav.live"]
    assert tr.gettext("it", "no.such.key") == "no.such.key"
    assert tr.gettext("it", "turn.of", name="Anna") == "Tocca a Anna"
