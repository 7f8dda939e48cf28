"""`keltis-cam demo`: play a seeded random game with a rules engine and print its story and scores.

Works with any game of the registry (engine/games.py) whose rules module has the engine API of
docs/engine-api.md: it plays with `play_random_game` (using the
module's DEMO_POLICY when it has one), then re-applies the recorded moves with `apply_move` to tell
the story turn by turn.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import sys
import textwrap
from typing import Any

from .cards import PLAYER_COLOURS, SEATS
from .games import GAMES, GameInfo, GameRegistry

#: Where N players sit (2 players face each other).
SEATING = {2: ("south", "north"), 3: ("south", "west", "north"), 4: SEATS}
WIDTH = 96


def default_seats(players: int) -> dict[str, str]:
    """Seat → player colour for a demo table of `players` (2–4) players."""
    if players not in SEATING:
        raise ValueError(f"Keltis is for 2 to 4 players, not {players}")
    return dict(zip(SEATING[players], PLAYER_COLOURS))


def _load_module(info: GameInfo):
    name = info.rules_module
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            return None
        raise


def _strip_subject(text: str, *names: str) -> str:
    """"black laid a blue 7" -> "laid a blue 7" (the turn line already names the player)."""
    for name in names:
        if name and text.startswith(name + " "):
            return text[len(name) + 1:]
    return text


def _collapse(texts: list[str]) -> list[str]:
    """Repeated sentences in a row once, with a count: "drew a card from the draw pile (twice)"."""
    out: list[str] = []
    counts: list[int] = []
    for text in texts:
        if out and out[-1] == text:
            counts[-1] += 1
        else:
            out.append(text)
            counts.append(1)
    return [t if n == 1 else f"{t} ({'twice' if n == 2 else f'{n} times'})" for t, n in zip(out, counts)]


def _settings_line(settings: Any) -> str:
    if not dataclasses.is_dataclass(settings):
        return "default rules"
    fields = dataclasses.asdict(settings)
    if not fields:
        return "default rules"
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in fields.items())


def run_demo(args: argparse.Namespace, games: GameRegistry = GAMES) -> int:
    """Play and print one seeded game of a game in `games`; returns the exit status."""
    game = getattr(args, "game", None) or games.default
    info = games.get(game, field="--game")
    players = int(getattr(args, "players", 3) or 3)
    seed = int(getattr(args, "seed", 1) or 0)
    as_json = bool(getattr(args, "json", False))
    module = _load_module(info)
    if module is None:
        print(f"keltis-cam demo: the {game} engine ({info.rules_module}) is not available in this build yet",
              file=sys.stderr)
        return 1
    board = None
    if info.has_board:
        from .board import load_board
        board = load_board(getattr(args, "board", None) or info.default_board)
    seats = default_seats(players)
    settings = module.Settings()
    record = module.play_random_game(seats, settings, seed, board=board, policy=getattr(module, "DEMO_POLICY", None))

    # Re-apply the log: the story of each move, grouped into turns (a turn = consecutive moves of a seat).
    state = record.initial
    turns: list[dict[str, Any]] = []
    all_events, all_violations, endings = [], [], []
    for move in record.moves:
        t = module.apply_move(state, move)
        if not turns or turns[-1]["seat"] != move.seat:
            turns.append({"seat": move.seat, "texts": [], "violations": []})
        for e in t.events:
            all_events.append(e)
            if e.seat is None:
                endings.append(e.text)
            else:
                turns[-1]["texts"].append(_strip_subject(e.text, seats.get(e.seat, ""), e.seat))
        turns[-1]["violations"].extend(t.violations)
        all_violations.extend((len(turns), v) for v in t.violations)
        state = t.state
    final = state
    sheet = module.score(final)

    if as_json:
        out = {"game": game, "board": board.name if board else None, "seed": seed, "seats": seats,
               "settings": dataclasses.asdict(settings) if dataclasses.is_dataclass(settings) else {},
               "moves": [m.to_json() for m in record.moves], "events": [e.to_json() for e in all_events],
               "violations": [v.to_json() for _, v in all_violations], "scores": sheet.to_json()}
        json.dump(out, sys.stdout, indent=1)
        print()
        return 0

    if board is None:
        title = info.title
    elif board.name == "base":
        title = f"{info.title} on the base board"
    else:
        title = f"{info.title} on the {board.title} board ({board.name})"
    print(f"{title}: {players} players, seed {seed}")
    print("Seats: " + ", ".join(f"{seat} {player}" for seat, player in seats.items()))
    print(f"Rules: {_settings_line(settings)}")
    if board is not None and board.reconstructed:
        print("Note: this board layout is a reconstruction (see the board file's notes).")
    print()
    print("Move history")
    name_width = max(len(p) for p in seats.values())
    for number, turn in enumerate(turns, start=1):
        player = seats.get(turn["seat"], turn["seat"])
        head = f"{number:4d}  {player:<{name_width}}  "
        body = "; ".join(_collapse(turn["texts"])) or "(nothing)"
        print(textwrap.fill(body, WIDTH, initial_indent=head, subsequent_indent=" " * len(head)))
        for v in turn["violations"]:
            print(" " * len(head) + f"!! {v.code}: {v.message}")
    print()
    for text in endings:
        print(text[0].upper() + text[1:] + f" (after {len(turns)} turns, {len(record.moves)} moves).")
    if all_violations:
        print(f"Rule checks: {len(all_violations)} violation(s):")
        for number, v in all_violations:
            print(f"  turn {number}: {v.code}: {v.message}")
    else:
        print(f"Rule checks: all {len(record.moves)} moves legal, no violations.")
    print()
    print("Final scores" if sheet.final else "Scores")
    ranked = sorted(sheet.scores.values(), key=lambda p: -p.total)
    for score in ranked:
        print(f"  {score.seat} ({score.player}): {score.total} points")
        for part in score.parts:
            print(f"      {part.points:+4d}  {part.label}")
    winners = [f"{sheet.scores[s].player} ({s})" for s in sheet.winners]
    best = sheet.scores[sheet.winners[0]].total if sheet.winners else 0
    if len(winners) == 1:
        print(f"\nWinner: {winners[0]} with {best} points.")
    else:
        print(f"\nWinners (a tie at {best} points): {', '.join(winners)}.")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m engine.demo`: the same as `keltis-cam demo`."""
    parser = argparse.ArgumentParser(prog="python -m engine.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES.ids(), default=GAMES.default)
    parser.add_argument("--board", default="nwnz")
    parser.add_argument("--players", type=int, default=3, choices=[2, 3, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    return run_demo(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
