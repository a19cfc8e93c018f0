"""Adding a game is what docs/adding_a_game.md says: a game defined outside the package, named in the
``CARDENVS_GAME_MODULES`` environment variable, runs the generic env suite that every built-in game runs.

The toy game of ``tests/toy_game`` is registered exactly as the guide tells a user to (the variable, in a fresh
process), and that process runs the generic test modules, whose cases come from the registered games, selecting
the toy game's cases: PettingZoo's api and seed tests, AEC and batched agreement, snapshots, invariants under
random play, error handling, human play and replays, explicit seeds, the shown masks and tournaments.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from cardenvs.core.registry import GAME_MODULES_VARIABLE

ENV_ID = "toy_v0"
GAME_MODULE = "tests.toy_game.game"
REPOSITORY = Path(__file__).resolve().parents[1]
#: the generic test modules: each parametrizes its tests over the registered games
GENERIC_SUITE = (
    "tests/test_env_contract.py",
    "tests/test_play.py",
    "tests/test_vector_seeds.py",
    "tests/test_env_views.py",
    "tests/evaluation/test_tournament.py",
)
#: tests the toy game's cases must include: the guide's promise that a game gets the PettingZoo api test and the
#: batched env with no test of its own
REQUIRED_TESTS = (
    f"test_pettingzoo_api[{ENV_ID}-0]",
    f"test_pettingzoo_seed[{ENV_ID}-0]",
    f"test_aec_and_batched_agree_step_for_step[{ENV_ID}-0]",
    f"test_batched_illegal_action_raises_and_changes_nothing[{ENV_ID}]",
    f"test_batched_and_aec_tournaments_agree_exactly[{ENV_ID}]",
)
SUITE_TIMEOUT_S = 900


def _outcomes(report: Path) -> dict[str, str]:
    """Test name -> ``passed``, ``failed``, ``error`` or ``skipped``, from pytest's JUnit XML report."""
    outcomes = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name")] = {"failure": "failed"}.get(kinds[0], kinds[0]) if kinds else "passed"
    return outcomes


def test_a_game_named_in_the_environment_variable_passes_the_generic_env_suite(tmp_path):
    report = tmp_path / "suite.xml"
    path = os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")]))
    environment = dict(os.environ, **{GAME_MODULES_VARIABLE: GAME_MODULE, "PYTHONPATH": path})
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", ENV_ID,
               f"--junitxml={report}", *GENERIC_SUITE]
    done = subprocess.run(command, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S, cwd=REPOSITORY,
                          env=environment)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    outcomes = _outcomes(report)
    assert all(ENV_ID in name for name in outcomes), "only the toy game's cases were selected"
    missing = [name for name in REQUIRED_TESTS if name not in outcomes]
    assert not missing, f"the generic suite did not run these on {ENV_ID}: {missing}"
    not_passed = {name: outcome for name, outcome in outcomes.items()
                  if outcome != "passed" and not name.startswith("test_long_random_play")}  # --runslow only
    assert not not_passed, not_passed
