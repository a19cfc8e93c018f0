"""Slabberjan's hidden-card resampler: a full state record that one seat cannot tell from the true one.

Within a round every piece movement is fixed by the deal (each seat's original piece) and the public acts: the
non-dealers act one after another from the dealer's left, each standing or trying to swap (``acted``), and the
dealer's act ends the round, so a record waiting for a decision has seen only non-dealer turns. Replaying those
turns from the record's originals gives the round's whole history, and with it everything ``seat`` has seen after
every step. That history fixes, for everyone, where each swap attempt went: a matador at a target is announced (an
Inn passed again is one whose holder cannot have lost it), a Cat shows by its payment and undo, a Bird by the
dealer's turn. So the seat knows which seat holds which seat's original at every moment, and what it saw turns into
facts about the deal alone:

- pinned originals: its own; each piece it held (received in a swap, given back by a Cat); each announced matador;
  each knocked Fool (``fool_knocks``);
- the original a swap took from its target was no matador (a matador would have refused);
- with ``fool_knocks`` a seat that did not knock was dealt no Fool;
- no swap put a Fool against a Fool (that redeals the round).

Every deal meeting these facts replays to the same history, so the consistent deals are exactly those. The
resampler keeps the pinned originals, places the matadors and Fools left over uniformly among the places their
facts allow (the split between places that take both and places that take one is drawn with its exact count of
arrangements), deals the remaining pieces uniformly to the other places (other seats' originals and the bag's
order), and redraws while a Fool meets a Fool: exactly uniform over the consistent deals. The round is then
replayed on the new deal by the rules' own functions, which rewrites every hidden field: each seat's piece and
original, the bag, and what every other seat knows. The game's generator is reseeded first and draws the new
deal, so the result is a function of the seat's view and ``rng`` only.

A finished game (over by its end or by a penalty) keeps its pieces; only the bag's order is drawn again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import binomial, rand_unit, seed_state, shuffle
from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, NUM_PIECES
from cardenvs.games.slabberjan.pieces import CAT, FOOL, INN
from cardenvs.games.slabberjan.rules import (
    ACT_NONE,
    ACT_SWAPPED,
    PHASE_OVER,
    is_matador,
    left_of,
)

#: deals drawn before giving up on one without a Fool meeting a Fool (the true deal has none, so a position needs a
#: few at most)
MAX_ATTEMPTS = 100_000

#: what :func:`_resample_record` returns
OK = 0
NOT_REPLAYABLE = 1  # the record's originals and acts do not replay to its pieces (not a record the rules reach)
NO_DEAL = 2  # no consistent deal turned up in MAX_ATTEMPTS draws



@njit(cache=True)
def _start_round(state):
    """Put the round back at its deal: each seat in holds its original, knowledge and announcements as dealt.

    The rules' own deal does it (rule:deal, rule:fool_knock), from the originals laid on the bag's top; the acts,
    the seat to act and the round count are kept. Needs the round's set-aside row empty (no dealer act yet).
    """
    acted = state.acted.copy()
    phase, player, rounds = state.phase, state.current_player, state.round_number
    position = NUM_PIECES - 1
    seat = state.dealer
    while True:
        seat = left_of(state, seat)
        state.bag[position] = state.original[seat]
        position -= 1
        if seat == state.dealer:
            break
    rules._deal_from_bag(state)
    state.acted[:] = acted
    state.phase, state.current_player, state.round_number = phase, player, rounds


@njit(cache=True)
def _attempt(state, attacker, seat, holder, pinned, no_matador, pairs, num_pairs):
    """Replay ``attacker``'s swap attempt with the rules' own function, following whose original each seat holds
    (``holder``) and noting what it shows ``seat`` about the deal; returns (outcome, number of pairs)."""
    target = left_of(state, attacker)
    while target != attacker and state.piece[target] == INN:  # rule:inn: an announced Inn
        pinned[holder[target]] = True
        target = left_of(state, target)
    kind = state.piece[target]
    swapped = target != attacker and not is_matador(kind)
    if target != attacker and not swapped:  # a refusing matador is announced
        pinned[holder[target]] = True
    if swapped:  # rule:exchange: the target held no matador; two Fools would have redealt
        no_matador[holder[target]] = True
        pairs[num_pairs, 0] = holder[attacker]
        pairs[num_pairs, 1] = holder[target]
        num_pairs += 1
    outcome = rules._swap_attempt(state, attacker)
    if swapped:
        holder[attacker], holder[target] = holder[target], holder[attacker]
        if seat == attacker or seat == target:  # the seat sees the piece it now holds
            pinned[holder[seat]] = True
    elif target != attacker and kind == CAT:  # rule:cat: every piece back to its original holder
        for other in range(state.num_players):
            holder[other] = other
    return outcome, num_pairs


@njit(cache=True)
def _replay_round(state, seat, holder, pinned, no_matador, pairs):
    """Replay the round's turns from its deal (the record's originals); returns the number of swaps noted in
    ``pairs`` or -1 if a turn would have ended the round (the acts do not fit the deal). Chips are left as they
    were: the replay only moves pieces and knowledge."""
    chips, owes, pot = state.chips.copy(), state.owes.copy(), state.pot
    _start_round(state)
    for other in range(state.num_players):
        holder[other] = other
    num_pairs = 0
    attacker = left_of(state, state.dealer)
    while attacker != state.dealer and state.acted[attacker] != ACT_NONE:
        if state.acted[attacker] == ACT_SWAPPED:
            outcome, num_pairs = _attempt(state, attacker, seat, holder, pinned, no_matador, pairs, num_pairs)
            if outcome == rules._REDEAL or outcome == rules._TO_SHOWDOWN:
                num_pairs = -1
                break
            if outcome == rules._TO_DEALER:  # rule:bird: the other non-dealers do not act
                break
        attacker = left_of(state, attacker)
    state.chips[:] = chips
    state.owes[:] = owes
    state.pot = pot
    return num_pairs


@njit(cache=True)
def _take(state, places, count, wanted, into, at):
    """Move ``wanted`` uniformly chosen entries of ``places[:count]`` to ``into[at:]``; the rest stay, in
    ``places[:count - wanted]``. Returns the new end of ``into``."""
    shuffle(state, places, count)
    for i in range(wanted):
        into[at + i] = places[count - 1 - i]
    return at + wanted


@njit(cache=True)
def _place_classes(state, both, matador_only, fool_only, neither, sizes, matadors, fools, order):
    """Lay out uniformly which free places get a matador and which a Fool: ``order`` receives the matador places,
    then the Fool places, then the rest. Returns False if no layout exists."""
    n_both, n_matador, n_fool, n_neither = sizes[0], sizes[1], sizes[2], sizes[3]
    # j matadors in places taking both: C(both, j) C(matador-only, m - j) C(both - j + fool-only, f) layouts each
    total = 0.0
    for j in range(matadors + 1):
        total += binomial(n_both, j) * binomial(n_matador, matadors - j) * binomial(n_both - j + n_fool, fools)
    if total == 0.0:
        return False
    draw = rand_unit(state) * total
    j = 0
    for j in range(matadors + 1):
        weight = binomial(n_both, j) * binomial(n_matador, matadors - j) * binomial(n_both - j + n_fool, fools)
        if draw < weight:
            break
        draw -= weight
    while binomial(n_both, j) * binomial(n_matador, matadors - j) * binomial(n_both - j + n_fool, fools) == 0.0:
        j -= 1  # rounding at the last step: fall back to a possible split
    at = _take(state, both, n_both, j, order, 0)
    at = _take(state, matador_only, n_matador, matadors - j, order, at)
    fool_places = np.empty(n_both - j + n_fool, np.int64)
    fool_places[: n_both - j] = both[: n_both - j]
    fool_places[n_both - j:] = fool_only[:n_fool]
    at = _take(state, fool_places, fool_places.size, fools, order, at)
    for i in range(fool_places.size - fools):
        order[at] = fool_places[i]
        at += 1
    for i in range(n_matador - (matadors - j)):
        order[at] = matador_only[i]
        at += 1
    for i in range(n_neither):
        order[at] = neither[i]
        at += 1
    return True


@njit(cache=True)
def _draw_deal(state, deal, free, no_matador, no_fool, pairs, num_pairs, counts):
    """Fill ``deal`` at the ``free`` places with the pieces of ``counts``, uniformly among the fillings that keep
    matadors out of ``no_matador`` places, Fools out of ``no_fool`` places and no Fool against a Fool in ``pairs``.
    Returns False if none turned up."""
    size = free.size
    both, matador_only = np.empty(size, np.int64), np.empty(size, np.int64)
    fool_only, neither = np.empty(size, np.int64), np.empty(size, np.int64)
    sizes = np.zeros(4, np.int64)
    for place in free:
        lists = (both, matador_only, fool_only, neither)
        kind = 2 * int(no_matador[place]) + int(no_fool[place])
        lists[kind][sizes[kind]] = place
        sizes[kind] += 1
    matadors = 0
    for kind in range(INN, NUM_KINDS):
        matadors += counts[kind]
    fools = counts[FOOL]
    others = np.empty(size, np.int8)
    matador_pieces = np.empty(matadors, np.int8)
    filled_others = 0
    filled_matadors = 0
    for kind in range(NUM_KINDS):
        for _ in range(counts[kind]):
            if is_matador(kind):
                matador_pieces[filled_matadors] = kind
                filled_matadors += 1
            elif kind != FOOL:
                others[filled_others] = kind
                filled_others += 1
    order = np.empty(size, np.int64)
    for _ in range(MAX_ATTEMPTS):
        if not _place_classes(state, both.copy(), matador_only.copy(), fool_only.copy(), neither.copy(), sizes,
                              matadors, fools, order):
            return False
        shuffle(state, matador_pieces, matadors)
        shuffle(state, others, filled_others)
        for i in range(matadors):
            deal[order[i]] = matador_pieces[i]
        for i in range(fools):
            deal[order[matadors + i]] = FOOL
        for i in range(filled_others):
            deal[order[matadors + fools + i]] = others[i]
        clash = False
        for i in range(num_pairs):
            clash = clash or (deal[pairs[i, 0]] == FOOL and deal[pairs[i, 1]] == FOOL)
        if not clash:
            return True
    return False


@njit(cache=True)
def _resample_record(states, seat, seed):
    """Resample the hidden part of ``states[0]`` for ``seat`` (see the module docstring); returns a status code."""
    state = states[0]
    seed_state(state, seed)
    n = state.num_players
    bag_size = state.bag_size
    if state.phase == PHASE_OVER or state.terminated or state.truncated:
        state.bag[:bag_size].sort()  # a canonical order, then a fresh one
        shuffle(state, state.bag, bag_size)
        state.bag[bag_size:] = 0  # no longer pieces: what the deal left above the bag's top says nothing
        return OK
    piece, known, announced = state.piece.copy(), state.known.copy(), state.announced.copy()
    places = n + bag_size  # the seats' originals, then the bag's positions
    holder = np.empty(n, np.int64)
    pinned = np.zeros(places, np.bool_)
    no_matador = np.zeros(places, np.bool_)
    pairs = np.empty((n, 2), np.int64)
    pinned[seat] = True
    num_pairs = _replay_round(state, seat, holder, pinned, no_matador, pairs)
    if num_pairs < 0 or not (np.array_equal(state.piece, piece) and np.array_equal(state.known, known)
                             and np.array_equal(state.announced, announced)):
        return NOT_REPLAYABLE
    no_fool = np.zeros(places, np.bool_)
    counts = np.full(NUM_KINDS, COPIES, np.int64)
    deal = np.empty(places, np.int8)
    num_free = 0
    for other in range(n):
        if not state.in_game[other]:
            continue
        if state.fool_knocked[other]:  # rule:fool_knock: public
            pinned[other] = True
        no_fool[other] = state.fool_knocks and not state.fool_knocked[other]
        if pinned[other]:
            deal[other] = state.original[other]
            counts[deal[other]] -= 1
        else:
            num_free += 1
    free = np.empty(num_free + bag_size, np.int64)
    at = 0
    for other in range(n):
        if state.in_game[other] and not pinned[other]:
            free[at] = other
            at += 1
    for position in range(bag_size):
        free[at + position] = n + position
    if not _draw_deal(state, deal, free, no_matador, no_fool, pairs, num_pairs, counts):
        return NO_DEAL
    for other in range(n):
        if state.in_game[other]:
            state.original[other] = deal[other]
    state.bag[:bag_size] = deal[n:]
    holder_scratch = np.empty(n, np.int64)
    pinned_scratch = np.zeros(places, np.bool_)
    no_matador_scratch = np.zeros(places, np.bool_)
    pairs_scratch = np.empty((n, 2), np.int64)
    if _replay_round(state, seat, holder_scratch, pinned_scratch, no_matador_scratch, pairs_scratch) < 0:
        return NOT_REPLAYABLE
    return OK


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` in which every piece ``seat`` has not seen is dealt again, uniformly among the deals that
    agree with everything it saw this round, with the game's generator reseeded from ``rng``.

    Args:
        state: a Slabberjan state record (not changed).
        seat: the seat whose knowledge is kept.
        rng: where the new generator seed comes from; the new deal is drawn by the reseeded generator.

    Returns:
        the new record (an ``np.record`` of its own one-record array).

    Raises:
        RuntimeError: the record's deal and acts do not replay to its pieces (a record the rules cannot reach), or
            no agreeing deal turned up in :data:`MAX_ATTEMPTS` draws.
    """
    copy = np.zeros(1, state.dtype)
    copy[0] = state
    status = _resample_record(copy, np.int64(seat), np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
    if status == NOT_REPLAYABLE:
        raise RuntimeError("the record's originals and acts this round do not replay to its pieces")
    if status == NO_DEAL:
        raise RuntimeError(f"no deal agreeing with seat {seat}'s view turned up in {MAX_ATTEMPTS} draws")
    return copy.view(np.recarray)[0]

