"""High Card's observation: own hand, the card led, the cards played, the tricks of both seats (own first)."""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from tests.toy_game.params import NUM_PLAYERS, ToyParams
from tests.toy_game.rules import NO_CARD, legal_mask


def observation_layout(params: ToyParams) -> ObservationLayout:
    deck = params.deck_size
    return ObservationLayout([
        ObservationView("own_hand", deck, 0.0, 1.0, "1 where this seat holds the card"),
        ObservationView("lead_card", deck, 0.0, 1.0, "one-hot of the card led to the current trick"),
        ObservationView("played", deck, 0.0, 1.0, "1 where the card has been played"),
        ObservationView("points", NUM_PLAYERS, 0.0, float(params.hand_size), "tricks won, own seat first"),
    ])


@njit(cache=True)
def observe(state, player, obs, mask):
    deck = state.deck_size
    obs[:] = 0.0
    for card in range(deck):
        obs[card] = state.hand[player, card]
        obs[2 * deck + card] = state.played[card]
    if state.lead_card != NO_CARD:
        obs[deck + int(state.lead_card)] = 1.0
    for rel in range(NUM_PLAYERS):
        obs[3 * deck + rel] = state.points[(player + rel) % NUM_PLAYERS]
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0
