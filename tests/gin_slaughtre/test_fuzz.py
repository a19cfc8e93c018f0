"""Random play over many games keeps Gin Slaughtre's invariants (cards accounted for, a legal action, max_turns)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.games.gin_slaughtre import GAME

ENV_ID = "gin_slaughtre_v0"


def _fuzz(params: dict, num_envs: int, steps: int, check_every: int, check_stride: int = 1) -> int:
    venv = cardenvs.vector_env(ENV_ID, num_envs, **params)
    venv.reset(seed=123)
    finished = 0
    max_turns = venv.params.max_turns
    for step in range(steps):
        _, masks, players, rewards, terminated, truncated = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all() and (players >= 0).all()
        assert (venv.states.step_count <= max_turns).all()
        # +1/-1 on a win, 0/0 on truncation
        assert np.allclose(rewards.sum(axis=1), 0.0) and (np.abs(rewards) <= 1).all()
        assert (np.abs(rewards[terminated]).sum(axis=1) == 2).all() and (rewards[truncated] == 0).all()
        finished += int(terminated.sum() + truncated.sum())
        if step % check_every == 0:
            for i in range(step % check_stride, num_envs, check_stride):
                GAME.check_invariants(venv.states[i], venv.params)
    return finished


@pytest.mark.parametrize("params", [{}, {"num_downcards": 3, "min_set_size": 2, "max_turns": 300}])
def test_random_play_over_a_thousand_games_keeps_the_invariants(params):
    assert _fuzz(params, num_envs=256, steps=3000, check_every=61, check_stride=8) >= 400


@pytest.mark.slow
@pytest.mark.parametrize("params", GAME.example_params)
def test_long_random_play_keeps_the_invariants(params):
    assert _fuzz(params, num_envs=1024, steps=20_000, check_every=7) >= 5000
