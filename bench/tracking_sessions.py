"""Tracking as the camera delivers games (issue 17 item 3): fresh `sim session` games, truth observer.

    .venv/bin/python bench/tracking_sessions.py [--games 30] [--seed0 2000] [--noise 0 0.02 0.05]
                                                [--fps 1 0.5] [--illegal 3] [--cache DIR] [--show 2]
                                                [--kinds nwnz base card] [--json]

Each game is what `keltis-cam sim session --seed S --players P [--illegal N]` records (the same
game, timeline, hands and truth files: simulator.record.session_truth, the recorder's own code
without rendering a picture), replayed as `keltis-cam replay SESSION --observer truth --noise R
--check` replays it: frames at the recorded rate (`--fps 1`: one settled state a second; `--fps
0.5`: one every 2 s), hand frames between naming the seats whose arms reach in, misreads from
tracking.noise.MisreadInjector (seeded by the game's seed), the game ended by the draw-pile count
as replays end it, the visible turns compared with truth/events.jsonl (tracking.check).

Per game kind (keltis on nwnz, keltis on base, keltis-card), 2–4 players in turn, games with
--illegal injected rule breaks on every second seed (odd offsets), seeds --seed0 … --seed0+games-1
for every kind. Printed per kind × rate × noise: visible turns exact, legal games with a warning,
injected breaks flagged (a warning of the injected code on that turn or a neighbour; breaks no
camera can see counted apart: the turn left no trace, "out of turn" as the very first move, an
extra card drawn from the draw pile, a card-game card in another colour's row, a second card played onto
its twin, two pawn stones over a clover), then "visible breaks flagged" (session 25): breaks counted apart by
break_hidden's rule — a break is visible when no legal play explains the table as a reader reads it
(FORMATS §2's fields, not hands nor the draw pile's size), which also counts apart a play by the next
seat while the seat before still owed a draw ("a skipped draw": it drew from the draw pile, unseen)
and a second card covered within one reading ("covered unseen") — and a break flagged also by a code
the camera cannot tell from the injected one (same_to_a_camera: a second play by the seat whose turn
just ended, its draw between unseen, is "out-of-turn" or "two-cards"); "breaks flagged" is kept as it
was. Then final scores right, and
the tracker's time per frame that took a settled state (median / p99) and per frame overall.
--cache DIR keeps each game's truth stream (pickled) so runs after the first skip the simulator.
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import pickle
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.observation import parse_observation  # noqa: E402
from tracking.check import align_turns, compare_turns, signature_of_turn, true_signatures_of_session, visible  # noqa: E402
from tracking.config import TrackingConfig  # noqa: E402
from tracking.decoder import _pile_owner  # noqa: E402
from tracking.noise import DEFAULT_NOISE_MODEL, NOISE_MODELS, MisreadInjector  # noqa: E402
from tracking.pipeline import SessionFrame  # noqa: E402
from tracking.store import EventStore  # noqa: E402
from tracking.tracker import GameTracker  # noqa: E402

#: the tracking settings the games run with (--set NAME=VALUE changes them)
SETTINGS = TrackingConfig()
#: tracking.noise's model the misreads come from (--noise-model; None: its default)
NOISE_MODEL: str | None = None

KINDS = {"nwnz": ("keltis", "nwnz"), "base": ("keltis", "base"), "card": ("keltis-card", None)}


@dataclasses.dataclass(frozen=True)
class _Ref:
    index: int
    t: float


class MemorySession:
    """A recorded session held in memory (what tracking.check and the truth observer read of one)."""

    def __init__(self, stream: dict[str, Any]):
        self.stream = stream
        self.folder = Path("/nonexistent-session")
        self.frames = [_Ref(i, t) for i, (t, _) in enumerate(stream["frames"])]

    def truth(self, ref: Any) -> dict[str, Any] | None:
        return self.stream["frames"][ref.index][1]

    def events(self) -> list[dict[str, Any]]:
        return list(self.stream["events"])


class MemoryTruthObserver:
    """The truth observer over a MemorySession (parses each frame's truth like TruthObserver)."""

    name = "truth"

    def __init__(self, session: MemorySession):
        self.session = session

    def observe(self, frame: Any):
        return parse_observation(self.session.stream["frames"][frame.index][1])


def truth_stream(kind: str, players: int, seed: int, illegal: int, fps: float, cache: Path | None,
                 plans: dict) -> dict[str, Any]:
    """session_truth of one game (from the cache when there)."""
    from simulator.record import SessionOptions, plan_session, session_truth

    game, board = KINDS[kind]
    path = cache / f"{kind}-{players}p-{seed}-i{illegal}-{fps:g}fps.pickle" if cache else None
    if path is not None and path.exists():
        return pickle.loads(path.read_bytes())
    opts = SessionOptions(game=game, board=board or "nwnz", players=players, seed=seed, fps=fps, illegal=illegal,
                          truth_render="none")
    if game == "keltis-card":
        opts = dataclasses.replace(opts, board=None)
    key = (kind, players, seed, illegal)
    if key not in plans:
        plans.clear()
        plans[key] = plan_session(opts)
    stream = session_truth(opts, plans[key])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(stream))
    return stream


