"""The ``rllib:PATH`` agent: an RLlib policy checkpoint plays in tournaments and at ``cardenvs play``.

Most checkpoints here hold untrained modules of :class:`cardenvs.training.rllib_masking.MaskedActorCritic`, saved where
``training/rllib_train.py``'s checkpoints keep them (``learner_group/learner/rl_module/<module id>``) by the same
``save_to_path`` that ``Algorithm.save_to_path`` calls for each module: no training, no Ray instance. The last
test trains one tiny iteration with the script itself and plays its checkpoint.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="the rllib extra is not installed")
pytest.importorskip("torch", reason="the rllib extra is not installed")

import torch

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.agents.rllib import MODULES_DIR
from cardenvs.cli import main
from cardenvs.commands import play
from cardenvs.evaluation import run_tournament
from cardenvs.training.rllib_masking import MaskedActorCritic

ENV_ID = "clabber_v0"
HIDDEN_SIZES = [16]


def save_modules(checkpoint: Path, env_id: str, module_ids: list[str]) -> Path:
    """An algorithm-checkpoint-shaped directory holding one untrained module per id."""
    env = cardenvs.env(env_id)
    seat = env.possible_agents[0]
    torch.manual_seed(0)  # the same untrained weights every run
    for module_id in module_ids:
        module = MaskedActorCritic(observation_space=env.observation_space(seat), action_space=env.action_space(seat),
                                   model_config={"hidden_sizes": HIDDEN_SIZES})
        module.save_to_path(str(checkpoint / MODULES_DIR / module_id))
    return checkpoint


@pytest.fixture(scope="module")
def shared_checkpoint(tmp_path_factory) -> Path:
    return save_modules(tmp_path_factory.mktemp("rllib") / "clabber_run", ENV_ID, ["shared"])


def test_an_rllib_checkpoint_plays_a_tournament_by_its_spec(shared_checkpoint, tmp_path):
    path = tmp_path / "r.jsonl"
    result = run_tournament(ENV_ID, ["heuristic", f"rllib:{shared_checkpoint}"], 4, progress=False, results_path=path)
    assert result.agents == ["heuristic", "rllib:clabber_run"] and result.games == 4
    header = json.loads(path.read_text().splitlines()[0])["tournament"]
    assert len(header["agents"][1]["identity"]["checkpoint_sha256"]) == 64


def test_the_rllib_agent_returns_only_legal_actions(shared_checkpoint):
    env = cardenvs.env(ENV_ID)
    agent = make_agent(f"rllib:{shared_checkpoint}", ENV_ID, env.unwrapped.layout)
    env.reset(seed=5)
    for name in env.agent_iter(200):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = agent.act(observation)
        assert observation["action_mask"][action], name
        env.step(action)
    masks = np.zeros((3, env.unwrapped.num_actions), np.int8)
    masks[np.arange(3), [0, 5, 9]] = 1
    observations = np.zeros((3, env.unwrapped.layout.size), np.float32)
    assert agent.act_batch(observations, masks).tolist() == [0, 5, 9]


def test_a_per_seat_checkpoint_asks_which_module_plays(tmp_path):
    checkpoint = save_modules(tmp_path / "per_seat", ENV_ID, ["player_0", "player_1"])
    layout = cardenvs.env(ENV_ID).unwrapped.layout
    with pytest.raises(ValueError, match="holds the modules player_0, player_1; name the one to play"):
        make_agent(f"rllib:{checkpoint}", ENV_ID, layout)
    agent = make_agent(f"rllib:{checkpoint / MODULES_DIR / 'player_1'}", ENV_ID, layout)
    assert agent.num_actions == cardenvs.env(ENV_ID).unwrapped.num_actions


def test_bad_rllib_checkpoints_are_clear_errors(shared_checkpoint, tmp_path, capsys):
    layout = cardenvs.env("slabberjan_v0").unwrapped.layout
    with pytest.raises(ValueError, match="does not fit slabberjan_v0"):
        make_agent(f"rllib:{shared_checkpoint}", "slabberjan_v0", layout)
    with pytest.raises(ValueError, match="no RLlib checkpoint at"):
        make_agent(f"rllib:{tmp_path / 'nothing'}", ENV_ID, layout)
    with pytest.raises(ValueError, match="holds no module"):
        make_agent(f"rllib:{tmp_path}", ENV_ID, layout)
    code = main(["tournament", ENV_ID, "--agents", "heuristic", f"rllib:{tmp_path}", "--games", "2",
                 "--no-progress", "--results", str(tmp_path / "r.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("cardenvs tournament: ") and "holds no module" in err


def test_the_tournament_command_and_play_take_rllib_agents(shared_checkpoint, tmp_path, capsys):
    code = main(["tournament", ENV_ID, "--agents", f"rllib:{shared_checkpoint}", "random", "--games", "2",
                 "--no-progress", "--results", str(tmp_path / "r.jsonl")])
    out = capsys.readouterr().out
    assert code == 0 and "| rllib:clabber_run | 2 |" in out
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    shown: list[str] = []
    answers = iter(["1", "q"])
    code = play.run(parser.parse_args([ENV_ID, "--seat", "1", "--seed", "2", "--opponents",
                                       f"rllib:{shared_checkpoint}"]),
                    input_fn=lambda prompt: next(answers), output=shown.append)
    text = "\n".join(map(str, shown))
    assert code == 0 and f"(rllib:{shared_checkpoint}): " in text  # an opponent's move


def test_a_checkpoint_written_by_rllib_train_plays_as_rllib_path(tmp_path):
    """One tiny training iteration of training/rllib_train.py (about 30 s), then its checkpoint in a tournament."""
    import ray

    from cardenvs.training.rllib_train import RLlibTrainArgs, train

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=2, include_dashboard=False)
    try:
        args = RLlibTrainArgs(env_id=ENV_ID, policy="shared", run_dir=str(tmp_path / "run"), iterations=1,
                              train_batch_size=200, minibatch_size=100, update_epochs=1, hidden=HIDDEN_SIZES)
        train(args, print_fn=lambda line: None)
    finally:
        if started_here:
            ray.shutdown()
    result = run_tournament(ENV_ID, ["heuristic", f"rllib:{tmp_path / 'run'}"], 4, progress=False,
                            results_path=tmp_path / "r.jsonl")
    assert result.agents == ["heuristic", "rllib:run"] and result.games == 4
