"""RLlib smoke test of the PettingZoo sampler: one small PPO iteration per policy mode on clabber_v0, masks
respected, checkpoint reloadable (the batched sampler's tests: test_rllib_batched.py).

clabber_v0 is short (about 85 moves a game) and has 30 actions of which usually a few are legal, so an unmasked
policy would soon pick an illegal one; the env raises on it and RLlib is configured to let that stop training
(the last two tests check that it does, with and without a remote EnvRunner). One local Ray instance on 2 CPUs
serves the whole module.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the [rllib] extra is not installed")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule  # noqa: E402
from ray.rllib.env.env_runner import NUM_ENV_STEP_FAILURES_LIFETIME  # noqa: E402

import cardenvs  # noqa: E402
from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.agents.selfplay import MaskedActorCritic as SelfPlayNetwork  # noqa: E402
from cardenvs.agents.selfplay import input_scale  # noqa: E402
from cardenvs.core import exit_codes  # noqa: E402
from cardenvs.training import rllib_train, runs  # noqa: E402
from cardenvs.training.rllib_masking import ILLEGAL_LOGIT, MaskedActorCritic  # noqa: E402
from cardenvs.training.rllib_train import (  # noqa: E402
    RLlibTrainArgs,
    build_config,
    main,
    parse_args,
    settle_args,
    train,
)
from cardenvs.training.runs import write_run_args  # noqa: E402
from tests.helpers import play_whole_games  # noqa: E402

# RLlib re-registers its gymnasium entry point each time it builds an EnvRunner
pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

ENV_ID = "clabber_v0"
#: tiny sizes: one iteration samples a couple of games and makes a handful of SGD steps
TINY = dict(iterations=1, train_batch_size=200, minibatch_size=100, update_epochs=1, hidden=[16], final_games=0,
            sampler="pettingzoo")
#: weights of each part of the shared network: the trunk's first layer, the policy head, the value head
SHARED_NETWORK_WEIGHTS = ("network.trunk.0.weight", "network.policy_head.weight", "network.value_head.weight")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def env_observations(env_id: str, seed: int, count: int) -> list[dict[str, np.ndarray]]:
    """The first ``count`` observations of the seats to act, in a game played by the first legal action."""
    env = cardenvs.env(env_id)
    env.reset(seed=seed)
    observations = []
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated or len(observations) == count:
            break
        observations.append(observation)
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    return observations


def as_batch(observations: list[dict[str, np.ndarray]]) -> dict:
    """Observation dicts batched the way RLlib's connectors batch them: a dict of tensors under ``obs``."""
    return {Columns.OBS: {key: torch.as_tensor(np.stack([o[key] for o in observations])) for key in observations[0]}}


