"""Gin Slaughtre's 54 cards: ids, ranks, suits and names.

A card's id is ``rank * 4 + suit`` for the 52 suited cards and 52, 53 for the two Jokers, so ``id // 4`` is the
card's rank in the game's order (Ace 0 … King 12, Joker 13) and ``id % 4`` its suit (♣ 0, ♦ 1, ♥ 2, ♠ 3; the
order a set is laid down in, rule:tricks). Ids sort by rank, then suit.
"""

from __future__ import annotations

from collections.abc import Iterable

from cardenvs.core.card_names import CardNames

NUM_CARDS = 54
NUM_SUITS = 4
NUM_SUITED_RANKS = 13  # A … K
NUM_RANKS = 14  # A … K, Joker
NO_CARD = -1  # an empty slot in card fields

FIRST_JOKER = 52
NUM_JOKERS = 2

# Ranks (``card // 4``), in the order used for "equal or higher".
RANK_ACE = 0
RANK_TWO = 1
RANK_THREE = 2
RANK_FIVE = 4
RANK_NINE = 8
RANK_JACK = 10
RANK_KING = 12
RANK_JOKER = 13

# Suits (``card % 4`` for suited cards).
CLUBS = 0
DIAMONDS = 1
HEARTS = 2
SPADES = 3

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "Jo")
SUIT_LETTERS = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")


#: the deck's ASCII names: rank by rank (``rank * 4 + suit``), then the two Jokers
NAMES = CardNames(RANK_NAMES[:NUM_SUITED_RANKS], SUIT_LETTERS, rank_major=True, joker_names=("JO1", "JO2"),
                  examples="AC, 10H, QS, KD, JO1, JO2")
CARD_NAMES = NAMES.names


def card_name(card: int) -> str:
    """Short ASCII name: ``"AC"``, ``"10H"``, ``"QS"``, ``"JO1"``/``"JO2"`` for the Jokers, ``"-"`` for none."""
    return NAMES.name(card)


def pretty_name(card: int) -> str:
    """Name with a suit symbol, as on the table and in action names: ``"10♥"``, ``"Jo1"``/``"Jo2"``."""
    if card >= FIRST_JOKER:
        return f"Jo{card - FIRST_JOKER + 1}"
    return RANK_NAMES[card // NUM_SUITS] + SUIT_SYMBOLS[card % NUM_SUITS]


def card_id(name_or_id: int | str) -> int:
    """A card id from an id or a name as in :func:`card_name` (case-insensitive); ValueError otherwise."""
    return NAMES.card_id(name_or_id)


def card_ids(cards: Iterable[int | str]) -> list[int]:
    """:func:`card_id` of each entry."""
    return [card_id(c) for c in cards]
