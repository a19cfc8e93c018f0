"""High Card's chosen deals: ``{"hands": [[cards of seat 0], [cards of seat 1]]}``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.toy_game.params import NUM_PLAYERS, ToyParams
from tests.toy_game.rules import deal

DEAL_KEYS = ("hands",)


def apply_deal(state: np.record, params: ToyParams, chosen: dict[str, Any]) -> None:
    """Replace the random deal by ``chosen``: ``hand_size`` distinct cards per seat."""
    unknown = set(chosen) - set(DEAL_KEYS)
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: {', '.join(DEAL_KEYS)}")
    hands = [[int(card) for card in hand] for hand in chosen["hands"]]
    cards = [card for hand in hands for card in hand]
    if len(hands) != NUM_PLAYERS or any(len(hand) != params.hand_size for hand in hands):
        raise ValueError(f"hands needs {NUM_PLAYERS} lists of {params.hand_size} cards")
    if len(set(cards)) != len(cards) or not all(0 <= card < params.deck_size for card in cards):
        raise ValueError(f"hands must hold distinct cards from 0 to {params.deck_size - 1}")
    deal(state, np.array(cards, np.int64))
