"""High Card's compiled engine: each player holds ``hand_size`` hidden cards; a trick is one card from each
player, the higher card wins it and its winner leads the next; after the last trick the player with more tricks
gets +1 and the other −1 (0 each on a tie)."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import seed_state, shuffle
from cardenvs.core.shared_rules import end_with_penalty
from tests.toy_game.params import MAX_DECK, NUM_PLAYERS

NO_CARD = -1
WIN_REWARD = 1.0
LOSS_REWARD = -1.0


@njit(cache=True)
def other(player):
    return 1 - player


@njit(cache=True)
def beats(card, lead):
    """The card that follows wins the trick when it is higher than the card led."""
    return card > lead


@njit(cache=True)
def deal(state, cards):
    """Deal ``cards`` (a deck order): the first ``hand_size`` to seat 0, the next to seat 1; seat 0 leads."""
    state.hand[:, :] = 0
    for i in range(state.hand_size):
        state.hand[0, cards[i]] = 1
        state.hand[1, cards[state.hand_size + i]] = 1
    state.lead_card = NO_CARD
    state.current_player = 0


@njit(cache=True)
def reset(state, seed):
    seed_state(state, seed)
    cards = np.arange(MAX_DECK)
    shuffle(state, cards, state.deck_size)
    deal(state, cards)


@njit(cache=True)
def _finish(state):
    state.terminated = True
    state.current_player = NO_PLAYER
    if state.points[0] != state.points[1]:
        winner = 0 if state.points[0] > state.points[1] else 1
        state.rewards[winner] = WIN_REWARD
        state.rewards[other(winner)] = LOSS_REWARD


@njit(cache=True)
def step(state, action):
    state.rewards[:] = 0.0
    state.step_count += 1
    player = state.current_player
    state.hand[player, action] = 0
    state.played[action] = 1
    if state.lead_card == NO_CARD:
        state.lead_card = action
        state.current_player = other(player)
        return
    winner = player if beats(action, state.lead_card) else other(player)
    state.points[winner] += 1
    state.tricks_played += 1
    state.lead_card = NO_CARD
    state.current_player = winner
    if state.tricks_played == state.hand_size:
        _finish(state)


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 0
    if state.current_player == NO_PLAYER:
        return
    for card in range(state.deck_size):
        mask[card] = state.hand[state.current_player, card]


@njit(cache=True)
def penalize(state, player):
    end_with_penalty(state, player)


def check_invariants(state: np.record, params) -> None:
    """Every card is in at most one place, hands shrink together, tricks and points agree."""
    held = state.hand.sum(axis=0) + state.played
    assert (held <= 1).all(), "a card is in two places"
    assert int(state.points.sum()) == int(state.tricks_played)
    assert int(state.played.sum()) == 2 * int(state.tricks_played) + (state.lead_card != NO_CARD)
    assert state.hand.sum() + state.played.sum() == NUM_PLAYERS * params.hand_size
