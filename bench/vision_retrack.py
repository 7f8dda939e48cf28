"""The tracker alone on the readings a vision replay gave it: tracker changes measured on the camera path in
seconds, not in minutes of reading (issue 20 item 4; session 16).

    .venv/bin/python bench/vision_retrack.py record SESSION...   # replay --observer vision, its readings kept
    .venv/bin/python bench/vision_retrack.py replay SESSION... [--set NAME=VALUE ...] [--quiet] [--hash-seeds 1 2]
    .venv/bin/python bench/vision_retrack.py misreads SESSION... [--noise-seeds N] [--fit]
    .venv/bin/python bench/vision_retrack.py compare SESSION... [--rates vision 0.02] [--noise-seeds N]
                                             [--noise-model NAME] [--confidence on|off]
    .venv/bin/python bench/vision_retrack.py causes SESSION... [--set NAME=VALUE ...]

`record` replays each session as `keltis-cam replay SESSION --observer vision --check` does (the vision reader
behind its motion gate, full-resolution stills where the session has them) and keeps every frame's reading, as
the tracker got it, in SESSION/vision-gated.jsonl. `replay` feeds those readings to a fresh tracker (with the
settings `--set` changes) and prints, per session and in all, visible turns exact, final scores, the warnings
and (without --quiet) the mismatches. The readings depend only on the reader: after a change to vision/,
record again. `--hash-seeds A B ...` runs the replay once per string-hash seed (PYTHONHASHSEED, in a child
process each) and says whether every output line is the same: a decoding that follows the order of a set or a
dict of strings shows here (session 23: a float sum in a set's order changed 1 of 446 turns). (Sessions rendered by bench/vision_games.py --keep DIR are the usual input.) `misreads` prints the
kept readings' misreads kind by kind beside those tracking.noise injects on the same sessions' truth at the rate
the readings show (bench/vision_games.py's profile, tiles under pawns and open ones apart; `--fit`: the noise
model's constants as these readings measure them). `compare` prints, per session and per kind of game, what the
camera path got from the kept readings beside what the tracker gets on the same session's truth with tracking.noise's
misreads at each rate (`vision`: the share of still frames the kept readings misread, as `misreads` measures it), each
with --noise-seeds seeds: visible turns exact, final scores right, warnings per game — whether the tracker's own
benchmark (bench/tracking_sessions.py) predicts the camera path (issue 20 item 4).
`causes` replays the kept readings again with one class of the reader's mistakes at a time replaced by the
truth (pawns, tiles, rows, discard tops, an arm read as a still table, the frames before the first move) and
names, for each mismatching visible turn, the classes that alone make it exact (session 21: what the decoder
loses the camera path's turns to).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

READINGS_FILE = "vision-gated.jsonl"   # each frame's reading as the tracker got it (index, obs)


class RecordingObserver:
    """An observer that keeps what the observer it wraps returned, by frame index."""

    def __init__(self, observer: Any):
        self.observer = observer
        self.name = observer.name
        self.readings: dict[int, dict[str, Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.observer, name)

    def observe(self, frame: Any) -> Any:
        obs = self.observer.observe(frame)
        self.readings[int(frame.index)] = obs.to_json()
        return obs


#: `causes`: the classes of the reader's mistakes, each replaced by the truth alone: the fields of a usable frame
#: (both the reading and the truth usable), an arm read as a still table (truth unusable: the frame made unusable
#: with the truth's hands), the frames before the game's first move (every field)
CAUSES = {"first": (), "arm": (), "pawns": ("pawns",), "tiles": ("tiles",), "rows": ("seats",),
          "tops": ("discard_tops",)}


class KeptReadings:
    """The readings a recorded vision replay kept (READINGS_FILE), served by frame index; `truth_for`: classes of
    CAUSES read as the session's truth shows them instead (what the reader's mistakes of that class cost)."""

    name = "vision"

    def __init__(self, folder: Path, truth_for: tuple[str, ...] = ()):
        from engine.observation import parse_observation

        path = folder / READINGS_FILE
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        first = min((e["frame"] for e in _events(folder) if "move" in e and "frame" in e), default=0)
        self.readings = {}
        for d in lines:
            obs = d["obs"]
            truth_file = folder / "truth" / f"{d['index']:06d}.json"
            if truth_for and truth_file.exists():
                obs = _with_truth(obs, json.loads(truth_file.read_text()), truth_for, d["index"] < first)
            self.readings[d["index"]] = parse_observation(obs, str(path))

    def observe(self, frame: Any) -> Any:
        return self.readings[int(frame.index)]


def _events(folder: Path) -> list[dict[str, Any]]:
    path = folder / "truth" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _with_truth(obs: dict[str, Any], truth: dict[str, Any], classes: tuple[str, ...], before_first: bool) -> dict:
    """A kept reading with the classes of mistakes in `classes` (CAUSES) replaced by the truth's reading."""
    if "arm" in classes and obs.get("usable") and not truth.get("usable"):
        return {**{k: v for k, v in obs.items() if k != "element_confidence"}, "usable": False, "reason": "motion",
                "pawns": None, "tiles": None, "seats": {}, "discard_tops": {}, "confidence": {},
                "hands": truth.get("hands") or []}
    if not (obs.get("usable") and truth.get("usable")):
        return obs
    fields = {f for c in classes for f in CAUSES[c]}
    if "first" in classes and before_first:
        fields |= {f for fs in CAUSES.values() for f in fs}
    return {**obs, **{f: truth[f] for f in fields}}