def test_module_gives_illegal_actions_zero_probability_and_leaves_the_batch_alone():
    env = cardenvs.env(ENV_ID)
    space = env.observation_space(env.possible_agents[0])
    module = MaskedActorCritic(observation_space=space, action_space=env.action_space(env.possible_agents[0]))
    observations = env_observations(ENV_ID, seed=3, count=40)
    # an all-zero mask, as in a seat's observation after the game ended: everything must stay finite
    no_legal_action = np.zeros(env.num_actions, np.int8)
    observations.append({"observation": observations[0]["observation"], "action_mask": no_legal_action})
    batch = as_batch(observations)
    before = {key: tensor.clone() for key, tensor in batch[Columns.OBS].items()}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    values = module.compute_values(batch)
    # the batch was not modified (RLlib reuses it for the value estimates)
    assert batch[Columns.OBS].keys() == before.keys()
    assert all(torch.equal(batch[Columns.OBS][key], before[key]) for key in before)

    legal = before["action_mask"] > 0
    assert legal[:-1].sum(-1).min() > 0 and legal[:-1].sum(-1).max() < env.num_actions  # masks that matter
    assert torch.isfinite(logits).all() and (logits[~legal] == ILLEGAL_LOGIT).all()
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    assert torch.isfinite(distribution.entropy()).all()
    assert (torch.softmax(logits[:-1], dim=-1)[~legal[:-1]] == 0).all()
    greedy = distribution.to_deterministic().sample()[:-1]
    samples = torch.stack([distribution.sample()[:-1] for _ in range(50)])
    assert legal[:-1].gather(1, greedy[:, None]).all() and legal[:-1].gather(1, samples.T).all()

    # policy and value see only the observation: the mask changes nothing but which logits are replaced
    all_legal = as_batch([{**o, "action_mask": np.ones(env.num_actions, np.int8)} for o in observations])
    unmasked_logits = module.forward_exploration(all_legal)[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(unmasked_logits[legal], logits[legal])
    assert torch.equal(module.compute_values(all_legal), values) and values.shape == (len(observations),)


def test_module_is_the_self_play_trainer_s_network_with_its_loss():
    # the same function class as cardenvs train: its network, scaled by the game's documented bounds
    env = cardenvs.env(ENV_ID)
    seat = env.possible_agents[0]
    module = MaskedActorCritic(observation_space=env.observation_space(seat), action_space=env.action_space(seat),
                               model_config={"hidden_sizes": [32, 16]})
    reference = SelfPlayNetwork(input_scale(env.layout), env.num_actions, [32, 16])
    reference.load_state_dict(module.network.state_dict())
    observations = env_observations(ENV_ID, seed=5, count=30)
    batch = as_batch(observations)
    legal = batch[Columns.OBS]["action_mask"] > 0
    logits, values = reference(batch[Columns.OBS]["observation"], legal)
    trained = module.forward_train(batch)
    assert torch.allclose(trained[Columns.ACTION_DIST_INPUTS][legal], logits[legal])
    # the value reuses the trunk's pass of forward_train, and equals a pass of its own
    assert torch.allclose(module.compute_values(batch, embeddings=trained[Columns.EMBEDDINGS]), values)
    assert torch.allclose(module.compute_values(batch), values)
    # RLlib's value loss is coefficient x squared error, clipped; cardenvs train's is --vf-coef x half, unclipped
    config = build_config(RLlibTrainArgs(env_id=ENV_ID, vf_coef=0.8, **TINY))
    assert config.vf_loss_coeff == pytest.approx(0.4) and config.vf_clip_param == float("inf")


def test_module_rejects_a_space_without_the_mask():
    env = cardenvs.env(ENV_ID)
    observation_only = env.observation_space(env.possible_agents[0])["observation"]
    with pytest.raises(ValueError, match="action_mask"):
        MaskedActorCritic(observation_space=observation_only, action_space=env.action_space(env.possible_agents[0]))


def test_bad_arguments_exit_with_a_message_before_ray_starts(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default run directories are relative: none of them holds a run there
    assert main(["--env-id", ENV_ID, "--iterations", "0"]) == 2
    assert "--iterations must be at least 1" in capsys.readouterr().err
    assert main(["--env-id", ENV_ID, "--players", "3"]) == 2
    assert "unknown parameter" in capsys.readouterr().err
    assert main(["--minibatch-size", "500", "--train-batch-size", "200"]) == 2
    with pytest.raises(SystemExit) as exit_info:
        parse_args(["--policy", "everyone"])
    assert exit_info.value.code == 2
    assert not ray.is_initialized()


@pytest.mark.parametrize(("options", "message"), [
    (["--learning-rate", "nan"], "--learning-rate must be a positive number"),
    (["--ent-coef", "-1"], "--ent-coef must be 0 or more"),
    (["--clip-coef", "0"], "--clip-coef must be a positive number"),
    (["--gae-lambda", "2"], "--gae-lambda must be in [0, 1], got 2.0"),
    (["--hidden", "16", "0"], "--hidden must be one or more positive layer sizes, got 16 0"),
    (["--seed", "-1"], "--seed must be an integer from 0 to 2**64-1 (18446744073709551615), got -1"),
    (["--players", "0"], "--players must be at least 1, got 0"),
    (["--num-cpus", "2", "--num-env-runners", "3"],
     "--num-env-runners 3 needs 3 CPUs and the local Ray instance has 2"),
    (["--league-share", "0.5", "--league", "snapshots"], "RLlib's league holds fixed agents"),
    (["--league-share", "0.5", "--league", "ppo:nowhere/model.pt"], "--league ppo:nowhere/model.pt: nothing at"),
])
def test_impossible_values_exit_with_one_line_before_ray_starts(tmp_path, capsys, options, message):
    tiny = ["--iterations", "1", "--train-batch-size", "200", "--minibatch-size", "100", "--hidden", "16"]
    assert main([*tiny, "--env-id", ENV_ID, "--run-dir", str(tmp_path / "run"), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rllib_train: ") and message in err and err.count("\n") == 1, err
    assert not ray.is_initialized() and not (tmp_path / "run").exists()


def test_a_run_dir_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["--run-dir", str(tmp_path / "file")]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


def test_without_ray_the_script_names_the_extra():
    blocked = textwrap.dedent("""
        import runpy, sys
        class NoRay:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "ray":
                    raise ImportError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, NoRay())
        sys.argv = ["rllib_train", "--iterations", "1"]
        runpy.run_module("cardenvs.training.rllib_train", run_name="__main__", alter_sys=True)
    """)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", blocked], cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == exit_codes.EXIT_FAILURE
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert 'pip install "cardenvs[rllib]"' in done.stderr


def test_an_interruption_exits_with_the_command_that_continues(tmp_path, capsys, monkeypatch):
    run_dir = tmp_path / "run"

    def interrupted_after_a_checkpoint(args, print_fn=print):
        (run_dir / rllib_train.CHECKPOINT_DIR).mkdir(parents=True)
        (run_dir / rllib_train.CHECKPOINT_DIR / rllib_train.CHECKPOINT_MARKER).write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setattr(rllib_train, "init_ray", lambda args: None)
    monkeypatch.setattr(rllib_train, "train", interrupted_after_a_checkpoint)
    assert main(["--env-id", ENV_ID, "--iterations", "10", "--run-dir", str(run_dir)]) == 130
    again = f"python -m cardenvs.training.rllib_train --run-dir {run_dir} --resume"
    assert capsys.readouterr().err.strip() == (
        f"interrupted; continue from the last checkpoint ({run_dir / rllib_train.CHECKPOINT_DIR}) with: {again}")
    # the hint's command: the stored arguments; before any checkpoint, the run starts over with them
    monkeypatch.setattr(rllib_train, "train", lambda args, print_fn=print: (_ for _ in ()).throw(KeyboardInterrupt))
    (run_dir / rllib_train.CHECKPOINT_DIR / rllib_train.CHECKPOINT_MARKER).unlink()
    assert main(["--run-dir", str(run_dir), "--resume"]) == 130
    captured = capsys.readouterr()
    assert "has no checkpoint yet: starting the run over" in captured.out
    assert f"interrupted before the first checkpoint; start the run over with its arguments: {again}" in captured.err


def test_cli_flags_fill_the_dataclass():
    flags = ["--env-id", "slabberjan_v0", "--players", "3", "--policy", "per-seat", "--hidden", "8", "4"]
    args = parse_args(flags)
    assert args == RLlibTrainArgs(env_id="slabberjan_v0", players=3, policy="per-seat", hidden=[8, 4])
    assert parse_args(["--gae-lambda", "0.9", "--update-epochs", "2"]).gae_lambda == 0.9


def test_resume_takes_the_stored_arguments_and_refuses_other_ones(tmp_path):
    run_dir = tmp_path / "run"
    saved = RLlibTrainArgs(env_id=ENV_ID, policy="per-seat", hidden=[16, 8], learning_rate=0.1, run_dir=str(run_dir))
    write_run_args(saved)
    args = settle_args(["--resume", "--run-dir", str(run_dir), "--iterations", "3", "--num-env-runners", "1"])
    assert (args.env_id, args.policy, args.hidden, args.learning_rate) == (ENV_ID, "per-seat", [16, 8], 0.1)
    assert (args.iterations, args.num_env_runners, args.resume) == (3, 1, True)
    for given in (["--hidden", "32"], ["--env-id", "slabberjan_v0"], ["--learning-rate", "0.2"]):
        with pytest.raises(ValueError, match=f"{given[0]} cannot change when resuming"):
            settle_args(["--resume", "--run-dir", str(run_dir), *given])
    with pytest.raises(ValueError, match="already holds a run"):
        settle_args(["--run-dir", str(run_dir)])
    assert settle_args(["--run-dir", str(tmp_path / "new")]).run_dir == str(tmp_path / "new")


def check_iteration(result: dict, modules: list[str]) -> None:
    """One iteration sampled steps, finished games, and updated every module with finite losses."""
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= TINY["train_batch_size"] > 0
    assert runners["num_episodes"] >= 1
    assert not runners.get(NUM_ENV_STEP_FAILURES_LIFETIME)  # no env step raised (illegal actions included)
    for module in modules:
        stats = result["learners"][module]
        for key in ("policy_loss", "vf_loss", "entropy"):
            assert math.isfinite(stats[key]), (module, key, stats[key])
        assert stats["num_module_steps_trained"] > 0
    returns = runners["agent_episode_returns_mean"]
    assert set(returns) == set(cardenvs.env(ENV_ID).possible_agents)


def test_shared_policy_trains_saves_a_checkpoint_and_resumes(local_ray, tmp_path, capsys):
    args = RLlibTrainArgs(env_id=ENV_ID, policy="shared", run_dir=str(tmp_path), checkpoint_every=1,
                          **{**TINY, "iterations": 2})
    algorithm = build_config(args).build_algo()  # seeded: the weights training starts from
    try:
        # the learner's module, with the value network (the EnvRunners' are inference-only)
        [initial] = [call.get() for call in algorithm.learner_group.foreach_learner(
            lambda learner: {name: value.clone() for name, value in learner.module["shared"].state_dict().items()})]
    finally:
        algorithm.stop()
    assert set(SHARED_NETWORK_WEIGHTS) <= set(initial)
    results, checkpoint = train(args)
    assert checkpoint == tmp_path.resolve() / rllib_train.CHECKPOINT_DIR
    assert len(results) == 2
    for result in results:
        check_iteration(result, ["shared"])
    assert results[1]["num_env_steps_sampled_lifetime"] >= 2 * TINY["train_batch_size"]
    printed = capsys.readouterr().out
    assert "iter    1 | env steps" in printed and "iter    2 | env steps" in printed
    assert printed.count(f"saved to {checkpoint}") == 2
    # the saved policy reloads without Ray: trunk and both heads moved, and it plays whole games with legal actions
    module = RLModule.from_checkpoint(f"{checkpoint}/learner_group/learner/rl_module/shared")
    trained = module.state_dict()
    changed = {name for name, value in initial.items() if not torch.equal(value, trained[name])}
    assert set(SHARED_NETWORK_WEIGHTS) <= changed, changed
    play_whole_games(make_agent(f"rllib:{tmp_path}", ENV_ID, cardenvs.env(ENV_ID).layout), ENV_ID, range(2))
    # --resume goes on from the checkpoint to the iterations in all: iteration and step counts continue
    resumed, _ = train(dataclasses.replace(args, iterations=3, resume=True), print_fn=lambda line: None)
    assert [result["training_iteration"] for result in resumed] == [3]
    assert resumed[0]["num_env_steps_sampled_lifetime"] >= 3 * TINY["train_batch_size"]
    # a run that has done its iterations trains no further
    assert train(dataclasses.replace(args, iterations=3, resume=True), print_fn=lambda line: None)[0] == []
    # the final matches: the shared module against the rule-based agent and against random, in model.json
    table = rllib_train.play_final_tournament(dataclasses.replace(args, final_games=4))
    assert "trained vs heuristic" in table and "trained vs random" in table
    matches = json.loads((tmp_path / runs.MODEL_INFO_NAME).read_text())["tournament"]["matches"]
    assert [match["agents"] for match in matches] == [["trained", "heuristic"], ["trained", "random"]]


def test_the_package_shipped_to_a_cluster_imports_alone(tmp_path):
    # a node without cardenvs installed: no editable-install finder, only the shipped copy on the path
    package = rllib_train.stage_package(tmp_path)
    assert not list(package.rglob("__pycache__"))
    modules = ["cardenvs.training.rllib_masking", "cardenvs.agents.rllib", "cardenvs.agents.registry"]
    code = textwrap.dedent(f"""
        import importlib, sys
        sys.meta_path[:] = [finder for finder in sys.meta_path if "editable" not in repr(finder).lower()]
        sys.path[:] = [str({str(tmp_path)!r})] + [entry for entry in sys.path if "editable" not in entry.lower()]
        for name in {modules!r}:
            print(importlib.import_module(name).__file__)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr[-3000:]
    files = done.stdout.split()
    assert len(files) == len(modules) and all(Path(file).is_relative_to(package) for file in files), files


def test_per_seat_policies_train_one_iteration_on_a_remote_env_runner(local_ray, tmp_path):
    seats = cardenvs.env(ENV_ID).possible_agents
    args = RLlibTrainArgs(env_id=ENV_ID, policy="per-seat", num_env_runners=1, run_dir=str(tmp_path), **TINY)
    algorithm = build_config(args).build_algo()
    try:
        # EnvRunners hold inference-only modules (no value head), the learner the whole ones
        # (the lambdas name nothing of this module: the remote EnvRunner could not import it)
        runner_layouts = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: {mid: (m.inference_only, hasattr(m.network, "value_head"))
                            for mid, m in runner.module.items()}
        )
        assert len(runner_layouts) == 2  # the local EnvRunner and the remote one
        assert all(layout == dict.fromkeys(seats, (True, False)) for layout in runner_layouts)
        learner_layouts = algorithm.learner_group.foreach_learner(
            lambda learner: {mid: (m.inference_only, hasattr(m.network, "value_head"))
                             for mid, m in learner.module.items()}
        )
        assert [call.get() for call in learner_layouts] == [dict.fromkeys(seats, (False, True))]
        result = algorithm.train()
    finally:
        algorithm.stop()
    check_iteration(result, seats)
    assert set(result["env_runners"]["module_episode_returns_mean"]) == set(seats)


class UnmaskedActorCritic(MaskedActorCritic):
    """The same networks without the mask: its actions are often illegal."""

    def _forward(self, batch, **kwargs):
        return {Columns.ACTION_DIST_INPUTS: self.network.policy_head(self._trunk(batch))}


def exception_chain(error: BaseException | None) -> list[BaseException]:
    chain = []
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain


def test_an_illegal_action_stops_training_instead_of_being_swallowed(local_ray):
    algorithm = build_config(RLlibTrainArgs(env_id=ENV_ID, **TINY), module_class=UnmaskedActorCritic).build_algo()
    try:
        with pytest.raises(RuntimeError) as error_info:
            algorithm.train()
    finally:
        algorithm.stop()
    assert any(isinstance(cause, cardenvs.IllegalActionError) for cause in exception_chain(error_info.value))


def test_an_illegal_action_on_a_remote_env_runner_stops_training(local_ray):
    # RLlib restarts a failed EnvRunner and carries on by default; the config must turn that off.
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)  # the remote EnvRunner cannot import this test module
    try:
        args = RLlibTrainArgs(env_id=ENV_ID, num_env_runners=1, **TINY)
        algorithm = build_config(args, module_class=UnmaskedActorCritic).build_algo()
        try:
            classes = algorithm.env_runner_group.foreach_env_runner(
                lambda runner: type(runner.module["shared"]).__name__
            )
            assert classes == ["UnmaskedActorCritic", "UnmaskedActorCritic"]  # the remote runner is up
            with pytest.raises(ray.exceptions.RayError):
                algorithm.train()
        finally:
            algorithm.stop()
    finally:
        ray.cloudpickle.unregister_pickle_by_value(module)