def true_pile_events(stream: dict[str, Any]) -> list[tuple[int, tuple[str, str, str], str, int]]:
    """The truth's discards and draws from a discard pile, in order: (frame, (pile, card as str, "discard" |
    "draw") — a question's key, TurnDecoder.answers —, seat, turn). A draw's card is its pile's top then (the piles
    followed from the truth's own moves); turn: the truth's turn it was made in, counted from 0 (a new turn at
    every move of another seat than the move before)."""
    stacks: dict[str, list[str]] = {}
    out = []
    turn, last_seat = -1, None
    for line in stream["events"]:
        move = line.get("move")
        if not isinstance(move, dict) or line.get("frame") is None:
            continue
        kind, seat = move.get("move"), move.get("seat", line.get("seat"))
        if seat != last_seat:
            turn, last_seat = turn + 1, seat
        if kind == "draw" and move.get("from") not in (None, "pile"):
            pile = str(move["from"])
            stack = stacks.get(pile) or []
            if stack:
                out.append((line["frame"], (pile, stack.pop(), "draw"), seat, turn))
        elif isinstance(kind, str) and "discard" in kind:
            # (the board game: colour and value; the card game: "pink 7", or a pair's two cards, each onto its pile)
            cards = [(move["colour"], move["value"])] if "colour" in move and "value" in move else [
                tuple(str(c).split(" ", 1)) for c in ([move["card"]] if "card" in move else move.get("cards") or [])]
            for colour, value in (c for c in cards if len(c) == 2):
                pile = str(colour)
                stacks.setdefault(pile, []).append(str(value))
                out.append((line["frame"], (pile, str(value), "discard"), seat, turn))
    return out


#: the recent turns of a reading a question is about (TurnDecoder._ask: _pile_owner's and _discard_owner's last few)
QUESTION_TURNS = inspect.signature(_pile_owner).parameters["last"].default


def question_first_turn(decoder: Any) -> int:
    """The first turn (counted from 0) a question asked by the decoder this frame is about: the last
    QUESTION_TURNS turns of its best reading and of every runner-up within decoder_unclear_margin (the readings
    _ask compares), counted back from the shortest of them (0: no readings)."""
    beam = list(getattr(decoder, "beam", None) or [])
    if not beam:
        return 0
    margin = decoder.config.decoder_unclear_margin
    close = [h for h in beam if h.cost - beam[0].cost <= margin]
    return max(0, min(len(h.turns) for h in close) - QUESTION_TURNS)


def answer_from_truth(tracker: Any, truth: list, frame: int, answered: set) -> tuple[int, int, int, int, int]:
    """Every open question answered at once as the truth has it (a player at the table taps it) — only when the
    truth made that very pile change (pile, card and kind) in the turns the question is about
    (question_first_turn's on, up to this frame): the seat of its latest such change, one of the two seats the
    question offers or (session 35) another seat of the game (the page's "someone else"; the tracker refuses it
    when no reading it holds lets that seat have made the change: the question then stays). Otherwise a player
    could not say (the truth made no such change then: the card was misread, or the change is an older one) and
    dismisses it (the page's "don't know", session 35; before, it was left standing). Each question is looked at
    once, when asked. Returns (taps on an offered seat, questions dismissed, of them the ones the truth made that
    change for before the question's turns: what the old bench answered, answers naming a seat not offered
    applied, such answers refused)."""
    from tracking.decoded import ImpossibleAnswer

    taps = left = older = third = refused = 0
    # (by the question's id: a later change of the same card is another question, decoder_answer_nth)
    new = [q for q in tracker.decoded.questions() if q.get("id", (q["pile"], str(q["card"]), q.get("kind", "discard")))
           not in answered]
    first = question_first_turn(tracker.decoded.decoder) if new else 0
    for q in new:
        key = (q["pile"], str(q["card"]), q.get("kind", "discard"))
        answered.add(q.get("id", key))
        seat = next((s for f, k, s, t in reversed(truth) if k == key and f <= frame and t >= first), None)
        if seat is None:
            left += 1
            older += any(k == key and f <= frame for f, k, _s, _t in truth)
            tracker.dismiss_question({"pile": q["pile"], "card": q["card"], "kind": key[2]})
            continue
        offered = seat in q.get("seats", (seat,))
        try:
            tracker.correct({"kind": "discarded" if key[2] == "discard" else "took", "pile": q["pile"],
                             "card": q["card"], "seat": seat})
        except ImpossibleAnswer:
            refused += 1
            continue
        if offered:
            taps += 1
        else:
            third += 1
    return taps, left, older, third, refused


def run_game(stream: dict[str, Any], noise: float, seed: int, make_tracker=None, answer: bool = False) -> dict[str, Any]:
    """Replay one game's truth stream through a tracker (as `replay --observer truth --noise --check`); answer:
    every question answered from the truth the moment it is asked (answer_from_truth; not timed)."""
    session = MemorySession(stream)
    observer: Any = MemoryTruthObserver(session)
    if noise:
        observer = MisreadInjector(observer, noise, seed, noise_model=NOISE_MODEL)
    if make_tracker is None:
        config = dataclasses.replace(SETTINGS, auto_end_on_empty_draw_pile=True)  # as replays end games
        tracker = GameTracker(EventStore(":memory:"), config=config, observer="truth")
    else:
        tracker = make_tracker()
    tracker.new_game(dict(stream["setup"]))
    state_times: list[float] = []
    state_cpu: list[float] = []     # (CPU time of this thread: what one core spends, whatever the load)
    frame_times: list[float] = []
    truth, answered, counts = (true_pile_events(stream) if answer else []), set(), [0] * 5
    for ref in session.frames:
        obs = observer.observe(SessionFrame(ref.index, ref.t))
        started, cpu = time.perf_counter(), time.thread_time()
        tracker.feed(obs, float(ref.t), ref.index)
        dt, dcpu = time.perf_counter() - started, time.thread_time() - cpu
        frame_times.append(dt)
        if obs.usable:
            state_times.append(dt)   # (the decoder takes every usable frame as a settled state)
            state_cpu.append(dcpu)
        if answer:
            counts = [a + b for a, b in zip(counts, answer_from_truth(tracker, truth, ref.index, answered))]
    tracker.finish("recording ended")
    snap = tracker.snapshot()
    model = tracker.decoded.model
    totals = {s: p["total"] for s, p in (snap["scores"] or {}).get("scores", {}).items()}
    live = [w for w in snap["warnings"] if not w.get("withdrawn")]
    out = judge_game(stream, session, model, live, totals)
    out.update(withdrawn=len(snap["warnings"]) - len(live), state_times=state_times, state_cpu=state_cpu, frame_times=frame_times)
    out.update(asked(out["check"], tracker.decoded.decoder.questions),
               **dict(zip(("taps", "left", "left_older", "third", "refused"), counts)),
               open_end=len(tracker.decoded.questions()))   # (questions still on the page at the end)
    return out


