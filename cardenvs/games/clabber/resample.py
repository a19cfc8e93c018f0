"""Clabber's hidden-card resampler: a full state record that one seat cannot tell from the true one.

What a seat has seen and the record keeps: its own six cards, the turn-up (the dealer's), every card played this
hand and by whom, the current trick in order, the bids, the declared melds, once scored who held the Bell, and
``excluded``: per seat, the cards its plays showed it does not hold (a seat that did not follow suit is void in it,
one that did not trump holds no trump, one that did not overtrump holds no higher trump; rules.shown_absent).
Every other card is dealt again among the other seats, each getting as many as it had, uniformly among the deals
that agree with all of that: no seat gets a card it is excluded from, the seat to act has a choice (forced moves
play themselves), a suit named in the second bidding round was held, each declared meld set is the seat's best
one, a seat whose declaration moment passed without melds holds none, one that chose SKIP holds some, and a seat
now deciding whether to declare holds melds.

The exclusions are a per-seat set of allowed cards, so the deals that respect them and the hand sizes can be
counted exactly (a table over the unseen cards in id order and how many each seat still needs) and one of them
drawn exactly uniformly as a single integer below that count. The few remaining conditions are checked on the
drawn deal, which is redrawn until they hold: rejection from a uniform distribution over a superset, so exactly
uniform over the agreeing deals.

The result depends only on what the seat knows and on ``rng``: the unseen cards are taken in id order, every
hidden field (the other hands, the deal order, a deciding seat's private meld candidate, the Bell's holder) is
written from the new deal alone, and the game's generator is reseeded from ``rng``. With ``optional_declare`` a
seat that chose SKIP was seen deciding (the table shows the declaring phase), so it held melds
(``meld_declined``), and a seat whose moment passed without deciding held none. docs/rules/clabber.md,
"Resampling", says all this.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import next_u64, seed_state
from cardenvs.games.clabber.cards import KING, NUM_CARDS, NUM_RANKS, QUEEN
from cardenvs.games.clabber.melds import best_melds, popcount
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS
from cardenvs.games.clabber.rules import (
    BID_NAME,
    LAST_DEAL_INDEX,
    MELD_DECLARED,
    MELD_NOT_YET,
    MELD_SKIPPED,
    NUM_ACTIONS_WITH_DECLARE,
    PHASE_DECLARE,
    card_bit,
    legal_mask,
    suit_bits,
)
from cardenvs.games.clabber.validation import NO_SEAT

#: deals drawn before giving up (the true deal always agrees, and the exclusions hold by construction, so a
#: reachable record needs a handful)
MAX_ATTEMPTS = 100_000
NUM_OTHERS = NUM_PLAYERS - 1
#: the largest uint64, for an exact uniform draw below a bound
MAX_U64 = np.uint64(2**64 - 1)


@njit(cache=True)
def known_mask(state, seat, other):
    """The card mask of ``other``'s dealt cards that ``seat`` knows about: all of its own; of another seat, the
    cards it played, its declared melds and, for the dealer, the turn-up."""
    if other == seat:
        return np.int64(state.dealt[other])
    cards = np.int64(state.played[other])
    if state.meld_status[other] == MELD_DECLARED:
        cards |= np.int64(state.meld_cards[other])
    if other == state.dealer:
        cards |= card_bit(state.turn_up)
    return cards


def known_cards(state: np.record, seat: int) -> list[int]:
    """Per seat, the card mask of its dealt cards that ``seat`` knows about (all of its own)."""
    return [int(known_mask(state, seat, other)) for other in range(NUM_PLAYERS)]


@njit(cache=True)
def _uniform_below(state, bound):
    """An exactly uniform integer in ``[0, bound)`` from the generator of ``state`` (rejecting the ``2**64 mod
    bound`` lowest draws, so every residue is equally likely)."""
    n = np.uint64(bound)
    floor = (MAX_U64 % n + np.uint64(1)) % n
    while True:
        draw = next_u64(state)
        if draw >= floor:
            return np.int64(draw % n)


@njit(cache=True)
def _count_deals(pool, allowed, needed):
    """``ways[k, a, b]``: the deals of ``pool[k:]`` giving the first other seat ``a`` cards, the second ``b`` and
    the third the rest, each card to a seat allowed it (``allowed[k, j]``)."""
    size = len(pool)
    ways = np.zeros((size + 1, needed[0] + 1, needed[1] + 1), np.int64)
    ways[size, 0, 0] = 1
    for k in range(size - 1, -1, -1):
        left = size - k
        for a in range(needed[0] + 1):
            for b in range(needed[1] + 1):
                c = left - a - b
                if c < 0 or c > needed[2]:
                    continue
                total = np.int64(0)
                if a > 0 and allowed[k, 0]:
                    total += ways[k + 1, a - 1, b]
                if b > 0 and allowed[k, 1]:
                    total += ways[k + 1, a, b - 1]
                if c > 0 and allowed[k, 2]:
                    total += ways[k + 1, a, b]
                ways[k, a, b] = total
    return ways


@njit(cache=True)
def _decode_deal(index, pool, allowed, needed, ways, cards):
    """Deal number ``index`` (below ``ways[0, needed[0], needed[1]]``) of the deals :func:`_count_deals` counts:
    ``cards[j]`` becomes the mask of the pool cards other seat ``j`` gets. Distinct indices give distinct deals."""
    a, b = needed[0], needed[1]
    cards[:] = 0
    for k in range(len(pool)):
        bit = card_bit(pool[k])
        if a > 0 and allowed[k, 0]:
            count = ways[k + 1, a - 1, b]
            if index < count:
                cards[0] |= bit
                a -= 1
                continue
            index -= count
        if b > 0 and allowed[k, 1]:
            count = ways[k + 1, a, b - 1]
            if index < count:
                cards[1] |= bit
                b -= 1
                continue
            index -= count
        cards[2] |= bit  # the index is below the count of the deals left, so the third seat may take it


@njit(cache=True)
def _melds_agree(state, seat):
    """Declared melds are each seat's best set; a seat whose declaring moment passed without melds holds none, one
    that chose SKIP holds some; a seat now deciding whether to declare holds melds (its private candidate is
    rewritten for its new cards)."""
    trump = state.trump
    if trump < 0:
        return True
    for other in range(NUM_PLAYERS):
        if other == seat:
            continue
        status = state.meld_status[other]
        deciding = state.phase == PHASE_DECLARE and other == state.current_player
        if status == MELD_NOT_YET and not deciding:
            continue
        cards, points, key, _ = best_melds(np.int64(state.dealt[other]), trump, state.seq_tiebreak)
        if status == MELD_DECLARED:
            if cards != state.meld_cards[other] or points != state.meld_points[other] or key != state.meld_best[other]:
                return False
        elif status == MELD_SKIPPED:
            if (points > 0) != (state.meld_declined[other] != 0):  # a SKIP was seen deciding: it held melds
                return False
        else:
            if points == 0:
                return False
            state.meld_cards[other] = cards
            state.meld_points[other] = points
            state.meld_best[other] = key
    return True


@njit(cache=True)
def _agrees(state, seat, mask):
    """Whether the deal now in ``state`` agrees with what ``seat`` saw beyond the exclusions: the named suit was
    held, the melds as shown, and the seat to act has a real choice (rule:forced_moves plays a lone legal move).

    The Bell needs no check: the played cards are kept, and a seat that played both trump King and Queen held
    them, so it scored the Bell in every deal alike."""
    maker = state.maker
    named = maker != NO_SEAT and state.bid_second[maker] == BID_NAME
    if named and np.int64(state.dealt[maker]) & suit_bits(state.trump) == 0:
        return False
    if not _melds_agree(state, seat):
        return False
    if state.terminated or state.truncated or state.current_player == seat:
        return True
    legal_mask(state, mask)
    return mask.sum() >= 2


@njit(cache=True)
def _write_deck(state):
    """A deal order that gives each seat its cards, in id order on its deck positions, the turn-up last (the deck
    is never shown, so any order that deals the same hands will do, and this one depends on the hands alone)."""
    dealer = state.dealer
    turn_up = state.turn_up
    for seat in range(NUM_PLAYERS):
        cards = np.int64(state.dealt[seat])
        if seat == dealer:
            cards &= ~card_bit(turn_up)
        position = (seat - dealer - 1) % NUM_PLAYERS
        for card in range(NUM_CARDS):
            if cards >> card & 1:
                state.deck[position] = card
                position += NUM_PLAYERS
    state.deck[LAST_DEAL_INDEX] = turn_up


@njit(cache=True)
def _write_bell_holder(state):
    """rule:bell: the holder is the seat dealt the trump King and Queen (none while bidding)."""
    state.bell_holder = NO_SEAT
    if state.trump < 0:
        return
    bell = card_bit(state.trump * NUM_RANKS + KING) | card_bit(state.trump * NUM_RANKS + QUEEN)
    for other in range(NUM_PLAYERS):
        if np.int64(state.dealt[other]) & bell == bell:
            state.bell_holder = other


@njit(cache=True)
def _resample(states, seat, seed):
    """Deal the cards ``seat`` has not seen in record 0 of ``states`` again (see the module docstring), with its
    generator reseeded from ``seed`` and then drawing the deal. False if no agreeing deal turned up."""
    state = states[0]
    seed_state(state, seed)
    others = np.zeros(NUM_OTHERS, np.int64)
    known = np.zeros(NUM_PLAYERS, np.int64)
    needed = np.zeros(NUM_OTHERS, np.int64)
    seen = np.int64(0)
    j = 0
    for other in range(NUM_PLAYERS):
        known[other] = known_mask(state, seat, other)
        seen |= known[other]
        if other != seat:
            others[j] = other
            needed[j] = CARDS_PER_HAND - popcount(known[other])
            j += 1
    pool = np.zeros(NUM_CARDS - popcount(seen), np.int64)
    allowed = np.zeros((len(pool), NUM_OTHERS), np.bool_)
    k = 0
    for card in range(NUM_CARDS):
        if not seen >> card & 1:
            pool[k] = card
            for j in range(NUM_OTHERS):
                allowed[k, j] = not np.int64(state.excluded[others[j]]) >> card & 1
            k += 1
    ways = _count_deals(pool, allowed, needed)
    total = ways[0, needed[0], needed[1]]
    if total == 0:
        return False
    cards = np.zeros(NUM_OTHERS, np.int64)
    mask = np.zeros(NUM_ACTIONS_WITH_DECLARE, np.int8)
    for _ in range(MAX_ATTEMPTS):
        _decode_deal(_uniform_below(state, total), pool, allowed, needed, ways, cards)
        for j in range(NUM_OTHERS):
            other = others[j]
            state.dealt[other] = known[other] | cards[j]
            state.hand[other] = np.int64(state.dealt[other]) & ~np.int64(state.played[other])
        if _agrees(state, seat, mask):
            _write_deck(state)
            _write_bell_holder(state)
            return True
    return False


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with every card ``seat`` has not seen dealt again, uniformly among the deals that agree
    with what it has seen, and the game's generator reseeded from ``rng``.

    Two records ``seat`` cannot tell apart give byte-identical results from generators in the same state.

    Args:
        state: a Clabber state record (not changed).
        seat: the seat whose knowledge is kept (0–3).
        rng: where the new generator seed comes from (one draw); the new deal comes from that generator.

    Returns:
        the new record (an ``np.record`` of its own one-record array).

    Raises:
        RuntimeError: no agreeing deal turned up in :data:`MAX_ATTEMPTS` draws (a record the rules cannot reach).
    """
    # A one-record array over a copy of the bytes (the fastest copy numpy makes of a record), of a record dtype so
    # that element 0 is an np.record. random_raw: the generator's next 64 bits, as integers() would give them.
    dtype = state.dtype if state.dtype.type is np.record else np.dtype((np.record, state.dtype))
    copy = np.frombuffer(bytearray(state.tobytes()), dtype=dtype)
    if not _resample(copy, seat, np.uint64(rng.bit_generator.random_raw())):
        raise RuntimeError(f"no deal agreeing with seat {seat}'s view turned up in {MAX_ATTEMPTS} draws")
    return copy[0]
