"""What a turn did, read through the public tracker API (issue 6, deliverable 2; issue 17: the
decoder's turns, judged by the engine): compound turns, turns merged between two readings, rule
breaks only a history sees, changes no legal turn explains. RULES.md sections in the names."""
from __future__ import annotations

import dataclasses

import pytest

from engine.observation import Observation
from tracking.inference import TopChange
from tracking.check import signature_of_moves, signature_of_turn
from tracking.model import summarize

from tracking_helpers import game, make_tracker

HAND = Observation("keltis", "base", False, "occluded")


def find_turn(sims, predicate):
    for sim in sims:
        for k, turn in enumerate(sim.turns):
            if k and predicate(turn):
                return sim, k
    pytest.skip("no such turn in the sample games")


def tracked(sim, k):
    """Feed `sim` until two turns after turn k; (tracker, turn k as tracked), checked to be turn k."""
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    stop = sim.turns[k + 2].frame + 5 if k + 2 < len(sim.turns) else len(sim.frames)
    for i, (t, obs) in enumerate(sim.frames[:stop]):
        tracker.feed(obs, t, i)
    model = tracker.decoded.model
    turn = sim.turns[k]
    assert signature_of_turn(model, model.turns[k]) == signature_of_moves(turn.seat, turn.moves, turn.pile_tops,
                                                                          turn.codes)
    return tracker, model.turns[k]


def summary(tracker, rec):
    return summarize(tracker.decoded.model.rules, rec)


BOARD_GAMES = [game("keltis", board, players, seed) for board, players, seed in
               [("base", 3, 31), ("nwnz", 3, 32), ("base", 4, 33), ("nwnz", 2, 34)]]


def kinds(turn):
    return [m["move"] for m in turn.moves]


def test_plain_lay_who_what_where():
    sim, k = find_turn(BOARD_GAMES, lambda t: kinds(t) == ["lay", "draw"] and t.moves[0]["pawn"] is not None)
    tracker, rec = tracked(sim, k)
    assert rec.seat == sim.turns[k].seat and rec.violations() == []
    s = summary(tracker, rec)
    lay = sim.turns[k].moves[0]
    assert s["lays"] == [[lay["colour"], str(lay["value"])]]
    assert [st["to"] for st in s["steps"]] == [lay["to"]]
    assert s["steps"][0]["big"] == (lay["pawn"] == 0)


def test_clover_step_is_one_turn_RULES_1_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: "clover" in kinds(t) and not t.codes)
    tracker, rec = tracked(sim, k)
    assert rec.violations() == []
    s = summary(tracker, rec)
    assert any(st["paid"] == "clover" for st in s["steps"])
    clover = next(m for m in sim.turns[k].moves if m["move"] == "clover")
    assert clover["to"] in [st["to"] for st in s["steps"]]


def test_discard_a_card_tile_RULES_2_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: "tile-discard" in kinds(t) and not t.codes)
    tracker, rec = tracked(sim, k)
    assert rec.violations() == [] and rec.facts.allowance == 2   # the tile allows the second card
    td = next(m for m in sim.turns[k].moves if m["move"] == "tile-discard")
    s = summary(tracker, rec)
    if td["from"] == "row":
        assert [td["colour"], str(td["value"])] in s["row_discards"]
    else:
        assert [td["colour"], str(td["value"])] in s["discards"]


def _wish_gain(turn):
    sim = next(s for s in BOARD_GAMES if turn in s.turns)
    k = sim.turns.index(turn)
    before = sim.frames[sim.turns[k - 1].frame][1]
    after = sim.frames[turn.frame][1]
    return sum(after.seats[turn.seat].wish.values()) > sum(before.seats[turn.seat].wish.values())


def test_wish_stone_taken_RULES_1_2_tiles():
    sim, k = find_turn(BOARD_GAMES, lambda t: not t.codes and any(
        m["move"] in ("lay", "clover") for m in t.moves) and _wish_gain(t))
    tracker, rec = tracked(sim, k)
    assert rec.violations() == [] and summary(tracker, rec)["wish"]


