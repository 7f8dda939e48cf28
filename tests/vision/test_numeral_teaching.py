"""A components folder without numeral weights is taught its own cards on first use (vision.numerals).

How the cards look is data: a group that scans its own cards (or the second art set, `sim components
--style alt`) gets a numeral classifier trained on those pictures, once, kept in the user's cache under
a fingerprint of the card pictures; the folder itself is never written to. Without it the reader fell
back to template correlation, which reads another typeface badly (dev frames of the second art set,
docs/vision.md "Session 13 (lead)": rows 29 % wrong untaught, 13 % taught).
"""
from __future__ import annotations

import shutil

import cv2
import numpy as np
import pytest

from engine.board import bundled_board
from vision import numerals
from vision.components import load_components
from vision.numerals import WEIGHTS_FILE, TeachConfig, load_weights, numeral_model_for, taught_weights_path

#: a quick lesson (the product's default is 150 corners a face, 25 epochs: half a minute)
QUICK = TeachConfig(per_face=30, epochs=8)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty cache and no model taught in this process yet."""
    monkeypatch.setenv("KELTIS_CAM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(numerals, "_TAUGHT", {})
    return tmp_path / "cache"


@pytest.fixture
def lessons(monkeypatch):
    """Counts the trainings (numerals.train still trains)."""
    calls = []
    real = numerals.train

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(numerals, "train", counted)
    return calls


def unweighted_copy(folder):
    """The bundled components without their numeral weights (a folder a group made of its own cards)."""
    shutil.copytree(load_components(None).folder, folder)
    (folder / WEIGHTS_FILE).unlink()
    return load_components(folder)


def test_a_folder_without_weights_is_taught_once_and_kept_in_the_cache(tmp_path, fresh_cache, lessons):
    comps = unweighted_copy(tmp_path / "cards")
    model = numeral_model_for(comps, config=QUICK)
    assert model is not None and len(lessons) == 1
    kept = taught_weights_path(comps, QUICK)
    assert kept.parent == fresh_cache and kept.is_file()
    assert not (comps.folder / WEIGHTS_FILE).exists()        # the group's folder is left as it was
    # what a later run uses is what this run read with
    assert np.array_equal(load_weights(kept).w1, model.w1)

    # a later run (nothing taught in its process): the cache, no lesson
    numerals._TAUGHT.clear()
    again = numeral_model_for(comps, config=QUICK)
    assert len(lessons) == 1 and np.array_equal(again.w1, model.w1)

    # a card scanned again is another art: taught again, the old weights kept for the old art
    path = comps.folder / "card-red-7.jpg"
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    img[:10, :10] = 0
    assert cv2.imwrite(str(path), img)
    numerals._TAUGHT.clear()
    assert taught_weights_path(comps, QUICK) != kept
    numeral_model_for(comps, config=QUICK)
    assert len(lessons) == 2 and kept.is_file() and taught_weights_path(comps, QUICK).is_file()


def test_a_folder_with_its_own_weights_is_never_taught(fresh_cache, lessons):
    comps = load_components(None)
    model = numeral_model_for(comps, config=QUICK)
    assert model is numerals.load_numeral_model(str(comps.folder))
    assert lessons == [] and not fresh_cache.exists()


def test_nothing_taught_unless_asked(tmp_path, fresh_cache, lessons):
    comps = unweighted_copy(tmp_path / "cards")
    assert numeral_model_for(comps, teach_missing=False, config=QUICK) is None
    assert lessons == []


def test_a_cache_that_cannot_be_written_still_reads_with_what_was_taught(tmp_path, monkeypatch, lessons, caplog):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go")
    monkeypatch.setenv("KELTIS_CAM_CACHE", str(blocked))
    monkeypatch.setattr(numerals, "_TAUGHT", {})
    comps = unweighted_copy(tmp_path / "cards")
    model = numeral_model_for(comps, config=QUICK)
    assert model is not None and len(lessons) == 1
    assert "not kept" in caplog.text and blocked.read_text().startswith("a file")


def test_the_second_art_sets_rows_are_read_with_numerals_taught_from_its_cards(tmp_path, fresh_cache, lessons):
    """A seat drawn with the second art set: the reader given that folder reads its rows with a
    classifier taught its cards. (The quick lesson is put where the reader's first use would keep the
    full one, so the reader finds it there; templates, what an untaught folder read with, misread
    this seat — that is what the lesson changes.)"""
    from card_helpers import SEAT, render_cards
    from simulator.components import art_style
    from simulator.export import export_components
    from simulator.render import SpriteBank
    from vision.reader import Reader

    folder = tmp_path / "alt"
    with art_style("alt"):
        export_components(folder, ("nwnz",))
    comps = load_components(folder)
    sprites = SpriteBank()
    sprites.use_art(str(folder))
    rows = {"red": ["2", "5", "8"], "blue": ["3", "6", "9"], "green": ["0", "7"], "yellow": ["1", "4", "10"]}
    image, cal, _truth, seats, board = render_cards(rows=rows, sprites=sprites)

    model, fresh = numerals.teach(comps, QUICK)
    assert fresh > 0.85
    path = taught_weights_path(comps)
    path.parent.mkdir(parents=True)
    model.save(path)
    lessons.clear()
    reader = Reader(cal, game="keltis", board=bundled_board(board), seats=seats, components=comps)
    assert lessons == [] and reader.numeral_model is not None
    got = reader.read(image).observation.seats[SEAT].rows
    assert {c: list(v) for c, v in got.items()} == rows

    reader.numeral_model = None         # what the reader did before: the art's templates
    untaught = reader.read(image).observation.seats[SEAT].rows
    assert {c: list(v) for c, v in untaught.items()} != rows
