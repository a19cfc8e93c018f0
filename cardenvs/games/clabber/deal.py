"""Clabber's chosen deals (``env.reset(options={"deal": ...})``, see docs/rules/clabber.md)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import NUM_CARDS, card_id, card_name
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS, ClabberParams


def deal_order(deal: dict[str, Any]) -> tuple[int, list[int]]:
    """The (dealer, deck order) of a ``deal`` option; see docs/rules/clabber.md, "Chosen deals"."""
    unknown = set(deal) - {"dealer", "deck", "hands", "turn_up"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: dealer, deck, hands, turn_up")
    if "dealer" not in deal:
        raise ValueError("a deal needs 'dealer' (seat 0–3)")
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < NUM_PLAYERS:
        raise ValueError(f"dealer must be a seat 0..{NUM_PLAYERS - 1}; got {dealer!r}")
    dealer = int(dealer)
    if ("deck" in deal) == ("hands" in deal):
        raise ValueError("give exactly one of 'deck' (24 cards in deal order) or 'hands' (6 cards per seat)")
    if "deck" in deal:
        if "turn_up" in deal:
            raise ValueError("with 'deck' the turn-up is the deck's last card; leave out 'turn_up'")
        deck = [card_id(c) for c in deal["deck"]]
    else:
        hands = [[card_id(c) for c in seat_cards] for seat_cards in deal["hands"]]
        if len(hands) != NUM_PLAYERS or any(len(h) != CARDS_PER_HAND for h in hands):
            raise ValueError(f"'hands' needs {NUM_PLAYERS} lists of {CARDS_PER_HAND} cards (seat order)")
        dealer_hand = hands[dealer]
        if "turn_up" in deal:
            turn_up = card_id(deal["turn_up"])
            if turn_up not in dealer_hand:
                raise ValueError(f"turn_up {card_name(turn_up)} must be one of the dealer's cards")
            dealer_hand = [c for c in dealer_hand if c != turn_up] + [turn_up]
        deck = []
        for i in range(NUM_CARDS):  # card i of the deal goes to seat dealer+1+i, round by round
            seat = (dealer + 1 + i) % NUM_PLAYERS
            deck.append((dealer_hand if seat == dealer else hands[seat])[i // NUM_PLAYERS])
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError("the deal must use each of the 24 cards exactly once")
    return dealer, deck


def apply_deal(state: np.record, params: ClabberParams, deal: dict[str, Any]) -> None:
    """Restart the game from a chosen first deal (see docs/rules/clabber.md, "Chosen deals").

    ``deal = {"dealer": seat, "hands": [[6 cards] per seat], "turn_up": card}`` (``turn_up`` optional: the
    dealer's last listed card) or ``{"dealer": seat, "deck": [24 cards in deal order]}``. Cards are ids or
    names ("JH", "10s"). Later hands are shuffled by the game's own generator as usual.
    """
    dealer, deck = deal_order(deal)
    state.dealer = dealer
    state.deck[:] = np.array(deck, np.int8)
    rules.start_from_deck(state)
