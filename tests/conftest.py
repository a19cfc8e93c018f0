"""Shared test options: ``--runslow`` also runs the tests marked ``slow``: long random-play fuzzing, and the
exhaustive variants of tests whose default run keeps one fast representative."""

import os

import pytest
from numba.core import config as numba_config

from cardenvs.core import compile_cache, compile_notice

# numba caches a function of another package beside its source unless NUMBA_CACHE_DIR names a folder, so the test
# games' compiled functions (tests/toy_game) would land in the repository: they go to cardenvs's own cache folder,
# which persists between runs (the notebooks, run last, rely on the cache the tests filled), unless one is named.
os.environ.setdefault("NUMBA_CACHE_DIR", compile_cache.cache_dir())
numba_config.reload_config()
# A first compile's notice would go to the stderr of the commands that tests run, whose output they check.
os.environ.setdefault(compile_notice.NOTICE_VARIABLE, "0")


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the slow tests too")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow (long fuzzing or an exhaustive variant): run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)
