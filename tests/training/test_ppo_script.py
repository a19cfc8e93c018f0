"""training/ppo.py end to end (a few hundred steps), checkpoint + resume, and PolicyAgent on its checkpoints."""

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

import cardenvs
from cardenvs.agents.ppo import PolicyAgent
from cardenvs.agents.registry import make_agent
from cardenvs.core import exit_codes
from cardenvs.training import ppo, runs
from cardenvs.training.runs import RUN_ARGS_NAME
from tests.helpers import play_whole_games

ENV_ID = "slabberjan_v0"
# A tiny run: 4 games, 32 steps each per update, two updates per 256 steps.
TINY = ["--env-id", ENV_ID, "--num-envs", "4", "--num-steps", "32", "--minibatch-size", "64", "--update-epochs", "1",
        "--hidden", "16", "--no-progress-bar", "--eval-games", "0", "--final-games", "0"]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    # Later options win: a periodic evaluation and a final tournament of a few games each.
    code = ppo.main([*TINY, "--total-decisions", "256", "--league", "random", "heuristic", "snapshots",
                     "--snapshot-every", "128",
                     "--checkpoint-every", "128", "--eval-every", "128", "--eval-games", "4", "--final-games", "12",
                     "--run-dir", str(run_dir)])
    assert code == 0
    return run_dir


def test_a_tiny_run_saves_model_checkpoint_pool_and_logs(finished_run):
    state = json.loads((finished_run / ppo.STATE_NAME).read_text())
    assert state["decisions"] == 256
    assert state["snapshots"] and all((finished_run / ppo.POOL_DIR / name).is_file() for name in state["snapshots"])
    assert list((finished_run / "tb").rglob("events.out.tfevents.*"))
    info = json.loads((finished_run / runs.MODEL_INFO_NAME).read_text())
    assert info["env_id"] == ENV_ID and info["decisions"] == 256
    command = info["command"]
    assert command.startswith("python -m cardenvs.training.ppo --") and command.endswith(" --no-progress-bar")
    assert " --env-id slabberjan_v0 " in command and " --total-decisions 256 " in command
    assert [e["decisions"] for e in info["evaluations"]] == [128]
    # a match of its own against each of the rule-based agent and random
    assert [match["agents"] for match in info["tournament"]["matches"]] == [["trained", "heuristic"],
                                                                            ["trained", "random"]]
    for match in info["tournament"]["matches"]:
        assert set(match["results"]) == set(match["agents"])
        assert -1.0 <= match["results"]["trained"]["mean_reward"] <= 1.0


def test_the_final_tournament_is_printed(finished_run, capsys):
    ppo.main(["--run-dir", str(finished_run), "--resume", "--no-progress-bar"])
    out = capsys.readouterr().out
    assert "slabberjan_v0: 12 games per match" in out
    assert "trained vs heuristic" in out and "trained vs random" in out


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


def test_training_changed_both_networks(finished_run, tmp_path):
    # a run with the same seed starts from the same weights every time: what differs was learned
    args = ppo.resolve(ppo.parse_args([*TINY, "--total-decisions", "256", "--run-dir", str(tmp_path / "fresh")]))
    initial = ppo.Run(args).model.policy.state_dict()
    assert all(torch.equal(value, ppo.Run(args).model.policy.state_dict()[name]) for name, value in initial.items())
    trained = PolicyAgent.load(finished_run / ppo.MODEL_NAME, ENV_ID, cardenvs.env(ENV_ID).layout).policy.state_dict()
    changed = {name for name, value in initial.items() if not torch.equal(value, trained[name])}
    assert {"mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight", "action_net.weight",
            "value_net.weight"} <= changed


