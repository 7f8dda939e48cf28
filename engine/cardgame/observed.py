"""Scoring and checking observed card-game states (FORMATS §2, game "keltis-card").

The camera sees rows ("0"–"10", "P<n>", "E"), points-row counts, wish cards and discard-pile tops;
it never sees hands. `check_change` works out what changed between two states — cards laid per
seat and row, points-row growth, wish cards taken, discard tops, and (when the observation has
the extra field "draw_pile") cards drawn from the draw pile — and which rules of RULES.md §3 that
breaks. It judges one change on its own: a change is expected to span at most one player's turn
(play and draws), or any number of final plays once the end has come. What only a history can
tell (whose turn it is, a card drawn back from one's own discard, a third final card laid in a
later change) is the tracker's job, not this function's.
"""
from __future__ import annotations

from collections import Counter
from typing import Mapping

from ..cards import COLOURS, SEATS, parse_row_code
from ..errors import MalformedInput, ObservationError
from ..events import ChangeReport, Event
from ..observation import Observation
from ..rows import RowState, follow, replay_row
from ..scoring import ScoreSheet, sheet
from ..violations import Violation
from .rules import PILES, POINTS_PILE, Settings, end_condition_met, end_condition_text, final_play_text
from .score import seat_parts

def _copies(key: str) -> int:
    """How many copies of a card the deck holds (RULES §3 Components); `key` as made by _inventory."""
    if key.startswith("P"):
        return 1
    value = key.split()[1]
    if value == "E":
        return 2
    return 2 if 3 <= int(value) <= 7 else 1


def validate_observation(obs: Observation, source: str = "<observation>") -> None:
    """Raise ObservationError (naming `source` and the field) when a state cannot be a card-game table.

    Rule breaks (a card out of order, a card on the wrong pile) are not errors: check_change reports them.
    """
    if obs.game != "keltis-card":
        raise ObservationError(f"not a card-game state (game {obs.game!r}, expected 'keltis-card')",
                               source=source, field="game")
    if not obs.usable:
        raise ObservationError(f"the frame is marked unusable ({obs.reason}); nothing to read", source=source,
                               field="usable")
    for pile in obs.discard_tops:
        if pile not in PILES:
            raise ObservationError(f"unknown discard pile {pile!r} (piles: {', '.join(PILES)})", source=source,
                                   field=f"discard_tops.{pile}")
    for seat, s in obs.seats.items():
        doubled = sorted(v for v, n in Counter(s.wish_cards).items() if n > 1)
        if doubled:
            raise ObservationError(f"wish card {doubled[0]} listed twice (each wish card exists once)",
                                   source=source, field=f"seats.{seat}.wish_cards")


_require_card_game = validate_observation


def score_observation(obs: Observation, points: Mapping[str, int] | None = None, *,
                      final: bool = False) -> ScoreSheet:
    """Score every seat of an observed state (RULES §3 Scoring).

    `points` exists for the board game's points tiles; the card game has none, so any non-zero
    entry is refused. `final` marks the sheet as the final result.
    """
    _require_card_game(obs, "<observation>")
    extra = {seat: n for seat, n in (points or {}).items() if n}
    if extra:
        raise MalformedInput(f"the card game has no points tiles, got {extra}", field="--points")
    return sheet(((seat, s.player, seat_parts(s.rows, s.points_row, s.wish_cards))
                  for seat, s in _ordered(obs.seats)), final=final)


def _ordered(seats: Mapping[str, object]):
    return sorted(seats.items(), key=lambda kv: SEATS.index(kv[0]))


def end_reached(obs: Observation, settings: Settings | None = None) -> str | None:
    """"end-cards" or "draw-pile" when the observed table already meets an end condition (RULES §3 End)."""
    settings = settings or Settings()
    rows = [(seat, colour) for seat, s in obs.seats.items() for colour, codes in s.rows.items() if "E" in codes]
    if end_condition_met(settings, rows):
        return "end-cards"
    if obs.extra.get("draw_pile") == 0:
        return "draw-pile"
    return None


def _words(code: str, colour: str | None) -> str:
    """An observed card as words: "a red 7", "a red end card", "the points card 7"."""
    if code == "E":
        return f"a {colour} end card" if colour else "an end card"
    if code.startswith("P"):
        return f"the points card {code[1:]}"
    return f"a {colour} {code}" if colour else f"a {code}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _row_words(colour: str, rs: RowState, length: int) -> str:
    how = "closed" if rs.ends >= 2 else "ended" if rs.ends else "" if rs.direction == 0 else rs.direction_word
    return f"{colour} row{' ' + how if how else ''}, {_plural(length, 'card')}"


