"""The package's layout: one import namespace, every folder of it listed for setuptools, nothing outside it imported.

pyproject.toml lists the package's folders one by one, because three of them live outside ``cardenvs/`` in the
repository (``agents/``, ``training/`` and ``docs/rules/`` map to ``cardenvs.agents``, ``cardenvs.training`` and
``cardenvs.rules``). A folder added without its line would be missing from the wheel; these tests catch that, and
any library module that imports a top-level ``agents`` or ``training`` (which no longer exist once installed).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = None

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the names the package's modules must not import: the repository's folders, importable only from a checkout
REPOSITORY_ONLY = ("agents", "training", "experiments", "tests", "benchmarks", "docs")


def setuptools_config() -> dict:
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs tomllib (Python 3.11 or later)")
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def package_folders() -> dict[str, Path]:
    """Every package of the distribution by its import name, with its folder in the repository."""
    config = setuptools_config()
    mapped = config["package-dir"]
    folders = {}
    for name in config["packages"]:
        parts = name.split(".")
        # the longest mapped prefix of the name decides its folder; unmapped names follow their dotted path
        for length in range(len(parts), 0, -1):
            prefix = ".".join(parts[:length])
            if prefix in mapped:
                folders[name] = REPO / mapped[prefix] / Path(*parts[length:]) if length < len(parts) \
                    else REPO / mapped[prefix]
                break
        else:
            folders[name] = REPO / Path(*parts)
    return folders


def test_every_listed_package_exists_and_every_python_folder_is_listed():
    folders = package_folders()
    for name, folder in folders.items():
        assert folder.is_dir(), f"{name} is listed in pyproject.toml but {folder} does not exist"
    listed = {folder.resolve() for folder in folders.values()}
    for root in {folders[name] for name in ("cardenvs", "cardenvs.agents", "cardenvs.training")}:
        for source in root.rglob("*.py"):
            if "__pycache__" not in source.parts:
                assert source.parent.resolve() in listed, f"{source.parent} holds modules but is not a listed package"


def imported_names(source: Path) -> set[str]:
    """The top-level module names that ``source`` imports (absolute imports only)."""
    names = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_module_of_the_package_imports_a_repository_folder():
    for name, folder in package_folders().items():
        for source in folder.glob("*.py"):
            wrong = imported_names(source) & set(REPOSITORY_ONLY)
            assert not wrong, f"{source.relative_to(REPO)} ({name}) imports {', '.join(sorted(wrong))}"


def test_the_installed_package_answers_by_its_mapped_names():
    import cardenvs.agents
    import cardenvs.rules
    import cardenvs.training

    assert Path(cardenvs.agents.__file__).parent == REPO / "agents"
    assert Path(cardenvs.training.__file__).parent == REPO / "training"
    assert Path(cardenvs.rules.__file__).parent == REPO / "docs" / "rules"