def asked(check: dict[str, Any], questions: list[dict[str, Any]]) -> dict[str, int]:
    """The decoder's questions ("unclear — who discarded the red 7?", "... who took the green 0?", none answered
    here) and the visible turns lost with one of their pile changes asked about: a turn the page asks about is not
    given to a seat silently (issue 17 item 2)."""
    standing = [q for q in questions if "withdrawn" not in q]   # (on the page at the end, or answered)
    keys = {(q["pile"], str(q["card"]), q.get("kind", "discard")) for q in standing}
    ever = {(q["pile"], str(q["card"]), q.get("kind", "discard")) for q in questions}
    lost = lost_asked = lost_asked_ever = 0
    for mm in check["mismatches"]:
        for t in mm["true"]:
            lost += 1
            changes = [c for sig in [t, *mm["tracked"]] for c in sig.get("piles", [])]
            events = set()
            for c in changes:
                pile, rest = c.split(":", 1)
                old, new = rest.split(">", 1)
                events |= {(pile, new, "discard"), (pile, old, "draw")}
            lost_asked += bool(events & keys)
            lost_asked_ever += bool(events & ever)
    return {"questions": len(questions), "standing": len(standing), "lost": lost, "lost_asked": lost_asked,
            "asks": sum(q.get("asked", 1) for q in questions), "lost_asked_ever": lost_asked_ever,
            "open_frames": [q["withdrawn"] - q["frame"] for q in questions if "withdrawn" in q]}


def judge_game(stream: dict[str, Any], session: MemorySession, model: Any, live: list[dict[str, Any]],
               totals: dict[str, int]) -> dict[str, Any]:
    """Visible turns exact, injected breaks flagged, final scores right (warnings: {"move_id", "code"})."""
    true_sigs, _ = true_signatures_of_session(session)
    # (the truth's turns are its events grouped by seat, so a player's turn out of turn right after
    # their own is one true turn: the tracked turns are grouped alike)
    groups: list[list[int]] = []
    for i, t in enumerate(model.turns):
        if groups and model.turns[groups[-1][-1]].seat == t.seat:
            groups[-1].append(i)
        else:
            groups.append([i])
    tracked_sigs = [_merged_signature([signature_of_turn(model, model.turns[i]) for i in g]) for g in groups]

    # Injected rule breaks: a warning of the injected code on the tracked move of that turn (or beside it).
    turn_of_event: list[int] = []
    seat = None
    k = -1
    for line in stream["events"]:
        if line.get("seat") != seat:
            k += 1
            seat = line.get("seat")
        turn_of_event.append(k)
    for line, k in zip(stream["events"], turn_of_event):
        # a pawn two stones on over a clover is, to a camera, a step onto the clover and the clover's
        # step (RULES §1 Tiles): the true turn as the camera sees it has both steps
        clover = _clover_between(stream, line) if line.get("injected") and line.get(
            "expected_code") == "two-steps" else None
        if clover and k < len(true_sigs):
            big = "B" if (line.get("move") or {}).get("pawn") == 0 else "S"
            true_sigs[k] = {**true_sigs[k], "steps": sorted(true_sigs[k]["steps"] + [f"{big}:{clover}"])}
    check = compare_turns(true_sigs, tracked_sigs)
    turn_lines: dict[int, list[dict[str, Any]]] = {}
    for line, k in zip(stream["events"], turn_of_event):
        turn_lines.setdefault(k, []).append(line)
    aligned = align_turns(true_sigs, tracked_sigs)
    by_move: dict[int, set[str]] = {}
    for w in live:
        by_move.setdefault(w["move_id"], set()).add(w["code"])
    injected = flagged = invisible = 0
    missed: Counter = Counter()
    missed_at: list[dict[str, Any]] = []   # (for --why: the injected move, the tracked turns near it)
    breaks: list[dict[str, Any]] = []      # every injected break: its code, why no camera sees it, flagged
    for j, (line, k) in enumerate(zip(stream["events"], turn_of_event)):
        if not line.get("injected"):
            continue
        code = line.get("expected_code")
        move = line.get("move") or {}
        hidden = break_hidden(stream, j, true_sigs[k], k, turn_lines.get(k, []))
        near_at = aligned.get(k)
        near = {near_at - 1, near_at, near_at + 1} if near_at is not None else set()
        near_codes = sorted({c for m in near if 0 <= m < len(groups) for i in groups[m] for c in by_move.get(i + 1, ())})
        hit = code in near_codes
        # (the figure "visible breaks flagged" also takes a code the camera cannot tell from the injected one)
        alike = bool(same_to_a_camera(stream, j) & set(near_codes))
        breaks.append({"code": code, "frame": line.get("frame"), "seat": line.get("seat"), "hidden": hidden,
                       "old_hidden": hidden in OLD_HIDDEN, "flagged": hit or alike, "strict": hit,
                       "near_codes": near_codes})
        if hidden in OLD_HIDDEN:
            # the figure "breaks flagged" as before session 25: these reasons counted apart
            invisible += 1
            continue
        injected += 1
        if hit:
            flagged += 1
        else:
            missed[code] += 1
            missed_at.append({"code": code, "move": move, "frame": line.get("frame"), "true_turn": k,
                              "hidden": hidden,
                              "tracked": [(m, tracked_sigs[m], sorted({c for i in groups[m] for c in by_move.get(i + 1, ())}))
                                          for m in sorted(near) if 0 <= m < len(groups)]})
    shown = [b for b in breaks if b["hidden"] is None]
    return {"check": check, "warnings": live, "withdrawn": 0, "missed_at": missed_at,
            "injected": injected, "flagged": flagged, "invisible": invisible, "missed_codes": dict(missed),
            "breaks": breaks, "visible": len(shown), "visible_flagged": sum(b["flagged"] for b in shown),
            "visible_missed_codes": dict(Counter(b["code"] for b in shown if not b["flagged"])),
            "final_match": totals == stream["final"]["totals"]}


