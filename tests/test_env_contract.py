"""The contract every registered env keeps, checked for each of its example parameter sets.

PettingZoo's api_test and seed_test; AEC and batched runs agree step for step; snapshots, deepcopy and pickle
continue identically; random play keeps the game's invariants and always leaves the player to act a legal
action; waiting agents' masks are zero; bad input raises a clear error and changes nothing.

Each check is a plain function of an env id (and parameters): the tests below run them on every game registered
when this module is collected, and a game registered elsewhere (a user's, the toy game of ``tests/toy_game``)
runs them all with :func:`check_contract`.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Callable

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import cardenvs
from cardenvs.core.game import NO_PLAYER
from tests.helpers import make_env, play_random_game


def check_pettingzoo_api(env_id, params):
    api_test(make_env(env_id, params), num_cycles=200)


def check_pettingzoo_seed(env_id, params):
    seed_test(lambda: make_env(env_id, params), num_cycles=200)


def check_raw_env_and_module_style_agree(env_id, params):
    module = __import__(f"cardenvs.{env_id}", fromlist=["env"])
    first, second = module.env(**params), cardenvs.raw_env(env_id, **params)
    first.reset(seed=3)
    second.reset(seed=3)
    for agent in first.possible_agents:
        assert np.array_equal(first.observe(agent)["observation"], second.observe(agent)["observation"])


def check_aec_and_batched_agree_step_for_step(env_id, params):
    num_games, max_steps, seed = 3, 400, 11
    venv = cardenvs.vector_env(env_id, num_games, **params)
    obs, masks, players = venv.reset(seed=seed)
    envs = [make_env(env_id, params) for _ in range(num_games)]
    for i, env in enumerate(envs):
        env.reset(seed=cardenvs.game_seed(seed, i))
    live = [True] * num_games
    for _ in range(max_steps):
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            agent = env.agent_selection
            assert agent == f"player_{players[i]}"
            aec_obs = env.observe(agent)
            assert np.array_equal(aec_obs["observation"], obs[i])
            assert np.array_equal(aec_obs["action_mask"], masks[i])
        actions = venv.sample_actions().copy()
        obs, masks, players, rewards, terminated, truncated = venv.step(actions)
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            env.step(int(actions[i]))
            step_rewards = np.array([env.rewards.get(a, 0.0) for a in env.possible_agents], np.float32)
            assert np.array_equal(step_rewards, rewards[i])
            done = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            assert done == bool(terminated[i] or truncated[i])
            live[i] = not done
        if not any(live):
            break


def check_random_play_keeps_invariants(env_id, params):
    game = cardenvs.get_game(env_id)
    venv = cardenvs.vector_env(env_id, 64, **params)
    venv.reset(seed=5)
    for _ in range(300):
        _, masks, players, *_ = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all(), "a game's player to act has no legal action"
        assert (players != NO_PLAYER).all()
        for i in range(0, venv.num_envs, 7):
            game.check_invariants(venv.states[i], venv.params)


def check_random_games_end(env_id, params):
    env = make_env(env_id, params)
    for seed in range(5):
        play_random_game(env, seed=seed, max_steps=200_000)
        assert not env.agents, "the game did not end"


def check_long_random_play_keeps_invariants(env_id, params):
    game = cardenvs.get_game(env_id)
    venv = cardenvs.vector_env(env_id, 512, **params)
    venv.reset(seed=99)
    finished = 0
    for _ in range(5_000):
        _, masks, *_rest, terminated, truncated = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all()
        finished += int(terminated.sum() + truncated.sum())
        for i in range(venv.num_envs):
            game.check_invariants(venv.states[i], venv.params)
    assert finished > 1000


def check_waiting_agents_mask_is_zero_and_obs_in_space(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(150):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        for agent in env.possible_agents:
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs), f"{agent}'s observation is outside its space"
            if agent == env.agent_selection:
                assert obs["action_mask"].any()
            else:
                assert not obs["action_mask"].any(), f"{agent} is waiting but has legal actions"
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def check_snapshot_deepcopy_and_pickle_continue_identically(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=8)
    rng = np.random.default_rng(1)
    for _ in range(10):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    snapshot = json.loads(json.dumps(env.unwrapped.snapshot()))
    restored = make_env(env_id, params)
    restored.unwrapped.restore(snapshot)
    clones = [restored, copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for _ in range(60):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        reference = env.observe(agent)
        for clone in clones:
            assert clone.agent_selection == agent
            assert np.array_equal(clone.observe(agent)["observation"], reference["observation"])
        action = int(rng.choice(np.flatnonzero(reference["action_mask"])))
        for e in [env, *clones]:
            e.step(action)
    for clone in clones:
        assert clone.unwrapped.snapshot() == env.unwrapped.snapshot()


def check_illegal_actions_raise_and_change_nothing(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=4)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env.unwrapped.snapshot()
    illegal = [a for a in range(len(mask)) if not mask[a]] + [-1, len(mask), 1.5, "x", None]
    for action in illegal:
        with pytest.raises(cardenvs.IllegalActionError) as info:
            env.step(action)
        assert "legal actions" in str(info.value) or action is None
        assert env.unwrapped.snapshot() == before


def check_penalize_mode_applies_the_penalty(env_id, params):
    env = make_env(env_id, params, illegal_action="penalize")
    env.reset(seed=4)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env.unwrapped.snapshot()
    offender = env.agent_selection
    env.step(len(mask))  # out of range: always illegal
    assert env.unwrapped.snapshot() != before
    assert env.rewards[offender] < 0


def check_batched_illegal_action_raises_and_changes_nothing(env_id, params):
    venv = cardenvs.vector_env(env_id, 4, **params)
    venv.reset(seed=0)
    before = venv.states.copy()
    actions = venv.sample_actions().copy()
    actions[2] = venv.num_actions  # out of range
    with pytest.raises(cardenvs.IllegalActionError, match="game 2"):
        venv.step(actions)
    assert np.array_equal(venv.states, before)


def check_bad_parameters_raise_value_errors(env_id):
    with pytest.raises(ValueError, match="allowed"):
        cardenvs.env(env_id, no_such_parameter=1)
    with pytest.raises(ValueError, match="allowed"):
        cardenvs.env(env_id, num_players=99)
    with pytest.raises(ValueError, match="not allowed"):
        cardenvs.env(env_id, render_mode="video")
    with pytest.raises(ValueError, match="not allowed"):
        cardenvs.env(env_id, illegal_action="ignore")
    with pytest.raises(ValueError, match="positive"):
        cardenvs.vector_env(env_id, 0)


def check_step_before_reset_is_refused(env_id):
    env = cardenvs.env(env_id)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        cardenvs.vector_env(env_id, 2).step(np.zeros(2, np.int64))


def check_render_shows_text_and_draws_no_randomness(env_id):
    env = cardenvs.env(env_id, render_mode="ansi")
    env.reset(seed=1)
    before = env.unwrapped.snapshot()
    text = env.render()
    assert isinstance(text, str) and text
    assert env.unwrapped.snapshot() == before


def check_same_seed_same_game_different_seed_different_game(env_id):
    env = cardenvs.env(env_id)
    first = play_random_game(env, seed=21)
    snap_a = env.unwrapped.snapshot()
    assert play_random_game(env, seed=21) == first
    assert env.unwrapped.snapshot() == snap_a
    env.reset(seed=22)
    env.reset(seed=21)
    other = cardenvs.env(env_id)
    other.reset(seed=23)
    assert other.unwrapped.snapshot()["state"] != env.unwrapped.snapshot()["state"]


def check_batch_trajectories_do_not_depend_on_batch_size(env_id):
    small, large = cardenvs.vector_env(env_id, 2), cardenvs.vector_env(env_id, 9)
    small.reset(seed=7)
    large.reset(seed=7)
    for _ in range(200):
        actions = large.sample_actions().copy()
        small.step(actions[:2])
        large.step(actions)
        assert np.array_equal(small.states, large.states[:2])


def check_runs_as_plain_python_with_jit_disabled(env_ids):
    """Every example parameter set of ``env_ids`` plays in a fresh interpreter with numba's JIT off (a game
    registered from outside must be named in ``CARDENVS_GAME_MODULES`` of this process's environment)."""
    script = textwrap.dedent(
        """
        import sys
        import numpy as np, cardenvs
        for env_id in sys.argv[1:]:
            for params in cardenvs.get_game(env_id).example_params:
                env = cardenvs.env(env_id, **params)
                env.reset(seed=0)
                for _ in range(30):
                    agent = env.agent_selection
                    if env.terminations[agent] or env.truncations[agent]:
                        break
                    for other in env.possible_agents:
                        env.observe(other)
                    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[-1]))
                venv = cardenvs.vector_env(env_id, 2, **params)
                venv.reset(seed=0)
                for _ in range(30):
                    venv.step(venv.sample_actions())
            print(env_id, "ok")
        """
    )
    environment = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", script, *env_ids],
        capture_output=True, text=True, env=environment, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for env_id in env_ids:
        assert f"{env_id} ok" in result.stdout


