"""High Card's hidden-card resampler: the other seat's hand dealt again from the cards the seat has not seen.

A seat sees its own hand, every card played and how many cards the other seat holds. The cards it has not seen
(neither in its hand nor played) are the other seat's hand and the cards left out of the deal; every way of
dealing the other seat's count of them is equally likely under the rules, so the resampler draws one uniformly.
Nothing is dealt after the start, so the game's generator matters to no later step; it is reseeded all the same,
as every resampler does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import seed_state
from tests.toy_game.rules import other


@njit(cache=True)
def _reseed(states, seed):
    seed_state(states[0], seed)


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with the other seat's hand drawn uniformly from the cards ``seat`` has not seen.

    Args:
        state: a High Card state record (not changed).
        seat: the seat whose view is kept.
        rng: where the new hand and the generator's seed come from.
    """
    copy = np.zeros(1, state.dtype)
    copy[0] = state
    record = copy.view(np.recarray)[0]
    opponent = other(seat)
    deck = int(record.deck_size)
    unseen = [card for card in range(deck) if not record.hand[seat, card] and not record.played[card]]
    count = int(record.hand[opponent].sum())
    record.hand[opponent, :] = 0
    record.hand[opponent, rng.choice(unseen, size=count, replace=False)] = 1
    _reseed(copy, np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
    return record
