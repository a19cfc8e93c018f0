"""training/selfplay.py: the reward credit and GAE along each seat's decisions, a tiny run end to end (checkpoint,
resume, the model loaded as the ``ppo:PATH`` agent), and its argument checks."""

import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from cardenvs.agents.registry import make_agent
from cardenvs.agents.selfplay import SelfPlayAgent, load_model
from cardenvs.training import selfplay

import cardenvs

ENV_ID = "slabberjan_v0"
# A tiny run: 8 games, 8 steps per rollout, a small network, no tournaments unless asked for.
TINY = ["--env-id", ENV_ID, "--num-envs", "8", "--num-steps", "8", "--minibatch-size", "16", "--update-epochs", "1",
        "--hidden", "16", "--no-progress-bar", "--eval-games", "0", "--final-games", "0", "--torch-threads", "1"]


def _trainer(tmp_path, *options: str) -> selfplay.Trainer:
    return selfplay.Trainer(selfplay.resolve(selfplay.parse_args([*TINY, "--run-dir", str(tmp_path), *options])))


def test_gae_runs_along_each_seat_s_chain_and_stops_at_the_game_s_end(tmp_path):
    """Two seats of one game alternate; seat 0's game ends after its second decision (reward +1 credited there);
    seat 1's chain is still open at the end and is bootstrapped with its value then."""
    trainer = _trainer(tmp_path, "--gamma", "0.5", "--gae-lambda", "0.5")
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


def test_rewards_are_credited_to_each_learning_seat_s_latest_decision_and_truncation_pays_its_reward(tmp_path):
    """A reward that reaches a seat on another seat's move goes to that seat's latest decision; an opponent seat
    gets nothing; at a truncation every learning seat's last decision is closed and gets --truncation-reward."""
    trainer = _trainer(tmp_path, "--truncation-reward", "-0.75")
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


def test_carry_open_chains_moves_open_decisions_to_their_seat_s_row_where_a_later_final_reward_reaches_them(tmp_path):
    """--carry-open-chains: at a rollout's start each open chain's latest decision (its rewards so far included)
    moves to its seat's carry row; a reward arriving later, on another seat's move, is credited there. Without
    carry rows every chain closes."""
    trainer = _trainer(tmp_path, "--carry-open-chains")
    players, steps, n = trainer.num_players, 3, 2
    carry = players
    obs = np.zeros((carry + steps, n, 1), np.float32)
    obs[..., 0] = 10 * np.arange(carry + steps)[:, None] + np.arange(n)  # each row and game tells itself apart
    reward = np.zeros((carry + steps, n), np.float32)
    last_decision = np.full((n, players), -1)
    last_decision[0, 1] = carry + 2  # game 0, seat 1: decided at the rollout's last step, game going on
    reward[carry + 2, 0] = 0.25
    last_decision[1, 0] = carry  # game 1, seat 0: decided at the first step, never again
    games, seats = trainer.carry_over((obs, reward), last_decision, carry)
    assert sorted(zip(games.tolist(), seats.tolist(), strict=True)) == [(0, 1), (1, 0)]
    assert obs[1, 0, 0] == 10 * (carry + 2) and reward[1, 0] == 0.25
    assert obs[0, 1, 0] == 10 * carry + 1
    assert last_decision[0, 1] == 1 and last_decision[1, 0] == 0 and (last_decision >= 0).sum() == 2
    done = np.zeros_like(reward, bool)
    learner = np.ones((n, players), bool)
    rewards = np.zeros((n, players), np.float32)
    rewards[0, 1] = -1.0  # game 0 ends on another seat's move; seat 1 learns it lost
    ended = trainer.credit(reward, done, learner, last_decision, rewards, np.array([True, False]), np.zeros(n, bool))
    assert ended.tolist() == [0] and reward[1, 0] == pytest.approx(-0.75) and done[1, 0]
    closed = last_decision.copy()
    assert trainer.carry_over((obs,), closed, 0)[0].size == 0 and (closed == -1).all()


def test_a_deferred_decision_gets_no_advantage_and_its_predecessor_bootstraps_on_its_stored_value(tmp_path):
    trainer = _trainer(tmp_path, "--gamma", "0.5", "--gae-lambda", "0.5", "--carry-open-chains")
    value = np.array([[0.2], [0.6]], np.float32)
    reward = np.array([[0.1], [0.0]], np.float32)
    none = np.zeros((2, 1), bool)
    used = np.array([[True], [False]])  # row 1: the chain's open end, waiting for the next rollout
    adv = trainer.advantages(value, reward, none, np.array([[1], [-1]]), np.zeros((2, 1), np.int64), used,
                             np.full((1, trainer.num_players), 9.0, np.float32))
    np.testing.assert_allclose(adv[:, 0], [0.1 + 0.5 * 0.6 - 0.2, 0.0], rtol=1e-6)


