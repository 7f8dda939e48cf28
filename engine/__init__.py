"""Rules engines for Keltis (base and NWNZ boards) and Keltis: Das Kartenspiel.

Shared pieces live here (cards, rows, violations, scoring tables, observations, boards); each game
has its own subpackage: `engine.boardgame` and `engine.cardgame`.
"""
