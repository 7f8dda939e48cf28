"""`keltis-cam replay SESSION`: play a recorded session (FORMATS §3) through the live tracking.

    keltis-cam replay SESSION [--observer truth|vision] [--noise RATE] [--seed N] [--json]
                              [--speed N|fast] [--check] [--data-dir DIR [--resume]]

The frames go through the same Pipeline and GameTracker as a live camera. --observer truth reads
the stored truth/ states (no image is decoded); --noise injects misreads into that share of
frames. --data-dir writes the game to DIR/tracking.db as `serve` does; --resume continues the
game stored there after the last table state it accepted (after a crash). --check compares the
moves with truth/events.jsonl: every turn that left a visible trace must be recovered exactly
(who, cards laid, pawn steps, discard-pile changes, wish cards); the exit status is 1 otherwise.
"""
from __future__ import annotations

import difflib
import json
import sys
from typing import Any, Iterable, Mapping, Sequence

from ..cards import parse_card
from ..errors import MalformedInput
from .config import TrackingConfig
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
                          "violations": []})
        turns[-1]["moves"].append(move)
        turns[-1]["frame"] = frame
        turns[-1]["violations"].extend(line.get("violations") or [])
    return turns, final


def true_signatures_of_session(session: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Signatures of the session's true turns, pile changes read from the truth at turn ends."""
    from vision.session import FrameRef, truth_file

    turns, final = true_turns_of_session(session)

    def tops_at(index: int | None) -> dict[str, Any]:
        if index is None:
            return {}
        data = session.truth(FrameRef(int(index), 0.0, "", session.folder / truth_file(int(index))))
        return dict((data or {}).get("discard_tops") or {})

    first = next((ref.index for ref in session.frames
                  if (session.truth(ref) or {}).get("usable", False)), None)
    before = tops_at(first)
    sigs = []
    for turn in turns:
        after = tops_at(turn["frame"]) if turn["frame"] is not None else before
        piles = [(p, before.get(p), after.get(p)) for p in set(before) | set(after)]
        codes = [v.get("code") if isinstance(v, dict) else v for v in turn["violations"]]
        sigs.append(signature_of_moves(turn["seat"], turn["moves"], piles, codes))
        before = after
    return sigs, final


# ---------------------------------------------------------------------------------------------
# The command


def parse_speed(text: str | None) -> float | None:
    """A --speed value: N times the recorded pace, or None for as fast as possible ("fast", "0", empty)."""
    if text in (None, "", "fast", "0"):
        return None
    try:
        value = float(text)  # type: ignore[arg-type]
    except ValueError:
        raise MalformedInput(f"expected a number or 'fast', got {text!r}", field="--speed") from None
    if not value > 0:
        raise MalformedInput(f"expected a speed > 0, got {text!r}", field="--speed")
    return value


def _setup_of(session: Any) -> dict[str, Any]:
    info = session.info
    return {"game": info.game, "board": info.board, "seats": dict(info.seats), "rules": dict(info.rules or {})}


def run_replay(args: Any, out=None) -> int:
    """The replay command (module docstring); returns the exit status."""
    out = out or sys.stdout
    from vision.session import open_session

    from .noise import MisreadInjector
    from .observers import make_observer
    from .pipeline import Pipeline, SessionFrames
    from .store import EventStore, default_db_path
    from .tracker import GameTracker

    session = open_session(args.session)
    if not session.frames:
        raise MalformedInput("the session lists no frames", source=str(session.folder))
    if not 0 <= args.noise <= 1:
        raise MalformedInput(f"expected a share of frames between 0 and 1, got {args.noise}", field="--noise")
    observer = make_observer(args.observer, session)
    if args.noise:
        observer = MisreadInjector(observer, args.noise, args.seed)
    store = EventStore(default_db_path(args.data_dir) if args.data_dir else ":memory:")
    config = TrackingConfig(auto_end_on_empty_draw_pile=True)
    tracker = GameTracker(store, config=config, observer=args.observer)
    start_after = None
    if args.resume:
        if not args.data_dir:
            raise MalformedInput("--resume needs --data-dir (the database to resume)", field="--resume")
        if tracker.journal is None:
            raise MalformedInput("there is no game to resume in this data directory", source=str(args.data_dir))
        states = [i for i in tracker.journal.inputs if i.kind == "state"]
        start_after = max((i.payload.get("frame") or -1) for i in states) if states else None
    else:
        tracker.new_game(_setup_of(session))
    speed = parse_speed(args.speed)
    if args.observer == "vision":
        from vision.sources import open_source  # decodes every frame, as a camera would deliver them

        spec = f"replay:{session.folder}?speed={'fast' if speed is None else speed}"
        source = open_source(spec)
    else:
        source = SessionFrames(session, speed=speed, start_after=start_after)
    pipeline = Pipeline(source, observer, tracker)
    if hasattr(source, "start"):
        source.start()
    try:
        pipeline.run()
    finally:
        if hasattr(source, "stop"):
            source.stop()
    tracker.finish("recording ended")
    snap = tracker.snapshot()
    result: dict[str, Any] = {"session": str(session.folder), "observer": args.observer, "noise": args.noise,
                              "frames": pipeline.frames, "moves": snap["moves"], "warnings": snap["warnings"],
                              "scores": snap["scores"], "game_over": snap["game_over"],
                              "end_reason": snap["end_reason"], "session_warnings": list(session.warnings)}
    if hasattr(observer, "stats"):
        result["misreads"] = observer.stats()
    problems = getattr(getattr(observer, "observer", observer), "problems", [])
    if problems:
        result["observer_problems"] = problems[:20]
    status = 0
    if args.check:
        true_sigs, final = true_signatures_of_session(session)
        if not true_sigs and final is None:
            raise MalformedInput("the session has no truth/events.jsonl to check against", source=str(session.folder))
        model = tracker.journal.model
        check = compare_turns(true_sigs, [signature_of_turn(model, t) for t in model.turns])
        if final is not None and snap["scores"]:
            totals = {s: p["total"] for s, p in snap["scores"]["scores"].items()}
            check["final_totals"] = {"true": final.get("totals"), "tracked": totals,
                                     "match": final.get("totals") == totals}
            check["winners"] = {"true": final.get("winners"), "tracked": snap["scores"]["winners"]}
        check["ok"] = check["exact"] == check["true_turns"] and check.get("final_totals", {}).get("match", True)
        result["check"] = check
        status = 0 if check["ok"] else 1
    store.close()
    if args.json:
        json.dump(result, out, indent=1)
        out.write("\n")
    else:
        _print_text(result, out)
    return status


def _print_text(result: Mapping[str, Any], out) -> None:
    w = out.write
    w(f"{result['session']}: {result['frames']} frames, observer {result['observer']}"
      + (f", misreads in {result['noise']:.0%} of frames" if result["noise"] else "") + "\n")
    for warning in result.get("session_warnings") or []:
        w(f"  (session) {warning}\n")
    w("\nMoves\n")
    for m in result["moves"]:
        w(f"  {m['id']:3d}. {m['text']}\n")
    w("\nWarnings\n")
    shown = [x for x in result["warnings"]]
    if not shown:
        w("  none\n")
    for x in shown:
        flag = " (withdrawn: misread)" if x.get("withdrawn") else ""
        w(f"  move {x['move_id']}: {x['code']}: {x['message']}{flag}\n")
    scores = result.get("scores")
    w("\nScores" + (" (final)" if result["game_over"] else " (game not over)")
      + (f", end: {result['end_reason']}" if result.get("end_reason") else "") + "\n")
    if scores:
        for seat, p in scores["scores"].items():
            w(f"  {seat} ({p['player']}): {p['total']}\n")
            for part in p["parts"]:
                if part["points"]:
                    w(f"      {part['points']:+4d}  {part['label']}\n")
        w(f"  winners: {', '.join(scores['winners'])}\n")
    check = result.get("check")
    if check:
        w(f"\nCheck against truth/events.jsonl: {check['exact']}/{check['true_turns']} visible turns recovered "
          f"exactly ({check['recovered']:.1%})" + (f"; {check['invisible_true_turns']} turns left no trace"
                                                    if check["invisible_true_turns"] else "") + "\n")
        for mm in check["mismatches"][:10]:
            w(f"  true:    {json.dumps(mm['true'])}\n  tracked: {json.dumps(mm['tracked'])}\n")
        if "final_totals" in check:
            ft = check["final_totals"]
            w(f"  final totals {'match' if ft['match'] else 'DIFFER'}: true {ft['true']}, tracked {ft['tracked']}\n")
        w("  OK\n" if check["ok"] else "  MISMATCH\n")


def register_replay(sub: Any) -> None:
    """Add `replay` to the command line."""
    p = sub.add_parser("replay", help="play a recorded session through the tracker: moves, warnings, scores")
    p.add_argument("session", help="recorded session folder (FORMATS §3)")
    p.add_argument("--observer", choices=["truth", "vision"], default="truth",
                   help="how frames are read: the stored truth/ states, or the camera pipeline (default truth)")
    p.add_argument("--noise", type=float, default=0.0, metavar="RATE",
                   help="inject misreads into this share of frames (0–1), e.g. 0.02")
    p.add_argument("--seed", type=int, default=0, help="seed of the injected misreads")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--speed", default="fast", metavar="N|fast",
                   help="N times the recorded pace, or fast (default: as fast as possible)")
    p.add_argument("--check", action="store_true", help="compare with truth/events.jsonl (exit 1 on a mismatch)")
    p.add_argument("--data-dir", metavar="DIR", help="write the game to DIR/tracking.db (as serve does)")
    p.add_argument("--resume", action="store_true", help="continue the game stored in --data-dir")
    p.set_defaults(func=run_replay)

