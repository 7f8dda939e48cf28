"""Applying moves and listing legal ones: the Keltis board-game rules (RULES.md §1 base, §2 NWNZ).

`apply_move(state, move)` is pure. A move that breaks a rule but could happen on a real table is
applied anyway and the rules it broke come back as violations (engine/violations.py codes);
MoveError is raised only for a move that cannot be made at all (a card not in that hand, an
unknown stone, drawing from an empty pile), quoting it.

Decisions where RULES.md leaves room (each cited where it is applied):
- Base board, end-stone overflow (RULES §1 "A pawn on its path's end stone: further cards of that
  colour may still be laid in the row and move another pawn one stone instead"): the other pawn
  must already stand on a path and not on its end stone; it moves one stone along its own path.
  A pawn on the start cannot be brought onto a path this way (that path's colour was not played).
- Base clover (RULES §1 "lets that player move any one of their pawns one more stone"): optional
  (`SkipClover` is legal); it moves a pawn already on a path, along that path. NWNZ clover
  (RULES §2 "you must move one of your pawns"): mandatory whenever some pawn can move, onto any
  next stone whatever its colour, pawns on the start included.
- Laying a card without moving a pawn is a violation (the turn is "lay it ... and move").
- A move by a seat whose turn it is not is reported as out-of-turn and the turn passes to that
  seat (its turn starts with that move). A step that does not fit the phase (a second card, a
  draw before playing) is applied and reported; a pending clover or discard tile is then dropped
  and reported if it was mandatory.
- After the game is over every move is reported as game-over; its physical part (cards, pawns)
  is still applied so that the state keeps matching the table, but no tile acts.
"""
from __future__ import annotations


from ..cards import COLOURS, HAND_SIZE, SEATS, Card
from ..errors import MoveError
from ..events import Event
from ..play import Transition
from ..rows import follow, replay_row
from ..violations import Violation
from .moves import (BIG, CARD, DRAW_PILE, PAWNS_PER_PLAYER, CloverStep, Discard, Draw, LayCard, Move, SkipClover,
                    SkipTileDiscard, TileDiscard, pawn_name)
from .state import COLOUR_INDEX, GOAL_PAWNS_TO_END, WISH_INDEX, BoardInfo, GameState, board_info, put

# Frozen dataclasses built without their generated __init__ (which sets field by field): this is the
# hot path of every simulated game. Only for classes whose instances keep their fields in __dict__.
_new = object.__new__
_set = object.__setattr__


def _a(card: Card) -> str:
    """"a blue 7": a card with its article, for sentences."""
    return f"a {card.colour} {card.value}"


