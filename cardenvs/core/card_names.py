"""Card names of a game's deck: the short name of each card id and the id of each name, from the game's rank and
suit tables.

A game of French-suited cards numbers its suited cards either rank by rank (``rank * suits + suit``) or suit by suit
(``suit * ranks + rank``), then its Jokers, if any; a card's short name is its rank's name followed by its suit's
(``"10H"``, ``"Qs"``) and a Joker has a name of its own. Each game's ``cards.py`` builds one :class:`CardNames` and
keeps its ``card_name`` and ``card_id`` as uses of it, so that naming and parsing are the same for every game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the card id of an empty slot in every game's card fields
NO_CARD = -1


@dataclass(frozen=True)
class CardNames:
    """The names of a deck's cards.

    Args:
        rank_names: each rank's name, in rank order.
        suit_names: each suit's name, in suit order.
        rank_major: suited cards are numbered ``rank * len(suit_names) + suit`` (True) or
            ``suit * len(rank_names) + rank`` (False).
        joker_names: the names of the ids after the suited cards, in id order.
        no_card: the name of :data:`NO_CARD`.
        examples: a few names, for the message about a name that is not a card.
    """

    rank_names: Sequence[str]
    suit_names: Sequence[str]
    rank_major: bool
    joker_names: Sequence[str] = ()
    no_card: str = "-"
    examples: str = ""
    names: tuple[str, ...] = field(init=False)
    _ids: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        suited = len(self.rank_names) * len(self.suit_names)
        names = tuple(self._suited_name(card) for card in range(suited)) + tuple(self.joker_names)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "_ids", {name.upper(): card for card, name in enumerate(names)})

    def _suited_name(self, card: int) -> str:
        if self.rank_major:
            rank, suit = divmod(card, len(self.suit_names))
        else:
            suit, rank = divmod(card, len(self.rank_names))
        return self.rank_names[rank] + self.suit_names[suit]

    def name(self, card: int) -> str:
        """The short name of a card id (:attr:`no_card` for :data:`NO_CARD`).

        Args:
            card: a card id of the deck, or :data:`NO_CARD`.
        """
        card = int(card)
        return self.no_card if card == NO_CARD else self.names[card]

    def card_id(self, card: Any) -> int:
        """A card id from an id or a name (case-insensitive); ValueError saying what a card is otherwise.

        Args:
            card: a card id (a whole number from 0 to the deck's size - 1) or a card's name.
        """
        if isinstance(card, str):
            found = self._ids.get(card.strip().upper())
            if found is None:
                raise ValueError(f"unknown card {card!r}; cards are named like {self.examples}")
            return found
        whole = isinstance(card, (int, np.integer)) or (
            isinstance(card, (float, np.floating)) and float(card).is_integer())
        if isinstance(card, (bool, np.bool_)) or not whole or not 0 <= card < len(self.names):
            raise ValueError(f"card id {card!r} is out of range 0..{len(self.names) - 1}")
        return int(card)
