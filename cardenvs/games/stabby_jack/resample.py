"""Stabby Jack's hidden-card resampler: a full state record that one seat cannot tell from the true one.

Everything in Stabby Jack is face up except the order of the draw pile, and which cards it holds is public
(``deck_counts``). Every order of those cards is equally likely whatever the seats have seen (a drawn card is shown
at once, and a reshuffle is the game's own chance), so the resampler shuffles the draw pile uniformly: exactly the
uniform distribution over the orders that agree with any seat's view, the same for every seat. It sorts the pile
before shuffling it, so the result depends on the pile's cards and the generator only, never on their true order.
The game's generator is reseeded first, so the rest of the game's chance (later reshuffles) is fresh too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import seed_state, shuffle


@njit(cache=True)
def _shuffle_draw_pile(states, seed):
    """Reseed game 0's generator from ``seed``, sort its draw pile and shuffle it with that generator."""
    state = states[0]
    seed_state(state, seed)
    state.deck[: state.deck_size] = np.sort(state.deck[: state.deck_size])
    shuffle(state, state.deck, state.deck_size)


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with the draw pile in a new uniformly random order and the game's generator reseeded.

    Args:
        state: a Stabby Jack state record (not changed).
        seat: the seat whose view is kept; every seat sees the same table, so it changes nothing.
        rng: where the new generator seed comes from.

    Returns:
        the new record (an ``np.record`` of its own one-record array).
    """
    copy = np.zeros(1, state.dtype)
    copy[0] = state
    _shuffle_draw_pile(copy, np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
    return copy.view(np.recarray)[0]