class _Play:
    """One move being applied: a mutable copy of the state's fields plus the events and violations."""

    __slots__ = ("d", "info", "i", "seat", "player", "ev", "vio", "state")

    def __init__(self, state: GameState, i: int):
        self.state = state
        self.d = dict(state.__dict__)
        self.info = board_info(state.board)
        self.i = i
        self.seat = state.seats[i]
        self.player = state.players[i]
        self.ev: list[Event] = []
        self.vio: list[Violation] = []

    # ---- recording ------------------------------------------------------------------------------
    def event(self, kind: str, text: str, **data) -> None:
        # Event is a frozen dataclass; filling its __dict__ directly skips its slow generated
        # __init__ (this runs for every move of every simulated game).
        e = _new(Event)
        _set(e, "__dict__", {"kind": kind, "seat": self.seat, "text": text, "data": data})
        self.ev.append(e)

    def violation(self, code: str, message: str, **details) -> None:
        self.vio.append(Violation(code, message, self.seat, details))

    def finish(self) -> Transition:
        d = self.d
        if d["phase"] == "draw" and not d["game_over"] and len(d["hands"][d["turn_index"]]) >= HAND_SIZE:
            n = len(d["seats"])
            d["turn_index"] = (d["turn_index"] + 1) % n
            d["phase"] = "play"
            d["turn_number"] += 1
            d["turn_discards"] = ()
        d["id"] = self.state.id + 1
        new = _new(GameState)
        _set(new, "__dict__", d)  # d is this move's own copy of the fields: it becomes the new state's
        t = _new(Transition)
        _set(t, "__dict__", {"state": new, "events": tuple(self.ev), "violations": tuple(self.vio)})
        return t

    # ---- small state edits ------------------------------------------------------------------------
    def take_from_hand(self, card: Card, move: Move) -> Card:
        d = self.d
        hand = d["hands"][self.i]
        for k in range(len(hand)):  # identity first: cheap, and moves from legal_moves share the card objects
            if hand[k] is card:
                break
        else:
            try:
                k = hand.index(card)
            except ValueError:
                raise MoveError(f"{self.seat} ({self.player}) has no {card} in hand: {move.to_json()}") from None
        d["hands"] = put(d["hands"], self.i, hand[:k] + hand[k + 1:])
        return hand[k]  # the state's own card object (cards in a state are the shared CARD objects)

    def add_to_hand(self, card: Card) -> None:
        d = self.d
        d["hands"] = put(d["hands"], self.i, d["hands"][self.i] + (card,))

    def push_discard(self, card: Card) -> None:
        d = self.d
        ci = COLOUR_INDEX[card.colour]  # type: ignore[index]
        pile = d["discards"][ci] + (card,)
        d["discards"] = put(d["discards"], ci, pile)
        d["turn_discards"] = d["turn_discards"] + ((ci, len(pile) - 1),)

    def lay_in_row(self, card: Card, check: bool = True) -> None:
        d, i = self.d, self.i
        ci = COLOUR_INDEX[card.colour]  # type: ignore[index]
        rs, problem = follow(d["row_states"][i][ci], card, card.colour, seat=self.seat)  # type: ignore[arg-type]
        if problem is not None and check:
            self.vio.append(problem)
        d["rows"] = put(d["rows"], i, put(d["rows"][i], ci, d["rows"][i][ci] + (card,)))
        d["row_states"] = put(d["row_states"], i, put(d["row_states"][i], ci, rs))

    def remove_from_row(self, card: Card, move: Move) -> tuple[Card, bool]:
        """Take `card` off its row (its top-most copy): the state's card and whether it was the top card."""
        d, i = self.d, self.i
        ci = COLOUR_INDEX[card.colour]  # type: ignore[index]
        row = d["rows"][i][ci]
        if card not in row:
            raise MoveError(f"{self.seat} ({self.player}) has no {card} in the {card.colour} row: {move.to_json()}")
        k = len(row) - 1 - row[::-1].index(card)
        card = row[k]
        row = row[:k] + row[k + 1:]
        d["rows"] = put(d["rows"], i, put(d["rows"][i], ci, row))
        state, _ = replay_row(row, card.colour, seat=self.seat)  # type: ignore[arg-type]
        d["row_states"] = put(d["row_states"], i, put(d["row_states"][i], ci, state))
        return card, k == len(row)

    def pawn_and_stone(self, pawn: int, to: str, move: Move) -> str:
        """Validate a pawn index and target stone; return the pawn's stone."""
        if not isinstance(pawn, int) or isinstance(pawn, bool) or not 0 <= pawn < PAWNS_PER_PLAYER:
            raise MoveError(f"no pawn {pawn!r} (0 is the big pawn, 1-4 the small ones): {move.to_json()}")
        if to not in self.info.stones:
            raise MoveError(f"no stone {to!r} on the {self.info.board.name} board: {move.to_json()}")
        return self.d["pawns"][self.i][pawn]

    def end_game(self, reason: str) -> None:
        d = self.d
        d["game_over"], d["end_reason"], d["phase"] = True, reason, "over"
        self.ev.append(Event("game-ended", None, f"the game is over: {reason}", {"reason": reason}))

    def new_turn(self) -> None:
        d = self.d
        d["turn_index"], d["phase"], d["turn_discards"] = self.i, "play", ()
        d["turn_number"] += 1

    # ---- phases ---------------------------------------------------------------------------------
    def drop_pending(self) -> None:
        """The player moved on while a clover or discard tile was pending: report it if it was a must."""
        d = self.d
        if d["phase"] == "clover" and not self.info.base:
            self.violation("clover-not-used", f"{self.player} did not make the clover step: on this board the "
                           "clover must be used when a pawn can move (RULES §2)")
        elif d["phase"] == "discard-tile" and not d["settings"].discard_tile_optional:
            self.violation("discard-tile-not-used", f"{self.player} did not discard a card for the discard tile "
                           "(RULES §2: the tile must be obeyed when possible)")
        d["phase"] = "draw"

    def expect_play(self, card: Card, verb: str) -> None:
        """Before laying or discarding: the turn's one card must not have been played already."""
        d = self.d
        if d["phase"] == "play":
            return
        if d["phase"] in ("clover", "discard-tile"):
            self.drop_pending()
        if d["phase"] == "draw":
            self.violation("two-cards", f"{self.player} {verb} {_a(card)} after playing a card this turn: one card "
                           "per turn (RULES §1 Turn: play one card, then draw)", card=card.row_code,
                           colour=card.colour)

    # ---- pawn movement ----------------------------------------------------------------------------
    def check_step(self, pawn: int, frm: str, to: str) -> None:
        """Report a move that is not exactly one stone forward."""
        info = self.info
        n = info.steps(frm, to)
        who = pawn_name(pawn)
        if n is None:
            if info.steps(to, frm) is not None:
                self.violation("pawn-backwards", f"{self.player} moved {who} back from {info.label[frm]} to "
                               f"{info.label[to]}: pawns only move forward", pawn=pawn, **{"from": frm, "to": to})
            else:
                self.violation("pawn-not-adjacent", f"{self.player} moved {who} from {info.label[frm]} to "
                               f"{info.label[to]}, which is not on its way forward", pawn=pawn,
                               **{"from": frm, "to": to})
        elif n > 1:
            self.violation("two-steps", f"{self.player} moved {who} {n} stones, from {info.label[frm]} to "
                           f"{info.label[to]}: a pawn moves one stone at a time", pawn=pawn, steps=n,
                           **{"from": frm, "to": to})

    def check_card_colour(self, card: Card, pawn: int, frm: str, to: str) -> None:
        """Is `card` the right colour to move this pawn to `to` (RULES §1 Turn / §2 Movement)?"""
        info, own = self.info, self.d["pawns"][self.i]
        colour, stone_colour = card.colour, info.colour[to]
        end = info.end_of.get(colour)
        others_on_end = end in own and any(s == end for k, s in enumerate(own) if k != pawn)
        if info.base:
            if stone_colour != colour:
                if not others_on_end:
                    self.violation("wrong-colour", f"{_a(card)} moves a pawn on the {colour} path, not one going to "
                                   f"{info.label[to]}", card=card.row_code, colour=colour, to=to)
                elif frm == info.start:
                    self.violation("end-stone-overflow", f"{self.player}'s pawn on the {colour} end stone lets "
                                   f"{colour} cards move another pawn already on a path, not bring one from the "
                                   f"start (RULES §1)", card=card.row_code, colour=colour, to=to)
            elif frm == info.start and any(k != pawn and s != info.start and info.colour[s] == colour
                                           for k, s in enumerate(own)):
                self.violation("second-pawn-on-path", f"{self.player} already has a pawn on the {colour} path: "
                               f"each player has at most one pawn per path (RULES §1)", colour=colour, to=to)
        elif stone_colour != "joker" and stone_colour != colour:
            if others_on_end:
                self.violation("end-stone-overflow", f"unlike the base game, {self.player}'s pawn on the {colour} "
                               f"end stone does not let {colour} cards move other pawns (RULES §2); "
                               f"{info.label[to]} takes a {stone_colour} card", card=card.row_code, to=to)
            else:
                self.violation("wrong-colour", f"{_a(card)} cannot enter {info.label[to]}: it takes a "
                               f"{stone_colour} card", card=card.row_code, colour=colour, to=to)

    def move_pawn(self, pawn: int, frm: str, to: str, take: bool) -> None:
        """Put the pawn on `to`; end the game on the fifth goal pawn, else let the stone's tile act."""
        d, info, i = self.d, self.info, self.i
        d["pawns"] = put(d["pawns"], i, put(d["pawns"][i], pawn, to))
        was_in, now_in = frm in info.goal, to in info.goal
        if was_in != now_in:
            d["goal_pawns"] += 1 if now_in else -1
            if now_in and d["goal_pawns"] >= GOAL_PAWNS_TO_END and not d["game_over"]:
                # RULES §1 End: immediately — the tile on that stone is not applied.
                self.end_game(f"{GOAL_PAWNS_TO_END} pawns are in the goal area")
                return
        self.land(to, take)

    def land(self, to: str, take: bool) -> None:
        """The tile and wish pile on `to` act for the player who landed there (RULES §1 Tiles, §2 Tiles)."""
        d, info = self.d, self.info
        k = info.spot_index.get(to)
        code = d["tiles"][k] if k is not None else None
        label = info.label[to]
        if code is not None:
            if code.startswith("points-"):
                value = int(code[7:])
                d["points"] = put(d["points"], self.i, d["points"][self.i] + ((to, value),))
                self.event("points-scored", f"{self.player} scored {value} point{'s' * (value != 1)} "
                           f"(points tile on {label})", points=value, stone=to)
            elif code == "clover":
                if self.can_clover():
                    d["phase"] = "clover"
                    how = "may" if info.base else "must"
                    self.event("clover", f"{self.player} landed on a clover and {how} move a pawn one more stone",
                               stone=to)
                else:
                    self.event("clover-unusable", f"{self.player} landed on a clover, but no pawn can move",
                               stone=to)
            elif code == "discard":
                if any(self.d["hands"][self.i]) or any(self.d["rows"][self.i]):
                    d["phase"] = "discard-tile"
                    how = "may" if d["settings"].discard_tile_optional else "must"
                    self.event("discard-due", f"{self.player} landed on a discard tile and {how} discard a card "
                               "(from the hand or the top of a row)", stone=to)
            elif code.startswith("wish-"):
                colour = code[5:]
                if info.base or colour == "any" or d["settings"].wish_tile_taken:
                    self.take_wish_tile(k, colour, to, take)  # type: ignore[arg-type]
                else:  # the tile is a marker: a stone of its colour comes from the pile (RULES §2 variant)
                    self.take_from_pile(colour, to, take)
        pile = info.pile_colour.get(to)
        if pile is not None:
            self.take_from_pile(pile, to, take)

    def take_wish_tile(self, k: int, colour: str, to: str, take: bool) -> None:
        d = self.d
        what = "a wish stone" if colour == "any" else f"the {colour} wish stone"
        if not take:
            self.violation("tile-not-taken", f"{self.player} left {what} on {self.info.label[to]}: the player "
                           f"landing there takes it (RULES §{1 if self.info.base else 2})", stone=to, colour=colour)
            return
        d["tiles"] = put(d["tiles"], k, None)
        w = WISH_INDEX[colour]
        d["wish"] = put(d["wish"], self.i, put(d["wish"][self.i], w, d["wish"][self.i][w] + 1))
        self.event("wish-taken", f"{self.player} took {what} from {self.info.label[to]}", colour=colour,
                   stone=to, source="tile")

    def take_from_pile(self, colour: str, to: str, take: bool) -> None:
        d = self.d
        ci = COLOUR_INDEX[colour]
        if d["wish_piles"][ci] <= 0:
            self.event("wish-pile-empty", f"no {colour} wish stones are left for {self.player} to take",
                       colour=colour, stone=to)
            return
        if not take:
            self.violation("wish-not-taken", f"{self.player} did not take a {colour} wish stone from its pile "
                           f"(landing on {self.info.label[to]} gives one, RULES §2)", colour=colour, stone=to)
            return
        d["wish_piles"] = put(d["wish_piles"], ci, d["wish_piles"][ci] - 1)
        w = WISH_INDEX[colour]
        d["wish"] = put(d["wish"], self.i, put(d["wish"][self.i], w, d["wish"][self.i][w] + 1))
        self.event("wish-taken", f"{self.player} took a {colour} wish stone from its pile", colour=colour,
                   stone=to, source="pile")

    def can_clover(self) -> bool:
        return bool(clover_targets(self.info, self.d["pawns"][self.i]))


