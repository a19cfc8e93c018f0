"""Small helpers shared by the tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import cardenvs
from cardenvs.agents.base import Agent, act_on_rows
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


def play_whole_games(agent: Agent, env_id: str, seeds: Sequence[int]) -> None:
    """``agent`` plays every seat of one game per seed, to its end; each of its actions must be legal."""
    env = cardenvs.env(env_id)
    for seed in seeds:
        env.reset(seed=seed)
        moves, ended = 0, set()
        for seat in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                ended.add(seat)
                env.step(None)
                continue
            action = agent.act(observation)
            assert observation["action_mask"][action], (seed, moves, action)
            env.step(action)
            moves += 1
        assert moves > 0 and ended == set(env.possible_agents), "the game was played to its end"


def make_env(env_id: str, params: dict, **kwargs) -> CardEnv:
    return cardenvs.env(env_id, **params, **kwargs)


def play_first_games(
    env_id: str, agents: Sequence[Agent], seating: np.ndarray, seeds: Sequence[int], **params
) -> tuple[np.ndarray, np.ndarray]:
    """Play game ``i`` of a batched env from ``seeds[i]`` (the AEC game of that seed) to its end, the agents acting
    on the seats ``seating`` gives them (see :func:`cardenvs.agents.base.act_on_rows`).

    Returns every seat's return ``[N, P]`` and whether each game ended by the rules (terminated, not truncated).
    """
    venv = cardenvs.vector_env(env_id, len(seeds), **params)
    obs, masks, players = venv.reset(seeds=seeds)
    returns = np.zeros((len(seeds), venv.num_players))
    ended_by_rules = np.zeros(len(seeds), dtype=bool)
    playing = np.ones(len(seeds), dtype=bool)
    actions = np.zeros(len(seeds), dtype=np.int64)
    while playing.any():
        act_on_rows(agents, seating, obs, masks, players, actions, rows=playing)
        obs, masks, players, rewards, terminated, truncated = venv.step(actions, active=playing)
        returns[playing] += rewards[playing]
        ended = playing & (terminated | truncated)
        ended_by_rules[ended] = terminated[ended]
        playing &= ~ended
    return returns, ended_by_rules


def rotated_seat_returns(
    env_id: str, agent: Agent, opponent: Agent, seeds: Sequence[int], parallel: bool | None = None, **params
) -> np.ndarray:
    """``agent``'s return in each game of ``seeds``, playing seat ``i % P`` of game ``i``, ``opponent`` every other
    seat (``parallel``: the batched env's threads, see :class:`cardenvs.core.vector.VectorEnv`)."""
    num_players = len(cardenvs.env(env_id, **params).possible_agents)
    seats = np.arange(len(seeds)) % num_players
    seating = np.where(np.arange(num_players) == seats[:, None], 0, 1)
    returns, _ = play_first_games(env_id, [agent, opponent], seating, seeds, parallel=parallel, **params)
    return returns[np.arange(len(seeds)), seats]


def share_ended_by_rules(env_id: str, agent_class, games: int, seed: int = 0, **params) -> float:
    """The share of ``games`` batched games (game ``i`` seeded ``game_seed(seed, i)``), every seat played by one
    ``agent_class(layout)``, that end by the rules (terminated, not truncated)."""
    env = cardenvs.env(env_id, **params)
    seeds = [cardenvs.game_seed(seed, i) for i in range(games)]
    everyone = np.zeros(len(env.possible_agents), dtype=np.int64)  # agent 0 at every seat
    _, ended_by_rules = play_first_games(env_id, [agent_class(env.unwrapped.layout)], everyone, seeds, **params)
    return float(ended_by_rules.mean())
