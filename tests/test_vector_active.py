"""``VectorEnv.step``'s ``active`` games and ``final_observation_for``, ``reset_games``, and ``act_on_rows``."""

import copy

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.base import Agent, act_on_rows
from cardenvs.core.vector import VectorEnv

ENV_IDS = cardenvs.available_envs()
NUM_GAMES = 6
MAX_STEPS = 50_000  # enough for every first game to end (random Slap games can run to thousands of moves)


def _aec_games(env_id: str, seeds: list[int]) -> list:
    envs = [cardenvs.env(env_id) for _ in seeds]
    for env, seed in zip(envs, seeds, strict=True):
        env.reset(seed=seed)
    return envs


def _state_bytes(venv: VectorEnv) -> np.ndarray:
    return np.asarray(venv.states).view(np.uint8).reshape(venv.num_envs, -1)


def _step_outputs(venv: VectorEnv) -> tuple[np.ndarray, ...]:
    return venv.rewards, venv.terminated, venv.truncated


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stepping_some_games_agrees_with_the_aec_games_and_keeps_the_others(env_id):
    """Every game follows its AEC game step for step while stepped only now and then; a game left out keeps its
    state and buffers; the finished game's observation is the AEC env's for the seat asked for."""
    seeds = [11 * i + 3 for i in range(NUM_GAMES)]
    venv = VectorEnv(cardenvs.get_game(env_id), NUM_GAMES)
    aec = _aec_games(env_id, seeds)
    obs, masks, players = venv.reset(seeds=seeds)
    rng = np.random.default_rng(0)
    live = np.ones(NUM_GAMES, bool)  # games still in their first game, compared with their AEC game
    for _ in range(MAX_STEPS):
        active = rng.random(NUM_GAMES) < 0.6
        watching = rng.integers(venv.num_players, size=NUM_GAMES)
        before = [buffer.copy() for buffer in (_state_bytes(venv), obs, masks, players, *_step_outputs(venv))]
        actions = venv.sample_actions().copy()
        obs, masks, players, rewards, terminated, truncated = venv.step(
            actions, active=active, final_observation_for=watching
        )
        after = [_state_bytes(venv), obs, masks, players, rewards, terminated, truncated]
        for old, new in zip(before, after, strict=True):
            np.testing.assert_array_equal(new[~active], old[~active])
        for i in np.flatnonzero(active & live):
            env = aec[i]
            env.step(int(actions[i]))
            np.testing.assert_array_equal(rewards[i], [env.rewards[agent] for agent in env.possible_agents])
            over = terminated[i] or truncated[i]
            assert over == (env.terminations[env.agent_selection] or env.truncations[env.agent_selection])
            if over:
                seen = env.observe(env.possible_agents[watching[i]])
                np.testing.assert_array_equal(venv.final_observations[i], seen["observation"])
                np.testing.assert_array_equal(venv.final_action_masks[i], seen["action_mask"])
                assert terminated[i] == any(env.terminations.values())
                live[i] = False
                continue
            assert players[i] == env.possible_agents.index(env.agent_selection)
            seen = env.observe(env.agent_selection)
            np.testing.assert_array_equal(obs[i], seen["observation"])
            np.testing.assert_array_equal(masks[i], seen["action_mask"])
        if not live.any():
            break
    assert not live.any(), "every game ended"


def test_the_final_observation_buffers_are_untouched_without_the_option():
    venv = cardenvs.vector_env("slabberjan_v0", 8)
    venv.reset(seed=1)
    for _ in range(200):
        venv.step(venv.sample_actions())
    assert venv.final_observations.size == 0 and venv.final_action_masks.size == 0


def test_reset_games_restarts_chosen_games_only():
    env_id = "clabber_v0"
    venv = cardenvs.vector_env(env_id, NUM_GAMES)
    venv.reset(seed=4)
    for _ in range(7):
        venv.step(venv.sample_actions())
    rows, seeds = np.array([4, 1]), [2**64 - 1, 99]
    kept = np.setdiff1d(np.arange(NUM_GAMES), rows)
    states, obs = venv.states.copy(), venv.observations.copy()
    venv.reset_games(rows, seeds)
    np.testing.assert_array_equal(venv.states[kept], states[kept])
    np.testing.assert_array_equal(venv.observations[kept], obs[kept])
    fresh = cardenvs.vector_env(env_id, len(rows))
    fresh_obs, fresh_masks, fresh_players = fresh.reset(seeds=seeds)
    np.testing.assert_array_equal(venv.observations[rows], fresh_obs)
    np.testing.assert_array_equal(venv.action_masks[rows], fresh_masks)
    np.testing.assert_array_equal(venv.current_players[rows], fresh_players)
    assert not (venv.terminated[rows] | venv.truncated[rows]).any() and (venv.rewards[rows] == 0).all()
    # the restarted games go on exactly as the fresh ones, random sampling included
    for _ in range(30):
        venv.step(venv.sample_actions())
        fresh.step(fresh.sample_actions())
        np.testing.assert_array_equal(venv.observations[rows], fresh.observations)
        np.testing.assert_array_equal(venv.rewards[rows], fresh.rewards)


