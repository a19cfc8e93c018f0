"""Slap's cards: ids, ranks, names.

A card id is ``rank * 4 + suit`` for the 52 French cards (rank 0 = Ace … 12 = King; suits ♣ ♦ ♥ ♠ as
``c d h s``), and 52, 53 for the two Jokers. A name is the rank (``A 2 … 10 J Q K``) followed by the suit
letter, e.g. ``"10h"``, ``"Qs"``; the Jokers are ``"Jo1"`` and ``"Jo2"``.
"""

from __future__ import annotations

from cardenvs.core.card_names import CardNames

NUM_SUITS = 4
NUM_RANKS = 13  # A … K
NUM_FRENCH_CARDS = NUM_SUITS * NUM_RANKS  # 52
NUM_JOKERS = 2
MAX_CARDS = NUM_FRENCH_CARDS + NUM_JOKERS  # 54: the largest deck (with Jokers)
NO_CARD = -1  # an empty slot in card fields

# Ranks
ACE = 0
TEN = 9
JACK = 10
QUEEN = 11
KING = 12
JOKER_RANK = 13  # a Joker's rank: equal only to the other Joker's
NUM_RANK_IDS = 14  # A … K and Joker
FIRST_JOKER = NUM_FRENCH_CARDS

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "Jo")
SUIT_NAMES = ("c", "d", "h", "s")


def card_rank(card: int) -> int:
    """The rank id of a card id (JOKER_RANK for a Joker)."""
    return JOKER_RANK if card >= FIRST_JOKER else card // NUM_SUITS


#: the deck's names: rank by rank (``rank * 4 + suit``), then the two Jokers
NAMES = CardNames(RANK_NAMES[:NUM_RANKS], SUIT_NAMES, rank_major=True, joker_names=("Jo1", "Jo2"),
                  examples="'Ac', '10h', 'Qs', 'Jo1'")
CARD_NAMES = NAMES.names


def card_name(card: int) -> str:
    """A card's short name, e.g. ``"10h"``; ``"-"`` for NO_CARD."""
    return NAMES.name(card)


def card_id(name_or_id: int | str) -> int:
    """A card id from an id or a name (``"Qs"``, ``"10h"``, ``"Jo1"``; case-insensitive); ValueError otherwise."""
    return NAMES.card_id(name_or_id)
