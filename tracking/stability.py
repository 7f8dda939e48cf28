"""The table as fields, and the watch over the frame stream (is the camera seeing the table?).

A table reading is cut into independent, hashable fields (each card row, each tile spot, each
player's pawns, each discard top, ...): the units the turn decoder (tracking/decoder.py) compares
readings in, and the units a correction changes.

FrameWatch only says how the stream goes, for the page's status line: frames seen, frames no use
(a hand over the table, the board lost), camera gaps (no frame for `gap_seconds`), and whether the
table has been seen still for `still_seconds` ("tracking"), not yet ("waiting"), or not at all
for `paused_after_seconds` ("paused"). It decides nothing about moves: every frame is evidence for
the decoder.
"""
from __future__ import annotations

from typing import Any, Hashable

from engine.games import GAMES
from engine.observation import Observation, PawnObservation, SeatObservation
from .config import TrackingConfig

FieldKey = tuple
Fields = dict[FieldKey, Hashable]

# What a field reads when the observation does not mention it.
_DEFAULTS: dict[str, Hashable] = {"row": (), "points_row": 0, "wish": (), "wish_cards": (), "pawns": (),
                                  "tile": None, "top": None, "player": None}


def observation_fields(obs: Observation) -> Fields:
    """An observation as independent, hashable fields (the units of voting and of change)."""
    out: Fields = {("meta",): (obs.game, obs.board)}
    for seat, s in obs.seats.items():
        out[("player", seat)] = s.player
        for colour, row in s.rows.items():
            if row:
                out[("row", seat, colour)] = tuple(row)
        if s.points_row:
            out[("points_row", seat)] = s.points_row
        wish = tuple(sorted((c, n) for c, n in s.wish.items() if n))
        if wish:
            out[("wish", seat)] = wish
        if s.wish_cards:
            out[("wish_cards", seat)] = tuple(sorted(s.wish_cards))
    if obs.pawns is not None:
        by_player: dict[str, list[tuple[str, bool]]] = {}
        for p in obs.pawns:
            by_player.setdefault(p.player, []).append((p.stone, p.big))
        for player, pawns in by_player.items():
            out[("pawns", player)] = tuple(sorted(pawns))
    for spot, code in (obs.tiles or {}).items():
        out[("tile", spot)] = code
    for pile, code in obs.discard_tops.items():
        out[("top", pile)] = code
    return out


def field_default(key: FieldKey) -> Hashable:
    """The reading of a field an observation leaves out (an empty row, an empty tile spot...)."""
    return _DEFAULTS.get(key[0])


def fields_equal(a: Fields, b: Fields) -> bool:
    """Do two field sets describe the same table (missing fields read as their default)?"""
    for key in a.keys() | b.keys():
        d = field_default(key)
        if a.get(key, d) != b.get(key, d):
            return False
    return True


def changed_fields(a: Fields, b: Fields) -> list[FieldKey]:
    """The fields whose reading differs between two field sets."""
    out = []
    for key in a.keys() | b.keys():
        d = field_default(key)
        if a.get(key, d) != b.get(key, d):
            out.append(key)
    return sorted(out, key=repr)