def test_a_run_that_carries_open_chains_counts_only_new_decisions_and_saves_a_playable_model(tmp_path):
    run_dir = tmp_path / "carry"
    assert selfplay.main([*TINY, "--total-decisions", "200", "--carry-open-chains", "--run-dir", str(run_dir)]) == 0
    info = json.loads((run_dir / selfplay.MODEL_INFO_NAME).read_text())
    assert 200 <= info["decisions"] < 200 + 8 * 8  # one rollout at most past the budget: carried rows not recounted
    network, _ = load_model(run_dir / selfplay.MODEL_NAME)
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()


def test_potential_shaping_along_a_seat_s_chain_telescopes_to_the_opening_potential(tmp_path):
    """Each decision gets gamma * potential(next decision of its seat) - potential(its own); 0 after the game's
    end, the potential seen now for an open chain. With gamma 1 a finished chain's shaping sums to -potential(first)."""
    trainer = _trainer(tmp_path, "--shaping-view", "chips", "--shaping-coef", "2", "--gamma", "1")
    start, _ = trainer.layout.offsets["chips"]
    high = next(view.high for view in trainer.layout.views if view.name == "chips")
    obs = np.zeros((4, 1, trainer.layout.size), np.float32)
    obs[:, 0, start] = [3, 1, 2, 4]  # the observer's own chips at each decision
    obs[:, 0, start + 1] = 9  # another seat's chips: no part of the potential
    reward = np.array([[0.0], [0.0], [1.0], [0.0]], np.float32)
    done = np.array([[False], [False], [True], [False]])
    next_step = np.array([[2], [3], [-1], [-1]])
    seat = np.array([[0], [1], [0], [1]])
    bootstrap_potential = np.array([[0.0, 0.5]], np.float32)
    shaped = trainer.shaped_rewards(obs, reward, done, next_step, seat, bootstrap_potential)
    phi = 2 * obs[:, 0, start] / high
    np.testing.assert_allclose(shaped[:, 0], [phi[2] - phi[0], phi[3] - phi[1], 1.0 - phi[2], 0.5 - phi[3]],
                               rtol=1e-6)
    assert shaped[0, 0] + shaped[2, 0] == pytest.approx(1.0 - phi[0])  # seat 0's finished chain
    unshaped = _trainer(tmp_path / "plain")
    assert unshaped.shaped_rewards(obs, reward, done, next_step, seat, bootstrap_potential) is reward


def test_a_relative_shaping_potential_is_the_observer_s_lead_over_the_mean_of_the_others(tmp_path):
    """With --shaping-relative the potential is coef / high * (own entry - mean of the view's other entries)."""
    trainer = _trainer(tmp_path, "--shaping-view", "chips", "--shaping-relative", "--shaping-coef", "2")
    start, stop = trainer.layout.offsets["chips"]
    assert stop - start == 4  # Slabberjan's default table: the observer's chips, then three others'
    high = next(view.high for view in trainer.layout.views if view.name == "chips")
    obs = np.zeros((2, trainer.layout.size), np.float32)
    obs[0, start:stop] = [5, 1, 2, 3]  # a lead of 3 over the others' mean of 2
    obs[1, start:stop] = [0, 3, 3, 0]  # 2 behind
    np.testing.assert_allclose(trainer.potential(obs), [2 * 3 / high, 2 * -2 / high], rtol=1e-6)
    absolute = _trainer(tmp_path / "absolute", "--shaping-view", "chips", "--shaping-coef", "2")
    np.testing.assert_allclose(absolute.potential(obs), [2 * 5 / high, 0.0], rtol=1e-6)


