"""Rules-engine speed on one core: random full games per second and single steps per second.

    .venv/bin/python bench/engine_bench.py [--seconds 2] [--only SUBSTRING]

Every game module with the engine API (notes/ENGINE_API.md) is measured the same way: full
4-player seeded random games (`play_random_game`, with the module's default random policy), then
`legal_moves` and `apply_move` alone on the states and moves of recorded games, then the game's
`observed.check_change` on consecutive observed states of recorded games. Each figure is the
best of three rounds of process CPU time, because the machine is shared. A game module that does
not exist yet is listed as skipped.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import PLAYER_COLOURS, SEATS  # noqa: E402
from engine.games import GAMES as REGISTRY  # noqa: E402

FOUR_PLAYERS = dict(zip(SEATS, PLAYER_COLOURS))
#: (name, game module, board) of each game to measure; the card game has no board.
GAMES: list[tuple[str, str, str | None]] = [
    (f"{game} {board}" if board else game, REGISTRY.get(game).rules_module, board) for game, board in REGISTRY.tables()]

#: A benchmark runs its workload for about `seconds` and returns (operations, elapsed seconds).
Benchmark = Callable[[float], tuple[int, float]]


def _timed(step: Callable[[int], int], seconds: float) -> tuple[int, float]:
    """Call step(i) (which returns how many operations it did) until `seconds` of this process's CPU
    time have passed (CPU time, not wall time: other processes on a shared machine do not count)."""
    done, i = 0, 0
    start = time.process_time()
    while True:
        done += step(i)
        i += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done, elapsed


def game_benchmarks(name: str, module_name: str, board_name: str | None) -> list[tuple[str, str, Benchmark]]:
    """(label, unit, benchmark) triples for one game; raises ModuleNotFoundError if the module is missing."""
    module = importlib.import_module(module_name)
    board = None
    if board_name is not None:
        from engine.board import bundled_board
        board = bundled_board(board_name)
    settings = module.Settings()

    def full_games(seconds: float) -> tuple[int, float]:
        return _timed(lambda i: (module.play_random_game(FOUR_PLAYERS, settings, i, board=board), 1)[1], seconds)

    pairs: list = []

    def recorded() -> list:
        """States and moves of a few recorded games, made on first use. They are then frozen out of
        the garbage collector's sight: otherwise every collection walks these thousands of states and
        the figures measure the collector, not the engine."""
        if not pairs:
            for seed in range(1000, 1010):
                record = module.play_random_game(FOUR_PLAYERS, settings, seed, board=board)
                state = record.initial
                for move in record.moves:
                    pairs.append((state, move))
                    state = module.apply_move(state, move).state
            gc.collect()
            gc.freeze()
        return pairs

    def legal(seconds: float) -> tuple[int, float]:
        states = [s for s, _ in recorded()]

        def step(_: int) -> int:
            for s in states:
                module.legal_moves(s)
            return len(states)
        return _timed(step, seconds)

    def apply(seconds: float) -> tuple[int, float]:
        recorded()

        def step(_: int) -> int:
            for s, m in pairs:
                module.apply_move(s, m)
            return len(pairs)
        return _timed(step, seconds)

    changes: list = []

    def check(seconds: float) -> tuple[int, float]:
        """check_change on consecutive observed states of recorded games (what the tracker does per change)."""
        observed = importlib.import_module(module_name.rsplit(".", 1)[0] + ".observed")
        if not changes:
            for seed in range(1000, 1003):
                views = [module.observe(s) for s in module.play_random_game(FOUR_PLAYERS, settings, seed,
                                                                            board=board).states]
                changes.extend(zip(views, views[1:]))
            gc.collect()
            gc.freeze()

        def step(_: int) -> int:
            for before, after in changes:
                observed.check_change(before, after)
            return len(changes)
        return _timed(step, seconds)

    return [(f"{name}: full 4-player random games", "games/s", full_games),
            (f"{name}: legal_moves", "calls/s", legal),
            (f"{name}: apply_move", "moves/s", apply),
            (f"{name}: check_change", "checks/s", check)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per round (three rounds each)")
    parser.add_argument("--only", default="", help="run only benchmarks whose name contains this")
    args = parser.parse_args(argv)
    print(f"engine benchmarks: one core, best of 3 rounds of {args.seconds:g} s CPU time "
          f"(Python {sys.version.split()[0]})")
    for name, module_name, board in GAMES:
        if args.only and args.only not in name:
            continue
        try:
            benchmarks = game_benchmarks(name, module_name, board)
        except ModuleNotFoundError as exc:
            print(f"  {name:<44} skipped ({exc.name} not available)")
            continue
        for label, unit, bench in benchmarks:
            best = max(n / t for n, t in (bench(args.seconds) for _ in range(3)))
            print(f"  {label:<44} {best:>10,.0f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