#: Why no camera sees an injected break (break_hidden's reasons). The first six were counted apart
#: before session 25 (the figure "breaks flagged" keeps them so); "a skipped draw" came with the
#: figure "visible breaks flagged", which counts apart every reason here.
OLD_HIDDEN = frozenset({"no trace", "first player chosen at the table", "onto its twin", "draw pile",
                        "card colour", "over a clover"})
HIDDEN_REASONS = (*sorted(OLD_HIDDEN), "a skipped draw", "covered unseen")


def break_hidden(stream: dict[str, Any], j: int, true_sig: dict[str, Any], k: int,
                 turn_lines: list[dict[str, Any]]) -> str | None:
    """Why no camera can see the injected break of stream["events"][j] (None: it can).

    The rule: a break is visible when the table as a reader reads it (FORMATS §2's fields: pawns,
    tiles, rows, wish stones, wish cards, points rows, discard-pile tops — not the hands, and not the
    draw pile's size, which no reader counts) cannot be explained by legal play. It can be when
    - "no trace": the turn of the break changed no field of the table (a draw-count draw from the
      draw pile instead of a play, a card drawn back from one's own discard between two readings, ...);
    - "first player chosen at the table": an "out of turn" play as the very first move;
    - "onto its twin": a second card discarded onto its twin (the pile reads as before);
    - "draw pile": any card drawn from the draw pile (hidden cards, an uncounted pile);
    - "card colour": a card-game card in another colour's row (FORMATS §2 rows carry values only);
    - "over a clover": a pawn two stones on over a clover (a step onto the clover and its step);
    - "a skipped draw": a play by the next seat while the seat before still owed its draw (an
      "out-of-turn" discard, the card game's "draw-count" lay): the table reads as that seat drawing
      from the draw pile, unseen, and the next seat's turn — a legal game;
    - "covered unseen": a second card ("two-cards", a pair for no wish card) discarded onto a pile
      together with another card of the turn within one reading: the camera reads one card discarded.
    The figure "visible breaks flagged" also takes the codes `same_to_a_camera` names as flagging a break.
    """
    line = stream["events"][j]
    code = line.get("expected_code")
    move = line.get("move") or {}
    if not visible(true_sig):
        return "no trace"
    if k == 0 and code == "out-of-turn":
        return "first player chosen at the table"
    if code == "two-cards" and _traceless_discard(stream, line, turn_lines):
        return "onto its twin"
    if code == "two-steps" and _clover_between(stream, line):
        return "over a clover"
    if move.get("move") == "draw" and move.get("from") == "pile":
        return "draw pile"
    if stream["setup"]["game"] == "keltis-card" and code == "wrong-colour":
        return "card colour"
    if code in ("out-of-turn", "draw-count") and move.get("move") in ("discard", "lay") and j > 0:
        before = stream["events"][j - 1]
        last = (before.get("move") or {}).get("move")
        seats = list(stream["setup"]["seats"])
        seat, previous = line.get("seat"), before.get("seat")
        # (the card game's "draw-count" play by the next seat: the seat before drew fewer than it owed)
        if (previous in seats and seat in seats and seat != previous and (last != "draw" or code == "draw-count")
                and seats[(seats.index(previous) + 1) % len(seats)] == seat):
            return "a skipped draw"
    if code in ("two-cards", "no-wish-card") and _covered_unseen(stream, j, turn_lines):
        return "covered unseen"
    return None


def classify_breaks(stream: dict[str, Any]) -> list[dict[str, Any]]:
    """Each injected break of a game's truth stream: {"codes": its code and the engine's, "hidden": why
    no camera sees it (break_hidden) or None, "alike": the codes a camera cannot tell from it}."""
    true_sigs, _ = true_signatures_of_session(MemorySession(stream))
    turn_of_event: list[int] = []
    seat, k = None, -1
    for line in stream["events"]:
        if line.get("seat") != seat:
            k += 1
            seat = line.get("seat")
        turn_of_event.append(k)
    turn_lines: dict[int, list[dict[str, Any]]] = {}
    for line, k in zip(stream["events"], turn_of_event):
        turn_lines.setdefault(k, []).append(line)
    out = []
    for j, (line, k) in enumerate(zip(stream["events"], turn_of_event)):
        if line.get("injected"):
            codes = {v.get("code") for v in line.get("violations", []) if isinstance(v, dict) and v.get("code")}
            out.append({"codes": codes | {line.get("expected_code")},
                        "hidden": break_hidden(stream, j, true_sigs[k], k, turn_lines.get(k, [])),
                        "alike": same_to_a_camera(stream, j)})
    return out


def stream_of_session(folder: Path) -> dict[str, Any]:
    """A recorded session folder (its truth files) as the truth stream session_truth gives."""
    from camera.session import open_session

    session = open_session(folder)
    info = json.loads((Path(folder) / "session.json").read_text())
    frames: list[tuple[float, dict[str, Any]]] = [(0.0, {"usable": False})] * (max((r.index for r in session), default=-1) + 1)
    for ref in session:
        frames[ref.index] = (ref.t, session.truth(ref) or {"usable": False})
    lines = session.events()
    return {"setup": {k: info.get(k) for k in ("game", "board", "seats", "rules")}, "frames": frames,
            "events": [x for x in lines if "final" not in x],
            "final": next((x["final"] for x in lines if "final" in x), None)}


