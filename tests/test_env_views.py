"""The AEC env shows the state it judges: after anything that changes the record (a chosen deal, a restored
snapshot, a step, a penalty) the legal mask ``observe()`` shows is exactly the set of actions ``step`` accepts.

Also the env's answers to a few ordinary mistakes: ``last()`` before ``reset()``, a deal that is not a dict, a
refused deal (nothing changes), a seed that is not an integer, and the parallel conversion PettingZoo offers.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import cardenvs
from tests.helpers import make_env

CASES = [
    pytest.param(env_id, params, id=f"{env_id}-{i}")
    for env_id in cardenvs.available_envs()
    for i, params in enumerate(cardenvs.get_game(env_id).example_params)
]
DEAL_CASES = [
    pytest.param(env_id, params, deal, id=f"{env_id}-deal{j}")
    for env_id in cardenvs.available_envs()
    for j, (params, deal) in enumerate(cardenvs.get_game(env_id).example_deals)
]


def _accepted_actions(env) -> np.ndarray:
    """The actions ``step`` accepts now, found by trying every action on a copy of the env.

    A refused action leaves the copy as it was (checked: its state record is byte for byte the env's), so the
    copy serves for the next action; only an accepted one, which moves the copy on, calls for a fresh copy.
    """
    accepted = np.zeros(env.num_actions, np.int8)
    record = env.unwrapped.state_record.tobytes()
    trial = copy.deepcopy(env)
    for action in range(env.num_actions):
        try:
            trial.step(action)
        except cardenvs.IllegalActionError:
            assert trial.unwrapped.state_record.tobytes() == record, f"refused action {action} changed the record"
            assert trial.agent_selection == env.agent_selection
            continue
        accepted[action] = 1
        trial = copy.deepcopy(env)
    return accepted


def _assert_shown_mask_is_judged_mask(env) -> None:
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return
    shown = env.observe(agent)["action_mask"]
    assert shown.any(), f"{agent} is to act but has no legal action"
    assert np.array_equal(shown, _accepted_actions(env)), (
        f"observe() shows legal {np.flatnonzero(shown).tolist()}, step accepts "
        f"{np.flatnonzero(_accepted_actions(env)).tolist()}"
    )
    assert np.array_equal(env.last()[0]["action_mask"], shown)


def test_every_game_has_an_example_deal():
    for env_id in cardenvs.available_envs():
        assert cardenvs.get_game(env_id).example_deals, env_id


@pytest.mark.parametrize(("env_id", "params", "deal"), DEAL_CASES)
def test_after_a_chosen_deal_the_shown_mask_is_the_judged_mask(env_id, params, deal):
    for seed in range(3):
        env = make_env(env_id, params)
        env.reset(seed=seed, options={"deal": deal})
        _assert_shown_mask_is_judged_mask(env)
        # and after the first steps from there
        rng = np.random.default_rng(seed)
        for _ in range(3):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
            _assert_shown_mask_is_judged_mask(env)


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_after_restore_the_shown_mask_is_the_judged_mask(env_id, params):
    source = make_env(env_id, params)
    source.reset(seed=21)
    rng = np.random.default_rng(5)
    for _ in range(7):
        agent = source.agent_selection
        if source.terminations[agent] or source.truncations[agent]:
            break
        source.step(int(rng.choice(np.flatnonzero(source.observe(agent)["action_mask"]))))
    target = make_env(env_id, params)
    target.reset(seed=99)  # a different position, whose mask must not survive the restore
    target.restore(source.snapshot())
    assert target.agent_selection == source.agent_selection
    _assert_shown_mask_is_judged_mask(target)


@pytest.mark.parametrize(("env_id", "params"), CASES)
def test_after_a_penalty_the_game_is_over_and_nothing_is_legal(env_id, params):
    env = make_env(env_id, params, illegal_action="penalize")
    env.reset(seed=2)
    env.step(env.num_actions)  # out of range: always illegal
    agent = env.agent_selection
    assert env.terminations[agent] or env.truncations[agent]
    assert not env.observe(agent)["action_mask"].any()
    with pytest.raises(cardenvs.IllegalActionError):
        env.step(0)


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_last_before_reset_says_to_reset(env_id):
    for make in (cardenvs.env, cardenvs.raw_env):
        with pytest.raises(RuntimeError, match=r"reset\(\) before last\(\)"):
            make(env_id).last()


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_a_deal_that_is_not_a_dict_is_refused_with_its_keys(env_id):
    env = cardenvs.env(env_id)
    env.reset(seed=1)
    before = env.snapshot()
    game = cardenvs.get_game(env_id)
    for deal in ("nonsense", ["a"], 3):
        with pytest.raises(ValueError, match="a deal is a dict with keys from") as info:
            env.reset(seed=2, options={"deal": deal})
        for key in game.deal_keys:
            assert key in str(info.value)
    with pytest.raises(ValueError, match="reset options"):
        env.reset(seed=2, options=["deal"])
    assert env.snapshot() == before
    with pytest.warns(UserWarning, match="ignores the unknown option"):
        env.reset(seed=2, options={"dael": {}})  # a misspelt key is named, the game starts from the seed


@pytest.mark.parametrize(("env_id", "params", "deal"), DEAL_CASES[:1] + DEAL_CASES[-1:])
def test_a_refused_deal_changes_nothing(env_id, params, deal):
    env = make_env(env_id, params)
    env.reset()  # seed stream from entropy: a refused reset must not advance it
    before, stream = env.snapshot(), copy.deepcopy(env._seed_stream).bit_generator.state
    with pytest.raises(ValueError):
        env.reset(options={"deal": {**deal, "dealer": 99}})  # no table has a seat 99
    assert env.snapshot() == before
    assert env._seed_stream.bit_generator.state == stream


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_one_seed_rule_integers_from_0_to_2_64_minus_1(env_id):
    env = cardenvs.env(env_id)
    env.reset(seed=2**64 - 1)
    before = env.snapshot()
    for bad in (-5, 2**64, 1.5, "7", [1], True):
        with pytest.raises(ValueError, match=r"a seed must be an integer from 0 to 2\*\*64-1"):
            env.reset(seed=bad)
        with pytest.raises(ValueError, match=r"integer"):
            cardenvs.vector_env(env_id, 2).reset(seeds=[0, bad])
    with pytest.raises(ValueError, match=r"a seed must be an integer from 0 to 2\*\*64-1"):
        cardenvs.vector_env(env_id, 2).reset(seed=-1)
    assert env.snapshot() == before


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_not_offered_as_parallelizable(env_id):
    # Turn-based: a waiting seat has no legal action, so PettingZoo's aec_to_parallel cannot step these games.
    assert cardenvs.env(env_id).metadata["is_parallelizable"] is False
