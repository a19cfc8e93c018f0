"""Compiled helpers that several games' engines share."""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import NO_PLAYER

#: reward of the offender under the default illegal-action penalty (PettingZoo classic's convention)
ILLEGAL_ACTION_REWARD = -1.0


@njit(cache=True)
def end_with_penalty(state, player):
    """The default illegal-action penalty: ``player`` gets −1, everyone else 0, and the game ends."""
    state.rewards[:] = 0.0
    state.rewards[player] = ILLEGAL_ACTION_REWARD
    state.terminated = True
    state.current_player = NO_PLAYER
    state.step_count += 1