def _covered_unseen(stream: dict[str, Any], j: int, turn_lines: list[dict[str, Any]]) -> bool:
    """Did the break's extra card go onto a discard pile together with another card of the same turn
    within one reading (a pair onto one pile, or two discards onto one pile between two frames), so
    that the camera reads one card discarded there — as many cards as a turn plays?"""
    line = stream["events"][j]
    move = line.get("move") or {}
    piles = _discard_piles(move)
    if move.get("move") == "discard-pair" and len(piles) == 2 and piles[0] == piles[1]:
        return True
    return any(other is not line and other.get("frame") == line.get("frame")
               and set(_discard_piles(other.get("move") or {})) & set(piles) for other in turn_lines)


def _discard_piles(move: dict[str, Any]) -> list[str]:
    """The discard piles a true move puts cards on (board game: its colour; card game: each card's)."""
    from engine.cards import parse_card

    kind = move.get("move")
    if kind not in ("discard", "tile-discard", "discard-pair"):
        return []
    if "colour" in move:
        return [str(move["colour"])]
    cards = move.get("cards") if kind == "discard-pair" else [move.get("card")]
    out = []
    for text in cards or []:
        card = parse_card(str(text))
        out.append(card.colour or "points")
    return out


def same_to_a_camera(stream: dict[str, Any], j: int) -> set[str]:
    """The codes a camera cannot tell from the injected one of stream["events"][j]: a second play by
    the seat whose own turn just ended is "out-of-turn" to the engine when its draw came first and
    "two-cards" when it came after — the same table when that draw left no reading between the two
    plays (drawn from the draw pile, off a card's twin, or shown first in the reading of the play)."""
    events = stream["events"]
    line = events[j]
    code = line.get("expected_code")
    if code not in ("out-of-turn", "two-cards") or j == 0 or events[j - 1].get("seat") != line.get("seat"):
        return set()
    k = j - 1
    while k >= 0 and events[k].get("seat") == line.get("seat"):
        move = events[k].get("move") or {}
        if move.get("move") == "draw" and move.get("from") not in (None, "pile") \
                and events[k].get("frame") != line.get("frame") and _top_changed(stream, events[k]):
            return set()       # the draw showed in a reading before the play: the order is seen
        k -= 1
    return {"out-of-turn", "two-cards"} - {code}


def _top_changed(stream: dict[str, Any], line: dict[str, Any]) -> bool:
    """Does the draw's pile read otherwise in the draw's first frame than in the usable frame before?"""
    frame, pile = line.get("frame"), (line.get("move") or {}).get("from")
    if frame is None:
        return False
    frames = stream["frames"]
    after = (frames[int(frame)][1].get("discard_tops") or {}).get(pile)
    for i in range(int(frame) - 1, -1, -1):
        if frames[i][1].get("usable"):
            return (frames[i][1].get("discard_tops") or {}).get(pile) != after
    return True


def _traceless_discard(stream: dict[str, Any], injected: dict[str, Any], lines: list[dict[str, Any]]) -> bool:
    """Did one of the discards of the injected move's turn go onto its twin (the pile's top, in the
    last usable frame before the discard showed, is the card discarded: the pile reads as before)?"""
    frames = stream["frames"]
    for line in lines:
        move = line.get("move") or {}
        if move.get("move") != "discard" or line.get("frame") is None:
            continue
        if "card" in move:                                   # card game: "red 7"
            colour, _, code = str(move["card"]).partition(" ")
        else:                                                # board game: colour, value
            colour, code = move.get("colour"), str(move.get("value"))
        for i in range(int(line["frame"]) - 1, -1, -1):
            truth = frames[i][1]
            if truth.get("usable"):
                if str((truth.get("discard_tops") or {}).get(colour)) == code:
                    return True
                break
    return False


def _clover_between(stream: dict[str, Any], injected: dict[str, Any]) -> str | None:
    """The clover the injected two-stone pawn move passes over, if any (RULES §1 Tiles: a clover lets
    the pawn that landed there go one stone further at once — the same change of the table, legal)."""
    from engine.board import load_board
    from engine.boardgame.state import board_info

    move, board = injected.get("move") or {}, stream["setup"].get("board")
    frame = injected.get("frame")
    if not board or frame is None or move.get("to") is None:
        return None
    info = board_info(load_board(board))
    player = stream["setup"]["seats"].get(move.get("seat"))
    for i in range(int(frame) - 1, -1, -1):
        truth = stream["frames"][i][1]
        if truth.get("usable"):
            pawns = [p.get("stone") for p in truth.get("pawns") or [] if p.get("player") == player]
            tiles = truth.get("tiles") or {}
            # (any of the player's pawns: FORMATS §2 lists them by stone, not in the engine's order)
            return next((m for start in pawns for m in info.next.get(start, ())
                         if tiles.get(m) == "clover" and move["to"] in info.next.get(m, ())), None)
    return None


def _merged_signature(sigs: list[dict[str, Any]]) -> dict[str, Any]:
    """One signature for consecutive turns of one seat (pile changes net)."""
    if len(sigs) == 1:
        return sigs[0]
    net: dict[str, list[str]] = {}
    for sig in sigs:
        for change in sig["piles"]:
            pile, rest = change.split(":", 1)
            old, new = rest.split(">", 1)
            if pile in net:
                net[pile][1] = new
            else:
                net[pile] = [old, new]
    out = {"seat": sigs[0]["seat"], "piles": sorted(f"{p}:{o}>{n}" for p, (o, n) in net.items() if o != n)}
    for key in ("lays", "steps", "row_discards", "wish_cards"):
        out[key] = sorted(x for sig in sigs for x in sig[key])
    return out


