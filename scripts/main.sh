#!/usr/bin/env bash
# Set up (first run only), train a MaskablePPO agent on the default game (Slabberjan) with its embedded default
# budget, then print its tournament against the random and rule-based agents. Extra arguments go to
# training/ppo.py (e.g. --env-id clabber_v0). Run again after an interruption: it continues from the last
# checkpoint of runs/ppo/<env_id>.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/python -m training.ppo --resume "$@"