def test_one_thread_and_many_threads_play_the_same_games():
    game = cardenvs.get_game("slabberjan_v0")
    serial, parallel = VectorEnv(game, 8, parallel=False), VectorEnv(game, 8, parallel=True)
    for venv in (serial, parallel):
        venv.reset(seed=5)
    for step in range(100):
        active = np.arange(8) % 3 != step % 3
        outputs = [venv.step(venv.sample_actions(), active=active) for venv in (serial, parallel)]
        for mine, theirs in zip(*outputs, strict=True):
            np.testing.assert_array_equal(mine, theirs)


def test_bad_options_are_refused():
    venv = cardenvs.vector_env("slabberjan_v0", 4)
    venv.reset(seed=0)
    actions = venv.sample_actions()
    with pytest.raises(ValueError, match="active"):
        venv.step(actions, active=np.ones(4, np.int8))
    with pytest.raises(ValueError, match="active"):
        venv.step(actions, active=np.ones(3, bool))
    with pytest.raises(ValueError, match="final_observation_for"):
        venv.step(actions, final_observation_for=np.full(4, venv.num_players))
    with pytest.raises(ValueError, match="rows"):
        venv.reset_games([4], [0])
    with pytest.raises(ValueError, match="rows"):
        venv.reset_games([1, 1], [0, 1])
    with pytest.raises(ValueError, match="seeds"):
        venv.reset_games([1], [-1])
    with pytest.raises(ValueError, match="parallel"):
        VectorEnv(cardenvs.get_game("slabberjan_v0"), 4, parallel="yes")


def test_an_illegal_action_counts_only_in_a_stepped_game():
    venv = cardenvs.vector_env("slabberjan_v0", 4)
    venv.reset(seed=0)
    actions = venv.sample_actions().copy()
    actions[2] = venv.num_actions  # illegal everywhere
    active = np.array([True, True, False, True])
    venv.step(actions, active=active)  # game 2 waits: its action is never looked at
    with pytest.raises(cardenvs.IllegalActionError, match="game 2"):
        venv.step(actions, active=~active)


class _Recorder(Agent):
    """Plays ``action`` everywhere and logs the observation rows it was asked about."""

    def __init__(self, action: int, log: list):
        self.action, self.log = action, log

    def act_batch(self, observations, action_masks):
        self.log.append((self.action, observations[:, 0].tolist()))
        return np.full(len(observations), self.action, np.int64)


def test_act_on_rows_gives_each_agent_its_rows_once_in_agent_order():
    log = []
    agents = [_Recorder(10, log), _Recorder(20, log), _Recorder(30, log)]
    observations = np.arange(6, dtype=np.float32)[:, None]  # row i observes i
    masks = np.ones((6, 40), np.int8)
    players = np.array([0, 1, 2, 1, 0, 2])
    seating = np.array([[2, 0, -1]] * 3 + [[1, 1, 0]] * 3)  # -1: a seat none of them plays
    out = np.full(6, -7, np.int64)
    rows = np.array([True, True, True, True, False, True])
    assert act_on_rows(agents, seating, observations, masks, players, out, rows=rows) is out
    # row 0: seat 0 -> agent 2; row 1: seat 1 -> 0; row 2: seat 2 -> nobody; row 3: seat 1 -> 1; row 4 left
    # out; row 5: seat 2 -> 0
    assert out.tolist() == [30, 10, -7, 20, -7, 10]
    assert log == [(10, [1.0, 5.0]), (20, [3.0]), (30, [0.0])]


def test_act_on_rows_with_one_seating_for_every_row():
    log = []
    agents = [_Recorder(1, log), _Recorder(2, log)]
    players = np.array([1, 0, 1, 1])
    out = act_on_rows(agents, np.array([1, 0]), np.zeros((4, 3)), np.ones((4, 3)), players, np.zeros(4, np.int64))
    assert out.tolist() == [1, 2, 1, 1]
    assert [action for action, _ in log] == [1, 2]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_observe_gives_every_seat_the_aec_env_s_observation_and_changes_nothing(env_id):
    seeds = [5 * i + 1 for i in range(NUM_GAMES)]
    venv = VectorEnv(cardenvs.get_game(env_id), NUM_GAMES)
    aec = _aec_games(env_id, seeds)
    venv.reset(seeds=seeds)
    for _ in range(7):  # a few moves in, so that seats have seen different things
        actions = venv.sample_actions().copy()
        moved = [copy.deepcopy(env) for env in aec]
        for env, action in zip(moved, actions, strict=True):
            env.step(int(action))
        if any(env.terminations[env.agent_selection] or env.truncations[env.agent_selection] for env in moved):
            break  # the move would end a game as short as a toy game's (the batched env deals anew): stop before it
        aec = moved
        venv.step(actions)
    before = _state_bytes(venv).copy()
    for seat in range(venv.num_players):
        obs, masks = venv.observe(np.full(NUM_GAMES, seat))
        for i, env in enumerate(aec):
            seen = env.observe(env.possible_agents[seat])
            np.testing.assert_array_equal(obs[i], seen["observation"])
            np.testing.assert_array_equal(masks[i], seen["action_mask"])
    np.testing.assert_array_equal(_state_bytes(venv), before)
    with pytest.raises(ValueError, match="seats holds seats outside"):
        venv.observe(np.full(NUM_GAMES, venv.num_players))