def fields_to_observation(fields: Fields, template: Observation | None = None) -> Observation:
    """Build the observation a field set describes (the inverse of observation_fields)."""
    game, board = fields.get(("meta",), (template.game, template.board) if template else ("keltis", None))
    seats: dict[str, dict[str, Any]] = {}
    pawns: list[PawnObservation] = []
    tiles: dict[str, str | None] = {}
    tops: dict[str, str | None] = {}
    for key, value in fields.items():
        kind = key[0]
        if kind == "player" and value is not None:
            seats.setdefault(key[1], {})["player"] = value
        elif kind in ("row", "points_row", "wish", "wish_cards"):
            seats.setdefault(key[1], {}).setdefault(kind, {} if kind == "row" else None)
            if kind == "row":
                if value:
                    seats[key[1]]["row"][key[2]] = tuple(value)
            else:
                seats[key[1]][kind] = value
        elif kind == "pawns":
            pawns.extend(PawnObservation(stone, key[1], big) for stone, big in value)
        elif kind == "tile":
            tiles[key[1]] = value
        elif kind == "top":
            tops[key[1]] = value
    seat_obs = {}
    for seat, d in seats.items():
        if d.get("player") is None:
            continue
        seat_obs[seat] = SeatObservation(d["player"], dict(d.get("row") or {}), int(d.get("points_row") or 0),
                                         dict(d.get("wish") or ()), tuple(d.get("wish_cards") or ()))
    # Keep the seats in the template's order (the order players are listed in).
    if template is not None:
        order = list(template.seats) + [s for s in seat_obs if s not in template.seats]
        seat_obs = {s: seat_obs[s] for s in order if s in seat_obs}
    is_board = GAMES.get(game).has_board
    return Observation(game, board, True, None,
                       tuple(sorted(pawns, key=lambda p: (p.player, p.stone, not p.big))) if is_board else None,
                       tiles if is_board else None, seat_obs, tops)


class FrameWatch:
    """The frame stream's health for the page (module docstring): feed(obs, t) every frame."""

    def __init__(self, config: TrackingConfig | None = None):
        self.config = config or TrackingConfig()
        self.frames_seen = 0
        self.frames_unusable = 0
        self.gaps = 0
        self._last_t: float | None = None
        self._usable_since: float | None = None     # the first usable frame of the current run
        self._unusable_since: float | None = None   # the first unusable frame of the current run
        self._unusable_reason: str | None = None

    @property
    def last_frame_t(self) -> float | None:
        """The timestamp of the latest frame fed (None before the first)."""
        return self._last_t

    def reset(self) -> None:
        """Forget the stillness seen (a camera gap, a new game): the table must be seen still again."""
        self._usable_since = None
        self._unusable_since = None

    def feed(self, obs: Observation, t: float) -> None:
        """Count one frame at frame time `t`."""
        self.frames_seen += 1
        if self._last_t is not None and (t - self._last_t > self.config.gap_seconds or t < self._last_t):
            self.gaps += 1
            self.reset()
        self._last_t = t
        if not obs.usable:
            self.frames_unusable += 1
            if self._unusable_since is None:
                self._unusable_since = t
            self._unusable_reason = obs.reason or "unusable"
            self._usable_since = None
            return
        covered_since, self._unusable_since = self._unusable_since, None
        if self._usable_since is None:
            self._usable_since = t
            # a reader that watched every camera frame says since when the table has been still
            # (docs/formats-extensions.md "still_since"): counted from then, never from before the hand
            since = obs.extra.get("still_since") if isinstance(obs.extra, dict) else None
            if isinstance(since, (int, float)) and covered_since is not None:
                self._usable_since = min(t, max(float(since), covered_since))

    def status(self, now: float | None = None) -> dict[str, Any]:
        """{"state": "tracking"|"waiting"|"paused", "reason", "since"} at frame time `now`."""
        now = self._last_t if now is None else now
        if self._last_t is None:
            return {"state": "waiting", "reason": "no frames yet", "since": None}
        if self._unusable_since is not None:
            since = self._unusable_since
            if now is not None and now - since >= self.config.paused_after_seconds:
                return {"state": "paused", "reason": self._unusable_reason, "since": since}
            return {"state": "waiting", "reason": self._unusable_reason, "since": since}
        if self._usable_since is None or (now is not None and now - self._usable_since < self.config.still_seconds):
            return {"state": "waiting", "reason": "table moving", "since": self._usable_since}
        return {"state": "tracking", "reason": None, "since": self._usable_since}


__all__ = ["FieldKey", "Fields", "FrameWatch", "changed_fields", "field_default", "fields_equal",
           "fields_to_observation", "observation_fields"]