def test_the_trained_agent_plays_whole_games_in_every_seat_with_legal_actions(finished_run):
    agent = make_agent(f"ppo:{finished_run / ppo.MODEL_NAME}", ENV_ID, cardenvs.env(ENV_ID).layout)
    play_whole_games(agent, ENV_ID, range(3))


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
    first = [*TINY, "--total-decisions", "128", "--checkpoint-every", "64", "--run-dir", str(run_dir)]
    assert ppo.main(first) == 0
    saved = PolicyAgent.load(run_dir / ppo.CHECKPOINT_NAME, ENV_ID, cardenvs.env(ENV_ID).layout).policy
    # Without --resume an existing run is never overwritten.
    assert ppo.main(first) == exit_codes.EXIT_USAGE

    args = ppo.resolve(dataclasses.replace(ppo.parse_args(first), resume=True, total_decisions=256))
    run = ppo.Run(args)
    assert run.resumed and run.decisions == 128
    for name, value in saved.state_dict().items():
        torch.testing.assert_close(run.model.policy.state_dict()[name], value)
    assert run.model.policy.optimizer.state, "the optimizer's moments come back too"
    run.train()
    assert run.decisions == 256
    assert json.loads((run_dir / ppo.STATE_NAME).read_text())["decisions"] == 256
    changed = any(not torch.equal(run.model.policy.state_dict()[k], v) for k, v in saved.state_dict().items())
    assert changed, "the resumed run trained further"
    # Resuming a finished run trains no further.
    assert ppo.main(["--run-dir", str(run_dir), "--resume", "--no-progress-bar"]) == 0
    assert json.loads((run_dir / ppo.STATE_NAME).read_text())["decisions"] == 256


def test_bad_options_exit_with_a_message(tmp_path, capsys):
    assert ppo.main(["--league", "nobody", "--run-dir", str(tmp_path / "x")]) == exit_codes.EXIT_USAGE
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert ppo.main(["--num-envs", "0", "--run-dir", str(tmp_path / "y")]) == exit_codes.EXIT_USAGE
    assert "--num-envs must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ppo.main(["--env-id", "chess_v0"])


REPO_ROOT = Path(__file__).resolve().parents[2]
#: a run of 64 steps: one update of 4 games × 16 steps, no tournaments
TINY_RUN = [*TINY, "--num-steps", "16", "--minibatch-size", "32", "--total-decisions", "64"]
#: runs python with torch, stable-baselines3 and sb3-contrib unimportable, as without the train extra
WITHOUT_TRAIN_EXTRA = textwrap.dedent("""
    import runpy, sys
    class NoTrainExtra:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {"torch", "stable_baselines3", "sb3_contrib"}:
                raise ImportError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, NoTrainExtra())
    if sys.argv[1] == "-m":
        sys.argv = sys.argv[2:]
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
    else:
        exec(sys.argv[1])
""")


