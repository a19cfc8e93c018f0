"""Slap's OpenSpiel facts (``Game.openspiel_facts``): what the bridge in :mod:`cardenvs.openspiel` needs beyond the
manifest. Plain Python; OpenSpiel is not imported."""

from __future__ import annotations

from cardenvs.core.spiel_facts import OpenSpielFacts, Utility, win_loss_utility
from cardenvs.games.slap import rules
from cardenvs.games.slap.params import REWARD_SCHEMES, SlapParams

#: the reward scheme that pays each seat its share of the cards, from 0 to 1
SHARE_OF_CARDS = REWARD_SCHEMES[1]
#: the returns of ``share_of_cards``: no cards to all of them
SHARE_RANGE = (0.0, 1.0)


def facts(params: SlapParams) -> OpenSpielFacts:
    """Slap's OpenSpiel facts: ``winner_takes_all`` zero-sum with two players and general-sum with more, from −1 to
    +1; ``share_of_cards`` general-sum (the shares sum to 1 at a win, less at a truncation: the pile is nobody's),
    from 0 to 1; per card played a PLAY decision (``expose_play_action``) and a slap window asking every seat once.

    Args:
        params: the game's parameters.
    """
    if params.reward_scheme == SHARE_OF_CARDS:
        utility, utility_range = Utility.GENERAL_SUM, SHARE_RANGE
    else:
        utility, utility_range = win_loss_utility(params.num_players), (rules.LOSS_REWARD, rules.WIN_REWARD)
    return OpenSpielFacts(
        utility=utility,
        utility_range=utility_range,
        max_game_length=params.max_cards_played * (params.num_players + 1),
    )
