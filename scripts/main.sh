#!/usr/bin/env bash
# Set up (first run only), train a MaskablePPO agent on the default game (Slabberjan) with its embedded default
# budget, then print its tournament against the random and rule-based agents. Extra arguments go to
# training/ppo.py (e.g. --env-id clabber_v0). Run again after an interruption: it continues the run in
# runs/ppo/<env_id> with the arguments it was started with (from its last checkpoint, or from the start if it was
# interrupted before the first one).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/python -m training.ppo --resume-if-present "$@"
