"""Random play over thousands of hands keeps Clabber's invariants (batched env, every example parameter set)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.games.clabber import GAME
from cardenvs.games.clabber.cards import HAND_POINTS

PARAM_SETS = [pytest.param(p, id=str(i)) for i, p in enumerate(GAME.example_params)]


def _fuzz(params: dict, num_envs: int, steps: int, check_every: int) -> int:
    """Random legal play; returns the number of hands scored. Checks every rule-level invariant as it goes."""
    venv = cardenvs.vector_env("clabber_v0", num_envs, **params)
    venv.reset(seed=17)
    states = venv.states
    hands = states.hands_played.copy()
    scores = states.scores.copy()
    scored = 0
    for step in range(steps):
        _, masks, _, rewards, terminated, truncated = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) >= 2).all(), "a player to act was left without a real choice"
        restarted = terminated | truncated
        if restarted.any():
            assert (np.abs(rewards[restarted, 0] - rewards[restarted, 2]) == 0).all(), "partners' rewards differ"
            assert (rewards[restarted, 0] == -rewards[restarted, 1]).all(), "team rewards are not zero-sum"
            assert (rewards[truncated & ~terminated] == 0).all(), "truncation must reward 0"
            if params.get("single_hand"):  # (own − opponents' points) / 162, points at most 162 + all melds
                assert (np.abs(rewards[terminated]) <= (HAND_POINTS + 4 * 200 + 40) / HAND_POINTS).all()
            else:
                assert np.isin(rewards[terminated], (-1.0, 0.0, 1.0)).all()
        assert (rewards[~restarted] == 0).all(), "a reward before the end"
        live = ~restarted
        new_hand = live & (states.hands_played != hands)
        scored += int(new_hand.sum()) + int(terminated.sum())  # a finished game ended with a scored hand
        # 162 card points (with the last trick) in every hand played out, and scores grow by what was added
        assert (states.hand_trick_points[new_hand].sum(axis=1) == HAND_POINTS).all()
        assert (states.scores[new_hand] - scores[new_hand] == states.hand_added[new_hand]).all()
        assert (states.scores[live & ~new_hand] == scores[live & ~new_hand]).all(), "scores moved mid-hand"
        assert (states.hand_added[new_hand] >= 0).all()
        makers_failed = new_hand & (
            np.take_along_axis(states.hand_added, (states.hand_maker % 2)[:, None], axis=1)[:, 0] == 0)
        defenders = 1 - states.hand_maker[makers_failed] % 2
        assert (states.hand_added[makers_failed, defenders] > 0).all(), "defenders always score"
        hands = states.hands_played.copy()
        scores = states.scores.copy()
        if step % check_every == 0:
            for i in range(0, num_envs, 5):
                GAME.check_invariants(venv.states[i], venv.params)
    return scored


@pytest.mark.parametrize("params", PARAM_SETS)
def test_random_play_over_a_thousand_hands_keeps_the_invariants(params):
    assert _fuzz(params, num_envs=256, steps=200, check_every=25) > 1000


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAM_SETS)
def test_long_random_play_keeps_the_invariants(params):
    assert _fuzz(params, num_envs=2048, steps=2000, check_every=50) > 100_000
