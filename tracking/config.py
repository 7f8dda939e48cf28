"""Every setting of tracking in one place (brief: "every threshold lives in config")."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from engine.errors import MalformedInput

#: Settings of the journal of accepted table states that the turn decoder replaced (issue 17): a
#: config file naming one is told so, not left guessing.
RETIRED = frozenset({
    'still_seconds_without_hand', 'revise_seconds', 'tail_frames', 'agree_fraction', 'min_frames',
    'slow_frame_seconds', 'hand_min_seconds', 'hand_min_frames', 'hand_vote_share',
    'split_cost_fast', 'split_cost_slow', 'turn_pause_seconds', 'pause_margin_seconds',
    'pause_cost', 'warning_settle_seconds', 'window_seconds', 'period_frames', 'undo_misreads',
    'cost_violation', 'cost_pending', 'cost_turn', 'cost_odd_draw', 'cost_hint', 'cost_misread',
    'cost_twin', 'cost_deep_draw', 'cost_quiet', 'cost_quiet_unused', 'cost_hand_per_frame',
    'cost_hand_max', 'cost_no_reach', 'max_top_choices', 'owed_discards', 'count_card_copies',
    'reread_chain', 'second_opinion', 'second_opinion_trigger', 'second_opinion_margin',
    'read_otherwise_states', 'read_otherwise_margin', 'hindsight_states', 'hindsight_came_and_went',
    'hindsight_other', 'pile_record_rereads', 'decoder'})


@dataclass(frozen=True)
class TrackingConfig:
    """Tuning of the tracker: the turn decoder's weights, and how the frame stream's status is told."""

    #: The page says "tracking" once usable frames have covered this many seconds (the table is still).
    still_seconds: float = 0.6
    #: No frame for this long is a camera gap (counted in the status).
    gap_seconds: float = 2.0
    #: The page says "paused" after this long without a usable frame.
    paused_after_seconds: float = 3.0
    #: End the game by itself when the draw pile runs out by the tracker's count (replays and
    #: benches: no players to press "end"); live, the page asks the players instead.
    auto_end_on_empty_draw_pile: bool = False

    # The turn decoder (tracking/decoder.py, issue 17): costs are −log-probability-like
    # units (lower is likelier), compared with one misread field ≈ −log(decoder_misread) ≈ 3.9.
    decoder_misread: float = 0.02        # chance a field is read otherwise in one frame (no reader confidence)
    decoder_misread_held: float = 1.0    # the same misread again in the next usable frame (misreads hold)
    decoder_phantom: float = 0.004       # chance a card or tile is read where there is none (a row read
    #                                      longer, an empty pile or spot read full): rarer than a misread (the
    #                                      discard reader shows an empty pile as a card on ~0.5 % of piles;
    #                                      1e-5 made a few frames' phantom card cost more than a made-up turn)
    decoder_covered_tile: float = 0.1    # chance a tile under a pawn is read as another tile for as long as that
    #                                      pawn stands there (the pawn hides it; the vision reader misread 60 % of
    #                                      such stays on the kept readings, docs/tracking.md session 18): it costs
    #                                      −log of this (or the field's misread cost if lower) once, then nothing
    #                                      while it reads the same and a pawn stands there, hands between or not
    #                                      (priced as other misreads, held per still moment, it lost to a tile
    #                                      change, a rule break the table never shows). 0: off
    decoder_misread_hold_max: float = 6.0   # ... in all at most this for one misread held frame after frame
    #                                         (nothing moved: the reader sees the same thing the same way)
    decoder_misread_kept: float = 0.0    # the same misread read again in the first usable frame after a hand
    #                                      (a move elsewhere keeps it: the reader's misreads of a still table
    #                                      outlast the next move on ~73 % of tables, tracking.noise
    #                                      HELD_OVER_MOVES); it then holds at decoder_misread_held per frame anew.
    #                                      0: off, priced as a new misread (1.0 on the session-10 dev seeds:
    #                                      +2 turns exact at 2 %, -6 at 5 %, 1 fps — a real change left as a
    #                                      kept misread got cheaper too)
    decoder_held_by_confidence: bool = True   # decoder_misread_held and _hold_max scaled by a kind's misread cost
    #                                      (reader confidence) over decoder_misread's when lower: a kind misread
    #                                      often is misread alike frame after frame (the vision reader's pawns:
    #                                      confidence 0.5); readers without confidence (truth) are not changed.
    #                                      Off in sessions 16-19 (it cost that demo 7 turns); on since session 20:
    #                                      with per-stone prices (decoder_element_confidence) the kept dev readings
    #                                      gain 111 -> 116 of 138 turns, the demo 74 -> 78 of 95 (docs/camera-path.md)
    decoder_element_confidence: bool = True   # price a pawn misread per stone by the reader's per-stone confidence
    #                                      (Observation extra "element_confidence"), not every stone at the frame's
    #                                      least sure one; readers without it (truth + noise) are not changed
    decoder_partial_pawns: bool = False  # a player's pawns read with two steps or more may be one step and a
    #                                      misread (the field taken with one of the steps read). Off: it gave a
    #                                      fixture's pile change to the wrong turn (nwnz-illegal through vision,
    #                                      3/3 -> 1/3 turns); dev 80200-80205 alike either way (session 16)
    decoder_big_echo: float = 0.0        # a pawn reading with one big pawn more than the table on a stone where the
    #                                      table has that player's small pawn (a big "echo" of a small pawn) pays this
    #                                      on top of the stone's misread: the vision reader's phantoms beside a
    #                                      player's own pawn are small ones (F84500's start extras small / big 48 / 6,
    #                                      log(48/6) ≈ 2.1; kept games 7 / 0 episodes): a first-row stone read with a
    #                                      player's big and small pawn where one stepped is the big pawn's step, not
    #                                      a tie the small one won by order (session 35, wt35-pgames). Off: dev
    #                                      kept games 257 -> 261/292 turns at 1.0, but the lead's fresh games
    #                                      84940-84948 78 -> 77/93 (two small steps of 84943 decoded big)
    decoder_carried_pawns: bool = True   # a player's pawns misread before a hand and read otherwise after it
    #                                      may be that misread carried over a real change (a phantom pawn beside
    #                                      the start crowd held for minutes while the player moves another pawn):
    #                                      the field also taken as the reading with the held misread undone
    decoder_step_colour: bool = True     # a pawn step pays decoder_rule unless a card laid that turn of its stone's
    #                                      colour pays for it (one card, one step; a joker stone takes any card; a
    #                                      clover's step goes anywhere; base board: a card whose end stone holds a
    #                                      pawn of the player's moves any pawn): the engine's wrong-colour, which
    #                                      the decoder did not price before session 23 — a pawn misread onto
    #                                      another path cost no more than the true step
    decoder_rule_steps: bool = True      # ... and a turn of the frame that laid a card and moved no pawn while its
    #                                      player's pawns read otherwise (a step onto a stone no card laid pays for,
    #                                      a second step, a phantom beside the pawn that stepped): also read with the
    #                                      step its card pays for made (decoder_unseen_steps' candidates), the
    #                                      reading a misread against that table — the rules' reading is judged,
    #                                      not only the reader's (session 23)
    decoder_pawn_rules: bool = True      # a pawn moved where no forward step takes it (back, or off its path) pays
    #                                      decoder_rule: the engine's pawn-backwards and pawn-not-adjacent, unpriced
    #                                      before (session 23, wt23-rules) — the reader's reading won for free and
    #                                      legal games showed the warnings (with decoder_two_steps: dev kept
    #                                      readings 355 -> 359/446 turns, finals 12 -> 16/34)
    decoder_two_steps: bool = True       # ... and a pawn moved k stones pays decoder_rule per stone beyond the first
    #                                      that no clover on a stone it crossed explains (the engine's two-steps):
    #                                      without it, pricing the moves above sent the reader's pawn misreads to
    #                                      a free two-stone move instead (the demo's north big pawn: start -> h2)
    decoder_second_pawn: bool = False    # ... and, base board, a path given a second pawn of one player (the
    #                                      engine's second-pawn-on-path). Off: without decoder_two_steps it sent a
    #                                      phantom pawn's readings to a free two-stone move (base 82934 11 -> 8/12
    #                                      turns); with it, dev kept readings 359/446 either way, finals 16 -> 15
    #                                      (base 82937) — no gain measured (session 23, wt23-rules)
    decoder_unseen_steps: bool = True    # pawns read moved now, by no recent turn: the step of the owner's last
    #                                      recent turn that laid a card and moved no pawn, missed until now
    decoder_revise_tops: bool = True     # a pile a recent turn changed reads otherwise now: that turn's reading of
    #                                      its top may have been a misread held since (the new card missed for its
    #                                      still moment, a card read gone across moves), revised as the other fields
    #                                      are (TurnDecoder._revisions); off: a top is never revised (as before s37)
    decoder_revise_top_values: bool = False  # ... also a top read as another card (not missed, not made up): off, the
    #                                      reader's held top misreads are a card missed or made up (tracking.noise:
    #                                      top-wrong never held), and a one-frame card read otherwise is no misread
    #                                      held; on, dev nwnz 1 fps lost two injected two-cards breaks this way
    decoder_setup_pawns: bool = True     # board game: a first table with no card laid yet (rows, points rows, wish
    #                                      stones and cards all empty) holds every player's pawns on the start, as the
    #                                      game sets them up (RULES: 4 small, 1 big): the first frame's other reading
    #                                      of them a misread, held as any (a misread first reading was the table, and
    #                                      its pawns' first real moves read as pawns gone, come or going back); off:
    #                                      the first frame's reading is the table (as before s37)
    decoder_first_tiles: bool = True     # the first table's tiles are an estimate, not the first frame's reading
    #                                      (tiles are laid at setup and never change, RULES §1): per spot the
    #                                      tile the frames so far cost least under (each still moment read
    #                                      otherwise one misread, then held as decoder_misread_held/_hold_max),
    #                                      moved only when that saves more than decoder_first_tile; on a move
    #                                      every hypothesis holding the old tile at a spot no turn of it changed
    #                                      or stepped on is revised in place (no second hypothesis: a revision
    #                                      takes no beam place) and the decoded game restarts from the revised
    #                                      table (no turn, no warning). Off: a later reading of the tile is a
    #                                      tile change (a rule break) or misreads (sessions 24-25, wt25-tiles)
    decoder_first_tile: float = 1.0      # ... the saving a move of the estimate needs, and what the revised
    #                                      hypotheses pay for it (hysteresis: a tile whose readings alternate
    #                                      does not flip the first table back and forth)
    decoder_first_tile_read: float = 1.0  # ... the most one still moment's reading of a tile weighs in that
    #                                      estimate: the vision reader's tile confidences are not calibrated
    #                                      (kept dev readings: first tables read a points tile otherwise at
    #                                      0.998, later frames read it right at 0.55), so each still moment
    #                                      is about one vote (session 25, wt25-tiles)
    decoder_tile_subsets: bool = False   # of a frame's many fields read otherwise (beyond decoder_max_fields), a tile
    #                                      read as another tile or where none lay (a change no rule makes) counts as a
    #                                      misread read again does: every subset of the rest is judged. Off (as before
    #                                      s37): two such tile misreads beside a turn's three fields leave only the
    #                                      turn taken whole or all but one field (dev nwnz 85322 ½ fps 2 %: a wish stone
    #                                      left a misread, warned twice; on: 5 -> 2 warnings). Off until measured on
    #                                      the whole dev set (session 37 ran out of time)
    decoder_beam: int = 12               # hypotheses kept
    decoder_max_fields: int = 4          # fields read otherwise beyond this: no subsets but none, all, all
    #                                      but one and each alone taken as changed
    decoder_prune: float = 30.0          # readings costing this much more than the best so far are dropped
    decoder_cuts: int = 4                # cuts of one change into turns kept per hypothesis and table
    decoder_cut_budget: int = 100        # cuts judged at most per hypothesis and table (cheapest bound first)
    decoder_frame_budget: int = 200      # ... and per frame (likeliest hypotheses and readings first):
    #                                      the bound on time per frame when many fields change at once
    decoder_cut_reserve: int = 0         # cuts each hypothesis' likeliest reading may judge beyond a spent frame
    #                                      budget (the first hypotheses' every reading can spend it all, leaving a
    #                                      runner-up whose likeliest reading is the truth unjudged; 0: off). 10
    #                                      fixes dev card 83565's take-back but warned a legal dev game (card 82622
    #                                      at 2 %) and cost the demo's kept readings a turn: off (session 27, wt27-order)
    decoder_gc_pause: bool = True        # the cyclic garbage collector paused while one usable frame is decoded
    #                                      and folded (the search makes and drops ~10^5 acyclic objects a frame:
    #                                      collections amid it traverse them for nothing and promote them towards
    #                                      full collections; refcounting frees them alike) — what is decoded is
    #                                      the same; dev (session 23): collections 4629 -> ~1500, their CPU ~1/4
    decoder_keep_bound: bool = True      # a frame's candidates costing more than decoder_beam kept already are
    #                                      not made (they never enter the beam; session 25, wt25-decspeed) — the
    #                                      beam is the same but for the order of candidates of exactly equal cost
    decoder_cut_memos: bool = True       # the cut search's tile parts (a loose tile merged into a part) and the open
    #                                      turn's rule cost worked out once per frame, not per cut and per search
    #                                      (the same values: what is decoded is the same; session 27, wt27-defer)
    decoder_lag: int = 20                # frames after which a turn of the best hypothesis is committed
    decoder_lag_seconds: float = 8.0     # ... and seconds (a window as long at every frame rate: at 5 fps 20
    #                                      frames are 4 s, shorter than the turns after one that tell it; no
    #                                      effect at 1 fps and 1/2 s). 0: off
    decoder_turn: float = 0.5            # one more turn in a cut
    decoder_rule: float = 10.0           # a card played or drawn beyond what a turn allows (a rule break)
    decoder_pair: float = 3.0            # card game: two cards laid in one turn (the last plays allow it)
    decoder_twin: float = 3.0            # a pile's change read as the twin of the card below its top discarded
    decoder_unknown_below: float = 2.0   # a pile drawn from where the record does not know the card below
    decoder_covered_below: float = 4.0   # ... and this more where the record knows another card below the top (a
    #                                      card discarded and covered by the next discard within one interval, never
    #                                      seen, uncovered by a draw: ~1.5 % of turns every 2 s, 42 of 2800 on
    #                                      wt32-dec0's dev, -log 4.2); 0: no such draw (the change read as a discard
    #                                      onto the top, and every turn after it read around that: wt37-lost)
    decoder_covered_by_rate: bool = False  # ... plus -log of a reach missed between two readings at the frame rate
    #                                      (the covering discard came before any reading showed the covered one: 4.2
    #                                      at 1 fps, 2.4 every 2 s): at 1 fps the uncovering draw then costs more than
    #                                      a rule break (dev: 4.0 alone read injected breaks as such draws; off)
    decoder_out_of_turn: float = 10.0    # a turn played before the turn of the seat whose turn it was
    #                                      (against a traceless turn with no hand of its seat seen: 6 + 4)
    decoder_order: float = 6.0           # a turn going on with a card played after it drew
    decoder_order_held: bool = True      # decoder_order also for a draw read frames before it is taken (a held
    #                                      misread till then, _coincide_cost) given to a turn whose plays are read
    #                                      only now, after it: played after it drew, as an open turn would pay
    #                                      (kept readings 734 -> 735/934; dev and fresh bench unchanged; wt27-order)
    decoder_quick_seconds: float = 1.5   # a reach this soon after the last one: the same player going on
    decoder_slow_seconds: float = 2.5    # ... this long after it: the next player
    decoder_pause: float = 2.0           # a reading against the pause before the reach
    decoder_traceless: float = 6.0       # a turn that changed nothing the camera sees, with no reach of its own
    #                                      seen (a seat's empty turn in a cut; decoder_no_draw, decoder_out_of_turn are
    #                                      set against it: at 4.0 base dev flagged 25 -> 21/31 breaks, wt32-dec0)
    decoder_traceless_reach: float = 6.0  # ... a reach of the next seat's own hands that left the table as it was:
    #                                      its card onto its twin, ~1 turn in 50 in the dev sim sessions (2.4 % nwnz,
    #                                      1.9 % base). Off (= decoder_traceless: decodes as before): 4.0 cleared two
    #                                      legal dev games' out-of-turn warnings (nwnz, 1/2 s) but cost card 84215
    #                                      a break and 2 turns and flipped 2 % ties (dev turns 0 / -3; wt32-dec0)
    decoder_traceless_twin: float = 3.9  # ... but this while some discard pile's top has a copy neither the rows nor
    #                                      the piles' record show (its twin may be in a hand): on the dev sessions
    #                                      85320-85349 (nwnz, 1 fps) 53 of 2544 such turns went onto a twin (-log 3.87),
    #                                      0 of 292 turns with no such top (wt37-lost)
    decoder_no_hand: float = 6.0         # a change between two frames with nothing covering the table, at
    #                                      most (less when the frames lie further apart than a reach lasts:)
    decoder_reach_seconds_min: float = 0.6   # a hand covers the table this long in one reach at least ...
    decoder_reach_seconds_max: float = 6.0   # ... and at most (spread evenly; a reach shorter than the time
    #                                          between two usable frames may fall between them unseen)
    decoder_draw_unseen: float = 0.5     # a turn over that played and was seen drawing nothing: its draw from
    #                                      the draw pile hidden from the camera, at least (more after short
    #                                      reaches: decoder_draw_reach_seconds; against it: it never drew and
    #                                      the next player played before it was over, decoder_no_draw)
    decoder_no_draw: float = 5.5         # a turn over without its draw: the next player played before it was over
    #                                      (the board game's out-of-turn, the card game's draw-count; a rule break;
    #                                      plus its longest reach's evidence of holding a draw, -log(1 - P two
    #                                      moves)): below decoder_traceless + decoder_turn it may stand in for a
    #                                      traceless turn, so that evidence is needed (session-14 dev seeds, base
    #                                      78104 at 1/2 s). A third seat out of turn while the turn never drew:
    #                                      decoder_out_of_turn, with the same evidence
    decoder_draw_reach_seconds: float = 5.2  # a turn over that played and drew nothing the camera saw: its draw
    #                                      from the draw pile hidden in the reach of its play (two moves in one
    #                                      reach) is even odds when that reach covered the table this long
    #                                      ((frames covered + 1/2) x the frame period), likelier the longer
    #                                      (a logistic of the seconds, decoder_draw_reach_spread); or the draw's
    #                                      own reach fell between two frames (decoder_reach_seconds_min..max);
    #                                      at least decoder_draw_unseen. On the session-14 dev sessions a play's
    #                                      reach of 2 frames at 1 fps held its draw 0.3 % of the time, 3 frames
    #                                      1.2 %, 4: 15 %, 5: 81 %, 6+: 96 %; at 1/2 s 1 frame 1.9 %, 2: 77 %
    decoder_draw_reach_spread: float = 0.45  # ... its spread (seconds)
    decoder_draw_hidden_max: float = 5.0     # ... a draw hidden from the camera costs at most this however short the
    #                                      reaches (players reach at their own pace: tracking.synth's streams at
    #                                      5 fps hold a whole turn in one reach of 1-2 s). No effect at 1 fps and
    #                                      1/2 s, where a reach between two frames keeps it below 4.3
    decoder_one_move_seconds: float = 2.0    # the pace those four are set for: a reach holding one move covers
    #                                      the table this long (frames covered x the frame period; the median
    #                                      of the simulator's one-move reaches at 1 fps and at 1/2 s alike).
    #                                      Each game learns its own (TurnDecoder._learn_pace: reaches of one
    #                                      seat one after another held one move each; a turn seen in a single
    #                                      reach held two, decoder_two_move_ratio); the two-move reach and the
    #                                      reach between two frames scale by its pace over this. 0: off
    decoder_pace_prior: float = 0.5      # ... the prior weighs as much as this many of the game's own reaches
    decoder_two_move_ratio: float = 3.0  # ... a reach holding a play and a draw lasts this many one-move reaches
    decoder_hand_missing: float = 4.0    # a turn by a seat no hand frame named (hands read meanwhile)
    decoder_hand_reach: float = 4.0      # ... and more for a turn that changed the table in a reach whose hand
    #                                      frames named only other seats: the reach that coincides with a change
    #                                      is the hands' evidence of who made it, once per reach however many
    #                                      frames (a traceless turn pays decoder_hand_missing alone)
    decoder_hand_coincide: bool = True   # ... and decoder_hand_missing + decoder_hand_reach for a pile's change read
    #                                      on every frame since an earlier reach and taken as a change only in a
    #                                      later one, given to a seat the earlier reach did not name: the change
    #                                      coincided with that reach (read as a misread held until the next
    #                                      reach, it was given to that reach's seat instead of a rule break)
    decoder_hand_coincide_empty: float = 4.0   # ... but this instead when the pile was read empty since that
    #                                      reach: a top read empty is the reader's commonest top misread (noise
    #                                      model s21: top-missed 0.152 of misreads against top-wrong 0.039, and
    #                                      held), so an empty reading coinciding with a reach is weaker evidence
    #                                      that the pile was really emptied then than a new card shown
    decoder_hand_again: float = 1.0      # instead of missing + reach, and of the named seats' decoder_hand_unused:
    #                                      the open turn acting again in a reach naming the same seats as the
    #                                      reach before, not its own — its arm misnamed alike again (the same arm
    #                                      from the same side: the misnaming holds through a turn,
    #                                      tests/tracking/test_misreads.py)
    decoder_hand_again_on: bool = True   # ... on; off: such a reach priced as any other
    decoder_hand_unused: float = 3.0     # a seat named by two hand frames or more that made no turn
    decoder_hand_frame: float = 0.0      # ... and per further second of hand frames naming another seat than
    #                                      the one that acted (a hand seen longer is more evidence, not a hand
    #                                      filmed faster: at 1 fps per frame, at 5 fps a fifth of it). Off: 1.0
    #                                      on the session-11 dev seeds at 1 fps flags nwnz 9 of 10 breaks (7 off),
    #                                      base 9 of 10 (8), turns exact base 949 of 951 (944) at 0 % — but every
    #                                      value ≥ 0.3 warns out of turn in test_misreads' hands misnamed for a
    #                                      whole turn (3 s at 5 fps), a behaviour the tests pin down
    decoder_hand_max: float = 12.0       # ... at most this for one turn's or one seat's hands
    decoder_answer: float = 30.0         # a reading against a seat named on the page
    decoder_unclear_margin: float = 2.0  # a runner-up this close giving a discard to another seat: asked
    decoder_ask_draws: bool = True       # ... any discard or draw from a discard pile of the recent turns, not only a
    #                                      discard-only turn's discard: two seats' reaches between two readings (at
    #                                      1/2 s the priors of either assignment are equal: wt32-dec0's "swap" class,
    #                                      43 of 102 turns lost at 0 %) are asked ("who took the green 0?"), not
    #                                      given silently. Only what is asked changes, never what is decoded (wt33-dec1)
    decoder_withdraw_decided: bool = True  # a question no reading within decoder_unclear_margin disputes any more
    #                                      while its turn is among the last seats + 1 (where the beam keeps readings
    #                                      that disagree apart: no Viterbi merge) is withdrawn from the page — later
    #                                      frames decided it (wt34-dec2). Off: a question stays until answered
    decoder_answer_occurrence: bool = True  # an answer to a question names that very pile change (pile, the card
    #                                      below or above, kind), not every later discard or draw of that card or its
    #                                      twin: keyed by card alone, answering every dev question from the truth
    #                                      lost turns (nwnz 1/2 s 0 %: 2751 -> 2727 of 2797; wt34-dec2). Off: by card
    decoder_answer_lag: bool = True      # ... and a cut reading that very pile change again once the answer is older
    #                                      than the commit lag (decoder_lag frames and seconds) reads a later change
    #                                      (a draw of the card and a discard of it back onto the same card), not the
    #                                      one asked about: nwnz 84885 answered "south discarded the yellow 9" (2 -> 9)
    #                                      and north's own 2 -> 9 26 frames later paid decoder_answer (wt34-dec3).
    #                                      Off: every later change alike pays
    decoder_answer_nth: bool = True      # ... and an answer or a dismiss is of that change alone, numbered as the
    #                                      best reading counts the changes of that pile, card and kind (the question's
    #                                      "nth"): the same card discarded or taken again later (RULES: two copies; a
    #                                      card drawn from a pile can be discarded again) is asked about anew and
    #                                      decided by its own evidence (session 35 wt35-qkey). Off: an answered or
    #                                      dismissed question blocks every later one about that pile, card and kind
    decoder_answer_redecode: bool = True  # an answer naming a seat the question did not offer that no reading the
    #                                      beam holds allows: the game's stored frames decoded again with the answer
    #                                      known from the first frame (the reading may have left the beam long before
    #                                      the question; session 35 wt35-neither). Off: refused at once
    decoder_sure_margin: float = 6.0     # a turn every reading this close to the best agrees on is shown
    #                                      with its warnings before the lag commits it

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, source: str = "tracking config") -> "TrackingConfig":
        """Read from JSON; unknown names or wrongly typed values raise MalformedInput naming them."""
        data = dict(data or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for name, value in data.items():
            if name in RETIRED:
                raise MalformedInput(f"tracking setting {name!r} is no longer used (the turn decoder replaced the "
                                     "journal it tuned): delete it", source=source, field=name)
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
