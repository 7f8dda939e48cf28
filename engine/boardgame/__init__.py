"""Keltis board game rules (base board and Neue Wege, neue Ziele): RULES.md §1–2."""
