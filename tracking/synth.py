"""Simulated observation streams straight from the rules engines (no images): for tests and benches.

`simulate_game` plays a seeded game with the engine (both boards and the card game, 2–4 players),
optionally breaking a rule now and then with moves a real table can show, and records what a
perfect camera would see frame by frame: a hand over the table (unusable frames naming the
mover's seat, the "hands" extension) for 1–2 s per move, then the new table, still, for a few
seconds; sometimes a turn is seen in two parts (the card and pawn first, a card drawn from a
discard pile after a pause). `write_session` stores such a game as a recorded session (FORMATS §3)
with truth/ and truth/events.jsonl and tiny dummy JPEGs.

The truth per turn (`TrueTurn`) keeps the engine's moves, the rule codes it reported and the
engine's score after the turn, so a bench can say how much of it the tracker recovered, and for an
injected rule break whether a camera can see it at all (`judge_invisible`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from engine.cards import PLAYER_COLOURS, SEATS
from engine.games import GAMES
from engine.observation import Observation

#: Codes a camera can see when a move breaks them (hands, the draw pile and a card drawn back
#: from one's own discard are out of sight: those injections would test nothing).
VISIBLE_CODES = frozenset({
    "row-order", "wrong-colour", "end-stone-overflow", "two-steps", "second-pawn-on-path", "pawn-not-moved",
    "out-of-turn", "tile-not-taken", "wish-not-taken", "two-cards", "clover-not-used", "discard-tile-not-used",
    "row-changed", "game-over", "row-ended", "row-closed", "points-card-mismatch", "no-wish-card", "pair-mismatch",
})
# One tiny valid JPEG (8×8 grey): sessions for truth replays need frame files, not pictures.
TINY_JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b0c1912130f14"
    "1d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffc0000b080008000801011100"
    "ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000"
    "017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a2526272829"
    "2a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a929394"
    "95969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9"
    "eaf1f2f3f4f5f6f7f8f9faffda0008010100003f00fbfcffd9")


@dataclass
class TrueTurn:
    """One turn really played: who, the engine's moves (JSON), the codes broken, when it showed."""

    seat: str
    moves: list[dict[str, Any]]
    codes: list[str]
    injected: str | None = None          # the code an injected rule-breaking move must raise
    frame: int = 0                       # first frame showing the table after the turn
    t_still: float = 0.0                 # when the table became still after the turn
    totals: dict[str, int] = field(default_factory=dict)   # engine score after the turn
    pile_tops: list[tuple[str, str | None, str | None]] = field(default_factory=list)  # visible pile changes
    #: For an injected rule break a camera cannot see at all, why (see `judge_invisible`); else None.
    invisible: str | None = None


@dataclass
class SimulatedGame:
    """A whole simulated game: setup, frames (t, truth observation) and the true turns."""

    setup: dict[str, Any]
    seed: int
    frames: list[tuple[float, Observation]]
    turns: list[TrueTurn]
    final_totals: dict[str, int]
    winners: list[str]
    end_reason: str | None
    events: list[dict[str, Any]]         # truth/events.jsonl lines
    end_frame: int | None = None         # first frame after the move that ended the game

    def observations(self) -> Iterator[tuple[int, float, Observation]]:
        """(frame index, t, observation) in order."""
        for i, (t, obs) in enumerate(self.frames):
            yield i, t, obs


def _engine(game: str):
    return GAMES.get(game).rules()


def _seats(n: int, rng: random.Random) -> dict[str, str]:
    seats = list(SEATS) if n == 4 else sorted(rng.sample(list(SEATS), n), key=SEATS.index)
    colours = rng.sample(list(PLAYER_COLOURS), n)
    return {s: c for s, c in zip(seats, colours)}


def _probe_move(eng, state, seat):
    if hasattr(eng, "LayCard"):  # board game
        from engine.boardgame.rules import fits, lay_targets
        from engine.boardgame.state import COLOUR_INDEX, board_info

        info = board_info(state.board)
        i = state.seats.index(seat)
        for card in state.hands[i]:
            ci = COLOUR_INDEX[card.colour]
            if not fits(state.row_states[i][ci], card.value):
                continue
            for pawn, to in lay_targets(info, state.pawns[i], ci):
                return eng.LayCard(seat, card, pawn, to)
        raise LookupError("no lay")
    lays = [m for m in eng.legal_moves(_as_turn(eng, state, seat)) if type(m).__name__ == "Lay"]
    if not lays:
        raise LookupError("no lay")
    return lays[0]


def _as_turn(eng, state, seat):
    return eng.arrange(state, turn=seat, phase="play")


def _policy(game: str):
    eng = _engine(game)
    if GAMES.get(game).has_board:
        return eng.random_policy
    return getattr(eng, "sensible_policy", None) or getattr(eng, "laying_policy", None) or eng.uniform_policy


