"""Whole games through the camera path (issue 20 item 4): fresh simulated sessions replayed with the
vision observer, counted as `keltis-cam replay --check` counts them.

    .venv/bin/python bench/vision_games.py [--games 6] [--seed0 S] [--kinds nwnz base card] [--players 2 3 4]
                                           [--max-moves N] [--noise vision 0.02] [--stills WxH] [--keep DIR]
                                           [--fresh] [--fit] [--jobs N]

Game i: kind `--kinds[i % k]`, `--players` in turn (per round of kinds), seed `--seed0 + i`, two injected rule breaks on
every second game; rendered by `keltis-cam sim session` (1 fps, the simulator's full range of
conditions), then replayed twice:
- `keltis-cam replay DIR --observer vision --check --json` — the camera path;
- `keltis-cam replay DIR --observer truth --noise R --check --json` for each --noise rate — the
  tracker on the truth with the injected misreads of tracking/noise.py (what the tracker's benches
  assume of a reader); `vision` is the rate the vision reader showed on these sessions (its share
  of still frames with a field misread), the rate at which the model should predict the camera path.
Printed per kind and in all: visible turns exact, legal games with a warning, injected breaks
flagged (a warning with the injected code), visible breaks flagged (session 25: only the breaks a
camera can see, by bench/tracking_sessions.py's break_hidden rule — not a draw from the draw pile, a
skipped draw, a card covered within one reading, … — each flagged by a warning with its code or a
code the camera cannot tell from it, same_to_a_camera), final scores right (the scores when filming stopped, truth/events.jsonl's last line).

Then the misreads themselves, frame by frame on the same sessions: what the vision reader gets
wrong (every frame read in full, no gate) beside what the noise model injects, kind by kind
(tracking.noise.field_misreads: a row's first card missed, a pawn on the next stone, a phantom
discard top…; still frames judged unusable; arm frames read as a table and what they show; hand
seats missed, misplaced, added), with how often a misread holds from one frame of a still table to
the next — so the tracker's own benchmark predicts the camera path (item 4's last sentence).
`--fit` prints tracking/noise.py's constants as these sessions measure them. With `--keep DIR` the
readings and vision replays are cached beside each session (`--fresh` to redo them). `--jobs N`: the sessions are
rendered first, then their camera-path replays run in N processes (each replay is one process's work, as alone).
Targets (issue 20, seeds no test or tuning used): ≥ 99 % visible turns exact, no warning on ≥ 98 %
of legal games, ≥ 98 % of visible breaks flagged, ≥ 98 % of final scores right.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

KINDS = {"nwnz": ("keltis", "nwnz"), "base": ("keltis", "base"), "card": ("keltis-card", None)}


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "keltis_cam", *cmd], cwd=ROOT, capture_output=True, text=True)


def render(kind: str, players: int, seed: int, illegal: int, max_moves: int | None, out: Path,
           stills: str | None = None) -> None:
    game, board = KINDS[kind]
    cmd = ["sim", "session", "--game", game, "--players", str(players), "--seed", str(seed), "--fps", "1",
           "--out", str(out), "--overwrite"]
    if board:
        cmd += ["--board", board]
    if illegal:
        cmd += ["--illegal", str(illegal)]
    if max_moves:
        cmd += ["--max-moves", str(max_moves)]
    if stills:   # the video stream as filmed, full-resolution stills rendered when the reader asks
        cmd += ["--stills", stills]
    done = run(cmd)
    if done.returncode != 0:
        raise SystemExit(f"sim session failed for {kind} seed {seed}: {done.stderr.strip()[-500:]}")


def replay(folder: Path, observer: str, noise: float = 0.0, seed: int = 0, noise_model: str | None = None
           ) -> dict[str, Any]:
    cmd = ["replay", str(folder), "--observer", observer, "--check", "--json"]
    if noise:
        cmd += ["--noise", str(noise), "--seed", str(seed)]
        if noise_model:
            cmd += ["--noise-model", noise_model]
    done = run(cmd)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        # (counted as a game lost, not the end of the bench: the camera path must survive what it reads)
        return {"error": f"replay {folder.name} --observer {observer} printed no JSON: {done.stderr.strip()[-300:]}"}


def injected_codes(folder: Path) -> list[set[str]]:
    """The violation codes of each injected rule break (truth/events.jsonl)."""
    out = []
    for line in (folder / "truth" / "events.jsonl").read_text().splitlines():
        if line.strip():
            e = json.loads(line)
            if e.get("injected"):
                codes = {v.get("code") for v in e.get("violations", []) if isinstance(v, dict) and v.get("code")}
                out.append(codes | ({e["expected_code"]} if e.get("expected_code") else set()))
    return out


def visible_breaks(folder: Path) -> list[dict[str, Any]]:
    """The injected rule breaks a camera can see (bench/tracking_sessions.break_hidden's rule), each as
    {"codes": the injected and the engine's codes, "alike": the codes a camera cannot tell from them}."""
    from tracking_sessions import classify_breaks, stream_of_session

    return [b for b in classify_breaks(stream_of_session(folder)) if b["hidden"] is None]


def true_turns(folder: Path) -> int:
    """The visible turns `replay --check` counts, from a plain truth replay (for a replay that failed)."""
    return int((replay(folder, "truth").get("check") or {}).get("true_turns", 0))


def score_game(result: dict[str, Any], breaks: list[set[str]], folder: Path | None = None,
               shown_breaks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """`shown_breaks`: visible_breaks(folder) (None: read from the folder when it is given)."""
    if shown_breaks is None:
        shown_breaks = visible_breaks(folder) if folder is not None else []
    if "error" in result:
        print(f"\n  {result['error']}", end="")
        return {"exact": 0, "true": true_turns(folder) if folder else 0, "warned": True, "breaks": len(breaks),
                "flagged": 0, "visible": len(shown_breaks), "visible_flagged": 0, "final": False, "unusable": {},
                "failed": True}
    check = result.get("check") or {}
    shown = [w for w in result.get("warnings") or [] if not w.get("withdrawn")]
    codes = Counter(w.get("code") for w in shown)
    flagged = 0
    for want in breaks:
        if any(codes[c] for c in want):
            flagged += 1
    final = check.get("final_totals")
    return {"exact": check.get("exact", 0), "true": check.get("true_turns", 0),
            "warned": bool(shown), "breaks": len(breaks), "flagged": flagged, "visible": len(shown_breaks),
            "visible_flagged": sum(1 for b in shown_breaks if any(codes[c] for c in b["codes"] | b["alike"])),
            "final": None if final is None else bool(final.get("match")),
            "unusable": result.get("unusable_frames") or {}}


READINGS_FILE = "vision-readings.jsonl"   # every frame read in full, cached beside a kept session
VISION_REPLAY_FILE = "vision-replay.json"   # `replay --observer vision --check --json`, cached likewise


def vision_readings(folder: Path, fresh: bool = False) -> dict[int, Any]:
    """The vision reader's reading of every frame (no gate), cached in the session folder."""
    from camera.session import open_session
    from engine.observation import parse_observation
    from tracking.observers import make_observer
    from tracking.pipeline import SessionFrame

    cache = folder / READINGS_FILE
    if cache.is_file() and not fresh:
        lines = [json.loads(line) for line in cache.read_text().splitlines() if line.strip()]
        return {d["index"]: parse_observation(d["obs"], str(cache)) for d in lines}
    session = open_session(folder)
    vision = make_observer("vision", session, {"gate": False})
    out = {}
    for ref in session.frames:
        out[ref.index] = vision.observe(SessionFrame(ref.index, ref.t, session.read_frame(ref)))
    cache.write_text("".join(json.dumps({"index": i, "obs": o.to_json()}) + "\n" for i, o in out.items()))
    return out


def truth_readings(folder: Path) -> list[tuple[int, Any]]:
    from camera.session import open_session
    from tracking.observers import make_observer
    from tracking.pipeline import SessionFrame

    session = open_session(folder)
    truth = make_observer("truth", session)
    return [(ref.index, truth.observe(SessionFrame(ref.index, ref.t))) for ref in session.frames]


def _hand_seats(obs: Any) -> list[str]:
    return [h.get("seat") for h in obs.extra.get("hands") or [] if isinstance(h, dict) and h.get("seat")]


def _field_misreads(truth: Any, read: Any) -> list[tuple[str, Any, Any]]:
    """tracking.noise.field_misreads, with a tile under a pawn misread named "tile-covered" (its own model:
    tracking.noise.COVERED_TILE_PER_RATE; the tile kinds are fitted on open tiles)."""
    from tracking.noise import covered_spots, field_misreads

    out = field_misreads(truth, read)
    if not any(k.startswith("tile-") for k, _, _ in out):
        return out
    covered = covered_spots(truth)
    return [("tile-covered" if k.startswith("tile-") and f[1] in covered else k, f, v) for k, f, v in out]


def _near_start(truth: Any, stone: str) -> bool:
    from tracking.noise import _first_row

    return stone == "start" or bool(truth.board) and stone in _first_row(truth.board)


class MisreadProfile:
    """One reader's misreads (the vision reader's, or truth + injected misreads) by kind, over sessions.

    Frames are "still" (usable in truth: the table seen whole) or "arm" (a hand over the table).
    A still frame is judged unusable, or read with field misreads (tracking.noise.field_misreads:
    each kind counted once per frame); a misread is "held" when the previous frame of the same still
    table (same truth, both read) made the same misread. An arm frame is read as a usable table, or
    its hand's seat is missed / read elsewhere / joined by a seat no arm comes from.
    """

    def __init__(self) -> None:
        self.frames: Counter = Counter()
        self.kinds: Counter = Counter()
        self.held: Counter = Counter()
        self.heldable: Counter = Counter()
        self.arm: Counter = Counter()
        self.applicable: Counter = Counter()   # still frames read where the injector could make each kind
        self.kept: Counter = Counter()         # misreads the last frame of the table before made too
        self.keepable: Counter = Counter()     # misreads on the first frame of a new table, of a field the move left
        self.tiles = TileCover()
        self.confidence = ConfidenceProfile()
        self.pawn_where: Counter = Counter()    # pawn misreads (frames × pawns) at the start or first row, or not
        self.pawn_place: Counter = Counter()    # ("pawns"|"misread", start|row1|path): per pawn and still frame read

    def add_session(self, pairs: list[tuple[Any, Any]]) -> None:
        """(truth, reading) of each frame of one session, in order."""
        from tracking.noise import MISREADS
        from tracking.stability import observation_fields

        self.tiles.add_session(pairs)
        still = [i for i, (t, _) in enumerate(pairs) if t.usable]
        prev_state, prev = None, None
        last = None     # (truth fields, misreads) of the last still frame read
        for i, (t, r) in enumerate(pairs):
            if not t.usable:
                prev_state, prev = None, None
                self._arm_frame(pairs, still, i)
                continue
            self.frames["still"] += 1
            if not r.usable:
                self.kinds["judged-unusable"] += 1
                seats = _hand_seats(r)
                self.kinds["  with a hand at a seat in play" if set(seats) & set(t.seats)
                           else "  with a hand where no one sits" if seats else "  with no hand"] += 1
                prev_state, prev = None, None
                continue
            self.frames["still read"] += 1
            self.confidence.add(t, r)
            for kind, misread in MISREADS.items():
                self.applicable[kind] += misread(t, random.Random(0)) is not None
            state = observation_fields(t)
            misreads = set(_field_misreads(t, r))
            for kind in {k for k, _, _ in misreads}:
                self.kinds[kind] += 1
            for _kind, key, _value in misreads:
                if key[0] == "pawns":     # (where the pawn misread was: its stone in truth)
                    self.pawn_where[_near_start(t, key[1].split("@")[1])] += 1
            self.kinds["any field misread"] += bool(misreads)
            self._pawn_places(t, r)
            if prev is not None and prev_state == state:
                for m in misreads:
                    for kind in (m[0], "any field misread"):
                        self.heldable[kind] += 1
                        self.held[kind] += m in prev
            elif last is not None and last[0] != state:
                # the first frame of a new table: misreads of what the move left as it was, kept or not
                for m in misreads:
                    if m[1][0] == "pawns" or last[0].get(m[1]) == state.get(m[1]):
                        for kind in (m[0], "any field misread"):
                            self.keepable[kind] += 1
                            self.kept[kind] += m in last[1]
            prev_state, prev = state, misreads
            last = (state, misreads)

    def _pawn_places(self, truth: Any, read: Any) -> None:
        """Per pawn of the truth, where it stands (tracking.noise's pawn_place_odds places) and whether the reading
        has fewer of it (player, stone, size) than the truth: the reader's misreads per pawn by place."""
        from tracking.noise import _first_row, _pawn_place

        if not truth.pawns or not truth.board:
            return
        first = _first_row(truth.board)
        want = Counter((p.player, p.stone, p.big) for p in truth.pawns)
        got = Counter((p.player, p.stone, p.big) for p in read.pawns or ())
        for (player, stone, big), n in want.items():
            place = _pawn_place(stone, first)
            self.pawn_place["pawns", place] += n
            self.pawn_place["misread", place] += max(0, n - got[(player, stone, big)])

    def place_rates(self) -> dict[str, tuple[int, int]]:
        """(pawns misread, pawns) per place over the still frames read (_pawn_places)."""
        return {pl: (self.pawn_place["misread", pl], self.pawn_place["pawns", pl]) for pl in ("start", "row1", "path")}

    def _arm_frame(self, pairs: list[tuple[Any, Any]], still: list[int], i: int) -> None:
        from tracking.stability import observation_fields

        t, r = pairs[i]
        self.frames["arm"] += 1
        if not r.usable:
            want, got = set(_hand_seats(t)), set(_hand_seats(r))
            if want and not got:
                self.kinds["hand seat missed"] += 1
            elif want - got:
                self.kinds["hand read at another seat"] += 1
            if want and got - want and want <= got:
                self.kinds["hand seat added"] += 1
            return
        self.kinds["arm read as usable"] += 1
        # (the motion gate repeats the last reading until the next one: an arm frame often shows it again)
        self.arm["repeats the last reading"] += i > 0 and pairs[i - 1][1].usable and r == pairs[i - 1][1]
        before = next((pairs[j][0] for j in reversed(still) if j < i), None)
        after = next((pairs[j][0] for j in still if j > i), None)
        if before is None:
            return
        after_fields = observation_fields(after) if after is not None else {}
        wrong = _field_misreads(before, r)
        early = [m for m in wrong if m[1][0] != "pawns" and after_fields.get(m[1]) == m[2] and m[2] is not None]
        self.arm["frames"] += 1
        self.arm["the table before, read right"] += not wrong
        self.arm["some fields as the table after"] += bool(early)
        for kind in {k for k, f, v in wrong if (k, f, v) not in early}:
            self.arm[kind] += 1

    def share(self, kind: str) -> tuple[int, int]:
        """(frames, of frames) for a kind: arm frames for arm kinds, still frames read for field kinds."""
        if kind.startswith("hand") or kind == "arm read as usable":
            return self.kinds[kind], self.frames["arm"]
        if "unusable" in kind or kind.startswith("  "):
            return self.kinds[kind], self.frames["still"]
        return self.kinds[kind], self.frames["still read"]


class ConfidenceProfile:
    """The confidences a reader states on its still frames read (tracking.noise.ConfidenceModel): per element class
    (tracking.noise.element_classes: a first-row stone with pawns read wrong, an open tile read right...) how many,
    how many named among the unsure ones and with which shares; each group's `others`; the group's frame-wide
    confidence beside its least sure element's share; the rows' frame-wide confidence per game."""

    def __init__(self) -> None:
        self.n: Counter = Counter()
        self.named: Counter = Counter()
        self.shares: dict[str, Counter] = {}
        self.others: dict[str, Counter] = {}
        self.steps: dict[str, dict[float, Counter]] = {}
        self.rows: dict[str, Counter] = {}

    def add(self, truth: Any, read: Any) -> None:
        from tracking.noise import element_classes

        stated = read.extra.get("element_confidence") or {}
        for group, elements in element_classes(truth, read).items():
            shares = read.element_shares(group, "stones" if group == "pawns" else "spots")
            if shares is None:
                continue
            others, named = shares
            self.others.setdefault(group, Counter())[others] += 1
            for eid, cls in elements.items():
                self.n[cls] += 1
                if eid in named:
                    self.named[cls] += 1
                    self.shares.setdefault(cls, Counter())[named[eid]] += 1
            least = round(min([others, *named.values()]), 3)
            if group in read.confidence:
                self.steps.setdefault(group, {}).setdefault(least, Counter())[read.confidence[group]] += 1
        if "rows" in read.confidence and (stated or truth.game != "keltis"):
            self.rows.setdefault(truth.game, Counter())[read.confidence["rows"]] += 1

    def fitted(self) -> str:
        """The ConfidenceModel these counts measure (shares named with at least 1 % of a class's named ones)."""
        if not self.n:
            return "None"
        elements = []
        for cls in sorted(self.n):
            named = self.named[cls] / self.n[cls]
            counts = self.shares.get(cls, Counter())
            total = sum(counts.values())
            pairs = ", ".join(f"({v:g}, {c / total:.2f})" for v, c in sorted(counts.items()) if c >= 0.01 * total)
            elements.append(f'        "{cls}": ShareDraw({named:.3f}, ({pairs}{"," if pairs.count("(") == 1 else ""})),'
                            f"   # {self.n[cls]}")
        others = ", ".join(f'"{g}": {c.most_common(1)[0][0]:g}' for g, c in sorted(self.others.items()))
        steps = []
        for group, by_least in sorted(self.steps.items()):
            # (the median group confidence at each least share seen on 1 % of frames or more)
            total = sum(sum(c.values()) for c in by_least.values())
            pairs = []
            for least, c in sorted(by_least.items()):
                if sum(c.values()) >= 0.01 * total:
                    values = sorted(c.elements())
                    pairs.append(f"({least:g}, {values[len(values) // 2]:g})")
            steps.append(f'"{group}": ({", ".join(pairs)})')
        rows = []
        for game, c in sorted(self.rows.items()):
            # (binned to 0.05; the bins holding 2 % of frames or more)
            bins: Counter = Counter()
            for v, k in c.items():
                bins[min(1.0, round(round(v / 0.05) * 0.05, 2))] += k
            total = sum(bins.values())
            pairs = ", ".join(f"({v:g}, {k / total:.2f})" for v, k in sorted(bins.items()) if k >= 0.02 * total)
            rows.append(f'"{game}": ({pairs})')
        return ("ConfidenceModel(\n    elements={\n" + "\n".join(elements) + "\n    },\n"
                f"    others={{{others}}},\n    group_steps={{\n        " + ",\n        ".join(steps) + "},\n"
                "    rows={\n        " + ",\n        ".join(rows) + "})")

    def lines(self) -> list[str]:
        out = []
        for cls in sorted(self.n):
            counts = self.shares.get(cls, Counter())
            top = ", ".join(f"{v:g}×{c}" for v, c in counts.most_common(4))
            out.append(f"{cls:28} {pct(self.named[cls], self.n[cls])} named{': ' + top if top else ''}")
        for group, by_least in sorted(self.steps.items()):
            parts = ", ".join(f"{least:g}→{c.most_common(1)[0][0]:g} ({sum(c.values())})"
                              for least, c in sorted(by_least.items()))
            out.append(f"{group} frame-wide by the least sure share: {parts}")
        for game, c in sorted(self.rows.items()):
            out.append(f"rows frame-wide ({game}): " + ", ".join(f"{v:g}×{k}" for v, k in c.most_common(6)))
        return out or ["(no confidences stated)"]


class TileCover:
    """Tile misreads by cover (issue 20 item 4; docs/tracking.md, session 18), per tile spot and still frame read: a
    tile under a pawn (a pawn on its stone in truth) or an open one, read as another tile or as none; an empty spot
    under a pawn read as a tile. A covered tile's "stay" is the spot with its tile and the pawns on it as they stand
    (tracking.noise decides a covered misread once per stay): the stays misread at all, and of those stays' still
    tables (truth states) the share misread, are what COVERED_TILE_PER_RATE and COVERED_TILE_TABLES model; held: of
    the covered misreads on a frame whose previous still frame read showed the same stay, the share read alike."""

    def __init__(self) -> None:
        self.n: Counter = Counter()
        self._stays: dict[Any, list[set]] = {}       # stay -> [its tables, tables misread, the codes misread as]
        self._sessions = 0

    def add_session(self, pairs: list[tuple[Any, Any]]) -> None:
        """(truth, reading) of each frame of one session, in order."""
        from tracking.noise import covered_spots, table_key

        self._sessions += 1
        last: dict[Any, Any] = {}       # stay -> the code read on the last still frame read
        for t, r in pairs:
            if not (t.usable and r.usable) or t.tiles is None:
                continue
            covered = covered_spots(t)
            read = r.tiles or {}
            seen: dict[Any, Any] = {}
            key = None
            for spot, code in t.tiles.items():
                got = read.get(spot)
                if code is None:
                    if spot in covered:
                        self.n["empty covered"] += 1
                        self.n["empty covered read as a tile"] += got is not None
                    continue
                cover = "covered" if spot in covered else "open"
                self.n[cover] += 1
                self.n[f"{cover} wrong"] += got is not None and got != code
                self.n[f"{cover} missed"] += got is None
                if cover == "covered":
                    key = table_key(t) if key is None else key
                    stay = (self._sessions, spot, code, covered[spot])
                    tables, misread, codes = self._stays.setdefault(stay, [set(), set(), set()])
                    tables.add(key)
                    if got != code:
                        misread.add(key)
                        codes.add(got)
                        if stay in last:
                            self.n["covered misread after the same stay"] += 1
                            self.n["covered misread held"] += last[stay] == got
                    seen[stay] = got
            last = seen

    def stays(self) -> dict[str, int]:
        """Stays, stays misread (at least once), their tables and tables misread, and stays read only as none."""
        hit = [v for v in self._stays.values() if v[1]]
        return {"stays": len(self._stays), "misread": len(hit), "tables": sum(len(v[0]) for v in hit),
                "tables misread": sum(len(v[1]) for v in hit), "as none": sum(v[2] == {None} for v in hit)}

    def lines(self) -> list[str]:
        n, st = self.n, self.stays()
        return [f"tile under a pawn read as another tile {pct(n['covered wrong'], n['covered'])} of spot-frames, "
                f"as none {pct(n['covered missed'], n['covered'])}; held "
                f"{pct(n['covered misread held'], n['covered misread after the same stay'])}",
                f"  stays (a tile under pawns as they stand) misread {pct(st['misread'], st['stays'])}, of their "
                f"tables {pct(st['tables misread'], st['tables'])}, read as none {pct(st['as none'], st['misread'])}",
                f"open tile read as another tile {pct(n['open wrong'], n['open'])}, as none "
                f"{pct(n['open missed'], n['open'])}; empty spot under a pawn read as a tile "
                f"{pct(n['empty covered read as a tile'], n['empty covered'])}"]


def injected_readings(folder: Path, rate: float, seed: int, noise_model: Any = None) -> list[tuple[Any, Any]]:
    """(truth, truth + injected misreads) of each frame, as `replay --observer truth --noise` reads them."""
    from tracking.noise import MisreadInjector

    truth = truth_readings(folder)
    injector = MisreadInjector(None, rate, seed, noise_model=noise_model)
    out = []
    for k, (i, t) in enumerate(truth):
        following = (obs for _, obs in truth[k + 1:] if obs.usable)
        out.append((t, injector.corrupt(t, i, lambda following=following: next(following, None))))
    return out


def print_profiles(vision: MisreadProfile, injected: MisreadProfile, noise: float) -> None:
    print(f"\nmisreads by kind ({vision.frames['still']} still frames, {vision.frames['arm']} with an arm over the "
          f"table): the vision reader | truth + injected at {noise:g}")
    print(f"  {'kind':34} {'vision':>18} {'held':>6} {'kept':>6} | {'injected':>18} {'held':>6} {'kept':>6}")
    order = ["judged-unusable", "  with a hand at a seat in play", "  with a hand where no one sits", "  with no hand",
             "any field misread"]
    kinds = set(vision.kinds) | set(injected.kinds)
    rest = sorted(k for k in kinds if k not in order and not k.startswith("hand") and k != "arm read as usable")
    tail = ["arm read as usable", "hand seat missed", "hand read at another seat", "hand seat added"]
    for kind in [k for k in order if k in kinds] + rest + [k for k in tail if k in kinds]:
        cells = []
        for p in (vision, injected):
            n, d = p.share(kind)
            held = f"{p.held[kind] / p.heldable[kind]:6.0%}" if p.heldable[kind] else "     –"
            kept = f"{p.kept[kind] / p.keepable[kind]:6.0%}" if p.keepable[kind] else "     –"
            cells.append(f"{pct(n, d):>18} {held} {kept}")
        print(f"  {kind:34} {cells[0]} | {cells[1]}")
    print("  (held: of the misreads on a frame whose previous frame showed the same still table, the share that "
          "frame made too; kept: of the misreads on the first frame of a new table, of a part the move left as it "
          "was, the share the last frame of the table before made too)")
    for name, p in (("vision", vision), ("injected", injected)):
        print(f"  tiles by cover, {name}:", *p.tiles.lines(), sep="\n    ")
    for name, p in (("vision", vision), ("injected", injected)):
        print(f"  confidences stated on still frames read, {name}:", *p.confidence.lines(), sep="\n    ")
        near = p.pawn_where
        print(f"  pawn misreads at the start or on the first row, {name}: {pct(near[True], near[True] + near[False])}")
        print(f"  pawns misread per pawn by place, {name}: " + ", ".join(
            f"{place} {pct(*nd)}" for place, nd in p.place_rates().items()))
    for name, p in (("vision", vision), ("injected", injected)):
        if p.arm["frames"]:
            parts = ", ".join(f"{k} {v}" for k, v in sorted(p.arm.items(), key=lambda kv: -kv[1]) if k != "frames")
            print(f"  arm frames read as usable, {name} ({p.arm['frames']}): {parts}")


def pct(a: int, b: int) -> str:
    return f"{a / b:7.1%} ({a}/{b})" if b else "      – (0/0)"


def fitted_model(vision: MisreadProfile, name: str = "FITTED_MODEL") -> str:
    """tracking/noise.py's NoiseModel as this profile measures it (to paste there when the reader changes)."""
    from tracking.noise import MISREADS

    n, d = vision.share("any field misread")
    if not n:
        return "(no field misread measured: nothing to fit)"
    rate = n / d
    lines = [f"# fitted on {vision.frames['still']} still and {vision.frames['arm']} arm frames: "
             f"field misreads on {rate:.1%} of still frames read (the rate the model is scaled to)",
             f"{name} = NoiseModel(", "    kinds={"]
    for kind in MISREADS:
        k, _ = vision.share(kind)
        if k:
            held = vision.held[kind] / vision.heldable[kind] if vision.heldable[kind] else 0.0
            # (of the frames where the kind can happen at all: pawns on a board, a points row in the card game)
            lines.append(f'        "{kind}": MisreadKind({k / vision.applicable[kind] / rate:.3f}, {held:.2f}),')
    lines.append("    },")
    held, kept = vision.held["any field misread"], vision.kept["any field misread"]
    over = 0.0
    if held and vision.keepable["any field misread"]:
        over = (kept / vision.keepable["any field misread"]) / (held / vision.heldable["any field misread"])
    st = vision.tiles.stays()
    ju, still = vision.share("judged-unusable")
    phantom = vision.kinds["  with a hand where no one sits"]
    arm, arms = vision.share("arm read as usable")
    f = vision.arm["frames"]
    lines.append(f"    covered_per_rate={st['misread'] / st['stays'] / rate if st['stays'] else 0:.3f},")
    lines.append(f"    covered_tables={st['tables misread'] / st['tables'] if st['tables'] else 0:.2f},")
    lines.append(f"    covered_none={st['as none'] / st['misread'] if st['misread'] else 0:.2f},")
    lines.append(f"    held_over_moves={min(1.0, over):.2f},")
    lines.append(f"    judged_unusable_per_rate={ju / still / rate if still else 0:.3f},")
    lines.append(f"    judged_unusable_phantom_hand={phantom / ju if ju else 0:.2f},")
    lines.append(f"    arm_usable_per_rate={arm / arms / rate if arms else 0:.3f},")
    lines.append(f"    arm_after_share={vision.arm['some fields as the table after'] / f if f else 0:.2f},")
    arm_kinds = [f'"{k}": {vision.arm[k] / f:.3f}' for k in MISREADS if f and vision.arm[k]]
    lines.append("    arm_misreads={" + ",\n                  ".join(", ".join(arm_kinds[i:i + 4])
                                                                 for i in range(0, len(arm_kinds), 4)) + "},")
    for field_name, kind in (("hand_missed_per_rate", "hand seat missed"),
                             ("hand_neighbour_per_rate", "hand read at another seat"),
                             ("hand_added_per_rate", "hand seat added")):
        k, arms = vision.share(kind)
        lines.append(f"    {field_name}={k / arms / rate if arms else 0:.3f},")
    conf = vision.confidence.fitted().replace("\n", "\n    ")
    lines.append(f"    confidence={conf},")
    lines.append(f"    arm_repeat={vision.arm['repeats the last reading'] / arm if arm else 0:.2f},")
    near = vision.pawn_where
    pawns = near[True] + near[False]
    lines.append(f"    pawn_path_share={near[False] / pawns if pawns else 0:.3f},")
    # (a pawn's odds by place: its per-pawn misread rate over the start crowd's; s29 uses these, not the share)
    places = vision.place_rates()
    crowd = places["start"][0] / places["start"][1] if places["start"][1] and places["start"][0] else 0.0
    odds = ", ".join(f'"{pl}": {(m / n / crowd) if n and crowd else 1.0:.1f}' for pl, (m, n) in places.items())
    lines.append(f"    # pawn_place_odds={{{odds}}}")
    lines.append(")")
    return "\n".join(lines)


def cached_vision_replay(folder: Path, fresh: bool) -> dict[str, Any]:
    """The camera path on one session (`replay --observer vision --check`, as bench/vision_retrack.py record runs
    it: the readings the tracker got are kept in SESSION/vision-gated.jsonl for `--noise vision` without the
    profile, and for vision_retrack), cached."""
    cache = folder / VISION_REPLAY_FILE
    if cache.is_file() and not fresh:
        return json.loads(cache.read_text())
    from vision_retrack import run as retrack

    try:
        result = retrack(folder, record=True)
    except Exception as exc:  # noqa: BLE001 — (counted as a game lost, as a replay printing no JSON is)
        return {"error": f"vision replay of {folder.name} failed: {type(exc).__name__}: {exc}"}
    cache.write_text(json.dumps(result))
    return result


def _game(args: Any, base: Path, i: int) -> tuple[str, int, int, Path, int]:
    """Game i's kind, players, seed, folder and injected breaks."""
    kind = args.kinds[i % len(args.kinds)]
    players = args.players[(i // len(args.kinds)) % len(args.players)]
    seed = args.seed0 + i
    illegal = 2 if i % 2 else 0
    folder = base / (f"{kind}-{players}p-{seed}" + (f"-{illegal}breaks" if illegal else "")
                     + (f"-stills{args.stills}" if args.stills else ""))
    return kind, players, seed, folder, illegal


def print_results(rows: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    for name, by_kind in rows.items():
        failed = sum(g.get("failed", False) for games in by_kind.values() for g in games)
        print(f"\n{name}:" + (f" ({failed} replays failed: counted as no turn exact, warned, final wrong)"
                               if failed else ""))
        print(f"  {'kind':6} {'visible turns exact':>22} {'legal games warned':>22} {'breaks flagged':>20} "
              f"{'visible breaks flagged':>22} {'final scores right':>22}")
        everything = [g for games in by_kind.values() for g in games]
        for kind, games in [*by_kind.items(), ("all", everything)]:
            legal = [g for g in games if not g["breaks"]]
            ended = [g for g in games if g["final"] is not None]
            print(f"  {kind:6} {pct(sum(g['exact'] for g in games), sum(g['true'] for g in games)):>22} "
                  f"{pct(sum(g['warned'] for g in legal), len(legal)):>22} "
                  f"{pct(sum(g['flagged'] for g in games), sum(g['breaks'] for g in games)):>20} "
                  f"{pct(sum(g.get('visible_flagged', 0) for g in games), sum(g.get('visible', 0) for g in games)):>22} "
                  f"{pct(sum(bool(g['final']) for g in ended), len(ended)):>22}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed0", type=int, default=70000)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4],
                        help="player counts, in turn over the games (per round of --kinds)")
    parser.add_argument("--max-moves", type=int, help="stop each game after this many moves (its scores then are those when filming stopped)")
    parser.add_argument("--noise", nargs="+", default=["vision"],
                        help="misread rates of the comparison replays: numbers, or 'vision' for the rate the "
                             "vision reader showed (its share of still frames with a field misread)")
    parser.add_argument("--noise-seeds", type=int, default=1,
                        help="replay each game this many times per rate, misread with seeds game seed + 1000 k "
                             "(the injected side's luck averaged out: a held misread weighs much in a short game)")
    parser.add_argument("--stills", metavar="WxH",
                        help="film each session as a live camera does: the video frames plus full-resolution stills "
                             "of this size that the vision replay reads when the table settles (e.g. 4608x2592, "
                             "a Camera Module 3); without it the reader reads the video frames")
    parser.add_argument("--keep", help="keep the rendered sessions in this folder (the vision readings and "
                                       "replays are cached there too)")
    parser.add_argument("--fresh", action="store_true", help="read and replay again even if a kept session has them")
    parser.add_argument("--no-profile", action="store_true",
                        help="skip the frame-by-frame misread comparison (--noise vision then takes the rate of the "
                             "readings the camera path's tracker got, behind the motion gate)")
    parser.add_argument("--noise-model", help="tracking.noise's model for the truth replays (default: its default)")
    parser.add_argument("--fit", action="store_true",
                        help="print tracking/noise.py's model constants as the vision reader's misreads measure them")
    parser.add_argument("--jobs", type=int, default=1,
                        help="camera-path replays in this many processes (sessions rendered first, one by one)")
    args = parser.parse_args(argv)

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="keltis-vision-games-"))
    games: list[tuple[str, Path, int, list[set[str]]]] = []
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    vision_profile = MisreadProfile()
    fresh = args.fresh
    if args.jobs > 1:
        # (rendered one by one, then the replays, each one process's work, side by side; the loop below then
        # reads their caches)
        folders = [_game(args, base, i)[3] for i in range(args.games)]
        for i, folder in enumerate(folders):
            if not ((folder / "frames.jsonl").is_file() and (folder / "truth" / "events.jsonl").is_file()):
                kind, players, seed, _f, illegal = _game(args, base, i)
                print(f"rendering game {i + 1}/{args.games}…", flush=True)
                render(kind, players, seed, illegal, args.max_moves, folder, args.stills)
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            for n, _r in enumerate(pool.map(cached_vision_replay, folders, [fresh] * len(folders)), 1):
                print(f"camera-path replays: {n}/{len(folders)}", flush=True)
        fresh = False
    for i in range(args.games):
        kind, players, seed, folder, illegal = _game(args, base, i)
        print(f"game {i + 1}/{args.games}: {kind}, {players} players, seed {seed}, {illegal} injected breaks: "
              "rendering…", end="", flush=True)
        # a kept session is reused only when whole (a run stopped mid-render leaves no events.jsonl)
        if not ((folder / "frames.jsonl").is_file() and (folder / "truth" / "events.jsonl").is_file()):
            render(kind, players, seed, illegal, args.max_moves, folder, args.stills)
        breaks = injected_codes(folder)
        games.append((kind, folder, seed, breaks))
        print(" replaying…", end="", flush=True)
        replayed = cached_vision_replay(folder, fresh)
        rows.setdefault("vision", {}).setdefault(kind, []).append(score_game(replayed, breaks, folder))
        got = rows["vision"][kind][-1]
        print(f" vision: {got['exact']}/{got['true']} turns exact", end="", flush=True)
        ppm = replayed.get("board_px_per_mm")
        if ppm:   # the registration the reader read with last: the board's px/mm (worst corner, centre)
            print(f", board {ppm['worst_corner']:.2f} px/mm (worst corner; centre {ppm['centre']:.2f})", end="",
                  flush=True)
        if not args.no_profile:
            print(" reading every frame…", end="", flush=True)
            truth = truth_readings(folder)
            readings = vision_readings(folder, args.fresh)
            vision_profile.add_session([(t, readings[i]) for i, t in truth])
        print(flush=True)

    measured = vision_profile.share("any field misread")
    if args.no_profile and "vision" in args.noise:
        # (the rate of the readings the tracker got, behind the motion gate: what tracking.noise is fitted to)
        from vision_retrack import vision_rate

        gated = vision_rate([folder for _, folder, _, _ in games])
        print(f"the camera path's readings misread {gated:.1%} of still frames (vision-gated.jsonl)")
    rates = []
    for r in args.noise:
        if r == "vision":
            rates.append(gated if args.no_profile else round(measured[0] / measured[1], 4) if measured[1] else 0.0)
        else:
            rates.append(float(r))
    for rate in rates:
        name = f"truth+{rate:g}" + (f" ({args.noise_seeds} misread seeds a game)" if args.noise_seeds > 1 else "")
        for kind, folder, seed, breaks in games:
            for k in range(args.noise_seeds):
                rows.setdefault(name, {}).setdefault(kind, []).append(
                    score_game(replay(folder, "truth", rate, seed + 1000 * k, args.noise_model), breaks, folder))
    print_results(rows)
    print("  targets (vision): >= 99 % turns exact, <= 2 % legal games warned, >= 98 % visible breaks flagged, "
          ">= 98 % final scores right")
    if not args.no_profile:
        for rate in rates:
            injected = MisreadProfile()
            for kind, folder, seed, breaks in games:
                injected.add_session(injected_readings(folder, rate, seed, args.noise_model))
            print_profiles(vision_profile, injected, rate)
        if args.fit:
            print("\nthe noise model as measured here (tracking/noise.py):")
            print(fitted_model(vision_profile))
    if not args.keep:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
