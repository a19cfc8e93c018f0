"""training/auxiliary.py: the auxiliary head's targets, its positive-weight balance, its loss in the trainer's
update, and the policy that reads its predictions (aux-to-policy)."""

import time

import numpy as np
import pytest
import torch

import cardenvs
from cardenvs.agents.selfplay import MaskedActorCritic, SelfPlayAgent, load_model
from cardenvs.core.global_state import state_layout
from cardenvs.training import selfplay
from cardenvs.training.auxiliary import Auxiliary, AuxiliaryTask, positive_weights
from cardenvs.training.recipes import Recipe

ENV_ID = "slabberjan_v0"


def _offsets():
    game = cardenvs.get_game(ENV_ID)
    return state_layout(game, game.make_params()).offsets


def test_the_views_are_predicted_together_in_the_order_given_over_their_upper_bounds():
    """Auxiliary(A, B): one head predicts both views' entries, A's then B's, read from the global state and
    scaled to [0, 1]."""
    venv = cardenvs.vector_env(ENV_ID, num_envs=6)
    task = AuxiliaryTask(Auxiliary(("out_order", "pot")), ENV_ID, venv.params)
    offsets = _offsets()
    assert task.index.tolist() == [*range(*offsets["out_order"]), *range(*offsets["pot"])]
    venv.reset(seed=2)
    states = venv.global_states()
    rows = np.array([4, 1])
    targets = task.targets(states, rows)
    assert targets.shape == (2, task.size)
    np.testing.assert_allclose(targets, states[rows][:, task.index] * task.scale)
    assert targets.min() >= 0 and targets.max() <= 1


def test_a_task_must_name_distinct_views_of_the_global_state_and_a_balance_of_at_least_1():
    with pytest.raises(ValueError, match="auxiliary view 'nope' is not a view of slabberjan_v0's global state"):
        Auxiliary(("nope",)).check(ENV_ID)
    with pytest.raises(ValueError, match="name a view twice: pot pot"):
        Auxiliary(("pot", "pot")).check(ENV_ID)
    with pytest.raises(ValueError, match="balance must be 1 or more"):
        Auxiliary(("pot",), balance=0.5).check(ENV_ID)


def test_the_balance_weighs_a_rare_target_by_its_zeros_over_its_non_zeros_up_to_the_cap():
    """Columns: one non-zero in eight, seven in eight, never non-zero, one (fractional) in eight."""
    target = torch.zeros(8, 4)
    target[0, 0] = 1.0
    target[1:, 1] = 1.0
    target[2, 3] = 0.5
    assert positive_weights(target, 5.0).tolist() == [5.0, 1.0, 5.0, 5.0]
    assert positive_weights(target, 100.0).tolist() == [7.0, 1.0, 8.0, 7.0]
    assert positive_weights(target, 1.0).tolist() == [1.0, 1.0, 1.0, 1.0]


def test_the_trainer_s_head_learns_its_targets_and_the_saved_model_plays_without_them(tiny_args, tmp_path):
    """With a recipe's auxiliary task the network has the head, the update reports its loss, which falls when
    the update is fed fixed targets, and the saved model plays from the observation alone."""
    args = tiny_args("--total-decisions", "64")
    trainer = selfplay.Trainer(args, Recipe(auxiliary=Auxiliary(("pieces",))))
    size = trainer.network.aux_head.out_features
    assert size == trainer.aux.size == len(range(*_offsets()["pieces"]))
    trainer.train()
    network, info = load_model(tmp_path / "run" / selfplay.MODEL_NAME)
    assert network.aux_head.out_features == size and not info["aux_to_policy"]
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()
    fit = selfplay.Trainer(tiny_args("--vf-coef", "0", "--ent-coef", "0", "--update-epochs", "20",
                                     run_dir=tmp_path / "fit"), Recipe(auxiliary=Auxiliary(("pieces",))))
    rows = 32
    target = np.random.default_rng(0).integers(0, 2, (rows, size)).astype(np.float32)
    zeros = np.zeros(rows, np.float32)
    batch = (obs[:1].repeat(rows, 0), np.ones((rows, venv.num_actions), bool), np.zeros(rows, np.int64), zeros,
             zeros, zeros)
    first = fit.update(*batch, time.monotonic(), target)
    last = fit.update(*batch, time.monotonic(), target)
    assert last["aux_loss"] < first["aux_loss"]


def test_aux_to_policy_feeds_the_head_s_predictions_to_the_policy_which_sends_no_gradient_back(tiny_args, tmp_path):
    """The policy head reads the auxiliary predictions, the saved model keeps that wiring, and the policy loss
    leaves the auxiliary head untouched (only the auxiliary loss teaches it)."""
    trainer = selfplay.Trainer(tiny_args("--total-decisions", "64"),
                               Recipe(auxiliary=Auxiliary(("pieces",), to_policy=True)))
    trainer.train()
    network, info = load_model(tmp_path / "run" / selfplay.MODEL_NAME)
    assert info["aux_to_policy"] and network.aux_to_policy
    assert network.policy_head.in_features == network.aux_head.in_features + network.aux_head.out_features
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    obs_t, mask_t = torch.as_tensor(obs), torch.as_tensor(masks) != 0
    assert masks[np.arange(4), SelfPlayAgent(network).act_batch(obs, masks)].all()
    before = network.policy_logits(obs_t, mask_t).detach().clone()
    with torch.no_grad():
        network.aux_head.bias += 3.0  # only the head changes: the policy's logits follow
    assert not torch.allclose(network.policy_logits(obs_t, mask_t), before)
    network.zero_grad()
    logits, value, _ = network.forward_aux(obs_t, mask_t)
    (torch.log_softmax(logits, dim=1).masked_fill(~mask_t, 0).sum() + value.sum()).backward()
    assert network.aux_head.weight.grad is None or not network.aux_head.weight.grad.any()
    assert network.policy_head.weight.grad.any()


def test_aux_to_policy_needs_a_head():
    with pytest.raises(ValueError, match="aux_to_policy needs an auxiliary head"):
        MaskedActorCritic(np.ones(3, np.float32), 2, [4], aux_to_policy=True)
