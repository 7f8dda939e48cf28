"""Live game tracking: a stream of observed states (camera or recording) becomes moves, warnings and
scores that survive a restart (docs/tracking-api.md).

observers → stability (accept still, usable states) → inference (moves from state changes, with the
rules engine) → tracker (turns, warnings, scores, corrections) → store (SQLite, WAL).
"""