def run(folder: Path, record: bool, tracking: Any = None, noise: tuple[float, int, Any] | None = None,
        truth_for: tuple[str, ...] = ()) -> dict[str, Any]:
    """One session through the tracker: read by the vision reader (record), from its kept readings (`truth_for`:
    with those classes of CAUSES read as the truth shows them), or (noise: rate, seed, noise model) from its truth
    with tracking.noise's misreads, as `replay --observer truth --noise`."""
    from keltis_cam.pipeline import build_pipeline
    from tracking.check import compare_turns, signature_of_turn, true_signatures_of_session
    from tracking.pipeline import Pipeline, SessionFrames

    if record:
        built = build_pipeline(f"replay:{folder}", observer="vision", decode_frames=False, tracking=tracking)
        observer: Any = RecordingObserver(built.observer)
        source = built.make_source()
    elif noise is not None:
        rate, seed, model = noise
        built = build_pipeline(f"replay:{folder}", observer="truth", decode_frames=False, tracking=tracking,
                               noise=rate, seed=seed, noise_model=model)
        observer = built.observer
        source = SessionFrames(built.session)
    else:
        # (the truth observer's frame list without decoding a picture; the tracker is told the readings are vision's)
        built = build_pipeline(f"replay:{folder}", observer="truth", decode_frames=False, tracking=tracking)
        built.tracker.observer = "vision"
        observer = KeptReadings(folder, truth_for)
        source = SessionFrames(built.session)
    tracker = built.tracker
    tracker.new_game(built.setup, origin=built.origin)
    if hasattr(source, "start"):
        source.start()
    try:
        Pipeline(source, observer, tracker).run()
    finally:
        if hasattr(source, "stop"):
            source.stop()
    tracker.finish("recording ended")
    snap = tracker.snapshot()
    true_sigs, final = true_signatures_of_session(built.session)
    model = tracker.decoded.model
    check = compare_turns(true_sigs, [signature_of_turn(model, t) for t in model.turns])
    if final is not None and snap["scores"]:
        totals = {s: p["total"] for s, p in snap["scores"]["scores"].items()}
        check["final_totals"] = {"true": final.get("totals"), "tracked": totals, "match": final.get("totals") == totals}
    built.close()
    out = {"check": check, "warnings": [w for w in snap["warnings"] if not w.get("withdrawn")]}
    if record:
        (folder / READINGS_FILE).write_text("".join(json.dumps({"index": i, "obs": o}) + "\n"
                                                    for i, o in sorted(observer.readings.items())))
        # the board's px per mm in the picture the reader read last (its registration: calibration.registration)
        res = getattr(getattr(built.observer, "reader", None), "resolution", None)
        if res is not None:
            out["board_px_per_mm"] = res.to_json()
    return out


def causes(folders: list[Path], cfg: Any) -> None:
    """Each mismatching visible turn of the kept readings, and the classes of the reader's mistakes (CAUSES) whose
    replacement by the truth alone makes it exact ("fields": pawns, tiles, rows and tops together; "all": every
    class; "-": none — a turn lost with every reading true)."""
    trials = [(c,) for c in CAUSES] + [("pawns", "tiles", "rows", "tops"), tuple(CAUSES)]
    names = list(CAUSES) + ["fields", "all"]
    tally: dict[str, int] = {}
    for folder in folders:
        def exact(truth_for: tuple[str, ...]) -> tuple[set[int], int]:
            check = run(folder, False, cfg, truth_for=truth_for)["check"]
            lost = {t["index"] for mm in check["mismatches"] for t in mm["true"]}
            return set(range(1, check["true_turns"] + 1)) - lost, check["true_turns"]
        kept, n = exact(())
        fixed = {name: exact(trial)[0] for name, trial in zip(names, trials)}
        print(f"{folder.name}: {len(kept)}/{n} visible turns exact")
        for turn in sorted(set(range(1, n + 1)) - kept):
            alone = [c for c in CAUSES if turn in fixed[c]]
            cause = "+".join(alone) or ("fields" if turn in fixed["fields"] else "all" if turn in fixed["all"] else "-")
            tally[cause] = tally.get(cause, 0) + 1
            print(f"   true turn {turn}: {cause}")
    print("all:", ", ".join(f"{c} {k}" for c, k in sorted(tally.items(), key=lambda x: -x[1])))


