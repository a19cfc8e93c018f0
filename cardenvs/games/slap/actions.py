"""Slap's actions: how many there are and their names."""

from __future__ import annotations

from cardenvs.games.slap.params import SlapParams

ACTION_NAMES = ("pass", "slap", "play")


def num_actions(params: SlapParams) -> int:
    """PASS and SLAP, plus PLAY with ``expose_play_action``."""
    return 3 if params.expose_play_action else 2


def action_name(params: SlapParams, action: int) -> str:
    return ACTION_NAMES[action]


def public_action_name(params: SlapParams, action: int) -> str:
    """How the other seats see an action: a slap window's choices are secret until the window closes."""
    return "plays a card" if ACTION_NAMES[action] == "play" else "chooses (shown when the window closes)"