def run_game_decoder(stream: dict[str, Any], noise: float, seed: int) -> dict[str, Any]:
    """The same game through tracking.decoded.DecodedGame (the decoder's turns, judged by the engine),
    ended as a replay ends it (its last plays over, or the draw pile's count run out)."""
    from engine.setup import Setup
    from tracking.decoded import DecodedGame

    session = MemorySession(stream)
    observer: Any = MemoryTruthObserver(session)
    if noise:
        observer = MisreadInjector(observer, noise, seed, noise_model=NOISE_MODEL)
    config = dataclasses.replace(SETTINGS, auto_end_on_empty_draw_pile=True)  # as replays end games
    game = DecodedGame(Setup.from_json(dict(stream["setup"]), "bench"), config)
    state_times: list[float] = []
    state_cpu: list[float] = []     # (CPU time of this thread: what one core spends, whatever the load)
    frame_times: list[float] = []
    for ref in session.frames:
        obs = observer.observe(SessionFrame(ref.index, ref.t))
        started, cpu = time.perf_counter(), time.thread_time()
        game.feed(obs, float(ref.t), ref.index)
        dt, dcpu = time.perf_counter() - started, time.thread_time() - cpu
        frame_times.append(dt)
        if obs.usable:
            state_times.append(dt)
            state_cpu.append(dcpu)
    game.finish()
    model = game.model.clone()
    if model.phase == "final":
        model.correct({"kind": "end", "reason": "recording ended"})
    elif model.phase == "play" and model.draw_pile_left() <= 0:
        model.correct({"kind": "end", "reason": "draw-pile"})
        if model.phase == "final":
            model.correct({"kind": "end", "reason": "recording ended"})
    live = [{"move_id": turn.move_id, "code": v.code, "message": v.message} for turn in model.turns for v in turn.violations()]
    sheet = model.score_sheet()
    totals = {s: p.total for s, p in sheet.scores.items()} if sheet is not None else {}
    out = judge_game(stream, session, model, live, totals)
    out.update(state_times=state_times, state_cpu=state_cpu, frame_times=frame_times, corrections=len(game.decoder.corrections))
    out.update(asked(out["check"], game.decoder.questions))
    return out


def why(stream: dict[str, Any], mismatch: dict[str, Any], before: int = 12, after: int = 4,
        frames: tuple[int, int] | None = None) -> str:
    """The true frames around a mismatch (from `before` frames ahead of its first true move to `after`
    past its last): each usable frame's fields that changed since the last usable frame, each hand
    frame's seats, and the true moves shown by each frame (the truth, not the misread frames)."""
    from tracking.check import true_turns_of_session
    from tracking.stability import observation_fields

    session = MemorySession(stream)
    turns, _ = true_turns_of_session(session)
    true_sigs, _ = true_signatures_of_session(session)
    shown = [k for k, sig in enumerate(true_sigs) if visible(sig)]
    if frames is not None:
        lo, hi = frames
    else:
        at = [f for t in mismatch["true"] for f in turns[shown[t["index"] - 1]].get("frames", []) if f is not None]
        if not at:
            tracked = [t.get("index") for t in mismatch["tracked"]]
            return f"      (no true move to place it: tracked turns {tracked})"
        lo, hi = min(at) - before, max(at) + after
    moves: dict[int, list[str]] = {}
    for line in stream["events"]:
        if isinstance(line.get("move"), dict) and line.get("frame") is not None:
            moves.setdefault(line["frame"], []).append(
                f"{line['move'].get('seat')} {json.dumps({k: v for k, v in line['move'].items() if k != 'seat'})}"
                + (f" (injected {line.get('expected_code')})" if line.get("injected") else ""))
    out, last = [], None
    for i, (t, truth) in enumerate(stream["frames"]):
        if i > hi:
            break
        if truth.get("usable"):
            fields = observation_fields(parse_observation(truth))
            if i >= lo:
                diff = sorted(((k, last.get(k), fields.get(k)) for k in set(last or {}) | set(fields)
                               if last is not None and last.get(k) != fields.get(k)), key=str)
                out.append(f"      {i:5d} {t:8.1f}s table " + "; ".join(f"{k}: {a} -> {b}" for k, a, b in diff))
            last = fields
        elif i >= lo:
            out.append(f"      {i:5d} {t:8.1f}s hands {[h.get('seat') for h in truth.get('hands') or []]}")
        if i >= lo:
            out += [f"              move {m}" for m in moves.get(i, [])]
    return "\n".join(out)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))] if xs else float("nan")