def test_wish_stone_not_taken_is_deferred_until_the_turn_closes():
    """RULES §1 Tiles: the pawn landed but the stone was not taken (yet): no warning while the turn
    may go on (the player may still take it)."""
    sim, k = find_turn(BOARD_GAMES, lambda t: not t.codes and _wish_gain(t))
    before, after = sim.frames[sim.turns[k - 1].frame][1], sim.frames[sim.turns[k].frame][1]
    seat = sim.turns[k].seat
    left = dataclasses.replace(after, seats={**after.seats, seat: dataclasses.replace(
        after.seats[seat], wish=dict(before.seats[seat].wish))},
        tiles={**(after.tiles or {}), **{s: c for s, c in (before.tiles or {}).items()
                                         if (after.tiles or {}).get(s) != c}})
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    end = sim.turns[k - 1].frame + 5
    for i, (t, obs) in enumerate(sim.frames[:end]):
        tracker.feed(obs, t, i)
    t0 = sim.frames[end - 1][0]
    for j, obs in enumerate([HAND] * 5 + [left] * 10):
        tracker.feed(obs, t0 + (j + 1) / 5, end + j)
    model = tracker.decoded.model
    rec = model.turns[-1]
    assert rec.seat == seat and rec.open
    pending = {v.code for v in rec.report.violations}
    assert {"wish-not-taken", "tile-not-taken"} & pending     # known ...
    assert rec.violations() == [] and tracker.snapshot()["warnings"] == []   # ... but not a warning yet


def test_two_players_in_one_change_are_split_in_seat_order():
    """Two turns fall between two readings (a slow camera): two moves, in seat order, no warning."""
    sim = BOARD_GAMES[0]
    k = next(k for k in range(1, len(sim.turns) - 1)
             if kinds(sim.turns[k])[0] == "lay" and kinds(sim.turns[k + 1])[0] == "lay"
             and not sim.turns[k].codes and not sim.turns[k + 1].codes)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    end = sim.turns[k - 1].frame + 5
    for i, (t, obs) in enumerate(sim.frames[:end]):
        tracker.feed(obs, t, i)
    t0 = sim.frames[end - 1][0]
    after = sim.frames[sim.turns[k + 1].frame][1]
    for j, obs in enumerate([HAND] * 5 + [after] * 10):
        tracker.feed(obs, t0 + (j + 1) / 5, end + j)
    model = tracker.decoded.model
    assert [t.seat for t in model.turns[k:]] == [sim.turns[k].seat, sim.turns[k + 1].seat]
    assert tracker.snapshot()["warnings"] == []


def _twin_scene(nine_by_open_seat: bool):
    """A 3-player base game (west, north, east): west discards a red 4; the red 9 goes onto it —
    discarded by east itself (north discards a yellow 2 before), or by north with east then laying a
    card (a green 0, its pawn onto g1, a clover step to g2); then, hands reading no seat, the red pile
    shows the 4 again. (frames, the tracker fed them, the seats in order)."""
    sim = game("keltis", "base", 3, 31)
    start = sim.frames[0][1]
    west, north, east = sim.turns[0].seat, sim.turns[1].seat, sim.turns[2].seat
    after_east = sim.frames[sim.turns[2].frame][1]          # (north's pink lay undone: east's lay alone)
    north_player = start.seats[north].player
    east_laid = dataclasses.replace(
        after_east, seats={**after_east.seats, north: start.seats[north]},
        pawns=tuple(s if p.player == north_player else p for s, p in zip(start.pawns, after_east.pawns)))

    def tops(base=start, **tops):
        return dataclasses.replace(base, discard_tops={**base.discard_tops, **tops})

    def hand(seat):
        hands = [] if seat is None else [{"seat": seat}]
        return Observation("keltis", "base", False, "occluded", extra={"hands": hands})

    frames = [start] * 6 + [hand(west)] * 4 + [tops(red="4")] * 6 + [hand(north)] * 4
    if nine_by_open_seat:
        frames += ([tops(red="4", yellow="2")] * 6 + [hand(east)] * 4 + [tops(red="9", yellow="2")] * 6
                   + [hand(None)] * 4 + [tops(red="4", yellow="2")] * 8)
    else:
        frames += ([tops(red="9")] * 6 + [hand(east)] * 4 + [tops(east_laid, red="9")] * 6
                   + [hand(None)] * 4 + [tops(east_laid, red="4")] * 8)
    tracker = make_tracker()
    tracker.new_game({**sim.setup, "first": west})
    for i, obs in enumerate(frames):
        tracker.feed(obs, i / 5, i)
    tracker.finish()
    return tracker, (west, north, east)


