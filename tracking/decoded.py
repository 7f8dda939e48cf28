"""The decoder's reading of a game, judged by the rules engine (issue 17): moves, warnings, scores, end.

tracking.decoder.TurnDecoder decides *who did what* (the likeliest turns given every frame);
DecodedGame folds those turns, one whole turn at a time, into a tracking.model.GameModel, whose
engine check of each turn gives its warnings (rule breaks are turns the engine judges), whose
score sheet gives the scores and whose phase gives the game's end. The fold keeps a checkpoint
after every turn, so when the decoder's best reading changes (a later frame overturns a turn)
only the turns from the first one that changed are judged again.
"""
from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from engine.games import GAMES, GameRegistry
from engine.observation import Observation, parse_observation
from engine.setup import Setup

from .config import TrackingConfig
from .decoder import _GONE, Turn, TurnDecoder, gc_paused
from .inference import TopChange
from .model import CorrectionError, GameModel, Input
from .stability import Fields, changed_fields, fields_to_observation, observation_fields

#: Corrections that say what the table shows (evidence for the decoder: its tables take them).
TABLE_KINDS = ("pawn", "row", "tile", "wish", "discard")


@dataclass(frozen=True)
class _Covered:
    """A frame in which the table could not be read (a hand over it, `hands` naming seats or not)."""

    extra: Mapping[str, Any] = field(default_factory=dict)
    usable: bool = False
    confidence: Mapping[str, Any] = field(default_factory=dict)


def frame_json(obs: Observation, t: float, frame: int | None, last_raw: dict[str, Any] | None) -> dict[str, Any]:
    """A frame as the decoder's input, stored compactly (a usable frame reading as the last one: "same")."""
    out: dict[str, Any] = {"frame": frame, "t": round(float(t), 4)}
    if obs.usable:
        raw = obs.to_json()
        if raw == last_raw:
            out["same"] = 1
        else:
            out["raw"] = raw
    else:
        hands = obs.extra.get("hands") if obs.extra else None
        if isinstance(hands, list):
            out["hands"] = hands
    return out


class StaleQuestion(LookupError):
    """An answer or a dismiss naming a question that is not open (any more): 409, naming the field."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


class ImpossibleAnswer(ValueError):
    """An answer naming a seat no reading the decoder holds lets have made the change asked about: 409."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