def _value(code: str | None) -> int | None:
    if code is None or code == "E":
        return None
    return int(code[1:]) if code.startswith("P") else int(code)


def _pile_accepts(pile: str, code: str) -> bool:
    return code.startswith("P") == (pile == POINTS_PILE)


def _inventory(obs: Observation) -> Counter:
    """Copies of each identifiable card on the table, in rows and on the discard tops.

    Keys are "P7" for points cards and "<colour> <code>" ("red 7", "red E") for coloured cards:
    strings, because this runs on every change and parsing every card of every row is slow.
    """
    seen: Counter = Counter()
    for s in obs.seats.values():
        for colour, codes in s.rows.items():
            seen.update(code if code[0] == "P" else f"{colour} {code}" for code in codes)
    for pile, code in obs.discard_tops.items():
        if code is not None and _pile_accepts(pile, code):
            seen[code if code[0] == "P" else f"{pile} {code}"] += 1
    return seen


def _copies_words(key: str, n: int) -> str:
    """"2 red 9s are on the table", "3 red end cards are ...", "the points card 7 is ... 2 times"."""
    if key.startswith("P"):
        return f"the points card {key[1:]} is on the table {n} times"
    colour, code = key.split()
    if code == "E":
        return f"{n} {colour} end cards are on the table"
    return f"{n} {colour} {code}s are on the table"