# ---- move handlers ------------------------------------------------------------------------------
def _lay(p: _Play, m: LayCard) -> None:
    p.expect_play(m.card, "laid")
    card = p.take_from_hand(m.card, m)
    p.lay_in_row(card)
    d, info = p.d, p.info
    frm = None
    if m.pawn is not None and m.to is not None:
        frm = p.pawn_and_stone(m.pawn, m.to, m)
    if frm is None or frm == m.to:
        can = lay_targets(info, d["pawns"][p.i], COLOUR_INDEX[card.colour])  # type: ignore[index]
        if can:
            p.violation("pawn-not-moved", f"{p.player} laid {_a(card)} but moved no pawn: the card moves a pawn "
                        "one stone (RULES §1 Turn)", card=card.row_code, colour=card.colour)
        else:
            p.violation("no-pawn-to-move", f"{p.player} laid {_a(card)}, but no pawn can move with it: "
                        "the card should have been discarded", card=card.row_code, colour=card.colour)
        p.event("card-laid", f"{p.player} laid {_a(card)} without moving a pawn", card=card.row_code,
                colour=card.colour)
        d["phase"] = "draw"
        return
    pawn, to = m.pawn, m.to
    assert pawn is not None and to is not None
    p.check_step(pawn, frm, to)
    p.check_card_colour(card, pawn, frm, to)
    p.event("card-laid", f"{p.player} laid {_a(card)} and moved {pawn_name(pawn)} to {info.label[to]}",
            card=card.row_code, colour=card.colour, pawn=pawn, to=to, **{"from": frm})
    d["phase"] = "draw"
    p.move_pawn(pawn, frm, to, m.take)


