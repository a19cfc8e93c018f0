"""``VectorEnv.reset(seeds=...)``: game ``i`` is exactly the AEC game ``env.reset(seed=seeds[i])``."""

import numpy as np
import pytest

import cardenvs

ENV_IDS = cardenvs.available_envs()
# Seeds are integers from 0 to 2**64-1 in both front ends: the extremes included.
SEEDS = [0, 7, 2**63 + 5, 2**64 - 1]


def _aec_first_decision(env_id: str, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    env = cardenvs.env(env_id)
    env.reset(seed=seed)
    agent = env.agent_selection
    observation = env.observe(agent)
    return observation["observation"], observation["action_mask"], env.possible_agents.index(agent)


def _play_aec(env_id: str, seed: int, actions: list[int]) -> list[float]:
    """Returns of every seat after the AEC game of ``seed`` follows ``actions``."""
    env = cardenvs.env(env_id)
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for action in actions:
        env.step(action)
        for agent, reward in env.rewards.items():
            returns[agent] += reward
    return [returns[agent] for agent in env.possible_agents]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_explicit_seeds_start_the_aec_games(env_id):
    venv = cardenvs.vector_env(env_id, num_envs=len(SEEDS))
    obs, masks, players = venv.reset(seeds=np.array(SEEDS, dtype=object))
    for i, seed in enumerate(SEEDS):
        aec_obs, aec_mask, aec_player = _aec_first_decision(env_id, seed)
        np.testing.assert_array_equal(obs[i], aec_obs)
        np.testing.assert_array_equal(masks[i], aec_mask)
        assert players[i] == aec_player


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_explicit_seeds_play_the_aec_games(env_id):
    """The same first legal actions in both front ends give the same rewards at the first game's end."""
    seeds = [11, 12, 13]
    venv = cardenvs.vector_env(env_id, num_envs=len(seeds))
    _, masks, _ = venv.reset(seeds=seeds)
    taken: list[list[int]] = [[] for _ in seeds]
    returns = np.zeros((len(seeds), venv.num_players))
    done = np.zeros(len(seeds), bool)
    while not done.all():
        actions = masks.argmax(axis=1)
        for i in np.flatnonzero(~done):
            taken[i].append(int(actions[i]))
        _, masks, _, rewards, terminated, truncated = venv.step(actions)
        returns[~done] += rewards[~done]
        done |= terminated | truncated
    for i, seed in enumerate(seeds):
        assert returns[i].tolist() == pytest.approx(_play_aec(env_id, seed, taken[i]))


def test_seed_and_explicit_game_seeds_agree():
    venv = cardenvs.vector_env("slabberjan_v0", num_envs=4)
    obs_seed = venv.reset(seed=5)[0].copy()
    obs_seeds = venv.reset(seeds=[cardenvs.game_seed(5, i) for i in range(4)])[0]
    np.testing.assert_array_equal(obs_seed, obs_seeds)


@pytest.mark.parametrize(
    "kwargs",
    [{"seeds": [1, 2, 3]}, {"seeds": [[1, 2, 3, 4]]}, {"seeds": [0.5, 1, 2, 3]}, {"seeds": ["a", 1, 2, 3]},
     {"seeds": [-1, 1, 2, 3]}, {"seeds": [2**64, 1, 2, 3]},
     {"seed": 1, "seeds": [1, 2, 3, 4]}],
)
def test_bad_seeds_are_refused(kwargs):
    venv = cardenvs.vector_env("slabberjan_v0", num_envs=4)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(**kwargs)
