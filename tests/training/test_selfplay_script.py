"""training/selfplay.py (``cardenvs train GAME``): the reward credit and GAE along each seat's decisions, the
seating, a tiny run end to end (checkpoint, resume, the model loaded as the ``ppo:PATH`` agent), the argument
checks, ``--help`` and ``--device``, and the shipped agents it trained."""

import dataclasses
import json
import shlex
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import cardenvs
from cardenvs import cli
from cardenvs.agents.registry import make_agent, shipped_checkpoint
from cardenvs.agents.selfplay import SelfPlayAgent, load_model
from cardenvs.core import exit_codes
from cardenvs.core.rng import SEED_LIMIT, SEED_RULE
from cardenvs.training import recipes, runs, selfplay
from cardenvs.training.recipes import RECIPES

ENV_ID = "slabberjan_v0"
#: options of a recipe's extensions and of settings that are gone: none is a command-line option
NOT_OPTIONS = ("--env-id", "--shaping", "--aux", "--carry-open-chains", "--critic", "--ent-anneal")


def test_gae_runs_along_each_seat_s_chain_and_stops_at_the_game_s_end(tiny_args):
    """Two seats of one game alternate; seat 0's game ends after its second decision (reward +1 credited there);
    seat 1's chain is still open at the end and is bootstrapped with its value then."""
    trainer = selfplay.Trainer(tiny_args("--gamma", "0.5", "--gae-lambda", "0.5"))
    value = np.array([[0.1], [0.2], [0.3], [0.4]], np.float32)
    reward = np.array([[0.0], [0.0], [1.0], [0.0]], np.float32)
    done = np.array([[False], [False], [True], [False]])
    next_step = np.array([[2], [3], [-1], [-1]])
    seat = np.array([[0], [1], [0], [1]])
    valid = np.ones((4, 1), bool)
    bootstrap = np.array([[0.0, 0.8]], np.float32)
    adv = trainer.advantages(value, reward, done, next_step, seat, valid, bootstrap)
    delta3 = 0.5 * 0.8 - 0.4  # seat 1, open chain: bootstrapped
    delta2 = 1.0 - 0.3  # seat 0's last decision: the game's end, nothing after it
    delta1 = 0.5 * 0.4 - 0.2
    delta0 = 0.5 * 0.3 - 0.1
    expected = [delta0 + 0.25 * delta2, delta1 + 0.25 * delta3, delta2, delta3]
    np.testing.assert_allclose(adv[:, 0], expected, rtol=1e-6)
    valid[1, 0] = False
    assert trainer.advantages(value, reward, done, next_step, seat, valid, bootstrap)[1, 0] == 0


def test_rewards_are_credited_to_each_learning_seat_s_latest_decision_and_truncation_pays_its_reward(tiny_args):
    """A reward that reaches a seat on another seat's move goes to that seat's latest decision; an opponent seat
    gets nothing; at a truncation every learning seat's last decision is closed and gets --truncation-reward."""
    trainer = selfplay.Trainer(tiny_args("--truncation-reward", "-0.75"))
    players = trainer.num_players
    reward = np.zeros((4, 2), np.float32)
    done = np.zeros((4, 2), bool)
    learner = np.ones((2, players), bool)
    learner[1, 1] = False  # game 1, seat 1: a league opponent
    last_decision = np.array([[2, 1] + [-1] * (players - 2), [3, 0] + [-1] * (players - 2)])
    rewards = np.zeros((2, players), np.float32)
    rewards[0, 1] = 0.5
    rewards[1, 1] = 0.25  # the opponent's: not credited
    none = np.zeros(2, bool)
    assert trainer.credit(reward, done, learner, last_decision, rewards, none, none).size == 0
    assert reward[1, 0] == 0.5 and reward.sum() == 0.5 and not done.any()
    truncated = np.array([False, True])
    ended = trainer.credit(reward, done, learner, last_decision, np.zeros_like(rewards), none, truncated)
    assert ended.tolist() == [1]
    assert done[3, 1] and done.sum() == 1  # game 1, seat 0 (seat 1 is not a learner; the others never decided)
    assert reward[3, 1] == -0.75 and reward.sum() == 0.5 - 0.75
    terminated = np.array([True, False])
    trainer.credit(reward, done, learner, last_decision, np.zeros_like(rewards), terminated, none)
    assert done[2, 0] and done[1, 0] and reward.sum() == 0.5 - 0.75  # a terminated game pays no training reward


