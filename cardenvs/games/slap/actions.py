"""Slap's actions: how many there are and their names."""

from __future__ import annotations

from cardenvs.games.slap.params import SlapParams

ACTION_NAMES = ("pass", "slap", "play")


def num_actions(params: SlapParams) -> int:
    """PASS and SLAP, plus PLAY with ``expose_play_action``."""
    return 3 if params.expose_play_action else 2


def action_name(params: SlapParams, action: int) -> str:
    return ACTION_NAMES[action]
