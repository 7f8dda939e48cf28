"""Move inference between two accepted table states (issue 6, deliverable 2): compound turns, the
choice between explanations, and changes no legal turn explains. RULES.md sections in the names."""
from __future__ import annotations

import dataclasses

import pytest

from engine.setup import Setup
from tracking.games import GameRules
from tracking.inference import TopChange, TurnContext, classify_top, infer_moves
from tracking.model import TurnRecord, summarize

from tracking_helpers import game


def turn_states(sim, k):
    """(table before turn k, table after it) from a simulated game."""
    before = sim.frames[sim.turns[k - 1].frame][1] if k else sim.frames[0][1]
    return before, sim.frames[sim.turns[k].frame][1]


def find_turn(sims, predicate):
    for sim in sims:
        for k, turn in enumerate(sim.turns):
            if k and predicate(turn):
                return sim, k
    pytest.skip("no such turn in the sample games")


def explain(sim, k, **ctx):
    before, after = turn_states(sim, k)
    setup = Setup.from_json(sim.setup)
    rules = GameRules(setup)
    prev_seat = sim.turns[k - 1].seat
    context = TurnContext(prev_seat, before, (), True, **ctx)
    return infer_moves(before, after, context, rules, setup), rules


def summary_of(inf, rules, sim, k):
    seg = inf.segments[-1]
    rec = TurnRecord(1, seg.seat, seg.before, seg.after, seg.report, seg.tops, seg.skipped, seg.facts, seg.own,
                     False, "play", 0.0, 0.0, None)
    return summarize(rules, rec)


BOARD_GAMES = [game("keltis", board, players, seed) for board, players, seed in
               [("base", 3, 31), ("nwnz", 3, 32), ("base", 4, 33), ("nwnz", 2, 34)]]


def kinds(turn):
    return [m["move"] for m in turn.moves]


def test_plain_lay_who_what_where():
    sim, k = find_turn(BOARD_GAMES, lambda t: kinds(t) == ["lay", "draw"] and t.moves[0]["pawn"] is not None)
    inf, rules = explain(sim, k)
    assert [s.seat for s in inf.segments] == [sim.turns[k].seat]
    assert inf.violations == [] and inf.confidence == 1.0
    s = summary_of(inf, rules, sim, k)
    lay = sim.turns[k].moves[0]
    assert s["lays"] == [[lay["colour"], str(lay["value"])]]
    assert [st["to"] for st in s["steps"]] == [lay["to"]]
    assert s["steps"][0]["big"] == (lay["pawn"] == 0)


def test_clover_step_is_one_turn_RULES_1_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: "clover" in kinds(t) and not t.codes)
    inf, rules = explain(sim, k)
    assert len(inf.segments) == 1 and inf.violations == []
    s = summary_of(inf, rules, sim, k)
    assert any(st["paid"] == "clover" for st in s["steps"])
    clover = next(m for m in sim.turns[k].moves if m["move"] == "clover")
    assert clover["to"] in [st["to"] for st in s["steps"]]


def test_discard_a_card_tile_RULES_2_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: "tile-discard" in kinds(t) and not t.codes)
    inf, rules = explain(sim, k)
    assert len(inf.segments) == 1 and inf.violations == []
    seg = inf.segments[0]
    assert seg.facts.allowance == 2          # the tile allows the second card
    td = next(m for m in sim.turns[k].moves if m["move"] == "tile-discard")
    s = summary_of(inf, rules, sim, k)
    if td["from"] == "row":
        assert [td["colour"], str(td["value"])] in s["row_discards"]
    else:
        assert [td["colour"], str(td["value"])] in s["discards"]


def test_wish_stone_taken_RULES_1_2_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: not t.codes and any(
        m["move"] in ("lay", "clover") for m in t.moves) and _wish_gain(t, sim_of(t)))
    inf, rules = explain(sim, k)
    assert inf.violations == []
    assert summary_of(inf, rules, sim, k)["wish"]