def test_self_play_games_seat_the_learner_everywhere_and_league_games_split_by_side(tiny_args, tmp_path):
    """In a self-play game every seat is the learner's; in a league game one side (seats ``s % 2``) learns and
    the league agent plays the other, as a two-agent tournament seats them."""
    trainer = selfplay.Trainer(tiny_args("--league-share", "0"))
    learner = np.zeros((8, trainer.num_players), bool)
    opponent = np.full(8, -1)
    trainer.draw_seating(np.arange(8), learner, opponent, [])
    assert learner.all() and (opponent == -1).all()
    league = selfplay.Trainer(tiny_args("--league-share", "1", "--league", "random", run_dir=tmp_path / "league"))
    league.draw_seating(np.arange(8), learner, opponent, ["random"])
    seats = np.arange(trainer.num_players)
    assert (opponent == 0).all()
    for row in learner:  # one side learns, the other is the league's
        assert (row == (seats % 2 == seats[row][0] % 2)).all() and 0 < row.sum() < trainer.num_players


def test_the_learning_rate_anneals_linearly_to_zero_over_the_decisions(tiny_args):
    trainer = selfplay.Trainer(tiny_args("--total-decisions", "100", "--learning-rate", "0.002"))
    trainer.decisions = 75
    assert trainer.learning_rate(time.monotonic()) == pytest.approx(0.0005)
    trainer.decisions = 150
    assert trainer.learning_rate(time.monotonic()) == 0.0


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, tiny):
    run_dir = tmp_path_factory.mktemp("run")
    code = selfplay.main([*tiny, "--total-decisions", "256", "--snapshot-every", "64",
                          "--checkpoint-every", "64", "--eval-every", "128", "--eval-games", "4", "--final-games", "8",
                          "--run-dir", str(run_dir)])
    assert code == 0
    return run_dir


def test_a_tiny_run_saves_model_checkpoint_curve_and_logs(finished_run):
    info = json.loads((finished_run / runs.MODEL_INFO_NAME).read_text())
    assert info["env_id"] == ENV_ID and info["decisions"] >= 256 and info["trainer"] == "cardenvs train"
    command = info["command"]
    assert command.startswith("cardenvs train slabberjan_v0 --") and " --total-decisions 256 " in command
    assert runs.command_line("cardenvs train slabberjan_v0", selfplay.parse_args(shlex.split(command)[2:]),
                             leave_out=("env_id",)) == command  # the command trains this run again
    assert info["recipe"] == recipes.recipe(ENV_ID).extensions() and info["device"] == "cpu"
    assert info["evaluations"] and all(-1 <= point["mean_reward"] <= 1 for point in info["evaluations"])
    assert set(info["time_shares"]) == set(selfplay.TIME_PARTS)
    assert [match["agents"] for match in info["tournament"]["matches"]] == [["trained", "heuristic"],
                                                                             ["trained", "random"]]
    assert list((finished_run / "tb").rglob("events.out.tfevents.*"))
    saved = torch.load(finished_run / selfplay.CHECKPOINT_NAME, weights_only=False)
    assert saved["decisions"] == info["decisions"] and saved["snapshots"]


