"""Stabby Jack's global state: the whole table, which is public.

Everything in Stabby Jack is face up except the order of the draw pile (the game's future chance, left out
here as in every game's global state), so the global state is seat 0's observation (observation.py): seen from
seat 0, relative seats are the absolute ones.
"""

from __future__ import annotations

from collections import Counter

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


#: how a seat's observation reads off this state (``Game.observation_sources``): seat 0's observation with its
#: per-seat blocks turned to the seat
OBSERVATION_SOURCES = {
    name: ("seats", name)
    for name in ("present", "to_act", "dealer", "stat_suits", "stat_values", "stat_counts", "stats_count", "damage",
                 "hit_points", "magic", "attack", "luck", "xp", "xp_monsters", "xp_monarchs", "win_conditions")
}


def check_global_state(record: np.record, blocks: dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless the state's blocks hold the draw pile's cards and every seat's Stats and damage."""
    draw_pile = Counter(int(kind) for kind in record.deck[: record.deck_size])
    assert {kind: int(count) for kind, count in enumerate(blocks["deck_composition"]) if count} == dict(draw_pile)
    n = int(record.num_players)
    values = blocks["stat_values"].reshape(int(record.max_players), -1)
    for seat in range(n):
        assert np.count_nonzero(values[seat]) == int(record.stats_count[seat])
    assert np.array_equal(blocks["damage"][:n], record.damage)
