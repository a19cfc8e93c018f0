"""Random playouts, compiled: games played to their end by uniformly random legal actions, in one kernel call.

Search agents (:mod:`cardenvs.agents.search`) value a position by playing it out many times. With a policy in
Python every step of a batch is a round trip through the interpreter; with the uniformly random policy the whole
playout stays in compiled code, at engine speed, on numba's threads. The random actions are drawn from each
record's own generator (the search agents reseed every copy first), so a playout depends only on its record.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardenvs.core.dispatch import engine_legal_mask, engine_step
from cardenvs.core.rng import rand_below
from cardenvs.core.single import engine_view


@njit(cache=True)
def _play_out(state, first_action, max_decisions, mask, returns):
    """Play ``first_action``, then random legal actions to the end or until ``max_decisions`` more were taken
    (negative: no limit); add every seat's rewards to ``returns``."""
    engine_step(state, first_action)
    returns[:] += state.rewards
    taken = 0
    while not (state.terminated or state.truncated) and (max_decisions < 0 or taken < max_decisions):
        taken += 1
        engine_legal_mask(state, mask)
        pick = rand_below(state, mask.sum())
        for action in range(mask.shape[0]):
            if mask[action]:
                if pick == 0:
                    engine_step(state, action)
                    break
                pick -= 1
        returns[:] += state.rewards


@njit(cache=True, parallel=True)
def _play_out_all(states, first_actions, max_decisions, masks, returns):
    for i in prange(states.shape[0]):
        _play_out(states[i], first_actions[i], max_decisions, masks[i], returns[i])


def random_playouts(
    records: np.ndarray, first_actions: np.ndarray, num_actions: int, max_decisions: int = -1
) -> np.ndarray:
    """Each seat's return over the playout of each record, float64 ``[R, P]``.

    Args:
        records: games in progress (a structured array of one game's record type; played out in place, so pass a
            copy you do not need), each with a generator state of its own.
        first_actions: a legal action per record, played first.
        num_actions: the game's number of actions (the legal mask's size).
        max_decisions: stop after this many random decisions past the first action (negative: play to the end);
            the records of games not over then hold where they stopped.
    """
    returns = np.zeros((len(records), records.dtype["rewards"].shape[0]))
    masks = np.zeros((len(records), num_actions), np.int8)
    _play_out_all(engine_view(records), np.asarray(first_actions, np.int64), int(max_decisions), masks, returns)
    return returns
