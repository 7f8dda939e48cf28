"""`keltis-cam replay SESSION`: play a recorded session (FORMATS §3) through the live tracking.

    keltis-cam replay SESSION [--observer truth|vision] [--noise RATE [--noise-model s21|s18]] [--seed N] [--json]
                              [--speed N|fast] [--check] [--data-dir DIR [--resume]]

The frames go through the same pipeline as `serve` (keltis_cam/pipeline.py): by default the camera
path (the vision reader behind the motion gate, as at a table); --observer truth reads the stored
truth/ states instead (no image is decoded: tests and tracker benches); --noise injects misreads into that share of
frames (tracking.noise; --noise-model picks its fitted numbers, s18 those before session 21). --data-dir writes the game to DIR/tracking.db as `serve` does; --resume continues the
game stored there after the last table state it accepted (after a crash). --check compares the
moves with truth/events.jsonl (tracking/check.py): every turn that left a visible trace must be
recovered exactly; the exit status is 1 otherwise.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Mapping

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry
from tracking.noise import DEFAULT_NOISE_MODEL, NOISE_MODELS


def _resume_point(data_dir: Any, session_folder: Any):
    """start_after for build_pipeline: the last frame the stored game took. MalformedInput when there
    is no stored game, or when it was recorded from another session than the one given."""
    def start_after(tracker: Any) -> int | None:
        from camera.session import open_session
        from keltis_cam.pipeline import check_resumable, last_frame_taken, session_identity

        check_resumable(tracker, session_identity(open_session(session_folder)), str(data_dir))
        return last_frame_taken(tracker)
    return start_after


def run_replay(args: Any, out=None) -> int:
    """The replay command (module docstring); returns the exit status."""
    from keltis_cam.config import load_config
    from keltis_cam.pipeline import build_pipeline, parse_speed
    from tracking.check import compare_turns, signature_of_turn, true_signatures_of_session
    from tracking.pipeline import Pipeline

    out = out or sys.stdout
    if args.resume and not args.data_dir:
        raise MalformedInput("--resume needs --data-dir (the database to resume)", field="--resume")
    cfg = load_config(getattr(args, "config", None))
    built = build_pipeline(f"replay:{args.session}", observer=args.observer, noise=args.noise, seed=args.seed,
                           noise_model=args.noise_model,
                           speed=parse_speed(args.speed), data_dir=args.data_dir, decode_frames=False,
                           start_after=_resume_point(args.data_dir, args.session) if args.resume else None,
                           tracking=cfg.tracking,
                           observer_config={"components": getattr(args, "components", None) or cfg.components})
    session, tracker, observer = built.session, built.tracker, built.observer
    if not args.resume:
        tracker.new_game(built.setup, origin=built.origin)
    built.warm_up()   # (the first full reading waits for it)
    source = built.make_source()
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
    result: dict[str, Any] = {"session": str(session.folder), "observer": built.observer_name, "noise": args.noise,
                              "frames": pipeline.frames, "moves": snap["moves"], "warnings": snap["warnings"],
                              "scores": snap["scores"], "game_over": snap["game_over"],
                              "end_reason": snap["end_reason"], "session_warnings": list(session.warnings),
                              "unusable_frames": dict(pipeline.unusable), "frame_errors": pipeline.errors}
    if hasattr(observer, "stats"):
        result["misreads"] = observer.stats()
    inner = getattr(observer, "observer", observer)
    if getattr(inner, "stills", 0):   # full-resolution stills the reader asked the camera for
        result["stills_read"] = inner.stills
    problems = getattr(inner, "problems", [])
    if problems:
        result["observer_problems"] = problems[:20]
    status = 0
    if args.check:
        true_sigs, final = true_signatures_of_session(session)
        if not true_sigs and final is None:
            built.close()
            raise MalformedInput("the session has no truth/events.jsonl to check against", source=str(session.folder))
        model = tracker.decoded.model
        check = compare_turns(true_sigs, [signature_of_turn(model, t) for t in model.turns])
        if final is not None and snap["scores"]:
            totals = {s: p["total"] for s, p in snap["scores"]["scores"].items()}
            check["final_totals"] = {"true": final.get("totals"), "tracked": totals,
                                     "match": final.get("totals") == totals}
            check["winners"] = {"true": final.get("winners"), "tracked": snap["scores"]["winners"]}
        check["ok"] = check["exact"] == check["true_turns"] and check.get("final_totals", {}).get("match", True)
        result["check"] = check
        status = 0 if check["ok"] else 1
    built.close()
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
    unusable = result.get("unusable_frames") or {}
    if unusable:
        w(f"  {sum(unusable.values())} of {result['frames']} frames could not be read: "
          + ", ".join(f"{n} {reason}" for reason, n in sorted(unusable.items(), key=lambda kv: -kv[1])) + "\n")
    if result.get("stills_read"):
        w(f"  {result['stills_read']} full-resolution stills read\n")
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


def register(sub: Any, games: GameRegistry = GAMES) -> None:
    """Add `replay` to the command line."""
    p = sub.add_parser("replay", help="play a recorded session through the tracker: moves, warnings, scores")
    p.add_argument("session", help="recorded session folder (FORMATS §3)")
    p.add_argument("--observer", choices=["truth", "vision", "recorded"], default="vision",
                   help="how frames are read: the camera pipeline (vision, the default), the stored truth/ "
                        "states, or the readings a live recording stored (recorded: `record --live`)")
    p.add_argument("--noise", type=float, default=0.0, metavar="RATE",
                   help="inject misreads into this share of frames (0–1), e.g. 0.02")
    p.add_argument("--seed", type=int, default=0, help="seed of the injected misreads")
    p.add_argument("--noise-model", choices=sorted(NOISE_MODELS), default=None,
                   help=f"the noise model's fitted numbers (tracking.noise; default {DEFAULT_NOISE_MODEL})")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--speed", default="fast", metavar="N|fast",
                   help="N times the recorded pace, or fast (default: as fast as possible)")
    p.add_argument("--check", action="store_true", help="compare with truth/events.jsonl (exit 1 on a mismatch)")
    p.add_argument("--data-dir", metavar="DIR", help="write the game to DIR/tracking.db (as serve does)")
    p.add_argument("--resume", action="store_true", help="continue the game stored in --data-dir")
    p.add_argument("--config", metavar="FILE", help="config file (its [tracking] settings apply)")
    p.add_argument("--components", metavar="DIR", help="a components folder: how the recorded pieces look "
                   "(default: the config's [game] components, else the bundled art)")
    p.set_defaults(func=run_replay)

