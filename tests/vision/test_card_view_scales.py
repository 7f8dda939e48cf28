"""The seat views' scales as settings (session 34, wt34-cspeed: issue 16 item 7, the cards part's cost).

The card rows are looked for on each seat view at `SeatViewConfig.half` of its px/mm (0.5) and read at its px/mm
(2.5). Coarser views were tried and lost rows on dev (docs/vision.md, Session 34); the settings stay so that the rows'
view and the reading can be tried apart. The wish stones' figures were tuned at 1.25 px/mm: with
`WishStoneConfig.view_ppm` they keep a remap of their own at half that where the rows' view has another scale."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import vision.reader as reader_module
from camera.session import open_session
from simulator.stills import SessionStills
from vision.cards import CardConfig
from vision.observer import make_observer
from vision.wishstones import WishStoneConfig

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "demo"
FRAME = 345     # a still of the bundled demo with three wish stones at west (test_wish_stones_scale.py)


def test_the_defaults_are_the_tuned_scales():
    view = CardConfig().view
    assert (view.ppm, view.half) == (2.5, 0.5)
    assert WishStoneConfig().view_ppm is None


def test_wish_stones_keep_their_scale_on_a_view_of_their_own(monkeypatch):
    session = open_session(DEMO)
    truth = session.truth(session.frames[FRAME])["seats"]["west"]["wish"]
    image = SessionStills(DEMO).still(FRAME)
    reader = make_observer(session=session).reader
    scales = []
    find_tokens = reader_module.find_tokens

    def spy(config, view, ppm, *args, **kwargs):
        scales.append(ppm)
        return find_tokens(config, view, ppm, *args, **kwargs)

    monkeypatch.setattr(reader_module, "find_tokens", spy)
    # the defaults: the stones on the rows' half view (1.25 px/mm), no view of their own
    assert reader.read(image).observation.seats["west"].wish == truth
    assert reader.token_views == {} and scales and set(scales) == {1.25}

    # the rows' view at 1.0 px/mm (a 2.5 view's 0.4): the stones keep 1.25 on a remap of their own
    cards = replace(reader.config.cards, view=replace(reader.config.cards.view, half=0.4))
    reader.config = replace(reader.config, cards=cards, wish=replace(reader.config.wish, view_ppm=2.5))
    scales.clear()
    obs = reader.read(image, reregister=True).observation     # (the views are built with each registration)
    assert set(reader.token_views) == set(reader.seat_views)
    assert all(sv.half_scale == 0.4 for sv in reader.seat_views.values())
    assert scales and set(scales) == {1.25}
    assert obs.seats["west"].wish == truth
