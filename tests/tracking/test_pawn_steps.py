"""A pawn the reader puts on another colour's path, frame after frame, while the card laid says which path it
stepped on (issue 17/20; docs/tracking.md "Session 23 (wt23-pawnsteps)"): the rules tie a step to the card
laid — one card, one step, onto a stone of its colour (RULES §1 Turn) — and the card rows are read far more
reliably than the pawns. The decoder prices a step no card of its stone's colour pays for as a rule break
(`TrackingConfig.decoder_step_colour`, the engine's wrong-colour) and reads a turn that laid a card while its
player's pawns read otherwise also with the step its card pays for made (`decoder_rule_steps`)."""
from __future__ import annotations

import dataclasses

from engine.observation import PawnObservation

from tracking_helpers import game, replayed_frames

#: the base board's first-row stones beside the start crowd
FIRST_ROW = ("b1", "g1", "p1", "r1", "y1")


def _as_the_vision_reader(obs, unsure: tuple[str, ...]):
    """A usable reading with the per-stone confidence the vision reader states (element_confidence): the
    first row less sure than other stones, the stones of the misread least (docs/camera-path.md, session 20)."""
    if not obs.usable:
        return obs
    stones = {s: 0.55 if s in unsure else 0.977 for s in FIRST_ROW}
    return dataclasses.replace(obs, confidence={**(obs.confidence or {}), "pawns": 0.55},
                               extra={**obs.extra, "element_confidence": {"pawns": {"others": 0.997,
                                                                                    "stones": stones}}})


def _pawn_read_on(obs, player: str, stone: str, there: str):
    """The reading with `player`'s pawn on `stone` read on `there` instead."""
    pawns = list(obs.pawns)
    i = next(k for k, p in enumerate(pawns) if p.player == player and p.stone == stone)
    pawns[i] = PawnObservation(stone=there, player=player, big=pawns[i].big)
    return dataclasses.replace(obs, pawns=tuple(pawns))


def test_a_pawn_read_on_another_colours_path_is_the_step_its_card_pays_for():
    """base, 3 players, seed 301: north (brown) lays a pink 6 and steps its big pawn from the start to p1
    (turn 1); the reader puts that pawn on b1 on every usable frame until north's next turn (turn 4, a green
    1 to g1). Every turn exact and no warning; without the two settings the pink 6 is read as a step onto the
    blue path (wrong-colour) and the pawn's return to p1 as another move."""
    sim = game("keltis", "base", 3, 301, max_moves=30, fps=1.0)
    assert sim.setup["seats"]["north"] == "brown"
    assert {"move": "lay", "seat": "north", "colour": "pink", "value": 6, "pawn": 0, "to": "p1"} in sim.turns[1].moves
    assert sim.turns[4].seat == "north"
    frames = []
    for j, (t, obs) in enumerate(sim.frames):
        if obs.usable and sim.turns[1].frame <= j < sim.turns[4].frame and any(
                p.player == "brown" and p.stone == "p1" for p in obs.pawns):
            obs = _pawn_read_on(obs, "brown", "p1", "b1")
        frames.append((t, _as_the_vision_reader(obs, ("b1", "p1"))))
    clean, clean_warnings = replayed_frames(sim, [(t, _as_the_vision_reader(o, ("b1", "p1"))) for t, o in sim.frames])
    assert not clean_warnings and clean["exact"] == clean["true_turns"]
    check, warnings = replayed_frames(sim, frames)
    assert not warnings, warnings
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]
    off, warnings_off = replayed_frames(sim, frames, decoder_step_colour=False, decoder_rule_steps=False)
    assert off["exact"] < off["true_turns"] and "wrong-colour" in warnings_off


def _brown_p1_read_on_y1(sim, until: int | None):
    """sim's frames with brown's big pawn on p1 read on y1 from north's turn 4 until turn `until` (None: the end,
    a real move then), with the vision reader's per-stone confidence."""
    end = sim.turns[until].frame if until is not None else len(sim.frames)
    frames = []
    for j, (t, obs) in enumerate(sim.frames):
        if obs.usable and sim.turns[4].frame <= j < end and any(
                p.player == "brown" and p.stone == "p1" and p.big for p in obs.pawns):
            obs = _pawn_read_on(obs, "brown", "p1", "y1")
        frames.append((t, _as_the_vision_reader(obs, ("p1", "y1"))))
    return frames


def test_a_pawn_read_off_its_path_is_a_misread_not_a_free_move():
    """base, 3 players, seed 301: north's big pawn stands on p1 (turn 1); from north's turn 4 (a green 1, a small
    pawn to g1) until turn 7 the reader puts it on y1 — a stone no forward step from p1 reaches. The decoder prices
    that move as the engine flags it (`decoder_pawn_rules`, pawn-not-adjacent): every turn exact, no warning.
    On main (no price) the reading won: 12/14 turns and two pawn-not-adjacent warnings; so it does with the
    setting off."""
    sim = game("keltis", "base", 3, 301, max_moves=30, fps=1.0)
    assert {"move": "lay", "seat": "north", "colour": "green", "value": 1, "pawn": 1, "to": "g1"} in sim.turns[4].moves
    frames = _brown_p1_read_on_y1(sim, 7)
    check, warnings = replayed_frames(sim, frames)
    assert not warnings, warnings
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]
    off, warnings_off = replayed_frames(sim, frames, decoder_pawn_rules=False)
    assert off["exact"] < off["true_turns"] and "pawn-not-adjacent" in warnings_off


def test_a_pawn_really_moved_off_its_path_stays_flagged():
    """The same pawn on y1 from turn 4 to the end (a real move, never read back): the engine's pawn-not-adjacent
    is still shown — the price makes the rule break cost what the engine says it is, it does not hide one."""
    sim = game("keltis", "base", 3, 301, max_moves=30, fps=1.0)
    _check, warnings = replayed_frames(sim, _brown_p1_read_on_y1(sim, None))
    assert "pawn-not-adjacent" in warnings, warnings