def test_a_shaping_view_must_be_one_of_the_game_s_observation_views():
    with pytest.raises(ValueError, match="--shaping-view 'nope' is not a view of slabberjan_v0's observation"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--shaping-view", "nope"]))
    with pytest.raises(ValueError, match="--shaping-coef must be a finite number"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--shaping-coef", "nan"]))
    with pytest.raises(ValueError, match="--shaping-relative needs a --shaping-view"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--shaping-relative"]))
    with pytest.raises(ValueError, match=r"--shaping-relative compares .* 'pot' has one entry"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--shaping-view", "pot", "--shaping-relative"]))


def test_self_play_games_seat_the_learner_everywhere_and_league_games_split_by_side(tmp_path):
    """In a self-play game every seat is the learner's; in a league game one side (seats ``s % 2``) learns and
    the league agent plays the other, as a two-agent tournament seats them."""
    trainer = _trainer(tmp_path, "--league-share", "0")
    learner = np.zeros((8, trainer.num_players), bool)
    opponent = np.full(8, -1)
    trainer.draw_seating(np.arange(8), learner, opponent, [])
    assert learner.all() and (opponent == -1).all()
    league = _trainer(tmp_path / "league", "--league-share", "1", "--league", "random")
    league.draw_seating(np.arange(8), learner, opponent, ["random"])
    seats = np.arange(trainer.num_players)
    assert (opponent == 0).all()
    for row in learner:  # one side learns, the other is the league's
        assert (row == (seats % 2 == seats[row][0] % 2)).all() and 0 < row.sum() < trainer.num_players


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    code = selfplay.main([*TINY, "--total-decisions", "256", "--snapshot-every", "64", "--checkpoint-every", "64",
                          "--eval-every", "128", "--eval-games", "4", "--final-games", "8", "--run-dir", str(run_dir)])
    assert code == 0
    return run_dir


def test_a_tiny_run_saves_model_checkpoint_curve_and_logs(finished_run):
    info = json.loads((finished_run / selfplay.MODEL_INFO_NAME).read_text())
    assert info["env_id"] == ENV_ID and info["decisions"] >= 256
    assert info["command"].startswith("python -m cardenvs.training.selfplay --env-id slabberjan_v0")
    assert info["evaluations"] and all(-1 <= point["mean_reward"] <= 1 for point in info["evaluations"])
    assert set(info["time_shares"]) == set(selfplay.Timers.PARTS)
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


def test_resume_continues_from_the_checkpoint_with_nothing_lost(tmp_path):
    run_dir = tmp_path / "run"
    first = [*TINY, "--total-decisions", "128", "--checkpoint-every", "64", "--run-dir", str(run_dir)]
    assert selfplay.main(first) == 0
    saved = torch.load(run_dir / selfplay.CHECKPOINT_NAME, weights_only=False)
    assert selfplay.main(first) == selfplay.EXIT_USAGE  # an existing run is never overwritten without --resume
    args = selfplay.resolve(dataclasses.replace(selfplay.parse_args(first), resume=True, total_decisions=384))
    trainer = selfplay.Trainer(args)
    assert trainer.resumed and trainer.decisions == saved["decisions"] and trainer.updates == saved["updates"]
    for name, value in saved["network"].items():
        torch.testing.assert_close(trainer.network.state_dict()[name], value)
    assert trainer.optimizer.state_dict()["state"], "the optimizer's moments come back too"
    trainer.train()
    assert trainer.decisions >= 384
    assert torch.load(run_dir / selfplay.CHECKPOINT_NAME, weights_only=False)["decisions"] == trainer.decisions


def test_resume_needs_a_run_and_keeps_the_fixed_options(tmp_path, capsys):
    run_dir = str(tmp_path / "run")
    assert selfplay.main([*TINY, "--run-dir", run_dir, "--resume"]) == selfplay.EXIT_USAGE
    assert "holds no run" in capsys.readouterr().err
    assert selfplay.main([*TINY, "--total-decisions", "64", "--run-dir", run_dir]) == 0
    assert selfplay.main(["--run-dir", run_dir, "--resume", "--hidden", "32"]) == selfplay.EXIT_USAGE
    assert "--hidden cannot change when resuming" in capsys.readouterr().err


@pytest.mark.parametrize(("options", "message"), [
    (["--learning-rate", "-1"], "--learning-rate must be a positive number"),
    (["--gamma", "1.5"], "--gamma must be in [0, 1]"),
    (["--num-envs", "0"], "--num-envs must be at least 1"),
    (["--league", "nobody"], "unknown agent 'nobody'"),
    (["--league", "human"], "a human cannot play training games"),
    (["--league", "ppo:/missing.pt"], "nothing at /missing.pt"),
])
def test_bad_options_exit_with_one_line_before_anything_is_built(tmp_path, capsys, options, message):
    run_dir = tmp_path / "run"
    assert selfplay.main([*TINY, "--run-dir", str(run_dir), *options]) == selfplay.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not run_dir.exists()


def test_a_malformed_value_exits_with_code_2(tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        selfplay.main([*TINY, "--run-dir", str(tmp_path / "run"), "--num-envs", "many"])
    assert exit_info.value.code == selfplay.EXIT_USAGE


@pytest.mark.parametrize(("critic", "shaping"), [("global", "chips"), ("observation", "")])
def test_either_critic_trains_and_its_model_plays(tmp_path, critic, shaping):
    run_dir = tmp_path / critic
    assert selfplay.main([*TINY, "--total-decisions", "64", "--critic", critic, "--shaping-view", shaping,
                          "--run-dir", str(run_dir)]) == 0
    network, info = load_model(run_dir / selfplay.MODEL_NAME)
    assert info["critic"] == critic and network.central == (critic == "global")
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    actions = SelfPlayAgent(network).act_batch(obs, masks)
    assert masks[np.arange(4), actions].all()


def test_an_auxiliary_view_trains_a_head_the_playing_agent_never_needs(tmp_path):
    """--aux-view adds a head predicting a global-state view; the saved model loads with it and plays from the
    observation alone, and the head's loss falls when only it is trained on fixed targets."""
    run_dir = tmp_path / "aux"
    assert selfplay.main([*TINY, "--total-decisions", "64", "--aux-view", "pieces", "--run-dir", str(run_dir)]) == 0
    network, _ = load_model(run_dir / selfplay.MODEL_NAME)
    assert network.aux_head.out_features == _state_view_size("pieces")
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()
    trainer = _trainer(tmp_path / "fit", "--aux-view", "pieces", "--aux-coef", "1", "--vf-coef", "0",
                       "--ent-coef", "0", "--update-epochs", "20")
    size = trainer.network.aux_head.out_features
    rows = 32
    target = np.random.default_rng(0).integers(0, 2, (rows, size)).astype(np.float32)
    zeros = np.zeros(rows, np.float32)
    mask = np.ones((rows, venv.num_actions), bool)
    actions = np.zeros(rows, np.int64)
    first = trainer.update(obs[:1].repeat(rows, 0), mask, np.zeros((rows, 0), np.float32), actions, zeros, zeros,
                           zeros, time.monotonic(), target)
    last = trainer.update(obs[:1].repeat(rows, 0), mask, np.zeros((rows, 0), np.float32), actions, zeros, zeros,
                          zeros, time.monotonic(), target)
    assert last["aux_loss"] < first["aux_loss"]


def test_aux_to_policy_feeds_the_head_s_predictions_to_the_policy_which_sends_no_gradient_back(tmp_path):
    """--aux-to-policy: the policy head reads the auxiliary predictions, the saved model keeps that wiring, and
    the policy loss leaves the auxiliary head untouched (only the auxiliary loss teaches it)."""
    run_dir = tmp_path / "wired"
    assert selfplay.main([*TINY, "--total-decisions", "64", "--aux-view", "pieces", "--aux-to-policy",
                          "--run-dir", str(run_dir)]) == 0
    network, info = load_model(run_dir / selfplay.MODEL_NAME)
    size = _state_view_size("pieces")
    assert info["aux_to_policy"] and network.aux_to_policy
    assert network.policy_head.in_features == network.aux_head.in_features + size
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    obs_t, mask_t = torch.as_tensor(obs), torch.as_tensor(masks) != 0
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()
    # the policy depends on the auxiliary head: changing only that head changes the logits
    before = network.policy_logits(obs_t, mask_t).detach().clone()
    with torch.no_grad():
        network.aux_head.bias += 3.0
    assert not torch.allclose(network.policy_logits(obs_t, mask_t), before)
    network.zero_grad()
    logits, value, _ = network.forward_aux(obs_t, mask_t)
    (torch.log_softmax(logits, dim=1).masked_fill(~mask_t, 0).sum() + value.sum()).backward()
    assert network.aux_head.weight.grad is None or not network.aux_head.weight.grad.any()
    assert network.policy_head.weight.grad.any()


def test_several_auxiliary_views_are_predicted_together_in_the_order_given(tmp_path):
    """--aux-view A B: one head predicts both views' entries, A's then B's, read from the global state."""
    from cardenvs.core.global_state import state_layout

    trainer = _trainer(tmp_path / "two", "--aux-view", "out_order", "pot")
    game = cardenvs.get_game(ENV_ID)
    offsets = state_layout(game, game.make_params()).offsets
    expected = [*range(*offsets["out_order"]), *range(*offsets["pot"])]
    assert trainer.aux_index.tolist() == [expected] * trainer.num_players  # the same for every deciding seat
    assert trainer.network.aux_head.out_features == len(expected)
    run_dir = tmp_path / "run"
    assert selfplay.main([*TINY, "--total-decisions", "64", "--aux-view", "out_order", "pot", "--aux-to-policy",
                          "--run-dir", str(run_dir)]) == 0
    network, _ = load_model(run_dir / selfplay.MODEL_NAME)
    assert network.aux_head.out_features == len(expected)
    with pytest.raises(ValueError, match="--aux-view names a view twice: pot pot"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-view", "pot", "pot"]))


def test_a_seat_view_is_turned_to_start_at_the_deciding_seat(tmp_path):
    """--aux-seat-views: a view laid out by seat is predicted from the deciding seat's side of the table (its own
    block first, then the next seat's), as its observation's seat blocks are; other views are left as they are."""
    from cardenvs.core.global_state import state_layout

    trainer = _trainer(tmp_path / "turned", "--aux-view", "pot", "out_order", "--aux-seat-views", "out_order")
    game = cardenvs.get_game(ENV_ID)
    offsets = state_layout(game, game.make_params()).offsets
    pot, (first, stop) = offsets["pot"][0], offsets["out_order"]
    width = (stop - first) // trainer.num_players
    for seat in range(trainer.num_players):
        turned = [first + ((seat + k) % trainer.num_players) * width + e
                  for k in range(trainer.num_players) for e in range(width)]
        assert trainer.aux_index[seat].tolist() == [pot, *turned]
    run_dir = tmp_path / "run"
    assert selfplay.main([*TINY, "--total-decisions", "64", "--aux-view", "out_order", "--aux-seat-views", "out_order",
                          "--run-dir", str(run_dir)]) == 0
    with pytest.raises(ValueError, match="--aux-seat-views 'out_order' is not one of the --aux-view views"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-view", "pot", "--aux-seat-views", "out_order"]))
    with pytest.raises(ValueError, match="--aux-seat-views 'pot' has 1 entries, not a block per seat"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-view", "pot", "--aux-seat-views", "pot"]))


def test_a_turned_seat_view_sees_the_table_as_the_deciding_seat_does(tmp_path):
    """Clabber's hands, turned to a deciding seat, start with the hand that seat's observation shows."""
    args = selfplay.resolve(selfplay.parse_args([*TINY, "--env-id", "clabber_v0", "--aux-view", "hands",
                                                 "--aux-seat-views", "hands", "--run-dir", str(tmp_path)]))
    trainer = selfplay.Trainer(args)
    venv = trainer.venv
    own_hand = slice(*venv.layout.offsets["own_hand"])
    obs, masks, seats = venv.reset(seed=3)
    for _ in range(20):
        deciding = np.flatnonzero(seats >= 0)
        targets = venv.global_states()[deciding[:, None], trainer.aux_index[seats[deciding]]] * trainer.aux_scale
        np.testing.assert_array_equal(targets[:, :own_hand.stop - own_hand.start], obs[deciding, own_hand])
        obs, masks, seats, *_ = venv.step(masks.argmax(axis=1))


@pytest.mark.parametrize(("stored", "read"), [("pot", ["pot"]), ("", [])])
def test_a_run_stored_with_one_auxiliary_view_name_resumes(tmp_path, stored, read):
    """Runs stored before --aux-view took several views hold one name (or "" for none) in run.json."""
    run_dir = tmp_path / "run"
    views = ["--aux-view", stored] if stored else []
    assert selfplay.main([*TINY, "--total-decisions", "64", *views, "--run-dir", str(run_dir)]) == 0
    run_json = run_dir / "run.json"
    saved = json.loads(run_json.read_text())
    saved["aux_view"] = stored
    run_json.write_text(json.dumps(saved))
    args = selfplay.settle_args(["--run-dir", str(run_dir), "--resume", "--total-decisions", "128"])
    assert args.aux_view == read and args.resume
    assert selfplay.main(["--run-dir", str(run_dir), "--resume", "--total-decisions", "128"]) == 0


def test_aux_to_policy_needs_an_auxiliary_view():
    with pytest.raises(ValueError, match="--aux-to-policy needs an --aux-view"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-to-policy"]))


def _state_view_size(name: str) -> int:
    from cardenvs.core.global_state import state_layout

    game = cardenvs.get_game(ENV_ID)
    return next(view.size for view in state_layout(game, game.make_params()).views if view.name == name)


def test_an_auxiliary_view_must_be_one_of_the_global_state_s_views():
    with pytest.raises(ValueError, match="--aux-view 'nope' is not a view of slabberjan_v0's global state"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-view", "nope"]))
    with pytest.raises(ValueError, match="--aux-coef must be 0 or more"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-coef", "-1"]))
    with pytest.raises(ValueError, match="--aux-balance must be 1 or more"):
        selfplay.resolve(selfplay.parse_args([*TINY, "--aux-balance", "0.5"]))


def test_the_learning_rate_anneals_to_zero_and_the_entropy_weight_with_it_under_ent_anneal(tmp_path):
    options = ["--total-decisions", "100", "--learning-rate", "0.002", "--ent-coef", "0.02"]
    annealed = _trainer(tmp_path / "annealed", *options, "--ent-anneal")
    constant = _trainer(tmp_path / "constant", *options)
    for trainer in (annealed, constant):
        trainer.decisions = 75
    assert annealed.schedule(time.monotonic()) == pytest.approx((0.0005, 0.005))
    assert constant.schedule(time.monotonic()) == pytest.approx((0.0005, 0.02))


def test_aux_balance_weighs_a_rare_target_by_its_zeros_over_its_non_zeros_up_to_the_cap():
    """Columns: one non-zero in eight, seven in eight, never non-zero, one (fractional) in eight."""
    target = torch.zeros(8, 4)
    target[0, 0] = 1.0
    target[1:, 1] = 1.0
    target[2, 3] = 0.5
    weights = selfplay.aux_positive_weights(target, 5.0)
    assert weights.tolist() == [5.0, 1.0, 5.0, 5.0]
    assert selfplay.aux_positive_weights(target, 100.0).tolist() == [7.0, 1.0, 8.0, 7.0]
    assert selfplay.aux_positive_weights(target, 1.0).tolist() == [1.0, 1.0, 1.0, 1.0]


CHECKPOINTS_DIR = Path(__file__).resolve().parents[2] / "agents" / "checkpoints"
CHECKPOINTS = sorted(CHECKPOINTS_DIR.glob("*.pt"))
#: committed models stay small (Gin Slaughtre's 420 actions make the largest)
MAX_MODEL_BYTES = 1_500_000


def test_every_game_has_a_committed_agent():
    assert [path.stem for path in CHECKPOINTS] == sorted(cardenvs.available_envs())


@pytest.mark.parametrize("path", CHECKPOINTS, ids=[p.stem for p in CHECKPOINTS])
def test_committed_agents_load_for_their_game_and_act_legally(path):
    env_id = path.stem
    info = json.loads(path.with_suffix(".json").read_text())
    assert info["env_id"] == env_id and info["trainer"] == "training/selfplay.py"
    assert [match["agents"] for match in info["tournament"]["matches"]] == [["trained", "heuristic"],
                                                                             ["trained", "random"]]
    assert path.stat().st_size < MAX_MODEL_BYTES
    venv = cardenvs.vector_env(env_id, 16)
    agent = make_agent(f"ppo:{path}", env_id, venv.layout)
    observations, masks, _ = venv.reset(seed=1)
    for _ in range(10):
        actions = agent.act_batch(observations, masks)
        assert masks[np.arange(16), actions].all()
        observations, masks, *_ = venv.step(actions)


def test_an_update_whose_last_minibatch_holds_one_decision_keeps_the_weights_finite(tmp_path):
    trainer = _trainer(tmp_path, "--minibatch-size", "16")
    samples = 17  # one full minibatch and one of a single decision
    rng = np.random.default_rng(0)
    size, num_actions = trainer.layout.size, trainer.venv.num_actions
    mask = np.ones((samples, num_actions), bool)
    trainer.update(rng.random((samples, size), np.float32), mask, np.zeros((samples, 0), np.float32),
                   rng.integers(0, num_actions, samples), np.full(samples, -np.log(num_actions), np.float32),
                   np.zeros(samples, np.float32), rng.standard_normal(samples).astype(np.float32), time.monotonic())
    assert all(torch.isfinite(value).all() for value in trainer.network.state_dict().values())
