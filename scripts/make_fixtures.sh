#!/usr/bin/env bash
# Regenerate the recorded sessions in fixtures/sessions/ from the simulator's CLI (issue 4).
# Small on purpose (960x540, a few turns each; together < 15 MB) so they can live in git.
#   usage: bash scripts/make_fixtures.sh [OUT_DIR]     (default fixtures/sessions)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-fixtures/sessions}
KC=${KELTIS_CAM:-.venv/bin/keltis-cam}
COMMON=(--size 960x540 --fps 1 --quality 80 --overwrite)
mkdir -p "$OUT"
"$KC" sim session --board nwnz --players 3 --seed 7  --max-moves 8 "${COMMON[@]}" --out "$OUT/nwnz-3p"
"$KC" sim session --board base --players 2 --seed 11 --max-moves 8 "${COMMON[@]}" --out "$OUT/base-2p"
"$KC" sim session --game keltis-card --players 3 --seed 5 --max-moves 10 "${COMMON[@]}" --out "$OUT/card-3p"
"$KC" sim session --board nwnz --players 2 --seed 21 --max-moves 12 --illegal 2 "${COMMON[@]}" --out "$OUT/nwnz-illegal"
"$KC" sim session --board base --players 4 --seed 13 --max-moves 8 --hard "${COMMON[@]}" --out "$OUT/base-hard"
du -sh "$OUT"/*
du -sh "$OUT"
