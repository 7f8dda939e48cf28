"""Checking a tracked game against a recording's truth: what a turn looks like to a camera.

`keltis-cam replay --check` and the tracking benches compare turns in these terms: every turn that
left a visible trace (who, cards laid, pawn steps, discard-pile changes, wish cards) must be
recovered exactly. The command itself lives in the app layer (keltis_cam/commands/replay.py).
"""
from __future__ import annotations

import bisect
import difflib
import json
from typing import Any, Iterable, Mapping, Sequence

from engine.cards import parse_card
from .model import GameModel, TurnRecord, summarize


# ---------------------------------------------------------------------------------------------
# What a turn looks like to a camera (the unit --check and the bench compare)


def signature_of_moves(seat: str, moves: Sequence[Mapping[str, Any]],
                       pile_changes: Iterable[Sequence[Any]] = (), codes: Iterable[str] = ()) -> dict[str, Any]:
    """A true turn (engine moves as logged) as the camera can see it (`codes`: the rules it broke; a
    pair discarded for a wish card no longer in the middle, "no-wish-card", took none)."""
    codes = set(codes)
    lays: list[str] = []
    steps: list[str] = []
    row_discards: list[str] = []
    wish_cards: list[int] = []
    for m in moves:
        kind = m.get("move")
        if kind == "lay":
            if "card" in m:  # card game: {"card": "red 7", "row": "red"}
                card = parse_card(m["card"])
                lays.append("points:P" if m.get("row") == "points" else f"{m.get('row')}:{card.row_code}")
            else:            # board game: {"colour", "value", "pawn", "to"}
                lays.append(f"{m.get('colour')}:{m.get('value')}")
                if m.get("pawn") is not None and m.get("to") is not None:
                    steps.append(f"{'B' if m['pawn'] == 0 else 'S'}:{m['to']}")
        elif kind == "clover":
            steps.append(f"{'B' if m.get('pawn') == 0 else 'S'}:{m.get('to')}")
        elif kind == "tile-discard" and m.get("from") == "row":
            row_discards.append(f"{m.get('colour')}:{m.get('value')}")
        elif kind == "discard-pair" and "no-wish-card" not in codes:
            wish_cards.append(int(m.get("wish")))
    return {"seat": seat, "lays": sorted(lays), "steps": sorted(steps), "row_discards": sorted(row_discards),
            "piles": sorted(f"{p}:{old}>{new}" for p, old, new in pile_changes if old != new),
            "wish_cards": sorted(wish_cards)}


def signature_of_turn(model: GameModel, turn: TurnRecord) -> dict[str, Any]:
    """A tracked turn, in the same terms as signature_of_moves."""
    s = summarize(model.rules, turn)
    lays = ["points:P" if colour == "points" else f"{colour}:{code}" for colour, code in s["lays"]]
    tops_b, tops_a = turn.base.discard_tops, turn.end.discard_tops
    piles = [(p, tops_b.get(p), tops_a.get(p)) for p in set(tops_b) | set(tops_a)]
    return {"seat": turn.seat, "lays": sorted(lays),
            "steps": sorted(f"{'B' if st['big'] else 'S'}:{st['to']}" for st in s["steps"]),
            "row_discards": sorted(f"{c}:{v}" for c, v in s["row_discards"]),
            "piles": sorted(f"{p}:{old}>{new}" for p, old, new in piles if old != new),
            "wish_cards": sorted(s["wish_cards"])}


def visible(sig: Mapping[str, Any]) -> bool:
    """Did the turn leave anything a camera can see?"""
    return any(sig[k] for k in ("lays", "steps", "row_discards", "piles", "wish_cards"))