def check_change(before: Observation, after: Observation, *, settings: Settings | None = None) -> ChangeReport:
    """What changed between two observed card-game states, and every rule of RULES §3 the change breaks."""
    settings = settings or Settings()
    _require_card_game(before, "before")
    _require_card_game(after, "after")
    changes: list[Event] = []
    problems: list[Violation] = []

    def event(kind: str, seat: str | None, text: str, **data: object) -> None:
        changes.append(Event(kind, seat, text, data))

    def violate(code: str, message: str, seat: str | None, **details: object) -> None:
        problems.append(Violation(code, message, seat, details))

    ended_before = end_reached(before, settings)
    ended_after = end_reached(after, settings)

    # --- what each seat laid and took
    laid: dict[str, list[str]] = {}       # seat -> descriptions of the cards laid
    wishes: dict[str, list[int]] = {}     # seat -> wish cards taken
    for seat in sorted(set(before.seats) | set(after.seats), key=SEATS.index):
        b, a = before.seats.get(seat), after.seats.get(seat)
        if b is None or a is None:
            violate("unexplained-change", f"the {seat} seat {'appeared' if b is None else 'disappeared'}", seat)
            continue
        if b.player != a.player:
            violate("unexplained-change", f"the player at {seat} changed from {b.player} to {a.player}", seat)
        for colour in COLOURS:
            old, new = b.rows.get(colour, ()), a.rows.get(colour, ())
            if tuple(new[:len(old)]) != tuple(old):
                violate("row-changed", f"{seat}'s {colour} row changed: it was {', '.join(old)} and is now "
                        f"{', '.join(new) or 'gone'}", seat, colour=colour, before=list(old), after=list(new))
                continue
            if len(new) == len(old):
                continue
            rs, _ = replay_row([parse_row_code(c, colour) for c in old], colour, turn_at_limits=True, seat=seat)
            for n, code in enumerate(new[len(old):], start=len(old) + 1):
                rs, problem = follow(rs, parse_row_code(code, colour), colour, turn_at_limits=True, seat=seat)
                if problem is not None:
                    problems.append(problem)
                where = f" on the {colour} row" if code.startswith("P") else ""
                event("card-laid", seat, f"{seat} laid {_words(code, colour)}{where} ({_row_words(colour, rs, n)})",
                      row=colour, card=code, length=n)
                laid.setdefault(seat, []).append(f"{_words(code, colour)} on the {colour} row")
        if a.points_row < b.points_row:
            violate("row-changed", f"{seat}'s points row shrank from {_plural(b.points_row, 'card')} to "
                    f"{a.points_row}", seat, row="points", before=b.points_row, after=a.points_row)
        elif a.points_row > b.points_row:
            grew = a.points_row - b.points_row
            event("card-laid", seat, f"{seat} laid {_plural(grew, 'points card')} in the points row "
                  f"({_plural(a.points_row, 'card')})", row="points", count=grew, length=a.points_row)
            laid.setdefault(seat, []).extend(["a points card in the points row"] * grew)
        held_before, held_after = Counter(b.wish_cards), Counter(a.wish_cards)
        for v in sorted((held_before - held_after).elements()):
            violate("wish-unexplained", f"the wish card {v} left {seat}'s place", seat, wish=v)
        gained = sorted((held_after - held_before).elements())
        if gained:
            wishes[seat] = gained

    # --- discard piles and the draw pile
    changed: list[str] = []
    for pile in PILES:
        old, new = before.discard_tops.get(pile), after.discard_tops.get(pile)
        if old == new:
            continue
        changed.append(pile)
        colour = pile if pile in COLOURS else None
        was = "empty" if old is None else _words(old, colour)
        if new is None:
            event("discard-top", None, f"the {pile} discard pile is now empty (it showed {was})", pile=pile, top=None)
            continue
        event("discard-top", None, f"the {pile} discard pile now shows {_words(new, colour)} (it showed {was})",
              pile=pile, top=new)
        if not _pile_accepts(pile, new):
            right = "points" if new.startswith("P") else "a coloured"
            violate("discard-mismatch", f"{_words(new, colour)} lies on the {pile} discard pile; it belongs on "
                    f"{'the ' + right if right == 'points' else right} pile", None, pile=pile, top=new)
    drawn = 0
    pile_before, pile_after = before.extra.get("draw_pile"), after.extra.get("draw_pile")
    if isinstance(pile_before, int) and isinstance(pile_after, int):
        if pile_after > pile_before:
            violate("unexplained-change", f"the draw pile grew from {pile_before} to {pile_after} cards", None)
        elif pile_after < pile_before:
            drawn = pile_before - pile_after
            event("drew", None, f"{_plural(drawn, 'card')} drawn from the draw pile ({pile_after} left)",
                  count=drawn, left=pile_after)

    # --- wish cards: each exists once, and is taken with a pair of its value
    holders: dict[int, list[str]] = {}
    for seat, s in _ordered(after.seats):
        for v in s.wish_cards:
            holders.setdefault(v, []).append(seat)
    old_holders: dict[int, list[str]] = {}
    for seat, s in _ordered(before.seats):
        for v in s.wish_cards:
            old_holders.setdefault(v, []).append(seat)
    for v, seats in sorted(holders.items()):
        if len(seats) > 1 and len(old_holders.get(v, [])) < len(seats):
            violate("unexplained-change", f"the wish card {v} lies before {' and '.join(seats)}, but there is only one",
                    None, wish=v, seats=seats)
    for seat, values in wishes.items():
        for v in values:
            shown = [p for p in changed if _value(after.discard_tops.get(p)) == v]
            # A pile still showing a v whose twin exists may have taken the pair's card onto its twin:
            # a camera sees no change there (RULES §3: values 3-7 exist twice per colour).
            twins = [p for p in PILES if p not in changed and p in COLOURS
                     and _value(after.discard_tops.get(p)) == v and _copies(f"{p} {v}") == 2]
            if shown:
                event("wish-taken", seat, f"{seat} discarded two {v}s and took the wish card {v}", wish=v)
            elif twins:
                event("wish-taken", seat, f"{seat} took the wish card {v} (the two {v}s may lie on their twins "
                      f"on the {' and '.join(twins)} pile{'s' if len(twins) > 1 else ''})", wish=v)
            else:
                event("wish-taken", seat, f"{seat} took the wish card {v}", wish=v)
                if ended_before is None or settings.final_play == "full-turn":
                    violate("wish-unexplained", f"{seat} took the wish card {v} without discarding two {v}s", seat,
                            wish=v)

    # --- each card exists as often as the deck holds it
    seen_before, seen_after = _inventory(before), _inventory(after)
    for key, n in seen_after.items():
        if n > 1 and n > _copies(key) and n > seen_before.get(key, 0):
            have = "only one" if _copies(key) == 1 else f"only {_copies(key)}"
            violate("unexplained-change", f"{_copies_words(key, n)}, but the deck has {have}", None, card=key, count=n)

    # --- how much was played in this change
    actors = [s for s in SEATS if s in laid or s in wishes]
    n_changed = len(changed)
    if ended_before is None:
        _check_turn(settings, actors, laid, wishes, n_changed, drawn, ended_after, violate)
    else:
        _check_final(settings, actors, laid, wishes, n_changed, drawn, len(after.seats), violate)
    if ended_before is None and ended_after is not None:
        who = actors[0] if len(actors) == 1 else None
        why = (end_condition_text(settings) if ended_after == "end-cards"
               else "the last card of the draw pile was drawn")
        event("end-triggered", who, f"{why}, so the game ends. Last play: {final_play_text(settings)}.",
              reason=ended_after)
    return ChangeReport(tuple(changes), tuple(problems))


