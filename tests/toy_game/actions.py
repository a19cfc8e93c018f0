"""High Card's actions: action ``c`` plays card ``c``."""

from __future__ import annotations

from tests.toy_game.params import ToyParams


def num_actions(params: ToyParams) -> int:
    """One action per card of the deck."""
    return params.deck_size


def action_name(params: ToyParams, action: int) -> str:
    return f"play {action}"
