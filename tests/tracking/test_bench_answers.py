"""The bench's player at the table (bench/tracking_sessions.py answer_from_truth, --answer, session 34 wt34-dec4):
a question is answered only when the truth made that very pile change in the turns the question is about (the
readings' last few turns); an older change of the same card, or none, is dismissed ("don't know", session 35
wt35-neither; left standing before); a seat the question did not offer is answered too, and a refusal counted."""
from __future__ import annotations

import sys
from types import SimpleNamespace

from tracking.decoded import ImpossibleAnswer
from tracking_helpers import REPO

sys.path.insert(0, str(REPO / "bench"))
from tracking_sessions import QUESTION_TURNS, answer_from_truth, question_first_turn, true_pile_events  # noqa: E402


def ev(seat, frame, **move):
    return {"seat": seat, "frame": frame, "move": {"seat": seat, **move}}


#: south and north by turns: south discards the green 0 (turn 0), north takes it (turn 1), then discards and
#: draws from the draw pile until turn 9, where north discards the green 0 again
EVENTS = [ev("south", 1, move="discard", colour="green", value=0), ev("south", 1, move="draw", **{"from": "pile"}),
          ev("north", 2, move="discard", colour="red", value=5), ev("north", 2, move="draw", **{"from": "green"})]
EVENTS += [ev(("south", "north")[t % 2], t + 1, move="discard", colour="blue", value=t) for t in range(2, 9)]
EVENTS += [ev("north", 10, move="discard", colour="green", value=0)]


class Tracker:
    """What answer_from_truth uses of a GameTracker: its questions, its decoder's readings, correct()."""

    def __init__(self, questions, reading_turns, margin=2.0, impossible=()):
        beam = [SimpleNamespace(turns=(None,) * n, cost=cost) for n, cost in reading_turns]
        decoder = SimpleNamespace(beam=beam, config=SimpleNamespace(decoder_unclear_margin=margin))
        self.decoded = SimpleNamespace(questions=lambda: list(questions), decoder=decoder)
        self.corrected = []
        self.dismissed = []
        self.impossible = impossible

    def correct(self, what):
        if what["seat"] in self.impossible:
            raise ImpossibleAnswer("no reading", field="seat")
        self.corrected.append(what)

    def dismiss_question(self, what):
        self.dismissed.append(what)


def q(pile, card, kind="discard", seats=("north", "south")):
    return {"pile": pile, "card": card, "kind": kind, "seats": list(seats)}


def test_the_truths_pile_changes_are_numbered_by_turn_a_new_turn_at_each_other_seat():
    truth = true_pile_events({"events": EVENTS})
    assert truth[:3] == [(1, ("green", "0", "discard"), "south", 0), (2, ("red", "5", "discard"), "north", 1),
                         (2, ("green", "0", "draw"), "north", 1)]
    assert truth[-1] == (10, ("green", "0", "discard"), "north", 9)


def test_a_question_is_about_the_last_few_turns_of_the_shortest_close_reading():
    assert question_first_turn(Tracker([], [(8, 0.0), (7, 1.5), (3, 9.0)]).decoded.decoder) == 7 - QUESTION_TURNS
    assert question_first_turn(Tracker([], [(2, 0.0)]).decoded.decoder) == 0
    assert question_first_turn(Tracker([], []).decoded.decoder) == 0


def test_only_a_change_the_truth_made_in_the_questions_turns_is_answered():
    truth = true_pile_events({"events": EVENTS})
    # (at frame 8 the readings have 8 turns: the question is about turns 4..7; the green 0 went down in turn 0 only)
    tracker, answered = Tracker([q("green", 0), q("yellow", 3), q("blue", 6)], [(8, 0.0)]), set()
    assert answer_from_truth(tracker, truth, 8, answered) == (1, 2, 1, 0, 0)
    assert tracker.corrected == [{"kind": "discarded", "pile": "blue", "card": 6, "seat": "south"}]
    # (the two the player cannot answer are dismissed)
    assert tracker.dismissed == [{"pile": "green", "card": 0, "kind": "discard"},
                                 {"pile": "yellow", "card": 3, "kind": "discard"}]
    # (each question looked at once: asked on, it is not answered later)
    assert answer_from_truth(tracker, truth, 9, answered) == (0, 0, 0, 0, 0)
    # (the green 0 discarded again in turn 9: a question about it then names that turn's seat, not turn 0's)
    tracker = Tracker([q("green", 0)], [(10, 0.0)])
    assert answer_from_truth(tracker, truth, 10, set()) == (1, 0, 0, 0, 0)
    assert tracker.corrected[0]["seat"] == "north"


def test_a_draw_is_answered_in_its_turns_and_not_before_it_was_made():
    truth = true_pile_events({"events": EVENTS})
    tracker = Tracker([q("green", 0, "draw")], [(2, 0.0)])
    assert answer_from_truth(tracker, truth, 1, set()) == (0, 1, 0, 0, 0)
    assert answer_from_truth(tracker, truth, 2, set()) == (1, 0, 0, 0, 0)
    assert tracker.corrected == [{"kind": "took", "pile": "green", "card": 0, "seat": "north"}]


def test_a_seat_the_question_did_not_offer_is_answered_and_a_refusal_counted():
    truth = true_pile_events({"events": EVENTS})
    # (south discarded the blue 6 in turn 6; the question offers west and north)
    tracker = Tracker([q("blue", 6, seats=("north", "west"))], [(8, 0.0)])
    assert answer_from_truth(tracker, truth, 8, set()) == (0, 0, 0, 1, 0)
    assert tracker.corrected == [{"kind": "discarded", "pile": "blue", "card": 6, "seat": "south"}]
    tracker = Tracker([q("blue", 6, seats=("north", "west"))], [(8, 0.0)], impossible=("south",))
    assert answer_from_truth(tracker, truth, 8, set()) == (0, 0, 0, 0, 1)
    assert tracker.corrected == [] and tracker.dismissed == []   # (refused: the question stays)