#: checks run for every example parameter set of a game
PARAMS_CHECKS = (
    check_pettingzoo_api,
    check_pettingzoo_seed,
    check_raw_env_and_module_style_agree,
    check_aec_and_batched_agree_step_for_step,
    check_random_play_keeps_invariants,
    check_waiting_agents_mask_is_zero_and_obs_in_space,
    check_snapshot_deepcopy_and_pickle_continue_identically,
)
#: checks run with the default parameters
DEFAULT_CHECKS = (
    check_random_games_end,
    check_illegal_actions_raise_and_change_nothing,
    check_penalize_mode_applies_the_penalty,
    check_batched_illegal_action_raises_and_changes_nothing,
)
#: checks of the game as a whole (they choose the parameters themselves)
GAME_CHECKS = (
    check_bad_parameters_raise_value_errors,
    check_step_before_reset_is_refused,
    check_render_shows_text_and_draws_no_randomness,
    check_same_seed_same_game_different_seed_different_game,
    check_batch_trajectories_do_not_depend_on_batch_size,
)


def check_contract(env_id: str, slow: bool = False) -> None:
    """Every check of this module on one registered game, in one call (all but the plain-Python run, which starts
    an interpreter: call :func:`check_runs_as_plain_python_with_jit_disabled` for that).

    Args:
        env_id: the game.
        slow: also run the long random play of every example parameter set.
    """
    for params in cardenvs.get_game(env_id).example_params:
        for check in PARAMS_CHECKS:
            check(env_id, params)
        if slow:
            check_long_random_play_keeps_invariants(env_id, params)
    for check in DEFAULT_CHECKS:
        check(env_id, {})
    for check in GAME_CHECKS:
        check(env_id)


