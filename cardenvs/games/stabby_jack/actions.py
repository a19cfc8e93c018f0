"""Stabby Jack's actions: how many there are and their names (the ids are the engine's, in rules.py)."""

from __future__ import annotations

from cardenvs.games.stabby_jack.params import MAX_STATS, StabbyJackParams
from cardenvs.games.stabby_jack.rules import (
    ACE_TARGET_BASE,
    DECLINE,
    FIGHT,
    LEVEL_UP,
    NO_SHIELD,
    PAY_MONARCH,
    PAY_MONSTER,
    REST,
    SHIELD,
    SLOT_BASE,
    TRAIN,
)

_NAMED_ACTIONS = {
    TRAIN: "train", FIGHT: "fight", REST: "rest", LEVEL_UP: "level up", DECLINE: "decline",
    SHIELD: "shield", NO_SHIELD: "no shield", PAY_MONSTER: "pay 1-XP card", PAY_MONARCH: "pay Monarch",
}


def num_actions(params) -> int:
    """TRAIN…PAY_MONARCH, then one ACE_TARGET per opponent seat and slot (sized for ``params.seats()``)."""
    return ACE_TARGET_BASE + (params.seats() - 1) * MAX_STATS


def action_name(params: StabbyJackParams, action: int) -> str:
    """A short readable name: ``"train"``, ``"slot 3"``, ``"ace: seat +1 slot 2"``, …"""
    if action in _NAMED_ACTIONS:
        return _NAMED_ACTIONS[action]
    if SLOT_BASE <= action < SLOT_BASE + MAX_STATS:
        return f"slot {action - SLOT_BASE}"
    index = action - ACE_TARGET_BASE
    if 0 <= index < (params.seats() - 1) * MAX_STATS:
        return f"ace: seat +{index // MAX_STATS + 1} slot {index % MAX_STATS}"
    return f"invalid {action}"
