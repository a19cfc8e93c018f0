"""``cardenvs.vector_env`` and the module-style ``vector_env`` pass ``parallel`` on to :class:`VectorEnv`."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.vector import PARALLEL_MIN_GAMES, _step_games, _step_games_serial

ENV_ID = "slabberjan_v0"
#: a batch large enough that ``parallel=None`` would pick numba's threads: ``False`` must still win
LARGE_BATCH = PARALLEL_MIN_GAMES


def _factories():
    module = getattr(cardenvs, ENV_ID)
    return [
        pytest.param(lambda num_envs, **kwargs: cardenvs.vector_env(ENV_ID, num_envs, **kwargs), id="cardenvs"),
        pytest.param(module.vector_env, id="module"),
    ]


@pytest.mark.parametrize("make", _factories())
def test_parallel_reaches_the_batched_env(make):
    # The kernel is the only trace the choice leaves: the batched env keeps no flag of its own.
    assert make(2, parallel=True)._step_kernel is _step_games
    assert make(LARGE_BATCH, parallel=False)._step_kernel is _step_games_serial
    assert make(2)._step_kernel is _step_games_serial  # the default still goes by the batch size
    assert make(LARGE_BATCH)._step_kernel is _step_games


@pytest.mark.parametrize("make", _factories())
def test_parallel_is_not_taken_for_a_game_parameter(make):
    venv = make(2, parallel=False, num_players=3)
    assert venv.num_players == 3
    with pytest.raises(ValueError, match="parallel='yes' is not allowed"):
        make(2, parallel="yes")


def test_threads_change_no_game():
    serial = cardenvs.vector_env(ENV_ID, 8, parallel=False, num_players=4)
    threaded = cardenvs.vector_env(ENV_ID, 8, parallel=True, num_players=4)
    for venv in (serial, threaded):
        venv.reset(seed=3)
    for _ in range(40):
        outputs = [venv.step(venv.sample_actions()) for venv in (serial, threaded)]
        for mine, theirs in zip(*outputs, strict=True):
            np.testing.assert_array_equal(mine, theirs)