# ---------------------------------------------------------------------------------------------- the tests
ENV_IDS = cardenvs.available_envs()
CASES = [
    pytest.param(env_id, params, id=f"{env_id}-{i}")
    for env_id in ENV_IDS
    for i, params in enumerate(cardenvs.get_game(env_id).example_params)
]
DEFAULT_CASES = [pytest.param(env_id, {}, id=env_id) for env_id in ENV_IDS]


def _test_of(check: Callable, cases: list | None) -> Callable:
    """A test running ``check`` on every case (every env id when ``cases`` is None)."""
    if cases is None:

        @pytest.mark.parametrize("env_id", ENV_IDS)
        def test(env_id):
            check(env_id)
    else:

        @pytest.mark.parametrize(("env_id", "params"), cases)
        def test(env_id, params):
            check(env_id, params)

    test.__doc__ = check.__doc__
    return test


for _check, _cases in [
    *((check, CASES) for check in PARAMS_CHECKS),
    *((check, DEFAULT_CASES) for check in DEFAULT_CHECKS),
    *((check, None) for check in GAME_CHECKS),
]:
    globals()[_check.__name__.replace("check_", "test_", 1)] = _test_of(_check, _cases)
test_long_random_play_keeps_invariants = pytest.mark.slow(_test_of(check_long_random_play_keeps_invariants, CASES))


def test_everything_runs_as_plain_python_with_jit_disabled():
    check_runs_as_plain_python_with_jit_disabled(ENV_IDS)


def test_unknown_env_id_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"available: .*slabberjan_v0"):
        cardenvs.env("poker_v9")


def test_a_deep_copy_takes_over_its_original_s_kernels_and_steps_on_its_own():
    """Copying an env reuses the kernels compiled for its arrays' types (typing them anew costs milliseconds, which
    searches that copy envs pay at every node), and the copy's state is its own."""
    env = cardenvs.env("clabber_v0")
    env.reset(seed=3)
    before = env.unwrapped.snapshot()
    clone = copy.deepcopy(env)
    for name in ("_step_game", "_observe_game", "_reset_game", "_refresh_game"):
        assert getattr(clone.unwrapped, name) is getattr(env.unwrapped, name)
    assert clone.unwrapped._states is not env.unwrapped._states
    clone.step(int(np.flatnonzero(clone.observe(clone.agent_selection)["action_mask"])[0]))
    assert env.unwrapped.snapshot() == before and clone.unwrapped.snapshot() != before
