"""The decoder's reading of a game, judged by the rules engine (issue 17): moves, warnings, scores, end.

tracking.decoder.TurnDecoder decides *who did what* (the likeliest turns given every frame);
DecodedGame folds those turns, one whole turn at a time, into a tracking.model.GameModel, whose
engine check of each turn gives its warnings (rule breaks are turns the engine judges), whose
score sheet gives the scores and whose phase gives the game's end. The fold keeps a checkpoint
after every turn, so when the decoder's best reading changes (a later frame overturns a turn)
only the turns from the first one that changed are judged again.
"""
from __future__ import annotations

from typing import Any, Sequence

from engine.games import GAMES, GameRegistry
from engine.observation import Observation
from engine.setup import Setup

from .config import TrackingConfig
from .decoder import _GONE, Turn, TurnDecoder
from .inference import TopChange
from .model import GameModel
from .stability import Fields, fields_to_observation


class DecodedGame:
    """Frames in (feed), the decoder's best reading out as a GameModel (`model`)."""

    def __init__(self, setup: Setup, config: TrackingConfig | None = None, games: GameRegistry = GAMES):
        self.setup = setup
        self.config = config or TrackingConfig()
        self.games = games
        self.decoder = TurnDecoder({"seats": dict(setup.seats), "game": setup.game, "first": setup.first},
                                   self.config)
        self._template: Observation | None = None
        self._models: list[GameModel] = [GameModel(setup, self.config, games)]  # [i]: after i turns
        self._tables: list[Fields] = []                                       # [i]: table after i turns
        self._folded: list[tuple[Turn, tuple]] = []                           # the turns folded, in order

    @property
    def model(self) -> GameModel:
        """The game as read now: every turn of the decoder's best reading, judged."""
        return self._models[-1]

    @property
    def committed(self) -> int:
        """How many of model.turns are committed (older than the decoder's lag, or the stream ended)."""
        return min(len(self.decoder.committed), len(self.model.turns))

    def feed(self, obs: Observation, t: float, frame: int | None) -> bool:
        """One frame (usable or a hand frame); True when the reading of the game changed."""
        self.decoder.feed(obs, frame, t)
        if obs.usable and self._template is None and self.decoder.start is not None:
            self._template = obs
            self._models[0].accept(fields_to_observation(self.decoder.start, obs), t, frame)
            self._tables = [dict(self.decoder.start)]
            return True
        return self.refresh()

    def finish(self) -> bool:
        """The stream ended: every turn is committed."""
        self.decoder.finish()
        return self.refresh()

    def refresh(self) -> bool:
        """Fold the decoder's best reading again from the first turn that changed."""
        if self._template is None or self._models[0].table is None or not self.decoder.beam:
            return False
        best = self.decoder.beam[0]
        turns = best.turns
        same = 0
        while (same < min(len(turns), len(self._folded)) and self._folded[same][0] == turns[same]
               and self._folded[same][1] == turns[same].delta):
            same += 1
        if same == len(turns) == len(self._folded):
            return False
        del self._models[same + 1:], self._tables[same + 1:], self._folded[same:]
        for i in range(same, len(turns)):
            turn = turns[i]
            frame = best.turn_frames[i] if i < len(best.turn_frames) else None
            t = self.decoder.times.get(frame, self._models[-1].last_t or 0.0) if frame is not None else 0.0
            table = dict(self._tables[-1])
            for key, value in turn.delta:
                if value == _GONE:
                    table.pop(key, None)
                else:
                    table[key] = value
            model = self._models[-1].clone()
            model.apply_turn(turn.seat, fields_to_observation(table, self._template), _tops(turn), t, frame,
                             keys=[k for k, _ in turn.delta], hidden_draws=turn.unseen_draws, skipped=turn.skipped)
            self._models.append(model)
            self._tables.append(table)
            self._folded.append((turn, turn.delta))
        return True

    def questions(self) -> list[dict[str, Any]]:
        """Open "unclear — who discarded the red 7?" questions (decoder.open_questions)."""
        return self.decoder.open_questions

    def answer(self, pile: str, card: Any, seat: str) -> bool:
        """The players' answer to a question: evidence for the decoder; True when the reading changed."""
        self.decoder.answer(pile, card, seat)
        return self.refresh()


def _tops(turn: Turn) -> Sequence[TopChange]:
    return [TopChange(pile, old, new, kind) for pile, old, new, kind in turn.piles]


__all__ = ["DecodedGame"]
