"""Carried open chains for the self-play trainer, a recipe's extension.

Each learning seat's decisions form a chain; a chain still open at the end of a rollout is normally bootstrapped
with the value of what its seat sees then. A seat that stops deciding long before its game ends (out of Slap for
good, while the others play on) sees what the value never learns, and its final reward comes rollouts later. With
carried chains the rollout buffer starts with one row per seat: at a rollout's start each open chain's latest
decision (its rewards so far included) moves to its seat's row and waits there, learned from once the seat decides
again or its game ends (PPO's ratio still against the probability it was sampled with); the decision before it
bootstraps on its stored value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def carry_over(buffers: Sequence[np.ndarray], last_decision: np.ndarray, carry: int) -> tuple[np.ndarray, np.ndarray]:
    """Start a rollout: move each open chain's latest decision to its seat's carry row, or close every chain.

    Args:
        buffers: the rollout's per-decision arrays ``[rows, N, ...]`` whose rows move (every array that a carried
            decision keeps: observation, mask, action, log-probability, value, reward, seat, auxiliary target).
        last_decision: the buffer row of each seat's latest decision ``[N, P]`` (-1: none open); updated in place
            to point at the carry rows (or set to -1 everywhere without them).
        carry: the carry rows at the start of the buffer (0: none, every chain closes; else one per seat).

    Returns:
        The carried decisions' ``(games, seats)``.
    """
    if not carry:
        last_decision[:] = -1
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    game, seat = np.nonzero(last_decision >= 0)
    source = last_decision[game, seat]
    for buffer in buffers:
        buffer[seat, game] = buffer[source, game]  # fancy indexing reads every source before writing
    last_decision[game, seat] = seat
    return game, seat


def defer_open_ends(used: np.ndarray, last_decision: np.ndarray) -> None:
    """Leave each open chain's latest decision out of this rollout's update (it waits for the next rollout).

    Args:
        used: the buffer's decisions the update learns from ``[rows, N]``; changed in place.
        last_decision: the buffer row of each seat's latest decision ``[N, P]`` (-1: none open).
    """
    game, seat = np.nonzero(last_decision >= 0)
    used[last_decision[game, seat], game] = False
