"""Stabby Jack's global state: the whole table, which is public.

Everything in Stabby Jack is face up except the order of the draw pile (the game's future chance, left out
here as in every game's global state), so the global state is seat 0's observation (observation.py): seen from
seat 0, relative seats are the absolute ones.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.stabby_jack.observation import observation_layout, observe
from cardenvs.games.stabby_jack.params import MAX_STATS, StabbyJackParams
from cardenvs.games.stabby_jack.rules import ACE_TARGET_BASE

OBSERVER = 0  # the seat whose observation is the state: its relative seats are the absolute ones


def state_layout(params: StabbyJackParams) -> ObservationLayout:
    """The named blocks of the global state, in order: those of the observation, with absolute seats."""
    return ObservationLayout(
        [
            ObservationView(v.name, v.size, v.low, v.high, v.description.replace("relative seat", "seat"))
            for v in observation_layout(params).views
        ]
    )


@njit(cache=True)
def encode_state(state, out):
    """Write the global state of ``state`` into ``out`` (float32, the size of :func:`state_layout`)."""
    # room for every action of these seats (actions.num_actions), for the observer's legal mask
    mask = np.zeros(ACE_TARGET_BASE + (state.max_players - 1) * MAX_STATS, np.int8)
    observe(state, OBSERVER, out, mask)
