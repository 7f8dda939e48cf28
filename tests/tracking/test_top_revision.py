"""A discard's new card missed by the reader for its whole still moment, read right after the next player's
reach (session 37, wt37-warn; issue 17 item 3: no warning on legal games), through the public tracker API:
feed frames, read the moves and the warnings. decoder_revise_tops revises the discarding turn's reading of the
pile as a held misread; without it the card is the next player's second card ("two-cards") or a turn out of turn."""
from __future__ import annotations

import dataclasses

import pytest

from test_decoded_tracker import _replayed
from tracking_helpers import game


def _discard_missed_until_the_next_reach(kind, board, players, seed, k):
    """The game's frames with turn k's discard (onto a pile showing a card) read as an empty pile on every usable
    frame from the one that first shows it until the next seat's first hand frame."""
    sim = game(kind, board, players, seed, max_moves=40)
    turn, after = sim.turns[k], sim.turns[k + 1]
    assert [m["move"] for m in turn.moves] == ["discard", "draw"] and after.seat != turn.seat
    assert any(m["move"] == "lay" for m in after.moves)
    move = turn.moves[0]
    pile = move.get("colour") or move["card"].split(" ")[0]
    frames = list(sim.frames)
    was = frames[sim.turns[k - 1].frame][1].discard_tops.get(pile)
    assert was is not None
    j = next(j for j in range(sim.turns[k - 1].frame + 1, len(frames))
             if frames[j][1].usable and frames[j][1].discard_tops.get(pile) != was)
    missed = 0
    while not any(h.get("seat") == after.seat for h in frames[j][1].extra.get("hands") or []):
        t, obs = frames[j]
        if obs.usable:
            frames[j] = (t, dataclasses.replace(obs, discard_tops={**obs.discard_tops, pile: None}))
            missed += 1
        j += 1
    assert missed >= 10
    return sim, frames


CASES = [("keltis-card", None, 3, 305, 3), ("keltis", "base", 3, 301, 10)]


@pytest.mark.parametrize("case", CASES, ids=["card", "base"])
def test_a_discard_missed_until_the_next_reach_stays_with_its_player_and_warns_nothing(case):
    sim, frames = _discard_missed_until_the_next_reach(*case)
    check, warnings = _replayed(sim, frames)
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]
    assert [w for w in warnings if not w["withdrawn"]] == []


@pytest.mark.parametrize("case", CASES, ids=["card", "base"])
def test_without_the_top_revision_the_missed_discard_is_the_next_players_second_card(case):
    sim, frames = _discard_missed_until_the_next_reach(*case)
    check, warnings = _replayed(sim, frames, decoder_revise_tops=False)
    assert check["exact"] < check["true_turns"]
    assert "two-cards" in {w["code"] for w in warnings if not w["withdrawn"]}



# --- the first table's pawns (decoder_setup_pawns) --------------------------------------------------------------

def _start_pawn_read_on_the_board_until_the_first_reach(seed):
    """An nwnz game's frames with its first player's big pawn, on the start, read on the first stone of a path on
    every usable frame before the first hand comes over the table (the reader's held stone misread of a still table)."""
    from engine.observation import PawnObservation

    sim = game("keltis", "nwnz", 3, seed, max_moves=30)
    frames = list(sim.frames)
    owner = sim.setup["seats"][sim.turns[0].seat]
    misread = 0
    for j, (t, obs) in enumerate(frames):
        if not obs.usable:
            break
        pawns = [PawnObservation(stone="f1", player=p.player, big=True) if p.player == owner and p.big else p
                 for p in obs.pawns]
        frames[j] = (t, dataclasses.replace(obs, pawns=tuple(pawns)))
        misread += 1
    assert misread >= 3
    return sim, frames


@pytest.mark.parametrize("seed", [300, 301])
def test_a_start_pawn_misread_on_the_first_frames_is_a_misread_not_a_pawn_going_back(seed):
    """RULES (setup): before any card is laid every player's pawns stand on the start. The first frames read the
    first player's big pawn on f1 until the first reach, then right: the first table holds the pawns as set up, so
    the later reading is no pawn going back or changed — no warning, every move right (off: the first frame's reading
    is the table and the pawn's true moves are warned about)."""
    sim, frames = _start_pawn_read_on_the_board_until_the_first_reach(seed)
    check, warnings = _replayed(sim, frames)
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]
    assert [w for w in warnings if not w["withdrawn"]] == []
    check, warnings = _replayed(sim, frames, decoder_setup_pawns=False)
    assert [w for w in warnings if not w["withdrawn"]]     # (the first table's f1 read as where the pawn stood)
