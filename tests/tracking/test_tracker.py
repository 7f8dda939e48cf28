"""GameTracker: moves, warnings raised once, live scores and the end of the game (deliverables 2–4, 6)."""
from __future__ import annotations

import threading

import pytest

from engine.errors import MalformedInput
from tracking.check import compare_turns, signature_of_moves, signature_of_turn
from tracking.stability import changed_fields, fields_to_observation, observation_fields

from tracking_helpers import feed, game, make_tracker, replayed


def tracked_vs_true(tracker, sim):
    model = tracker.decoded.model
    true = [signature_of_moves(t.seat, t.moves, t.pile_tops, t.codes) for t in sim.turns]
    return compare_turns(true, [signature_of_turn(model, t) for t in model.turns])


@pytest.mark.parametrize("kind,board,players,seed", [
    ("keltis", "base", 3, 51), ("keltis", "nwnz", 4, 52), ("keltis-card", None, 2, 53)])
def test_clean_stream_moves_and_live_scores_match_the_engine(kind, board, players, seed):
    sim = game(kind, board, players, seed, max_moves=45)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim, finish=False)
    check = tracked_vs_true(tracker, sim)
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]
    snap = tracker.snapshot()
    assert snap["warnings"] == []
    # the score after every move is the engine's score after that turn (points tiles included)
    model = tracker.decoded.model
    visible = [t for t in sim.turns if t.pile_tops or any(m["move"] in ("lay", "clover", "discard-pair")
                                                           for m in t.moves)]
    tracked = [t for t in model.turns if not t.silent]
    assert [dict(t.totals) for t in tracked][-5:] == [t.totals for t in visible][-5:]
    assert {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.turns[-1].totals
    assert [h["move_id"] for h in snap["score_history"]] == list(range(len(model.turns) + 1))


def test_full_board_game_ends_with_final_scores_and_winners():
    sim = game("keltis", "nwnz", 2, 61)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    events = feed(tracker, sim)
    snap = tracker.snapshot()
    assert snap["game_over"] and snap["scores"]["final"]
    assert snap["end_reason"] in ("goal", "draw-pile")
    assert {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.final_totals
    assert snap["scores"]["winners"] == sim.winners
    assert [e for e in events if e.type == "game-over"][-1].data["winners"] == sim.winners
    assert snap["turn"] is None


def test_a_replay_ends_when_the_draw_pile_runs_out_even_if_a_draw_left_no_trace():
    """RULES §1 End (the game ends when the last card is drawn from the draw pile): in this game a
    player draws from a discard pile whose top's twin lay under it — no change to see — so the
    tracker counts that card as drawn from the draw pile, and its count runs out one turn early.
    The replay's end comes when the recording does: the last turns are no "play after the end"."""
    sim = game("keltis", "base", 2, 601)
    invisible = [k for k, t in enumerate(sim.turns)
                 if any(m["move"] == "draw" and m.get("from") not in (None, "pile")
                        and m["from"] not in {p for p, _, _ in t.pile_tops} for m in t.moves)]
    assert invisible  # (the case this test is about)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim)
    snap = tracker.snapshot()
    assert snap["warnings"] == []
    assert snap["game_over"] and snap["end_reason"] == "draw-pile"
    assert {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.final_totals


def test_a_card_game_replay_whose_count_ran_out_early_plays_on_when_a_card_is_drawn():
    """RULES §3 End (the last card drawn from the draw pile starts the last plays; nobody draws in
    them): draws that leave no trace make the tracker's count of the draw pile run out early; a card
    then drawn from a discard pile shows play goes on (GameModel._check_draw_pile_not_empty), so the
    real last plays are not taken for plays after the end."""
    sim = game("keltis-card", None, 2, 601)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim)
    snap = tracker.snapshot()
    assert snap["warnings"] == []
    assert tracker.decoded.model.draw_pile_found > 0   # (the count did run out early)
    assert snap["game_over"] and {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.final_totals
    true = [signature_of_moves(t.seat, t.moves, t.pile_tops, t.codes) for t in sim.turns]
    tracked = [signature_of_turn(tracker.decoded.model, t) for t in tracker.decoded.model.turns]
    check = compare_turns(true, tracked)
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="issue 17: decoder warns game-over on the traceless turn before an end "
                   "said on the page (being fixed)")
def test_a_turn_that_left_no_trace_before_the_players_said_the_game_ended_comes_before_the_end():
    """RULES §3 End (the player who draws the last card ends the game; the last plays follow): the
    last card is drawn in a turn whose card went onto its twin — no trace — and the players say so on
    the page a moment later. That hand was gone before they said it, so it is a turn before the end,
    not a pass in the last plays: its player's real last play is no play after the end."""
    sim = game("keltis-card", None, 3, 399)
    ender = next(t for t in sim.turns if t.frame == sim.end_frame)
    assert sim.end_reason == "draw-pile" and not ender.pile_tops   # (the last draw left no trace)
    tracker = make_tracker(auto_end_on_empty_draw_pile=False)
    tracker.new_game(sim.setup)
    declare_at = sim.frames[sim.end_frame][0] + 0.8
    for i, (t, obs) in enumerate(sim.frames):
        if declare_at is not None and t >= declare_at:
            tracker.correct({"kind": "end", "reason": "draw-pile"})
            declare_at = None
        tracker.feed(obs, t, i)
    tracker.finish()
    snap = tracker.snapshot()
    assert snap["warnings"] == []
    assert snap["game_over"] and {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.final_totals
    model = tracker.decoded.model
    before_end = [t for t in model.turns if t.phase == "play"]
    assert before_end[-1].seat == ender.seat and before_end[-1].silent
    true = [signature_of_moves(t.seat, t.moves, t.pile_tops, t.codes) for t in sim.turns]
    check = compare_turns(true, [signature_of_turn(model, t) for t in model.turns])
    assert check["exact"] == check["true_turns"], check["mismatches"][:2]


def test_card_game_end_cards_then_last_plays():
    sim = game("keltis-card", None, 3, 62)
    tracker, _ = replayed(sim)      # (test_decoded_tracker replays this game so too)
    snap = tracker.snapshot()
    assert snap["game_over"]
    assert {s: p["total"] for s, p in snap["scores"]["scores"].items()} == sim.final_totals
    assert snap["scores"]["winners"] == sim.winners


def test_illegal_move_warned_once_with_the_engine_code_and_kept():
    sim = game("keltis", "base", 3, 71, illegal_rate=0.3, max_moves=60)
    injected = [t.injected for t in sim.turns if t.injected]
    assert injected
    tracker, events = replayed(sim, finish=False)   # (test_decoded_tracker, test_misreads replay it so too)
    warnings = tracker.snapshot()["warnings"]
    codes = [w["code"] for w in warnings if not w["withdrawn"]]
    for code in set(injected):
        assert code in codes
    # each warning appears once in the history, and its live event came once (re-sends only update it)
    keys = [(w["move_id"], w["code"], w["seat"]) for w in warnings]
    assert len(keys) == len(set(keys))
    first = {}
    for e in events:
        if e.type == "warning":
            first.setdefault(e.data["id"], e.data)
    assert sorted(first) == [w["id"] for w in warnings]
    # the moves carry their violations and the engine's sentence
    moves = {m["id"]: m for m in tracker.snapshot()["moves"]}
    for w in warnings:
        if not w["withdrawn"]:
            assert not moves[w["move_id"]]["legal"]
            assert w["message"] in [v["message"] for v in moves[w["move_id"]]["violations"]]


def test_deferred_warning_comes_when_the_next_player_acts():
    """RULES §1 Tiles: a wish stone left on the board is known only once the turn is over; the warning
    comes once the decoder is sure of that turn, and it comes once (never withdrawn)."""
    from tracking.synth import simulate_game

    for seed in range(80, 120):
        sim = simulate_game("keltis", "base", 3, seed, illegal_rate=0.5, max_moves=40)
        hit = next((k for k, t in enumerate(sim.turns) if t.injected in ("tile-not-taken", "wish-not-taken")
                    and k + 2 < len(sim.turns)), None)
        if hit is not None:
            break
    else:
        pytest.skip("no wish stone left in the sample games")
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    code = sim.turns[hit].injected
    # up to the still table after the turn: no warning yet
    feed(tracker, sim, stop=sim.turns[hit].frame + 10, finish=False)
    assert code not in [w["code"] for w in tracker.snapshot()["warnings"]]
    # ... shown once the next players have acted
    later = sim.turns[hit + 2].frame + 5 if hit + 2 < len(sim.turns) else None
    events = feed(tracker, sim, start=sim.turns[hit].frame + 10, stop=later, finish=False)
    assert code in [w["code"] for w in tracker.snapshot()["warnings"]]
    sent = [e.data for e in events if e.type == "warning" and e.data["code"] == code]
    assert sent and not any(w["withdrawn"] for w in sent) and len({w["id"] for w in sent}) == 1


def test_snapshot_shape_is_the_contract():
    sim = game("keltis", "base", 2, 81, max_moves=10)
    tracker = make_tracker()
    tracker.new_game({**sim.setup, "names": {list(sim.setup["seats"])[0]: "Anna"}})
    feed(tracker, sim, finish=False)
    snap = tracker.snapshot()
    for key in ("event_id", "game", "turn", "game_over", "end_reason", "scores", "moves", "warnings",
                "score_history", "table", "status"):
        assert key in snap
    assert snap["game"]["observer"] == "truth" and snap["game"]["started"]
    assert {"id", "seat", "text", "legal", "violations", "t"} <= set(snap["moves"][0])
    assert "Anna" in " ".join(m["text"] for m in snap["moves"])
    assert snap["event_id"] == tracker.last_event_id > 0


def test_stored_frames_name_their_frame_once():
    """One spelling: each frame stored as the decoder's input carries its index as "frame" (as
    truth/events.jsonl does), every frame fed is stored once, in order."""
    sim = game("keltis", "base", 2, 81, max_moves=6)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim, finish=True)
    stored = [f for e in tracker.events(0) if e.type == "frames" for f in e.data["frames"]]
    assert stored and all("frame" in f and "frame_index" not in f for f in stored)
    assert [f["frame"] for f in stored] == list(range(len(sim.frames)))


def test_new_game_rejects_a_bad_setup():
    tracker = make_tracker()
    with pytest.raises(MalformedInput, match="seats"):
        tracker.new_game({"game": "keltis", "board": "base", "seats": {"south": "black"}})
    with pytest.raises(MalformedInput, match="board"):
        tracker.new_game({"game": "keltis", "board": "moon", "seats": {"south": "black", "north": "white"}})


def test_threads_feed_while_others_read_wait_and_correct():
    sim = game("keltis", "base", 3, 91, max_moves=30)
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    errors = []
    seen: list[list[int]] = [[], [], []]
    done = threading.Event()

    def reader(mine: list[int]):
        last = 0
        try:
            while not done.is_set():
                for e in tracker.wait(last, 0.05):
                    assert e.id > last
                    last = e.id
                    mine.append(e.id)
                snap = tracker.snapshot()
                assert snap["event_id"] >= 0
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader, args=(seen[k],)) for k in range(3)]
    for th in threads:
        th.start()
    feed(tracker, sim, finish=False)
    tracker.correct({"kind": "seats", "names": {list(sim.setup["seats"])[0]: "Bea"}})
    done.set()
    for th in threads:
        th.join(5)
    assert not errors
    for ids in seen:
        assert ids and ids == sorted(set(ids))  # every reader saw strictly increasing ids
    assert tracker.events(0)[-1].id == tracker.last_event_id