class DecodedGame:
    """Frames in (feed), the decoder's best reading out as a GameModel (`model`)."""

    def __init__(self, setup: Setup, config: TrackingConfig | None = None, games: GameRegistry = GAMES):
        self.setup = setup
        self.config = config or TrackingConfig()
        self.games = games
        self._template: Observation | None = None
        self._models: list[GameModel] = [GameModel(setup, self.config, games)]  # [i]: after i turns
        self.decoder = self._new_decoder()
        self._tables: list[Fields] = []                                       # [i]: table after i turns
        self._folded: list[tuple[Turn, tuple]] = []                           # the turns folded, in order
        #: corrections from the page: (the decoder's frame when made, the correction, field changes it made)
        self._corrections: list[tuple[int, dict[str, Any], dict]] = []
        self._places: list[int] = []          # ... each after how many turns it is folded
        self._final = self._models[0]         # the game after every turn and correction
        self._undone: tuple | None = None     # the reading before the last undo (keep() puts it back)
        self.frames_taken: list[int] = []     # indexes of the usable frames fed
        self.last_raw: dict[str, Any] | None = None
        self._last_obs: Observation | None = None
        #: the first table's tiles the checkpoint after no turn was built with (a Hypothesis.first), and the
        #: setup, time and frame of that first table (it is built again when the best reading revises them)
        self._first: tuple = ()
        self._setup0 = setup
        self._first_at: tuple[float, int | None] = (0.0, None)

    def _new_decoder(self) -> TurnDecoder:
        """A decoder for this game's setup (its seats, turn order and board: the Board its rules loaded), with
        no frame yet."""
        s = self.setup
        return TurnDecoder({"seats": dict(s.seats), "game": s.game, "first": s.first,
                            "board": self._models[0].rules.board}, self.config)

    @property
    def inputs(self) -> list[Input]:
        """The usable frames taken, as the journal's "state" inputs (keltis_cam.pipeline.last_frame_taken)."""
        return [Input(None, "state", {"frame": f}) for f in self.frames_taken]

    @property
    def settled(self) -> int:
        """How many of model.turns are sure: committed (older than the decoder's lag, or the stream
        ended), or read alike by every reading within decoder_sure_margin of the best (the last,
        still open turn excepted)."""
        beam = self.decoder.beam
        if not beam:
            return 0
        best = beam[0]
        sure = len(best.turns) - 1
        for hyp in beam[1:]:
            if hyp.cost - best.cost > self.config.decoder_sure_margin:
                break
            k = min(sure, len(hyp.turns))
            while k > 0 and hyp.turns[:k] != best.turns[:k]:   # (readings differ in their last turns)
                k -= 1
            sure = k
        return min(len(self.model.turns), max(sure, self.committed))

    def feed_json(self, frame: Mapping[str, Any]) -> bool:
        """feed() of a frame stored by frame_json (resume after a restart)."""
        if frame.get("same") and self._last_obs is not None:
            obs: Any = self._last_obs
        elif "raw" in frame:
            obs = parse_observation(frame["raw"], source=f"stored frame {frame.get('frame')}")
        else:
            obs = _Covered({"hands": frame["hands"]} if isinstance(frame.get("hands"), list) else {})
        return self.feed(obs, float(frame.get("t") or 0.0), frame.get("frame"))

    @property
    def model(self) -> GameModel:
        """The game as read now: every turn of the decoder's best reading, judged, corrections applied."""
        return self._final

    @property
    def committed(self) -> int:
        """How many of model.turns are committed (older than the decoder's lag, or the stream ended)."""
        return min(len(self.decoder.committed), len(self.model.turns))

    def feed(self, obs: Observation, t: float, frame: int | None) -> bool:
        """One frame (usable or a hand frame); True when the reading of the game changed."""
        # (the cyclic collector paused for a usable frame's decoding and the fold after it, as the decoder
        # pauses it for its search: TrackingConfig.decoder_gc_pause)
        with gc_paused(obs.usable and self.config.decoder_gc_pause):
            return self._feed(obs, t, frame)

    def _feed(self, obs: Observation, t: float, frame: int | None) -> bool:
        self.decoder.feed(obs, frame, t)
        if obs.usable:
            if isinstance(frame, int):
                self.frames_taken.append(frame)
            if obs is not self._last_obs:
                self._last_obs = obs
                self.last_raw = obs.to_json()
        if obs.usable and self._template is None and self.decoder.start is not None:
            self._template = obs
            self._first_at = (t, frame)
            self._models[0].accept(fields_to_observation(self.decoder.start, obs), t, frame)
            self._tables = [dict(self.decoder.start)]
            if self._models[0].table is None:   # a first table no game can show: wait for a better one
                self.decoder = self._new_decoder()
                self._template = None
                return False
            self._places = [0] * len(self._corrections)
            self._final, _ = self._corrected(0)
            return True
        changed = self.refresh()
        # (the draw pile empty by the best reading's count: no turn owes a draw — RULES §3 End, the last
        # plays draw nothing — so none is priced as hidden from the camera nor read as never made)
        self.decoder.draws_over = self._final.phase != "play" or self._final.draw_pile_left() <= 0
        return changed

    def finish(self) -> bool:
        """The stream ended: every turn is committed."""
        self.decoder.finish()
        return self.refresh()

    def refresh(self, force: bool = False) -> bool:
        """Fold the decoder's best reading again from the first turn (or correction) that moved."""
        if self._template is None or self._models[0].table is None or not self.decoder.beam:
            return False
        best = self.decoder.beam[0]
        turns = best.turns
        if best.first != self._first and self._restart(best):
            force = True
        # (the turns folded before are mostly the very objects of this reading: those are skipped at
        # C speed, the rest compared as turns and their deltas)
        n = min(len(turns), len(self._folded))
        moved = list(map(operator.is_not, map(operator.itemgetter(0), self._folded[:n]), turns[:n]))
        same = moved.index(True) if True in moved else n
        while (same < n and self._folded[same][0] == turns[same]
               and self._folded[same][1] == turns[same].delta):
            same += 1
        # A correction comes after the turns begun before it was made (its frame), before the others.
        starts = [turn.start for turn in turns] if self._corrections else []
        places = [bisect.bisect_right(starts, frame) for frame, _c, _ch in self._corrections]
        for old, new in zip(self._places, places):
            if old != new:
                same = min(same, old, new)
        if same == len(turns) == len(self._folded) and not force and places == self._places:
            return False
        self._places = places
        self._fold(same, best)
        for _ in range(3):
            # the card game's count of the draw pile ran out a turn early (GameModel._check_count_early,
            # seen in this fold, not before it): the game as read with one card more in the draw pile
            # from before the first turn of the last plays, folded again from there
            early = self._final.count_early_at
            if early is None or early >= len(self._models) or self._models[same].count_early_at is not None:
                break
            model = self._models[early].clone()
            model.draw_pile_found += 1
            self._models[early] = model
            same = min(same, early)
            self._fold(early, best)
        return True

    def _restart(self, best: Any) -> bool:
        """The best reading revised the first table's tiles (TurnDecoder._first_tiles_read: a tile read
        otherwise at first): the game starts again from the table it holds, every turn judged again from
        there (no move, no warning of its own). False (nothing changed) when no game can show that table."""
        table = self.decoder.first_table(best)
        model = GameModel(self._setup0, self.config, self.games)
        model.accept(fields_to_observation(table, self._template), *self._first_at)
        if model.table is None:
            return False
        self._models = [model]
        self._tables = [table]
        self._folded = []
        self._first = best.first
        return True

    def _fold(self, same: int, best: Any) -> None:
        """The turns of the reading `best` from the `same`-th on judged again (the checkpoints before kept)."""
        turns = best.turns
        del self._models[same + 1:], self._tables[same + 1:], self._folded[same:]
        for i in range(same, len(turns)):
            turn = turns[i]
            model, table = self._corrected(i)
            for key, value in turn.delta:
                if value == _GONE:
                    table.pop(key, None)
                else:
                    table[key] = value
            frame = best.turn_frames[i] if i < len(best.turn_frames) else None
            t = self.decoder.times.get(frame, model.last_t or 0.0) if frame is not None else 0.0
            model.apply_turn(turn.seat, fields_to_observation(table, self._template), _tops(turn), t, frame,
                             keys=[k for k, _ in turn.delta], hidden_draws=turn.unseen_draws, skipped=turn.skipped,
                             no_draw=turn.no_draw)
            self._models.append(model)
            self._tables.append(table)
            self._folded.append((turn, turn.delta))
        self._final, _ = self._corrected(len(turns))

    def _corrected(self, i: int) -> tuple[GameModel, Fields]:
        """The game and table after i turns with the corrections placed there applied (copies)."""
        model, table = self._models[i].clone(), dict(self._tables[i])
        for (_frame, c, changes), place in zip(self._corrections, self._places):
            if place != i:
                continue
            for key, value in changes.items():
                if value == _GONE:
                    table.pop(key, None)
                else:
                    table[key] = value
            try:
                model.correct(c, model.last_t)
            except (CorrectionError, ValueError, LookupError):
                pass   # (it no longer applies to the game as read now)
        return model, table

    def correct(self, c: Mapping[str, Any]) -> str:
        """A correction from the page: evidence for the decoder (the table reads so; who discarded a
        card), or a fact of the game (seats, the end, whose turn, points) placed after the turns
        begun before it. Raises CorrectionError (or ValueError/LookupError) for one that cannot apply."""
        c = dict(c)
        kind = c.get("kind")
        model = self.model
        if kind in ("discarded", "took"):
            # (the answer to "who discarded the red 7?" or "who took the green 0 from its discard pile?")
            pile, card, seat = c.get("pile"), c.get("card"), c.get("seat")
            if seat not in self.setup.seats:
                raise CorrectionError(f"nobody sits at {seat!r} in this game (seats: {', '.join(self.setup.seats)})",
                                      source="correction", field="seat")
            asked = "discard" if kind == "discarded" else "draw"
            q = self._asked(pile, card, asked, c.get("question"))
            if seat in q["seats"]:
                self.decoder.answer(q["pile"], q["card"], seat, asked)
            elif not self.decoder.answer_other(q["pile"], q["card"], seat, asked):
                # (a seat the question did not offer, and no reading the decoder holds gives it that change: the
                # question stays, the reading as it was)
                raise ImpossibleAnswer(
                    f"no reading of the table lets {self.setup.name(seat)} have "
                    f"{'discarded' if kind == 'discarded' else 'taken'} the {pile} {card}; the question stays",
                    field="seat")
            self.refresh()
            return f"{self.setup.name(seat)} {'discarded' if kind == 'discarded' else 'took'} the {pile} {card}"
        trial = model.clone()
        text = trial.correct(c, model.last_t)   # raises for one that cannot apply
        changes: dict = {}
        if kind in TABLE_KINDS and model.table is not None and trial.table is not None:
            before, after = observation_fields(model.table), observation_fields(trial.table)
            changes = {k: after.get(k, _GONE) for k in changed_fields(before, after)}
            self.decoder.fix(changes)
        if kind == "seats":
            self.setup = trial.setup
            self.decoder.seats = dict(trial.setup.seats)
            self.decoder.seat_of_player = {p: s for s, p in trial.setup.seats.items()}
        self._corrections.append((self.decoder.frame, c, changes))
        self._places.append(len(self._folded))
        if self._models[0].table is None:
            self._final = trial
        else:
            self._final, _ = self._corrected(len(self._folded))
        return text

    def undo(self) -> int:
        """Undo on the page: the last move taken back (the decoder's reading without it). Returns its id."""
        n = len(self._folded)
        if n == 0:
            raise LookupError("there is no move to undo")
        self._undone = (list(self.decoder.beam), list(self.decoder.committed), list(self._corrections),
                        list(self._places))
        self.decoder.take_back(dict(self._tables[n - 1]))
        keep = [k for k, place in enumerate(self._places) if place < n]
        self._corrections = [self._corrections[k] for k in keep]
        self._places = [self._places[k] for k in keep]
        self.refresh(force=True)
        return n

    def keep(self) -> None:
        """The players kept the move last undone (the table still showed it): the reading before the undo."""
        if self._undone is None:
            raise LookupError("no move was undone")
        self.decoder.beam, self.decoder.committed, self._corrections, self._places = (list(x) for x in self._undone)
        self._undone = None
        self.refresh(force=True)

    def _asked(self, pile: Any, card: Any, kind: str, qid: Any = None) -> dict[str, Any]:
        """The open question an answer or a dismiss names (pile, card, kind; `qid`: its id, when the page sent it);
        StaleQuestion when none is open (answered, withdrawn or dismissed since the page showed it)."""
        q = self.decoder.open_question(str(pile), card, kind)
        if q is None or (qid is not None and q.get("id") != qid):
            what = "discarded" if kind == "discard" else "took"
            raise StaleQuestion(f"no open question about who {what} the {pile} {card}"
                                + (f" (question {qid})" if qid is not None else "")
                                + ": it was answered, dismissed or decided by the camera since",
                                field="question" if qid is not None else "card")
        return q

    def dismiss(self, pile: Any, card: Any, kind: str, qid: Any = None) -> dict[str, Any]:
        """The page's "don't know / dismiss": the open question withdrawn for every page, the decoder's best
        reading kept (no evidence). StaleQuestion when no such question is open. Returns the question."""
        q = self._asked(pile, card, kind, qid)
        return self.decoder.dismiss(q["pile"], q["card"], kind)

    def questions(self) -> list[dict[str, Any]]:
        """Open "unclear — who discarded the red 7?" questions (decoder.open_questions)."""
        return self.decoder.open_questions

    def answer(self, pile: str, card: Any, seat: str, kind: str = "discard") -> bool:
        """The players' answer to a question (kind "discard": who discarded the card; "draw": who took it):
        evidence for the decoder; True when the reading changed."""
        self.decoder.answer(pile, card, seat, kind)
        return self.refresh()


def _tops(turn: Turn) -> Sequence[TopChange]:
    return [TopChange(pile, old, new, kind) for pile, old, new, kind in turn.piles]


__all__ = ["DecodedGame", "ImpossibleAnswer", "StaleQuestion"]