def run_python(*argv: str, cwd: Path = REPO_ROOT, blocked_extra: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", WITHOUT_TRAIN_EXTRA, *argv] if blocked_extra else [sys.executable, *argv]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})


def test_without_the_train_extra_the_import_and_the_script_name_the_extra(tmp_path):
    imported = run_python("import cardenvs.learning", blocked_extra=True)
    assert imported.returncode == 1
    assert 'ImportError: cardenvs.learning needs the \'train\' extra' in imported.stderr
    assert 'pip install "cardenvs[train]"' in imported.stderr.splitlines()[-1]
    run_dir = tmp_path / "run"
    script = run_python("-m", "cardenvs.training.ppo", *TINY_RUN, "--run-dir", str(run_dir), blocked_extra=True)
    assert script.returncode == exit_codes.EXIT_FAILURE
    assert "Traceback" not in script.stderr and len(script.stderr.splitlines()) == 1
    assert 'pip install "cardenvs[train]"' in script.stderr
    assert not run_dir.exists()


@pytest.mark.parametrize(("options", "message"), [
    (["--learning-rate", "-1"], "--learning-rate must be a positive number, got -1.0"),
    (["--learning-rate", "nan"], "--learning-rate must be a positive number"),
    (["--league", "random", "ppo:/missing.zip"], "--league ppo:/missing.zip: nothing at /missing.zip"),
    (["--league", "snapshots"], "--league needs at least one agent spec"),
    (["--league", "human"], "--league: a human cannot play training games"),
    (["--total-decisions", "0"], "--total-decisions must be at least 1, got 0"),
    (["--total-decisions", "-64"], "--total-decisions must be at least 1, got -64"),
    (["--num-steps", "0"], "--num-steps must be at least 1, got 0"),
    (["--minibatch-size", "1"], "--minibatch-size must be from 2 to --num-envs × --num-steps = 64"),
    (["--minibatch-size", "65"], "--minibatch-size must be from 2 to --num-envs × --num-steps = 64"),
    (["--hidden", "16", "0"], "--hidden must be one or more positive layer sizes, got 16 0"),
    (["--gamma", "1.5"], "--gamma must be in [0, 1], got 1.5"),
    (["--gae-lambda", "-0.1"], "--gae-lambda must be in [0, 1]"),
    (["--clip-coef", "0"], "--clip-coef must be a positive number"),
    (["--max-grad-norm", "nan"], "--max-grad-norm must be a positive number"),
    (["--ent-coef", "-0.01"], "--ent-coef must be 0 or more"),
    (["--vf-coef", "-1"], "--vf-coef must be 0 or more"),
    (["--seed", "-1"], "--seed must be an integer from 0 to 2**64-1 (18446744073709551615), got -1"),
    (["--seed", str(2**64)], f"--seed must be an integer from 0 to 2**64-1 (18446744073709551615), got {2**64}"),
    (["--max-snapshots", "0"], "--league snapshots needs --max-snapshots of at least 1"),
])
def test_impossible_values_exit_with_one_line_before_anything_is_built(tmp_path, capsys, options, message):
    run_dir = tmp_path / "run"
    assert ppo.main([*TINY_RUN, *options, "--run-dir", str(run_dir)]) == exit_codes.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1, err
    assert not run_dir.exists()


def test_a_checkpoint_that_does_not_fit_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    run_dir = tmp_path / "run"
    assert ppo.main([*TINY_RUN, "--league", f"ppo:{tmp_path / 'junk.zip'}", "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --league:") and "not a MaskablePPO checkpoint" in err and err.count("\n") == 1
    assert not run_dir.exists()


def test_a_run_dir_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert ppo.main([*TINY_RUN, "--run-dir", str(tmp_path / "file")]) == exit_codes.EXIT_USAGE
    assert "--run-dir" in capsys.readouterr().err


def interrupted_at(steps: int):
    """`Run.on_update_done` that, after doing its work, raises KeyboardInterrupt (as a Ctrl-C would) from ``steps``."""
    update_done = ppo.Run.on_update_done

    def on_update_done(run):
        update_done(run)
        if run.decisions >= steps:
            raise KeyboardInterrupt

    return on_update_done


def test_resume_after_an_interruption_before_the_first_checkpoint_keeps_arguments_and_tensorboard_run(
        tmp_path, capsys, monkeypatch):
    run_dir = tmp_path / "run"
    # 4 games × 16 steps per update; the first checkpoint would come at step 128, the interruption comes at 64
    options = [*TINY_RUN, "--total-decisions", "192", "--checkpoint-every", "128", "--run-dir", str(run_dir)]
    monkeypatch.setattr(ppo.Run, "on_update_done", interrupted_at(64))
    assert ppo.main(options) == exit_codes.EXIT_INTERRUPTED
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert "interrupted before the first checkpoint" in err
    assert err.rstrip().endswith(f"python -m cardenvs.training.ppo --run-dir {run_dir} --resume")
    assert not (run_dir / ppo.CHECKPOINT_NAME).exists()
    assert json.loads((run_dir / RUN_ARGS_NAME).read_text())["total_decisions"] == 192
    # Without --resume the run is not overwritten, even before its first checkpoint.
    assert ppo.main(options) == exit_codes.EXIT_USAGE
    assert "already holds a run" in capsys.readouterr().err

    # The hint's command: the stored arguments, steps from 0 again, the same TensorBoard run.
    assert ppo.main(["--run-dir", str(run_dir), "--resume"]) == 0
    out = capsys.readouterr().out
    assert "no checkpoint yet: starting the run over" in out and "training slabberjan_v0 for 192 decisions" in out
    info = json.loads((run_dir / runs.MODEL_INFO_NAME).read_text())
    assert info["decisions"] == 192 and info["args"]["hidden"] == [16] and info["args"]["num_steps"] == 16
    assert [path.name for path in (run_dir / runs.TENSORBOARD_DIR).iterdir()] == ["ppo_1"]


def test_resume_after_a_checkpoint_logs_into_the_same_tensorboard_run(tmp_path, capsys, monkeypatch):
    run_dir = tmp_path / "run"
    options = [*TINY_RUN, "--total-decisions", "192", "--checkpoint-every", "64", "--run-dir", str(run_dir)]
    monkeypatch.setattr(ppo.Run, "on_update_done", interrupted_at(64))
    assert ppo.main(options) == exit_codes.EXIT_INTERRUPTED
    monkeypatch.undo()
    assert capsys.readouterr().err.strip().startswith("interrupted; continue from the checkpoint at 64 decisions with:")
    # Given again: an option a resumed run may change, and one it may not change but that repeats the stored value.
    assert ppo.main(["--run-dir", str(run_dir), "--resume", "--total-decisions", "256", "--num-steps", "16"]) == 0
    assert "(resumed at 64)" in capsys.readouterr().out
    assert json.loads((run_dir / runs.MODEL_INFO_NAME).read_text())["decisions"] == 256
    assert json.loads((run_dir / RUN_ARGS_NAME).read_text())["total_decisions"] == 256
    assert [path.name for path in (run_dir / runs.TENSORBOARD_DIR).iterdir()] == ["ppo_1"]
    # An option that defines the run cannot change.
    assert ppo.main(["--run-dir", str(run_dir), "--resume", "--learning-rate", "0.01"]) == exit_codes.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: --learning-rate cannot change when resuming") and "has 0.0003, not 0.01" in err


def test_resume_needs_a_run_and_resume_if_present_starts_one(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert ppo.main([*TINY_RUN, "--run-dir", str(run_dir), "--resume"]) == exit_codes.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"error: --resume: {run_dir} holds no run") and err.count("\n") == 1
    assert not run_dir.exists()
    # what scripts/main.sh runs: a new run on a fresh machine, the same run continued afterwards
    assert ppo.main([*TINY_RUN, "--run-dir", str(run_dir), "--resume-if-present"]) == 0
    assert json.loads((run_dir / ppo.STATE_NAME).read_text())["decisions"] == 64
    assert ppo.main([*TINY_RUN, "--run-dir", str(run_dir), "--resume-if-present"]) == 0
    assert "(resumed at 64)" in capsys.readouterr().out


def test_a_malformed_value_exits_with_code_2_without_a_traceback(tmp_path):
    done = run_python("-m", "cardenvs.training.ppo", "--total-decisions", "many", "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--total-decisions" in done.stderr
    assert not (tmp_path / "run").exists()


def test_options_given_again_on_resume_must_repeat_the_stored_value(tmp_path, capsys):
    run_dir = tmp_path / "run"
    runs.write_run_args(ppo.resolve(ppo.parse_args([*TINY_RUN, "--run-dir", str(run_dir)])))
    stored = ["--run-dir", str(run_dir), "--resume"]
    # the stored values fill the options not given; the same value given again is no change
    args = ppo.settle_args([*stored, "--hidden", "16", "--total-decisions", "128", "--no-progress-bar"])
    assert (args.hidden, args.num_steps, args.total_decisions, args.resume) == ([16], 16, 128, True)
    for option, value in (["--hidden", "32"], ["--env-id", "clabber_v0"], ["--league", "random"]):
        with pytest.raises(ValueError, match=f"{option} cannot change when resuming"):
            ppo.settle_args([*stored, option, value])


def test_every_seed_of_the_seed_rule_trains_stable_baselines3_taking_it_narrowed(tmp_path):
    """stable-baselines3 seeds numpy's 32-bit legacy generator: the run's seed reaches it narrowed, and a seed below
    the narrowing passes as it is."""
    last = 2**64 - 1
    assert ppo.main([*TINY_RUN, "--seed", str(last), "--final-games", "4", "--run-dir", str(tmp_path / "run")]) == 0
    info = json.loads((tmp_path / "run" / runs.MODEL_INFO_NAME).read_text())
    assert info["args"]["seed"] == last and info["tournament"]["seed"] == 0  # the seed after the last wraps
    args = ppo.resolve(ppo.parse_args(["--seed", str(last), "--run-dir", str(tmp_path / "other")]))
    assert ppo.build_model(args, ppo.Run(args).env).seed == last % ppo.SB3_SEED_LIMIT
    small = ppo.resolve(ppo.parse_args(["--seed", "7", "--run-dir", str(tmp_path / "third")]))
    assert ppo.build_model(small, ppo.Run(small).env).seed == 7
