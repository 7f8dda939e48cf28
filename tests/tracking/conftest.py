"""Fixtures for the tracking tests; the helpers they use live in tracking_helpers.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from tracking.synth import write_session
from tracking.tracker import GameTracker
from tracking_helpers import REPO, feed, game, make_tracker  # noqa: F401  (re-exported for fixtures)


@pytest.fixture
def tracker() -> GameTracker:
    return make_tracker()


@pytest.fixture(scope="session")
def short_session(tmp_path_factory) -> Path:
    """A recorded session (truth only, dummy JPEGs) of a short 3-player NWNZ game."""
    folder = tmp_path_factory.mktemp("sessions") / "nwnz-short"
    write_session(game("keltis", "nwnz", 3, 11, max_moves=40), folder)
    return folder


@pytest.fixture(scope="session")
def card_session(tmp_path_factory) -> Path:
    """A recorded session of a short 2-player card game."""
    folder = tmp_path_factory.mktemp("sessions") / "card-short"
    write_session(game("keltis-card", None, 2, 12, max_moves=40), folder)
    return folder