@pytest.mark.parametrize("nine_by_open_seat", [
    pytest.param(True, id="the-open-turn-discarded-the-9", marks=pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason="issue 17: decoder reads east drawing back the red 9 it discarded this turn (warns "
               "'draw-own-discard' on a legal game), not west discarding the twin red 4")),
    pytest.param(False, id="the-open-turn-laid-a-card"),
])
def test_ambiguous_twin_card_prefers_the_legal_reading_and_says_so(nine_by_open_seat):
    """A pile showing its old top again (RULES §1 Components: every board-game card exists twice): the
    open turn's player drew the top — or the next player discarded the twin card. The legal reading
    wins. East discarded the 9 itself: drawing it back breaks RULES §1 Turn 2 (not the card you
    discarded this turn), so west discarded a twin 4. East laid a card and owes a draw (the 9 was
    north's): east drew the 9. (The old inference also said so — listed the other reading; the
    decoder's turns carry no alternative, so that half is not asserted here.)"""
    tracker, (west, north, east) = _twin_scene(nine_by_open_seat)
    turns = tracker.decoded.model.turns
    if nine_by_open_seat:
        assert [t.seat for t in turns] == [west, north, east, west]
        assert turns[2].tops == (TopChange("red", "4", "9", "discard"),)
        assert turns[3].tops == (TopChange("red", "9", "4", "discard"),)
    else:
        assert [t.seat for t in turns] == [west, north, east]
        assert turns[2].tops == (TopChange("red", "9", "4", "draw"),)
    assert tracker.snapshot()["warnings"] == []


def test_out_of_turn_RULES_1_turn():
    """A player who plays when it is another's turn is warned, naming whose turn it was; the next
    player is not."""
    for seed in range(70, 90):
        sim = game("keltis", "base", 3, seed, illegal_rate=0.3, max_moves=40)
        k = next((k for k, t in enumerate(sim.turns) if t.injected == "out-of-turn" and t.moves
                  and t.moves[0]["move"] == "lay"), None)
        if k is not None:
            break
    else:
        pytest.skip("no turn out of turn in the sample games")
    tracker, rec = tracked(sim, k)
    assert [v.code for v in rec.violations()] == ["out-of-turn"]
    warned = [w for w in tracker.snapshot()["warnings"] if w["code"] == "out-of-turn" and w["move_id"] == rec.move_id]
    assert warned and warned[0]["details"]["expected"] == rec.own[0].details["expected"] != rec.seat
    # ... and whoever goes on after it (the player skipped, or the one after the player out of turn)
    # is not out of turn in their turn
    nxt = tracker.decoded.model.turns[k + 1]
    assert nxt.seat == sim.turns[k + 1].seat and "out-of-turn" not in [v.code for v in nxt.violations()]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="issue 17: decoder reads a row rewritten after a hand (10 frames, then the end) as a "
                          "misread that holds (decoder_misread_held = 1.0 makes holding free), not as a move "
                          "breaking a rule (being fixed)")
def test_none_fits_reports_the_change_and_the_violations():
    """A row rewritten (no turn does that): a move of the row's owner, warned "row-changed"."""
    sim = BOARD_GAMES[0]
    before = sim.frames[sim.turns[4].frame][1]
    seat = next(s for s in before.seats if before.seats[s].rows)
    colour, row = next(iter(before.seats[seat].rows.items()))
    changed = dataclasses.replace(before, seats={**before.seats, seat: dataclasses.replace(
        before.seats[seat], rows={**before.seats[seat].rows, colour: ("0",) * (len(row) + 1) if row[0] != "0"
                                  else ("10",) * (len(row) + 1)})})
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    end = sim.turns[4].frame + 5
    for i, (t, obs) in enumerate(sim.frames[:end]):
        tracker.feed(obs, t, i)
    t0 = sim.frames[end - 1][0]
    for j, obs in enumerate([HAND] * 5 + [changed] * 10):
        tracker.feed(obs, t0 + (j + 1) / 5, end + j)
    tracker.finish()
    rec = tracker.decoded.model.turns[-1]
    assert rec.seat == seat and "row-changed" in [v.code for v in rec.violations()]
    assert "row-changed" in [w["code"] for w in tracker.snapshot()["warnings"]]


def test_card_game_pair_for_a_wish_card_RULES_3_turn():
    sims = [game("keltis-card", None, players, seed) for players, seed in [(2, 41), (3, 42)]]
    sim, k = find_turn(sims, lambda t: "discard-pair" in kinds(t) and not t.codes)
    tracker, rec = tracked(sim, k)
    assert rec.violations() == []
    assert summary(tracker, rec)["wish_cards"] == [next(m["wish"] for m in sim.turns[k].moves
                                                        if m["move"] == "discard-pair")]


def test_a_pair_of_one_colour_counts_as_two_cards_played_though_one_is_seen():
    """RULES §3 Turn (two cards of one value discarded take the wish card; then draw two): both
    cards of a pair of one colour go onto the same pile, the second hiding the first. The turn has
    played two cards — so its two draws are no "more cards drawn than played"."""
    sim = game("keltis-card", None, 2, 302)
    k = 85
    pair = sim.turns[k].moves[0]
    assert pair["move"] == "discard-pair" and pair["cards"] == ["blue 3", "blue 3"]
    _, rec = tracked(sim, k)
    assert rec.seat == sim.turns[k].seat and not rec.violations()
    assert (rec.facts.discards, rec.facts.plays) == (2, 2)
