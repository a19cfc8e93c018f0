"""Gin Slaughtre's hidden-card resampler: a full state record that one seat cannot tell from the true one.

What the record shows a seat: its own hand (every card it drew included), both seats' upcards, the pile in order,
the burnt cards, the cards publicly known to be in the opponent's hand (``known``), every count and face-down slot,
its own arrangement choice, and ``hand_events``: what it saw happen to the opponent's hidden hand cards, in order
(each card drawn unseen, each hidden card shown, each draw when stuck and on which pile, each trick whose draw
effects made the opponent draw, the starter search). The unseen cards are the opponent's hidden hand, the stock and
every downcard (face down for their owner too).

Every deal of the game is equally likely, so the posterior of the unseen cards is uniform over the histories that
agree with all the seat saw: which card came into the opponent's hand at each of its unseen draws, such that every
card it showed was in its hand then, no hand it held when it drew because it was stuck had a playable card, every
draw effect stopped where it did (the cards a Jack's draw took before the last are above 5, the last 5 or lower,
unless the stock ran out), and the starter search found what it found. Every such condition is about the ranks
(and, for the starter, the suits) of the cards in the hand at one moment, so the cards fall into a few classes the
events cannot tell apart, and the number of histories that leave the hand holding a given number of cards of each
class is counted exactly, event by event (a table over those counts). The hidden hand is drawn from it with
probability proportional to its count of histories, its cards uniformly within their classes, and the other unseen
cards are shuffled into the face-down slots and the stock: exactly the posterior (up to float rounding of the
counts). Without conditions (nothing but draws and shows), the table is one entry and this is one uniform shuffle.
The table is a list of hands in ascending key order (a class's count in a few bits of the key), which a draw turns
into the next by merging one ascending run per class, without sorting.

The posterior depends on the record and the seat alone, and a search resamples one record many times, so the
latest POSTERIOR_CACHE_SIZE posteriors are kept, keyed by the record's bytes and the seat: a repeated call only
draws from it.

An arrangement the opponent chose is an index into seven cards the seat has not all seen, so it is drawn again
uniformly. Everything is written from the seat's view and a generator seeded from ``rng`` alone, so two records the
seat cannot tell apart give byte-identical results from the same ``rng`` state. docs/rules/gin_slaughtre.md,
"Resampling", says the same.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from cardenvs.core.rng import binomial, rand_below, rand_unit, seed_state, shuffle
from cardenvs.games.gin_slaughtre.actions import ARRANGE_BASE, NUM_ARRANGEMENTS
from cardenvs.games.gin_slaughtre.cards import (
    FIRST_JOKER,
    NO_CARD,
    NUM_CARDS,
    RANK_FIVE,
    RANK_NINE,
    RANK_TWO,
)
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS
from cardenvs.games.gin_slaughtre.rules import (
    CHAIN_RAN_OUT,
    EVENT_CHAIN,
    EVENT_CHAIN_DRAWN,
    EVENT_DRAWN,
    EVENT_STARTER,
    EVENT_STUCK,
    EVENT_STUCK_RESTRICTED,
    LOC_DOWN,
    LOC_HAND,
    LOC_STOCK,
    STARTER_LOWER_SUITS,
    STARTER_RANK_ORDER,
    STARTER_WHOLE_RANK,
    other,
    rank_of,
)

#: what the stock's unused tail (entries past ``stock_size``, cards drawn long ago) is set to: it is never read,
#: but it remembers where hidden cards went, so it is overwritten with a card id that says nothing
STOCK_TAIL = 0
#: what :func:`_posterior` returns
OK = 0
NO_HISTORY = 1  # no history agrees with the record's events (not a record the rules reach)
TOO_MANY_CLASSES = 2  # the cards fall into more classes than a table key holds
#: the bits of a card's signature (:func:`condition_bit`): one per floor of a draw when stuck and one for the red-5
#: restriction (0 … 14), the starter search (a seat's events hold it once), and whether the card is low
STARTER_BIT = EVENT_STUCK_RESTRICTED - EVENT_STUCK + 1
LOW_BIT = STARTER_BIT + 1
NUM_CONDITION_BITS = LOW_BIT + 1
NO_CONDITION = -1
#: per rank, its place in the starter search's order (rule:starter)
STARTER_POSITION = np.argsort(STARTER_RANK_ORDER)
#: hands a table holds before it grows (see _draw_step)
TABLE_CAPACITY = 64
#: a table key: the state of a trick's draw effects (an effect index, at most MAX_DRAW_EFFECTS) in its low bits, then
#: how many cards of each class the hand holds (_key_layout), in at most MAX_KEY_BITS bits
EFFECT_BITS = 3
EFFECT_MASK = (1 << EFFECT_BITS) - 1
MAX_KEY_BITS = 62
#: history counts are scaled down past this (only their ratios count; they outgrow any float otherwise)
WEIGHT_CEILING = 1e100


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


@njit(cache=True, inline="always")
def is_low(card):
    """rule:jack: a card that stops a draw until 5 or lower (A–5; a Joker is not)."""
    return card < FIRST_JOKER and rank_of(card) <= RANK_FIVE


@njit(cache=True, inline="always")
def condition_bit(event):
    """The bit that stands for ``event`` in a card's signature (:func:`_card_classes`): the floor of a draw when
    stuck, the red-5 restriction, the starter search, or LOW_BIT for a trick's draw effects (which tell low cards
    from the others); NO_CONDITION for an event that says nothing about which cards the hand holds."""
    if EVENT_STUCK <= event <= EVENT_STUCK_RESTRICTED:
        return event - EVENT_STUCK
    if EVENT_STARTER <= event < EVENT_CHAIN:
        return STARTER_BIT
    if event >= EVENT_CHAIN:
        return LOW_BIT
    return NO_CONDITION


@njit(cache=True, inline="always")
def allowed_in_hand(state, event, card):
    """Whether a hand could hold ``card`` at the condition ``event`` (a draw when stuck, the starter search); for a
    trick's draw effects, whether ``card`` is low (it stops a draw until 5 or lower)."""
    rank = rank_of(card)
    if EVENT_STUCK <= event < EVENT_STUCK_RESTRICTED:  # rule:draw_when_stuck: no single was legal on this floor
        # 2s and 9s are always legal, a Joker goes on anything unrestricted
        return card < FIRST_JOKER and rank < event - EVENT_STUCK and rank != RANK_TWO and rank != RANK_NINE
    if event == EVENT_STUCK_RESTRICTED:  # rule:red_five: nothing of 5 or lower, no 2, no 9
        return card >= FIRST_JOKER or (rank > RANK_FIVE and rank != RANK_NINE)
    if EVENT_STARTER <= event < EVENT_CHAIN:  # rule:starter
        starter = int(state.starter_card)
        starter_rank = rank_of(starter)
        if STARTER_POSITION[rank] < STARTER_POSITION[starter_rank]:
            return False  # a rank searched before the starter's
        case = event - EVENT_STARTER
        if rank == starter_rank and case == STARTER_LOWER_SUITS:
            return card >= starter
        return not (rank == starter_rank and case == STARTER_WHOLE_RANK)
    return is_low(card)


