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


def share_ended_by_rules(env_id: str, agent_class, games: int, seed: int = 0, **params) -> float:
    """The share of ``games`` batched games, every seat played by one ``agent_class(layout)``, that end by the rules
    (terminated, not truncated); only each slot's first game counts."""
    venv = cardenvs.vector_env(env_id, games, **params)
    agent = agent_class(venv.layout)
    obs, masks, _ = venv.reset(seed=seed)
    finished = np.zeros(games, dtype=bool)
    ended_by_rules = np.zeros(games, dtype=bool)
    while not finished.all():
        obs, masks, _, _, terminated, truncated = venv.step(agent.act_batch(obs, masks))
        first_end = (terminated | truncated) & ~finished
        ended_by_rules[first_end] = terminated[first_end]
        finished |= first_end
    return float(ended_by_rules.mean())
