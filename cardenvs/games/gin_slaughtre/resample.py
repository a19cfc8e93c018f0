"""Gin Slaughtre's hidden-card resampler: a full state record that one seat cannot tell from the true one.

What the record shows a seat: its own hand (every card it drew included), both seats' upcards, the pile in order,
the burnt cards, the cards publicly known to be in the opponent's hand (``known``: taken with the pile, the
declared starter card, a dealt upcard moved into the hand, a failed downcard), every count and face-down slot,
and its own arrangement choice. The unseen cards are everything else: the opponent's other hand cards, the stock
and every downcard (face down for their owner too). They are dealt again uniformly, as one shuffle of their
sorted ids cut into the opponent's hidden hand (its size kept), the occupied downcard slots and the stock (its size
kept, in a new order): exactly uniform over the deals that agree with the record's view. At the first decision of
play the starter search (rule:starter) still tells which unseen cards cannot be in the opponent's hand, and its
hidden hand is drawn among the others. An arrangement the opponent chose is an index into seven cards the seat has
not all seen, so it is drawn again uniformly.

The record keeps no history, so what later play showed and the record has forgotten is not used (a draw when stuck,
the length of a Jack's draw, the starter search once play has moved on); docs/rules/gin_slaughtre.md,
"Resampling", says so and measures it. Everything is written from the seat's view and a generator seeded from
``rng`` alone, so two records the seat cannot tell apart give byte-identical results from the same ``rng`` state.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import rand_below, seed_state, shuffle
from cardenvs.games.gin_slaughtre.actions import ARRANGE_BASE, NUM_ARRANGEMENTS
from cardenvs.games.gin_slaughtre.cards import NO_CARD, NUM_CARDS, NUM_SUITS
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS
from cardenvs.games.gin_slaughtre.rules import (
    LOC_DOWN,
    LOC_HAND,
    LOC_STOCK,
    PHASE_PLAY,
    STARTER_LOWEST_CARD,
    STARTER_RANK_ORDER,
    other,
    rank_of,
)

#: what the stock's unused tail (entries past ``stock_size``, cards drawn long ago) is set to: it is never read,
#: but it remembers where hidden cards went, so it is overwritten with a card id that says nothing
STOCK_TAIL = 0
#: the step count at the first decision of play: both arrangement choices taken, nothing played or drawn yet
FIRST_PLAY_STEP = NUM_PLAYERS


@njit(cache=True)
def starter_excluded(state, seat, excluded):
    """Mark in ``excluded`` (per card id) the cards the starter search (rule:starter) showed were not in the
    opponent's hand when play began: every card of a rank searched before the starter's; of the starter's rank, the
    lower suits when it was declared from the opponent's hand, and all of them when it was declared from the seat's
    own hand and the opponent, on the dealer's left, was searched first. Returns whether any card is marked."""
    excluded[:] = False
    if state.starter_rule != STARTER_LOWEST_CARD or state.starter_card == NO_CARD:
        return False
    starter = int(state.starter_card)
    rank = rank_of(starter)
    first_of_rank = rank * NUM_SUITS
    for searched in STARTER_RANK_ORDER:
        if searched == rank:
            break
        for card in range(searched * NUM_SUITS, min((searched + 1) * NUM_SUITS, NUM_CARDS)):
            excluded[card] = True
    location = state.location[starter]
    if location == LOC_HAND + other(seat):
        excluded[first_of_rank:starter] = True
    elif location == LOC_HAND + seat and seat == state.dealer:
        excluded[first_of_rank:min(first_of_rank + NUM_SUITS, NUM_CARDS)] = True
    return excluded.any()


@njit(cache=True)
def _allowed_first(state, seat, pool, count):
    """At the first decision of play, move the unseen cards the starter search allows in the opponent's hand to the
    front of ``pool`` (each part still in id order) and return how many there are; at any other time ``count``:
    later draws mix the opponent's first hand with cards the search said nothing about."""
    if state.phase != PHASE_PLAY or state.step_count != FIRST_PLAY_STEP:
        return count
    excluded = np.zeros(NUM_CARDS, np.bool_)
    if not starter_excluded(state, seat, excluded):
        return count
    ordered = np.empty(count, np.int8)
    allowed = 0
    for index in range(count):
        if not excluded[pool[index]]:
            ordered[allowed] = pool[index]
            allowed += 1
    rest = allowed
    for index in range(count):
        if excluded[pool[index]]:
            ordered[rest] = pool[index]
            rest += 1
    pool[:count] = ordered
    return allowed


@njit(cache=True)
def unseen_cards(state, seat, pool):
    """Write the cards ``seat`` has not seen into ``pool`` in ascending id order and return how many there are:
    the stock, every downcard, and the opponent's hand cards that are not public."""
    opponent_hand = LOC_HAND + other(seat)
    count = 0
    for card in range(NUM_CARDS):
        location = state.location[card]
        if (location == LOC_STOCK or location >= LOC_DOWN
                or (location == opponent_hand and state.known[card] == 0)):
            pool[count] = card
            count += 1
    return count


@njit(cache=True)
def _redeal(states, seat, seed):
    """Reseed game 0's generator from ``seed`` and deal the cards ``seat`` has not seen again with it."""
    state = states[0]
    seed_state(state, seed)
    pool = np.empty(NUM_CARDS, np.int8)
    count = unseen_cards(state, seat, pool)
    opponent = other(seat)
    hidden_in_hand = state.hand_count[opponent]
    for card in range(NUM_CARDS):
        if state.location[card] == LOC_HAND + opponent and state.known[card] != 0:
            hidden_in_hand -= 1
    allowed = _allowed_first(state, seat, pool, count)
    if allowed == count:
        shuffle(state, pool, count)
    else:  # the hidden hand: a uniform choice among the allowed cards; the rest shuffled into the other places
        shuffle(state, pool, allowed)
        rest = pool[hidden_in_hand:count]
        shuffle(state, rest, count - hidden_in_hand)
    # the shuffle is cut in order: the opponent's hidden hand (as many cards as before), the occupied downcard
    # slots, then the stock from the bottom; every unseen card gets its new place exactly once
    for index in range(hidden_in_hand):
        state.location[pool[index]] = LOC_HAND + opponent
    next_card = hidden_in_hand
    for owner in range(NUM_PLAYERS):
        for slot in range(state.num_downcards):
            if state.downcards[owner, slot] != NO_CARD:
                card = pool[next_card]
                state.downcards[owner, slot] = card
                state.location[card] = LOC_DOWN + owner
                next_card += 1
    for index in range(state.stock_size):
        card = pool[next_card]
        state.stock[index] = card
        state.location[card] = LOC_STOCK
        next_card += 1
    state.stock[state.stock_size:] = STOCK_TAIL
    if state.pending_arrangement[opponent] >= 0:
        state.pending_arrangement[opponent] = ARRANGE_BASE + rand_below(state, NUM_ARRANGEMENTS)


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with every card ``seat`` has not seen dealt again uniformly (the opponent's hidden hand
    cards, the stock in a new order, every downcard), the opponent's arrangement choice drawn again, and the game's
    generator reseeded from ``rng``.

    Args:
        state: a Gin Slaughtre state record (not changed).
        seat: the seat whose view is kept (0 or 1).
        rng: where the new generator seed comes from (the new deal is drawn from that generator).

    Returns:
        the new record (an ``np.record`` of its own one-record array).
    """
    copy = np.zeros(1, state.dtype)
    copy[0] = state
    _redeal(copy, seat, np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
    return copy.view(np.recarray)[0]
