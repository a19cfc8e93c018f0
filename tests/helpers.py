"""Small helpers shared by the tests."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.core.aec import CardEnv


def play_random_game(env: CardEnv, seed: int, max_steps: int = 100_000) -> int:
    """Play one game with uniformly random legal actions; returns the number of agent steps."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter(max_steps):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


def make_env(env_id: str, params: dict, **kwargs) -> CardEnv:
    return cardenvs.env(env_id, **params, **kwargs)
