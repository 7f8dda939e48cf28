"""GameTracker: the live game (docs/tracking-api.md) — frames in, moves, warnings and scores out, on disk.

feed() runs in the pipeline thread; snapshot(), wait(), correct(), undo() and new_game() come from
HTTP threads: one lock guards everything, and a Condition on it wakes wait() when events land. The one slow
command, an answer that re-decodes the whole game (GameTracker._correct_redecoded), replays off the lock and
takes it only to start and to install its result.

Every frame (table readings and hand frames alike) is evidence for the turn decoder
(tracking/decoder.py), whose best reading of the game the rules engine judges
(tracking/decoded.py: moves, warnings, scores, the end). A move's warnings are shown once the
decoder is sure of it (DecodedGame.settled); a move it reads otherwise later is re-sent (or
removed). Corrections from the page are evidence too (the table reads so; who discarded a card:
the answer to an "unclear — who discarded the red 7?" question); undo takes the last move back.

Every input (the frames, compactly, a correction, an undo, a new game) is written to the
EventStore together with what it caused (moves, warnings, scores, the end of the game, questions)
in one SQLite transaction, and only then shown: after a crash the database holds each input with
all of its consequences or neither (frames not yet stored — at most FRAME_BATCH, none that caused
anything — are lost). On start the tracker decodes the latest game's inputs again and so resumes
where it was; the ids of live events are the SQLite event ids.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from engine.errors import MalformedInput
from engine.games import GAMES, GameRegistry
from engine.observation import Observation, parse_observation
from engine.setup import Setup

from .config import TrackingConfig
from .decoded import DecodedGame, ImpossibleAnswer, StaleQuestion, frame_json
from .model import CORRECTION_KINDS, GameModel, TurnRecord, summarize, turn_text
from .stability import FrameWatch, fields_equal, observation_fields
from .store import EventStore

RECENT_EVENTS = 4096
#: Frame-source states (camera.sources) meaning the camera is away: tracking pauses meanwhile.
CAMERA_DOWN = ("lost", "retrying", "failed")
#: the stored inputs a decoding is fed (GameTracker._apply; "state": a database from before the decoder)
INPUT_KINDS = ("frames", "state", "correction", "dismiss", "undo", "finish", "keep")


@dataclass(frozen=True)
class LiveEvent:
    """docs/tracking-api.md LiveEvent: id (the SQLite event id), type and JSON data."""

    id: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """{"id", "type", "data"}."""
        return {"id": self.id, "type": self.type, "data": self.data}


def _now_iso() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


def move_json(model: GameModel, turn: TurnRecord) -> dict[str, Any]:
    """One move as the page shows it (docs/tracking-api.md moves[] item, extended)."""
    violations = turn.violations()
    return {"id": turn.move_id, "seat": turn.seat, "player": model.setup.seats.get(turn.seat),
            "name": model.setup.name(turn.seat), "text": turn_text(model.rules, model.setup, turn),
            "legal": not violations, "violations": [v.to_json() for v in violations],
            "t": round(turn.t, 3), "t_start": round(turn.t_start, 3), "frame": turn.frame,
            "complete": not turn.open, "confidence": round(turn.confidence, 2), "note": turn.note,
            "silent": turn.silent, "summary": summarize(model.rules, turn),
            "details": [e.text for e in turn.report.changes if e.seat in (turn.seat, None)][:12]}


class GameTracker:
    """The live game behind the phone page and the replay command (module docstring)."""

    #: frames kept in memory before they are stored without a consequence (a crash loses at most these)
    FRAME_BATCH = 64
    #: an answer's re-decode: rounds of feeding it the inputs stored meanwhile off the lock before its install
    #: (the frames a long replay let in are decoded there, not under the lock)
    CATCH_UP_ROUNDS = 3

    def __init__(self, store: EventStore, *, clock: Callable[[], float] = time.monotonic,
                 config: TrackingConfig | None = None, observer: str | None = None,
                 games: GameRegistry = GAMES):
        self.store = store
        self.games = games  # the games a setup may name (engine/games.py)
        self.clock = clock
        self.config = config or TrackingConfig()
        self.observer = observer
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        # An answer's re-decode (_correct_redecoded) replays the game off self._lock; this lock lets one run at a
        # time (a second answer waits, then starts from what the first installed). Taken before self._lock, never
        # while holding it.
        self._redecoding = threading.Lock()
        #: bumped whenever self.decoded is replaced (a new game, a resume, an installed re-decode)
        self.generation = 0
        self.watch = FrameWatch(self.config)
        self._recent: deque[LiveEvent] = deque(maxlen=RECENT_EVENTS)
        self._source_status: dict[str, Any] = {}
        self._camera: dict[str, Any] | None = None  # while the camera is away: {"state", "error", "since"}
        self._reconnects_seen = 0
        self._watch_state: str | None = None
        self._reset_game_state()
        self.last_event_id = store.last_event_id()
        with self._cond:   # (announcing what the resumed game says wakes waiters: under the lock)
            self._resume()

    # -- state ------------------------------------------------------------------------------

    def _reset_game_state(self) -> None:
        self.game_id: int | None = None
        self.setup: Setup | None = None
        self.started: str | None = None
        self.origin: dict[str, Any] | None = None      # where the game's frames come from (a recording)
        self.decoded: DecodedGame | None = None
        self.generation = getattr(self, "generation", 0) + 1
        self.announced_moves: dict[int, dict[str, Any]] = {}
        self.announced_warnings: dict[tuple, dict[str, Any]] = {}
        self.warning_order: list[tuple] = []
        self.announced_score: dict[str, Any] | None = None
        self.announced_over: dict[str, Any] | None = None
        self.announced_questions: list[dict[str, Any]] = []
        self.resumed = False
        self._move_cache: dict[int, tuple[TurnRecord, str, dict[str, Any]]] = {}
        self._warning_cache: dict[int, tuple[TurnRecord, list]] = {}     # (_warnings_of)
        self._score_cache: tuple | None = None                           # (_scores_json)
        self._frames: list[dict[str, Any]] = []      # frames fed, not stored yet
        # After undo: the table state it took back, held while the table still shows it, until the
        # players say "keep the move" or "I took it back" (resolve_disputed) or the table changes.
        self._disputed: dict[str, Any] | None = None
        self._disputed_fields: Any = None

    def _resume(self) -> None:
        """Rebuild the latest game from the database (nothing to do on an empty one)."""
        game = self.store.latest_game()
        if game is None:
            return
        decoded, started, origin, disputed = self._replay(game, self.store.events(game=game), recall=True)
        if decoded is None:
            return
        self.game_id, self.setup, self.started, self.decoded = game, decoded.setup, started, decoded
        self.generation += 1
        self.origin = origin if isinstance(origin, dict) else None
        self._set_disputed(disputed)
        self.resumed = True
        # Whatever the decoding says now that was not announced before the stop (none, unless the
        # code changed in between) is announced now, so the database matches the state.
        derived = self._announcements(decoded.model.last_t or 0.0)
        if derived:
            self._commit([], derived)

    def _replay(self, game: int, events: list[Any], *, recall: bool, seeds: list[dict[str, Any]] | None = None
                ) -> tuple[DecodedGame | None, Any, Any, dict[str, Any] | None]:
        """The game decoded again from its stored inputs: (decoded, started, origin, disputed). recall: read the
        stored consequences back as announced (a resume). The answers re-decoded with (a "redecode" correction's
        seed: TurnDecoder.seed_answer) are known from the first frame on; `seeds`: those and one more (a live
        re-decode). A replayed answer or dismiss is matched by pile, card and kind (its question's id may differ
        once an answer is known from the start: that question was never asked) — the question about them open at
        that point of the stored inputs, as it was live (at most one is open per pile, card and kind; with
        decoder_answer_nth a later change of that card is another question, asked after)."""
        events = list(events)
        if seeds is None:
            seeds = [e.payload["redecode"] for e in events if e.kind == "correction"
                     and isinstance(e.payload.get("redecode"), dict)]
        decoded: DecodedGame | None = None
        started = origin = None
        disputed: dict[str, Any] | None = None
        for e in events:
            if e.kind == "game":
                setup = Setup.from_json(e.payload["setup"], f"tracking database game {game}", self.games)
                started, origin, disputed = e.payload.get("started"), e.payload.get("origin"), None
                decoded = DecodedGame(setup, self.config, self.games)
                for seed in seeds:
                    decoded.decoder.seed_answer(seed)
            elif decoded is None:
                continue
            elif e.kind == "undo":
                self._apply(decoded, e)
                held = e.payload.get("disputed")
                disputed = ({"raw": held.get("raw"), "move": dict(held.get("move") or {}), "payload": None,
                             "taken_back": False} if isinstance(held, dict) and held.get("raw") else None)
            elif e.kind in INPUT_KINDS:
                self._apply(decoded, e)
            elif e.kind == "status" and e.payload.get("dispute") in ("settled", "taken-back"):
                if e.payload["dispute"] == "settled":
                    disputed = None
                elif disputed is not None:
                    disputed["taken_back"] = True
            elif recall:
                self._recall(e)
        return decoded, started, origin, disputed

    def _apply(self, decoded: DecodedGame, e: Any) -> None:
        """One stored input (INPUT_KINDS but "game") fed to a decoding, as it was live: the replay of a restart and
        the catch-up of an answer's re-decode (_correct_redecoded) alike."""
        if e.kind == "frames":
            for f in e.payload.get("frames") or ():
                decoded.feed_json(f)
        elif e.kind == "state" and isinstance(e.payload.get("raw"), dict):
            # (a database written before the decoder: the table states its journal accepted, each
            # after still_seconds of frames that showed it, and a hand before it when there was one)
            t = float(e.payload.get("t") or 0.0)
            still = [t - self.config.still_seconds * k / 3 for k in (3, 2, 1, 0)]
            if e.payload.get("hand", True):
                decoded.feed_json({"frame": None, "t": still[0] - 1e-3})
            for moment in still:
                decoded.feed_json({"frame": e.payload.get("frame"), "t": moment, "raw": e.payload["raw"]})
        elif e.kind == "correction":
            if isinstance(e.payload.get("redecode"), dict):
                return   # (an answer re-decoded with: known from the first frame, a seed)
            c = dict(e.payload["correction"])
            c.pop("question", None)
            try:
                decoded.correct(c)
            except (MalformedInput, ValueError, LookupError):
                pass   # (refused now as it was then: it changed nothing)
        elif e.kind == "dismiss":
            try:
                decoded.dismiss(e.payload["pile"], e.payload["card"], e.payload.get("kind", "discard"))
            except LookupError:
                pass   # (no such question open when decoded again: nothing to withdraw)
        elif e.kind == "undo":
            try:
                decoded.undo()
            except LookupError:
                pass
        elif e.kind == "finish":
            decoded.finish()
        elif e.kind == "keep":
            try:
                decoded.keep()
            except LookupError:
                pass

    def _recall(self, e: Any) -> None:
        """A stored consequence (move, warning, score, end) read back on resume: what was announced."""
        if e.kind == "move":
            if e.payload.get("removed"):
                self.announced_moves.pop(e.payload["id"], None)
            else:
                self.announced_moves[e.payload["id"]] = e.payload
        elif e.kind == "warning":
            key = tuple(e.payload["key"])
            if key not in self.announced_warnings:
                self.warning_order.append(key)
            self.announced_warnings[key] = e.payload
        elif e.kind == "score":
            self.announced_score = e.payload.get("scores")
        elif e.kind == "game-over":
            self.announced_over = e.payload if e.payload.get("over", True) else None
        elif e.kind == "question":
            self.announced_questions = list(e.payload.get("questions") or [])

    # -- the contract -----------------------------------------------------------------------

    def new_game(self, setup: dict[str, Any], *, origin: dict[str, Any] | None = None) -> dict[str, Any]:
        """Start a new game (docs/tracking-api.md); the previous one stays in the database.

        origin: where the frames come from (a recorded session's identity), stored with the game
        so that a resumed replay can be refused for a different recording."""
        parsed = Setup.from_json(setup, "setup", self.games)
        with self._cond:
            started = _now_iso()
            payload = {"setup": parsed.to_json(), "started": started, "observer": self.observer}
            if origin is not None:
                payload["origin"] = dict(origin)
            game_id, event_id = self.store.new_game(parsed.to_json(), started, payload)
            self._reset_game_state()
            self.game_id, self.setup, self.started = game_id, parsed, started
            self.origin = payload.get("origin")
            self.decoded = DecodedGame(parsed, self.config, self.games)
            self.watch.reset()
            self._publish([LiveEvent(event_id, "game", payload)])
            derived = self._announcements(0.0)
            if derived:
                self._commit([], derived)
            return self._snapshot_locked()

    def feed(self, obs: Observation, t: float, frame_index: int | None = None) -> list[LiveEvent]:
        """One frame's observation at frame time t (pipeline thread). A usable reading no table of
        this game can show raises ObservationError before anything is stored or decoded."""
        with self._cond:
            if obs.usable and self.decoded is not None:
                self.decoded.model.rules.validate(obs)
            self.watch.feed(obs, t)
            out = self._status_events(t)
            if self.decoded is None and not (obs.usable and self._auto_setup(obs)):
                return out
            decoded = self.decoded
            if self._disputed is not None and obs.usable and self._disputed_fields is not None:
                if fields_equal(observation_fields(obs), self._disputed_fields):
                    # the table still shows the move that was undone: it waits for the players' word
                    self._disputed["payload"] = frame_json(obs, t, frame_index, None)
                    return out
                self._set_disputed(None)
                self._publish_disputed()
            return out + self._take(frame_json(obs, t, frame_index, decoded.last_raw), obs)

    def snapshot(self) -> dict[str, Any]:
        """The whole live state as JSON (docs/tracking-api.md snapshot)."""
        with self._lock:
            return self._snapshot_locked()

    def wait(self, after_id: int, timeout: float) -> list[LiveEvent]:
        """Events newer than after_id, blocking up to timeout seconds for the first one."""
        deadline = time.monotonic() + max(0.0, float(timeout))
        with self._cond:
            while True:
                if self.last_event_id > after_id:
                    return self._events_after(after_id)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._cond.wait(remaining)

    def correct(self, correction: dict[str, Any]) -> dict[str, Any]:
        """Apply a correction (the web layer checked the PIN); returns the new snapshot.

        Raises MalformedInput / CorrectionError (or ValueError, LookupError) for one that cannot apply."""
        if not isinstance(correction, dict):
            raise MalformedInput(f"expected an object, got {correction!r}", source="correction")
        kind = correction.get("kind")
        if kind not in CORRECTION_KINDS:
            raise MalformedInput(f"unknown correction {kind!r} (known: {', '.join(CORRECTION_KINDS)})",
                                 source="correction", field="kind")
        with self._cond:
            decoded = self._need_game()
            generation = self.generation
            try:
                text = decoded.correct(correction)   # raises for a correction that cannot apply
            except ImpossibleAnswer:
                if not self.config.decoder_answer_redecode:
                    raise
            else:
                return self._store_correction(decoded, correction, text)
        if getattr(self._lock, "_is_owned", lambda: False)():
            # (called by this thread under the lock — finish()'s end corrections, which never get here — it cannot
            # be let go: the re-decode runs on it, as before session 36)
            return self._correct_redecoded(correction, generation, locked=True)
        # (no reading the decoder holds gives that seat the change: the stored frames decoded again with the answer
        # known from the first frame — a reading the beam dropped long ago may hold; off the lock)
        return self._correct_redecoded(correction, generation)

    def _store_correction(self, decoded: DecodedGame, correction: dict[str, Any], text: str,
                          redecode: dict[str, Any] | None = None) -> dict[str, Any]:
        """An applied correction stored with what it caused, announced; the snapshot (under the lock)."""
        t = decoded.model.last_t
        payload = {"correction": dict(correction), "text": text, "t": t, "frame_t": self.watch.last_frame_t}
        if redecode is not None:
            payload["redecode"] = redecode
        self._flush([("correction", payload)], self._announcements(t or 0.0))
        self.setup = decoded.setup
        return self._snapshot_locked()

    def _correct_redecoded(self, correction: dict[str, Any], generation: int, *, locked: bool = False
                           ) -> dict[str, Any]:
        """An answer naming a seat no held reading allows (ImpossibleAnswer): the game's stored inputs decoded
        again with it known from the first frame (TurnDecoder.seed_answer). When that decoding's best reading
        gives the seat the change asked about, it replaces the live one and the answer is stored with its seed
        (a restart decodes alike); else ImpossibleAnswer again, nothing changed.

        The replay (seconds for a whole game on a Pi) runs off the tracker's lock: under it the seed is made, the
        frames fed so far stored and the last stored event id noted (`_redecode_job`); the stored inputs up to it are
        replayed outside; then, under the lock again (`_redecode_install`), the inputs stored meanwhile (frames,
        corrections, dismisses, undos — in their order) are fed to the new decoding by the same code a restart
        uses, so it is the decoding a restart would make, and it is installed. One re-decode at a time (a second
        answer waits for the first, then starts from what it installed); an answer whose question was answered,
        dismissed or decided meanwhile, or whose game was replaced, is refused (StaleQuestion) as if it came after."""
        if locked:   # (this thread holds the lock already: all of it on the lock)
            job = self._redecode_job(correction, generation)
            if isinstance(job, dict) and "event_id" not in job:
                return job
            again = self._replay_job(job)
            return self._redecode_install(correction, job, again)
        with self._redecoding:
            while True:
                with self._cond:
                    job = self._redecode_job(correction, generation)
                if "event_id" not in job:
                    return job   # (applied without a re-decode: a re-decode installed meanwhile allows it)
                again = self._replay_job(job)   # (off the lock: feed, snapshot and wait go on meanwhile)
                again = self._catch_up(job, again)
                with self._cond:
                    if self.generation == job["generation"]:
                        return self._redecode_install(correction, job, again)
                generation = self.generation   # (the decoding was replaced meanwhile: start again from it)

    def _redecode_job(self, correction: dict[str, Any], generation: int) -> dict[str, Any]:
        """Under the lock: what the re-decode of `correction` needs — {"game", "generation", "event_id" (the last
        stored event it replays), "seed", "seeds" (the earlier answers' and this one), "question", "seat"}. When the
        decoding was replaced since the answer was refused, the answer is tried on the new one first: applied,
        the snapshot (no "event_id") is returned. StaleQuestion when its question is no longer open."""
        decoded = self._need_game()
        if self.generation != generation:
            try:
                text = decoded.correct(correction)
            except ImpossibleAnswer:
                pass
            else:
                return self._store_correction(decoded, correction, text)
        assert self.game_id is not None
        kind = "discard" if correction.get("kind") == "discarded" else "draw"
        q = decoded._asked(correction.get("pile"), correction.get("card"), kind, correction.get("question"))
        seat = correction["seat"]
        seed = {"pile": q["pile"], "card": q["card"], "kind": kind, "seat": seat, "event": list(q["event"]),
                "frame": decoded.decoder.frame, "t": decoded.decoder._last_t}   # (given now, as answer() has it)
        if q.get("nth") is not None:
            seed["nth"] = q["nth"]   # (which change of that card it names: decoder_answer_nth; older seeds lack it)
        if self._frames:
            self._flush([], [])
        earlier = [e.payload["redecode"] for e in self.store.events(game=self.game_id, kinds=("correction",))
                   if isinstance(e.payload.get("redecode"), dict)]
        return {"game": self.game_id, "generation": self.generation, "event_id": self.store.last_event_id(),
                "seed": seed, "seeds": earlier + [seed], "question": q, "seat": seat, "kind": kind}

    def _replay_job(self, job: dict[str, Any]) -> DecodedGame | None:
        """The game's stored inputs up to job["event_id"] decoded with job["seeds"] (no tracker state touched: runs
        off the lock; the store is append-only and locks itself)."""
        events = [e for e in self.store.events(game=job["game"]) if e.id <= job["event_id"]]
        again, *_ = self._replay(job["game"], events, recall=False, seeds=job["seeds"])
        return again

    def _catch_up(self, job: dict[str, Any], again: DecodedGame | None) -> DecodedGame | None:
        """Off the lock: the inputs stored since job["event_id"] (the frames fed meanwhile stored first, a short
        hold) fed to the re-decode and job["event_id"] moved on, up to CATCH_UP_ROUNDS times — what is left for the
        install under the lock is what came in its last moments (each frame costs a decoder step)."""
        for _ in range(self.CATCH_UP_ROUNDS):
            with self._cond:
                if self._frames:
                    self._flush([], [])
            later = self.store.events(job["event_id"], game=job["game"])
            if not later:
                break
            for e in later:
                if again is not None and e.kind in INPUT_KINDS:
                    self._apply(again, e)
            job["event_id"] = later[-1].id
        return again

    def _redecode_install(self, correction: dict[str, Any], job: dict[str, Any],
                          again: DecodedGame | None) -> dict[str, Any]:
        """Under the lock: the re-decode brought up to date with the inputs stored since job["event_id"] and
        installed when it gives the seat the change (the answer stored with its seed); else ImpossibleAnswer."""
        q, seat, kind = job["question"], job["seat"], job["kind"]
        decoded = self._need_game()
        if self.game_id != job["game"]:
            raise StaleQuestion("a new game was started while the answer was being checked", field="question")
        decoded._asked(q["pile"], q["card"], kind, q.get("id"))   # (answered, dismissed or decided meanwhile: stale)
        if self._frames:
            self._flush([], [])
        for e in self.store.events(job["event_id"], game=job["game"]):
            if again is not None and e.kind in INPUT_KINDS:
                self._apply(again, e)   # (in their order, as a restart feeds them)
        what = "discarded" if kind == "discard" else "took"
        if again is None or not again.decoder.gives(q["event"], seat, loose=True):
            raise ImpossibleAnswer(
                f"no reading of the table lets {decoded.setup.name(seat)} have "
                f"{'discarded' if kind == 'discard' else 'taken'} the {q['pile']} {q['card']}; the question stays",
                field="seat")
        again.refresh()
        self.decoded = again
        self.generation += 1
        return self._store_correction(again, correction, f"{decoded.setup.name(seat)} {what} the {q['pile']} {q['card']}",
                                      job["seed"])

    def dismiss_question(self, body: dict[str, Any]) -> dict[str, Any]:
        """The page's "don't know / dismiss" of a question: body {"pile", "card", "kind": "discard" | "draw",
        "question"?: its id}. The question leaves every page at once (a "question" event), the dismiss is stored
        (a "dismiss" input: a restart withdraws it again), the decoder's best reading stands. Raises
        MalformedInput for a malformed body, StaleQuestion (a LookupError) when no such question is open."""
        if not isinstance(body, dict):
            raise MalformedInput(f"expected an object, got {body!r}", source="dismiss")
        kind = body.get("kind", "discard")
        if kind not in ("discard", "draw"):
            raise MalformedInput(f"kind: expected \"discard\" or \"draw\", got {kind!r}", source="dismiss",
                                 field="kind")
        for name in ("pile", "card"):
            if body.get(name) is None:
                raise MalformedInput(f"which question: give pile, card and kind ({name} missing)", source="dismiss",
                                     field=name)
        with self._cond:
            decoded = self._need_game()
            q = decoded.dismiss(body["pile"], body["card"], kind, body.get("question"))
            t = decoded.model.last_t
            payload = {"pile": q["pile"], "card": q["card"], "kind": kind, "question": q.get("id"), "text": q["text"],
                       "t": t, "frame_t": self.watch.last_frame_t}
            self._flush([("dismiss", payload)], self._announcements(t or 0.0))
            return self._snapshot_locked()

    def undo(self) -> dict[str, Any]:
        """Undo the last move: back to the table before it (the camera then reads the table again)."""
        with self._cond:
            decoded = self._need_game()
            model = decoded.model
            if not model.turns:
                raise LookupError("there is no move to undo")
            n = len(model.turns)
            undone_move = dict(self.announced_moves.get(model.turns[-1].move_id) or {})
            undone_raw = model.turns[-1].end.to_json()
            decoded.undo()
            # (the table showing the undone move is stored with the undo: a restart still holds it)
            payload = {"undone": [], "move_id": n, "text": f"move {n} undone",
                       "disputed": {"raw": undone_raw, "move": undone_move}}
            self._flush([("undo", payload)], self._announcements(decoded.model.last_t or 0.0))
            self._set_disputed({"raw": undone_raw, "move": undone_move, "payload": None, "taken_back": False})
            return self._snapshot_locked()

    def resolve_disputed(self, keep: bool) -> dict[str, Any]:
        """The players' word on a move undone while the table still shows it: keep=True reads that
        table again (the move comes back), keep=False ("I took it back") keeps it undone while
        the table is put back (frames showing the move go on being held until the table changes)."""
        with self._cond:
            decoded = self._need_game()
            if self._disputed is None or self._disputed["taken_back"]:
                raise LookupError("no undone move is waiting for a decision")
            held = self._disputed["payload"]
            if keep:
                if held is None:
                    raise LookupError("the camera has not seen the table since the undo: nothing to keep yet")
                self._set_disputed(None)
                decoded.keep()   # (the players' word: the reading before the undo stands)
                self._flush([("keep", {"move": self.announced_moves.get(len(decoded.model.turns))})],
                            self._announcements(decoded.model.last_t or 0.0))
                self._take(held)
            else:
                self._disputed["taken_back"] = True
            self._publish_disputed()
            return self._snapshot_locked()

    def _publish_disputed(self) -> None:
        """A live event so every page learns at once that the question is settled; stored, so a
        restart knows it too (`dispute`: "taken-back" or "settled")."""
        if self.game_id is not None:
            state = "settled" if self._disputed is None else "taken-back" if self._disputed["taken_back"] else "open"
            self._commit([("status", {"disputed": self._disputed_json(), "dispute": state})], [])

    def _disputed_json(self) -> dict[str, Any] | None:
        d = self._disputed
        if d is None or d["taken_back"]:
            return None
        return {"move": d["move"], "seen": d["payload"] is not None}

    def _set_disputed(self, disputed: dict[str, Any] | None) -> None:
        self._disputed = disputed
        self._disputed_fields = None
        if disputed is not None and disputed.get("raw"):
            try:
                self._disputed_fields = observation_fields(parse_observation(disputed["raw"], source="undo"))
            except MalformedInput:
                self._disputed = None

    # -- extensions --------------------------------------------------------------------------

    def finish(self, reason: str = "recording ended") -> list[LiveEvent]:
        """The stream is over (end of a replay): every turn is committed; a card game in its last
        plays ends here (`reason`), and a board game whose draw pile the tracker counts as empty ("draw-pile")."""
        with self._cond:
            if self.decoded is None:
                return []
            before = self.last_event_id
            decoded = self.decoded
            decoded.finish()
            self._flush([("finish", {"reason": reason})], self._announcements(decoded.model.last_t or 0.0))
            model = decoded.model
            if model.phase == "final":
                self.correct({"kind": "end", "reason": reason})
            elif model.phase == "play" and self.config.auto_end_on_empty_draw_pile and model.draw_pile_left() <= 0:
                # (board game: its draw-pile end is declared here, not mid-stream: model._check_draw_pile_end)
                self.correct({"kind": "end", "reason": "draw-pile"})
                if self.decoded.model.phase == "final":
                    # (card game: its last plays would follow, but the recording is over)
                    self.correct({"kind": "end", "reason": reason})
            return self._events_after(before)

    def set_source_status(self, status: dict[str, Any]) -> None:
        """The pipeline's view of the camera or recording (shown in snapshot()["status"]).

        A camera that goes away (its source "lost", "retrying" or "failed") pauses tracking: the
        frames seen before it are forgotten, so the next state needs fresh stillness after the
        camera is back (the table may have changed meanwhile); nothing is taken while it is away.
        Its going and coming back are stored with the game as "status" events (the game's log
        says when tracking was blind) and shown on the page."""
        source = status.get("source") if isinstance(status.get("source"), dict) else {}
        state = source.get("state")
        reconnects = source.get("reconnects")
        with self._cond:
            self._source_status = dict(status)
            down = state in CAMERA_DOWN
            brief = (isinstance(reconnects, int) and reconnects > self._reconnects_seen and not down
                     and self._camera is None)  # lost and back between two looks: paused all the same
            if isinstance(reconnects, int):
                self._reconnects_seen = max(self._reconnects_seen, reconnects)
            if brief:
                self._camera = {"state": "lost", "error": source.get("error"), "since": _now_iso()}
                self.watch.gaps += 1
                self.watch.reset()
            elif down == (self._camera is not None) and (not down or self._camera["state"] == state):
                return
            t = self.watch.last_frame_t
            if down:
                was_down = self._camera is not None
                self._camera = {"state": state, "error": source.get("error"),
                                "since": self._camera["since"] if was_down else _now_iso()}
                if not was_down:
                    self.watch.gaps += 1
                    self.watch.reset()
                data = {"camera": dict(self._camera), "t": None if t is None else round(t, 3)}
            else:
                data = {"camera": {"state": state or "running", "error": None, "since": _now_iso(),
                                   "away_since": self._camera["since"] if self._camera else None},
                        "t": None if t is None else round(t, 3)}
                self._camera = None
            if self.game_id is not None:
                self._commit([], [("status", data)])
            else:  # no game to store it with: the page still hears of it
                self._cond.notify_all()

    def events(self, after_id: int = 0) -> list[LiveEvent]:
        """Stored events newer than after_id (no waiting)."""
        with self._lock:
            return self._events_after(after_id)

    # -- internals ---------------------------------------------------------------------------

    def _need_game(self) -> DecodedGame:
        if self.decoded is None:
            raise LookupError("no game is being tracked: start one first")
        return self.decoded

    def _auto_setup(self, obs: Observation) -> bool:
        """No game was set up: start one from what the camera sees (seats and game)."""
        seats = {seat: s.player for seat, s in obs.seats.items()}
        if not 2 <= len(seats) <= 4:
            return False
        setup = {"game": obs.game, "board": obs.board, "seats": seats, "rules": {}}
        try:
            self.new_game(setup)
        except MalformedInput:
            return False
        return True

    def _take(self, frame: dict[str, Any], obs: Observation | None = None) -> list[LiveEvent]:
        """One frame into the decoder; what it changed is stored with the frames and announced."""
        decoded = self.decoded
        before = (decoded.settled, [(q["pile"], q["card"], q["kind"]) for q in decoded.questions()])
        self._frames.append(frame)
        changed = decoded.feed(obs, frame["t"], frame["frame"]) if obs is not None else decoded.feed_json(frame)
        derived = []
        if changed or (decoded.settled, [(q["pile"], q["card"], q["kind"]) for q in decoded.questions()]) != before:
            derived = self._announcements(frame["t"])
        if not derived and len(self._frames) < self.FRAME_BATCH:
            return []
        ids = self._flush([], derived)
        return self._events_after(ids[0] - 1)

    def _flush(self, inputs: list[tuple[str, dict[str, Any]]], derived: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """Store the frames fed so far (with what they caused: `derived` when there are no `inputs`);
        then `inputs` with what they caused."""
        frames = [("frames", {"frames": self._frames})] if self._frames else []
        self._frames = []
        if not inputs:
            return self._commit(frames, derived)
        if frames:
            self._commit(frames, [])
        return self._commit(inputs, derived)

    def _announcements(self, t: float) -> list[tuple[str, dict[str, Any]]]:
        """What changed for the page since the last announcement: moves, warnings, score, end, questions.
        The warnings of moves the decoder is not sure of yet (DecodedGame.settled) wait."""
        decoded = self.decoded
        assert decoded is not None
        model = decoded.model
        unsure = {turn.move_id for turn in model.turns[decoded.settled:]}
        out: list[tuple[str, dict[str, Any]]] = []
        names = self._names_key(model)    # (once, not once per move)
        moves_now = {turn.move_id: self._move_json(model, turn, names) for turn in model.turns}
        for move_id in sorted(moves_now):
            # (a move's JSON is cached per record: the very object announced is the same move, not compared again)
            old_move = self.announced_moves.get(move_id)
            if old_move is not moves_now[move_id] and old_move != moves_now[move_id]:
                out.append(("move", moves_now[move_id]))
                self.announced_moves[move_id] = moves_now[move_id]
        for move_id in sorted(set(self.announced_moves) - set(moves_now)):
            out.append(("move", {"id": move_id, "removed": True}))
            del self.announced_moves[move_id]
        present: dict[tuple, dict[str, Any]] = {}
        for turn in model.turns:
            for key, w in self._warnings_of(turn):
                present.setdefault(key, w)
        for key, w in present.items():
            old = self.announced_warnings.get(key)
            if key[0] in unsure:
                continue
            if old is None:
                data = {"id": len(self.warning_order) + 1, **w, "t": round(t, 3), "withdrawn": False,
                        "key": list(key)}
                self.warning_order.append(key)
            elif old.get("withdrawn") or old.get("message") != w["message"] or old.get("details") != w["details"]:
                data = {**old, "message": w["message"], "details": w["details"], "withdrawn": False}
            else:
                continue
            self.announced_warnings[key] = data
            out.append(("warning", data))
        for key, old in self.announced_warnings.items():
            if key not in present and not old.get("withdrawn") and key[0] not in unsure:
                data = {**old, "withdrawn": True}
                self.announced_warnings[key] = data
                out.append(("warning", data))
        scores = self._scores_json(model)
        if scores != self.announced_score:
            self.announced_score = scores
            out.append(("score", {"scores": scores,
                                  "totals": {s: p["total"] for s, p in (scores or {}).get("scores", {}).items()},
                                  "move_id": model.turns[-1].move_id if model.turns else 0}))
        over = None
        if model.phase == "over" and scores is not None:
            over = {"over": True, "reason": model.end_reason, "winners": scores["winners"],
                    "totals": {s: p["total"] for s, p in scores["scores"].items()}}
        if over != self.announced_over:
            out.append(("game-over", over if over is not None else {"over": False}))
            self.announced_over = over
        questions = [self._question_json(q) for q in decoded.questions()]
        if questions != self.announced_questions:
            self.announced_questions = questions
            out.append(("question", {"questions": questions}))
        return out

    def _question_json(self, q: dict[str, Any]) -> dict[str, Any]:
        assert self.setup is not None
        # answers: the two seats the best reading and its runner-up name (the page's big buttons); others: every
        # other seat of the game, behind the page's "someone else"
        return {"id": q.get("id"), "pile": q["pile"], "card": q["card"], "kind": q.get("kind", "discard"),
                "text": q["text"], "answers": [{"seat": s, "name": self.setup.name(s)} for s in q["seats"]],
                "others": [{"seat": s, "name": self.setup.name(s)} for s in self.setup.seats if s not in q["seats"]]}

    def _commit(self, inputs: list[tuple[str, dict[str, Any]]],
                derived: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """Write inputs and their consequences in one transaction, then publish them."""
        assert self.game_id is not None
        items = inputs + derived
        ids = self.store.append_many(self.game_id, items)
        self._publish([LiveEvent(i, kind, payload) for i, (kind, payload) in zip(ids, items)])
        return ids

    def _publish(self, events: list[LiveEvent]) -> None:
        for e in events:
            self._recent.append(e)
            self.last_event_id = max(self.last_event_id, e.id)
        self._cond.notify_all()

    def _events_after(self, after_id: int) -> list[LiveEvent]:
        if self._recent and self._recent[0].id <= after_id + 1:
            return [e for e in self._recent if e.id > after_id]
        return [LiveEvent(e.id, e.kind, e.payload) for e in self.store.events(after_id)]

    def _status_events(self, t: float) -> list[LiveEvent]:
        status = self.watch.status(t)
        if status["state"] == self._watch_state:
            return []
        changed = self._watch_state is not None and "paused" in (status["state"], self._watch_state)
        self._watch_state = status["state"]
        if not changed or self.game_id is None:
            return []
        data = {"tracking": status, "t": round(t, 3)}
        ids = self.store.append_many(self.game_id, [("status", data)])
        event = LiveEvent(ids[0], "status", data)
        self._publish([event])
        return [event]

    def _snapshot_locked(self) -> dict[str, Any]:
        decoded = self.decoded
        if decoded is None or self.setup is None:
            return {"event_id": self.last_event_id, "game": None, "turn": None, "game_over": False,
                    "end_reason": None, "scores": None, "moves": [], "warnings": [], "score_history": [],
                    "table": None, "questions": [], "status": self._status()}
        model = decoded.model
        sheet = model.score_sheet()
        game = {**model.setup.to_json(), "started": self.started, "observer": self.observer}
        warnings = [dict(self.announced_warnings[k]) for k in self.warning_order if k in self.announced_warnings]
        for w in warnings:
            w.pop("key", None)
        return {
            "event_id": self.last_event_id,
            "game": game,
            "turn": model.turn(),
            "phase": model.phase,
            "game_over": model.phase == "over",
            "end_reason": model.end_reason,
            "final_queue": list(model.final_queue),
            "scores": sheet.to_json() if sheet is not None else None,
            "moves": [dict(self._move_json(model, turn)) for turn in model.turns],
            "warnings": warnings,
            "score_history": self._score_history(model),
            "table": model.table.to_json() if model.table is not None else None,
            "draw_pile": {"estimate": model.draw_pile_left() if model.table is not None else None,
                          "empty": model.table is not None and model.draw_pile_left() <= 0},
            "notes": list(model.notes[-5:]),
            "disputed": self._disputed_json(),
            "questions": list(self.announced_questions),
            "status": self._status(),
        }

    @staticmethod
    def _names_key(model: GameModel) -> str:
        """What a move's JSON reads of the setup beside its record (_move_json's cache key)."""
        return repr(sorted(model.setup.names.items())) + repr(sorted(model.setup.seats.items()))

    def _warnings_of(self, turn: TurnRecord) -> list[tuple[tuple, dict[str, Any]]]:
        """The warnings of a move's violations, (key, warning) as _announcements makes them, cached per record
        (a frozen record's violations never change; _move_json's cache alike)."""
        hit = self._warning_cache.get(turn.move_id)
        if hit is not None and hit[0] is turn:
            return hit[1]
        out = [((turn.move_id, v.code, v.seat), {"code": v.code, "message": v.message, "seat": v.seat,
                                                 "move_id": turn.move_id, "details": _plain(v.details)})
               for v in turn.violations()]
        self._warning_cache[turn.move_id] = (turn, out)
        return out

    def _scores_json(self, model: GameModel) -> dict[str, Any] | None:
        """model.score_sheet() as JSON, scored again only when what it scores changed (the table as read with its
        extras — a frozen observation compares without them, and the scores read some —, the points, the end; the
        same rules): most frames that change the reading leave the score as it was."""
        table = model.table
        if table is None:
            return None
        key = (model.rules, table, dict(table.extra), {seat: dict(s.extra) for seat, s in table.seats.items()},
               model.points(), model.phase == "over")
        hit = self._score_cache
        if hit is not None and hit[0][0] is key[0] and hit[0][1:] == key[1:]:
            return hit[1]
        sheet = model.score_sheet()
        scores = sheet.to_json() if sheet is not None else None
        self._score_cache = (key, scores)
        return scores

    def _move_json(self, model: GameModel, turn: TurnRecord, names: str | None = None) -> dict[str, Any]:
        # Moves are re-sent only when they change; their JSON is cached per record (and names).
        if names is None:
            names = self._names_key(model)
        hit = self._move_cache.get(turn.move_id)
        if hit is not None and hit[0] is turn and hit[1] == names:
            return hit[2]
        data = move_json(model, turn)
        self._move_cache[turn.move_id] = (turn, names, data)
        return data

    @staticmethod
    def _score_history(model: GameModel) -> list[dict[str, Any]]:
        first = {s: 0 for s in model.setup.order}
        if model.turns:
            first = {s: 0 for s in model.turns[0].totals} or first
            try:
                base = model.rules.score(model.turns[0].base, {}, False)
                first = {s: p.total for s, p in base.scores.items()}
            except MalformedInput:
                pass
        elif model.table is not None:
            first = model.totals()
        return [{"move_id": 0, "totals": first}] + [{"move_id": t.move_id, "totals": dict(t.totals)}
                                                    for t in model.turns]

    def _status(self) -> dict[str, Any]:
        tracking = self.watch.status()
        if self._camera is not None:
            tracking = {"state": "paused", "reason": "camera-lost", "since": self._camera["since"]}
        return {"observer": self.observer, "tracking": tracking,
                "camera": dict(self._camera) if self._camera is not None else
                {"state": ((self._source_status.get("source") or {}).get("state")
                           if isinstance(self._source_status.get("source"), dict) else None)},
                "frames": self.watch.frames_seen, "unusable": self.watch.frames_unusable,
                "gaps": self.watch.gaps, "resumed": self.resumed, "source": dict(self._source_status)}



def _plain(details: dict[str, Any]) -> dict[str, Any]:
    """A violation's details as plain JSON (what the page words its warning from)."""
    return json.loads(json.dumps(details, default=str))


def open_tracker(data_dir: str, *, config: TrackingConfig | None = None, observer: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> GameTracker:
    """The tracker of a data directory (keltis-cam serve): resumes its latest game."""
    from .store import default_db_path

    return GameTracker(EventStore(default_db_path(data_dir)), config=config, observer=observer, clock=clock)


__all__ = ["GameTracker", "LiveEvent", "open_tracker", "move_json"]
