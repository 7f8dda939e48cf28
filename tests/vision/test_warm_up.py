"""The reader's warm-up (session 36, wt36-warm): what the game's first reading built that no frame changes (card
art at the art's resolution, the piles' card art, the token pictures, the board's art, ...) is built when the
pipeline starts, so the first reading builds none of it, reads the same, and waits for a warm-up under way
rather than build the same caches beside it."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from camera.session import open_session
from vision import cardart, cards, components, wishstones
from vision.observer import make_observer
from vision.reader import Reader

SESSION = Path(__file__).resolve().parents[2] / "fixtures" / "sessions" / "nwnz-3p"

#: the module caches the warm-up builds (none of them depends on a frame)
WARMED = {"_base_art": cardart._base_art, "_corner_crops": cardart._corner_crops, "_middles": cardart._middles,
          "sized_for": cards.sized_for, "_token_art": wishstones._token_art, "_load_image": components._load_image}


def cold() -> None:
    """Every module cache the first reading fills, emptied (as in a process that starts)."""
    for fn in (*WARMED.values(), cardart.card_art, wishstones.token_bank):
        fn.cache_clear()


def misses() -> dict[str, int]:
    return {name: fn.cache_info().misses for name, fn in WARMED.items()}


@pytest.fixture(scope="module")
def session():
    return open_session(SESSION)


def first_image(session):
    ref = session.frames[0]
    return session.read_frame(ref)


def test_after_the_warm_up_the_first_reading_builds_none_of_what_it_built_and_reads_the_same(session):
    image = first_image(session)
    cold()
    unwarmed = make_observer(session=session).reader
    before = misses()
    plain = unwarmed.read(image, incremental=True).observation
    built = {k: v - before[k] for k, v in misses().items() if v != before[k]}
    # without a warm-up the first reading builds them
    assert {"_base_art", "_corner_crops", "_middles", "_token_art", "_load_image"} <= set(built)

    cold()
    observer = make_observer(session=session)
    parts = observer.warm_up()
    assert {"card faces", "card middles", "pile card art", "token art", "board art"} == set(parts)
    assert observer.warm_up() == {}                     # once: nothing built twice
    before, arts = misses(), cardart.card_art.cache_info().misses
    pile_art = cardart.card_art.cache_info().currsize
    warmed = observer.reader.read(image, incremental=True).observation
    assert misses() == before                           # none of the warmed caches built again
    # only the seat views' card art at the resolution the registration gives (cheap now: scaling and blur)
    seen = {round(sv.px_per_mm, 1) for sv in observer.reader.seat_views.values()}
    assert cardart.card_art.cache_info().misses - arts <= len(seen) and pile_art == 1
    assert warmed == plain


def test_a_warm_up_in_the_background_is_waited_for_by_the_first_full_reading(session, monkeypatch):
    release, started = threading.Event(), threading.Event()
    order: list[str] = []

    def slow_warm_up(self):
        started.set()
        release.wait(5)
        order.append("warm-up")
        return {"slow": 1.0}

    monkeypatch.setattr(Reader, "warm_up", slow_warm_up)
    observer = make_observer(session=session)
    observer.gate = None                                # every frame read in full

    def read(image, **_):
        order.append("reading")
        return type("Reading", (), {"observation": None})()

    monkeypatch.setattr(observer.reader, "read", read)
    thread = observer.start_warm_up()                   # returns at once
    assert started.wait(5) and thread.is_alive()
    frame = type("Frame", (), {"image": object(), "index": 0, "timestamp": 0.0})()
    reader = threading.Thread(target=observer.observe, args=(frame,))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and order == []            # the reading waits for the warm-up
    release.set()
    reader.join(5)
    thread.join(5)
    assert order == ["warm-up", "reading"] and observer.warmed == {"slow": 1.0}
