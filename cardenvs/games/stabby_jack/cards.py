"""Stabby Jack's cards: kinds, suits, values and names.

A card's *kind* is ``suit * 13 + rank`` for the 52 French cards and ``JOKER`` (52) for either Joker; copies of a
kind from different decks are identical, so piles store kinds. Ranks 0…8 are the numbered cards 2…10, then
Jack, Queen, King, Ace. Suits are in the order of the Stats they give: Hearts (hit points), Diamonds (magic),
Spades (attack), Clubs (luck).
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.card_names import CardNames

HEARTS = 0  # hit points
DIAMONDS = 1  # magic attack
SPADES = 2  # physical attack
CLUBS = 3  # luck
NUM_SUITS = 4

NUM_RANKS = 13
NUM_VALUES = 9  # numbered ranks 2…10
LOWEST_VALUE = 2
JACK = 9
QUEEN = 10
KING = 11
ACE = 12

JOKER = NUM_SUITS * NUM_RANKS  # kind 52
NUM_KINDS = JOKER + 1
NO_CARD = -1

CARDS_PER_DECK = NUM_SUITS * NUM_RANKS  # without Jokers
JOKERS_PER_DECK = 2
NUMBERED_PER_DECK = NUM_SUITS * NUM_VALUES
MONSTER_MONARCHS_PER_DECK = 4  # Queen and King of Diamonds and Spades: the Monarchs that can be won as XP

SUIT_LETTERS = "HDSC"
SUIT_SYMBOLS = "♥♦♠♣"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER_NAME = "JO"


@njit(cache=True)
def suit_of(kind):
    """The suit of a non-Joker kind."""
    return kind // NUM_RANKS


@njit(cache=True)
def rank_of(kind):
    """The rank index (0…12) of a non-Joker kind."""
    return kind % NUM_RANKS


@njit(cache=True)
def is_numbered(kind):
    """A numbered card 2…10 (a Stat, a monster); everything else is a Special."""
    return kind != JOKER and kind % NUM_RANKS < JACK


@njit(cache=True)
def value_of(kind):
    """The face value 2…10 of a numbered kind."""
    return kind % NUM_RANKS + LOWEST_VALUE


@njit(cache=True)
def is_monarch(kind):
    """A Queen or King: a Monarch."""
    return kind != JOKER and (kind % NUM_RANKS == QUEEN or kind % NUM_RANKS == KING)


@njit(cache=True)
def xp_worth(kind):
    """XP of a card in the XP row: a monster 1, a Monarch 2."""
    return 2 if is_monarch(kind) else 1


def card_kind(suit: int, value_or_rank: int) -> int:
    """The kind of a card given its suit and a face value 2…10 or a rank index ≥ JACK."""
    rank = value_or_rank - LOWEST_VALUE if value_or_rank <= 10 else value_or_rank
    return suit * NUM_RANKS + rank


#: the kinds' names: suit by suit (``suit * 13 + rank``), then the Joker
NAMES = CardNames(RANK_NAMES, tuple(SUIT_LETTERS), rank_major=False, joker_names=(JOKER_NAME,),
                  examples="2H, 10D, JS, QC, KH, AD and JO")
CARD_NAMES = NAMES.names


def card_name(kind: int) -> str:
    """Short name: ``"10H"``, ``"QS"``, ``"AC"``, ``"JO"``; ``"-"`` for no card."""
    return NAMES.name(kind)


def parse_card(card: int | str) -> int:
    """A kind from a name as in ``CARD_NAMES`` (case-insensitive) or an id 0…52; ValueError otherwise."""
    return NAMES.card_id(card)
