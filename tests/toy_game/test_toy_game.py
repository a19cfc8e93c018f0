"""A sixth game, defined only here, gets everything the five built-in games get without an edit outside its
folder: the AEC env (PettingZoo's api_test), the batched env, the generic contract checks, the random and
rule-based agents, a tournament and the trainers (``cardenvs train`` and MaskablePPO, each in a fresh process that
knows the game through ``CARDENVS_GAME_MODULES``), whose models then play it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.core.registry import GAME_MODULES_VARIABLE
from cardenvs.evaluation import run_tournament
from tests.test_env_contract import check_contract, check_runs_as_plain_python_with_jit_disabled
from tests.toy_game.game import GAME

ENV_ID = "toy_v0"
GAME_MODULE = "tests.toy_game.game"
REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="module")
def registered():
    """The toy game is registered for these tests only: the other test modules never see it."""
    cardenvs.register(GAME_MODULE)
    yield
    cardenvs.unregister(ENV_ID)


def _environment() -> dict[str, str]:
    """This process's environment with the toy game named for the registry and the repository importable."""
    path = os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, **{GAME_MODULES_VARIABLE: GAME_MODULE, "PYTHONPATH": path})


def test_registered_games_are_found_by_env_id_and_module_style():
    assert ENV_ID in cardenvs.available_envs()
    assert cardenvs.get_game(ENV_ID) is GAME
    from cardenvs import toy_v0

    assert toy_v0.env().unwrapped.game is GAME
    assert "High Card" in toy_v0.__doc__
    with pytest.raises(ValueError, match="already registered"):
        cardenvs.register(dataclasses.replace(GAME))


def test_a_fresh_process_registers_the_modules_named_in_the_environment():
    script = "import cardenvs, cardenvs.toy_v0; print(cardenvs.available_envs()[-1])"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=REPOSITORY, env=_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [ENV_ID]


def test_aec_env_passes_the_pettingzoo_api_test():
    api_test(cardenvs.env(ENV_ID, deck_size=8, hand_size=3), num_cycles=100)


def test_batched_env_plays_whole_games():
    venv = cardenvs.vector_env(ENV_ID, 16)
    venv.reset(seed=0)
    finished = 0
    for _ in range(20):
        *_, terminated, truncated = venv.step(venv.sample_actions())
        finished += int(terminated.sum() + truncated.sum())
    assert finished >= 16


def test_the_generic_contract_holds():
    check_contract(ENV_ID)


def test_it_runs_as_plain_python_with_jit_disabled(monkeypatch):
    for name, value in _environment().items():
        monkeypatch.setenv(name, value)
    check_runs_as_plain_python_with_jit_disabled([ENV_ID])


def test_random_and_rule_based_agents_play_legal_actions():
    env = cardenvs.env(ENV_ID)
    agents = [make_agent(spec, ENV_ID, env.unwrapped.layout, seed=1) for spec in ("random", "heuristic")]
    env.reset(seed=3)
    for agent_id in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = agents[env.possible_agents.index(agent_id)].act(observation)
        assert observation["action_mask"][action]
        env.step(action)


def test_a_tournament_ranks_the_rule_based_agent_above_random():
    result = run_tournament(ENV_ID, ["random", "heuristic"], games=200, seed=0, progress=False)
    assert result.stats["heuristic"].mean_reward > result.stats["random"].mean_reward


def _train(command: list[str]) -> None:
    """Run a training command in a fresh process that knows the toy game only through the environment variable."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=REPOSITORY, env=_environment())
    assert done.returncode == 0, done.stderr[-3000:]


def _plays_legal_actions(spec: str) -> None:
    """The agent of ``spec`` picks a legal action at every decision of a whole game."""
    env = cardenvs.env(ENV_ID)
    agent = make_agent(spec, ENV_ID, env.unwrapped.layout)
    env.reset(seed=5)
    for _agent_id in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else agent.act(observation)
        assert action is None or observation["action_mask"][action]
        env.step(action)


def test_the_self_play_trainer_trains_a_game_without_a_recipe_and_its_model_plays(tmp_path):
    run = tmp_path / "selfplay"
    _train([sys.executable, "-m", "cardenvs.cli", "train", ENV_ID, "--total-decisions", "256", "--num-envs", "8",
            "--num-steps", "16", "--minibatch-size", "64", "--eval-games", "0", "--final-games", "4", "--device", "cpu",
            "--no-progress-bar", "--run-dir", str(run)])
    _plays_legal_actions(f"ppo:{run / 'model.pt'}")


def test_maskable_ppo_trains_and_its_model_plays(tmp_path):
    run = tmp_path / "ppo"
    _train([sys.executable, "-m", "cardenvs.training.ppo", "--env-id", ENV_ID, "--total-decisions", "64",
            "--num-envs", "2", "--num-steps", "16", "--minibatch-size", "32", "--update-epochs", "1",
            "--eval-games", "0", "--final-games", "4", "--no-progress-bar", "--run-dir", str(run)])
    _plays_legal_actions(f"ppo:{run / 'model.zip'}")


def test_chosen_deals_start_the_game_from_those_hands():
    env = cardenvs.env(ENV_ID)
    env.reset(seed=0, options={"deal": {"hands": [[0, 5], [2, 3]]}})
    assert np.flatnonzero(env.observe("player_0")["observation"][:6]).tolist() == [0, 5]
    with pytest.raises(ValueError, match="distinct"):
        env.reset(seed=0, options={"deal": {"hands": [[0, 0], [2, 3]]}})
