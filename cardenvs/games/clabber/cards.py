"""Clabber's 24 cards and their fixed tables.

A card's id is ``suit * 6 + rank``. Ranks are in sequence (meld) order, high to low: A K Q J 10 9, so a
sequence is a run of consecutive rank indices within one suit. Suits are clubs, diamonds, hearts, spades.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.card_names import CardNames

NUM_SUITS = 4
NUM_RANKS = 6
NUM_CARDS = NUM_SUITS * NUM_RANKS
NO_CARD = -1
NO_SUIT = -1

# Rank indices (sequence order, high to low)
ACE = 0
KING = 1
QUEEN = 2
JACK = 3
TEN = 4
NINE = 5

RANK_NAMES = ("A", "K", "Q", "J", "10", "9")
SUIT_NAMES = ("C", "D", "H", "S")  # clubs, diamonds, hearts, spades
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")

# Trick order, as a strength per rank (higher wins): trump J > 9 > A > 10 > K > Q; plain A > 10 > K > Q > J > 9.
TRUMP_STRENGTH = np.array([3, 1, 0, 5, 2, 4], np.int64)
PLAIN_STRENGTH = np.array([5, 3, 2, 1, 4, 0], np.int64)
# Card points: trump J 20, 9 14, A 11, 10 10, K 4, Q 3; plain A 11, 10 10, K 4, Q 3, J 2, 9 0.
TRUMP_POINTS = np.array([11, 4, 3, 20, 10, 14], np.int64)
PLAIN_POINTS = np.array([11, 4, 3, 2, 10, 0], np.int64)

CARD_POINTS_TOTAL = 152  # 62 in trumps + 3 × 30 in plain suits
LAST_TRICK_BONUS = 10
HAND_POINTS = CARD_POINTS_TOTAL + LAST_TRICK_BONUS  # 162

ALL_CARDS = (1 << NUM_CARDS) - 1
SUIT_MASK = (1 << NUM_RANKS) - 1  # the bits of suit 0; shift by suit * NUM_RANKS


#: the deck's names: suit by suit (``suit * 6 + rank``), no Jokers
NAMES = CardNames(RANK_NAMES, SUIT_NAMES, rank_major=False, no_card="--", examples="AC, 10D, JH, 9S")
CARD_NAMES = NAMES.names


def card_name(card: int) -> str:
    """Short name such as "JH" (Jack of hearts) or "10S"; "--" for NO_CARD."""
    return NAMES.name(card)


def card_id(card: int | str) -> int:
    """A card id from an id (0–23) or a name as in CARD_NAMES ("JH", "10s", "9c"); ValueError otherwise."""
    return NAMES.card_id(card)


def bits_to_cards(bits: int) -> list[int]:
    """The card ids set in a 24-bit card mask, in id order."""
    return [c for c in range(NUM_CARDS) if (int(bits) >> c) & 1]
