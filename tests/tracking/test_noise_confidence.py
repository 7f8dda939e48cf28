"""The confidences injected readings state (tracking.noise, session 21): like the vision reader's, valid for
parse_observation, the same for the same seed, low on the elements misread more often than on those read right,
none with the old model or when turned off; the gate's repeat of the last reading on an arm frame; and the fit
(bench/vision_games.py ConfidenceProfile) finds the injected model's numbers again."""
from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace

from engine.observation import parse_observation
from tracking import noise
from tracking.noise import MisreadInjector, element_classes

from tracking_helpers import REPO, game

sys.path.insert(0, str(REPO / "bench"))
from vision_games import ConfidenceProfile  # noqa: E402

BOARD = game("keltis", "nwnz", 3, 41, max_moves=60)
CARDS = game("keltis-card", None, 3, 12)
MODEL = noise.noise_model_named(None)


def _read(sim, rate, seed, **kw):
    injector = MisreadInjector(None, rate, seed, **kw)
    return [(obs, injector.corrupt(obs, i)) for i, (_, obs) in enumerate(sim.frames)]


def test_the_default_model_states_confidences_valid_for_parse_observation():
    assert MODEL.confidence is not None
    stated = 0
    for sim in (BOARD, CARDS):
        for truth, out in _read(sim, 0.7, 3):
            if not out.usable:
                continue
            again = parse_observation(out.to_json(), "injected")      # refuses a share outside 0–1, names it
            assert again.extra.get("element_confidence") == out.extra.get("element_confidence")
            for key, value in out.confidence.items():
                assert 0 <= value <= 1, (key, value)
            if truth.game == "keltis" and truth.usable:     # (an arm frame read as usable shows the last table)
                stated += 1
                for group, unit in (("pawns", "stones"), ("tiles", "spots")):
                    others, named = out.element_shares(group, unit)
                    assert all(share < others for share in named.values())
                    assert set(named) <= set(element_classes(truth, out)[group])
    assert stated > 50


def test_the_same_seed_states_the_same_confidences():
    first, again = _read(BOARD, 0.5, 8), _read(BOARD, 0.5, 8)
    assert [o.to_json() for _, o in first] == [o.to_json() for _, o in again]
    assert [o.confidence for _, o in first] == [o.confidence for _, o in again]


def test_misread_elements_are_named_unsure_more_often_than_those_read_right():
    """A stone or spot read wrong is mostly among the named unsure ones with a low share (sometimes sure: the
    reader is confidently wrong too); one read right mostly not: where the model says so clearly (a first-row stone
    with pawns, an open tile), so do the injected readings."""
    def low(draw):     # (the model's chance of a share below 0.7)
        total = sum(w for _v, w in draw.shares) or 1.0
        return draw.named * sum(w for v, w in draw.shares if v < 0.7) / total

    named: Counter = Counter()
    n: Counter = Counter()
    for seed in range(3):
        for truth, out in _read(BOARD, 0.9, seed):
            if not (truth.usable and out.usable):
                continue
            for group, unit in (("pawns", "stones"), ("tiles", "spots")):
                _, shares = out.element_shares(group, unit)
                for eid, cls in element_classes(truth, out)[group].items():
                    n[cls] += 1
                    named[cls] += shares.get(eid, 1.0) < 0.7
    elements = MODEL.confidence.elements
    clear = [c for c in elements if c.endswith(":wrong") and c.replace(":wrong", ":right") in elements
             and low(elements[c]) - low(elements[c.replace(":wrong", ":right")]) > 0.3]
    assert {"pawns:row1-occ:wrong", "tiles:open-tile:wrong"} <= set(clear)
    for cls in clear:
        right = cls.replace(":wrong", ":right")
        assert n[cls] >= 20 and n[right] >= 20, (cls, n)
        assert named[cls] / n[cls] > named[right] / n[right] + 0.2, (cls, named[cls], n[cls], named[right], n[right])


def test_no_confidences_with_the_old_model_or_turned_off():
    for kw in ({"noise_model": "s18"}, {"confidence": False}):
        for truth, out in _read(BOARD, 0.7, 3, **kw)[::5]:
            assert "element_confidence" not in out.extra
            assert out.confidence == truth.confidence or not (truth.usable and out.usable)   # (arm frames: the last table)
    assert noise.S18_MODEL.confidence is None and noise.S18_MODEL.arm_repeat == 0
    assert MisreadInjector(None, 0.0).corrupt(BOARD.frames[0][1], 0) is BOARD.frames[0][1]


def test_an_arm_frame_read_as_usable_repeats_the_last_reading_behind_the_gate():
    """The motion gate repeats the last reading until the next one: with arm_repeat 1, an arm frame read as usable
    is the last reading given, misreads and confidences included."""
    model = replace(MODEL, arm_usable_per_rate=1.0, arm_repeat=1.0)
    injector = MisreadInjector(None, 1.0, 4, noise_model=model)
    checked = 0
    last = None
    for i, (_, obs) in enumerate(BOARD.frames):
        out = injector.corrupt(obs, i)
        if obs.usable and out.usable:
            last = out
        elif not obs.usable and last is not None:
            assert out is last
            checked += 1
    assert checked > 10


def test_the_fit_finds_the_injected_confidences_again():
    """bench/vision_games.py's ConfidenceProfile, run on injected readings, measures the shares the model states:
    each class's chance of being named within a few points of the model's (the fit's constants are what it printed)."""
    profile = ConfidenceProfile()
    for seed in range(3):
        for truth, out in _read(BOARD, 0.9, seed):
            if truth.usable and out.usable:
                profile.add(truth, out)
    fitted = profile.fitted()
    assert fitted.startswith("ConfidenceModel(")
    for cls, k in profile.n.items():
        want = MODEL.confidence.elements.get(cls)
        if want is None or k < 200:
            continue
        # (drawn per element and still table, not per frame: a long-lying table weighs much, hence the margin)
        assert abs(profile.named[cls] / k - want.named) < 0.15, (cls, profile.named[cls], k, want.named)
