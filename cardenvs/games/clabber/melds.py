"""Melds: every possible meld as a table row, and each hand's best disjoint meld set (compiled).

A meld's comparison key is ``(category + 1) * 100 + a * 10 + b``; a higher key ranks higher and 0 means
"no meld". Four of a kind has ``a = b = 0``. For sequences ``(a, b)`` is (is trump, top card strength) with
``seq_tiebreak="trump_first"`` and (top card strength, is trump) with ``"top_card_first"``; top card strength
is 5 for an Ace down to 2 for a Jack. Equal keys are equal melds (e.g. two plain K-Q-J).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.games.clabber.cards import ACE, JACK, KING, NINE, NUM_RANKS, NUM_SUITS, QUEEN, TEN

# Meld categories, low to high (rule:meld_ranking read bottom up).
SEQ_THREE = 0
SEQ_FOUR = 1
SEQ_FIVE_PLUS = 2  # rule:meld_values: a 6-card sequence is one 5+ sequence, worth 100
FOUR_QUEENS = 3
FOUR_KINGS = 4
FOUR_TENS = 5
FOUR_ACES = 6
FOUR_NINES = 7
FOUR_JACKS = 8
NUM_CATEGORIES = 9
NO_CATEGORY = -1

CATEGORY_NAMES = (
    "sequence of 3", "sequence of 4", "sequence of 5+", "four Queens", "four Kings", "four 10s", "four Aces",
    "four 9s", "four Jacks",
)
CATEGORY_POINTS = np.array([20, 50, 100, 100, 100, 100, 100, 100, 200], np.int64)
FOUR_OF_A_KIND_CATEGORY = {QUEEN: FOUR_QUEENS, KING: FOUR_KINGS, TEN: FOUR_TENS, ACE: FOUR_ACES,
                           NINE: FOUR_NINES, JACK: FOUR_JACKS}
MIN_SEQUENCE = 3
KEY_STEP = 100  # key units per category
TRUMP_FIRST = 0  # seq_tiebreak codes (params.SEQ_TIEBREAKS)
TOP_CARD_FIRST = 1
BELL_POINTS = 20


def _candidate_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every meld that can exist: (card mask, category, suit or -1, top card strength or 0) per row."""
    masks, categories, suits, tops = [], [], [], []
    for rank, category in FOUR_OF_A_KIND_CATEGORY.items():
        masks.append(sum(1 << (suit * NUM_RANKS + rank) for suit in range(NUM_SUITS)))
        categories.append(category)
        suits.append(-1)
        tops.append(0)
    for suit in range(NUM_SUITS):
        for start in range(NUM_RANKS):
            for length in range(MIN_SEQUENCE, NUM_RANKS - start + 1):
                masks.append(sum(1 << (suit * NUM_RANKS + start + i) for i in range(length)))
                categories.append(min(length - MIN_SEQUENCE, SEQ_FIVE_PLUS))
                suits.append(suit)
                tops.append(NUM_RANKS - 1 - start)  # Ace (rank 0) tops strongest
    return (np.array(masks, np.int64), np.array(categories, np.int64), np.array(suits, np.int64),
            np.array(tops, np.int64))


MELD_MASKS, MELD_CATEGORIES, MELD_SUITS, MELD_TOPS = _candidate_table()
NUM_MELD_CANDIDATES = len(MELD_MASKS)


@njit(cache=True)
def popcount(bits):
    """Number of set bits of a non-negative int."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def meld_key(candidate, trump, seq_tiebreak):
    """The comparison key of candidate row ``candidate`` with ``trump`` (a suit or -1) known."""
    base = (MELD_CATEGORIES[candidate] + 1) * KEY_STEP
    suit = MELD_SUITS[candidate]
    if suit < 0:
        return base
    is_trump = 1 if suit == trump else 0
    if seq_tiebreak == TRUMP_FIRST:
        return base + is_trump * 10 + MELD_TOPS[candidate]
    return base + MELD_TOPS[candidate] * 10 + is_trump


@njit(cache=True)
def _better(points, key, cards, best_points, best_key, best_cards):
    """rule:meld_declaring: the better set has more points, then the higher best meld, then more cards."""
    if points != best_points:
        return points > best_points
    if key != best_key:
        return key > best_key
    return cards > best_cards


@njit(cache=True)
def best_melds(hand_bits, trump, seq_tiebreak):
    """A hand's best disjoint meld set: (card mask, points, key of its best meld, category of that meld).

    Six cards hold at most two disjoint melds (each has three or more cards), so singles and pairs suffice.
    """
    best_mask = 0
    best_points = 0
    best_key = 0
    best_category = NO_CATEGORY
    for first in range(NUM_MELD_CANDIDATES):
        first_mask = MELD_MASKS[first]
        if hand_bits & first_mask != first_mask:
            continue
        first_key = meld_key(first, trump, seq_tiebreak)
        points = CATEGORY_POINTS[MELD_CATEGORIES[first]]
        if _better(points, first_key, popcount(first_mask), best_points, best_key, popcount(best_mask)):
            best_mask, best_points, best_key = first_mask, points, first_key
            best_category = MELD_CATEGORIES[first]
        for second in range(first + 1, NUM_MELD_CANDIDATES):
            second_mask = MELD_MASKS[second]
            if hand_bits & second_mask != second_mask or first_mask & second_mask:
                continue
            second_key = meld_key(second, trump, seq_tiebreak)
            pair_points = points + CATEGORY_POINTS[MELD_CATEGORIES[second]]
            top_key = max(first_key, second_key)
            pair_mask = first_mask | second_mask
            if _better(pair_points, top_key, popcount(pair_mask), best_points, best_key, popcount(best_mask)):
                best_mask, best_points, best_key = pair_mask, pair_points, top_key
                best_category = MELD_CATEGORIES[first] if first_key >= second_key else MELD_CATEGORIES[second]
    return best_mask, best_points, best_key, best_category


def key_category(key: int) -> int:
    """The category of a meld key (NO_CATEGORY for 0)."""
    return key // KEY_STEP - 1 if key > 0 else NO_CATEGORY
