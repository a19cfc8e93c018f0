"""Slabberjan's actions: how many there are and their names."""

from __future__ import annotations

from cardenvs.games.slabberjan.params import SlabberjanParams

ACTION_NAMES = ("stand", "exchange (swap left / dealer: draw from bag)", "dealer swaps left")


def num_actions(params: SlabberjanParams) -> int:
    """STAND and EXCHANGE, plus the dealer's left swap when that variant is on."""
    return 3 if params.dealer_may_swap_left else 2


def action_name(params: SlabberjanParams, action: int) -> str:
    return ACTION_NAMES[action]
