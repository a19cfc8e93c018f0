#!/usr/bin/env bash
# Set up (first run only), train an agent on the default game (Slabberjan) by its recipe with the self-play
# trainer (cardenvs train slabberjan_v0: every seat of 1,024 games learns for 24,000,000 decisions; about 18
# minutes on 2 cores, ahead of the rule-based agent after about two), then print its duplicate-deal matches
# against the rule-based and the random agent. Extra arguments go to cardenvs train (e.g. --minutes 2 --run-dir
# runs/selfplay/quick). Run again after an interruption: it continues the run in runs/selfplay/slabberjan_v0 with
# the arguments it was started with, from its last checkpoint.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/cardenvs train slabberjan_v0 --resume-if-present "$@"
