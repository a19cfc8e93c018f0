"""The committed notebooks read well without running: executed in order, outputs kept, no errors, no paths of
the machine that ran them, working relative links; and each matches its paired Python source (jupytext).

Running them is nbmake's job (``pytest --nbmake notebooks/``); these checks only read the files.
"""

from __future__ import annotations

import importlib.util
import re
import tempfile
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
#: absolute paths that give away a machine: home folders, temporary folders, Windows drives
MACHINE_PATH = re.compile(r"(?<![\w.~])(/home/|/Users/|/root/|/tmp/|[A-Z]:\\)")
#: a markdown link or image target: [text](target) or ![alt](target)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


def _load_build_module():
    spec = importlib.util.spec_from_file_location("notebooks_build", NOTEBOOKS_DIR / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _output_texts(notebook) -> list[str]:
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append(output.get("text", ""))
            for mime, value in output.get("data", {}).items():
                if not mime.startswith("image/"):
                    texts.append(value if isinstance(value, str) else "".join(value))
    return texts


def test_every_notebook_has_its_python_source_and_the_reverse():
    build = _load_build_module()
    assert NOTEBOOKS, "no notebooks found"
    assert {f"{name}.ipynb" for name in build.sources()} == {path.name for path in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_is_executed_in_order_with_outputs_and_no_errors(path: Path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata.get("kernelspec", {}).get("name") == "python3", "nbmake runs the python3 kernel"
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.strip()]
    assert code_cells, f"{path.name} has no code"
    counts = [cell.execution_count for cell in code_cells]
    assert None not in counts, f"{path.name}: some code cells were never run (outputs not committed)"
    assert counts == sorted(counts) and len(set(counts)) == len(counts), f"{path.name}: cells run out of order"
    assert any(cell.outputs for cell in code_cells), f"{path.name}: no outputs committed"
    errors = [
        f"{output.get('ename')}: {output.get('evalue')}"
        for cell in code_cells
        for output in cell.outputs
        if output.get("output_type") == "error"
    ]
    assert not errors, f"{path.name} has error outputs: {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_outputs_show_no_machine_paths(path: Path):
    notebook = nbformat.read(path, as_version=4)
    local = {str(REPO_ROOT), str(Path.home()), tempfile.gettempdir()}
    for text in _output_texts(notebook):
        assert not MACHINE_PATH.search(text), f"{path.name}: absolute path in an output: {text[:300]!r}"
        for prefix in local:
            assert len(prefix) <= 1 or prefix not in text, f"{path.name}: {prefix!r} in an output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_relative_links_point_at_files_of_the_repository(path: Path):
    notebook = nbformat.read(path, as_version=4)
    targets = [
        target.split("#")[0]
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for target in LINK.findall(cell.source)
        if "://" not in target and not target.startswith(("#", "mailto:"))
    ]
    missing = [target for target in targets if target and not (path.parent / target).exists()]
    assert not missing, f"{path.name} links to missing files: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_matches_its_paired_python_source(path: Path):
    jupytext = pytest.importorskip("jupytext")
    committed = nbformat.read(path, as_version=4)
    source = jupytext.read(path.with_suffix(".py"))
    expected = [(cell.cell_type, cell.source) for cell in source.cells]
    actual = [(cell.cell_type, cell.source) for cell in committed.cells]
    assert actual == expected, f"{path.name} differs from {path.stem}.py: run python notebooks/build.py {path.stem}"
    assert committed.metadata.get("jupytext", {}).get("formats") == "ipynb,py:percent"


def test_the_benchmark_notebook_keeps_its_plot():
    notebook = nbformat.read(NOTEBOOKS_DIR / "04_benchmarks.ipynb", as_version=4)
    images = [
        output for cell in notebook.cells for output in cell.get("outputs", []) if "image/png" in output.get("data", {})
    ]
    assert len(images) == 1
