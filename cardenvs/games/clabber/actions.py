"""Clabber's actions: how many there are and their names."""

from __future__ import annotations

from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import NUM_CARDS, SUIT_WORDS, card_name
from cardenvs.games.clabber.params import ClabberParams


def num_actions(params: ClabberParams) -> int:
    """24 cards, PASS, ACCEPT, 4 × NAME_SUIT; DECLARE and SKIP with optional_declare."""
    return rules.NUM_ACTIONS_WITH_DECLARE if params.optional_declare else rules.NUM_BASE_ACTIONS


def action_name(params: ClabberParams, action: int) -> str:
    """A short readable name: "play JH", "pass", "accept", "name spades", "declare", "skip"."""
    if 0 <= action < NUM_CARDS:
        return f"play {card_name(action)}"
    if action == rules.PASS:
        return "pass"
    if action == rules.ACCEPT:
        return "accept"
    if rules.NAME_SUIT <= action < rules.DECLARE:
        return f"name {SUIT_WORDS[action - rules.NAME_SUIT]}"
    if action == rules.DECLARE and params.optional_declare:
        return "declare"
    if action == rules.SKIP and params.optional_declare:
        return "skip"
    raise ValueError(f"action {action!r} is out of range 0..{num_actions(params) - 1}")