@njit(cache=True)
def _card_classes(state, events, member, classes, class_signature):
    """Group the cards of ``member`` into classes no event can tell apart (every condition of ``events`` allows
    all of a class or none of it, and a trick's draw effects stop on all or none): a card's signature has the bit
    of each condition (:func:`condition_bit`) it passes, and the cards of one signature are one class, numbered in
    the order of their lowest card id. Writes ``classes`` (per card id, -1 for cards left out) and
    ``class_signature``; returns the number of classes."""
    event_of_bit = np.full(NUM_CONDITION_BITS, -1, np.int64)
    for event in events:
        bit = condition_bit(event)
        if bit != NO_CONDITION:
            event_of_bit[bit] = event
    num_classes = 0
    for card in range(NUM_CARDS):
        classes[card] = -1
        if not member[card]:
            continue
        signature = 0
        for bit in range(NUM_CONDITION_BITS):
            if event_of_bit[bit] >= 0 and allowed_in_hand(state, event_of_bit[bit], card):
                signature |= 1 << bit
        cls = 0
        while cls < num_classes and class_signature[cls] != signature:
            cls += 1
        if cls == num_classes:
            class_signature[cls] = signature
            num_classes += 1
        classes[card] = cls
    return num_classes


@njit(cache=True, inline="always")
def _chain_effects(event):
    """The draw effects of an EVENT_CHAIN: (how many, the bit set of those that draw until a low card, whether the
    stock ran out during them)."""
    code = event - EVENT_CHAIN
    ran_out = code >= CHAIN_RAN_OUT
    code %= CHAIN_RAN_OUT
    effects = 0
    while code >> (effects + 1):
        effects += 1
    return effects, code - (1 << effects), ran_out


