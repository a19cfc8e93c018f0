"""The global state (``env.state()``, ``env.state_space``, ``VectorEnv.global_states()``) of every game.

It holds what every seat's observation holds (each observation is rebuilt from the state's blocks alone) and
every hidden card (its blocks decode to the state record: every hand, stack, face-down card and pile content);
it is not in any observation; reading it is deterministic and changes nothing; the batched env's rows are the
AEC env's states; PettingZoo's state tests pass (its api_test runs in test_env_contract.py); each rules page's
index table is the layout's; and it runs as plain Python (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import cardenvs
from tests.helpers import make_env

ROOT = Path(__file__).parents[1]
#: the games with a global state (it is optional: a game added from outside may have none)
ENV_IDS = [env_id for env_id in cardenvs.available_envs() if cardenvs.get_game(env_id).state_layout is not None]
DEFAULT_CASES = [pytest.param(env_id, {}, id=env_id) for env_id in ENV_IDS]
# Every other parameter set a game lists: their blocks differ in shape or content from the defaults'.
VARIANT_CASES = [
    pytest.param(env_id, params, id=f"{env_id}-{index}")
    for env_id in ENV_IDS
    for index, params in enumerate(cardenvs.get_game(env_id).example_params)
    if params
]


# ---------------------------------------------------------------------------------------------------------------
# Each observation block from the state's blocks, as the game's ``observation_sources`` says a seat sees them.

#: the two teams of a team block, teams alternating round the table (seat % 2)
NUM_TEAMS = 2


def _relative_rows(block: np.ndarray, player: int, num_players: int, rows: int) -> np.ndarray:
    """A block of ``rows`` absolute rows (the first ``num_players`` used) as seen from ``player``."""
    table = block.reshape(rows, -1)
    seen = np.zeros_like(table)
    seen[:num_players] = table[(player + np.arange(num_players)) % num_players]
    return seen.reshape(-1)


def _seat_rows(env, n: int) -> int:
    """Rows of a per-seat block: one per seat the observation is sized for (its smallest per-seat block's size)."""
    sources = env.game.observation_sources
    return min((view.size for view in env.layout.views if sources.get(view.name, ("",))[0] == "seats"), default=n)


def _seen(how: str, block: np.ndarray, player: int, n: int, rows: int) -> np.ndarray:
    """A state block as seat ``player`` of ``n`` sees it, per ``how`` (see ``Game.observation_sources``)."""
    if how == "own":
        return block.reshape(rows, -1)[player]
    if how == "left":
        return block.reshape(rows, -1)[(player + 1) % n]
    if how == "seats":
        return _relative_rows(block, player, n, rows)
    if how == "own_seats":
        return _relative_rows(block.reshape(rows, -1)[player], player, n, rows)
    if how == "teams":
        teams_end = block.size // NUM_TEAMS * NUM_TEAMS  # entries after the two team rows stay as they are
        return np.concatenate([
            _relative_rows(block[:teams_end], player % NUM_TEAMS, NUM_TEAMS, NUM_TEAMS), block[teams_end:]
        ])
    raise AssertionError(f"unknown observation source {how!r}")


def observation_from_state(env, state: np.ndarray, player: int) -> np.ndarray:
    """Seat ``player``'s observation rebuilt from the global state vector alone."""
    n = len(env.possible_agents)
    rows = _seat_rows(env, n)
    blocks = env.state_layout.split(state)
    parts = []
    for view in env.layout.views:
        if view.name not in env.game.observation_sources:  # the state's block of the same name, as it is
            parts.append(blocks[view.name])
            continue
        how, source, *masks = env.game.observation_sources[view.name]
        seen = _seen(how, blocks[source], player, n, rows)
        for mask in masks:
            seen = seen * blocks[mask]
        parts.append(seen)
    return np.concatenate(parts)


# ---------------------------------------------------------------------------------------------------------------
# Each state block against the record (the game's ``check_global_state``): every hidden card is in the state.


def check_state(env) -> None:
    """The state now: within its space, decoding to the record, and holding every seat's observation."""
    state = env.state()
    assert state.dtype == np.float32 and state.shape == env.state_space.shape
    assert env.state_space.contains(state)
    assert env.game.check_global_state is not None, f"{env.game.env_id} sets no check_global_state"
    env.game.check_global_state(env.state_record, env.state_layout.split(state))
    for player, agent in enumerate(env.possible_agents):
        observation = env.observe(agent)["observation"]
        assert np.array_equal(observation_from_state(env, state, player), observation), agent


def play_and_check(env_id: str, params: dict, seed: int, steps: int) -> int:
    """Random legal play from ``seed``, the state checked at every decision, for ``steps`` decisions; a game that
    ends sooner is followed by the next (seeds ``seed + 1``, …), so short games are checked as far as long ones.
    Returns the decisions checked."""
    env = make_env(env_id, params)
    rng = np.random.default_rng(seed)
    checked = 0
    games = 0
    while checked < steps:
        env.reset(seed=seed + games)
        games += 1
        for agent in env.agent_iter(steps - checked):
            check_state(env)
            checked += 1
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return checked


# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES + VARIANT_CASES)
def test_the_state_holds_every_observation_and_every_hidden_card(env_id, params):
    assert play_and_check(env_id, params, seed=5, steps=300) > 20


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_the_state_is_a_documented_box_and_no_part_of_any_observation(env_id, params):
    env = make_env(env_id, params)
    game = env.game
    layout = game.state_layout(env.params)
    assert isinstance(env.state_space, spaces.Box) and env.state_space.dtype == np.float32
    assert env.state_space.shape == (layout.size,)
    assert np.array_equal(env.state_space.low, layout.low()) and np.array_equal(env.state_space.high, layout.high())
    assert (layout.low() < layout.high()).all()
    # the observations keep their own layout: the state adds nothing to them
    observation_size = game.observation_layout(env.params).size
    for agent in env.possible_agents:
        assert env.observation_space(agent)["observation"].shape == (observation_size,)
    env.reset(seed=1)
    assert env.observe(env.possible_agents[0])["observation"].shape == (observation_size,)


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_reading_the_state_is_deterministic_and_changes_nothing(env_id, params):
    first, second = make_env(env_id, params), make_env(env_id, params)
    first.reset(seed=9)
    second.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(40):
        if first.terminations[first.agent_selection] or first.truncations[first.agent_selection]:
            break
        record = first.state_record.tobytes()
        observations = [first.observe(agent)["observation"] for agent in first.possible_agents]
        state = first.state()
        assert first.state_record.tobytes() == record  # no draw from the game's generator, no change at all
        assert np.array_equal(first.state(), state)
        assert np.array_equal(second.state(), state)  # the same game gives the same state
        for agent, observation in zip(first.possible_agents, observations, strict=True):
            assert np.array_equal(first.observe(agent)["observation"], observation)
        state[:] = -1.0  # a copy: changing it changes nothing
        assert first.state_record.tobytes() == record
        action = int(rng.choice(np.flatnonzero(first.observe(first.agent_selection)["action_mask"])))
        first.step(action)
        second.step(action)  # second never read its state between steps: the games stay equal
        assert first.state_record.tobytes() == second.state_record.tobytes()


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_pettingzoo_state_tests_pass(env_id, params):
    # PettingZoo's test samples actions without the mask: an illegal one ends the game by the penalty
    env = make_env(env_id, params, illegal_action="penalize")
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=100, seed=3)


