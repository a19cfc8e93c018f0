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
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
from tests.cache_probe import NUMBA_NAMING_VARIABLE, parameter_sets

PROBE = Path(__file__).with_name("cache_probe.py")
ROOT = PROBE.parent.parent
#: the game the sequence runs for by default (its sets ``a`` and ``b`` have different record layouts)
DEFAULT_GAMES = ("slabberjan_v0",)


def _run(args: list[str], cache_dir: Path, **extra_env: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT), **extra_env}
    if "NUMBA_DISABLE_JIT" not in extra_env:
        env.pop("NUMBA_DISABLE_JIT", None)
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


def test_a_changed_callee_in_another_file_is_never_served_from_the_cache(tmp_path):
    # numba stamps a cached function with its own file only: a kernel that compiled in a function (or a constant)
    # of another file kept running the old code after that file changed. cardenvs stamps with the whole package.
    package = tmp_path / "cardenvs"
    shutil.copytree(ROOT / "cardenvs", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "probe_caller.py").write_text(
        "from numba import njit\n\nfrom cardenvs.probe_callee import value\n\n\n"
        "@njit(cache=True)\ndef twice():\n    return 2 * value()\n"
    )
    callee = package / "probe_callee.py"
    program = "import cardenvs.probe_caller as c; print(c.twice())"
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    env.pop("NUMBA_DISABLE_JIT", None)

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-c", program], env=env, cwd=tmp_path, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    for constant, expected in ((1, "2"), (1, "2"), (5, "10")):
        callee.write_text(f"from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return {constant}\n")
        assert run() == expected