def _discard(p: _Play, m: Discard) -> None:
    p.expect_play(m.card, "discarded")
    card = p.take_from_hand(m.card, m)
    p.push_discard(card)
    p.event("card-discarded", f"{p.player} discarded {_a(card)}", card=card.row_code, colour=card.colour)
    p.d["phase"] = "draw"


def _clover_step(p: _Play, m: CloverStep) -> None:
    d, info = p.d, p.info
    frm = p.pawn_and_stone(m.pawn, m.to, m)
    if d["phase"] == "clover":
        d["phase"] = "draw"
    else:
        if d["phase"] == "discard-tile":
            p.drop_pending()
        p.violation("no-card", f"{p.player} moved {pawn_name(m.pawn)} to {info.label[m.to]} without laying a card "
                    "(there is no clover to use)", pawn=m.pawn, to=m.to)
    if frm == m.to:
        raise MoveError(f"the pawn already stands on {m.to}: {m.to_json()}")
    p.check_step(m.pawn, frm, m.to)
    if info.base and frm == info.start:
        p.violation("no-card", f"a clover moves a pawn already on a path; {pawn_name(m.pawn)} on the start "
                    "needs a card to enter a path (RULES §1)", pawn=m.pawn, to=m.to)
    p.event("clover-step", f"{p.player} moved {pawn_name(m.pawn)} to {info.label[m.to]} with the clover",
            pawn=m.pawn, to=m.to, **{"from": frm})
    p.move_pawn(m.pawn, frm, m.to, m.take)