def simulate_game(game: str, board: str | None, players: int, seed: int, *, illegal_rate: float = 0.0,
                  fps: float = 5.0, hand_seconds: tuple[float, float] = (1.0, 2.0),
                  still_seconds: tuple[float, float] = (1.5, 4.0), split_rate: float = 0.1,
                  game_over_play: bool | None = None, max_moves: int | None = None) -> SimulatedGame:
    """Play and film one game (module docstring). illegal_rate: share of turns that start with a
    rule-breaking move (codes in VISIBLE_CODES); game_over_play: add a play after the end
    (default: when illegal_rate > 0)."""
    rng = random.Random(f"synth-{game}-{board}-{players}-{seed}")
    eng = _engine(game)
    seats = _seats(players, rng)
    info = GAMES.get(game)
    board_obj = None
    if info.has_board:
        from engine.board import bundled_board
        board_obj = bundled_board(board or info.default_board)
    state = eng.new_game(seats, None, seed, board=board_obj) if info.has_board else eng.new_game(seats, None, seed)
    policy = _policy(game)
    setup = {"game": game, "board": board if info.has_board else None, "seats": seats, "rules": {}}
    turns: list[TrueTurn] = []
    moves_log: list[tuple[Any, Any, Any, list[str]]] = []  # (move, state before, state after, codes)
    steps = 0
    extra_after_end = illegal_rate > 0 if game_over_play is None else game_over_play
    final_queue: tuple[str, ...] = ()   # card game: the last-play queue when the end was reached
    final_from: int | None = None       # ... and the index of the turn that reached it
    final_play = getattr(getattr(state, "settings", None), "final_play", "two-cards")
    while True:
        steps += 1
        if steps > 5000:
            raise RuntimeError(f"simulated game {game} seed {seed} does not end")
        if max_moves is not None and len(moves_log) >= max_moves and (
                not moves_log or state.turn != moves_log[-1][0].seat or state.game_over):
            break  # a short game for tests: stop at a turn boundary
        if state.game_over:
            if extra_after_end:
                extra_after_end = False
                bad = eng.random_illegal_move(state, rng)
                if bad is not None and bad[1] == "game-over":
                    t = eng.apply_move(state, bad[0])
                    moves_log.append((bad[0], state, t.state, [v.code for v in t.violations]))
                    _log_turn(turns, bad[0], [v.code for v in t.violations], "game-over", new_turn=True)
                    state = t.state
                    continue
            break
        move = None
        codes_expected = None
        at_turn_start = state.phase == "play"
        if illegal_rate and at_turn_start and rng.random() < illegal_rate:
            for _ in range(6):
                bad = eng.random_illegal_move(state, rng)
                if bad is None:
                    break
                cand, code = bad
                if code == "out-of-turn":
                    # The engine's out-of-turn move is a discard, which no camera can pin on a
                    # player: another seat lays a card instead.
                    lay = _other_seat_lay(eng, state, rng, turns[-1].seat if turns else None)
                    if lay is None:
                        continue
                    move, codes_expected = lay, code
                    break
                if code in VISIBLE_CODES and code != "game-over" and not (game == "keltis-card" and code == "wrong-colour"):
                    # (card game: an observed row holds values only, so a card in another colour's
                    # row cannot be seen in FORMATS §2; the board game's wrong colour is a pawn on
                    # the wrong path, which can)
                    move, codes_expected = cand, code
                    break
        if move is None:
            options = eng.legal_moves(state)
            if not options:
                break
            move = policy(state, options, rng)
        t = eng.apply_move(state, move)
        codes = [v.code for v in t.violations]
        if codes_expected is not None and codes_expected not in codes:
            codes_expected = None  # the engine judged it otherwise; do not count it as injected
        if codes_expected is not None and not _visible_break(eng, state, t.state, move, codes_expected):
            codes_expected = None  # nothing a camera can see (e.g. a pair discarded onto one pile)
        moves_log.append((move, state, t.state, codes))
        _log_turn(turns, move, codes, codes_expected)
        if getattr(t.state, "phase", None) == "final" and getattr(state, "phase", None) != "final":
            final_queue, final_from = tuple(t.state.final_queue), len(turns) - 1
        state = t.state
    final = eng.score(state)
    totals = {s: p.total for s, p in final.scores.items()}
    sim = SimulatedGame(setup, seed, [], turns, totals, list(final.winners), getattr(state, "end_reason", None),
                        [])
    _film(sim, eng, moves_log, rng, fps, hand_seconds, still_seconds, split_rate)
    judge_invisible(sim, final_queue, final_from, final_play)
    return sim


