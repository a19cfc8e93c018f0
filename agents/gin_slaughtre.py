"""A rule-based Gin Slaughtre agent: shed low cards in big tricks, keep the special cards for when stuck.

Strategy (what a sensible Shithead player does), decided from the observation and the mask only:

* arranging: the three most valuable of the seven cards (2s, 9s, Jokers, then high ranks) become the upcards;
* playing: every legal trick gets a cost, the *keep value* of its lowest card minus a bonus per extra card, so
  low cards go first and sets and runs are preferred; 2s, 9s and Jokers are worth keeping, so they are played
  only when nothing cheaper is legal — except a Joker on a big pile, which hands the pile to the opponent;
* stuck: draw if allowed, take the pile last.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    ARRANGEMENTS,
    DEALT_PER_PLAYER,
    DRAW,
    NUM_ALL_ACTIONS,
    NUM_ARRANGEMENTS,
    NUM_UPCARDS,
    PAIR_BASE,
    SINGLE_BASE,
    SLOT_BASE,
    TAKE_PILE,
)
from cardenvs.games.gin_slaughtre.cards import FIRST_JOKER, NUM_CARDS, RANK_NINE, RANK_TWO

# Keep values: a card's rank (Ace 0 … King 12), and more for the cards that rescue a stuck player.
KEEP_NINE = 14.0
KEEP_TWO = 15.0
KEEP_JOKER = 16.0
EXTRA_CARD_BONUS = 1.5  # cost removed per card beyond the first: shedding several at once is worth it
DOWNCARD_COST = 20.0  # a blind card: any slot
DRAW_COST = 50.0
TAKE_PILE_COST = 60.0
BIG_PILE = 5  # a Joker on a pile this big sends the opponent many cards
JOKER_ON_BIG_PILE_COST = -20.0
NOT_LEGAL = np.inf


def keep_value(card: int) -> float:
    """How much a card is worth keeping in hand (or having among the upcards)."""
    if card >= FIRST_JOKER:
        return KEEP_JOKER
    rank = card // 4
    if rank == RANK_TWO:
        return KEEP_TWO
    if rank == RANK_NINE:
        return KEEP_NINE
    return float(rank)


KEEP_VALUES = np.array([keep_value(c) for c in range(NUM_CARDS)])


def _action_costs() -> np.ndarray:
    costs = np.full(NUM_ALL_ACTIONS, NOT_LEGAL)
    for action in range(SINGLE_BASE, NUM_ALL_ACTIONS):
        size = int(ACTION_SIZE[action])
        if size:
            costs[action] = KEEP_VALUES[ACTION_CARDS[action, 0]] - EXTRA_CARD_BONUS * (size - 1)
    costs[TAKE_PILE] = TAKE_PILE_COST
    costs[DRAW] = DRAW_COST
    costs[SLOT_BASE:PAIR_BASE] = DOWNCARD_COST
    return costs


class GinSlaughtreHeuristic(Agent):
    """Cheapest legal trick first; strong cards as upcards.

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``).
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.costs = _action_costs()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        views = self.layout.split(observations)
        num_actions = action_masks.shape[1]
        costs = np.where(action_masks > 0, self.costs[None, :num_actions], NOT_LEGAL)
        big_pile = views["pile_size"][:, 0] >= BIG_PILE
        jokers = SINGLE_BASE + np.arange(FIRST_JOKER, NUM_CARDS)
        costs[:, jokers] = np.where(big_pile[:, None] & (action_masks[:, jokers] > 0), JOKER_ON_BIG_PILE_COST,
                                    costs[:, jokers])
        choices = costs.argmin(axis=1)
        arranging = views["phase"][:, 0] > 0
        for row in np.flatnonzero(arranging):
            own = views["own_hand"][row] + views["own_upcards"][row]
            choices[row] = self._arrangement(np.flatnonzero(own))
        return choices.astype(np.int64)

    @staticmethod
    def _arrangement(dealt: np.ndarray) -> int:
        """The ARRANGE action putting the three most valuable of the seven dealt cards (sorted ids) face up."""
        assert len(dealt) == DEALT_PER_PLAYER
        best = sorted(np.argsort(KEEP_VALUES[dealt], kind="stable")[-NUM_UPCARDS:].tolist())
        for action in range(NUM_ARRANGEMENTS):
            if ARRANGEMENTS[action].tolist() == best:
                return action
        raise AssertionError("unreachable: every 3-subset is an arrangement")
