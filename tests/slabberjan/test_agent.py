"""The rule-based Slabberjan agent beats random play by a clear margin."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.agents import RandomAgent
from cardenvs.agents.slabberjan import SlabberjanHeuristic
from tests.helpers import rotated_seat_returns

GAMES = 600
Z95 = 1.96


def _heuristic_rewards(num_players: int, games: int) -> np.ndarray:
    """The heuristic rotates through every seat (seat ``game % num_players``), random players take the others."""
    layout = cardenvs.env("slabberjan_v0", num_players=num_players).unwrapped.layout
    # On one thread whatever the number of games (they play the same on numba's threads): the one-thread kernel
    # compiles in a fraction of the threaded one's time, and the other tests need it anyway.
    return rotated_seat_returns("slabberjan_v0", SlabberjanHeuristic(layout), RandomAgent(seed=1), range(games),
                                parallel=False, num_players=num_players)


def test_heuristic_beats_random_heads_up():
    rewards = _heuristic_rewards(2, GAMES)
    assert len(rewards) == GAMES
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.3, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_heuristic_beats_random_at_a_table_of_four():
    rewards = _heuristic_rewards(4, GAMES)
    # a random player wins a quarter of the games (mean reward −0.5); the heuristic wins over half
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.0, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"
