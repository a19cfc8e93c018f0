#!/usr/bin/env bash
# Set up (first run only) and run the test suite. Extra arguments go to pytest (e.g. --runslow, -k clabber).
# pytest's own exit status is kept: 5 ("no tests collected") fails like any other failure.
# The test files are spread over the machine's cores (pytest-xdist, at most MAX_WORKERS processes), a file's tests
# in one process, so that a file's shared fixtures (a built wheel, a running server) are made once.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
MAX_WORKERS=4
.venv/bin/python -m pytest --numprocesses auto --maxprocesses "$MAX_WORKERS" --dist loadfile "$@"
