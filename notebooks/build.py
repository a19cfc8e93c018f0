"""Execute the example notebooks from their paired Python sources and keep their outputs.

Each notebook is a pair: ``NN_name.py`` (jupytext's percent format: the source, reviewed as code) and
``NN_name.ipynb`` (the same cells with their outputs, committed so that they read well on GitHub without
running; CI runs them again with nbmake). Edit the ``.py`` file (or the notebook in Jupyter with jupytext, which
keeps both in step), then rebuild::

    python notebooks/build.py                    # every notebook
    python notebooks/build.py 02_games           # one of them
    python notebooks/build.py --no-execute       # write the cells only (outputs empty)

Each notebook runs with ``notebooks/`` as its working directory, as under nbmake. After running, the outputs are
checked: no error output, nothing on stderr, and no absolute path of this machine (the repository, the home
folder, the temporary folder).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

NOTEBOOKS_DIR = Path(__file__).resolve().parent
REPO_ROOT = NOTEBOOKS_DIR.parent
#: seconds one cell may run before the build fails
CELL_TIMEOUT_S = 600
KERNEL_NAME = "python3"
#: the paired format: the notebook and its percent-format Python source
PAIRED_FORMATS = "ipynb,py:percent"


def sources() -> dict[str, Path]:
    """Notebook name -> its Python source: every ``NN_name.py`` beside this script."""
    return {path.stem: path for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.py"))}


def machine_paths() -> list[str]:
    """Absolute paths of this machine that must not appear in a committed output."""
    paths = {str(REPO_ROOT), str(Path.home()), tempfile.gettempdir(), sys.prefix}
    return sorted(p for p in paths if len(p) > 1)


def output_texts(notebook: nbformat.NotebookNode) -> list[str]:
    """Every text of every output (streams, results, errors; images are left out)."""
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append(output.get("text", ""))
            elif output.get("output_type") == "error":
                texts.append("\n".join(output.get("traceback", [])))
            for mime, value in output.get("data", {}).items():
                if not mime.startswith("image/"):
                    texts.append(value if isinstance(value, str) else "".join(value))
    return texts


def check_outputs(name: str, notebook: nbformat.NotebookNode) -> None:
    """Raise if an output is an error, went to stderr, or shows a path of this machine."""
    problems = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                problems.append(f"error output: {output.get('ename')}: {output.get('evalue')}")
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                problems.append(f"stderr output: {output.get('text', '')[:300]}")
    for text in output_texts(notebook):
        problems.extend(f"machine path {path!r} in an output" for path in machine_paths() if path in text)
    if problems:
        raise RuntimeError(f"{name}: " + "; ".join(sorted(set(problems))))


def build(source: Path, execute: bool) -> float:
    """Write (and run) the notebook of one source; returns the seconds its execution took."""
    notebook = jupytext.read(source)
    notebook.metadata.setdefault("jupytext", {})["formats"] = PAIRED_FORMATS
    seconds = 0.0
    if execute:
        start = time.perf_counter()
        client = NotebookClient(
            notebook, timeout=CELL_TIMEOUT_S, kernel_name=KERNEL_NAME, record_timing=False,
            resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
        )
        client.execute()
        seconds = time.perf_counter() - start
        check_outputs(source.stem, notebook)
    notebook.metadata["language_info"] = {"name": "python"}  # not the kernel's version details
    nbformat.validate(notebook)
    jupytext.write(notebook, source.with_suffix(".ipynb"), fmt="ipynb")
    return seconds


def main(argv: list[str] | None = None) -> int:
    known = sources()
    parser = argparse.ArgumentParser(description="Execute the example notebooks from their sources (outputs kept).")
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"notebooks to build (default: all): {', '.join(known)}"
    )
    parser.add_argument("--no-execute", action="store_true", help="write the cells without running them")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"unknown notebook(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    os.chdir(NOTEBOOKS_DIR)
    for name in args.names or list(known):
        seconds = build(known[name], execute=not args.no_execute)
        print(f"{name}.ipynb written" + ("" if args.no_execute else f", executed in {seconds:.1f} s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
