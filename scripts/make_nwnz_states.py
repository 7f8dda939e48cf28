"""Writes the NWNZ example states fixtures/states/nwnz-before.json and nwnz-after-row-order.json.

Both are what a perfect camera sees (FORMATS §2, engine.boardgame.game.observe) of a seeded random
two-player game on the bundled NWNZ board (south black, west white): `before` is the first midgame
moment where south is to play, south's red row is 0, 8 (ascending) and south holds a red 2 that a
pawn could use to step onto a red or joker stone without a tile or pile; `after` is the same table once south has laid
that red 2 anyway (RULES §1 Card rows: it breaks the row order) and moved the pawn. README
"Command line" and tests/test_cli_engine.py use them:

    keltis-cam check fixtures/states/nwnz-before.json fixtures/states/nwnz-after-row-order.json
    # → VIOLATION row-order: red row is ascending (0, 8): a 2 cannot follow

Run: python scripts/make_nwnz_states.py [--out DIR] [--board FILE] [--seed N]
After a change of engine/boards/nwnz.json the seed may no longer hold such a moment: the script then
tries the next seeds and says which one it used (put it in SEED).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED = 610
SEATS = {"south": "black", "west": "white"}
ROW, CARD, FIRST_ID, LAST_ID = [0, 8], ("red", 2), 16, 80   # the red row, the card that breaks it, midgame


def find_moment(board, seed: int):
    """(state, lay move) of the first matching moment of the seeded game, or None."""
    from engine.boardgame import game
    from engine.boardgame.moves import LayCard
    from engine.cards import COLOURS

    red = COLOURS.index(CARD[0])
    record = game.play_random_game(SEATS, game.Settings(), seed, board=board)
    for t in record.transitions:
        state = t.state
        if (state.game_over or state.turn != "south" or state.phase != "play"
                or not FIRST_ID <= state.id <= LAST_ID or [c.value for c in state.rows[0][red]] != ROW):
            continue
        card = next((c for c in state.hand("south") if (c.colour, c.value) == CARD), None)
        tiles = state.tiles_on_board()
        steps = [(k, n) for k, stone in enumerate(state.pawn_stones("south")) for n in board.stones[stone].next
                 if board.stones[n].color in (CARD[0], "joker") and not tiles.get(n)
                 and not board.stones[n].wish_pile]   # a plain landing: nothing else happens this step
        if card is not None and steps:
            pawn, to = steps[0]
            return state, LayCard("south", card, pawn, to)
    return None


def dumps(obs: dict) -> str:
    """FORMATS §2 JSON, one pawn and one seat per line (short diffs, easy to read)."""
    lines = ["{"]
    items = list(obs.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key == "pawns":
            inner = ",\n".join(f"  {json.dumps(p)}" for p in value)
            lines.append(f' "pawns": [\n{inner}\n ]{comma}')
        elif key == "seats":
            inner = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f' "seats": {{\n{inner}\n }}{comma}')
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    return "\n".join(lines) + "\n}\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "fixtures" / "states")
    parser.add_argument("--board", default="nwnz", help="board name or file (default: the bundled nwnz)")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from engine.board import load_board
    from engine.boardgame import game

    board = load_board(args.board)
    for seed in range(args.seed, args.seed + 5000):
        found = find_moment(board, seed)
        if found:
            break
    else:
        raise SystemExit(f"no matching moment in seeds {args.seed}..{args.seed + 4999}")
    state, move = found
    after = game.apply_move(state, move)
    codes = [v.code for v in after.violations]
    if codes != ["row-order"]:
        raise SystemExit(f"seed {seed}: {move} breaks {codes}, not just the row order")
    before_obs, after_obs = game.observe(state).to_json(), game.observe(after.state).to_json()
    before_obs["board"] = after_obs["board"] = "nwnz"   # the observation names the bundled board
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "nwnz-before.json").write_text(dumps(before_obs), encoding="utf-8")
    (args.out / "nwnz-after-row-order.json").write_text(dumps(after_obs), encoding="utf-8")
    print(f"seed {seed}, state {state.id}: {move}; wrote nwnz-before.json and nwnz-after-row-order.json "
          f"to {args.out}")


if __name__ == "__main__":
    main()