def judge_invisible(sim: SimulatedGame, final_queue: tuple[str, ...] = (), final_from: int | None = None,
                    final_play: str = "two-cards") -> None:
    """Mark the injected rule breaks that no camera can see (TrueTurn.invisible), from the truth:

    - "no trace": the rule-breaking turn changed nothing on the table (a card discarded onto its
      twin, a card drawn from the draw pile after the end, ...);
    - "first player chosen at the table": a play "out of turn" as the very first move, when the
      tracker was not told who starts (the setup's "first");
    - "same as a legal last play": card game, last plays — passing leaves no trace, so a play by a
      player who had passed (or who plays again) looks exactly like a legal last play when the
      plays seen, taken together per player across the passes, are in the order of the last-play
      queue, each within the cards a last play allows.
    Such breaks are counted apart by the bench: the ≥ 99 % target is for what a camera can see."""
    from .check import signature_of_moves, visible

    sigs = [signature_of_moves(t.seat, t.moves, t.pile_tops, t.codes) for t in sim.turns]
    for k, turn in enumerate(sim.turns):
        if not turn.injected:
            continue
        if not visible(sigs[k]):
            turn.invisible = "no trace"
        elif k == 0 and turn.injected == "out-of-turn" and not sim.setup.get("first"):
            turn.invisible = "first player chosen at the table"  # (the tracker is not told who starts)
        elif final_from is not None and k > final_from and turn.injected == "game-over":
            if _like_legal_last_plays(sim.turns[final_from + 1:k + 1], sigs[final_from + 1:k + 1], final_queue,
                                      2 if final_play == "two-cards" else 1):
                turn.invisible = "same as a legal last play"


def _like_legal_last_plays(turns: list[TrueTurn], sigs: list[dict[str, Any]], queue: tuple[str, ...],
                           allowance: int) -> bool:
    seen: list[list[Any]] = []   # [seat, cards laid] per run of a player's visible plays
    for turn, sig in zip(turns, sigs):
        if not any(sig[key] for key in ("lays", "steps", "row_discards", "piles", "wish_cards")):
            continue                       # a pass, or nothing to see
        if sig["piles"] or sig["wish_cards"]:
            return False                   # a discard in the last plays shows
        if seen and seen[-1][0] == turn.seat:
            seen[-1][1] += len(sig["lays"])
        else:
            seen.append([turn.seat, len(sig["lays"])])
    position = -1
    for seat, cards in seen:
        if seat not in queue or queue.index(seat) <= position or cards > allowance:
            return False
        position = queue.index(seat)
    return True


def _other_seat_lay(eng, state, rng, previous: str | None = None):
    """A lay that fits the row, by a seat whose turn it is not — nor the seat that just played (the
    same player playing again is, on the table, a second card: "two-cards")."""
    seats = list(getattr(state, "seats", None) or state.order)
    others = [s for s in seats if s not in (state.turn, previous)]
    rng.shuffle(others)
    for other in others:
        try:
            move = _probe_move(eng, state, other)
            eng.apply_move(state, move)
            return move
        except Exception:  # noqa: BLE001
            continue
    return None


def _visible_break(eng, before, after, move, code: str) -> bool:
    """Can a camera see this rule-breaking move at all?"""
    b, a = eng.observe(before), eng.observe(after)
    if b.to_json() == a.to_json():
        return False
    if code == "two-steps" and getattr(move, "to", None) is not None and b.tiles:
        # Passing over a clover, two stones are a card and a clover step: legal on the table.
        board = before.board
        i = before.seats.index(move.seat)
        src = before.pawns[i][move.pawn]
        between = [n for n in board.stones[src].next if board.steps(n, move.to) is not None]
        if any(b.tiles.get(n) == "clover" for n in between):
            return False
    if code in ("no-wish-card", "pair-mismatch") and hasattr(move, "cards"):
        changed = [p for p in a.discard_tops if a.discard_tops.get(p) != b.discard_tops.get(p)]
        return len(changed) >= 2  # both cards of the pair must show, on two piles
    return True


def _log_turn(turns: list[TrueTurn], move, codes: list[str], injected: str | None, new_turn: bool = False) -> None:
    if not turns or turns[-1].seat != move.seat or new_turn:
        turns.append(TrueTurn(move.seat, [], []))
    turn = turns[-1]
    turn.moves.append(move.to_json())
    turn.codes.extend(c for c in codes if c not in turn.codes)
    if injected and not turn.injected:
        turn.injected = injected


