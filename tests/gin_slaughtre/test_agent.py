"""The rule-based Gin Slaughtre agent beats random play by a clear, significant margin."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.base import RandomAgent
from cardenvs.agents.gin_slaughtre import GinSlaughtreHeuristic
from cardenvs.games.gin_slaughtre import GAME
from tests.helpers import rotated_seat_returns, share_ended_by_rules

GAMES = 200
Z99 = 2.58


def _heuristic_rewards(games: int, **params) -> np.ndarray:
    """The heuristic plays both seats in turn (seat ``game % 2``), a random player the other."""
    layout = cardenvs.env("gin_slaughtre_v0", **params).unwrapped.layout
    return rotated_seat_returns(
        "gin_slaughtre_v0", GinSlaughtreHeuristic(layout), RandomAgent(seed=1), range(games), **params
    )


def test_heuristic_beats_random():
    rewards = _heuristic_rewards(GAMES)
    assert len(rewards) == GAMES
    mean, half_width = rewards.mean(), Z99 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    # a random player against random play averages 0; the heuristic wins the great majority of games
    assert mean - half_width > 0.5, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_heuristic_beats_random_with_downcards_and_pairs():
    rewards = _heuristic_rewards(GAMES // 2, num_downcards=3, min_set_size=2)
    mean, half_width = rewards.mean(), Z99 * rewards.std(ddof=1) / np.sqrt(len(rewards))
    assert mean - half_width > 0.3, f"heuristic mean reward {mean:.3f} ± {half_width:.3f}"


def test_batched_and_single_decisions_agree():
    venv = cardenvs.vector_env("gin_slaughtre_v0", 64)
    heuristic = GinSlaughtreHeuristic(venv.layout)
    obs, masks, _ = venv.reset(seed=4)
    for _ in range(50):
        batch = heuristic.act_batch(obs, masks)
        single = [heuristic.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
        assert batch.tolist() == single and masks[np.arange(64), batch].all()
        obs, masks, *_ = venv.step(batch)


MIRROR_GAMES = 200
MIRROR_ENDED = 0.93  # measured 97–99% over 1000 seeds per parameter set; before the Joker rule 25–54%


@pytest.mark.parametrize("params", GAME.example_params, ids=lambda params: ",".join(params) or "default")
def test_two_heuristics_finish_their_games(params):
    # thrown on every big pile, the Joker bounced between two copies until the turn limit (pile ping-pong)
    ended = share_ended_by_rules("gin_slaughtre_v0", GinSlaughtreHeuristic, MIRROR_GAMES, **params)
    assert ended >= MIRROR_ENDED, ended