def test_the_model_plays_as_the_ppo_agent_and_acts_legally(finished_run):
    env = cardenvs.env(ENV_ID)
    agent = make_agent(f"ppo:{finished_run / selfplay.MODEL_NAME}", ENV_ID, env.layout)
    assert isinstance(agent, SelfPlayAgent)
    env.reset(seed=3)
    for _name in env.agent_iter(max_iter=200):
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
    with pytest.raises(ValueError, match="was trained on slabberjan_v0"):
        make_agent(f"ppo:{finished_run / selfplay.MODEL_NAME}", "clabber_v0", cardenvs.env("clabber_v0").layout)
    _network, info = load_model(finished_run / selfplay.MODEL_NAME)
    assert info["observation_size"] == env.layout.size and info["hidden"] == [16]


def test_resume_continues_from_the_checkpoint_with_nothing_lost(tiny, tmp_path):
    run_dir = tmp_path / "run"
    first = [*tiny, "--total-decisions", "128", "--checkpoint-every", "64", "--run-dir", str(run_dir)]
    assert selfplay.main(first) == 0
    saved = torch.load(run_dir / selfplay.CHECKPOINT_NAME, weights_only=False)
    assert selfplay.main(first) == exit_codes.EXIT_USAGE  # an existing run is never overwritten without --resume
    args = selfplay.resolve_args(dataclasses.replace(selfplay.parse_args(first), resume=True, total_decisions=384))
    trainer = selfplay.Trainer(args)
    assert trainer.resumed and trainer.decisions == saved["decisions"] and trainer.updates == saved["updates"]
    for name, value in saved["network"].items():
        torch.testing.assert_close(trainer.network.state_dict()[name], value)
    assert trainer.optimizer.state_dict()["state"], "the optimizer's moments come back too"
    trainer.train()
    assert trainer.decisions >= 384
    assert torch.load(run_dir / selfplay.CHECKPOINT_NAME, weights_only=False)["decisions"] == trainer.decisions


def test_resume_needs_a_run_and_keeps_the_fixed_options(tiny, tmp_path, capsys):
    run_dir = str(tmp_path / "run")
    assert selfplay.main([*tiny, "--run-dir", run_dir, "--resume"]) == exit_codes.EXIT_USAGE
    assert "holds no run" in capsys.readouterr().err
    assert selfplay.main([*tiny, "--total-decisions", "64", "--run-dir", run_dir]) == 0
    assert selfplay.main([ENV_ID, "--run-dir", run_dir, "--resume", "--hidden", "32"]) == exit_codes.EXIT_USAGE
    assert "--hidden cannot change when resuming" in capsys.readouterr().err
    assert selfplay.main(["clabber_v0", "--run-dir", run_dir, "--resume"]) == exit_codes.EXIT_USAGE
    assert f"GAME cannot change when resuming: the run in {run_dir} trains {ENV_ID}" in capsys.readouterr().err


@pytest.mark.parametrize(("options", "message"), [
    (["--learning-rate", "-1"], "--learning-rate must be a positive number"),
    (["--gamma", "1.5"], "--gamma must be in [0, 1]"),
    (["--num-envs", "0"], "--num-envs must be at least 1"),
    (["--hidden", "0"], "--hidden must be one or more positive layer sizes"),
    (["--league", "nobody"], "unknown agent 'nobody'"),
    (["--league", "human"], "a human cannot play training games"),
    (["--league", "ppo:/missing.pt"], "nothing at /missing.pt"),
    (["--league", "snapshots", "--max-snapshots", "0"], "--league snapshots needs --max-snapshots of at least 1"),
])
def test_bad_options_exit_with_one_line_before_anything_is_built(tiny, tmp_path, capsys, options, message):
    run_dir = tmp_path / "run"
    assert selfplay.main([*tiny, "--run-dir", str(run_dir), *options]) == exit_codes.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not run_dir.exists()


@pytest.mark.parametrize("argv", [["--num-envs", "4"], [ENV_ID, "--num-envs", "many"], ["no_such_game_v0"]])
def test_a_malformed_command_line_exits_with_code_2(tmp_path, argv):
    """No GAME, a value of the wrong type, a game that is not registered."""
    with pytest.raises(SystemExit) as exit_info:
        selfplay.main([*argv, "--run-dir", str(tmp_path / "run")])
    assert exit_info.value.code == exit_codes.EXIT_USAGE
    assert not (tmp_path / "run").exists()


