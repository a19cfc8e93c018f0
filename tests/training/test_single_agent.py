"""The single-agent view: the learner's own observation and reward in every step, and the env checkers."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import cardenvs
from cardenvs.agents.base import Agent, RandomAgent
from cardenvs.agents.registry import make_agent
from cardenvs.learning import OpponentPool, SingleAgentEnv

ENV_ID = "slabberjan_v0"
PARAMS = {"num_players": 3}


class RecordingAgent(Agent):
    """Plays like ``inner`` and logs every action it takes (to replay the game independently)."""

    name = "recording"

    def __init__(self, inner: Agent, log: list):
        self.inner = inner
        self.log = log

    def act(self, observation):
        action = self.inner.act(observation)
        self.log.append(action)
        return action


def _replay(seed, actions, learner_seat):
    """Replay a game's actions in a plain AEC env; per learner decision: (observation, reward since, over)."""
    env = cardenvs.env(ENV_ID, **PARAMS)
    env.reset(seed=seed)
    learner = env.possible_agents[learner_seat]
    decisions, reward = [], 0.0
    last_mover = None
    for action in actions:
        if env.agent_selection == learner:
            decisions.append((env.observe(learner)["observation"], reward))
            reward = 0.0
        last_mover = env.agent_selection
        env.step(action)
        reward += env.rewards[learner]
    assert env.terminations[learner] or env.truncations[learner], "the replayed game must be over"
    decisions.append((env.observe(learner)["observation"], reward))
    return decisions, last_mover != learner


def test_reward_and_observation_always_belong_to_the_learner():
    """Replays every episode in a plain AEC env: each step's reward is the learner seat's reward since its last
    decision (a game lost on an opponent's move delivers -1 to the learner in that step), and each observation is
    exactly what the learner's seat observes (PettingZoo issue #1147 mixes the two seats' views)."""
    log: list = []
    opponents = [RecordingAgent(make_agent("heuristic", ENV_ID, cardenvs.env(ENV_ID, **PARAMS).layout), log)]
    env = SingleAgentEnv(ENV_ID, opponents, params=PARAMS)
    rng = np.random.default_rng(0)
    lost_on_opponent_move = 0
    for episode in range(40):
        seed = 1000 + episode
        log.clear()
        observation, info = env.reset(seed=seed)
        observations, rewards, actions = [observation], [], []
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            log.append(action)
            actions.append(action)
            observation, reward, terminated, truncated, info = env.step(action)
            observations.append(observation)
            rewards.append(reward)
            done = terminated or truncated
        assert info["learner_seat"] == env.learner_seat
        decisions, opponent_moved_last = _replay(seed, log, env.learner_seat)
        assert len(decisions) == len(observations)
        for (expected_obs, expected_reward), obs, reward in zip(decisions, observations, [0.0] + rewards, strict=True):
            np.testing.assert_array_equal(obs, expected_obs)
            assert reward == pytest.approx(expected_reward)
        if opponent_moved_last and rewards[-1] == -1.0:
            lost_on_opponent_move += 1
    assert lost_on_opponent_move > 0, "no episode ended on an opponent's move: the test would not catch #1147"


def test_observation_is_the_learners_seat_after_every_step():
    env = SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], params=PARAMS)
    for seed in range(10):
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            seen = env.aec.observe(env.learner)
            np.testing.assert_array_equal(observation, seen["observation"])
            np.testing.assert_array_equal(env.action_masks(), seen["action_mask"] > 0)
            assert env.aec.agent_selection == env.learner
            action = int(np.flatnonzero(env.action_masks())[-1])
            observation, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        np.testing.assert_array_equal(observation, env.aec.observe(env.learner)["observation"])
        assert not env.action_masks().any()


def test_the_learner_seat_is_drawn_per_episode_or_fixed():
    env = SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], params=PARAMS)
    assert {env.reset(seed=seed)[1]["learner_seat"] for seed in range(30)} == {0, 1, 2}
    fixed = SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], learner_seat=2, params=PARAMS)
    assert {fixed.reset(seed=seed)[1]["learner_seat"] for seed in range(10)} == {2}
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], learner_seat=3, params=PARAMS)


def test_opponents_are_drawn_from_the_pool():
    layout = cardenvs.env(ENV_ID, **PARAMS).layout
    pool = OpponentPool([RandomAgent(seed=1), make_agent("heuristic", ENV_ID, layout)])
    env = SingleAgentEnv(ENV_ID, pool, params=PARAMS)
    seen = set()
    for seed in range(20):
        env.reset(seed=seed)
        seen.update(type(agent).__name__ for agent in env._seat_agents if agent is not None)
        assert env._seat_agents[env.learner_seat] is None
    assert seen == {"RandomAgent", "SlabberjanHeuristic"}


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_env_checkers_pass(env_id):
    layout = cardenvs.env(env_id).layout
    env = SingleAgentEnv(env_id, [RandomAgent(seed=0), make_agent("heuristic", env_id, layout)])
    gymnasium_check_env(env, skip_render_check=True)
    sb3_check_env(env)


def test_illegal_actions_are_penalised_or_raise():
    env = SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], params=PARAMS)
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0]) if (~env.action_masks()).any() else env.num_actions
    _, reward, terminated, _, _ = env.step(illegal)
    assert terminated and reward == -1.0
    strict = SingleAgentEnv(ENV_ID, [RandomAgent(seed=1)], illegal_action="raise", params=PARAMS)
    strict.reset(seed=3)
    with pytest.raises(cardenvs.IllegalActionError):
        strict.step(strict.num_actions)
