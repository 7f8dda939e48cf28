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