def _film(sim: SimulatedGame, eng, moves, rng: random.Random, fps: float, hand_seconds, still_seconds,
          split_rate: float) -> None:
    """Film the game as the simulator does (simulator/record.py): every engine move is one reach over
    the table — a pause, a hand for `hand_seconds`, the table changed when the hand withdraws; a
    card drawn from the draw pile is a reach that changes nothing visible. The pause before a move
    is `still_seconds` when another player takes over, shorter (0.3–1.2 s) within a turn, and now
    and then (split_rate) a longer one inside a turn, as when a player stops to think."""
    dt = 1.0 / fps
    t = 0.0
    frames = sim.frames
    if not moves:
        return
    game, board = sim.setup["game"], sim.setup["board"]
    # A reaching arm crosses the table edge at its player's seat: the camera sees whose hand it is
    # (the "hands" extension of FORMATS §2, docs/formats-extensions.md).
    hands = {seat: Observation(game, board, False, "occluded", extra={"hands": [{"seat": seat}]})
             for seat in sim.setup["seats"]}

    def add(obs: Observation, seconds: float) -> int:
        nonlocal t
        first = len(frames)
        end = t + seconds
        while t < end - 1e-9 or len(frames) == first:
            frames.append((round(t, 4), obs))
            t += dt
        return first

    shown = eng.observe(moves[0][1])
    add(shown, 2.0)
    move_to_turn: list[int] = []
    for turn_index, turn in enumerate(sim.turns):
        move_to_turn.extend([turn_index] * len(turn.moves))
    last_visible: dict[int, tuple[int, float]] = {}
    last_seat = None
    for k, (move, before, after, codes) in enumerate(moves):
        if k:  # the pause before this move (the table as the previous move left it)
            pause = rng.uniform(*still_seconds) if move.seat != last_seat else (
                rng.uniform(1.0, 2.5) if rng.random() < split_rate else rng.uniform(0.3, 1.2))
            add(shown, pause)
        last_seat = move.seat
        if type(move).__name__ != "Pass":  # passing (card game's last plays) touches nothing
            add(hands[move.seat], max(2 * dt, rng.uniform(*hand_seconds)))
        if sim.end_frame is None and (after.game_over and not before.game_over or (
                getattr(after, "phase", None) == "final" and getattr(before, "phase", None) != "final")):
            sim.end_frame = len(frames)  # (the end reached: the card game's last plays come after it)
        new = eng.observe(after)
        first_frame, t_still = len(frames), t
        changed = new.to_json() != shown.to_json()
        shown = new
        turn_index = move_to_turn[k]
        if changed or turn_index not in last_visible:
            last_visible[turn_index] = (first_frame, t_still)
        sim.events.append({"seq": k, "seat": move.seat, "move": move.to_json(), "frame": first_frame,
                           "t": round(t_still, 3), "violations": codes})
        frames.append((round(t, 4), shown))  # the first still frame after the reach
        t += dt
        if k + 1 >= len(moves) or move_to_turn[k + 1] != turn_index:
            turn = sim.turns[turn_index]
            turn.frame, turn.t_still = last_visible[turn_index]
            turn.totals = {s: p.total for s, p in eng.score(after).scores.items()}
            start = moves[k - len(turn.moves) + 1][1]
            b_obs, a_obs = eng.observe(start), eng.observe(after)
            turn.pile_tops = [(p, b_obs.discard_tops.get(p), a_obs.discard_tops.get(p))
                              for p in sorted(set(b_obs.discard_tops) | set(a_obs.discard_tops))
                              if b_obs.discard_tops.get(p) != a_obs.discard_tops.get(p)]
    add(shown, 3.0)


def write_session(sim: SimulatedGame, folder: str | Path, *, overwrite: bool = True) -> Path:
    """Store a simulated game as a recorded session: truth/ per frame, truth/events.jsonl, dummy JPEGs."""
    from camera.session import SessionInfo, SessionWriter

    info = SessionInfo(game=sim.setup["game"], board=sim.setup["board"], seats=dict(sim.setup["seats"]),
                       rules=dict(sim.setup.get("rules") or {}), source="simulator",
                       extra={"generator": "tracking.synth", "seed": sim.seed})
    folder = Path(folder)
    with SessionWriter(folder, info, overwrite=overwrite) as writer:
        for _, t, obs in sim.observations():
            writer.add_frame(TINY_JPEG, t, truth=obs.to_json())
        for event in sim.events:
            writer.add_event(event)
        writer.add_event({"final": {"totals": sim.final_totals, "winners": sim.winners,
                                    "end_reason": sim.end_reason}})
    return folder


def game_matrix(count: int, seed0: int) -> list[tuple[str, str | None, int, int]]:
    """`count` (game, board, players, seed) combinations cycling through every table of the registry
    (each board of the board game, the card game) and 2–4 players."""
    kinds = GAMES.tables()
    out = []
    for i in range(count):
        game, board = kinds[i % len(kinds)]
        players = 2 + (i // len(kinds)) % 3
        out.append((game, board, players, seed0 + i))
    return out
