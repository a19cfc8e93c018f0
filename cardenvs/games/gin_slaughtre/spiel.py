"""Gin Slaughtre's OpenSpiel facts (``Game.openspiel_facts``): what the bridge in :mod:`cardenvs.openspiel` needs
beyond the manifest. Plain Python; OpenSpiel is not imported."""

from __future__ import annotations

from cardenvs.core.spiel_facts import OpenSpielFacts, Utility
from cardenvs.games.gin_slaughtre import rules
from cardenvs.games.gin_slaughtre.params import GinSlaughtreParams


def facts(params: GinSlaughtreParams) -> OpenSpielFacts:
    """Gin Slaughtre's OpenSpiel facts: zero-sum (+1 and −1, or 0 to both at a truncation), and truncated after
    ``max_turns`` agent decisions.

    Args:
        params: the game's parameters.
    """
    return OpenSpielFacts(
        utility=Utility.ZERO_SUM,
        utility_range=(rules.LOSS_REWARD, rules.WIN_REWARD),
        max_game_length=params.max_turns,
    )