def _wish_gain(turn, sim):
    k = sim.turns.index(turn)
    before, after = turn_states(sim, k)
    seat = turn.seat
    return sum(after.seats[seat].wish.values()) > sum(before.seats[seat].wish.values())


def test_wish_stone_not_taken_is_deferred_until_the_turn_closes():
    sim, k = find_turn(BOARD_GAMES, lambda t: not t.codes and _wish_gain(t, sim_of(t)))
    before, after = turn_states(sim, k)
    seat = sim.turns[k].seat
    # the pawn landed, but the stone was not taken (its seat's wish stones as before)
    left = dataclasses.replace(after, seats={**after.seats, seat: dataclasses.replace(
        after.seats[seat], wish=dict(before.seats[seat].wish))}, tiles=dict(after.tiles or {}))
    left = dataclasses.replace(left, tiles={**(left.tiles or {}), **{s: c for s, c in (before.tiles or {}).items()
                                                                    if (after.tiles or {}).get(s) != c}})
    setup = Setup.from_json(sim.setup)
    rules = GameRules(setup)
    inf = infer_moves(before, left, TurnContext(sim.turns[k - 1].seat, before, (), True), rules, setup)
    seg = inf.segments[-1]
    pending = [v.code for v in seg.report.violations]
    assert {"wish-not-taken", "tile-not-taken"} & set(pending)
    assert inf.violations == []              # not yet: the player may still take it


def sim_of(turn):
    return next(s for s in BOARD_GAMES if turn in s.turns)


def test_two_players_in_one_change_are_split_in_seat_order():
    sim = BOARD_GAMES[0]
    k = next(k for k in range(1, len(sim.turns) - 1)
             if kinds(sim.turns[k])[0] == "lay" and kinds(sim.turns[k + 1])[0] == "lay"
             and not sim.turns[k].codes and not sim.turns[k + 1].codes)
    before = sim.frames[sim.turns[k - 1].frame][1]
    after = sim.frames[sim.turns[k + 1].frame][1]
    setup = Setup.from_json(sim.setup)
    inf = infer_moves(before, after, TurnContext(sim.turns[k - 1].seat, before, (), True, split_cost=2),
                      GameRules(setup), setup)
    assert [s.seat for s in inf.segments] == [sim.turns[k].seat, sim.turns[k + 1].seat]
    assert inf.violations == []


def test_out_of_turn_when_a_seat_is_skipped_RULES_1_turn():
    sim = BOARD_GAMES[0]   # three players: south, west, north (some three seats)
    k = next(k for k in range(1, len(sim.turns)) if kinds(sim.turns[k])[0] == "lay" and not sim.turns[k].codes
             and not sim.turns[k].pile_tops)
    before, after = turn_states(sim, k)
    setup = Setup.from_json(sim.setup)
    order = setup.order
    actor = sim.turns[k].seat
    # pretend the turn before was played by the seat before the one who should have played now
    expected = order[(order.index(actor) - 1) % len(order)]
    previous = order[(order.index(expected) - 1) % len(order)]
    inf = infer_moves(before, after, TurnContext(previous, before, (), True), GameRules(setup), setup)
    codes = [v.code for v in inf.violations]
    assert codes == ["out-of-turn"]
    assert inf.violations[0].details["expected"] == expected


def test_none_fits_reports_the_change_and_the_violations():
    sim = BOARD_GAMES[0]
    before, after = turn_states(sim, 5)
    seat = next(s for s in before.seats if before.seats[s].rows)
    colour, row = next(iter(before.seats[seat].rows.items()))
    changed = dataclasses.replace(before, seats={**before.seats, seat: dataclasses.replace(
        before.seats[seat], rows={**before.seats[seat].rows, colour: ("0",) * (len(row) + 1) if row[0] != "0"
                                  else ("10",) * (len(row) + 1)})})
    setup = Setup.from_json(sim.setup)
    inf = infer_moves(before, changed, TurnContext(sim.turns[4].seat, before, (), True), GameRules(setup), setup)
    assert [v.code for v in inf.violations if v.code == "row-changed"]
    assert inf.segments[-1].seat == seat


