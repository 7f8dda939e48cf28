"""Warnings in words a player uses: "Anna laid two cards this turn: red 4 and blue 7".

The engine reports a rule problem as a stable code with structured details (engine/violations.py);
the tracker passes both on in its warnings. Here each warning gets a sentence per offered language,
built from the translation files: for a code, every key `warn.<code>` or `warn.<code>.<variant>` is a
template, and the most specific one whose {placeholders} can all be filled from the warning's
details is used. The plain `warn.<code>` needs at most {player}, so a sentence is always complete,
even for a warning recorded before details existed.

Done once per snapshot on the server (the broadcaster decorates what every phone gets): the page only
picks the sentence of its language.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

from .i18n import Translations

PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: Italian joins a preposition and an article ("da la partenza" → "dalla partenza"); a filled-in
#: stone or card word may start with an article the template's preposition must merge with.
CONTRACTIONS = {"it": ((" da la ", " dalla "), (" a la ", " alla "), (" su la ", " sulla "), (" di la ", " della "),
                       (" da il ", " dal "), (" a il ", " al "), (" su il ", " sul "), (" di il ", " del "))}


@lru_cache(maxsize=8)
def _board(name: str) -> Any:
    from engine.board import load_board

    return load_board(name)


class WarningWords:
    """Builds the sentence of a warning in each offered language."""

    def __init__(self, translations: Translations):
        self.translations = translations
        self._templates: dict[tuple[str, str], list[tuple[str, frozenset[str]]]] = {}
        self._sentences: dict[tuple, str] = {}  # the same warnings come in every snapshot

    # -- templates ----------------------------------------------------------------------------
    def templates(self, lang: str, code: str) -> list[tuple[str, frozenset[str]]]:
        """The templates for `code` in `lang` (English filling gaps), most placeholders first."""
        key = (lang, code)
        if key not in self._templates:
            strings = self.translations.bundle(lang)
            prefix = f"warn.{code}"
            found = [(text, frozenset(PLACEHOLDER.findall(text))) for k, text in strings.items()
                     if k == prefix or k.startswith(prefix + ".")]
            found.sort(key=lambda tf: -len(tf[1]))
            self._templates[key] = found
        return self._templates[key]

    def _t(self, lang: str, key: str, **values: Any) -> str:
        return self.translations.gettext(lang, key, **values)

    # -- the words for details ----------------------------------------------------------------
    def player(self, lang: str, seat: Any, game: dict[str, Any]) -> str | None:
        if not isinstance(seat, str):
            return None
        name = (game.get("names") or {}).get(seat)
        if name:
            return str(name)
        if seat in (game.get("seats") or {}):
            return self._t(lang, f"seat.{seat}")
        return None

    def colour(self, lang: str, colour: Any) -> str:
        return self._t(lang, f"colour.{colour}")

    def card(self, lang: str, code: Any, colour: Any = None) -> str | None:
        if code is None:
            return None
        code = str(code)
        if code.startswith("P"):
            return self._t(lang, "warncard.points", value=code[1:])
        if colour in (None, "points", "any"):
            return self._t(lang, "warncard.value", value=code)
        if code == "E":
            return self._t(lang, "warncard.end", colour=self.colour(lang, colour))
        key = "warncard.number_vowel" if code in ("1", "8", "11") else "warncard.number"
        return self._t(lang, key, colour=self.colour(lang, colour), value=code)

    def stone(self, lang: str, stone_id: Any, game: dict[str, Any]) -> str | None:
        if not isinstance(stone_id, str):
            return None
        try:
            stone = _board(game["board"]).stones.get(stone_id) if game.get("board") else None
        except Exception:  # an unknown board: the stone's id still says which one
            stone = None
        if stone is None:
            return stone_id
        if stone.kind == "start":
            return self._t(lang, "stone.start")
        value = f"{stone.value:+d}" if stone.value else "0"
        return self._t(lang, "stone.named", colour=self.colour(lang, stone.color), value=value, id=stone_id)

    def tile(self, lang: str, code: Any) -> str | None:
        if not isinstance(code, str):
            return None
        if code.startswith("wish-") and code != "wish-any":
            return self._t(lang, "warntile.wish_colour", colour=self.colour(lang, code[5:]))
        return self._t(lang, "tile.wish" if code == "wish-any" else f"tile.{code}")

    def join(self, lang: str, items: Iterable[str]) -> str | None:
        items = [i for i in items if i]
        if not items:
            return None
        if len(items) == 1:
            return items[0]
        return self._t(lang, "warn.list", first=", ".join(items[:-1]), last=items[-1])

    def values(self, lang: str, warning: dict[str, Any], game: dict[str, Any]) -> dict[str, str]:
        """Every placeholder this warning can fill, in `lang`."""
        code = warning.get("code")
        d = warning.get("details") if isinstance(warning.get("details"), dict) else {}
        out: dict[str, str | None] = {}
        out["player"] = self.player(lang, warning.get("seat"), game)
        if out["player"] is None and isinstance(d.get("seats"), list):
            out["player"] = self.join(lang, (self.player(lang, s, game) or "" for s in d["seats"]))
        colour = d.get("colour") if isinstance(d.get("colour"), str) else d.get("pile")
        if isinstance(colour, str) and colour not in ("points", "any"):
            out["colour"] = self.colour(lang, colour)
        card = d.get("card")
        if isinstance(card, list) and len(card) == 2:
            out["card"] = self.card(lang, card[1], card[0])
        elif isinstance(card, (str, int)) and not isinstance(card, bool):
            out["card"] = self.card(lang, card, colour)
        if isinstance(card, list) and len(card) == 2 and "colour" not in out and isinstance(card[0], str):
            out["colour"] = self.colour(lang, card[0])
        if isinstance(d.get("cards"), list):
            out["ncards"] = str(len(d["cards"]))
            out["cards"] = self.join(lang, (self.card(lang, c[1], c[0]) or "" for c in d["cards"]
                                            if isinstance(c, list) and len(c) == 2))
        out["stone"] = self.stone(lang, d.get("stone") or d.get("to") or d.get("dst"), game)
        out["from"] = self.stone(lang, d.get("from") or d.get("src"), game)
        if isinstance(d.get("stones"), list):
            out["stones"] = self.join(lang, (self.stone(lang, s, game) or "" for s in d["stones"]))
        if code == "tile-changed":
            out["tile_before"] = self.tile(lang, d.get("before"))
            out["tile_after"] = self.tile(lang, d.get("after"))
            out["tile"] = self.tile(lang, d.get("tile")) or out["tile_after"]
        else:
            out["tile"] = self.tile(lang, d.get("tile"))
        if code == "row-changed" and isinstance(d.get("before"), list) and isinstance(d.get("after"), list):
            nothing = self._t(lang, "card.nothing")
            out["row_before"] = ", ".join(map(str, d["before"])) or nothing
            out["row_after"] = ", ".join(map(str, d["after"])) or nothing
        if isinstance(d.get("piles"), list):
            out["piles"] = self.join(lang, (self.colour(lang, p) for p in d["piles"] if isinstance(p, str)))
        if code == "out-of-turn":
            out["expected"] = self.player(lang, d.get("expected"), game)
        for key in ("steps", "plays", "allowed", "pawns_in_goal", "wish"):
            if isinstance(d.get(key), int) and not isinstance(d.get(key), bool):
                out[key] = str(d[key])
        delta = d.get("delta")
        if isinstance(delta, int) and not isinstance(delta, bool) and delta:
            out["lost" if delta < 0 else "gained"] = str(abs(delta))
            if isinstance(d.get("expected"), int):
                out["expected_n"] = str(d["expected"])
        if isinstance(d.get("discarded"), list):
            out["discarded"] = self.join(lang, (str(v) for v in d["discarded"] if v is not None))
        return {k: v for k, v in out.items() if v}

    # -- sentences ----------------------------------------------------------------------------
    def sentence(self, lang: str, warning: dict[str, Any], game: dict[str, Any]) -> str:
        """The warning in `lang`: the most specific template whose placeholders are all known."""
        key = (lang, warning.get("code"), warning.get("seat"), repr(warning.get("details")),
               repr(game.get("names")), repr(game.get("seats")), game.get("board"))
        hit = self._sentences.get(key)
        if hit is None:
            if len(self._sentences) > 4096:
                self._sentences.clear()
            hit = self._sentences[key] = self._sentence(lang, warning, game)
        return hit

    def _sentence(self, lang: str, warning: dict[str, Any], game: dict[str, Any]) -> str:
        values = self.values(lang, warning, game)
        if "player" not in values:
            values["player"] = self._t(lang, "warn.someone")
        for text, needs in self.templates(lang, str(warning.get("code"))):
            if needs <= values.keys():
                sentence = text.format(**{k: values[k] for k in needs})
                for a, b in CONTRACTIONS.get(lang, ()):
                    sentence = sentence.replace(a, b)
                return sentence[:1].upper() + sentence[1:]
        # A code no translation knows (a newer engine): its title, never the bare code.
        return self._t(lang, f"violation.{warning.get('code')}")

    def decorate(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        """The snapshot with each warning's sentences (`text`: {lang: sentence}) and, in
        `current_warnings`, the ids of the warnings still standing about the last move, or raised since
        it was made (what a phone that joins now should see in its banner: the decoder raises a warning
        once it is sure of its move, which may be after the next move began)."""
        warnings = snapshot.get("warnings") or []
        game = snapshot.get("game") or {}
        seat_of_move = {m.get("id"): m.get("seat") for m in snapshot.get("moves") or [] if isinstance(m, dict)}
        out = []
        for w in warnings:
            if not isinstance(w, dict):
                out.append(w)
                continue
            if not w.get("seat") and seat_of_move.get(w.get("move_id")):
                # (a rule the table as a whole breaks, e.g. a discard as well: the move's player did it)
                w = {**w, "seat": seat_of_move[w["move_id"]]}
            text = {lang: self.sentence(lang, w, game) for lang in self.translations.languages}
            out.append({**w, "text": text})
        moves = snapshot.get("moves") or []
        if any(isinstance(m, dict) and m.get("violations") for m in moves):
            moves = [self._move(m, game) for m in moves]
        last = moves[-1].get("id") if moves and isinstance(moves[-1], dict) else None
        last_t = moves[-1].get("t") if moves and isinstance(moves[-1], dict) else None

        def current_one(w: dict[str, Any]) -> bool:
            if w.get("withdrawn") or last is None:
                return False
            if w.get("move_id") == last:
                return True
            t = w.get("t")
            return isinstance(t, (int, float)) and isinstance(last_t, (int, float)) and t >= last_t

        current = [w["id"] for w in out if isinstance(w, dict) and current_one(w)]
        return {**snapshot, "warnings": out, "moves": moves, "current_warnings": current}

    def _move(self, move: Any, game: dict[str, Any]) -> Any:
        """A move whose rule problems carry their sentences too (the history lists them)."""
        if not isinstance(move, dict) or not move.get("violations"):
            return move
        words = []
        for v in move["violations"]:
            if isinstance(v, dict):
                v = {**v, "seat": v.get("seat") or move.get("seat")}
                v["text"] = {lang: self.sentence(lang, v, game) for lang in self.translations.languages}
            words.append(v)
        return {**move, "violations": words}
