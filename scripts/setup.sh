#!/usr/bin/env bash
# Set-up shared by scripts/main.sh and scripts/test.sh: a virtual environment in .venv with the project
# installed (editable, with its training, RLlib, web, OpenSpiel and dev extras). Re-installs only when
# pyproject.toml or this file changes. torch comes first and pinned: its CPU build is on these machines, while a
# bare "torch" requirement would pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.setup-stamp
wanted=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  echo "Installing cardenvs and its dependencies into .venv ..."
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet "torch==2.13.0"
  .venv/bin/python -m pip install --quiet -e ".[train,rllib,web,openspiel,dev]"
  echo "$wanted" > "$stamp"
fi
