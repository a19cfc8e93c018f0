#!/usr/bin/env bash
# Set up (first run only) and run the test suite. Extra arguments go to pytest (e.g. --runslow, -k clabber).
# pytest's own exit status is kept: 5 ("no tests collected") fails like any other failure.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/python -m pytest "$@"