def _skip_clover(p: _Play, m: SkipClover) -> None:
    if p.d["phase"] != "clover":
        raise MoveError(f"there is no clover step for {m.seat} to skip: {m.to_json()}")
    p.drop_pending()
    p.event("clover-skipped", f"{p.player} did not use the clover")


def _tile_discard(p: _Play, m: TileDiscard) -> None:
    d, card = p.d, m.card
    if d["phase"] == "discard-tile":
        d["phase"] = "draw"
    else:
        if d["phase"] == "clover":
            p.drop_pending()
        if m.from_row:
            p.violation("row-changed", f"{p.player} took the {card} back from the {card.colour} row: cards once "
                        "laid stay (only a discard tile lets the top card go)", card=card.row_code, colour=card.colour)
        elif d["phase"] == "play":  # a card from the hand onto its pile before playing: a plain discard
            _discard(p, Discard(m.seat, card))
            return
        else:
            p.violation("two-cards", f"{p.player} discarded {_a(card)} as well: one card per turn "
                        "(RULES §1 Turn)", card=card.row_code, colour=card.colour)
    if m.from_row:
        card, was_top = p.remove_from_row(card, m)
        where = f"the top of the {card.colour} row"
        if not was_top:
            p.violation("row-changed", f"{p.player} took the {card} out of the middle of the {card.colour} row: "
                        "only its top card may be discarded (RULES §2)", card=card.row_code, colour=card.colour)
            where = f"the middle of the {card.colour} row"
    else:
        card = p.take_from_hand(card, m)
        where = "the hand"
    p.push_discard(card)
    p.event("tile-discard", f"{p.player} discarded {_a(card)} from {where} for the discard tile",
            card=card.row_code, colour=card.colour, source="row" if m.from_row else "hand")


