"""Translations as data (webui/i18n/<code>.json) and the choice of language for a request.

The language comes from, in order: a `?lang=` switch (remembered in a cookie), the cookie, the
phone's Accept-Language (what navigator.language reports too), then the first language offered.
English is the reference: a key missing elsewhere falls back to English, then to the key itself.
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any, Mapping

LANG_COOKIE = "lang"


class Translations:
    """All strings of the offered languages, loaded once."""

    def __init__(self, languages: tuple[str, ...] = ("en", "it", "ja"), codes: Mapping[str, str] | None = None):
        """codes: rule code → its English meaning (default: the engine's, engine.violations.CODES),
        the title of a code no translation knows yet."""
        if not languages:
            raise ValueError("at least one language must be offered")
        if codes is None:
            from engine.violations import CODES as codes
        self.codes: Mapping[str, str] = codes
        self.languages = tuple(languages)
        self.fallback = self.languages[0]
        self.strings: dict[str, dict[str, str]] = {code: load_language(code) for code in self.languages}

    def names(self) -> dict[str, str]:
        """Language code → its own name ("Italiano"), for the switch."""
        return {code: self.strings[code].get("_name", code) for code in self.languages}

    def gettext(self, lang: str, key: str, **values: Any) -> str:
        """The string for `key` in `lang` with {placeholders} filled in."""
        text = self.strings.get(lang, {}).get(key)
        if text is None:
            text = self.strings[self.fallback].get(key)
        if text is None:
            text = self.engine_fallback(key) or key
        if values:
            try:
                return text.format(**values)
            except (KeyError, IndexError, ValueError):
                return text
        return text

    def bundle(self, lang: str) -> dict[str, str]:
        """Every string for `lang` (English filling the gaps), for the page's script."""
        out = {f"violation.{code}": self.engine_fallback(f"violation.{code}") for code in self.codes}
        out.update(self.strings[self.fallback])
        out.update(self.strings.get(lang, {}))
        return out

    def engine_fallback(self, key: str) -> str | None:
        """A title for a rule code no translation knows yet: the engine's own English meaning."""
        if key.startswith("violation."):
            meaning = self.codes.get(key[len("violation."):])
            if meaning:
                return meaning[:1].upper() + meaning[1:]
        return None

    def choose(self, query_lang: str | None, cookie_lang: str | None, accept_languages: Any) -> str:
        """The language for a request (see the module docstring for the order)."""
        for candidate in (query_lang, cookie_lang):
            if candidate in self.languages:
                return candidate  # type: ignore[return-value]
        if accept_languages is not None:
            best = accept_languages.best_match(self.languages)
            if best:
                return best
            # "it-IT" style entries when the plain code is missing
            for value, _quality in accept_languages:
                primary = str(value).split("-")[0].lower()
                if primary in self.languages:
                    return primary
        return self.fallback


def load_language(code: str) -> dict[str, str]:
    """Read webui/i18n/<code>.json; a broken file is a startup error naming it."""
    path = resources.files("webui") / "i18n" / f"{code}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"webui/i18n/{code}.json: no such translation file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"webui/i18n/{code}.json: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ValueError(f"webui/i18n/{code}.json: expected an object of strings")
    return data
