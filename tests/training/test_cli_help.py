"""The command lines of the MaskablePPO and RLlib adapters and the benchmarks: tyro builds them from one dataclass
each.

Every option's help is its field's docstring, every default is shown once, ``--env-id`` offers every registered
game, and each script runs by its path from any directory. (The self-play trainer, ``cardenvs train``, has its
own help test.)
"""

import ast
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
from cardenvs.core import exit_codes
from cardenvs.training import ppo, rllib_train, runs

REPO_ROOT = Path(__file__).resolve().parents[2]
#: each script, and the dataclass its command line is built from
SCRIPTS = {
    "training/ppo.py": "Args",
    "training/rllib_train.py": "RLlibTrainArgs",
    "benchmarks/run.py": "Options",
    "benchmarks/training.py": "Options",
}
#: the training adapters, run as modules of the installed package
TRAINING_SCRIPTS = ["training/ppo.py", "training/rllib_train.py"]
#: Sphinx roles and literals that mean nothing on a terminal
SPHINX_MARKUP = ("``", ":mod:", ":data:", ":class:", ":meth:", ":func:", ":attr:")
#: the characters of the box tyro draws around the options
BOX_EDGES = "│|"


def run_script(script: str, *argv: str, cwd: Path = REPO_ROOT, as_module: bool = True) -> subprocess.CompletedProcess:
    """``python -m`` the script (``training/X.py`` as ``cardenvs.training.X``), or ``python PATH`` it with
    ``as_module=False``."""
    module = script.removesuffix(".py").replace("/", ".")
    module = f"cardenvs.{module}" if script.startswith("training/") else module
    target = ["-m", module] if as_module else [str(REPO_ROOT / script)]
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, *target, *argv], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**environ, "COLUMNS": "100"})


def help_entries(text: str) -> dict[str, str]:
    """Each option's entry of a tyro --help text, by its first flag, on one line."""
    entries: dict[str, str] = {}
    flag = None
    for line in text.splitlines():
        inner = line.strip().strip(BOX_EDGES).rstrip()
        if inner.startswith(" -"):
            flag = inner.split()[0].rstrip(",")
            entries[flag] = inner.strip()
        elif flag and inner.startswith(" " * 3):
            entries[flag] += " " + inner.strip()
        else:
            flag = None
    return entries


def help_words(text: str) -> str:
    """A --help text without its box, its words separated by single spaces."""
    return " ".join(text.translate(str.maketrans(BOX_EDGES, " " * len(BOX_EDGES))).split())


def class_field_docs(source: str, name: str) -> dict[str, str]:
    """The fields the class ``name`` of a module's ``source`` declares and their docstrings (the string under each
    field, one-spaced; empty for a field declared without one)."""
    [cls] = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef) and node.name == name]
    docs = {}
    for node, after in zip(cls.body, [*cls.body[1:], None], strict=True):
        if isinstance(node, ast.AnnAssign):
            documented = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
            docs[node.target.id] = " ".join(after.value.value.split()) if documented else ""
    return docs


def field_docs(script: str) -> dict[str, str]:
    """The fields of the script's dataclass and their docstrings, those of the classes it derives from included (a
    field declared again for its default keeps the docstring it was declared with first)."""
    module = sys.modules.get("cardenvs." + script.removesuffix(".py").replace("/", "."))
    if module is None:  # the benchmarks: a class of their own, read from the file
        return class_field_docs((REPO_ROOT / script).read_text(), SCRIPTS[script])
    docs: dict[str, str] = {}
    for cls in reversed(getattr(module, SCRIPTS[script]).__mro__[:-1]):
        for name, doc in class_field_docs(inspect.getsource(sys.modules[cls.__module__]), cls.__name__).items():
            docs[name] = docs.get(name) or doc
    return docs


def flag_of(field: str) -> str:
    return "--" + field.rstrip("_").replace("_", "-")


@pytest.fixture(scope="module", params=list(SCRIPTS))
def script_help(request) -> tuple[str, str]:
    shown = run_script(request.param, "--help")
    assert shown.returncode == 0, shown.stderr
    return request.param, shown.stdout


def test_help_shows_every_default_once_without_markup(script_help):
    _, text = script_help
    assert "(default: None)" not in text
    assert not [markup for markup in SPHINX_MARKUP if markup in text]
    entries = help_entries(text)
    assert len(entries) > 5
    for flag, entry in entries.items():
        if flag != "-h":
            assert entry.count("(default:") == 1, entry


def test_every_option_is_a_documented_field(script_help):
    script, text = script_help
    entries = help_entries(text)
    docs = field_docs(script)
    assert {flag_of(name) for name in docs} == set(entries) - {"-h"}
    for name, doc in docs.items():
        assert doc, f"{script}: {name} has no docstring"
        assert f" {doc} (default:" in entries[flag_of(name)], (doc, entries[flag_of(name)])


@pytest.mark.parametrize("script", TRAINING_SCRIPTS)
def test_env_id_offers_every_registered_game(script):
    shown = run_script(script, "--help")
    assert shown.returncode == 0, shown.stderr
    text = help_words(shown.stdout)
    choices = text.split("--env-id {", 1)[1].split("}", 1)[0].replace(" ", "").split(",")
    assert choices == list(cardenvs.available_envs())
    parse_args = {"training/ppo.py": ppo.parse_args, "training/rllib_train.py": rllib_train.parse_args}[script]
    for env_id in cardenvs.available_envs():
        assert parse_args(["--env-id", env_id]).env_id == env_id


def test_ppo_help_shows_the_defaults_that_depend_on_other_options(capsys):
    with pytest.raises(SystemExit):
        ppo.parse_args(["--help"])
    text = help_words(capsys.readouterr().out)
    assert "(default: heuristic random snapshots)" in text and "(default: runs/ppo/<env-id>)" in text
    assert text.count("(default: --total-decisions / 10)") == len(runs.PERIODIC_FIELDS)


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_each_script_runs_by_its_path_from_another_directory(script, tmp_path):
    shown = run_script(script, "--help", cwd=tmp_path, as_module=False)
    assert shown.returncode == 0, shown.stderr
    assert f"{REPO_ROOT / script} [-h]" in shown.stdout.splitlines()[0]


def test_ppo_by_its_path_checks_its_arguments_with_the_repository_s_agents(tmp_path):
    done = run_script("training/ppo.py", "--league", "nobody", "--run-dir", str(tmp_path / "run"), cwd=tmp_path,
                      as_module=False)
    assert done.returncode == exit_codes.EXIT_USAGE
    assert done.stderr.startswith("error: ") and "unknown agent 'nobody'" in done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / "run").exists()


@pytest.mark.parametrize("script", TRAINING_SCRIPTS)
def test_the_training_modules_run_from_another_directory_as_modules_of_the_package(script, tmp_path):
    shown = run_script(script, "--help", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"usage: python -m cardenvs.training.{Path(script).stem} ")