def _skip_tile_discard(p: _Play, m: SkipTileDiscard) -> None:
    if p.d["phase"] != "discard-tile":
        raise MoveError(f"there is no discard tile for {m.seat} to obey: {m.to_json()}")
    p.drop_pending()
    p.event("tile-discard-skipped", f"{p.player} did not discard a card for the discard tile")


def _draw(p: _Play, m: Draw) -> None:
    d = p.d
    if d["phase"] in ("clover", "discard-tile"):
        p.drop_pending()
    if d["phase"] == "play":
        p.violation("draw-count", f"{p.player} drew a card before playing one (RULES §1 Turn: play one card, "
                    "then draw)")
    if m.source == DRAW_PILE:
        pile = d["draw_pile"]
        if not pile:
            raise MoveError(f"the draw pile is empty: {m.to_json()}")
        d["draw_pile"] = pile[:-1]
        p.add_to_hand(pile[-1])
        p.event("drew", f"{p.player} drew a card from the draw pile", source=DRAW_PILE)
        if len(pile) == 1:
            p.end_game("the last card was drawn from the draw pile")
        return
    ci = COLOUR_INDEX.get(m.source)
    if ci is None:
        raise MoveError(f"no pile {m.source!r} to draw from (the draw pile or a colour): {m.to_json()}")
    pile = d["discards"][ci]
    if not pile:
        raise MoveError(f"the {m.source} discard pile is empty: {m.to_json()}")
    card, pos = pile[-1], len(pile) - 1
    if (ci, pos) in d["turn_discards"]:
        p.violation("draw-own-discard", f"{p.player} took back the {card} discarded this turn: a card discarded "
                    "this turn cannot be drawn (RULES §1 Turn)", card=card.row_code, colour=card.colour)
        d["turn_discards"] = tuple(x for x in d["turn_discards"] if x != (ci, pos))
    d["discards"] = put(d["discards"], ci, pile[:-1])
    p.add_to_hand(card)
    p.event("drew", f"{p.player} took {_a(card)} from the {m.source} discard pile", source=m.source,
            card=card.row_code)


_HANDLERS = {LayCard: _lay, Discard: _discard, CloverStep: _clover_step, SkipClover: _skip_clover,
             TileDiscard: _tile_discard, SkipTileDiscard: _skip_tile_discard, Draw: _draw}


def _after_game_over(p: _Play, m: Move) -> None:
    """Apply only the physical part of a move made after the end (no tile acts, no turn logic)."""
    d = p.d
    if isinstance(m, LayCard):
        p.lay_in_row(p.take_from_hand(m.card, m), check=False)
        if m.pawn is not None and m.to is not None:
            p.pawn_and_stone(m.pawn, m.to, m)
            d["pawns"] = put(d["pawns"], p.i, put(d["pawns"][p.i], m.pawn, m.to))
    elif isinstance(m, CloverStep):
        p.pawn_and_stone(m.pawn, m.to, m)
        d["pawns"] = put(d["pawns"], p.i, put(d["pawns"][p.i], m.pawn, m.to))
    elif isinstance(m, (Discard, TileDiscard)):
        if isinstance(m, TileDiscard) and m.from_row:
            card = p.remove_from_row(m.card, m)[0]
        else:
            card = p.take_from_hand(m.card, m)
        p.push_discard(card)
    elif isinstance(m, Draw):
        if m.source == DRAW_PILE:
            if not d["draw_pile"]:
                raise MoveError(f"the draw pile is empty: {m.to_json()}")
            p.add_to_hand(d["draw_pile"][-1])
            d["draw_pile"] = d["draw_pile"][:-1]
        else:
            ci = COLOUR_INDEX.get(m.source)
            if ci is None or not d["discards"][ci]:
                raise MoveError(f"no card to draw from {m.source!r}: {m.to_json()}")
            p.add_to_hand(d["discards"][ci][-1])
            d["discards"] = put(d["discards"], ci, d["discards"][ci][:-1])
    p.event("after-end", f"{p.player}: {m} (after the end of the game)")


