"""Clabber's OpenSpiel facts (``Game.openspiel_facts``): what the bridge in :mod:`cardenvs.openspiel` needs beyond
the manifest. Plain Python; OpenSpiel is not imported."""

from __future__ import annotations

from cardenvs.core.spiel_facts import OpenSpielFacts, Utility
from cardenvs.games.clabber import cards, melds, observation, rules
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams

#: agent decisions of one hand at most: two bidding rounds of four, a DECLARE/SKIP choice each at the first trick
#: (``optional_declare``), six tricks of four cards (forced moves make fewer, never more)
DECISIONS_PER_HAND = 2 * NUM_PLAYERS + NUM_PLAYERS + rules.NUM_TRICKS * NUM_PLAYERS
#: the most points one hand scores: 162 in cards and the last trick, every seat's best meld set and the Bell
#: (``belote_dedans`` pays the defenders all of it)
MOST_HAND_POINTS = cards.HAND_POINTS + NUM_PLAYERS * observation.MAX_MELD_POINTS + melds.BELL_POINTS


def facts(params: ClabberParams) -> OpenSpielFacts:
    """Clabber's OpenSpiel facts: zero-sum between the two partnerships (partners share a reward); returns of
    ±1 for a whole game, or with ``single_hand`` the point margin / 162, bounded by :data:`MOST_HAND_POINTS`;
    ``max_hands`` hands of :data:`DECISIONS_PER_HAND` decisions at most.

    Args:
        params: the game's parameters.
    """
    if params.single_hand:
        bound = MOST_HAND_POINTS / cards.HAND_POINTS
        utility_range = (-bound, bound)
    else:
        utility_range = (rules.LOSS_REWARD, rules.WIN_REWARD)
    return OpenSpielFacts(
        utility=Utility.ZERO_SUM,
        utility_range=utility_range,
        max_game_length=params.max_hands * DECISIONS_PER_HAND,
        team_game=True,
    )
