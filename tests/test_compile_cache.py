"""numba's disk cache never runs one state-record layout's compiled rules on another.

The sequence that used to go wrong: one process compiles and caches kernels for parameter set A, a second for
set B (a different record layout), and a third loads A's kernels from the cache and then plays B. With record
types named by a per-process counter, the third process linked A's machine code into B's kernels. Here every
game runs that sequence against a fresh cache directory, and the third process's trajectories must equal those
of plain Python (``NUMBA_DISABLE_JIT=1``), which has no cache at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs

PROBE = Path(__file__).with_name("cache_probe.py")
ROOT = PROBE.parent.parent


def _run(args: list[str], cache_dir: Path, **extra_env: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT), **extra_env}
    if "NUMBA_DISABLE_JIT" not in extra_env:
        env.pop("NUMBA_DISABLE_JIT", None)
    done = subprocess.run(
        [sys.executable, str(PROBE), *args], env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory) -> tuple[dict, dict]:
    cache_dir = tmp_path_factory.mktemp("numba-cache")
    _run(["compile", "a"], cache_dir)
    _run(["compile", "b"], cache_dir)
    cached = json.loads(_run(["play"], cache_dir))
    plain = json.loads(_run(["play"], tmp_path_factory.mktemp("unused-cache"), NUMBA_DISABLE_JIT="1"))
    return cached, plain


@pytest.mark.parametrize("game_set", ["b", "a"])
@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_cached_kernels_play_as_plain_python(trajectories, env_id, game_set):
    cached, plain = trajectories
    key = f"{env_id}/{game_set}"
    assert len(plain[key]["aec"]) > 10
    for front_end in ("aec", "batched"):
        for index, (got, want) in enumerate(zip(cached[key][front_end], plain[key][front_end], strict=True)):
            assert got == want, f"{key} {front_end}: step {index} differs from plain Python"
