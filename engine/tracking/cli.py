"""Tracking subcommands: `replay` (engine/tracking/replay.py)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the tracking subcommands."""
    from .replay import register_replay

    register_replay(sub)