def compare_turns(true_sigs: Sequence[Mapping[str, Any]], tracked_sigs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Align the visible true turns with the tracked ones; count exact recoveries."""
    truth = [s for s in true_sigs if visible(s)]
    tracked = [s for s in tracked_sigs if visible(s)]
    a = [json.dumps(s, sort_keys=True) for s in truth]
    b = [json.dumps(s, sort_keys=True) for s in tracked]
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    exact = sum(block.size for block in matcher.get_matching_blocks())
    mismatches = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        mismatches.append({"true": [dict(truth[i], index=i + 1) for i in range(i1, i2)],
                           "tracked": [dict(tracked[j], index=j + 1) for j in range(j1, j2)]})
    return {"true_turns": len(truth), "tracked_turns": len(tracked), "exact": exact,
            "recovered": exact / len(truth) if truth else 1.0, "mismatches": mismatches,
            "invisible_true_turns": len(true_sigs) - len(truth)}


# ---------------------------------------------------------------------------------------------
# Truth of a recorded session


def true_turns_of_session(session: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """truth/events.jsonl as turns: [{"seat", "moves", "frame"}] and the final result line, if any.

    A line is {"move": {...engine move...}, "frame": N} (or the move's fields at top level with
    "frame"/"frame_index"); {"final": {...}} carries the final totals and winners.
    """
    turns: list[dict[str, Any]] = []
    final = None
    for line in session.events():
        if "final" in line and isinstance(line["final"], dict):
            final = line["final"]
            continue
        move = line.get("move")
        if isinstance(move, str):
            move = {k: v for k, v in line.items() if k not in ("frame", "frame_index", "t", "seq", "violations")}
        if not isinstance(move, dict) or not isinstance(move.get("seat"), str):
            continue
        frame = line.get("frame", line.get("frame_index"))
        if not turns or turns[-1]["seat"] != move["seat"]:
            turns.append({"seat": move["seat"], "moves": [], "frame": frame,
                          "violations": [], "frames": []})
        turns[-1]["moves"].append(move)
        turns[-1]["frame"] = frame
        turns[-1]["frames"].append(frame)
        turns[-1]["violations"].extend(line.get("violations") or [])
    return turns, final


def true_signatures_of_session(session: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Signatures of the session's true turns, pile changes read from the truth at turn ends."""
    from camera.session import FrameRef, truth_file

    turns, final = true_turns_of_session(session)

    def tops_at(index: int | None) -> dict[str, Any]:
        if index is None:
            return {}
        data = session.truth(FrameRef(int(index), 0.0, "", session.folder / truth_file(int(index))))
        return dict((data or {}).get("discard_tops") or {})

    usable = [ref.index for ref in session.frames if (session.truth(ref) or {}).get("usable", False)]
    first = usable[0] if usable else None
    before = tops_at(first)
    sigs = []
    for i, turn in enumerate(turns):
        after = tops_at(turn["frame"]) if turn["frame"] is not None else before
        after = _tops_between(turn, turns[i + 1:], after, usable, tops_at)
        piles = [(p, before.get(p), after.get(p)) for p in set(before) | set(after)]
        codes = [v.get("code") if isinstance(v, dict) else v for v in turn["violations"]]
        sigs.append(signature_of_moves(turn["seat"], turn["moves"], piles, codes))
        before = after
    return sigs, final


def _pile_effects(move: Mapping[str, Any]) -> list[tuple[str, Any]] | None:
    """The discard piles a true move changes: (pile, the card it puts on top, or _DRAWN for a card
    drawn off); None when that cannot be told from the move alone."""
    kind = move.get("move")
    if kind == "draw":
        src = move.get("from")
        return [] if src in (None, "pile") else [(str(src), _DRAWN)]
    if kind in ("discard", "tile-discard", "discard-pair"):
        cards = move.get("cards") if kind == "discard-pair" else [move.get("card")] if "card" in move else None
        if cards is None:       # board game: {"colour", "value"}
            return [(str(move.get("colour")), str(move.get("value")))]
        out = []
        for text in cards:
            try:
                card = parse_card(str(text))
                out.append((card.colour or "points", card.row_code))
            except (ValueError, TypeError):
                return None
        return out
    return []


_DRAWN = object()


def _tops_between(turn: Mapping[str, Any], later: Sequence[Mapping[str, Any]], after: dict[str, Any],
                  usable: Sequence[int], tops_at) -> dict[str, Any]:
    """The discard tops after `turn` when the next turns' first moves show in the same frame as its
    last one (at a low frame rate a frame may hold the end of one turn and the start of the next):
    the tops that frame shows, with each pile a later turn changed in it put back as it was after
    this turn (the card this turn put there, else the pile as the usable frame before showed it)."""
    frame = turn["frame"]
    if frame is None:
        return after
    touched: set[str] = set()
    for nxt in later:
        moves = [m for m, f in zip(nxt["moves"], nxt.get("frames") or []) if f == frame]
        if not moves:
            break
        for m in moves:
            effects = _pile_effects(m)
            if effects is None:
                return after
            touched |= {p for p, _ in effects}
        if len(moves) < len(nxt["moves"]):
            break
    if not touched:
        return after
    out = dict(after)
    k = bisect.bisect_left(usable, frame) - 1
    prev = tops_at(usable[k]) if k >= 0 else {}
    mine: dict[str, Any] = {}
    for m, f in zip(turn["moves"], turn.get("frames") or []):
        if f == frame:
            effects = _pile_effects(m)
            if effects is None:
                return after
            mine.update(effects)
    for pile in touched:
        if pile in mine:
            if mine[pile] is _DRAWN:
                return after      # (the card below is known only from a frame)
            out[pile] = mine[pile]
        else:
            out[pile] = prev.get(pile)
    return out


def align_turns(true_sigs: Sequence[Mapping[str, Any]], tracked_sigs: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """true turn index -> tracked turn index (sequence alignment on the signatures), for benches that
    score each true turn against the tracked turn it became."""
    a = [json.dumps(s, sort_keys=True) for s in true_sigs]
    b = [json.dumps(s, sort_keys=True) for s in tracked_sigs]
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        for d in range(i2 - i1):
            if j1 + d < j2 or tag == "equal":
                out[i1 + d] = j1 + min(d, max(0, j2 - j1 - 1))
    return out