def _check_turn(settings: Settings, actors: list[str], laid: dict[str, list[str]], wishes: dict[str, list[int]],
                n_changed: int, drawn: int, ended_after: str | None, violate) -> None:
    """Before the end: one player plays one card (or a pair for a wish card), then draws as many."""
    if len(actors) > 1:
        violate("two-cards", f"{' and '.join(actors)} played cards in one change: only the player whose turn it "
                f"is plays", None, seats=actors)
    wish_turn = False
    for seat in actors:
        n_lay, n_wish = len(laid.get(seat, ())), len(wishes.get(seat, ()))
        if n_wish > 1:
            violate("two-cards", f"{seat} took {n_wish} wish cards at once: a pair of cards takes one wish card",
                    seat, wishes=wishes[seat])
        if n_wish and n_lay:
            violate("two-cards", f"{seat} took a wish card and also laid {_plural(n_lay, 'card')}: a turn is one "
                    f"play", seat)
        elif n_lay > 1:
            violate("two-cards", f"{seat} laid {n_lay} cards ({'; '.join(laid[seat])}): one card is laid per turn",
                    seat, cards=laid[seat])
        wish_turn = wish_turn or bool(n_wish)
    layer = next((s for s in actors if s in laid), None)
    played = 2 if wish_turn else 1
    triggered_by_lay = ended_after == "end-cards" and layer is not None
    draws_allowed = 0 if triggered_by_lay else played
    discards_allowed = 0 if layer is not None and not wish_turn else played
    if drawn > draws_allowed or n_changed + drawn > draws_allowed + discards_allowed:
        who = layer or (actors[0] if actors else None)
        seen = f"{_plural(n_changed, 'discard pile')} changed" + (f" and {_plural(drawn, 'card')} came off the "
                                                                     f"draw pile" if drawn else "")
        if triggered_by_lay:
            violate("draw-count", f"{who} ended the game and does not draw, but {seen}", who)
        elif drawn > draws_allowed:
            violate("draw-count", f"more cards were drawn than played: {seen}", who)
        elif layer is not None and not wish_turn:
            violate("two-cards", f"{layer} laid a card and {seen}: a turn is one card played and one drawn", layer)
        else:
            violate("two-cards", f"{seen}: more than one turn's discarding and drawing", who)


def _check_final(settings: Settings, actors: list[str], laid: dict[str, list[str]], wishes: dict[str, list[int]],
                 n_changed: int, drawn: int, n_seats: int, violate) -> None:
    """After the end: each player's last play, and no drawing (RULES §3 End)."""
    if drawn:
        violate("game-over", f"the game has ended: nobody draws any more, but {_plural(drawn, 'card')} came off the "
                f"draw pile", None)
    if settings.final_play == "two-cards":
        for seat in actors:
            n_lay = len(laid.get(seat, ()))
            if n_lay > 2:
                violate("two-cards", f"{seat} laid {n_lay} cards in the last play: at most two", seat,
                        cards=laid[seat])
            for v in wishes.get(seat, ()):
                violate("game-over", f"the game has ended: {seat} can no longer take the wish card {v}", seat, wish=v)
        wish_discards = 2 * sum(len(v) for v in wishes.values())  # already reported with the wish card
        if n_changed > wish_discards:
            violate("game-over", f"the game has ended: cards are only laid in rows now, but "
                    f"{_plural(n_changed, 'discard pile')} changed", None)
        return
    discards_allowed = 0
    for seat in actors:
        n_lay, n_wish = len(laid.get(seat, ())), len(wishes.get(seat, ()))
        if n_lay + 2 * n_wish > 2 or (n_lay and n_wish) or n_lay > 1:
            violate("two-cards", f"{seat} played more than one full turn's cards in the last play", seat)
        discards_allowed += 2 * n_wish
    # Players who laid nothing may each have discarded one card in their last turn.
    discards_allowed += max(0, n_seats - len(actors))
    if n_changed > discards_allowed:
        violate("two-cards", f"{_plural(n_changed, 'discard pile')} changed in the last play: more than one card "
                f"per player", None)