def apply_move(state: GameState, move: Move) -> Transition:
    """Apply one move: the new state (id + 1), its events and the rules it broke."""
    handler = _HANDLERS.get(type(move))
    if handler is None:
        raise MoveError(f"not a board-game move: {move!r}")
    try:
        i = state.seats.index(move.seat)
    except ValueError:
        raise MoveError(f"{move.seat!r} does not play in this game (seats: {', '.join(state.seats)}): "
                        f"{move.to_json()}") from None
    p = _Play(state, i)
    if state.game_over:
        p.violation("game-over", f"the game is over ({state.end_reason}): {p.player} cannot play any more")
        _after_game_over(p, move)
        return p.finish()
    if i != state.turn_index:
        p.violation("out-of-turn", f"it is {state.players[state.turn_index]}'s turn "
                    f"({state.seats[state.turn_index]}), not {p.player}'s ({p.seat})")
        p.new_turn()
    handler(p, move)
    return p.finish()


# ---- legal moves --------------------------------------------------------------------------------
def _movable(info: BoardInfo, own: tuple[str, ...]) -> list[tuple[int, str]]:
    """(pawn, stone) of the pawns worth listing: the big pawn, and one small pawn per stone."""
    out = [(BIG, own[BIG])]
    seen = set()
    for k in range(1, PAWNS_PER_PLAYER):
        s = own[k]
        if s not in seen:
            seen.add(s)
            out.append((k, s))
    return out


def lay_targets(info: BoardInfo, own: tuple[str, ...], ci: int) -> list[tuple[int, str]]:
    """Legal (pawn, stone) moves for one card colour (RULES §1 Turn, §2 Movement), row order aside."""
    colour = COLOURS[ci]
    if not info.base:
        out = []
        for k, s in _movable(info, own):
            for n in info.entries[s][ci]:
                out.append((k, n))
        return out
    start, colour_of = info.start, info.colour
    on_path = next((k for k, s in enumerate(own) if s != start and colour_of[s] == colour), None)
    if on_path is None:  # the first card of a colour brings the big or a small pawn onto its path
        first = info.first[colour]
        out = []
        if own[BIG] == start:
            out.append((BIG, first))
        small = next((k for k in range(1, PAWNS_PER_PLAYER) if own[k] == start), None)
        if small is not None:
            out.append((small, first))
        return out
    s = own[on_path]
    if s not in info.end_stones:
        return [(on_path, info.next[s][0])]
    # End-stone overflow (RULES §1): another pawn already on a path, not on its end stone, moves on.
    return [(k, info.next[t][0]) for k, t in enumerate(own)
            if k != on_path and t != start and t not in info.end_stones]


def clover_targets(info: BoardInfo, own: tuple[str, ...]) -> list[tuple[int, str]]:
    """Legal (pawn, stone) clover steps (RULES §1 Tiles: along a path; §2: any next stone)."""
    if info.base:
        return [(k, info.next[s][0]) for k, s in enumerate(own) if s != info.start and s not in info.end_stones]
    return [(k, n) for k, s in _movable(info, own) for n in info.next[s]]


def fits(rs, value: int) -> bool:
    """Does a card of `value` keep a row in order (RULES §1 Card rows)?"""
    last = rs.last
    return last is None or rs.direction == 0 or (value - last) * rs.direction >= 0


