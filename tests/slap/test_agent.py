"""The rule-based Slap agent reads the rules right from the observation and beats random play clearly."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.agents import RandomAgent
from cardenvs.agents.slap import SlapHeuristic, slappable
from cardenvs.games.slap.params import SLAP_RULES
from tests.helpers import rotated_seat_returns

GAMES = 300
Z95 = 1.96


def test_the_agent_sees_a_slappable_pile_exactly_when_the_engine_does():
    for params in ({"num_players": 4}, {"num_players": 3, "jokers": True, "slap_sandwich": False}):
        venv = cardenvs.vector_env("slap_v0", 64, **params)
        venv.reset(seed=3)
        checked = 0
        for _ in range(300):
            obs, *_ = venv.step(venv.sample_actions())
            engine = venv.states.slap_matches != 0
            assert np.array_equal(slappable(venv.layout.split(obs)), engine)
            checked += int(engine.sum())
        assert checked > 100


def test_miss_and_false_slap_rates_do_what_they_say():
    venv = cardenvs.vector_env("slap_v0", 512)
    obs, masks, _ = venv.reset(seed=1)
    for _ in range(20):
        obs, masks, *_ = venv.step(venv.sample_actions())
    hit = slappable(venv.layout.split(obs))
    assert hit.any() and not hit.all()
    perfect = SlapHeuristic(venv.layout).act_batch(obs, masks)
    assert np.array_equal(perfect == 1, hit)
    never = SlapHeuristic(venv.layout, miss_rate=1.0).act_batch(obs, masks)
    assert (never == 0).all()
    always = SlapHeuristic(venv.layout, false_slap_rate=1.0).act_batch(obs, masks)
    assert (always == 1).all()
    sloppy = SlapHeuristic(venv.layout, false_slap_rate=0.5, seed=0).act_batch(obs, masks)
    assert 0.3 < (sloppy[~hit] == 1).mean() < 0.7 and (sloppy[hit] == 1).all()
    assert len(SLAP_RULES) == 7


def _heuristic_rewards(num_players: int, games: int) -> np.ndarray:
    """The heuristic rotates through every seat (seat ``game % num_players``), random players take the others."""
    layout = cardenvs.env("slap_v0", num_players=num_players).unwrapped.layout
    # On one thread whatever the number of games (they play the same on numba's threads): the one-thread kernel
    # compiles in a fraction of the threaded one's time, and the other tests need it anyway.
    return rotated_seat_returns("slap_v0", SlapHeuristic(layout), RandomAgent(seed=1), range(games), parallel=False,
                                num_players=num_players)


def test_heuristic_beats_random_heads_up():
    rewards = _heuristic_rewards(2, GAMES)
    assert len(rewards) == GAMES
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.5, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_heuristic_beats_random_at_a_table_of_four():
    rewards = _heuristic_rewards(4, GAMES)
    # a random player wins a quarter of the games (mean reward −0.5); the heuristic wins most of them
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.0, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"
