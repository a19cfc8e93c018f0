#!/usr/bin/env bash
# Set up (first run only), show a rendered Slabberjan game between the baseline agents, then run the
# benchmark of every registered env beside the no-op PettingZoo ceiling.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/cardenvs demo slabberjan_v0 --players 4 --seed 0
.venv/bin/python benchmarks/run.py "$@"