@njit(cache=True, inline="always")
def _held(key, shift, mask, cls):
    """How many cards of class ``cls`` the hand of table key ``key`` holds."""
    return (key >> shift[cls]) & mask[cls]


@njit(cache=True, inline="always")
def _grown(key, cls, room, shift, mask, until_low, low_class, effects):
    """The table key after the hand of ``key`` draws a card of class ``cls``, or -1 when it cannot: no room for one
    more of that class, or every draw effect done."""
    held = _held(key, shift, mask, cls)
    if held + 1 > room[cls]:
        return -1
    if effects == 0:  # an ordinary draw
        return key + (1 << shift[cls])
    effect = key & EFFECT_MASK
    if effect == effects:
        return -1
    following = effect
    if not (until_low >> effect) & 1 or low_class[cls]:
        following = effect + 1
    return (key - effect + (1 << shift[cls])) | following


@njit(cache=True, inline="always")
def _next_candidate(keys, size, cls, room, shift, mask, until_low, low_class, effects, heads, candidates):
    """Move class ``cls``'s head to the next hand of the table that can draw a card of it and note the key it grows
    to (-1 once none is left)."""
    candidates[cls] = -1
    while heads[cls] < size:
        candidates[cls] = _grown(keys[heads[cls]], cls, room, shift, mask, until_low, low_class, effects)
        if candidates[cls] >= 0:
            return
        heads[cls] += 1


@njit(cache=True, inline="always")
def _draw_step(keys, weights, size, out_keys, out_weights, room, shift, mask, until_low, low_class, effects, heads,
               candidates):
    """One unseen draw into the hand: every hand of the table (``keys[:size]``, ascending) gains a card of some
    class with room for one more, weighted by how many cards of that class the new hand holds (any of them may be
    the one drawn). During a trick's draw effects (``effects`` > 0) a card drawn under an effect that draws until a
    low card (bit of ``until_low``) moves to the next effect only if it is low; an effect that draws one card moves
    on at once; nothing is drawn once every effect is done.

    The new table goes to ``out_keys`` and ``out_weights``: a merge of one ascending run per class (no sort), equal
    keys added, weights scaled down when they grow large (only their ratios count). Returns its size."""
    num_classes = len(shift)
    for cls in range(num_classes):
        heads[cls] = 0
        _next_candidate(keys, size, cls, room, shift, mask, until_low, low_class, effects, heads, candidates)
    count = 0
    largest = 0.0
    while True:
        best = -1
        for cls in range(num_classes):
            if candidates[cls] >= 0 and (best < 0 or candidates[cls] < best):
                best = candidates[cls]
        if best < 0:
            break
        if count == 0 or out_keys[count - 1] != best:  # else a class's run repeats it: two effect states meet
            out_keys[count] = best
            out_weights[count] = 0.0
            count += 1
        for cls in range(num_classes):
            if candidates[cls] == best:
                entry = heads[cls]
                out_weights[count - 1] += weights[entry] * (_held(keys[entry], shift, mask, cls) + 1)
                heads[cls] += 1
                _next_candidate(keys, size, cls, room, shift, mask, until_low, low_class, effects, heads,
                                candidates)
        largest = max(largest, out_weights[count - 1])
    if largest > WEIGHT_CEILING:
        out_weights[:count] /= largest
    return count


@njit(cache=True)
def _largest_hand(events):
    """The most hidden cards the hand held at once."""
    largest = 0
    hand = 0
    for event in events:
        if event < EVENT_DRAWN:
            hand -= 1
        elif event == EVENT_DRAWN or event == EVENT_CHAIN_DRAWN:
            hand += 1
            largest = max(largest, hand)
    return largest


