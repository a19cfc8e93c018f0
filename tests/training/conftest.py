"""What the tests of the self-play trainer share: a tiny run of it (8 games, 8 steps per rollout, a 16-unit
network, one epoch, no tournaments unless asked for) on Slabberjan."""

from collections.abc import Callable
from pathlib import Path

import pytest

from cardenvs.training import selfplay

#: the game of the tiny runs
TINY_GAME = "slabberjan_v0"
#: the options of a tiny run, after its GAME
TINY_OPTIONS = ("--num-envs", "8", "--num-steps", "8", "--minibatch-size", "16", "--update-epochs", "1", "--hidden",
                "16", "--no-progress-bar", "--eval-games", "0", "--final-games", "0", "--torch-threads", "1",
                "--device", "cpu")


@pytest.fixture(scope="session")
def tiny() -> tuple[str, ...]:
    """The command line of a tiny run, GAME first (add ``--run-dir`` and more options)."""
    return (TINY_GAME, *TINY_OPTIONS)


@pytest.fixture
def tiny_args(tmp_path: Path) -> Callable[..., selfplay.Run]:
    """Makes the resolved arguments of a tiny run in ``run_dir`` (default: under ``tmp_path``), with ``options``."""

    def make(*options: str, run_dir: Path | None = None) -> selfplay.Run:
        run_dir = run_dir or tmp_path / "run"
        argv = [TINY_GAME, *TINY_OPTIONS, "--run-dir", str(run_dir), *options]
        return selfplay.resolve_args(selfplay.parse_args(argv))

    return make
