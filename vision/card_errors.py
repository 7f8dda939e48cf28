"""Why card rows are misread: each error of `eval`'s rows group put in a class (bench/card_errors.py).

`eval` counts rows position by position, so one card missed in the middle of a row makes every
later position wrong; here the truth and the reading of one row are aligned (fewest edits) first,
so a missed card counts once, as what it is:

- ``row missing``: a row of the truth not read at all (its cards), ``row extra``: a row read where
  there is none (its cards), ``row colour``: a row read under another colour (its cards);
- within a row read: ``wrong value`` (with the pair confused: truth→read), ``missing card``,
  ``extra card``;
- points row: ``points fewer`` / ``points more`` (cards); wish cards: ``wish missing`` /
  ``wish extra`` (values).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence


def align(truth: Sequence[str], read: Sequence[str]) -> list[tuple[str, str | None, str | None]]:
    """The fewest edits turning `truth` into `read`: a list of (op, truth card, read card) with op
    one of "same", "sub", "del" (missing in read), "ins" (extra in read)."""
    n, m = len(truth), len(read)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (truth[i - 1] != read[j - 1]))
    ops: list[tuple[str, str | None, str | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i][j] == d[i - 1][j - 1] + (truth[i - 1] != read[j - 1]):
            ops.append(("same" if truth[i - 1] == read[j - 1] else "sub", truth[i - 1], read[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and d[i][j] == d[i - 1][j] + 1:
            ops.append(("del", truth[i - 1], None))
            i -= 1
        else:
            ops.append(("ins", None, read[j - 1]))
            j -= 1
    return ops[::-1]


def _distance(a: Sequence[str], b: Sequence[str]) -> int:
    return sum(op != "same" for op, _t, _r in align(a, b))


def card_error_classes(truth: Mapping[str, Any], read: Mapping[str, Any]) -> tuple[Counter, Counter]:
    """(classes, confusions) of one frame's seats (observed states as JSON): how many cards fall in
    each class of the module docstring, and which values were read for which (``"10→0"``)."""
    classes: Counter = Counter()
    confusions: Counter = Counter()
    rs = read.get("seats") or {}
    for seat, ts in (truth.get("seats") or {}).items():
        r_seat = rs.get(seat) or {}
        t_rows = {c: list(v) for c, v in (ts.get("rows") or {}).items() if v}
        r_rows = {c: list(v) for c, v in (r_seat.get("rows") or {}).items() if v}
        only_t = [c for c in t_rows if c not in r_rows]
        only_r = [c for c in r_rows if c not in t_rows]
        # a row read under another colour: the unmatched read row nearest in content
        for c in list(only_t):
            best = min(only_r, key=lambda o: _distance(t_rows[c], r_rows[o]), default=None)
            if best is not None and _distance(t_rows[c], r_rows[best]) <= len(t_rows[c]) // 2:
                classes["row colour"] += len(t_rows[c])
                only_t.remove(c)
                only_r.remove(best)
        for c in only_t:
            classes["row missing"] += len(t_rows[c])
        for c in only_r:
            classes["row extra"] += len(r_rows[c])
        for c in set(t_rows) & set(r_rows):
            for op, t, r in align(t_rows[c], r_rows[c]):
                if op == "sub":
                    classes["wrong value"] += 1
                    confusions[f"{t}→{r}"] += 1
                elif op == "del":
                    classes["missing card"] += 1
                elif op == "ins":
                    classes["extra card"] += 1
        tp, rp = int(ts.get("points_row") or 0), int(r_seat.get("points_row") or 0)
        if rp < tp:
            classes["points fewer"] += tp - rp
        elif rp > tp:
            classes["points more"] += rp - tp
        tw, rw = Counter(ts.get("wish_cards") or []), Counter(r_seat.get("wish_cards") or [])
        classes["wish missing"] += sum((tw - rw).values())
        classes["wish extra"] += sum((rw - tw).values())
    return +classes, confusions
