"""The package's layering (pyproject.toml's ``[tool.importlinter]`` contracts): each layer imports only the layers
below it, not even inside a function, and inside the training package its modules import one way too.

import-linter reads the package from its files, as laid out when installed: in the repository ``agents/`` and
``training/`` are mapped into the package by setuptools, so the checks run on a copy of the package laid out as the
wheel has it (:func:`cardenvs.training.rllib_train.stage_package`, which ships the same copy to a Ray cluster).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cardenvs.training.rllib_train import stage_package

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
#: runs import-linter's command line (lint-imports) in this interpreter; the working folder comes first on its path
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
#: the name of the module each check of a back-import adds to the copy
PROBE = "layering_probe"


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    """import-linter's check of the repository's contracts on the package copied into ``folder``."""
    pytest.importorskip("importlinter")
    return subprocess.run([sys.executable, "-c", LINT_IMPORTS, "--no-cache", "--no-logo", str(PYPROJECT)],
                          cwd=folder, capture_output=True, text=True, timeout=300)


@pytest.fixture
def installed_copy(tmp_path: Path) -> Path:
    """A copy of the package as installed, in a folder of its own; the copy's ``cardenvs`` folder."""
    return stage_package(tmp_path)


def test_every_layer_imports_only_the_layers_below_it(installed_copy):
    done = lint_imports(installed_copy.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


@pytest.mark.parametrize(("subpackage", "imported", "contract"), [
    ("evaluation", "cardenvs.training.exploit", "core <- games"),  # the leaderboard once took the BR this way
    ("core", "cardenvs.games.slap.rules", "core <- games"),
    ("games/slap", "cardenvs.agents.slap", "core <- games"),
    ("web", "cardenvs.commands.rules", "core <- games"),
    ("commands", "cardenvs.cli", "core <- games"),
    ("training", "cardenvs.training.exploit", "inside training"),
])
def test_a_back_import_breaks_the_contracts_even_inside_a_function(installed_copy, subpackage, imported, contract):
    """A module that imports a higher layer in a function body is refused by name (for ``training``: the trainers'
    shared module cli importing the best response above them)."""
    importer = "cardenvs/training/cli.py" if subpackage == "training" else f"cardenvs/{subpackage}/{PROBE}.py"
    path = installed_copy.parent / importer
    module = importer.removesuffix(".py").replace("/", ".")
    path.write_text(path.read_text() if path.exists() else '"""A module that runs an import back up."""\n')
    with path.open("a") as stream:
        stream.write(f"\n\ndef _back_up():\n    import {imported}  # noqa: F401\n")
    done = lint_imports(installed_copy.parent)
    assert done.returncode == 1
    report = done.stdout.replace("\n", " ")
    assert f"{module} -> {imported} " in report and "BROKEN" in report
    broken = report[report.index("Broken contracts"):]
    assert contract in broken