@njit(cache=True)
def _filter(keys, weights, size, forbidden, required, drop, effects, ran_out):
    """Keep the hands of the table with no card under ``forbidden`` and some under ``required`` (bits of the key,
    0: no such condition), and during draw effects (``effects`` > 0) only those whose effects ended where they did
    (all done; anywhere once the stock ran out), with the effect state cleared and equal keys added; ``drop`` is
    subtracted from every key kept. Returns the new size (the order is kept)."""
    kept = 0
    for entry in range(size):
        key = keys[entry]
        if key & forbidden or (required and not key & required):
            continue
        if effects > 0:
            if not (ran_out or key & EFFECT_MASK == effects):
                continue
            key -= key & EFFECT_MASK
        key -= drop
        if kept > 0 and keys[kept - 1] == key:
            weights[kept - 1] += weights[entry]
        else:
            keys[kept] = key
            weights[kept] = weights[entry]
            kept += 1
    return kept


@njit(cache=True)
def _grown_table(size, num_classes):
    """Room for a table of ``size`` hands to grow by every class, and more (keys, weights)."""
    return np.zeros(2 * size * num_classes, np.int64), np.zeros(2 * size * num_classes, np.float64)


@njit(cache=True)
def _key_layout(events, num_classes, room):
    """Where a table key holds each class's count: above the effect state, ``mask[c]`` wide at ``shift[c]``, wide
    enough for the most cards of that class the hand can hold (its room, and the largest hidden hand). Returns
    (shift, mask, bits in use)."""
    largest_hand = _largest_hand(events)
    shift = np.empty(num_classes, np.int64)
    mask = np.empty(num_classes, np.int64)
    bits = EFFECT_BITS
    for cls in range(num_classes):
        most = min(room[cls], largest_hand)
        width = 0
        while most >> width:
            width += 1
        shift[cls] = bits
        mask[cls] = (1 << width) - 1
        bits += width
    return shift, mask, bits


@njit(cache=True)
def _hand_table(events, classes, class_signature, num_classes, unseen_in, shown_in):
    """Per hand the opponent may hold now (a key: how many cards of each class, see :func:`_key_layout`), the number
    of histories (scaled) that agree with ``events`` and leave it holding that hand: (keys, weights, size, shift,
    mask), or a size of -1 when the keys would not fit in 63 bits.

    ``unseen_in[c]``: unseen cards of class c (the hand now holds some of them); ``shown_in[c]``: cards of class c
    the events show leaving the hand. A hand at some moment holds at most the unseen cards of a class and those
    still to be shown, and at most as many cards as the hand ever held hidden."""
    room = unseen_in + shown_in
    shift, mask, bits = _key_layout(events, num_classes, room)
    low_class = np.zeros(num_classes, np.bool_)
    forbidden = np.zeros(NUM_CONDITION_BITS, np.int64)  # per condition, the key bits of the classes it rules out
    for cls in range(num_classes):
        low_class[cls] = (class_signature[cls] >> LOW_BIT) & 1
        for bit in range(NUM_CONDITION_BITS):
            if not (class_signature[cls] >> bit) & 1:
                forbidden[bit] |= mask[cls] << shift[cls]
    heads = np.zeros(num_classes, np.int64)
    candidates = np.zeros(num_classes, np.int64)
    keys = np.zeros(TABLE_CAPACITY, np.int64)
    weights = np.zeros(TABLE_CAPACITY, np.float64)
    spare_keys = np.zeros(TABLE_CAPACITY, np.int64)
    spare_weights = np.zeros(TABLE_CAPACITY, np.float64)
    if bits > MAX_KEY_BITS:
        return keys, weights, -1, shift, mask
    weights[0] = 1.0  # the empty hand before the deal
    size = 1
    index = 0
    count = len(events)
    while index < count:
        event = events[index]
        index += 1
        if event < EVENT_DRAWN:  # a hidden card shown: it was in the hand
            cls = classes[event]
            room[cls] -= 1
            size = _filter(keys, weights, size, 0, mask[cls] << shift[cls], 1 << shift[cls], 0, False)
            continue
        if event == EVENT_DRAWN or event == EVENT_CHAIN_DRAWN:  # an ordinary draw (no effects: inlined, it folds)
            if size * num_classes > len(spare_keys):  # room for every hand to grow by every class
                spare_keys, spare_weights = _grown_table(size, num_classes)
            size = _draw_step(keys, weights, size, spare_keys, spare_weights, room, shift, mask, 0, low_class, 0,
                              heads, candidates)
            keys, spare_keys = spare_keys, keys
            weights, spare_weights = spare_weights, weights
        elif event >= EVENT_CHAIN:  # the draws of a trick's effects, then where they stopped
            effects, until_low, ran_out = _chain_effects(event)
            while index < count and events[index] == EVENT_CHAIN_DRAWN:
                index += 1
                if size * num_classes > len(spare_keys):
                    spare_keys, spare_weights = _grown_table(size, num_classes)
                size = _draw_step(keys, weights, size, spare_keys, spare_weights, room, shift, mask, until_low,
                                  low_class, effects, heads, candidates)
                keys, spare_keys = spare_keys, keys
                weights, spare_weights = spare_weights, weights
            size = _filter(keys, weights, size, 0, 0, 0, effects, ran_out)
        else:
            bit = condition_bit(event)
            if bit != NO_CONDITION:  # every hidden card then in the hand is allowed
                size = _filter(keys, weights, size, forbidden[bit], 0, 0, 0, False)
    return keys, weights, size, shift, mask


