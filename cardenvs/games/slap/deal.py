"""Slap's chosen deals (``env.reset(options={"deal": ...})``, see docs/rules/slap.md)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.games.slap import rules
from cardenvs.games.slap.cards import NO_CARD, card_id
from cardenvs.games.slap.params import PARAM_FIELDS, SlapParams

_KEPT_FIELDS = ("rng", "num_players", *PARAM_FIELDS)


def _clear_game(state: np.record) -> None:
    """Zero every field of the game in progress (parameters and the generator stay)."""
    for name in state.dtype.names:
        if name not in _KEPT_FIELDS:
            state[name] = 0


def apply_deal(state: np.record, params: SlapParams, deal: dict[str, Any]) -> None:
    """Replace the current deal by a chosen one (see docs/rules/slap.md, "Chosen deals").

    ``{"dealer": seat, "deck": [52 or 54 cards in dealing order]}`` deals exactly like a shuffled pack;
    ``{"dealer": seat, "stacks": [[cards top first] per seat]}`` sets the stacks directly (any distinct cards of
    the pack, at least two seats holding some); cards are ids or names such as ``"Qs"``, ``"10h"``, ``"Jo1"``.
    """
    n = params.num_players
    unknown = set(deal) - {"dealer", "deck", "stacks"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: dealer, deck, stacks")
    if ("deck" in deal) == ("stacks" in deal):
        raise ValueError("a deal gives exactly one of 'deck' (full pack in dealing order) or 'stacks'")
    dealer = int(deal.get("dealer", state.dealer))
    if not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}; got {dealer}")
    size = params.deck_size
    if "deck" in deal:
        deck = [card_id(c) for c in deal["deck"]]
        if sorted(deck) != list(range(size)):
            raise ValueError(f"deck must list each of the {size} cards of the pack exactly once")
        _clear_game(state)
        state.dealer = dealer
        state.deck[:] = NO_CARD
        state.deck[:size] = deck
        rules.deal_deck(state)
        return
    stacks = [[card_id(c) for c in stack] for stack in deal["stacks"]]
    cards = [card for stack in stacks for card in stack]
    if len(stacks) != n:
        raise ValueError(f"stacks needs one list per seat ({n}); use [] for a seat with no cards")
    if len(set(cards)) != len(cards) or any(card >= size for card in cards):
        raise ValueError(f"stacks must hold distinct cards of the pack (ids below {size}; Jokers need jokers=True)")
    if sum(1 for stack in stacks if stack) < 2:
        raise ValueError("at least two seats must hold cards (one seat holding all cards has already won)")
    _clear_game(state)
    rules.clear_table(state)
    state.dealer = dealer
    state.deck[:] = NO_CARD
    for seat, stack in enumerate(stacks):
        state.stack[seat, : len(stack)] = stack
        state.stack_size[seat] = len(stack)
        for card in stack:
            state.in_play[card] = 1
    state.cards_in_play = len(cards)
    rules.start_play(state)
