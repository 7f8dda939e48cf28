"""Measuring a reader against simulator truth: `keltis-cam eval DIR` (a `sim frames` folder).

Element groups are registered in one place, `ELEMENT_GROUPS`: each knows how to count its
elements and errors in one frame (truth vs reading). The board reader registers "pawns" and
"tiles"; the card reader adds its groups (rows, discard tops) here and `eval` prints them too.

A frame is read with what a table knows, never with its observed state: the frame's calibration
(markers, seats and, unless `no_lens`, the lens), the game, board and who sits where.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping


@dataclass(frozen=True)
class ElementGroup:
    """One kind of element: `count(truth_obs, read_obs) -> (elements, errors)` on usable frames."""

    name: str
    applies: Callable[[Mapping[str, Any]], bool]
    count: Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[int, int]]
    #: optional: each counted error as (kind, detail); as many as `count`'s errors
    explain: Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[str, str]]] | None = None


def _pawn_key(p: Mapping[str, Any]) -> tuple[str, str, bool]:
    return (p["stone"], p["player"], bool(p["big"]))


def count_pawns(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Pawns as a multiset of (stone, player, big), the remaining ones on "start" included."""
    t = Counter(_pawn_key(p) for p in truth.get("pawns") or [])
    r = Counter(_pawn_key(p) for p in read.get("pawns") or [])
    n = sum(t.values())
    return n, n - sum((t & r).values())


START = "start"


