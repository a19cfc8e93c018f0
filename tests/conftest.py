"""Shared test options: ``--runslow`` also runs the tests marked ``slow``: long random-play fuzzing, and the
exhaustive variants of tests whose default run keeps one fast representative."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the slow tests too")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow (long fuzzing or an exhaustive variant): run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)
