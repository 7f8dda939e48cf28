"""Replays of whole simulated games with no misreads, ended as `keltis-cam replay` ends them (by the
tracker's count of the draw pile): how many come out with every move right and no warning.

    .venv/bin/python bench/replay_end_check.py [--seed0 600] [--per-kind 4]

Both boards and the card game, 2–4 players, --per-kind seeds each (tests use seeds below 1000 too;
pick another --seed0 for an unseen sample). A card drawn from a discard pile onto its twin leaves no
trace and is counted as drawn from the draw pile, so the count runs out early: this shows whether
the last turns are then taken for plays after the end. Prints one line per game that is not clean
and the total.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.games import GAMES  # noqa: E402
from tracking.config import TrackingConfig  # noqa: E402
from tracking.check import compare_turns, signature_of_moves, signature_of_turn  # noqa: E402
from tracking.store import EventStore  # noqa: E402
from tracking.synth import simulate_game  # noqa: E402
from tracking.tracker import GameTracker  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed0", type=int, default=600)
    ap.add_argument("--per-kind", type=int, default=4)
    args = ap.parse_args(argv)
    total = clean = 0
    for kind, board in GAMES.tables():
        for players in (2, 3, 4):
            for seed in range(args.seed0, args.seed0 + args.per_kind):
                sim = simulate_game(kind, board, players, seed)
                tracker = GameTracker(EventStore(":memory:"), observer="truth",
                                      config=TrackingConfig(auto_end_on_empty_draw_pile=True))
                tracker.new_game(sim.setup)
                for i, (t, obs) in enumerate(sim.frames):
                    tracker.feed(obs, t, i)
                tracker.finish()
                true = [signature_of_moves(x.seat, x.moves, x.pile_tops, x.codes) for x in sim.turns]
                tracked = [signature_of_turn(tracker.decoded.model, x) for x in tracker.decoded.model.turns]
                check = compare_turns(true, tracked)
                snap = tracker.snapshot()
                ok = check["exact"] == check["true_turns"] and not snap["warnings"] and snap["game_over"]
                total += 1
                clean += ok
                if not ok:
                    codes = [w["code"] for w in snap["warnings"]]
                    print(f"{kind:11s} {board or '-':5s} {players}p seed {seed}: {check['exact']}/{check['true_turns']}"
                          f" moves exact, warnings {codes}, game over {snap['game_over']}")
    print(f"clean replays: {clean}/{total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
