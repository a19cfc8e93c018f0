"""training/shaping.py: the potential of an observation, and the shaped rewards along each seat's chain."""

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.selfplay import SelfPlayAgent
from cardenvs.training import selfplay
from cardenvs.training.recipes import Recipe
from cardenvs.training.shaping import Potential, Shaping

ENV_ID = "slabberjan_v0"


def _layout():
    return cardenvs.vector_env(ENV_ID, num_envs=1).layout


def test_shaping_along_a_seat_s_chain_telescopes_to_the_opening_potential():
    """Each decision gets gamma * potential(next decision of its seat) - potential(its own); 0 after the game's
    end, the potential seen now for an open chain. With gamma 1 a finished chain's shaping sums to -potential(first)."""
    layout = _layout()
    potential = Potential(Shaping("chips", coef=2.0), layout, gamma=1.0)
    start, _ = layout.offsets["chips"]
    high = next(view.high for view in layout.views if view.name == "chips")
    obs = np.zeros((4, 1, layout.size), np.float32)
    obs[:, 0, start] = [10, 20, 30, 40]
    reward = np.array([[0.0], [0.0], [1.0], [0.0]], np.float32)
    done = np.array([[False], [False], [True], [False]])
    next_step = np.array([[2], [3], [-1], [-1]])
    seat = np.array([[0], [1], [0], [1]])
    bootstrap_potential = np.array([[0.0, 0.5]], np.float32)
    shaped = potential.rewards(obs, reward, done, next_step, seat, bootstrap_potential)
    phi = 2 * obs[:, 0, start] / high
    np.testing.assert_allclose(shaped[:, 0], [phi[2] - phi[0], phi[3] - phi[1], 1.0 - phi[2], 0.5 - phi[3]],
                               rtol=1e-6)
    assert shaped[0, 0] + shaped[2, 0] == pytest.approx(1.0 - phi[0])  # seat 0's finished chain
    assert reward[:, 0].tolist() == [0.0, 0.0, 1.0, 0.0]  # the game's own rewards are left alone


def test_a_relative_potential_is_the_observer_s_lead_over_the_mean_of_the_others():
    layout = _layout()
    start, stop = layout.offsets["chips"]
    assert stop - start == 4  # Slabberjan's default table: the observer's chips, then three others'
    high = next(view.high for view in layout.views if view.name == "chips")
    obs = np.zeros((2, layout.size), np.float32)
    obs[0, start:stop] = [5, 1, 2, 3]  # a lead of 3 over the others' mean of 2
    obs[1, start:stop] = [0, 3, 3, 0]  # 2 behind
    relative = Potential(Shaping("chips", coef=2.0, relative=True), layout, gamma=0.9)
    np.testing.assert_allclose(relative(obs), [2 * 3 / high, 2 * -2 / high], rtol=1e-6)
    absolute = Potential(Shaping("chips", coef=2.0), layout, gamma=0.9)
    np.testing.assert_allclose(absolute(obs), [2 * 5 / high, 0.0], rtol=1e-6)


def test_a_shaping_view_must_be_one_of_the_game_s_observation_views():
    layout = _layout()
    with pytest.raises(ValueError, match="shaping view 'nope' is not a view of the observation"):
        Potential(Shaping("nope"), layout, 0.9)
    with pytest.raises(ValueError, match="must be a finite number"):
        Shaping("chips", coef=float("nan")).check(layout, ENV_ID)
    with pytest.raises(ValueError, match=r"relative shaping compares .* 'pot' has one entry"):
        Shaping("pot", relative=True).check(layout, ENV_ID)


def test_the_trainer_shapes_its_rewards_by_the_recipe_and_its_model_plays(tiny_args, tmp_path):
    """A trainer whose recipe shapes on Slabberjan's chips: the shaped rewards differ from the game's, the run
    trains to the end and its model plays legally."""
    args = tiny_args("--total-decisions", "64")
    trainer = selfplay.Trainer(args, Recipe(shaping=Shaping("chips", coef=4.0)))
    assert trainer.potential is not None and trainer.potential.shaping.view == "chips"
    seen = []
    rewards = trainer.potential.rewards

    def recorded(obs, reward, *rest):
        seen.append((reward.copy(), rewards(obs, reward, *rest)))
        return seen[-1][1]

    trainer.potential.rewards = recorded
    trainer.train()
    assert seen and any(not np.array_equal(game, shaped) for game, shaped in seen)
    venv = cardenvs.vector_env(ENV_ID, num_envs=4)
    obs, masks, _ = venv.reset(seed=0)
    played = SelfPlayAgent.load(tmp_path / "run" / selfplay.MODEL_NAME, ENV_ID, venv.layout).act_batch(obs, masks)
    assert masks[np.arange(4), played].all()