def test_a_recording_that_ends_soon_after_a_move_still_shows_that_move():
    """The first frame after the last hand misread the card just laid, the frames after it read it
    right, and the recording ends soon after (1.2 s after the hand left, before the player reached
    for a card): the card laid is the one the later frames show, taken when the recording ends
    (finish: nothing more will come) — its player's last card is scored, with no warning."""
    sim = game("keltis", "base", 2, 21, max_moves=12)
    last = max(k for k, t in enumerate(sim.turns) if any(m["move"] == "lay" for m in t.moves))
    turn = sim.turns[last]
    before = observation_fields(sim.frames[sim.turns[last - 1].frame][1])
    after = observation_fields(sim.frames[turn.frame][1])
    laid = next(k for k in changed_fields(before, after) if k[0] == "row")
    misread = dict(after)
    misread[laid] = after[laid][:-1] + ("9" if after[laid][-1] != "9" else "8",)
    end = next(i for i in range(turn.frame, len(sim.frames)) if not sim.frames[i][1].usable)
    frames = list(sim.frames[:end])
    frames[turn.frame] = (frames[turn.frame][0], fields_to_observation(misread, frames[turn.frame][1]))
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    for i, (t, obs) in enumerate(frames):
        tracker.feed(obs, t, i)

    def lays():
        return [signature_of_turn(tracker.decoded.model, t)["lays"] for t in tracker.decoded.model.turns]
    true_lay = signature_of_moves(turn.seat, turn.moves, turn.pile_tops, turn.codes)["lays"]
    tracker.finish()
    assert len(lays()) == last + 1 and lays()[last] == true_lay
    assert tracker.snapshot()["warnings"] == []