def main(argv: list[str] | None = None, make_tracker=None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per game kind")
    parser.add_argument("--seed0", type=int, default=2000)
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.02, 0.05])
    parser.add_argument("--fps", type=float, nargs="+", default=[1.0, 0.5])
    parser.add_argument("--illegal", type=int, default=3, help="rule breaks injected in every second game")
    parser.add_argument("--kinds", nargs="+", choices=sorted(KINDS), default=["nwnz", "base", "card"])
    parser.add_argument("--cache", type=Path, default=None, help="folder keeping the games' truth streams")
    parser.add_argument("--show", type=int, default=2, help="mismatches shown per game (stderr)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--why", action="store_true",
                        help="with each mismatch shown, the true frames around it (stderr): every usable "
                             "frame's changed fields, every hand frame's seats, the true moves")
    parser.add_argument("--decoder", action="store_true",
                        help="run tracking.decoded.DecodedGame (the turn decoder, judged by the engine) "
                             "instead of the tracker")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a tracking setting (TrackingConfig) for this run, e.g. --set decoder_lag=10")
    parser.add_argument("--answer", action="store_true",
                        help="run every game again with each question answered from the truth the moment it is "
                             "asked (a player at the table taps it) and print its turns exact too")
    parser.add_argument("--answered-only", action="store_true",
                        help="with --answer: the answered run alone (its figures in every column; no run unanswered)")
    parser.add_argument("--noise-model", choices=sorted(NOISE_MODELS), default=None,
                        help=f"tracking.noise's model of the misreads (default {DEFAULT_NOISE_MODEL}; s18: before "
                             "session 21, no confidences stated)")
    args = parser.parse_args(argv)
    global SETTINGS, NOISE_MODEL
    SETTINGS = TrackingConfig.from_json({k: json.loads(v) for k, v in (x.split("=", 1) for x in args.set)}, "--set")
    NOISE_MODEL = args.noise_model

    plans: dict = {}
    rows = []
    all_state_times: list[float] = []
    all_state_cpu: list[float] = []
    all_frame_times: list[float] = []
    sim_seconds = 0.0
    for kind in args.kinds:
        for fps in args.fps:
            per_noise: dict[float, list[dict]] = {n: [] for n in args.noise}
            for i in range(args.games):
                seed = args.seed0 + i
                players = 2 + i % 3
                illegal = args.illegal if i % 2 else 0
                started = time.perf_counter()
                stream = truth_stream(kind, players, seed, illegal, fps, args.cache, plans)
                sim_seconds += time.perf_counter() - started
                for noise in args.noise:
                    r = (run_game_decoder(stream, noise, seed) if args.decoder
                         else run_game(stream, noise, seed, make_tracker, answer=args.answer and args.answered_only))
                    r.update(seed=seed, players=players, illegal=bool(illegal))
                    if args.answer and not args.decoder:
                        a = r if args.answered_only else run_game(stream, noise, seed, make_tracker, answer=True)
                        r.update(answered_exact=a["check"]["exact"], taps=a["taps"], left=a["left"],
                                 left_older=a["left_older"], third=a["third"], refused=a["refused"],
                                 answered_open=a["open_end"],
                                 answered_warned=bool(a["warnings"]), answered_final=a["final_match"],
                                 answered_flagged=a["visible_flagged"])
                    per_noise[noise].append(r)
                    c = r["check"]
                    bad = c["exact"] != c["true_turns"] or (not illegal and r["warnings"]) or \
                        not r["final_match"] or r["flagged"] != r["injected"]
                    if bad and args.show:
                        print(f"{kind} {fps:g}fps noise {noise:g} {players}p seed {seed}"
                              f"{' illegal' if illegal else ''}: {c['exact']}/{c['true_turns']} exact, "
                              f"{len(r['warnings'])} warnings, flagged {r['flagged']}/{r['injected']}, "
                              f"final {'ok' if r['final_match'] else 'WRONG'}", file=sys.stderr)
                        for mm in c["mismatches"][:args.show]:
                            print(f"    true    {mm['true']}\n    tracked {mm['tracked']}", file=sys.stderr)
                            if args.why:
                                print(why(stream, mm), file=sys.stderr)
                        if not illegal:
                            for w in r["warnings"][:args.show]:
                                print(f"    warning move {w['move_id']} {w['code']}: {w['message']}", file=sys.stderr)
                        if r["missed_codes"]:
                            print(f"    not flagged: {r['missed_codes']}", file=sys.stderr)
                            if args.why:
                                for m in r["missed_at"]:
                                    print(f"    missed {m['code']} at frame {m['frame']}: {m['move']}", file=sys.stderr)
                                    for j, sig, codes in m["tracked"]:
                                        print(f"      tracked {j}: {sig} warnings {codes}", file=sys.stderr)
                                    f = m["frame"] if m["frame"] is not None else 0
                                    print(why(stream, {"true": [], "tracked": []}, frames=(f - 10, f + 6)), file=sys.stderr)
            for noise, results in per_noise.items():
                legal = [r for r in results if not r["illegal"]]
                st = [x for r in results for x in r["state_times"]]
                ft = [x for r in results for x in r["frame_times"]]
                sc = [x for r in results for x in r["state_cpu"]]
                all_state_times += st
                all_state_cpu += [x for r in results for x in r["state_cpu"]]
                all_frame_times += ft
                missed: Counter = Counter()
                for r in results:
                    missed.update(r["missed_codes"])
                rows.append({
                    "kind": kind, "fps": fps, "noise": noise, "games": len(results),
                    "turns": sum(r["check"]["true_turns"] for r in results),
                    "exact": sum(r["check"]["exact"] for r in results),
                    "games_all_exact": sum(1 for r in results if r["check"]["exact"] == r["check"]["true_turns"]),
                    "legal": len(legal), "legal_warned": sum(1 for r in legal if r["warnings"]),
                    # (a warning shown on the page and withdrawn later: not in "legal warned", which counts those
                    # standing at the end; the decoder's reading before the warning was sure, DecodedGame.settled)
                    "legal_withdrawn": sum(1 for r in legal if r.get("withdrawn")),
                    "injected": sum(r["injected"] for r in results), "flagged": sum(r["flagged"] for r in results),
                    "invisible": sum(r["invisible"] for r in results), "not_flagged": dict(missed),
                    "visible": sum(r["visible"] for r in results),
                    "visible_flagged": sum(r["visible_flagged"] for r in results),
                    "visible_not_flagged": dict(sum((Counter(r["visible_missed_codes"]) for r in results), Counter())),
                    "hidden": dict(Counter(b["hidden"] for r in results for b in r["breaks"] if b["hidden"])),
                    "final_right": sum(1 for r in results if r["final_match"]),
                    "questions": sum(r.get("questions", 0) for r in results),
                    "legal_asked": sum(1 for r in legal if r.get("questions")),
                    "lost": sum(r.get("lost", 0) for r in results),
                    "lost_asked": sum(r.get("lost_asked", 0) for r in results),
                    "standing": sum(r.get("standing", 0) for r in results),
                    "asks": sum(r.get("asks", 0) for r in results),
                    "legal_standing": sum(1 for r in legal if r.get("standing")),
                    "lost_asked_ever": sum(r.get("lost_asked_ever", 0) for r in results),
                    "open_frames": sorted(x for r in results for x in r.get("open_frames", [])),
                    "answered": args.answer and not args.decoder,
                    "answered_exact": sum(r.get("answered_exact", 0) for r in results),
                    "answered_games_exact": sum(1 for r in results
                                                if r.get("answered_exact") == r["check"]["true_turns"]),
                    "taps": sum(r.get("taps", 0) for r in results),
                    "left": sum(r.get("left", 0) for r in results),
                    "left_older": sum(r.get("left_older", 0) for r in results),
                    "third": sum(r.get("third", 0) for r in results),
                    "refused": sum(r.get("refused", 0) for r in results),
                    "answered_open": sum(r.get("answered_open", 0) for r in results),
                    "answered_legal_warned": sum(1 for r in legal if r.get("answered_warned")),
                    "answered_visible_flagged": sum(r.get("answered_flagged", 0) for r in results),
                    "answered_final_right": sum(1 for r in results if r.get("answered_final")),
                    "state_ms_median": 1000 * statistics.median(st) if st else None,
                    "state_ms_p99": 1000 * _pct(st, 0.99) if st else None,
                    "frame_ms_median": 1000 * statistics.median(ft) if ft else None,
                    # (CPU time of the tracking thread per settled state: what one core spends, whatever the load)
                    "state_cpu_ms_median": 1000 * statistics.median(sc) if sc else None,
                    "state_cpu_ms_p99": 1000 * _pct(sc, 0.99) if sc else None})
    summary = {"seeds": [args.seed0, args.seed0 + args.games - 1], "rows": rows,
               "state_ms_median": 1000 * statistics.median(all_state_times) if all_state_times else None,
               "state_ms_p99": 1000 * _pct(all_state_times, 0.99) if all_state_times else None,
               "state_cpu_ms_median": 1000 * statistics.median(all_state_cpu) if all_state_cpu else None,
               "state_cpu_ms_p99": 1000 * _pct(all_state_cpu, 0.99) if all_state_cpu else None,
               "simulator_seconds": sim_seconds}
    if args.json:
        json.dump(summary, sys.stdout, indent=1)
        print()
        return summary
    print(f"seeds {args.seed0}–{args.seed0 + args.games - 1} per kind ({args.games} games, rule breaks injected in "
          f"{sum(1 for i in range(args.games) if i % 2)}: {args.illegal} each)")
    print(f"{'kind':5s} {'rate':>6s} {'noise':>5s}  {'visible turns exact':>24s}  {'games exact':>11s}  "
          f"{'legal warned':>12s}  {'breaks flagged':>18s}  {'visible breaks flagged':>22s}  {'final right':>11s}  "
          f"{'ms/state med/p99':>16s}")
    for r in rows:
        share = r["exact"] / r["turns"] if r["turns"] else 1.0
        fl = r["flagged"] / r["injected"] if r["injected"] else 1.0
        vfl = r["visible_flagged"] / r["visible"] if r["visible"] else 1.0
        rate = f"1/{1 / r['fps']:g}s"
        print(f"{r['kind']:5s} {rate:>6s} {r['noise']:5.0%}  {r['exact']:5d}/{r['turns']:5d} = {share:7.2%}  "
              f"{r['games_all_exact']:5d}/{r['games']:<5d}  {r['legal_warned']:5d}/{r['legal']:<6d}  "
              f"{r['flagged']:4d}/{r['injected']:<4d}= {fl:6.1%}  "
              f"{r['visible_flagged']:8d}/{r['visible']:<4d}= {vfl:6.1%}  {r['final_right']:5d}/{r['games']:<5d}  "
              f"{r['state_ms_median']:6.2f}/{r['state_ms_p99']:6.2f}")
        if r["legal_withdrawn"]:
            print(f"{'':20s}legal games with a warning shown and withdrawn later: {r['legal_withdrawn']}/{r['legal']}")
        if r["not_flagged"]:
            print(f"{'':20s}not flagged: {r['not_flagged']}; not visible to a camera: {r['invisible']}")
        if r["visible_not_flagged"] or r["hidden"]:
            print(f"{'':20s}visible, not flagged: {r['visible_not_flagged']}; hidden: {r['hidden']}")
        if r["questions"] or r["lost"]:
            print(f"{'':20s}asked: {r['questions']} questions, {r['legal_asked']}/{r['legal']} legal games asked; "
                  f"turns lost that were asked about: {r['lost_asked']}/{r['lost']}")
            if r["standing"] != r["questions"] or r["asks"] != r["questions"]:
                print(f"{'':20s}withdrawn: {r['questions'] - r['standing']} (asked {r['asks']} times); standing at the "
                      f"end {r['standing']}, {r['legal_standing']}/{r['legal']} legal games; turns lost asked about at some "
                      f"time: {r['lost_asked_ever']}/{r['lost']}; a withdrawn one was open for a median of "
                      f"{statistics.median(r['open_frames']) if r['open_frames'] else 0:g} frames (max "
                      f"{max(r['open_frames'], default=0)})")
        if r["answered"]:
            share = r["answered_exact"] / r["turns"] if r["turns"] else 1.0
            print(f"{'':20s}answered from the truth as asked ({r['taps']} taps; {r['third']} answers naming a seat "
                  f"not offered, {r['refused']} more refused; {r['left']} dismissed, "
                  f"{r['left_older']} of them a change the truth made only before the question's turns): "
                  f"{r['answered_exact']}/{r['turns']} "
                  f"= {share:.2%} exact, games exact {r['answered_games_exact']}/{r['games']}, legal warned "
                  f"{r['answered_legal_warned']}/{r['legal']}, visible breaks flagged "
                  f"{r['answered_visible_flagged']}/{r['visible']}, final right {r['answered_final_right']}/{r['games']}, "
                  f"questions open at the end {r['answered_open']}")
    print(f"per settled state: median {summary['state_ms_median']:.2f} ms, p99 {summary['state_ms_p99']:.2f} ms "
          f"(one core here; targets ≤ 2 / ≤ 10 ms); simulator {sim_seconds:.0f} s")
    print(f"per settled state, CPU time of the tracking thread (not counting time other processes took): "
          f"median {summary['state_cpu_ms_median']:.2f} ms, p99 {summary['state_cpu_ms_p99']:.2f} ms")
    return summary


if __name__ == "__main__":
    main()
