"""The batched EnvRunner (training/rllib_batched.py): every seat's trajectory as the self-play trainer credits it,
legal actions only, and PPO training, checkpoints, resuming and the ``rllib:PATH`` agent through ``rllib_train``.

The credit is checked against a plain per-game replay of the engine's steps (recorded by wrapping the runner's
``step``): each seat's decisions in order, each reward added to the seat's latest decision, a game's end closing
every seat's trajectory, and an open trajectory handed over up to the decision it keeps back.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the [rllib] extra is not installed")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402

import cardenvs  # noqa: E402
from cardenvs.agents.registry import make_agent  # noqa: E402
from cardenvs.training import rllib_train  # noqa: E402
from cardenvs.training.recipes import recipe  # noqa: E402
from cardenvs.training.rllib_batched import LEAGUE_RETURN_MEAN, SHAPING_KEY, BatchedEnvRunner  # noqa: E402
from cardenvs.training.rllib_masking import ACTION_MASK_KEY, OBSERVATION_KEY, MaskedActorCritic  # noqa: E402
from cardenvs.training.rllib_train import RLlibTrainArgs, build_config, train  # noqa: E402
from tests.helpers import play_whole_games  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ENV_ID = "clabber_v0"
#: tiny sizes: 16 games, an iteration of 8 steps of each, a handful of gradient steps
TINY = dict(iterations=1, num_envs_per_env_runner=16, train_batch_size=128, minibatch_size=64, update_epochs=1,
            hidden=[16], final_games=0)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def recording_runner(args: RLlibTrainArgs, shaped: bool = False) -> tuple[BatchedEnvRunner, list]:
    """A local batched EnvRunner of ``args``'s config whose every engine step is recorded: (obs, masks, seat to
    act, actions, rewards, terminated, truncated), copied. Unless ``shaped``, without the recipe's shaping."""
    config = build_config(args)
    if not shaped:
        config.env_config[SHAPING_KEY] = None
    runner = BatchedEnvRunner(config=config)
    steps = []
    games = runner.env
    step = games.step

    def recorded(actions):
        before = (games.games.observations.copy(), games.games.action_masks.copy(),
                  games.games.current_players.copy(), np.array(actions))
        learner = runner._learner.copy()  # the seats that learn in each game, before a game's end seats it anew
        result = step(actions)
        steps.append((*before, *(array.copy() for array in result[3:]), learner))
        return result

    games.step = recorded
    return runner, steps


def replayed_trajectories(steps: list, num_games: int, num_players: int) -> list[tuple]:
    """Each learning seat's trajectory chunks as the self-play trainer credits them, from the recorded steps, one
    game and one step at a time: ``(first observation, actions, rewards, terminated)``."""
    chunks = []
    for game in range(num_games):
        open_decisions = {seat: [] for seat in range(num_players)}  # seat -> [observation, action, reward]
        for obs, _, seats, actions, rewards, terminated, truncated, learner in steps:
            seat = int(seats[game])
            if learner[game, seat]:  # a league agent's decision is not the learner's
                open_decisions[seat].append([obs[game], int(actions[game]), 0.0])
            for who in range(num_players):
                if open_decisions[who]:
                    open_decisions[who][-1][2] += float(rewards[game, who])
            if terminated[game] or truncated[game]:
                chunks += [(d[0][0], tuple(x[1] for x in d), tuple(x[2] for x in d), True)
                           for d in open_decisions.values() if d]
                open_decisions = {who: [] for who in range(num_players)}
        # at the end of the call, an open trajectory keeps its latest decision back
        chunks += [(d[0][0], tuple(x[1] for x in d[:-1]), tuple(x[2] for x in d[:-1]), False)
                   for d in open_decisions.values() if len(d) > 1]
    return chunks


def key(first_observation: np.ndarray, actions: tuple, rewards: tuple, terminated: bool) -> tuple:
    return first_observation.tobytes(), actions, tuple(round(r, 5) for r in rewards), terminated