def misreads(folders: list[Path], noise_seeds: int, fit: bool, noise_model: str | None = None) -> None:
    """The kept readings' misreads beside the injected ones at the rate they show (bench/vision_games.py)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from vision_games import MisreadProfile, fitted_model, injected_readings, print_profiles

    vision, rate = vision_profile(folders)
    injected = MisreadProfile()
    for k, folder in enumerate(folders):
        for s in range(noise_seeds):
            injected.add_session(injected_readings(folder, rate, 1000 * s + k, noise_model))
    print_profiles(vision, injected, rate)
    if fit:
        print("\nthe noise model as these readings measure it (tracking/noise.py):")
        print(fitted_model(vision))


def vision_profile(folders: list[Path]) -> tuple[Any, float]:
    """The kept readings' misreads (bench/vision_games.MisreadProfile) and the share of still frames they misread
    (what `misreads` scales the injector to)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from vision_games import MisreadProfile, truth_readings

    vision = MisreadProfile()
    for folder in folders:
        kept = KeptReadings(folder).readings
        vision.add_session([(t, kept[i]) for i, t in truth_readings(folder)])
    n, d = vision.share("any field misread")
    return vision, (round(n / d, 4) if d else 0.0)


def vision_rate(folders: list[Path]) -> float:
    """The share of still frames the kept readings misread."""
    return vision_profile(folders)[1]


def kind_of(folder: Path) -> str:
    """A kept session's kind of game (bench/vision_games.py names them KIND-Np-SEED...; others by their name)."""
    return folder.name.split("-")[0]


def compare(folders: list[Path], rates: list[str], noise_seeds: int, noise_model: str | None,
            confidence: bool | None, tracking: Any) -> None:
    """The camera path beside truth + injected misreads, per session and kind (module docstring)."""
    from tracking.noise import DEFAULT_NOISE_MODEL, NOISE_MODELS, noise_model_named

    model = noise_model_named(noise_model)
    if confidence is False:
        model = dataclasses.replace(model, confidence=None)
    elif confidence and model.confidence is None:
        model = dataclasses.replace(model, confidence=NOISE_MODELS[DEFAULT_NOISE_MODEL].confidence)
    resolved = [vision_rate(folders) if r == "vision" else float(r) for r in rates]
    names = ["camera path"] + [f"truth+{r:g}" + (" (vision)" if w == "vision" else "") for r, w in zip(resolved, rates)]
    # rows[name][folder] = (exact, true, finals right, finals, warnings, runs)
    rows: dict[str, dict[Path, list[int]]] = {n: {} for n in names}

    def add(name: str, folder: Path, result: dict[str, Any]) -> None:
        check, cell = result["check"], rows[name].setdefault(folder, [0] * 6)
        final = check.get("final_totals")
        for i, v in enumerate((check["exact"], check["true_turns"], bool(final and final["match"]),
                               final is not None, len(result["warnings"]), 1)):
            cell[i] += int(v)

    for j, folder in enumerate(folders):
        add(names[0], folder, run(folder, False, tracking))
        for name, rate in zip(names[1:], resolved):
            for k in range(noise_seeds):
                add(name, folder, run(folder, False, tracking, (rate, 1000 * k + j, model)))
        print(f"{folder.name}: " + " | ".join(
            f"{n} {_cell(rows[n][folder])}" for n in names), flush=True)
    print(f"\nper kind ({noise_seeds} misread seeds a session on the truth side; turns exact, final scores right, "
          f"warnings a game):")
    kinds = sorted({kind_of(f) for f in folders})
    print(f"  {'kind':6} " + " ".join(f"{n:>34}" for n in names))
    for kind in [*kinds, "all"]:
        cells = []
        for n in names:
            total = [0] * 6
            for f, c in rows[n].items():
                if kind == "all" or kind_of(f) == kind:
                    total = [a + b for a, b in zip(total, c)]
            cells.append(f"{_cell(total):>34}")
        print(f"  {kind:6} " + " ".join(cells))


