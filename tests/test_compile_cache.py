"""numba's disk cache never runs one state-record layout's compiled rules on another.

The sequence that used to go wrong: one process compiles and caches kernels for parameter set A, a second for
set B (a different record layout), and a third loads A's kernels from the cache and then plays B. With record
types named by a per-process counter, the third process linked A's machine code into B's kernels. Here every
game runs that sequence against a fresh cache directory, and the third process's trajectories must equal those
of plain Python (``NUMBA_DISABLE_JIT=1``), which has no cache at all.

Each process compiles every game it runs, so the sequence costs minutes for all five games. By default it runs
for one game whose two parameter sets have different record layouts (the case that went wrong: the fix is in
the shared record naming and cache stamping, not in any game); ``--runslow`` runs it for every game. A control
runs the same sequence with numba's own record naming put back and checks that it does go wrong, so this test
can fail.

The rest runs a copy of the package in fresh interpreters: where the cache goes (the per-user folder, never beside
the sources; the variables that move it), that two source trees sharing one cache folder keep their own entries,
that an edit in another file is never served stale, and the one-line notice of a first compile.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.core import compile_cache, compile_notice
from tests.cache_probe import NUMBA_NAMING_VARIABLE, parameter_sets

PROBE = Path(__file__).with_name("cache_probe.py")
ROOT = PROBE.parent.parent
#: the game the sequence runs for by default (its sets ``a`` and ``b`` have different record layouts)
DEFAULT_GAMES = ("slabberjan_v0",)
#: the variables that choose the cache folder, silence the notice or turn compiling off: every interpreter started
#: here starts without them but for those a test sets
CACHE_VARIABLES = ("NUMBA_CACHE_DIR", compile_cache.CACHE_DIR_VARIABLE, compile_notice.NOTICE_VARIABLE,
                   "NUMBA_DISABLE_JIT", "XDG_CACHE_HOME")


def _run(args: list[str], cache_dir: Path, **extra_env: str) -> str:
    env = {key: value for key, value in os.environ.items() if key not in CACHE_VARIABLES}
    env.update({"NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT), **extra_env})
    done = subprocess.run(
        [sys.executable, str(PROBE), *args], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _sequence(games: list[str], cache_dir: Path, **extra_env: str) -> dict:
    """Compile set a, then set b, each in its own process; play b then a in a third: its trajectories."""
    _run(["compile", "a", *games], cache_dir, **extra_env)
    _run(["compile", "b", *games], cache_dir, **extra_env)
    return json.loads(_run(["play", *games], cache_dir, **extra_env))


@pytest.fixture(scope="module")
def plain_trajectories(request, tmp_path_factory) -> dict:
    games = cardenvs.available_envs() if request.config.getoption("--runslow") else list(DEFAULT_GAMES)
    return json.loads(_run(["play", *games], tmp_path_factory.mktemp("unused-cache"), NUMBA_DISABLE_JIT="1"))


@pytest.fixture(scope="module")
def trajectories(request, tmp_path_factory, plain_trajectories) -> tuple[dict, dict]:
    games = cardenvs.available_envs() if request.config.getoption("--runslow") else list(DEFAULT_GAMES)
    return _sequence(games, tmp_path_factory.mktemp("numba-cache")), plain_trajectories


@pytest.mark.slow  # a control of the test above (three more cold compiles): it shows that test can fail
def test_the_sequence_goes_wrong_under_numba_s_own_record_naming(tmp_path, plain_trajectories):
    """The control: with record types named by numba's per-process type code, the third process plays set b
    with kernels linked against set a's code, so its trajectory leaves plain Python's."""
    cached = _sequence(list(DEFAULT_GAMES), tmp_path / "numba-cache", **{NUMBA_NAMING_VARIABLE: "1"})
    wrong = [key for key in cached if cached[key] != plain_trajectories[key]]
    assert wrong, "numba's own naming did not collide: this sequence no longer tests the record naming"


def test_the_default_game_has_two_record_layouts():
    for env_id in DEFAULT_GAMES:
        game = cardenvs.get_game(env_id)
        layouts = {game.state_dtype(game.make_params(**params)) for params in parameter_sets(env_id).values()}
        assert len(layouts) == 2, env_id


@pytest.mark.parametrize("game_set", ["b", "a"])
@pytest.mark.parametrize(
    "env_id",
    [pytest.param(env_id, marks=() if env_id in DEFAULT_GAMES else pytest.mark.slow)
     for env_id in cardenvs.available_envs()],
)
def test_cached_kernels_play_as_plain_python(trajectories, env_id, game_set):
    cached, plain = trajectories
    key = f"{env_id}/{game_set}"
    assert len(plain[key]) > 10
    for index, (got, want) in enumerate(zip(cached[key], plain[key], strict=True)):
        assert got == want, f"{key}: step {index} differs from plain Python"


#: a compiled function of a copied package: what it returns, where it is cached, whether it was loaded or compiled
PROBE_PROGRAM = """
import json
import cardenvs.probe_value as probe
value = probe.value()
stats = probe.value.stats
print(json.dumps({"value": value, "cache_path": stats.cache_path, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values())}))
"""


def package_copy(parent: Path, constant: int = 1) -> Path:
    """A copy of the cardenvs sources under ``parent`` with a module ``probe_value`` whose compiled ``value()``
    returns ``constant``; ``parent`` (to put on PYTHONPATH)."""
    package = parent / "cardenvs"
    shutil.copytree(ROOT / "cardenvs", package, ignore=shutil.ignore_patterns("__pycache__"))
    write_probe(package, constant)
    return parent


def write_probe(package: Path, constant: int) -> None:
    (package / "probe_value.py").write_text(
        f"from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {constant}\n"
    )


def run_copy(tree: Path, program: str, **variables: str) -> subprocess.CompletedProcess:
    """Run ``program`` in a fresh interpreter that imports the copy at ``tree``, with the cache variables unset
    but for ``variables``; fail with its stderr if it fails."""
    env = {key: value for key, value in os.environ.items() if key not in CACHE_VARIABLES}
    env.update(PYTHONPATH=str(tree), **variables)
    done = subprocess.run([sys.executable, "-c", program], env=env, cwd=tree, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def probe(tree: Path, **variables: str) -> dict:
    return json.loads(run_copy(tree, PROBE_PROGRAM, **variables).stdout)


def cache_files(folder: Path) -> list[Path]:
    return sorted(path for pattern in ("*.nbi", "*.nbc") for path in folder.rglob(pattern))


def test_a_changed_callee_in_another_file_is_never_served_from_the_cache(tmp_path):
    # numba stamps a cached function with its own file only: a kernel that compiled in a function (or a constant)
    # of another file kept running the old code after that file changed. cardenvs stamps with the whole package.
    tree = package_copy(tmp_path)
    package = tree / "cardenvs"
    (package / "probe_caller.py").write_text(
        "from numba import njit\n\nfrom cardenvs.probe_value import value\n\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    program = "import cardenvs.probe_caller as c; print(c.twice())"
    for constant, expected in ((1, "2"), (1, "2"), (5, "10")):
        write_probe(package, constant)
        done = run_copy(tree, program, NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))
        assert done.stdout.strip() == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_CACHE_HOME is the Linux cache location")
def test_the_cache_goes_to_the_per_user_folder_and_nothing_beside_the_sources(tmp_path):
    tree = package_copy(tmp_path / "tree")
    user_cache = tmp_path / "user-cache"
    first = probe(tree, XDG_CACHE_HOME=str(user_cache))
    again = probe(tree, XDG_CACHE_HOME=str(user_cache))
    assert (first["value"], first["misses"], first["hits"]) == (1, 1, 0)
    assert (again["value"], again["misses"], again["hits"]) == (1, 0, 1)  # loaded from the folder, not compiled
    assert Path(first["cache_path"]).parent == user_cache / compile_cache.APP_NAME
    assert cache_files(user_cache / compile_cache.APP_NAME)
    assert not cache_files(tree)


def test_numba_s_variable_and_then_cardenvs_s_move_the_cache(tmp_path):
    tree = package_copy(tmp_path / "tree")
    numba_folder, own_folder = tmp_path / "numba-folder", tmp_path / "cardenvs-folder"
    assert Path(probe(tree, NUMBA_CACHE_DIR=str(numba_folder))["cache_path"]).parent == numba_folder
    both = {"NUMBA_CACHE_DIR": str(numba_folder), compile_cache.CACHE_DIR_VARIABLE: str(own_folder)}
    assert Path(probe(tree, **both)["cache_path"]).parent == own_folder
    assert not cache_files(tree)


def test_cache_dir_prefers_the_cardenvs_variable_then_numba_s_then_the_platform_s(monkeypatch, tmp_path):
    from numba.core import config

    monkeypatch.delenv(compile_cache.CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(config, "CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert compile_cache.cache_dir() == str(tmp_path / "xdg" / compile_cache.APP_NAME)
    assert Path(compile_cache.cache_dir()).name in (compile_cache.APP_NAME, "Cache")  # Windows adds Cache
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    assert compile_cache.cache_dir() == str(tmp_path / "numba")
    monkeypatch.setenv(compile_cache.CACHE_DIR_VARIABLE, str(tmp_path / "own"))
    assert compile_cache.cache_dir() == str(tmp_path / "own")


def test_two_source_trees_sharing_one_cache_folder_keep_their_own_entries(tmp_path):
    # numba names a cache entry after the function's file, name and first line, identical in two copies of the
    # package; each source folder has a subfolder of its own (named by its path), so neither copy loads the other's
    # code, nor evicts it: each copy's second run loads its own entry.
    shared = {compile_cache.CACHE_DIR_VARIABLE: str(tmp_path / "shared-cache")}
    trees = {1: package_copy(tmp_path / "one", constant=1), 7: package_copy(tmp_path / "two", constant=7)}
    runs = [(constant, probe(tree, **shared)) for _ in range(2) for constant, tree in trees.items()]
    assert [result["value"] for _, result in runs] == [constant for constant, _ in runs]
    assert [result["hits"] for _, result in runs] == [0, 0, 1, 1]
    assert len({result["cache_path"] for _, result in runs}) == len(trees)


def test_an_unwritable_cache_folder_warns_and_compiles_into_a_temporary_folder_removed_at_exit(tmp_path):
    tree = package_copy(tmp_path / "tree")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = run_copy(tree, PROBE_PROGRAM, **{compile_cache.CACHE_DIR_VARIABLE: str(blocker / "cache")})
    result = json.loads(done.stdout)
    assert result["value"] == 1
    assert "RuntimeWarning: cardenvs cannot write its compiled cache to" in done.stderr
    assert compile_cache.CACHE_DIR_VARIABLE in done.stderr
    assert not Path(result["cache_path"]).exists()  # removed when the process ended
    assert not cache_files(tree)


#: compiles a cardenvs function that takes a game's state record (and loads it, the second time)
RECORD_PROBE = """
import numpy as np
import cardenvs
from cardenvs.probe_record import first_rng
game = cardenvs.get_game("slap_v0")
states = np.zeros(2, dtype=game.state_dtype(game.make_params()))
print(first_rng(states))
"""
#: the same, with the application's logging set to errors only
QUIET_BY_LOGGING = 'import logging\nlogging.getLogger("cardenvs").setLevel(logging.ERROR)\n' + RECORD_PROBE


def record_probe_tree(parent: Path) -> Path:
    tree = package_copy(parent)
    (tree / "cardenvs" / "probe_record.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef first_rng(states):\n    return states[0].rng\n"
    )
    return tree


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("cardenvs: compiling")]


def test_a_first_compile_gives_one_line_naming_the_game_and_a_warm_cache_none(tmp_path):
    tree = record_probe_tree(tmp_path / "tree")
    cache = {compile_cache.CACHE_DIR_VARIABLE: str(tmp_path / "cache")}
    first = run_copy(tree, RECORD_PROBE, **cache)
    assert first.stdout.strip() == "0"
    assert notices(first.stderr) == [
        f"cardenvs: compiling slap_v0's rules for cardenvs.probe_record on this machine, "
        f"{compile_notice.USUAL_FIRST_COMPILE} (once: later runs load them from {tmp_path / 'cache'})"
    ]
    assert notices(run_copy(tree, RECORD_PROBE, **cache).stderr) == []


def test_the_notice_is_silenced_by_its_variable_or_by_logging(tmp_path):
    tree = record_probe_tree(tmp_path / "tree")
    quiet = run_copy(tree, RECORD_PROBE, **{compile_cache.CACHE_DIR_VARIABLE: str(tmp_path / "one"),
                                            compile_notice.NOTICE_VARIABLE: "0"})
    assert quiet.stdout.strip() == "0" and notices(quiet.stderr) == []
    logged = run_copy(tree, QUIET_BY_LOGGING, **{compile_cache.CACHE_DIR_VARIABLE: str(tmp_path / "two")})
    assert logged.stdout.strip() == "0" and notices(logged.stderr) == []


def test_game_of_names_the_game_of_a_state_record_among_argument_types():
    from numba import typeof

    game = cardenvs.get_game("clabber_v0")
    states = np.zeros(1, dtype=game.state_dtype(game.make_params()))
    assert compile_notice.game_of((typeof(3), typeof(states))) == "clabber_v0"
    assert compile_notice.game_of((typeof(states[0]),)) == "clabber_v0"
    assert compile_notice.game_of((typeof(np.zeros(3)), typeof(1.5))) is None
    foreign = np.zeros(1, dtype=np.dtype([("no_game_has_this_field", np.int32)]))
    assert compile_notice.game_of((typeof(foreign),)) is None