def test_every_seat_gets_its_own_trajectory_with_its_rewards_and_legal_actions(local_ray):
    args = RLlibTrainArgs(env_id=ENV_ID, **{**TINY, "num_envs_per_env_runner": 6}, seed=3)
    runner, steps = recording_runner(args)
    try:
        episodes = runner.sample(num_episodes=8)  # from fresh games until 8 of them end
        games = runner.env.games
        expected = replayed_trajectories(steps, games.num_envs, games.num_players)
        got = []
        for episode in episodes:
            observations = episode.get_observations()
            actions = episode.get_actions()
            assert len(observations[OBSERVATION_KEY]) == len(actions) + 1  # the one to bootstrap on, or the end
            masks = observations[ACTION_MASK_KEY][:-1]
            assert np.all(masks[np.arange(len(actions)), actions] == 1), "an illegal action was sampled"
            logp = episode.get_extra_model_outputs(Columns.ACTION_LOGP)
            assert np.all(logp <= 0) and np.all(np.isfinite(logp))
            if episode.is_terminated:  # nothing is observed after the end
                assert not observations[ACTION_MASK_KEY][-1].any()
            got.append(key(observations[OBSERVATION_KEY][0], tuple(actions.tolist()),
                           tuple(episode.get_rewards().tolist()), episode.is_terminated))
        assert Counter(got) == Counter(key(*chunk) for chunk in expected)
        assert sum(chunk[3] for chunk in expected) >= 8 * games.num_players  # every seat of 8 games closed
        assert any(sum(chunk[2]) != 0 for chunk in expected)  # rewards did reach the trajectories
        metrics = runner.get_metrics()
        assert metrics["num_episodes"] >= 8  # games finished
        assert set(metrics["agent_episode_returns_mean"]) == set(cardenvs.env(ENV_ID).possible_agents)
    finally:
        runner.stop()


def test_the_recipe_s_shaping_adds_gamma_times_the_next_potential_less_this_one(local_ray):
    """Clabber's recipe shapes on the team scores' lead: each decision's reward is the replay's plus
    ``gamma * lead(next decision) - lead(this one)``, scaled, with no potential after the game's end."""
    args = RLlibTrainArgs(env_id=ENV_ID, **{**TINY, "num_envs_per_env_runner": 6}, seed=4)
    runner, steps = recording_runner(args, shaped=True)
    try:
        episodes = runner.sample(num_episodes=2)  # hands end along the way, so the scores move
        games = runner.env.games
        replayed = {(chunk[0].tobytes(), chunk[1]): chunk[2]
                    for chunk in replayed_trajectories(steps, games.num_envs, games.num_players)}
        shaping, gamma = recipe(ENV_ID).shaping, runner.config.gamma
        start, stop = games.layout.offsets[shaping.view]
        high = next(view.high for view in games.layout.views if view.name == shaping.view)
        moved = 0
        for episode in episodes:
            observations = episode.get_observations()[OBSERVATION_KEY]
            scores = observations[:, start:stop]
            lead = shaping.coef / high * (scores[:, 0] - scores[:, 1:].mean(axis=1))
            if episode.is_terminated:
                lead[-1] = 0.0
            game_rewards = replayed[(observations[0].tobytes(), tuple(episode.get_actions().tolist()))]
            assert episode.get_rewards() == pytest.approx(np.array(game_rewards) + gamma * lead[1:] - lead[:-1],
                                                          abs=1e-5)
            moved += int(np.any(scores[1:] != scores[:-1]))
        assert moved > 0  # some trajectory saw the scores change
    finally:
        runner.stop()