def _cell(c: list[int]) -> str:
    exact, true, right, finals, warnings, runs = c
    share = f"{exact / true:6.1%}" if true else "     –"
    return f"{share} ({exact}/{true}) final {right}/{finals} w {warnings / max(runs, 1):.1f}"


def _without_hash_seeds(argv: list[str]) -> list[str]:
    """The command line with --hash-seeds and its values taken out."""
    out, skipping = [], False
    for a in argv:
        if a == "--hash-seeds":
            skipping = True
        elif skipping and a.lstrip("-").isdigit() and not a.startswith("--"):
            continue
        else:
            skipping = False
            out.append(a)
    return out


def same_under_hash_seeds(argv: list[str], seeds: list[int]) -> int:
    """Run this replay once per PYTHONHASHSEED (child processes) and print whether the outputs agree; 1 if not."""
    import os
    import subprocess

    outputs = {}
    for seed in seeds:
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        done = subprocess.run([sys.executable, __file__, *_without_hash_seeds(argv)], env=env,
                              capture_output=True, text=True)
        if done.returncode:
            print(f"PYTHONHASHSEED={seed}: exit {done.returncode}\n{done.stderr[-2000:]}")
            return 1
        outputs[seed] = done.stdout.splitlines()
    first = seeds[0]
    print("\n".join(outputs[first]))
    differ = False
    for seed in seeds[1:]:
        lines = [f"   {a}\n   {b}" for a, b in zip(outputs[first], outputs[seed]) if a != b]
        if len(outputs[first]) != len(outputs[seed]):
            lines.append(f"   {len(outputs[first])} against {len(outputs[seed])} lines")
        if lines:
            differ = True
            print(f"PYTHONHASHSEED={first} and {seed} DIFFER:\n" + "\n".join(lines))
    if not differ:
        print(f"the same under PYTHONHASHSEED {', '.join(map(str, seeds))}")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    from tracking.config import TrackingConfig

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["record", "replay", "misreads", "compare", "causes"])
    parser.add_argument("sessions", nargs="+", type=Path)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a tracking setting")
    parser.add_argument("--quiet", action="store_true", help="no mismatches")
    parser.add_argument("--noise-seeds", type=int, default=1, help="misreads: injected with this many seeds a session")
    parser.add_argument("--fit", action="store_true", help="misreads: print the noise model's constants as measured")
    parser.add_argument("--rates", nargs="+", default=["vision", "0.02"],
                        help="compare: the injected misread rates (numbers, or vision: the kept readings' rate)")
    parser.add_argument("--noise-model", default=None, help="compare, misreads: tracking.noise's model (NOISE_MODELS)")
    parser.add_argument("--confidence", choices=["on", "off"], default=None,
                        help="compare: injected readings state confidences (default: as the noise model does)")
    parser.add_argument("--hash-seeds", nargs="+", type=int, default=None, metavar="SEED",
                        help="replay: run once per PYTHONHASHSEED in a child process and compare the outputs")
    args = parser.parse_args(argv)
    if args.hash_seeds:
        if args.mode != "replay":
            parser.error("--hash-seeds goes with replay")
        return same_under_hash_seeds(argv if argv is not None else sys.argv[1:], args.hash_seeds)
    if args.mode == "misreads":
        misreads(args.sessions, args.noise_seeds, args.fit, args.noise_model)
        return 0
    cfg = TrackingConfig()
    for item in args.set:
        name, _, value = item.partition("=")
        current = getattr(cfg, name)
        cfg = dataclasses.replace(cfg, **{name: value.lower() == "true" if isinstance(current, bool)
                                          else type(current)(value)})
    if args.mode == "compare":
        compare(args.sessions, args.rates, args.noise_seeds, args.noise_model,
                None if args.confidence is None else args.confidence == "on", cfg)
        return 0
    if args.mode == "causes":
        causes(args.sessions, cfg)
        return 0
    exact = true = right = ended = 0
    for folder in args.sessions:
        result = run(folder, args.mode == "record", cfg)
        check = result["check"]
        final = check.get("final_totals")
        exact, true = exact + check["exact"], true + check["true_turns"]
        ended += final is not None
        right += bool(final and final["match"])
        print(f"{folder.name}: {check['exact']}/{check['true_turns']} visible turns exact, final scores "
              f"{'-' if final is None else 'right' if final['match'] else 'WRONG'}, warnings "
              f"{[(w['move_id'], w['code']) for w in result['warnings']]}")
        if not args.quiet:
            for mm in check["mismatches"]:
                print(f"   true:    {json.dumps(mm['true'])}\n   tracked: {json.dumps(mm['tracked'])}")
    print(f"all: {exact}/{true} visible turns exact, final scores right {right}/{ended}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
