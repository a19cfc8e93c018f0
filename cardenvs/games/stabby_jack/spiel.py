"""Stabby Jack's OpenSpiel facts (``Game.openspiel_facts``): what the bridge in :mod:`cardenvs.openspiel` needs
beyond the manifest. Plain Python; OpenSpiel is not imported."""

from __future__ import annotations

from cardenvs.core.spiel_facts import OpenSpielFacts, win_loss_utility
from cardenvs.games.stabby_jack import rules
from cardenvs.games.stabby_jack.params import StabbyJackParams

#: agent decisions allowed per turn (main action, the Stat it replaces, Level Ups with their payments and cap
#: choices, Ace targets, shields). Free Level Ups repeat while XP lasts, so the rules give no small bound; random
#: play takes about 1.4 decisions a turn, and the random simulation tests check this bound.
DECISIONS_PER_TURN = 8


def facts(params: StabbyJackParams) -> OpenSpielFacts:
    """Stabby Jack's OpenSpiel facts: +1 to the winner and −1 to every other seat (zero-sum with two players,
    general-sum with more), and :data:`DECISIONS_PER_TURN` decisions for each of ``max_turns`` turns.

    Args:
        params: the game's parameters.
    """
    return OpenSpielFacts(
        utility=win_loss_utility(params.num_players),
        utility_range=(rules.LOSS_REWARD, rules.WIN_REWARD),
        max_game_length=params.max_turns * DECISIONS_PER_TURN,
    )
