#!/usr/bin/env bash
# The newcomer's entry point.  usage: bash scripts/dev.sh demo|test|setup [args...]
#   demo  — set up, then run the main job on a bundled default
#   test  — set up, then run the whole test suite
# The virtual environment lives in .venv (override with KELTIS_VENV).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${KELTIS_VENV:-.venv}

setup() {
    if [ ! -x "$VENV/bin/python" ]; then
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
}

cmd=${1:-demo}
shift || true
case "$cmd" in
    setup) setup ;;
    demo)  setup; exec "$VENV/bin/keltis-cam" serve "$@" ;;  # the phone dashboard on a bundled replayed game
    test)  setup
           # given arguments (a file, -k ...): exactly those tests
           if [ $# -gt 0 ]; then exec "$VENV/bin/python" -m pytest -q "$@"; fi
           # the whole suite: on up to 4 workers (one a core), then the tests that time a server, a
           # browser or a camera thread against the wall clock alone (marked `serial`, tests/conftest.py)
           workers=$(nproc 2>/dev/null || echo 2); [ "$workers" -gt 4 ] && workers=4; [ "$workers" -lt 1 ] && workers=1
           rc=0
           "$VENV/bin/python" -m pytest -q -n "$workers" -m "not serial" || rc=$?
           "$VENV/bin/python" -m pytest -q -m serial || rc=$(( rc > $? ? rc : $? ))
           exit "$rc" ;;
    *) echo "usage: bash scripts/dev.sh demo|test|setup" >&2; exit 64 ;;
esac
