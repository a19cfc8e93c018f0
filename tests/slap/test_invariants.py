"""Random play over thousands of games keeps Slap's invariants (batched env, sampled legal actions)."""

from __future__ import annotations

import pytest

import cardenvs
from cardenvs.games.slap import GAME


def _random_play(
    params: dict, num_envs: int, steps: int, check_every: int, parallel: bool | None = None
) -> tuple[int, int]:
    venv = cardenvs.vector_env("slap_v0", num_envs, parallel=parallel, **params)
    venv.reset(seed=17)
    states = venv.states
    finished = truncated_games = 0
    for step in range(steps):
        _, masks, players, _, terminated, truncated = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all(), "a game's player to act has no legal action"
        assert (players >= 0).all()
        held = states.stack_size.sum(axis=1) + states.pile_size
        assert (held == states.cards_in_play).all(), "cards not accounted for"
        assert (states.cards_played <= states.max_cards_played).all(), "a game ran past max_cards_played"
        finished += int(terminated.sum())
        truncated_games += int(truncated.sum())
        if step % check_every == 0:
            for i in range(num_envs):
                GAME.check_invariants(states[i], venv.params)
    return finished, truncated_games


# The table of four plays on numba's threads (the batched env's choice for 256 games), the others on one thread:
# a game plays the same either way, the other tests compile the one-thread kernels anyway, and a threaded kernel
# per table would only cost compile time.
@pytest.mark.parametrize(("params", "parallel"), [
    pytest.param({"num_players": 2}, False, id="params0"),
    pytest.param({"num_players": 4}, None, id="params1"),
    pytest.param({"num_players": 8}, False, id="params2"),
    pytest.param(
        {"num_players": 3, "jokers": True, "penalty": 2, "slap_tiebreak": "reaction_noise", "drop_remainder": True},
        False, id="params3",
    ),
])
def test_thousands_of_random_games_keep_the_invariants(params, parallel):
    finished, truncated = _random_play(params, num_envs=256, steps=2500, check_every=125, parallel=parallel)
    assert finished + truncated >= 1000


def test_truncation_keeps_games_within_max_cards_played():
    finished, truncated = _random_play({"num_players": 4, "max_cards_played": 40}, 128, 1000, 100)
    assert truncated > 100 and finished > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", [
    {"num_players": 5},
    {"num_players": 6, "windows": "slappable_only", "max_cards_played": 500},  # no burns: long, War-like games
    {"num_players": 2, "expose_play_action": True, "penalty": 0},
])
def test_long_random_play_keeps_the_invariants(params):
    finished, truncated = _random_play(params, num_envs=1024, steps=5_000, check_every=500)
    assert finished + truncated >= 2_000
