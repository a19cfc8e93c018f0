#!/usr/bin/env bash
# Set-up shared by scripts/main.sh and scripts/test.sh: a virtual environment in .venv with the project
# installed (editable, with its dev extras). Re-installs only when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.setup-stamp
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
  echo "Installing cardenvs and its dependencies into .venv ..."
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  echo "$wanted" > "$stamp"
fi
