#!/usr/bin/env bash
# Set up (first run only), train an agent on the default game (Slabberjan) with the self-play trainer
# (training/selfplay.py: every seat of 1,024 games learns; about three minutes on 2 cores), then print its
# duplicate-deal matches against the rule-based and the random agent. Extra arguments go to training/selfplay.py
# (e.g. --env-id clabber_v0 --minutes 30). Run again after an interruption: it continues the run in
# runs/selfplay/<env_id> with the arguments it was started with, from its last checkpoint.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/python -m cardenvs.training.selfplay --resume-if-present --total-decisions 3000000 --eval-every 1000000 "$@"
