"""training/open_chains.py: a learning seat's open chain of decisions waits for the next rollout in its seat's
carry row, where a later reward reaches it, and is left out of the update until then."""

import json

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.selfplay import SelfPlayAgent, load_model
from cardenvs.training import open_chains, runs, selfplay
from cardenvs.training.recipes import Recipe

CARRIED = Recipe(carry_open_chains=True)


def test_open_decisions_move_to_their_seat_s_row_where_a_later_final_reward_reaches_them(tiny_args):
    """At a rollout's start each open chain's latest decision (its rewards so far included) moves to its seat's
    carry row; a reward arriving later, on another seat's move, is credited there. Without carry rows every chain
    closes."""
    trainer = selfplay.Trainer(tiny_args(), CARRIED)
    players, steps, n = trainer.num_players, 3, 2
    carry = trainer.carry
    assert carry == players
    obs = np.zeros((carry + steps, n, 1), np.float32)
    obs[..., 0] = 10 * np.arange(carry + steps)[:, None] + np.arange(n)  # each row and game tells itself apart
    reward = np.zeros((carry + steps, n), np.float32)
    last_decision = np.full((n, players), -1)
    last_decision[0, 1] = carry + 2  # game 0, seat 1: decided at the rollout's last step, game going on
    reward[carry + 2, 0] = 0.25
    last_decision[1, 0] = carry  # game 1, seat 0: decided at the first step, never again
    games, seats = open_chains.carry_over((obs, reward), last_decision, carry)
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
    assert open_chains.carry_over((obs,), closed, 0)[0].size == 0 and (closed == -1).all()


def test_an_open_end_gets_no_advantage_and_its_predecessor_bootstraps_on_its_stored_value(tiny_args):
    trainer = selfplay.Trainer(tiny_args("--gamma", "0.5", "--gae-lambda", "0.5"), CARRIED)
    value = np.array([[0.2], [0.6]], np.float32)
    reward = np.array([[0.1], [0.0]], np.float32)
    used = np.ones((2, 1), bool)
    last_decision = np.full((1, trainer.num_players), -1)
    last_decision[0, 0] = 1  # row 1: the chain's open end, waiting for the next rollout
    open_chains.defer_open_ends(used, last_decision)
    assert used[:, 0].tolist() == [True, False]
    adv = trainer.advantages(value, reward, np.zeros((2, 1), bool), np.array([[1], [-1]]),
                             np.zeros((2, 1), np.int64), used, np.full((1, trainer.num_players), 9.0, np.float32))
    np.testing.assert_allclose(adv[:, 0], [0.1 + 0.5 * 0.6 - 0.2, 0.0], rtol=1e-6)


def test_a_run_that_carries_open_chains_counts_only_new_decisions_and_saves_a_playable_model(tiny_args, tmp_path):
    trainer = selfplay.Trainer(tiny_args("--total-decisions", "200"), CARRIED)
    trainer.train()
    info = json.loads((tmp_path / "run" / runs.MODEL_INFO_NAME).read_text())
    assert 200 <= info["decisions"] < 200 + 8 * 8  # one rollout at most past the budget: carried rows not recounted
    assert info["recipe"]["carry_open_chains"]
    network, _ = load_model(tmp_path / "run" / selfplay.MODEL_NAME)
    venv = cardenvs.vector_env(trainer.args.env_id, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()
