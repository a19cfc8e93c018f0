"""training/ppo.py end to end (a few hundred steps), checkpoint + resume, and PolicyAgent on its checkpoints."""

import json

import numpy as np
import pytest
import torch

import cardenvs
from agents.ppo import PolicyAgent
from agents.registry import make_agent
from training import ppo

ENV_ID = "slabberjan_v0"
# A tiny run: 4 games, 32 steps each per update, two updates per 256 steps.
TINY = ["--env-id", ENV_ID, "--num-envs", "4", "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1",
        "--net-arch", "16", "--no-progress-bar", "--eval-games", "0", "--final-games", "0"]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    # Later options win: a periodic evaluation and a final tournament of a few games each.
    code = ppo.main([*TINY, "--total-timesteps", "256", "--self-play", "--snapshot-every", "128",
                     "--checkpoint-every", "128", "--eval-every", "128", "--eval-games", "4", "--final-games", "12",
                     "--run-dir", str(run_dir)])
    assert code == 0
    return run_dir


def test_a_tiny_run_saves_model_checkpoint_pool_and_logs(finished_run):
    state = json.loads((finished_run / ppo.STATE_NAME).read_text())
    assert state["num_timesteps"] == 256
    assert state["snapshots"] and all((finished_run / ppo.POOL_DIR / name).is_file() for name in state["snapshots"])
    assert list((finished_run / "tb").rglob("events.out.tfevents.*"))
    info = json.loads((finished_run / ppo.MODEL_INFO_NAME).read_text())
    assert info["env_id"] == ENV_ID and info["num_timesteps"] == 256
    assert info["command"].startswith("python -m training.ppo --env-id slabberjan_v0")
    assert [e["num_timesteps"] for e in info["evaluations"]] == [128]
    [match] = info["tournament"]["matches"]  # four seats: one tournament of the three agents
    assert match["agents"] == ["ppo", "random", "heuristic"] and set(match["results"]) == set(match["agents"])
    assert -1.0 <= match["results"]["ppo"]["mean_reward"] <= 1.0


def test_the_final_tournament_is_printed(finished_run, capsys):
    ppo.main(["--run-dir", str(finished_run), "--resume", "--no-progress-bar"])
    out = capsys.readouterr().out
    assert "slabberjan_v0: 12 games per tournament" in out
    assert "ppo vs random vs heuristic" in out


def test_policy_agent_loads_a_checkpoint_and_acts_legally(finished_run):
    env = cardenvs.env(ENV_ID)
    agent = make_agent(f"ppo:{finished_run / ppo.MODEL_NAME}", ENV_ID, env.layout)
    assert isinstance(agent, PolicyAgent)
    venv = cardenvs.vector_env(ENV_ID, 64)
    observations, masks, _ = venv.reset(seed=0)
    for _ in range(20):
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(64), actions].all()
        single = agent.act({"observation": observations[3], "action_mask": masks[3]})
        assert single == actions[3]
        observations, masks, *_ = venv.step(actions)


def test_policy_agent_rejects_a_checkpoint_of_another_env(finished_run, tmp_path):
    other = cardenvs.env("clabber_v0")
    with pytest.raises(ValueError, match=r"does not fit clabber_v0.*observation size 303 \(the env's is 433\)"):
        PolicyAgent.load(finished_run / ppo.MODEL_NAME, "clabber_v0", other.layout)
    with pytest.raises(ValueError, match="actions"):
        PolicyAgent.load(finished_run / ppo.MODEL_NAME, ENV_ID, cardenvs.env(ENV_ID).layout, num_actions=7)
    with pytest.raises(ValueError, match="no checkpoint"):
        PolicyAgent.load(tmp_path / "missing.zip", ENV_ID, cardenvs.env(ENV_ID).layout)
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a MaskablePPO checkpoint"):
        PolicyAgent.load(tmp_path / "junk.zip", ENV_ID, cardenvs.env(ENV_ID).layout)


def test_resume_continues_from_the_checkpoint_to_the_same_total(tmp_path):
    run_dir = tmp_path / "run"
    first = [*TINY, "--total-timesteps", "128", "--checkpoint-every", "64", "--run-dir", str(run_dir)]
    assert ppo.main(first) == 0
    saved = PolicyAgent.load(run_dir / ppo.CHECKPOINT_NAME, ENV_ID, cardenvs.env(ENV_ID).layout).policy
    # Without --resume an existing run is never overwritten.
    assert ppo.main(first) == ppo.EXIT_USAGE

    args = ppo.resolve(ppo.Args(**{**vars(ppo.build_parser().parse_args(first)), "resume": True,
                                   "total_timesteps": 256}))
    run = ppo.Run(args)
    assert run.resumed and run.model.num_timesteps == 128
    for name, value in saved.state_dict().items():
        torch.testing.assert_close(run.model.policy.state_dict()[name], value)
    assert run.model.policy.optimizer.state, "the optimizer's moments come back too"
    run.train()
    assert run.model.num_timesteps == 256
    assert json.loads((run_dir / ppo.STATE_NAME).read_text())["num_timesteps"] == 256
    changed = any(not torch.equal(run.model.policy.state_dict()[k], v) for k, v in saved.state_dict().items())
    assert changed, "the resumed run trained further"
    # Resuming a finished run trains no further.
    assert ppo.main(["--run-dir", str(run_dir), "--resume", "--no-progress-bar"]) == 0
    assert json.loads((run_dir / ppo.STATE_NAME).read_text())["num_timesteps"] == 256


def test_bad_options_exit_with_a_message(tmp_path, capsys):
    assert ppo.main(["--opponents", "nobody", "--run-dir", str(tmp_path / "x")]) == ppo.EXIT_USAGE
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert ppo.main(["--num-envs", "0", "--run-dir", str(tmp_path / "y")]) == ppo.EXIT_USAGE
    assert "--num-envs must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.main(["--env-id", "chess_v0"])


def test_every_option_is_documented():
    parser = ppo.build_parser()
    for action in parser._actions:
        if action.dest != "help":
            assert action.help, f"--{action.dest} has no help"


CHECKPOINTS = sorted((ppo.Path(__file__).resolve().parents[2] / "training" / "checkpoints").glob("*.zip"))
#: committed checkpoints stay small
MAX_CHECKPOINT_BYTES = 1_100_000


@pytest.mark.parametrize("path", CHECKPOINTS, ids=[p.stem for p in CHECKPOINTS])
def test_committed_checkpoints_load_for_their_game_and_act_legally(path):
    env_id = path.stem
    info = json.loads(path.with_suffix(".json").read_text())
    assert info["env_id"] == env_id
    opponents = {name for match in info["tournament"]["matches"] for name in match["agents"]}
    assert opponents == {"ppo", "random", "heuristic"}
    assert path.stat().st_size < MAX_CHECKPOINT_BYTES
    venv = cardenvs.vector_env(env_id, 16)
    agent = PolicyAgent.load(path, env_id, venv.layout)
    observations, masks, _ = venv.reset(seed=1)
    for _ in range(10):
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(16), actions].all()
        observations, masks, *_ = venv.step(actions)
