"""Fixtures for the board-file tests: raw JSON copies of the bundled boards to mutate."""
from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.board import BOARDS_DIR

_RAW = {name: json.loads((BOARDS_DIR / f"{name}.json").read_text(encoding="utf-8")) for name in ("base", "nwnz")}


@pytest.fixture
def raw_board() -> Callable[[str], dict]:
    """A fresh deep copy of a bundled board file's JSON, safe to mutate."""
    return lambda name: copy.deepcopy(_RAW[name])


@pytest.fixture
def write_board(tmp_path: Path) -> Callable[[dict, str], Path]:
    """Write a board dict to a file in tmp_path and return its path."""

    def write(data: dict, filename: str = "board.json") -> Path:
        path = tmp_path / filename
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return write

