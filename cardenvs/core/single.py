"""Compiled entry points for one game held in a length-1 state array (the AEC env's hot path).

numba recognises a plain structured ndarray argument in well under a microsecond, while an ``np.record`` or a
``np.recarray`` argument costs it 5–10 µs per call; so the AEC env keeps its state as a plain array and calls
these, which reach the game's rules through :mod:`cardenvs.core.dispatch`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from cardenvs.core.dispatch import (
    engine_encode_state,
    engine_observe,
    engine_penalize,
    engine_reset,
    engine_step,
)


def entry_point(kernel, *args):
    """``kernel`` compiled for the types of ``args``, callable without numba's per-call type dispatch.

    The AEC env calls its kernels with arguments of the same types on every step; resolving the compiled
    version once saves about 0.4 µs a call, a tenth of a whole AEC step. The result must only ever get
    arguments of those same types. As plain Python (``NUMBA_DISABLE_JIT=1``) it is ``kernel`` itself.
    """
    if numba.config.DISABLE_JIT:
        return kernel
    return kernel.compile(tuple(kernel.typeof_pyval(arg) for arg in args))


def engine_view(states: np.ndarray) -> np.ndarray:
    """The array to hand to compiled code: plain when compiled; as plain Python, a recarray (attribute access)."""
    return states.view(np.recarray) if numba.config.DISABLE_JIT else states


@njit(cache=True)
def reset_game(states, seed):
    """Start game 0 from ``seed`` (the caller then refreshes its views with :func:`refresh_game`)."""
    engine_reset(states[0], seed)


@njit(cache=True)
def refresh_game(states, obs, mask):
    """Write the observation and legal mask of the player to act; return (player to act, over flag) as
    :func:`step_game` does.

    For anything that changes the record outside a step: a reset, a chosen deal, a restored snapshot.
    """
    player, _, over = _observe_next(states[0], obs, mask)
    return player, over


@njit(cache=True)
def step_game(states, action, obs, mask):
    """Apply a legal action; write the observation and legal mask of the player to act next (the mask all zero
    once the game is over); return (player to act, reward flag, over flag).

    The reward flag says whether any seat got a non-zero reward; the over flag is 1 if terminated, 2 if only
    truncated, 0 while the game goes on. Writing the next observation here saves the AEC loop's ``last()`` a
    second kernel call.
    """
    state = states[0]
    engine_step(state, action)
    return _observe_next(state, obs, mask)


@njit(cache=True)
def penalize_game(states, player, obs, mask):
    """Apply the game's illegal-action penalty to ``player``; same as :func:`step_game` otherwise."""
    state = states[0]
    engine_penalize(state, player)
    return _observe_next(state, obs, mask)


@njit(cache=True)
def _observe_next(state, obs, mask):
    player, rewarded, over = _status(state)
    if over:
        mask[:] = 0
    else:
        engine_observe(state, player, obs, mask)
    return player, rewarded, over


@njit(cache=True)
def observe_game(states, player, obs, mask):
    engine_observe(states[0], player, obs, mask)


@njit(cache=True)
def encode_game_state(states, out):
    """Write game 0's global state (see :mod:`cardenvs.core.global_state`) into ``out``."""
    engine_encode_state(states[0], out)


@njit(cache=True)
def _status(state):
    rewarded = False
    for reward in state.rewards:
        if reward != 0.0:
            rewarded = True
    over = 1 if state.terminated else (2 if state.truncated else 0)
    return state.current_player, rewarded, over