def test_in_league_games_only_the_learning_side_s_decisions_and_rewards_reach_the_learner(local_ray):
    args = RLlibTrainArgs(env_id=ENV_ID, **{**TINY, "num_envs_per_env_runner": 6}, league=["random", "heuristic"],
                          league_share=0.5, seed=6)
    runner, steps = recording_runner(args)
    try:
        episodes = runner.sample(num_episodes=12)
        games = runner.env.games
        expected = replayed_trajectories(steps, games.num_envs, games.num_players)
        got = [key(episode.get_observations()[OBSERVATION_KEY][0], tuple(episode.get_actions().tolist()),
                   tuple(episode.get_rewards().tolist()), episode.is_terminated) for episode in episodes]
        assert Counter(got) == Counter(key(*chunk) for chunk in expected)
        league_moves = sum(int((~learner[np.arange(games.num_envs), seats]).sum())
                           for _, _, seats, *_, learner in steps)
        assert league_moves > 0  # league agents played
        assert sum(len(episode) for episode in episodes) + league_moves <= len(steps) * games.num_envs
        sides = {tuple(learner[game]) for *_, learner in steps for game in range(games.num_envs)}
        # a league game's learners are one partnership (seats of one parity); a self-play game's, every seat
        assert sides <= {(True, True, True, True), (True, False, True, False), (False, True, False, True)}
        assert len(sides) == 3
        metrics = runner.get_metrics()
        assert set(metrics[LEAGUE_RETURN_MEAN]) <= {"random", "heuristic"} and metrics[LEAGUE_RETURN_MEAN]
        # a call asked for decisions steps on until the learning seats alone have made them (within one step)
        before = runner.num_env_steps_sampled_lifetime
        runner.sample(num_timesteps=60)
        assert 60 <= runner.num_env_steps_sampled_lifetime - before < 60 + games.num_envs
    finally:
        runner.stop()


def test_a_league_needs_the_batched_sampler_and_fixed_agents():
    with pytest.raises(ValueError, match="needs the batched sampler"):
        RLlibTrainArgs(env_id=ENV_ID, sampler="pettingzoo", league_share=0.5).validate()
    with pytest.raises(ValueError, match="snapshots of the policy are the self-play trainer's"):
        RLlibTrainArgs(env_id=ENV_ID, league=["heuristic", "snapshots"], league_share=0.5).validate()
    with pytest.raises(ValueError, match=r"--league-share must be in \[0, 1\]"):
        RLlibTrainArgs(env_id=ENV_ID, league_share=1.5).validate()
    with pytest.raises(ValueError, match="at least one agent spec"):
        RLlibTrainArgs(env_id=ENV_ID, league=[], league_share=0.5).validate()
    with pytest.raises(ValueError, match="human"):
        RLlibTrainArgs(env_id=ENV_ID, league=["human"], league_share=0.5).validate()
    RLlibTrainArgs(env_id=ENV_ID, sampler="pettingzoo").validate()  # no league games: any sampler


def test_a_decision_kept_back_opens_the_seat_s_next_chunk_with_its_later_rewards(local_ray):
    args = RLlibTrainArgs(env_id=ENV_ID, **{**TINY, "num_envs_per_env_runner": 4}, seed=5)
    runner, steps = recording_runner(args)
    try:
        shipped = []
        for _ in range(12):  # calls of 9 steps: trajectories cross the calls, and games end inside them
            shipped += runner.sample(num_timesteps=36)
        decisions = sum(len(episode) for episode in shipped)
        games = runner.env.games
        game, seat = np.nonzero(runner._last_decision >= 0)  # the decisions kept back for the next call
        assert decisions + game.size == len(steps) * games.num_envs  # every decision shipped once, or waiting
        paid = sum(float(rewards.sum()) for *_, rewards, _, _, _ in steps)
        carried = float(runner._carried.reward[runner._last_decision[game, seat], game].sum())
        # every reward reached a decision: shipped, or on a decision still waiting
        assert sum(float(episode.get_rewards().sum()) for episode in shipped) + carried == pytest.approx(paid)
        # a chunk that continues a trajectory starts with the decision the call before kept back
        assert sum(not episode.is_terminated for episode in shipped) > 0
    finally:
        runner.stop()