def test_a_pair_for_a_wish_card_then_two_cards_drawn_off_one_pile_is_legal():
    """RULES §3 Turn (two cards of one value discarded take the wish card; then draw two, from the
    draw pile and/or the tops of the discard piles): here both come off one discard pile — its top,
    then the card under it. The pile then shows the card two below its old top: no card discarded
    (which would make three cards played, with a 6 in a pair of 8s)."""
    sim = game("keltis-card", None, 2, 591)
    k = 78
    assert sim.turns[k].moves[0]["move"] == "discard-pair"
    assert [m.get("from") for m in sim.turns[k].moves[1:]] == ["blue", "blue"]
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    feed(tracker, sim, stop=sim.turns[k + 3].frame, finish=False)
    assert tracker.snapshot()["warnings"] == []
    model = tracker.decoded.model
    assert signature_of_turn(model, model.turns[k]) == signature_of_moves(
        sim.turns[k].seat, sim.turns[k].moves, sim.turns[k].pile_tops, sim.turns[k].codes)


def test_a_card_game_recording_that_stops_when_the_last_card_is_drawn_ends_the_game():
    """RULES §3 End (the last card drawn ends the game; the last plays follow): a recording that
    stops right after the draw pile ran out (by the tracker's count) holds no last plays: the
    replay ends the game there, with final scores — not "the last plays follow" forever."""
    sim = game("keltis-card", None, 2, 700)
    assert sim.end_reason == "draw-pile"
    tracker = make_tracker()
    tracker.new_game(sim.setup)
    for i, (t, obs) in enumerate(sim.frames[:sim.end_frame + 10]):
        tracker.feed(obs, t, i)
    assert tracker.decoded.model.phase == "play" and tracker.decoded.model.draw_pile_left() <= 0
    tracker.finish()
    snap = tracker.snapshot()
    assert snap["game_over"] and snap["scores"]["final"] and snap["warnings"] == []
