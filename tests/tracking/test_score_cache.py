"""GameTracker._scores_json: the page's score scored again only when what it scores changed (session 37, wt37-tspeed)."""
from types import SimpleNamespace

from engine.observation import Observation, SeatObservation
from tracking.tracker import GameTracker


class _Model:
    """What _scores_json reads of a GameModel, counting the scorings."""

    def __init__(self, table, points, phase="play"):
        self.rules = "rules"
        self.table, self._points, self.phase, self.scored = table, points, phase, 0

    def points(self):
        return dict(self._points)

    def score_sheet(self):
        self.scored += 1
        return SimpleNamespace(to_json=lambda: {"n": self.scored, "wish": self.table.seats["south"].extra})


def _table(face_down=0, wish=None):
    seat = SeatObservation("red", wish=dict(wish or {}), extra={"wish_face_down": face_down} if face_down else {})
    return Observation("keltis", "nwnz", seats={"south": seat})


def test_the_score_is_kept_while_what_it_scores_is_the_same_and_scored_again_when_any_of_it_changes():
    tracker = SimpleNamespace(_score_cache=None)
    score = GameTracker._scores_json.__get__(tracker)
    model = _Model(_table(), {"south": 0})
    first = score(model)
    assert model.scored == 1
    model.table = _table()              # (another object, equal: the same score)
    assert score(model) is first and model.scored == 1
    # a seat's extras (face-down wish stones) are no part of an observation's equality, but the score reads them
    model.table = _table(face_down=2)
    assert model.table == _table()
    assert score(model) == {"n": 2, "wish": {"wish_face_down": 2}} and model.scored == 2
    model._points = {"south": 3}        # points tiles
    assert score(model)["n"] == 3
    model.phase = "over"                # the final sheet
    assert score(model)["n"] == 4
    model.table = _table(face_down=2, wish={"red": 1})
    assert score(model)["n"] == 5
    assert score(model)["n"] == 5
    model.table = None
    assert score(model) is None
