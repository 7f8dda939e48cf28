#!/usr/bin/env bash
# Regenerate the recorded sessions in fixtures/sessions/ from the simulator's CLI (issues 4 and 6).
# At 2 fps (a Pi pipeline delivers 2-5 observations a second), with the arm's seat in the truth of
# every frame with a hand ("hands"), and small on purpose so they can live in git (together < 15 MB):
#   - five short sessions (a few turns each) for the tests: one per game, one with rule breaks, one
#     in hard light; those the calibration tests register stay 960x540 (20-px markers), the others
#     640x360; per-frame truth without the `render` extension (simulator.json keeps the geometry);
#     filmed as a live camera gives them, with full-resolution stills (2304x1296) rendered on request,
#     so the camera path reads them (tests/vision/test_fixture_replays.py);
#   - demo: a whole game of NWNZ with 3 players (1 frame/s, stills on request), what `keltis-cam serve`
#     replays (looping) through the camera path for a newcomer: it plays to its end (the draw pile runs out), the result and the chart.
#   usage: bash scripts/make_fixtures.sh [OUT_DIR]     (default fixtures/sessions)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-fixtures/sessions}
KC=${KELTIS_CAM:-.venv/bin/keltis-cam}
COMMON=(--fps 2 --truth-render none --overwrite --stills 2304x1296)
LARGE=(--size 960x540 --quality 50)
SMALL=(--size 640x360 --quality 60)
mkdir -p "$OUT"
"$KC" sim session --board nwnz --players 3 --seed 7  --max-moves 6 "${LARGE[@]}" "${COMMON[@]}" --out "$OUT/nwnz-3p"
"$KC" sim session --board base --players 2 --seed 11 --max-moves 6 "${LARGE[@]}" "${COMMON[@]}" --out "$OUT/base-2p"
"$KC" sim session --game keltis-card --players 3 --seed 5 --max-moves 6 "${SMALL[@]}" "${COMMON[@]}" --out "$OUT/card-3p"
"$KC" sim session --board nwnz --players 2 --seed 21 --max-moves 8 --illegal 2 "${SMALL[@]}" "${COMMON[@]}" \
    --out "$OUT/nwnz-illegal"
"$KC" sim session --board base --players 4 --seed 13 --max-moves 4 --hard "${SMALL[@]}" "${COMMON[@]}" --out "$OUT/base-hard"
# the demo is a whole game (to its end: the winner, the final scores), so it is filmed at 1 frame/s,
# as a live camera gives it: a small video stream for the motion gate (640x360) and, when the reader
# asks, a full-resolution still (2304x1296, rendered on request by simulator/stills.py: a recording
# of the stills would not fit in git)
"$KC" sim session --board nwnz --players 3 --seed 125 --size 640x360 --stills 2304x1296 --quality 40 --fps 1 \
    --truth-render none --overwrite --out "$OUT/demo"
du -sh "$OUT"/*
du -sh "$OUT"