def test_cuda_without_a_cuda_device_is_a_one_line_error(tiny, tmp_path, capsys):
    if torch.cuda.is_available():
        pytest.skip("torch sees a CUDA device here")
    assert selfplay.main([*tiny, "--device", "cuda", "--run-dir", str(tmp_path / "run")]) == exit_codes.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: --device cuda: torch sees no CUDA device") and err.count("\n") == 1


def test_auto_picks_the_device_torch_sees(tiny_args):
    trainer = selfplay.Trainer(tiny_args("--device", "auto"))
    assert trainer.device.type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert {tensor.device.type for tensor in trainer.network.state_dict().values()} == {trainer.device.type}


def test_help_lists_the_core_options_only(capsys):
    assert cli.main(["train", "--help"]) == 0
    text = capsys.readouterr().out
    for spec in dataclasses.fields(selfplay.Args):
        assert "--" + spec.name.replace("_", "-") in text, spec.name
    assert "GAME" in text and not [option for option in NOT_OPTIONS if option in text]


def test_game_s_recipe_sets_the_defaults_wherever_game_stands_on_the_command_line():
    slap = recipes.recipe("slap_v0").defaults
    for argv in (["slap_v0", "--num-envs", "8"], ["--num-envs", "8", "slap_v0"], ["--run-dir", ENV_ID, "slap_v0"]):
        run = selfplay.parse_args(argv)
        assert run.env_id == "slap_v0" and run.minibatch_size == slap["minibatch_size"] == 1024, argv
        assert run.gae_lambda == slap["gae_lambda"] and run.total_decisions == slap["total_decisions"]


def test_a_game_without_a_recipe_trains_with_the_core_defaults(monkeypatch):
    monkeypatch.delitem(RECIPES, ENV_ID)
    run = selfplay.parse_args([ENV_ID])
    core = selfplay.Args()
    assert {spec.name: getattr(run, spec.name) for spec in dataclasses.fields(selfplay.Args)} == vars(core)
    assert recipes.recipe(ENV_ID) == recipes.Recipe()


def test_cardenvs_train_trains_checkpoints_resumes_and_its_model_plays(tmp_path, capsys):
    """The installed command end to end: train 20,000 decisions, resume the run to 30,000 from its checkpoint,
    load the model as the agent ``ppo:RUN_DIR/model.pt`` and play legally."""
    run_dir = tmp_path / "run"
    small = ["--num-envs", "64", "--num-steps", "16", "--minibatch-size", "512", "--hidden", "32",
             "--eval-games", "0", "--final-games", "0", "--no-progress-bar", "--run-dir", str(run_dir)]
    assert cli.main(["train", ENV_ID, "--total-decisions", "20000", *small]) == 0
    first = torch.load(run_dir / selfplay.CHECKPOINT_NAME, weights_only=False)
    assert first["decisions"] >= 20000
    assert cli.main(["train", ENV_ID, "--total-decisions", "30000", *small, "--resume"]) == 0
    assert f"(resumed at {first['decisions']:,})" in capsys.readouterr().out
    info = json.loads((run_dir / runs.MODEL_INFO_NAME).read_text())
    assert info["decisions"] >= 30000 and info["command"].startswith("cardenvs train slabberjan_v0 ")
    venv = cardenvs.vector_env(ENV_ID, num_envs=16)
    agent = make_agent(f"ppo:{run_dir / selfplay.MODEL_NAME}", ENV_ID, venv.layout)
    observations, masks, _ = venv.reset(seed=5)
    for _ in range(50):
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(16), actions].all()
        observations, masks, *_ = venv.step(actions)


