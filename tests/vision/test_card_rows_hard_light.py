"""Card rows in dim warm light with glare (docs/vision.md, session 31, wt31-glare). A colour band found by its outlined
pieces whose middle columns label as none of its kinds (its fields washed out of the colour table) is read between its
pieces when its last card shows a colour's centre picture (CardConfig.washed_row_symbol_min; before it was read empty
and lost), and a row named a colour claimed once whose last card shows a free colour's picture is renamed
(CardConfig.row_rename, now on behind a half-view screen: rename_screen_min). Dev frames of session 31's hard-light
renders (`sim frames`' sampling of seed 84100 with hard=True, dark=False, hand=None; tests/vision/vision_helpers.py
sim_still(..., hard=True)) and the lead's dev frames of session 30 (`sim frames --seed 83790`), 4608 × 2592."""
from __future__ import annotations

from vision.cards import seat_reading
from vision_helpers import read_one_seat, sim_still


def _rows(still, seat: str, card_game: bool, **changes) -> dict:
    sc = read_one_seat(still, seat, card_game, **changes)
    return {c: list(v) for c, v in seat_reading(sc, card_game).rows.items()}


def test_a_washed_row_read_empty_is_read_between_its_pieces():
    # card game, 84100/27 south (hard light, a pale table): the red row `10 5` outlined, its pieces named pink, and
    # the yellow row outlined — both bands' middle columns label as no colour, so both were read empty and lost.
    # The red card's triskele names the band red; the yellow row is read from its pieces (its upper strips misread)
    still, truth = sim_still(84100, 27, hard=True)
    want = truth["seats"]["south"]["rows"]
    got = _rows(still, "south", True)
    assert got["red"] == want["red"] == ["10", "5"]
    assert "yellow" in got
    # its last card's numerals are washed too: found apart (main before session 35) they read its `1`, found together
    # (corner_joint_refine_px) `3` — the row is misread either way (`0 0 1` / `0 2 3` for `7 6 3 2 1`)
    apart = _rows(still, "south", True, corner_joint_refine_px=None)
    assert apart["yellow"][-1] == want["yellow"][-1] == "1" and got["yellow"][-1] == "3"
    before = _rows(still, "south", True, washed_row_symbol_min=None)
    assert "red" not in before and "yellow" not in before


def test_a_red_row_named_pink_is_renamed_by_its_picture_behind_the_screen():
    # board game, 84100/40 north (hard light): the red row `6 5 1` named pink, the pink row `2 3` not found — one
    # claim; its last card's picture on the half view is not pink's (the screen lets it through), the straightened
    # card's is red's. Off (session 30's default) the red row is lost and its cards counted as pink
    still, truth = sim_still(84100, 40, hard=True)
    want = truth["seats"]["north"]["rows"]
    got = _rows(still, "north", False)
    assert got["red"] == want["red"] == ["6", "5", "1"]
    before = _rows(still, "north", False, row_rename=False)
    assert "red" not in before and before["pink"] == ["6", "5", "1"]


def test_the_screen_leaves_rows_showing_their_own_picture_alone():
    # the same seat: every row read right keeps its name, with or without the screen (the screen only saves work)
    still, _truth = sim_still(84100, 40, hard=True)
    screened = _rows(still, "north", False)
    unscreened = _rows(still, "north", False, rename_screen_min=None)
    assert screened == unscreened