def legal_moves(state: GameState) -> list[Move]:
    """Every legal next step for the seat to act (empty once the game is over)."""
    phase = state.phase
    if phase == "over" or state.game_over:
        return []
    i, seat = state.turn_index, state.seats[state.turn_index]
    info = board_info(state.board)
    own = state.pawns[i]
    if phase == "play":
        moves: list[Move] = []
        row_states = state.row_states[i]
        discards = _DISCARDS.get(seat)
        if discards is None:
            discards = _DISCARDS[seat] = {}
        # The lays of a card depend only on who holds it and where their pawns stand, and a player's
        # pawns often stand still between turns: remember the options for the seat's current pawns.
        memo = _MEMO.get((info, seat))
        if memo is None or memo[0] != own:
            memo = _MEMO[(info, seat)] = (own, {}, {})
        _, lays, targets = memo
        seen = set()
        for card in state.hands[i]:
            cid = id(card)  # cards in a state are the shared CARD objects: equal cards are the same object
            if cid in seen:
                continue
            seen.add(cid)
            m = discards.get(cid)
            if m is None:
                m = discards[cid] = Discard(seat, card)
            moves.append(m)
            ci, value = _CARD_INFO.get(cid) or (COLOUR_INDEX[card.colour], card.value)  # type: ignore[index]
            rs = row_states[ci]
            last = rs.last
            if last is not None and rs.direction and (value - last) * rs.direction < 0:
                continue  # the card would break its row's order (RULES §1 Card rows)
            options = lays.get(cid)
            if options is None:
                t = targets.get(ci)
                if t is None:
                    t = targets[ci] = lay_targets(info, own, ci)
                options = lays[cid] = _lay_options(seat, card, t)
            moves += options
        return moves
    if phase == "draw":
        draws = _DRAWS[seat]
        moves = [draws[DRAW_PILE]] if state.draw_pile else []
        for ci, pile in enumerate(state.discards):
            if pile and (ci, len(pile) - 1) not in state.turn_discards:
                moves.append(draws[COLOURS[ci]])
        return moves
    if phase == "clover":
        moves = [CloverStep(seat, k, n) for k, n in clover_targets(info, own)]
        if info.base or not moves:
            moves.append(SkipClover(seat))
        return moves
    if phase == "discard-tile":
        moves = []
        for card in dict.fromkeys(state.hands[i]):
            moves.append(TileDiscard(seat, card, False))
        for row in state.rows[i]:
            if row:
                moves.append(TileDiscard(seat, row[-1], True))
        if state.settings.discard_tile_optional or not moves:
            moves.append(SkipTileDiscard(seat))
        return moves
    raise AssertionError(f"unknown phase {phase!r}")


# Interned move objects, keyed by seat and id() of the card object: legal_moves builds the same moves
# over and over. A cached move holds its card, so that id cannot be reused while the entry lives.
_DISCARDS: dict[str, dict[int, Discard]] = {}
_MEMO: dict[tuple[BoardInfo, str], tuple[tuple[str, ...], dict, dict]] = {}
_LAYS: dict[tuple, LayCard] = {}
_LAYS_MAX = 100_000  # more distinct lays than any board has: a safety bound on memory


def _lay_options(seat: str, card: Card, targets: list[tuple[int, str]]) -> tuple[LayCard, ...]:
    if len(_LAYS) > _LAYS_MAX:
        _LAYS.clear()
    out = []
    for pawn, to in targets:
        key = (seat, id(card), pawn, to)
        m = _LAYS.get(key)
        if m is None:
            m = _LAYS[key] = LayCard(seat, card, pawn, to)
        out.append(m)
    return tuple(out)


_DRAWS: dict[str, dict[str, Draw]] = {seat: {src: Draw(seat, src) for src in (DRAW_PILE, *COLOURS)} for seat in SEATS}
_CARD_INFO: dict[int, tuple[int, int]] = {id(card): (COLOUR_INDEX[c], v) for (c, v), card in CARD.items()}


__all__ = ["Transition", "apply_move", "legal_moves", "lay_targets", "clover_targets", "fits", "CARD"]