@pytest.mark.parametrize(("env_id", "params"), DEFAULT_CASES)
def test_the_batched_global_states_are_the_aec_states(env_id, params):
    num_games, seed = 3, 17
    venv = cardenvs.vector_env(env_id, num_games, **params)
    venv.reset(seed=seed)
    envs = [make_env(env_id, params) for _ in range(num_games)]
    for i, env in enumerate(envs):
        env.reset(seed=cardenvs.game_seed(seed, i))
    out = np.zeros((num_games, envs[0].state_layout.size), np.float32)
    for _ in range(60):
        states = venv.global_states()
        assert states.shape == out.shape and states.dtype == np.float32
        assert venv.global_states(out=out) is out and np.array_equal(out, states)
        live = [i for i, env in enumerate(envs) if not (env.terminations[env.agent_selection]
                                                       or env.truncations[env.agent_selection])]
        if len(live) < num_games:
            break  # a finished batched game restarts at once: compare only while all go on
        for i, env in enumerate(envs):
            assert np.array_equal(states[i], env.state()), i
        actions = venv.sample_actions().copy()
        venv.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))


def test_the_batched_state_needs_a_reset_and_a_matching_buffer():
    venv = cardenvs.vector_env("slap_v0", 2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.global_states()
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="float32"):
        venv.global_states(out=np.zeros((3, venv.global_states().shape[1]), np.float32))


def test_the_state_needs_a_reset():
    env = cardenvs.env("slap_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.state()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_rules_page_has_the_state_table(env_id):
    game = cardenvs.get_game(env_id)
    page = ROOT / "docs" / "rules" / f"{game.name}.md"
    if not page.is_file():
        pytest.skip(f"{env_id} has no rules page in docs/rules (a game registered from outside the package)")
    doc = page.read_text()
    assert "## Global state" in doc
    assert game.state_layout(game.make_params()).markdown() in doc


def test_the_state_as_plain_python():
    """Under NUMBA_DISABLE_JIT=1 the same checks pass for every game (a short game each)."""
    script = textwrap.dedent(
        """
        import numpy as np
        import cardenvs
        from tests.test_global_state import play_and_check

        for env_id in cardenvs.available_envs():
            assert play_and_check(env_id, {}, seed=2, steps=25) > 5
            venv = cardenvs.vector_env(env_id, 2)
            venv.reset(seed=0)
            env = cardenvs.env(env_id)
            env.reset(seed=cardenvs.game_seed(0, 0))
            assert np.array_equal(venv.global_states()[0], env.state())
            print(env_id, "ok")
        """
    )
    environment = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", script],
        capture_output=True, text=True, env=environment, timeout=600, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for env_id in ENV_IDS:
        assert f"{env_id} ok" in result.stdout