def count_stones(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Path stones with a pawn in the truth or the reading, and of them those whose pawns (players and
    sizes) are read otherwise: the share a reading's per-stone pawn confidence states (element_confidence)."""
    def on(obs: Mapping[str, Any]) -> dict[str, Counter]:
        out: dict[str, Counter] = {}
        for p in obs.get("pawns") or []:
            k = _pawn_key(p)
            if k[0] != START:
                out.setdefault(k[0], Counter())[k[1:]] += 1
        return out

    t, r = on(truth), on(read)
    stones = set(t) | set(r)
    return len(stones), sum(1 for s in stones if t.get(s) != r.get(s))

#: The kinds `explain_pawns` sorts count_pawns' errors into, in the order eval prints them.
PAWN_ERROR_KINDS = (
    "path: missing",         # a pawn on a path stone the reader lists on "start" (or not at all)
    "path: wrong colour",    # read on its stone as another player's (same size)
    "path: wrong size",      # read on its stone as its player's other size
    "path: wrong colour+size",
    "path: wrong stone",     # its player's pawn of its size read on another path stone instead
    "start: extra",          # a pawn on "start" the reader puts on a path stone where there is none
    "start: follows a path error",   # the "start" listing off because a path pawn was read as another
    "start: other",
)


def _pawn_str(k: tuple[str, str, bool]) -> str:
    return f"{k[0]} {k[1]} {'big' if k[2] else 'small'}"


def explain_pawns(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_pawns counts (a truth pawn the reading lacks), as (kind, "truth -> read"), kinds
    from PAWN_ERROR_KINDS. A missing truth pawn is paired with a pawn the reading has and the truth has
    not: on a path stone first by the same stone (wrong size, colour, both), then the same player and
    size on another path stone (wrong stone), else it is missing (the reader keeps every player's 5
    pawns, so it sits on "start" there). A missing "start" pawn paired with the same player and size
    read on a path stone is an extra pawn; the rest of the "start" errors follow from path errors."""
    t = Counter(_pawn_key(p) for p in truth.get("pawns") or [])
    r = Counter(_pawn_key(p) for p in read.get("pawns") or [])
    missing, extra = t - r, r - t
    out: list[tuple[str, str]] = []

    def take(key: tuple[str, str, bool], match: Callable[[tuple[str, str, bool]], bool]) -> tuple | None:
        for e in sorted(extra):
            if extra[e] > 0 and match(e):
                extra[e] -= 1
                missing[key] -= 1
                return e
        return None

    rules_path = (
        ("path: wrong size", lambda k, e: e[0] == k[0] and e[1] == k[1] and e[2] != k[2]),
        ("path: wrong colour", lambda k, e: e[0] == k[0] and e[1] != k[1] and e[2] == k[2]),
        ("path: wrong colour+size", lambda k, e: e[0] == k[0] and e[1] != k[1] and e[2] != k[2]),
        ("path: wrong stone", lambda k, e: e[0] not in (k[0], START) and e[1] == k[1] and e[2] == k[2]),
        ("path: missing", lambda k, e: e[0] == START and e[1] == k[1] and e[2] == k[2]),
    )
    rules_start = (
        ("start: extra", lambda k, e: e[0] != START and e[1] == k[1] and e[2] == k[2]),
        ("start: follows a path error", lambda k, e: True),
    )
    for rules, on_start in ((rules_path, False), (rules_start, True)):
        for kind, rule in rules:
            for key in sorted(missing):
                if (key[0] == START) != on_start:
                    continue
                while missing[key] > 0:
                    got = take(key, lambda e, key=key, rule=rule: rule(key, e))
                    if got is None:
                        break
                    out.append((kind, f"{_pawn_str(key)} -> {_pawn_str(got)}"))
    for key in sorted(missing):
        for _ in range(missing[key]):
            out.append(("start: other" if key[0] == START else "path: missing", f"{_pawn_str(key)} -> -"))
    return out


def explain_tiles(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_tiles counts as ("TRUTH -> READ", spot), codes or "empty" (or "?" unread)."""
    t = truth.get("tiles") or {}
    r = read.get("tiles") or {}
    out = []
    for spot, code in t.items():
        got = r.get(spot, "?")
        if got != code:
            out.append((f"{code or 'empty'} -> {'empty' if got is None else got}", spot))
    return out


def tiles_under_pawns(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Of the tile spots a pawn stands on (truth): (how many, how many read wrong)."""
    t = truth.get("tiles") or {}
    r = read.get("tiles") or {}
    occupied = {p.get("stone") for p in truth.get("pawns") or []}
    spots = [spot for spot in t if spot in occupied]
    return len(spots), sum(1 for spot in spots if r.get(spot, "?") != t[spot])


def count_tiles(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    t = truth.get("tiles") or {}
    r = read.get("tiles") or {}
    return len(t), sum(1 for spot, code in t.items() if r.get(spot, "?") != code)


def _board_game(truth: Mapping[str, Any]) -> bool:
    return truth.get("game") == "keltis" and truth.get("board") is not None


def _seats(obs: Mapping[str, Any]) -> Mapping[str, Any]:
    return obs.get("seats") or {}


def count_rows(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Cards in rows position by position (seat, colour, index): a wrong, missing or extra card is one
    error each; a row read where the seat has none counts its cards as extra."""
    n = e = 0
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t_rows = ts.get("rows") or {}
        r_rows = (rs.get(seat) or {}).get("rows") or {}
        for colour in set(t_rows) | set(r_rows):
            t, r = list(t_rows.get(colour) or []), list(r_rows.get(colour) or [])
            n += max(len(t), len(r))
            e += sum(1 for i in range(max(len(t), len(r))) if i >= len(t) or i >= len(r) or t[i] != r[i])
    return n, e


def count_wish_held(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Wish stones held per seat and colour: each stone missing or extra is an error; a seat holding
    none is one element (reading one there is an error)."""
    n = e = 0
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t, r = ts.get("wish") or {}, (rs.get(seat) or {}).get("wish") or {}
        n += max(1, sum(max(int(t.get(c, 0)), int(r.get(c, 0))) for c in set(t) | set(r)))
        e += sum(abs(int(t.get(c, 0)) - int(r.get(c, 0))) for c in set(t) | set(r))
    return n, e


def count_wish_cards(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Wish cards per seat as a multiset of values (a seat with none is one element)."""
    n = e = 0
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t = Counter(ts.get("wish_cards") or [])
        r = Counter((rs.get(seat) or {}).get("wish_cards") or [])
        size = max(sum(t.values()), sum(r.values()))
        n += max(1, size)
        e += size - sum((t & r).values())
    return n, e


def count_points_row(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Each seat's points row count is one element."""
    rs = _seats(read)
    ts = _seats(truth)
    return len(ts), sum(1 for seat, t in ts.items() if int(t.get("points_row") or 0)
                        != int((rs.get(seat) or {}).get("points_row") or 0))


#: The kinds `explain_rows` sorts the rows' position-by-position errors into, in the order eval prints
#: them. The truth and reading of a row are aligned by fewest edits (vision.card_errors.align): a
#: position wrong because an earlier card was missed (or one too many read) is counted as following it.
ROW_ERROR_KINDS = ("row missing", "row extra", "row colour", "missing first card", "missing middle card",
                   "missing last card", "after a missing card", "extra first card", "extra middle card",
                   "extra last card", "after an extra card", "wrong value", "wrong kind")


def _code_kind(code: str | None) -> str:
    return "points" if str(code).startswith("P") else "end" if code == "E" else "number"


def _row_colour_pairs(t_rows: Mapping[str, list], r_rows: Mapping[str, list]) -> dict[str, str]:
    """Truth colour -> read colour for a row read under another colour (the unmatched read row nearest
    in content, at most half the row's cards apart: as vision.card_errors counts it)."""
    from .card_errors import _distance

    only_t = [c for c in t_rows if t_rows[c] and not r_rows.get(c)]
    only_r = [c for c in r_rows if r_rows[c] and not t_rows.get(c)]
    pairs: dict[str, str] = {}
    for c in only_t:
        best = min((o for o in only_r if o not in pairs.values()),
                   key=lambda o: _distance(t_rows[c], r_rows[o]), default=None)
        if best is not None and _distance(t_rows[c], r_rows[best]) <= len(t_rows[c]) // 2:
            pairs[c] = best
    return pairs


def explain_row(t: list[str], r: list[str]) -> list[tuple[str, int]]:
    """One row's position-by-position errors (as `count_rows` counts them) as (kind, position), kinds
    from ROW_ERROR_KINDS."""
    from .card_errors import align

    ops = align(t, r)
    at_truth: dict[int, tuple[str, int | None]] = {}      # truth index -> (op, read index)
    at_read: dict[int, tuple[str, int | None]] = {}
    first_shift: list[tuple[int, str]] = []                # (truth index where it happens, kind)
    ti = ri = 0
    for op, _tc, _rc in ops:
        if op in ("same", "sub"):
            at_truth[ti], at_read[ri] = (op, ri), (op, ti)
            ti, ri = ti + 1, ri + 1
        elif op == "del":
            at_truth[ti] = ("del", None)
            first_shift.append((ti, "after a missing card"))
            ti += 1
        else:
            at_read[ri] = ("ins", None)
            first_shift.append((ti, "after an extra card"))
            ri += 1

    def where(i: int, n: int) -> str:
        return "first" if i == 0 else "last" if i == n - 1 else "middle"

    def shifted(i: int) -> str:
        before = [k for at, k in first_shift if at <= i]
        return before[0] if before else (first_shift[0][1] if first_shift else "wrong value")

    out: list[tuple[str, int]] = []
    for i in range(max(len(t), len(r))):
        tc = t[i] if i < len(t) else None
        rc = r[i] if i < len(r) else None
        if tc == rc:
            continue
        op, j = at_truth.get(i, (None, None)) if tc is not None else (None, None)
        if op == "del":
            kind = f"missing {where(i, len(t))} card"
        elif op == "sub" and j == i:
            kind = "wrong kind" if _code_kind(tc) != _code_kind(rc) else "wrong value"
        elif tc is None and at_read.get(i, (None,))[0] == "ins":
            kind = f"extra {where(i, len(r))} card"
        elif at_read.get(i, (None,))[0] == "ins" and op is None:
            kind = f"extra {where(i, len(r))} card"
        else:
            kind = shifted(i)
        out.append((kind, i))
    return out


def explain_rows(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_rows counts, as (kind, "seat colour #position/length truth -> read"), kinds
    from ROW_ERROR_KINDS."""
    out: list[tuple[str, str]] = []
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t_rows = {c: list(v or []) for c, v in (ts.get("rows") or {}).items()}
        r_rows = {c: list(v or []) for c, v in ((rs.get(seat) or {}).get("rows") or {}).items()}
        pairs = _row_colour_pairs(t_rows, r_rows)
        for colour in sorted(set(t_rows) | set(r_rows)):
            t, r = t_rows.get(colour, []), r_rows.get(colour, [])
            if colour in pairs or colour in pairs.values():
                kinds = [("row colour", i) for i in range(max(len(t), len(r)))]
                if colour in pairs:
                    r = r_rows[pairs[colour]]
            elif t and not r:
                kinds = [("row missing", i) for i in range(len(t))]
            elif r and not t:
                kinds = [("row extra", i) for i in range(len(r))]
            else:
                kinds = explain_row(t, r)
            t_own, r_own = t_rows.get(colour, []), r_rows.get(colour, [])
            for kind, i in kinds:
                tc = t_own[i] if i < len(t_own) else "-"
                rc = r_own[i] if i < len(r_own) else "-"
                note = f" (read as {pairs[colour]})" if colour in pairs else ""
                out.append((kind, f"{seat} {colour} #{i}/{len(t_own)} {tc} -> {rc}{note}"))
    return out


#: The kinds `explain_wish_cards` and `explain_points_row` sort their errors into.
WISHCARD_ERROR_KINDS = ("card missed", "wrong value", "card extra")
POINTROW_ERROR_KINDS = ("row missed", "fewer cards", "more cards", "row where none")


def explain_wish_cards(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_wish_cards counts, as (kind, "seat truth -> read"): of a seat's values missing
    and read in excess, as many as pair up are wrong values, the rest missed (truth longer) or extra."""
    out: list[tuple[str, str]] = []
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t = Counter(str(v) for v in ts.get("wish_cards") or [])
        r = Counter(str(v) for v in (rs.get(seat) or {}).get("wish_cards") or [])
        missing, extra = sorted((t - r).elements()), sorted((r - t).elements())
        for k in range(max(len(missing), len(extra))):
            m = missing[k] if k < len(missing) else None
            x = extra[k] if k < len(extra) else None
            kind = "wrong value" if m and x else "card missed" if m else "card extra"
            out.append((kind, f"{seat} {m or '-'} -> {x or '-'} (of {sum(t.values())})"))
    return out


def explain_points_row(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_points_row counts (one per seat), as (kind, "seat truth -> read")."""
    out: list[tuple[str, str]] = []
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t, r = int(ts.get("points_row") or 0), int((rs.get(seat) or {}).get("points_row") or 0)
        if t != r:
            kind = ("row missed" if r == 0 else "row where none" if t == 0
                    else "fewer cards" if r < t else "more cards")
            out.append((kind, f"{seat} {t} -> {r}"))
    return out


def count_discards(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[int, int]:
    """Each discard pile's top (null: empty) is one element."""
    t, r = truth.get("discard_tops") or {}, read.get("discard_tops") or {}
    return len(t), sum(1 for pile, code in t.items() if r.get(pile) != code) + \
        sum(1 for pile, code in r.items() if pile not in t and code is not None)


#: The kinds `explain_wish_held` sorts the wish-stone errors into, in the order eval prints them.
WISH_ERROR_KINDS = ("missed stone", "two touching counted as one", "wrong colour", "extra stone")


def _touching_tokens(truth: Mapping[str, Any], seat: str, colour: str, reach: float = 1.15) -> int:
    """How many of `seat`'s held tokens of `colour` lie within `reach` diameters of another held token
    (render truth: their image quads give the diameter in frame pixels)."""
    import math

    items = [it for it in (truth.get("render") or {}).get("items") or []
             if it.get("kind") == "wish-held" and it.get("seat") == seat and it.get("centre") and it.get("quad")]
    n = 0
    for it in items:
        if it.get("colour") != colour:
            continue
        q = it["quad"]
        d = max(math.dist(q[0], q[2]), math.dist(q[1], q[3])) / math.sqrt(2)
        if any(o is not it and math.dist(o["centre"], it["centre"]) < reach * d for o in items):
            n += 1
    return n


def explain_wish_held(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_wish_held counts, as (kind, "seat colour -> read"), kinds from WISH_ERROR_KINDS:
    a stone the seat lacks in the reading paired with one of another colour read there is a wrong colour
    (two errors: one missing, one extra); a missing stone that touches another held one (render truth)
    is two touching counted as one; the rest are missed or extra stones."""
    out: list[tuple[str, str]] = []
    rs = _seats(read)
    for seat, ts in _seats(truth).items():
        t = Counter({c: int(v) for c, v in (ts.get("wish") or {}).items()})
        r = Counter({c: int(v) for c, v in ((rs.get(seat) or {}).get("wish") or {}).items()})
        missing, extra = t - r, r - t
        for c in sorted(missing):
            for e in sorted(extra):
                while missing[c] > 0 and extra[e] > 0:
                    missing[c] -= 1
                    extra[e] -= 1
                    out += [("wrong colour", f"{seat} {c} -> {e}")] * 2
        for c in sorted(missing):
            touching = min(missing[c], _touching_tokens(truth, seat, c))
            out += [("two touching counted as one", f"{seat} {c} -> -")] * touching
            out += [("missed stone", f"{seat} {c} -> -")] * (missing[c] - touching)
        for e in sorted(extra):
            out += [("extra stone", f"{seat} - -> {e}")] * extra[e]
    return out


#: The kinds `explain_discards` sorts the discard-top errors into, in the order eval prints them.
DISCARD_ERROR_KINDS = ("pile missed", "pile out of view", "wrong value", "wrong colour",
                       "empty pile read as a card", "card read where none")


def explain_discards(truth: Mapping[str, Any], read: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each error count_discards counts, as (kind, "pile truth -> read"), kinds from DISCARD_ERROR_KINDS:
    a pile's top read on another pile that does not hold it is a wrong colour (both piles' errors); an
    empty pile read as a card, a card read for a pile the game does not have. A pile missed whose card
    the render truth has outside the frame (`in_view` false) is out of view: no reader can see it."""
    t, r = truth.get("discard_tops") or {}, read.get("discard_tops") or {}
    unseen = {c.get("pile") for c in (truth.get("render") or {}).get("cards") or []
              if c.get("kind") == "discard" and c.get("in_view") is False}
    out: list[tuple[str, str]] = []
    wrong = {p for p, code in t.items() if r.get(p) != code}
    moved: set[str] = set()
    for p in sorted(wrong):
        if t[p] is None or r.get(p) is not None:
            continue
        # its top read on another pile whose own top differs: the card's colour was misread
        for q in sorted(wrong - moved):
            if q != p and r.get(q) is not None and str(r[q]).lstrip("P") == str(t[p]).lstrip("P"):
                moved |= {p, q}
                out += [("wrong colour", f"{p} {t[p]} -> {q}")] * 2
                break
    for p in sorted(wrong - moved):
        got = r.get(p)
        kind = ("empty pile read as a card" if t[p] is None else "wrong value" if got is not None
                else "pile out of view" if p in unseen else "pile missed")
        out.append((kind, f"{p} {t[p]} -> {got}"))
    for p, code in sorted(r.items()):
        if p not in t and code is not None:
            out.append(("card read where none", f"{p} - -> {code}"))
    return out


def _ppm_band(ppm: float) -> str:
    lo = min(2.0, int(ppm * 4) / 4)
    return f"{lo:.2f}+" if lo >= 2.0 else f"{lo:.2f}-{lo + 0.25:.2f}"


#: The edges (px per board mm) of eval's resolution bands: the board's px/mm in the frame read.
RESOLUTION_BANDS = (0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0)


def _resolution_band(ppm: float) -> str:
    lo = max([0.0, *[b for b in RESOLUTION_BANDS if b <= ppm]])
    hi = min([b for b in RESOLUTION_BANDS if b > ppm], default=None)
    return f"{lo:5.2f}+" if hi is None else f"{lo:5.2f}-{hi:.2f}"


def resolution_breakdown(results: list[FrameResult]) -> list[str]:
    """The board's px per mm (the reader's registration: at the worst corner, and at the centre) against the
    errors of pawns, path stones (count_stones), tiles and rows on the frames read (printed under eval's table)."""
    read = [r for r in results if r.board_ppm is not None and r.groups and r.truth_usable and r.read_usable]
    if not read:
        return []
    lines = []
    cols = ("pawns", "stones", "tiles", "rows")
    for label, k in (("worst corner", 1), ("centre", 0)):
        keyed: dict[str, Counter] = {}
        for r in read:
            c = keyed.setdefault(_resolution_band(r.board_ppm[k]), Counter())
            c["frames"] += 1
            for g in ("pawns", "tiles", "rows"):
                if r.groups.get(g, (0, -1))[1] >= 0:
                    c[g + " n"] += r.groups[g][0]
                    c[g + " e"] += r.groups[g][1]
            c["stones n"] += r.stones[0]
            c["stones e"] += r.stones[1]
            if "pawns" in r.groups:
                c["board frames"] += 1
                c["board exact"] += r.groups["pawns"][1] == 0 and r.groups.get("tiles", (0, 0))[1] == 0
        lines.append(f"errors by board px/mm ({label}):  frames" + "".join(f"{g:>22s}" for g in cols)
                     + f"{'board part exact':>22s}")
        for key in sorted(keyed):
            c = keyed[key]
            lines.append(f"  {key:24s}{c['frames']:6d}" + "".join(f"{_pct(c[g + ' e'], c[g + ' n']):>22s}" for g in cols)
                         + f"{_pct(c['board exact'], c['board frames']):>22s}")
    lines.append("")
    return lines


def card_error_breakdown(results: list[FrameResult], top: int = 12) -> list[str]:
    """Where the card groups' errors come from (printed under eval's table): each group's errors by
    kind; the rows' values confused; rows, wish cards and points row by the frame's light and by the
    seat's frame px/mm (render truth)."""
    lines = []
    for group, kinds in (("rows", ROW_ERROR_KINDS), ("wishcard", WISHCARD_ERROR_KINDS),
                         ("pointrow", POINTROW_ERROR_KINDS), ("wish", WISH_ERROR_KINDS),
                         ("discards", DISCARD_ERROR_KINDS)):
        got = Counter(kind for r in results for kind, _d in r.errors.get(group, ()))
        if got:
            lines.append(f"{group} errors by kind ({sum(got.values())}): "
                         + ", ".join(f"{k} {got[k]}" for k in kinds if got[k]))
    values = Counter(d.split(" ", 3)[3].split(" (")[0] for r in results for k, d in r.errors.get("rows", ())
                     if k in ("wrong value", "wrong kind"))
    if values:
        lines.append("rows values confused (truth -> read): "
                     + ", ".join(f"{k} {v}" for k, v in values.most_common(top)))
    seen = [r for r in results if r.seat_groups]
    if seen:
        def table(label: str, keyed: dict[str, Counter]) -> None:
            lines.append(f"card groups by {label}:" + "".join(f"{g:>24s}" for g in SEAT_GROUPS))
            for key in sorted(keyed):
                c = keyed[key]
                lines.append(f"  {key:22s}" + "".join(f"{_pct(c[g + ' e'], c[g + ' n']):>24s}" for g in SEAT_GROUPS))

        by_light: dict[str, Counter] = {}
        by_ppm: dict[str, Counter] = {}
        for r in seen:
            for seat, groups in r.seat_groups.items():
                for g, (n, e) in groups.items():
                    by_light.setdefault(str(r.light), Counter()).update({g + " n": n, g + " e": e})
                    if seat in r.seat_ppm:
                        by_ppm.setdefault(_ppm_band(r.seat_ppm[seat]), Counter()).update({g + " n": n, g + " e": e})
        table("light", by_light)
        table("seat px/mm", by_ppm)
    if lines:
        lines.append("")
    return lines


def _any_game(truth: Mapping[str, Any]) -> bool:
    return True


def _card_game(truth: Mapping[str, Any]) -> bool:
    return truth.get("game") == "keltis-card"


#: The groups of the board reader (issue "Vision I"); the others are the card reader's.
BOARD_GROUPS = ("pawns", "tiles")

#: Every element group `eval` measures, in the order it prints them.
ELEMENT_GROUPS: dict[str, ElementGroup] = {
    "pawns": ElementGroup("pawns", _board_game, count_pawns, explain_pawns),
    "tiles": ElementGroup("tiles", _board_game, count_tiles, explain_tiles),
    "rows": ElementGroup("rows", _any_game, count_rows, explain_rows),
    "wish": ElementGroup("wish", _board_game, count_wish_held, explain_wish_held),
    "wishcard": ElementGroup("wishcard", _card_game, count_wish_cards, explain_wish_cards),
    "pointrow": ElementGroup("pointrow", _card_game, count_points_row, explain_points_row),
    "discards": ElementGroup("discards", _any_game, count_discards, explain_discards),
}


@dataclass
class FrameResult:
    """One frame's outcome (picklable: workers send these back)."""

    name: str
    error: str | None = None
    game: str | None = None
    truth_usable: bool = True
    truth_reason: str | None = None
    truth_hands: list[str] | None = None
    read_usable: bool = True
    read_reason: str | None = None
    read_hands: list[str | None] | None = None
    groups: dict[str, tuple[int, int]] = field(default_factory=dict)
    cards_in_view: bool = True      # every card lies in the picture (a low camera may cut seats off)
    #: a usable frame with a hand in the picture beside the play area (the render truth's hands)
    hand_beside: bool = False
    errors: dict[str, list[tuple[str, str]]] = field(default_factory=dict)   # group -> (kind, detail)
    #: the light the frame was rendered in ("dim warm" / "dark" / "normal", "+ glare"), from the truth
    light: str | None = None
    #: per seat: frame px per mm at the seat (render truth) and the card groups' (elements, errors) there
    seat_ppm: dict[str, float] = field(default_factory=dict)
    seat_groups: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    #: tile spots with a pawn standing on them in the truth: (spots, of them read wrong) — a tile under a
    #: pawn is partly hidden from the camera; the rest of the tile spots are `groups["tiles"]` less these
    tiles_under_pawn: tuple[int, int] = (0, 0)
    #: the reader's registration: board px per mm at the board's centre and its worst corner (None: none)
    board_ppm: tuple[float, float] | None = None
    #: path stones with a pawn in truth or reading, and of them read otherwise (count_stones)
    stones: tuple[int, int] = (0, 0)
    timings: dict[str, float] = field(default_factory=dict)


def list_frames(folder: Path) -> list[tuple[Path, Path]]:
    """(frame, truth) pairs of a `sim frames` folder, in index order."""
    frames = sorted((folder / "frames").glob("*.jpg"))
    out = []
    for f in frames:
        t = folder / "truth" / f"{f.stem}.json"
        if t.is_file():
            out.append((f, t))
    return out


def evaluate_frame(job: tuple[str, str, bool, str | None]) -> FrameResult:
    """Read one frame and compare it with its truth (runs in a worker process)."""
    from calibration.model import parse_calibration
    from engine.board import bundled_board, load_board
    from engine.errors import MalformedInput

    from .components import load_components
    from .reader import Reader, read_image

    frame, truth_path, no_lens, components = job
    res = FrameResult(Path(frame).name)
    try:
        truth = json.loads(Path(truth_path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        res.error = f"{truth_path}: cannot read truth: {exc}"
        return res
    res.game = truth.get("game")
    res.truth_usable = bool(truth.get("usable"))
    res.truth_reason = truth.get("reason")
    if "hands" in truth:
        res.truth_hands = [h.get("seat") for h in truth["hands"]]
    try:
        image = read_image(frame)
    except MalformedInput as exc:
        res.error = str(exc)
        return res
    render = truth.get("render") or {}
    res.cards_in_view = all(c.get("in_view", True) for c in render.get("cards") or [])
    res.hand_beside = res.truth_usable and any(h.get("in_view") for h in render.get("hands") or [])
    cal = parse_calibration(render["calibration"], truth_path)
    if no_lens:
        cal = dict(cal, camera=None)
    table = truth if truth.get("seats") else (truth.get("table") or {})
    seats = {s: v["player"] for s, v in (table.get("seats") or {}).items()}
    board_name = truth.get("board")
    board = None
    if truth.get("game") == "keltis" and board_name:
        board = load_board(board_name) if str(board_name).endswith(".json") else bundled_board(board_name)
    reader = Reader(cal, game=truth.get("game", "keltis"), board=board, seats=seats or None,
                    components=load_components(components))
    reading = reader.read(image)
    obs = reading.observation.to_json()
    res.read_usable = bool(obs["usable"])
    res.read_reason = obs["reason"]
    if "hands" in obs:
        res.read_hands = [h.get("seat") for h in obs["hands"]]
    res.timings = dict(reading.timings)
    if reader.resolution is not None:
        res.board_ppm = (round(reader.resolution.centre, 3), round(reader.resolution.worst_corner, 3))
    # cards the camera does not see are nobody's to read: a frame cutting some off is left out of the
    # card groups (and of the whole-state rates), and counted apart
    counted = {name: group for name, group in ELEMENT_GROUPS.items()
               if group.applies(truth) and (res.cards_in_view or name in BOARD_GROUPS)}
    if res.truth_usable and res.read_usable:
        for name, group in counted.items():
            res.groups[name] = group.count(truth, obs)
            if group.explain is not None and res.groups[name][1] > 0:
                res.errors[name] = group.explain(truth, obs)
        _note_seats(res, truth, obs, counted)
        if "tiles" in res.groups:
            res.tiles_under_pawn = tiles_under_pawns(truth, obs)
        if "pawns" in res.groups:
            res.stones = count_stones(truth, obs)
    elif res.truth_usable:
        for name, group in counted.items():
            res.groups[name] = (group.count(truth, truth)[0], -1)   # not read: counted apart
    return res


#: The card groups counted per seat for eval's breakdown by px/mm and light.
SEAT_GROUPS = ("rows", "wishcard", "pointrow")


def frame_light(truth: Mapping[str, Any]) -> str:
    """The light a frame was rendered in, from its render truth: "dark", "dim warm" (the simulator's
    hard light: warm and dim), else "normal"; "+ glare" when a glare patch lies over the picture."""
    render = truth.get("render") or {}
    spec, cond = render.get("spec") or {}, render.get("conditions") or {}
    light = "dark" if spec.get("dark") else "dim warm" if spec.get("hard") else "normal"
    return light + (" + glare" if cond.get("glare") else "")


def seat_px_per_mm(truth: Mapping[str, Any]) -> dict[str, float]:
    """Frame px per mm at each seat: its rectangle's area in the frame (render truth) over its area in mm."""
    import math

    render = truth.get("render") or {}
    rects = ((render.get("calibration") or {}).get("seats")) or {}
    out = {}
    for seat, quad in (render.get("seats") or {}).items():
        rect = rects.get(seat)
        if not rect or not quad or len(quad) != 4:
            continue
        area = 0.5 * abs(sum(quad[i][0] * quad[(i + 1) % 4][1] - quad[(i + 1) % 4][0] * quad[i][1] for i in range(4)))
        out[seat] = math.sqrt(area / max(1.0, float(rect["w"]) * float(rect["h"])))
    return out


def _note_seats(res: FrameResult, truth: Mapping[str, Any], obs: Mapping[str, Any], counted) -> None:
    res.light = frame_light(truth)
    res.seat_ppm = seat_px_per_mm(truth)
    rs = _seats(obs)
    for seat, ts in _seats(truth).items():
        one_t, one_r = {"seats": {seat: ts}}, {"seats": {seat: rs.get(seat) or {}}}
        res.seat_groups[seat] = {g: counted[g].count(one_t, one_r) for g in SEAT_GROUPS if g in counted}


def run_eval(folder: str | Path, *, jobs: int = 1, no_lens: bool = False, components: str | None = None,
             limit: int | None = None, progress: Callable[[str], None] | None = None) -> list[FrameResult]:
    """Every frame of a `sim frames` folder read and compared (in `jobs` processes)."""
    from engine.errors import MalformedInput

    folder = Path(folder)
    pairs = list_frames(folder)
    if not pairs:
        raise MalformedInput("no frames with truth here (frames/*.jpg + truth/*.json, as `sim frames` writes)",
                             source=str(folder))
    if limit:
        pairs = pairs[:limit]
    work = [(str(f), str(t), no_lens, components) for f, t in pairs]
    # a components folder without numeral weights is taught here, once, before any reader (or worker) needs it
    from .components import load_components
    from .numerals import numeral_model_for

    numeral_model_for(load_components(components))
    results: list[FrameResult] = []
    t0 = time.perf_counter()
    if jobs > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for r in pool.imap_unordered(evaluate_frame, work, chunksize=2):
                results.append(r)
                _progress(progress, results, len(work), t0)
    else:
        for w in work:
            results.append(evaluate_frame(w))
            _progress(progress, results, len(work), t0)
    results.sort(key=lambda r: r.name)
    return results


def _progress(progress, results, n, t0) -> None:
    if progress is None:
        return
    r = results[-1]
    if r.error:
        progress(f"\n{r.error}\n")
    done = len(results)
    rate = done / max(time.perf_counter() - t0, 1e-6)
    progress(f"\r{done}/{n} frames  {rate:.1f}/s  eta {int((n - done) / max(rate, 1e-6))}s ")


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:6.2f}% ({a}/{b})" if b else "     - (0/0)"


def error_kinds(results: list[FrameResult], group: str) -> Counter:
    """How many of `group`'s errors (on frames read) are of each kind."""
    return Counter(kind for r in results for kind, _d in r.errors.get(group, ()))


def error_breakdown(results: list[FrameResult], top: int = 12) -> list[str]:
    """Where the pawn and tile errors come from (printed under eval's table): pawns by kind, tiles by
    confusion pair (truth -> read), the most frequent first."""
    lines = []
    pawns = error_kinds(results, "pawns")
    if pawns:
        lines.append(f"pawn errors by kind ({sum(pawns.values())}):")
        for side in ("path", "start"):
            sub = [(k, pawns[k]) for k in PAWN_ERROR_KINDS if k.startswith(side + ":") and pawns[k]]
            if sub:
                where = "on a path stone" if side == "path" else 'on "start"'
                lines.append(f"  {where:16s} {sum(v for _k, v in sub):5d}: "
                             + ", ".join(f"{k.split(': ', 1)[1]} {v}" for k, v in sub))
    tiles = error_kinds(results, "tiles")
    if tiles:
        under = [sum(r.tiles_under_pawn[i] for r in results) for i in (0, 1)]
        every = [sum(r.groups["tiles"][i] for r in results if r.groups.get("tiles", (0, -1))[1] >= 0) for i in (0, 1)]
        lines.append(f"tile spots with a pawn on them: {_pct(under[1], under[0]).strip()} wrong; "
                     f"the other spots: {_pct(every[1] - under[1], every[0] - under[0]).strip()} wrong")
        lines.append(f"tile errors by pair, truth -> read ({sum(tiles.values())}):")
        common = tiles.most_common()
        shown = common[:top]
        for i in range(0, len(shown), 4):
            lines.append("  " + ", ".join(f"{k} {v}" for k, v in shown[i:i + 4]))
        if len(common) > top:
            lines.append(f"  ... {sum(v for _k, v in common[top:])} more in {len(common) - top} other pairs (--errors)")
    if lines:
        lines.append("")
    return lines


def error_details(results: list[FrameResult]) -> str:
    """Every explained error frame by frame (`keltis-cam eval --errors`)."""
    lines = []
    for r in results:
        for group, errs in sorted(r.errors.items()):
            for kind, detail in errs:
                lines.append(f"{r.name} {group:6s} {kind:28s} {detail}")
    return "\n".join(lines)


def summarise(results: list[FrameResult]) -> str:
    """The table `keltis-cam eval` prints."""
    lines = []
    errors = [r for r in results if r.error]
    ok = [r for r in results if not r.error]
    lines.append(f"frames: {len(results)} ({len(errors)} could not be read)")
    by_game = Counter(f"{r.game}{'' if r.truth_usable else ' unusable:' + str(r.truth_reason)}" for r in ok)
    lines.append("  " + ", ".join(f"{k} {v}" for k, v in sorted(by_game.items())))
    lines.append("")
    lines.append(f"{'group':8s} {'per-element error':>26s}   {'not read (frame rejected)':>25s}")
    for name in ELEMENT_GROUPS:
        n = sum(r.groups[name][0] for r in ok if name in r.groups and r.groups[name][1] >= 0)
        e = sum(r.groups[name][1] for r in ok if name in r.groups and r.groups[name][1] >= 0)
        rej = sum(1 for r in ok if name in r.groups and r.groups[name][1] < 0)
        lines.append(f"{name:8s} {_pct(e, n):>26s}   {rej:>25d}")
    cut = [r for r in ok if r.truth_usable and not r.cards_in_view]
    if cut:
        lines.append(f"{len(cut)} usable frames show only part of the cards (a low camera cuts seats off): "
                     "their card groups and whole state are not counted")
    lines.extend(card_error_breakdown(ok))
    lines.extend(resolution_breakdown(ok))
    board_frames = [r for r in ok if r.truth_usable and "pawns" in r.groups]
    exact = [r for r in board_frames if r.read_usable and all(r.groups[g][1] == 0 for g in ("pawns", "tiles"))]
    lines.append("")
    lines.append(f"board part exactly right (usable board frames):  {_pct(len(exact), len(board_frames))}")
    card_groups = [g for g in ELEMENT_GROUPS if g not in ("pawns", "tiles")]
    for label, games in (("board games", ("keltis",)), ("card game", ("keltis-card",))):
        frames = [r for r in ok if r.truth_usable and r.groups and r.game in games and r.cards_in_view]
        cards_ok = [r for r in frames if r.read_usable
                    and all(r.groups[g][1] == 0 for g in card_groups if g in r.groups)]
        whole = [r for r in frames if r.read_usable and all(e == 0 for _n, e in r.groups.values())]
        lines.append(f"cards part exactly right ({label + '):':13s}       {_pct(len(cards_ok), len(frames))}")
        lines.append(f"whole state exactly right ({label + '):':13s}      {_pct(len(whole), len(frames))}")
    unusable = [r for r in ok if not r.truth_usable]
    caught = [r for r in unusable if not r.read_usable]
    lines.append(f"unusable frames caught:                          {_pct(len(caught), len(unusable))}")
    for reason in sorted({str(r.truth_reason) for r in unusable}):
        sub = [r for r in unusable if str(r.truth_reason) == reason]
        for game in sorted({str(r.game) for r in sub}):
            s2 = [r for r in sub if str(r.game) == game]
            lines.append(f"  {reason:9s} {game:12s}                          "
                         f"{_pct(sum(1 for r in s2 if not r.read_usable), len(s2))}")
    good = [r for r in ok if r.truth_usable]
    rejected = [r for r in good if not r.read_usable]
    lines.append(f"good frames rejected:                            {_pct(len(rejected), len(good))}")
    if rejected:
        lines.append("  " + ", ".join(f"{k} {v}" for k, v in Counter(str(r.read_reason) for r in rejected).items()))
    beside = [r for r in good if r.hand_beside]
    if beside:   # a hand in the picture but not over the play area: the frame is still to be read
        lines.append(f"  of them with a hand beside the play area:       "
                     f"{_pct(sum(1 for r in beside if not r.read_usable), len(beside))}")
    hands = [r for r in ok if r.truth_hands]
    right = [r for r in hands if r.read_hands is not None and sorted(map(str, r.read_hands)) == sorted(r.truth_hands)]
    lines.append(f"hand seat right (hand frames):                   {_pct(len(right), len(hands))}")
    lines.append("")
    lines.extend(error_breakdown(ok))
    stages: dict[str, list[float]] = {}
    for r in ok:
        for k, v in r.timings.items():
            stages.setdefault(k, []).append(v)
    lines.append("slowest stages (ms, this machine, eval processes share the cores):")
    for k, v in sorted(stages.items(), key=lambda kv: -statistics.median(kv[1])):
        v = sorted(v)
        lines.append(f"  {k:13s} median {statistics.median(v):7.1f}   p95 {v[int(0.95 * (len(v) - 1))]:7.1f}   "
                     f"n={len(v)}")
    if errors:
        lines.append("")
        lines.append("frames that could not be read:")
        lines.extend(f"  {r.error}" for r in errors)
    return "\n".join(lines)


def progress_to_stderr(msg: str) -> None:
    sys.stderr.write(msg)
    sys.stderr.flush()
