"""Keltis: Das Kartenspiel rules: RULES.md §3."""
