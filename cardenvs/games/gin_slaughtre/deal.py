"""Gin Slaughtre's chosen deals (``env.reset(options={"deal": ...})``, see docs/rules/gin_slaughtre.md)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.games.gin_slaughtre import rules
from cardenvs.games.gin_slaughtre.actions import (
    HAND_SIZE,
    NUM_UPCARDS,
)
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS, card_ids
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams

DEAL_KEYS = ("dealer", "deck", "hands", "upcards", "downcards", "stock")


def _seat_cards(deal: dict[str, Any], key: str, size: int) -> list[list[int]]:
    if key not in deal:
        raise ValueError(f"the deal needs {key!r}: a list of {size} cards per seat")
    seats = deal[key]
    if len(seats) != NUM_PLAYERS or any(len(cards) != size for cards in seats):
        raise ValueError(f"{key!r} must hold {size} cards for each of the {NUM_PLAYERS} seats")
    return [card_ids(cards) for cards in seats]


def deck_from_deal(params: GinSlaughtreParams, deal: dict[str, Any]) -> tuple[int, list[int]]:
    """The dealer and the full deck order (top first) that a ``deal`` option describes (docs/rules, "Deals")."""
    unknown = set(deal) - set(DEAL_KEYS)
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: {', '.join(DEAL_KEYS)}")
    dealer = deal.get("dealer", 0)
    if isinstance(dealer, bool) or dealer not in range(NUM_PLAYERS):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    if "deck" in deal:
        if set(deal) - {"dealer", "deck"}:
            raise ValueError("give either 'deck' or hands/upcards/downcards/stock, not both")
        deck = card_ids(deal["deck"])
    else:
        hands = _seat_cards(deal, "hands", HAND_SIZE)
        upcards = _seat_cards(deal, "upcards", NUM_UPCARDS)
        downcards = _seat_cards(deal, "downcards", params.num_downcards) if params.num_downcards else [[], []]
        if "downcards" in deal and not params.num_downcards:
            raise ValueError("'downcards' needs num_downcards=3")
        deck = []
        for k in range(NUM_PLAYERS):
            seat = (dealer + 1 + k) % NUM_PLAYERS
            deck += downcards[seat] + upcards[seat] + hands[seat]
        deck += card_ids(deal.get("stock", []))
        deck += [c for c in range(NUM_CARDS) if c not in deck]
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError("the deal must use each of the 54 cards exactly once")
    return int(dealer), deck


def apply_deal(state: np.record, params: GinSlaughtreParams, deal: dict[str, Any]) -> None:
    """Replace the current deal by a chosen one (see docs/rules/gin_slaughtre.md, "Deals").

    ``deal = {"dealer": 0, "deck": [54 cards, top first]}`` or ``{"dealer": 0, "hands": [[4], [4]],
    "upcards": [[3], [3]], "stock": [cards drawn first, ...]}`` (+ ``"downcards"`` with num_downcards=3); cards
    are ids or names like ``"10H"``, ``"JO1"``. The stock list may be partial: the remaining cards follow by id.
    """
    dealer, deck = deck_from_deal(params, deal)
    state.dealer = dealer
    state.stock[:] = np.array(deck[::-1], np.int8)  # the engine draws from the end
    rules.deal(state)
