"""The global state of a game: everything on the table and in every hand, for centralised critics.

PettingZoo's ``env.state()`` and ``env.state_space`` (and the batched env's global states) come from two
optional parts of a :class:`~cardenvs.core.game.Game`: ``state_layout(params)``, the named blocks of a flat
float32 vector, and the compiled ``encode_state(state, out)``, which writes one state record into it.

Conventions shared by every game (each rules page has its index table, under "Global state"):

* Seat blocks are absolute: entry 0 of a per-seat block is seat 0, whoever looks. An observation's relative
  blocks are these rotated to the observer.
* Every hand is in it, and every face-down card that is already placed, as sets (what lies where). The order of
  a face-down pile that is still to be drawn from (a stock, a bag, a draw pile, a stack) is left out: it is the
  game's future chance, which no seat can act on and which a critic would only learn to read off.
* Each block is encoded like the observation block of the same name, so a seat's observation is the state's
  blocks seen from that seat; the state is never part of a seat's observation.
* Encoding reads the record only: it draws no randomness and changes nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from numba import njit, prange

from cardenvs.core.dispatch import engine_encode_state
from cardenvs.core.game import Game, ObservationLayout


def state_layout(game: Game, params: Any) -> ObservationLayout:
    """The named blocks of ``game``'s global state for ``params``.

    Raises:
        NotImplementedError: the game describes no global state.
    """
    if game.state_layout is None or game.encode_state is None:
        raise NotImplementedError(f"{game.env_id} has no global state (its Game sets no state_layout/encode_state)")
    return game.state_layout(params)


def state_space(layout: ObservationLayout) -> spaces.Box:
    """The Box of a global state vector with these blocks."""
    return spaces.Box(layout.low(), layout.high(), dtype=np.float32)


@njit(cache=True, parallel=True)
def _encode_states_parallel(states, out):
    for i in prange(states.shape[0]):
        engine_encode_state(states[i], out[i])


@njit(cache=True)
def _encode_states_serial(states, out):
    for i in range(states.shape[0]):
        engine_encode_state(states[i], out[i])


def encode_states(states: np.ndarray, out: np.ndarray, parallel: bool = True) -> np.ndarray:
    """Write the global state of every game of a batch into ``out[N, D]`` and return it.

    Args:
        states: the engine's state records, as compiled code takes them (``VectorEnv._engine_states``).
        out: float32 ``[N, D]`` with ``D`` the size of the game's :func:`state_layout`.
        parallel: encode on numba's threads (as the batched env steps large batches) or on one thread.
    """
    if out.dtype != np.float32 or out.ndim != 2 or out.shape[0] != states.shape[0]:
        raise ValueError(f"out must be float32 [{states.shape[0]}, D], got {out.dtype} {out.shape}")
    (_encode_states_parallel if parallel else _encode_states_serial)(states, out)
    return out
