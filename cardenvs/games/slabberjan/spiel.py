"""Slabberjan's OpenSpiel facts (``Game.openspiel_facts``): what the bridge in :mod:`cardenvs.openspiel` needs
beyond the manifest. Plain Python; OpenSpiel is not imported."""

from __future__ import annotations

from cardenvs.core.spiel_facts import OpenSpielFacts, Utility, win_loss_utility
from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.params import REWARD_SCHEMES, SlabberjanParams

#: rounds allowed for fool-over-fool redeals, per round that ends in a showdown. A redeal has no bound by the
#: rules (two Fools can meet again); this allowance makes the length bound one that a game exceeds only with a
#: vanishing probability, not a proof.
REDEALS_PER_ROUND = 1
#: the reward scheme whose rewards always sum to 0 (+1 … −1, linear in the order of elimination)
PLACEMENT = REWARD_SCHEMES[1]


def facts(params: SlabberjanParams) -> OpenSpielFacts:
    """Slabberjan's OpenSpiel facts: zero-sum with two players or ``placement`` rewards, else general-sum;
    returns from −1 to +1; a length bound of every seat acting once in each round, with one round for every
    payment any seat can make and :data:`REDEALS_PER_ROUND` redeals for each.

    Args:
        params: the game's parameters.
    """
    utility = Utility.ZERO_SUM if params.reward_scheme == PLACEMENT else win_loss_utility(params.num_players)
    # Every round that is not redealt ends in a showdown where someone pays, and a seat pays at most
    # start_chips + 1 times (the last one it owes); every seat in acts at most once a round.
    showdowns = params.num_players * (params.start_chips + 1)
    rounds = showdowns * (1 + REDEALS_PER_ROUND)
    return OpenSpielFacts(
        utility=utility,
        utility_range=(rules.LOSS_REWARD, rules.WIN_REWARD),
        max_game_length=rounds * params.num_players,
    )