@njit(cache=True)
def _posterior(states, seat):
    """The posterior of the opponent's hidden hand in game 0 as ``seat`` sees it (see the module docstring):
    (status code, classes, hands, weights). ``classes`` groups the unseen and shown cards (per card id, -1 for
    the others) into classes no event tells apart; row ``i`` of ``hands`` is how many cards of each class a hidden
    hand may hold, and ``weights[i]`` its probability up to a common factor: its histories times the ways to pick
    its cards among the unseen ones."""
    state = states[0]
    opponent = other(seat)
    pool = np.empty(NUM_CARDS, np.int8)
    count = unseen_cards(state, seat, pool)
    events = state.hand_events[opponent, : state.hand_event_count[opponent]]
    member = np.zeros(NUM_CARDS, np.bool_)
    for index in range(count):
        member[pool[index]] = True
    hidden = 0
    for event in events:
        if event < EVENT_DRAWN:
            member[event] = True
            hidden -= 1
        elif event == EVENT_DRAWN or event == EVENT_CHAIN_DRAWN:
            hidden += 1
    in_hand = 0
    for index in range(count):
        in_hand += state.location[pool[index]] == LOC_HAND + opponent
    classes = np.empty(NUM_CARDS, np.int64)
    class_signature = np.empty(NUM_CARDS, np.int64)
    num_classes = _card_classes(state, events, member, classes, class_signature)
    if hidden != in_hand:  # the events do not account for the hand (not a record the rules reach)
        return NO_HISTORY, classes, np.zeros((1, 1), np.int64), np.ones(1, np.float64)
    if num_classes == 1:  # no event tells the cards apart: every hidden hand is equally likely
        return OK, classes, np.full((1, 1), hidden, np.int64), np.ones(1, np.float64)
    unseen_in = np.zeros(num_classes, np.int64)
    shown_in = np.zeros(num_classes, np.int64)
    for index in range(count):
        unseen_in[classes[pool[index]]] += 1
    for event in events:
        if event < EVENT_DRAWN:
            shown_in[classes[event]] += 1
    keys, weights, size, shift, mask = _hand_table(events, classes, class_signature, num_classes, unseen_in,
                                                   shown_in)
    if size < 0:
        return TOO_MANY_CLASSES, classes, np.zeros((1, 1), np.int64), np.ones(1, np.float64)
    hands = np.empty((size, num_classes), np.int64)
    total = 0.0
    for entry in range(size):
        for cls in range(num_classes):
            hands[entry, cls] = _held(keys[entry], shift, mask, cls)
            weights[entry] *= binomial(unseen_in[cls], hands[entry, cls])
        total += weights[entry]
    if not total > 0.0:
        return NO_HISTORY, classes, hands, weights[:size]
    return OK, classes, hands, weights[:size] / total