def test_cardenvs_train_names_each_phase_and_takes_every_seed_of_the_seed_rule(tiny, tmp_path, capsys):
    """Start-up, training and the final matches (with their size) are each announced as they begin, so that a first
    run compiling its rules never looks stuck; the largest seed trains, its derived seeds wrapping."""
    last_seed = str(SEED_LIMIT - 1)
    argv = [*tiny, "--total-decisions", "64", "--final-games", "4", "--seed", last_seed, "--run-dir",
            str(tmp_path / "run")]
    assert selfplay.main(argv) == 0
    printed = capsys.readouterr().out
    order = ["[1/3] start-up: 8 games of slabberjan_v0, the league (heuristic, random)", "[2/3] training: ",
             "[3/3] final matches: 4 games against each of heuristic, random",
             "final match 1/2: trained vs heuristic, 4 games", "final match 2/2: trained vs random, 4 games"]
    assert [printed.index(line) for line in order] == sorted(printed.index(line) for line in order)
    info = json.loads((tmp_path / "run" / runs.MODEL_INFO_NAME).read_text())
    assert info["args"]["seed"] == SEED_LIMIT - 1 and info["tournament"]["seed"] == 0  # the seed after the last
    assert selfplay.main([*argv[:-1], str(tmp_path / "other"), "--seed", str(SEED_LIMIT)]) == exit_codes.EXIT_USAGE
    assert f"--seed must be {SEED_RULE}" in capsys.readouterr().err


def test_an_update_whose_last_minibatch_holds_one_decision_keeps_the_weights_finite(tiny_args):
    trainer = selfplay.Trainer(tiny_args("--minibatch-size", "16"))
    samples = 17  # one full minibatch and one of a single decision
    rng = np.random.default_rng(0)
    size, num_actions = trainer.layout.size, trainer.venv.num_actions
    trainer.update(rng.random((samples, size), np.float32), np.ones((samples, num_actions), bool),
                   rng.integers(0, num_actions, samples), np.full(samples, -np.log(num_actions), np.float32),
                   np.zeros(samples, np.float32), rng.standard_normal(samples).astype(np.float32), time.monotonic())
    assert all(torch.isfinite(value).all() for value in trainer.network.state_dict().values())


#: committed models stay small (Gin Slaughtre's 420 actions make the largest)
MAX_MODEL_BYTES = 1_500_000


def _shipped(env_id: str) -> Path:
    path = shipped_checkpoint(env_id)
    if path is None:
        pytest.skip(f"{env_id} ships no trained agent")
    return Path(path)


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_every_game_with_a_recipe_ships_the_agent_it_trained(env_id):
    if env_id not in RECIPES:
        pytest.skip(f"{env_id} has no recipe")
    path = _shipped(env_id)
    assert path.is_file() and json.loads(path.with_suffix(".json").read_text())["env_id"] == env_id


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_shipped_agents_load_for_their_game_and_act_legally(env_id):
    path = _shipped(env_id)
    info = json.loads(path.with_suffix(".json").read_text())
    assert info["env_id"] == env_id
    assert [match["agents"] for match in info["tournament"]["matches"]] == [["trained", "heuristic"],
                                                                             ["trained", "random"]]
    assert path.stat().st_size < MAX_MODEL_BYTES
    venv = cardenvs.vector_env(env_id, 16)
    agent = SelfPlayAgent.load(path, env_id, venv.layout, venv.num_actions)
    # a run records its recipe's extensions (``recipe``); an agent shipped before that, its options (``args``)
    auxiliary = info["recipe"]["auxiliary"] if "recipe" in info else None
    to_policy = auxiliary["to_policy"] if auxiliary else info["args"].get("aux_to_policy", False)
    assert agent.network.aux_to_policy == to_policy
    assert isinstance(make_agent("trained", env_id, venv.layout), SelfPlayAgent)
    observations, masks, _ = venv.reset(seed=1)
    for _ in range(10):
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(16), actions].all()
        observations, masks, *_ = venv.step(actions)
