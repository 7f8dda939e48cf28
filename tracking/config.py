"""Every threshold of tracking in one place (brief: "every threshold lives in config")."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput


@dataclass(frozen=True)
class TrackingConfig:
    """Tuning of the stability filter and the tracker; the defaults suit a 3–10 fps camera."""

    #: A new table state is accepted once the table has read the same (by per-field majority) and
    #: usable frames have covered this many seconds since the last hand over the table.
    still_seconds: float = 0.6
    #: A change seen with no hand over the table in between (a misread that persists, a nudged
    #: pawn) must hold this long before it is accepted.
    still_seconds_without_hand: float = 3.0
    #: When the next hand comes, a state taken since the last hand is read again over the whole
    #: still period: a field whose reading changed (with no hand) and then held this long up to the
    #: hand is revised (a misread that held the first frames after the previous hand). A field whose
    #: last min_frames frames before the hand read it as it was before the state is revised at once.
    revise_seconds: float = 2.0
    #: A discard pile that the last this many frames before a hand read otherwise than the state
    #: taken is evidence of a misread, used when the next state reads the pile that way too (0: off).
    tail_frames: int = 2
    #: Each field's most common reading must have at least this share of the frames in the window.
    agree_fraction: float = 0.6
    #: ... and the window must hold at least this many usable frames (2 when frames come
    #: slow_frame_seconds or more apart: a 1 fps camera).
    min_frames: int = 3
    slow_frame_seconds: float = 0.4
    #: Unusable frames spanning at least this long (or `hand_min_frames` frames in a row) count as
    #: a hand over the table; a single unusable frame is ignored as a glitch.
    hand_min_seconds: float = 0.3
    hand_min_frames: int = 2
    #: A reach's frames name its seat when one seat has at least this share of the frames that named one.
    hand_vote_share: float = 0.6
    #: Reading one accepted change as two or more turns means a still moment between them was
    #: missed: unlikely with a fast camera (cost in "rule breaks" ×10 of inference), common at 1 fps.
    split_cost_fast: int = 10
    split_cost_slow: int = 2
    #: Players go on with their own turn quickly (drawing after laying) and take over from another
    #: player after a moment: a rest longer than this before a reach hints at a new turn (a tie
    #: breaker worth pause_cost, never stronger than a rule).
    turn_pause_seconds: float = 1.4
    pause_margin_seconds: float = 0.4  # rests within this of turn_pause_seconds say nothing
    pause_cost: int = 3
    #: A warning on a move is shown once the table it was read from has held this long, or with the
    #: next table state taken: a misread that held the first frames after a hand is read again over
    #: the whole still period when the next hand comes (and one that held until the next hand is
    #: found by the next state), and must not flash a warning before that.
    warning_settle_seconds: float = 1.5
    #: No frame for this long is a camera gap: tracking pauses and needs fresh stillness.
    gap_seconds: float = 2.0
    #: Frames kept for voting (seconds); older frames never vote.
    window_seconds: float = 2.0
    #: The tracker reports the state as paused after this long without a usable frame.
    paused_after_seconds: float = 3.0
    #: End the game by itself when the draw pile runs out by the tracker's count (replays and
    #: benches: no players to press "end"); live, the page asks the players instead.
    auto_end_on_empty_draw_pile: bool = False
    #: Usable frames kept since the last hand (the still period read again when the next hand comes).
    period_frames: int = 200
    #: A field reading again as it did before the state taken last is that state's misread undone
    #: (or a move taken back) and is taken at once; False: it waits like any odd field.
    undo_misreads: bool = True

    # Costs of an explanation of a change (inference), in "rule breaks"-like units: lower is likelier.
    cost_violation: int = 10      # one rule break (shown or owed)
    cost_pending: int = 2         # a finding the rest of the turn may still settle (a deferred code)
    cost_turn: int = 1            # one more turn in the explanation
    cost_odd_draw: int = 6        # a card drawn beyond the cards played (also: how close a runner-up counts)
    cost_hint: int = 15           # going against an explicit hint (a correction naming who played)
    cost_misread: int = 5         # a discard of the open turn that the pile, reading otherwise later, proves misread
    cost_twin: int = 4            # a pile showing the card below its top again read as that card's twin discarded
    cost_deep_draw: int = 6       # a pile showing a card believed deeper in it read as drawn down to it
    cost_quiet: int = 1           # a reach read as a turn that left no trace
    cost_quiet_unused: int = 3    # a reach that left no trace and is not read as a turn or a draw
    cost_hand_per_frame: int = 3  # a reach given to a player: per frame their seat trails the seat most named
    cost_hand_max: int = 8        # ... at most this per reach (below one rule break: a reach may be misread)
    cost_no_reach: int = 8        # a turn (or a traceless turn) with no reach seen for it, when hands are read
    max_top_choices: int = 3      # beyond this many changed discard piles, all go to one turn (a very odd change)
    #: A turn that ends still owing a discard (a discard-a-card tile) pays for it at once, so a card
    #: discarded under someone else's hand stays with the player who owes it; False: judged later only.
    owed_discards: bool = True
    #: Card game: a pile showing a card the deck holds no other copy of (every copy accounted for) is
    #: never read as that card's twin discarded; False: the deck's copies are not counted.
    count_card_copies: bool = True

    # Reading earlier changes again (the journal), in accepted states and explanation costs.
    reread_chain: int = 8                  # discard-only changes read again when a new change comes (0: none)
    second_opinion: bool = True            # a costly change reads the change before with its runner-up
    second_opinion_trigger: int = 6        # ... when it costs this or more
    second_opinion_margin: int = 6         # ... and that runner-up cost at most this much more
    read_otherwise_states: int = 5         # states back a new rule break sends the tracker to read otherwise (0: off)
    read_otherwise_margin: int = 16        # ... a change whose best other reading cost at most this much more
    hindsight_states: int = 6              # states back a new state may prove a reading misread (0: off)
    hindsight_came_and_went: float = 0.5   # cost of a misread that came and went (or a row's newest card reread)
    hindsight_other: float = 1.0           # cost of any other misread that held a whole still moment
    pile_record_rereads: bool = True       # a pile's record can prove a draw-looking reading misread

    #: The moves are decided by the turn decoder (tracking/decoded.py, DecodedTracker); False: by the
    #: journal of accepted table states (tracking/model.py). Off by default until every tracking test
    #: passes with the decoder (issue 17 notes list those that do not yet).
    decoder: bool = False

    # The turn decoder (tracking/decoder.py, issue 17): costs are −log-probability-like
    # units (lower is likelier), compared with one misread field ≈ −log(decoder_misread) ≈ 3.9.
    decoder_misread: float = 0.02        # chance a field is read otherwise in one frame (no reader confidence)
    decoder_misread_held: float = 1.0    # the same misread again in the next usable frame (misreads hold)
    decoder_phantom: float = 0.00001     # chance a card or tile is read where there is none (a row read
    #                                      longer, an empty pile or spot read full): far rarer than a misread
    decoder_misread_hold_max: float = 6.0   # ... in all at most this for one misread held frame after frame
    #                                         (nothing moved: the reader sees the same thing the same way)
    decoder_beam: int = 12               # hypotheses kept
    decoder_max_fields: int = 4          # fields read otherwise beyond this: no subsets but none, all, all
    #                                      but one and each alone taken as changed
    decoder_prune: float = 30.0          # readings costing this much more than the best so far are dropped
    decoder_cuts: int = 4                # cuts of one change into turns kept per hypothesis and table
    decoder_cut_budget: int = 100        # cuts judged at most per hypothesis and table (cheapest bound first)
    decoder_frame_budget: int = 200      # ... and per frame (likeliest hypotheses and readings first):
    #                                      the bound on time per frame when many fields change at once
    decoder_lag: int = 20                # frames after which a turn of the best hypothesis is committed
    decoder_turn: float = 0.5            # one more turn in a cut
    decoder_rule: float = 10.0           # a card played or drawn beyond what a turn allows (a rule break)
    decoder_pair: float = 3.0            # card game: two cards laid in one turn (the last plays allow it)
    decoder_twin: float = 3.0            # a pile's change read as the twin of the card below its top discarded
    decoder_unknown_below: float = 2.0   # a pile drawn from where the record does not know the card below
    decoder_out_of_turn: float = 10.0    # a turn played before the turn of the seat whose turn it was
    #                                      (against a traceless turn with no hand of its seat seen: 6 + 4)
    decoder_order: float = 6.0           # a turn going on with a card played after it drew
    decoder_quick_seconds: float = 1.5   # a reach this soon after the last one: the same player going on
    decoder_slow_seconds: float = 2.5    # ... this long after it: the next player
    decoder_pause: float = 2.0           # a reading against the pause before the reach
    decoder_traceless: float = 6.0       # a turn that changed nothing the camera sees
    decoder_no_hand: float = 6.0         # a change between two frames with nothing covering the table
    decoder_hand_missing: float = 4.0    # a turn by a seat no hand frame named (hands read meanwhile)
    decoder_hand_unused: float = 3.0     # a seat named by two hand frames or more that made no turn
    decoder_hand_frame: float = 0.0      # ... and per further hand frame naming another seat than the one
    #                                      that acted (a hand frame names a wrong seat rarely)
    decoder_hand_max: float = 12.0       # ... at most this for one turn's or one seat's hands
    decoder_answer: float = 30.0         # a reading against a seat named on the page
    decoder_unclear_margin: float = 2.0  # a runner-up this close giving a discard to another seat: asked
    decoder_sure_margin: float = 6.0     # a turn every reading this close to the best agrees on is shown
    #                                      with its warnings before the lag commits it

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, source: str = "tracking config") -> "TrackingConfig":
        """Read from JSON; unknown names or wrongly typed values raise MalformedInput naming them."""
        data = dict(data or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for name, value in data.items():
            if name not in fields:
                raise MalformedInput(f"unknown tracking setting {name!r} (known: {sorted(fields)})", source=source)
            default = getattr(cls, name)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not ok or (not isinstance(value, bool) and value < 0):
                raise MalformedInput(f"bad value {value!r}", source=source, field=name)
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        """All settings with their values."""
        return dataclasses.asdict(self)