def test_discard_or_draw_is_read_from_the_pile_history():
    assert classify_top("red", "7", "5", ("3", "5", "7")).kind == "draw"
    assert classify_top("red", "7", "9", ("3", "5", "7")).kind == "discard"
    assert classify_top("red", "7", None, ("7",)).kind == "draw"


def test_ambiguous_twin_card_prefers_the_legal_reading_and_says_so():
    """A pile showing its old top again: the open turn's player drew from it — or the next player
    discarded the twin card (every board-game card exists twice). The legal reading wins."""
    sim = BOARD_GAMES[0]
    before, _ = turn_states(sim, 3)
    setup = Setup.from_json(sim.setup)
    rules = GameRules(setup)
    order = setup.order
    pile = "red"
    t_nine = dataclasses.replace(before, discard_tops={**before.discard_tops, pile: "9"})
    t_four = dataclasses.replace(before, discard_tops={**before.discard_tops, pile: "4"})
    open_seat = sim.turns[2].seat
    nxt = order[(order.index(open_seat) + 1) % len(order)]
    # 1. The open turn discarded the 9 itself: drawing it back would break a rule (draw-own-discard),
    #    so the next player discarded a twin 4.
    ctx = TurnContext(open_seat, t_four, (TopChange(pile, "4", "9", "discard"),), True,
                      piles={pile: ("4", "9")}, pending_draws=1)
    inf = infer_moves(t_nine, t_four, ctx, rules, setup)
    assert [s.seat for s in inf.segments] == [nxt]
    assert inf.segments[0].tops[0].kind == "discard" and inf.violations == []
    assert any(open_seat in alt for alt in inf.alternatives)
    # 2. The open turn laid a card (the 9 was discarded earlier) and owes a draw: it drew the 9.
    k = next(k for k in range(1, len(sim.turns)) if sim.turns[k].moves[0]["move"] == "lay"
             and not sim.turns[k].pile_tops)
    base, played = turn_states(sim, k)
    open_seat = sim.turns[k].seat
    t_nine = dataclasses.replace(played, discard_tops={**played.discard_tops, pile: "9"})
    t_four = dataclasses.replace(played, discard_tops={**played.discard_tops, pile: "4"})
    base = dataclasses.replace(base, discard_tops={**base.discard_tops, pile: "9"})
    ctx2 = TurnContext(open_seat, base, (), True, piles={pile: ("4", "9")}, pending_draws=1)
    inf2 = infer_moves(t_nine, t_four, ctx2, rules, setup)
    assert [s.seat for s in inf2.segments] == [open_seat]
    assert inf2.segments[0].tops[0].kind == "draw" and inf2.violations == []


def test_card_game_pair_for_a_wish_card_RULES_3_turn():
    sims = [game("keltis-card", None, players, seed) for players, seed in [(2, 41), (3, 42)]]
    sim, k = find_turn(sims, lambda t: "discard-pair" in kinds(t) and not t.codes)
    inf, rules = explain(sim, k)
    assert inf.violations == [] and len(inf.segments) == 1
    s = summary_of(inf, rules, sim, k)
    assert s["wish_cards"] == [next(m["wish"] for m in sim.turns[k].moves if m["move"] == "discard-pair")]


def test_a_pair_of_one_colour_counts_as_two_cards_played_though_one_is_seen():
    """RULES §3 Turn (two cards of one value discarded take the wish card; then draw two): both
    cards of a pair of one colour go onto the same pile, the second hiding the first. The turn has
    played two cards — so its two draws are no "more cards drawn than played"."""
    sim = game("keltis-card", None, 2, 302)
    k = 85
    pair = sim.turns[k].moves[0]
    assert pair["move"] == "discard-pair" and pair["cards"] == ["blue 3", "blue 3"]
    inf, _ = explain(sim, k)
    seg = inf.segments[-1]
    assert seg.seat == sim.turns[k].seat and not inf.violations
    assert (seg.facts.discards, seg.facts.plays) == (2, 2)