def test_batched_training_checkpoints_resumes_and_plays_as_an_agent(local_ray, tmp_path, capsys):
    args = RLlibTrainArgs(env_id=ENV_ID, run_dir=str(tmp_path), checkpoint_every=1, **{**TINY, "iterations": 2})
    assert args.resolved_sampler == "batched" and rllib_train.module_ids(args) == [rllib_train.BATCHED_MODULE_ID]
    results, checkpoint = train(args)
    assert [result["training_iteration"] for result in results] == [1, 2]
    for result in results:
        assert result["env_runners"]["num_env_steps_sampled"] >= TINY["train_batch_size"]
        stats = result["learners"][rllib_train.BATCHED_MODULE_ID]
        assert stats["num_module_steps_trained"] > 0
        assert all(np.isfinite(stats[name]) for name in ("policy_loss", "vf_loss", "entropy"))
    printed = capsys.readouterr().out
    assert printed.count(f"saved to {checkpoint}") == 2
    play_whole_games(make_agent(f"rllib:{tmp_path}", ENV_ID, cardenvs.env(ENV_ID).layout), ENV_ID, range(2))
    resumed, _ = train(dataclasses.replace(args, iterations=3, resume=True), print_fn=lambda line: None)
    assert [result["training_iteration"] for result in resumed] == [3]


def test_a_remote_batched_env_runner_samples_for_the_learner(local_ray, tmp_path):
    args = RLlibTrainArgs(env_id=ENV_ID, num_env_runners=1, run_dir=str(tmp_path), **TINY)
    algorithm = build_config(args).build_algo()
    try:
        kinds = algorithm.env_runner_group.foreach_env_runner(lambda runner: type(runner).__name__,
                                                              local_env_runner=False)
        assert kinds == ["BatchedEnvRunner"]
        result = algorithm.train()
    finally:
        algorithm.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= TINY["train_batch_size"]
    assert result["learners"][rllib_train.BATCHED_MODULE_ID]["num_module_steps_trained"] > 0


class UnmaskedActorCritic(MaskedActorCritic):
    """The same networks without the mask: its actions are often illegal."""

    def _forward(self, batch, **kwargs):
        return {Columns.ACTION_DIST_INPUTS: self.network.policy_head(self._trunk(batch))}


def test_an_illegal_action_stops_batched_sampling(local_ray):
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)
    try:
        algorithm = build_config(RLlibTrainArgs(env_id=ENV_ID, **TINY), module_class=UnmaskedActorCritic).build_algo()
        try:
            with pytest.raises(RuntimeError) as error_info:
                algorithm.train()
        finally:
            algorithm.stop()
    finally:
        ray.cloudpickle.unregister_pickle_by_value(module)
    chain, error = [], error_info.value
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(cause, cardenvs.IllegalActionError) for cause in chain)


def test_the_batched_sampler_needs_a_shared_policy():
    with pytest.raises(ValueError, match="--sampler batched plays every seat with one module"):
        RLlibTrainArgs(env_id=ENV_ID, policy="per-seat", sampler="batched").validate()
    assert RLlibTrainArgs(env_id=ENV_ID, policy="per-seat").resolved_sampler == "pettingzoo"
    assert RLlibTrainArgs(env_id=ENV_ID).batch_size == rllib_train.BATCHED_STEPS * 256
    assert RLlibTrainArgs(env_id=ENV_ID, sampler="pettingzoo").batch_size == rllib_train.PETTINGZOO_BATCH


def test_the_learner_options_reach_rllib_s_config():
    config = build_config(RLlibTrainArgs(env_id=ENV_ID, num_learners=2, num_gpus_per_learner=1))
    assert (config.num_learners, config.num_gpus_per_learner) == (2, 1)
    assert config.train_batch_size_per_learner == rllib_train.BATCHED_STEPS * 256
    with pytest.raises(ValueError, match="--num-gpus-per-learner"):
        RLlibTrainArgs(env_id=ENV_ID, num_gpus_per_learner=-1).validate()
