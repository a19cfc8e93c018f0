"""The rule-based Clabber agent, partnered with itself, beats a team of random players by a clear margin."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.agents import RandomAgent
from cardenvs.agents.clabber import ClabberHeuristic
from cardenvs.games.clabber.cards import card_id
from cardenvs.games.clabber.rules import ACCEPT, DECLARE, PASS
from tests.helpers import play_first_games

Z95 = 1.96
NUM_SEATS = 4


def _heuristic_team_rewards(games: int, **params) -> np.ndarray:
    """The heuristic plays both seats of one team (alternating teams), random players the other.

    The games run on one thread whatever their number (they play the same on numba's threads): the one-thread
    kernel compiles in a fraction of the threaded one's time, and the other tests need it anyway.
    """
    layout = cardenvs.env("clabber_v0", **params).unwrapped.layout
    teams = np.arange(games) % 2
    seating = np.where(np.arange(NUM_SEATS) % 2 == teams[:, None], 0, 1)  # agent 0: the heuristic
    returns, _ = play_first_games(
        "clabber_v0", [ClabberHeuristic(layout), RandomAgent(seed=1)], seating, range(1000, 1000 + games),
        parallel=False, **params,
    )
    return returns[np.arange(games), teams]


def test_heuristic_team_wins_points_hand_after_hand():
    rewards = _heuristic_team_rewards(600, single_hand=True)
    assert len(rewards) == 600
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    # a random team against a random team averages 0; the heuristic team gains ~45 points (0.28) a hand
    assert mean - half_width > 0.15, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_heuristic_team_wins_games_to_500():
    rewards = _heuristic_team_rewards(80)
    mean, half_width = rewards.mean(), Z95 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.3, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_heuristic_bids_on_trump_strength_and_declares():
    env = cardenvs.env("clabber_v0", optional_declare=True)
    heuristic = ClabberHeuristic(env.unwrapped.layout)
    strong = {"dealer": 3, "hands": [["JS", "9S", "AS", "10S", "AH", "KC"], ["AC", "QC", "JC", "10C", "9C", "AD"],
                                     ["KD", "QD", "JD", "10D", "9D", "KH"], ["KS", "QS", "QH", "JH", "10H", "9H"]],
              "turn_up": "KS"}
    env.reset(seed=0, options={"deal": strong})
    assert heuristic.act(env.observe("player_0")) == ACCEPT
    weak = dict(strong, hands=[strong["hands"][1], strong["hands"][0], *strong["hands"][2:]])
    env.reset(seed=0, options={"deal": weak})
    assert heuristic.act(env.observe("player_0")) == PASS
    env.reset(seed=0, options={"deal": strong})
    env.step(ACCEPT)
    assert heuristic.act(env.observe("player_0")) == DECLARE  # J-10-9 of spades
    env.step(DECLARE)
    assert heuristic.act(env.observe("player_0")) == card_id("JS")  # leads the master trump to draw trumps