@njit(cache=True)
def _redeal(states, seat, seed, classes, hands, weights):
    """Reseed game 0's generator from ``seed`` and deal the cards ``seat`` has not seen again with it, the
    opponent's hidden hand from its posterior (:func:`_posterior`)."""
    state = states[0]
    seed_state(state, seed)
    pool = np.empty(NUM_CARDS, np.int8)
    count = unseen_cards(state, seat, pool)
    opponent = other(seat)
    chosen = 0  # how many cards of each class the hand holds: a row of hands, drawn by its weight
    if len(weights) > 1:
        target = rand_unit(state)
        chosen = len(weights) - 1  # the last with a weight, should rounding leave target above the sum
        while weights[chosen] == 0.0:
            chosen -= 1
        for entry in range(len(weights)):
            if weights[entry] > 0.0 and target < weights[entry]:
                chosen = entry
                break
            target -= weights[entry]
    held = hands[chosen].copy()
    # the cards of each class uniformly among its unseen ones: the first of that class in a uniform order; with one
    # class the rest are then in a uniform order too, otherwise which cards the hand took depends on that order and
    # the rest are shuffled again
    shuffle(state, pool, count)
    rest = np.empty(count, np.int8)
    left = 0
    for index in range(count):
        card = pool[index]
        if held[classes[card]] > 0:
            held[classes[card]] -= 1
            state.location[card] = LOC_HAND + opponent
        else:
            rest[left] = card
            left += 1
    if hands.shape[1] > 1:
        shuffle(state, rest, left)
    # the other unseen cards: the occupied downcard slots, then the stock from the bottom; every unseen card gets
    # its new place exactly once
    next_card = 0
    for owner in range(NUM_PLAYERS):
        for slot in range(state.num_downcards):
            if state.downcards[owner, slot] != NO_CARD:
                card = rest[next_card]
                state.downcards[owner, slot] = card
                state.location[card] = LOC_DOWN + owner
                next_card += 1
    for index in range(state.stock_size):
        card = rest[next_card]
        state.stock[index] = card
        state.location[card] = LOC_STOCK
        next_card += 1
    state.stock[state.stock_size:] = STOCK_TAIL
    if state.pending_arrangement[opponent] >= 0:
        state.pending_arrangement[opponent] = ARRANGE_BASE + rand_below(state, NUM_ARRANGEMENTS)


#: the posteriors of the records resampled last (per record and seat): a search resamples one record many times,
#: and the posterior depends on the record and seat alone, so it is counted once. ``ismcts`` draws once per view
#: and iteration, cycling through every decision of a tournament's batch (about a thousand in a 2,000-game
#: match), so the cache holds more than a batch; an entry is a few kilobytes
POSTERIOR_CACHE_SIZE = 4096
_posteriors: dict[tuple[int, bytes], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
_posteriors_lock = threading.Lock()


def _posterior_of(record: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_posterior` of the one-record array ``record``, counted once per record and seat (the latest
    POSTERIOR_CACHE_SIZE are kept)."""
    key = (seat, record.tobytes())
    with _posteriors_lock:
        found = _posteriors.get(key)
    if found is not None:
        return found
    status, classes, hands, weights = _posterior(record, seat)
    if status == NO_HISTORY:
        raise RuntimeError(f"no history of seat {1 - seat}'s hidden hand agrees with the record's hand_events")
    if status == TOO_MANY_CLASSES:
        raise RuntimeError(f"seat {1 - seat}'s hand_events tell more classes of cards apart than a table key holds")
    found = (classes, hands, weights)
    with _posteriors_lock:
        if len(_posteriors) >= POSTERIOR_CACHE_SIZE:
            del _posteriors[next(iter(_posteriors))]  # the oldest
        _posteriors[key] = found
    return found


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with every card ``seat`` has not seen dealt again (the opponent's hidden hand cards, the
    stock in a new order, every downcard) from their posterior given all the seat saw, the opponent's arrangement
    choice drawn again, and the game's generator reseeded from ``rng``.

    Args:
        state: a Gin Slaughtre state record (not changed).
        seat: the seat whose view is kept (0 or 1).
        rng: where the new generator seed comes from (the new deal is drawn from that generator).

    Returns:
        the new record (an ``np.record`` of its own one-record array).

    Raises:
        RuntimeError: no history of the opponent's hand agrees with the record's ``hand_events`` (a record the
            rules cannot reach), or its events tell more classes of cards apart than the table's keys hold.
    """
    copy = np.zeros(1, state.dtype)
    copy[0] = state
    classes, hands, weights = _posterior_of(copy, seat)
    _redeal(copy, seat, np.uint64(rng.integers(0, 2**64, dtype=np.uint64)), classes, hands, weights)
    return copy.view(np.recarray)[0]
