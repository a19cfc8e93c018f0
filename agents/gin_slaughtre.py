"""A rule-based Gin Slaughtre agent: shed low cards in big tricks, keep the special cards for when stuck.

Strategy (what a sensible Shithead player does), decided from the observation and the mask only:

* arranging: the three most valuable of the seven cards (2s, 9s, Jokers, then high ranks) become the upcards;
* playing: every legal trick gets a cost, the *keep value* of its lowest card minus a bonus per extra card, so
  low cards go first and sets and runs are preferred; a trick that completes four of a rank on top burns the
  pile and plays again, so it is preferred too; 2s, 9s and Jokers are worth keeping, so they are played only
  when nothing cheaper is legal;
* the Joker as a weapon: it is thrown early only to finish, on a big pile when the opponent is down to its last
  few hand cards and upcards. Thrown on every big pile, the pile and the Joker only bounce between two such
  players and the game never ends;
* stuck: draw if allowed, take the pile last.
"""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    DEALT_PER_PLAYER,
    DRAW,
    NUM_ALL_ACTIONS,
    NUM_UPCARDS,
    PAIR_BASE,
    SINGLE_BASE,
    SLOT_BASE,
    TAKE_PILE,
    arrangement_action,
)
from cardenvs.games.gin_slaughtre.cards import FIRST_JOKER, NUM_CARDS, RANK_NINE, RANK_TWO
from cardenvs.games.gin_slaughtre.observation import NO_CARD_SLOT
from cardenvs.games.gin_slaughtre.rules import PHASE_ARRANGE, QUARTET, rank_of

# Keep values: a card's rank (Ace 0 … King 12), and more for the cards that rescue a stuck player.
KEEP_NINE = 14.0
KEEP_TWO = 15.0
KEEP_JOKER = 16.0
EXTRA_CARD_BONUS = 1.5  # cost removed per card beyond the first: shedding several at once is worth it
DOWNCARD_COST = 20.0  # a blind card: any slot
DRAW_COST = 50.0
TAKE_PILE_COST = 60.0
BIG_PILE = 8  # a Joker on a pile this big sends the opponent many cards
FEW_CARDS = 3  # an opponent with at most this many hand cards and upcards is about to go out
JOKER_ON_BIG_PILE_COST = -20.0
BURN_BONUS = 10.0  # cost removed from a trick that completes four of a rank: the pile burns and we play again
NO_RANK = -1
NOT_LEGAL = np.inf
OPPONENT = 1  # the opponent's relative seat in the per-seat views (the observer is seat 0)


def keep_value(card: int) -> float:
    """How much a card is worth keeping in hand (or having among the upcards)."""
    if card >= FIRST_JOKER:
        return KEEP_JOKER
    rank = rank_of(card)
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


def _action_ranks() -> np.ndarray:
    """Per action, the rank of a trick made only of cards of that rank (a single, a set, a pair); else NO_RANK."""
    ranks = np.full(NUM_ALL_ACTIONS, NO_RANK)
    for action in range(SINGLE_BASE, NUM_ALL_ACTIONS):
        cards = ACTION_CARDS[action, : ACTION_SIZE[action]]
        if len(cards) and (cards < FIRST_JOKER).all() and len({rank_of(card) for card in cards.tolist()}) == 1:
            ranks[action] = rank_of(int(cards[0]))
    return ranks


class GinSlaughtreHeuristic(Agent):
    """Cheapest legal trick first, burns preferred; strong cards as upcards; the Joker to finish.

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``).
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.costs = _action_costs()
        self.ranks = _action_ranks()
        self.sizes = ACTION_SIZE.astype(np.float32)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        views = self.layout.split(observations)
        num_actions = action_masks.shape[1]
        costs = np.where(action_masks > 0, self.costs[None, :num_actions], NOT_LEGAL)
        # a trick of the top card's rank that makes four of it on top burns the pile
        top = views["pile_top"][:, : NO_CARD_SLOT + 1].argmax(axis=1)
        top_rank = np.where(top < FIRST_JOKER, rank_of(top), NO_RANK)
        burns = ((self.ranks[None, :num_actions] == top_rank[:, None]) & (top_rank[:, None] != NO_RANK)
                 & (views["pile_top_same_rank"] + self.sizes[None, :num_actions] >= QUARTET))
        costs = np.where(burns, costs - BURN_BONUS, costs)
        # the Joker thrown to finish: on a big pile when the opponent is down to its last hand cards and upcards
        opponent_cards = views["hand_sizes"][:, OPPONENT] + views["opponent_upcards"].sum(axis=1)
        finishing = (views["pile_size"][:, 0] >= BIG_PILE) & (opponent_cards <= FEW_CARDS)
        jokers = SINGLE_BASE + np.arange(FIRST_JOKER, NUM_CARDS)
        costs[:, jokers] = np.where(finishing[:, None] & (action_masks[:, jokers] > 0), JOKER_ON_BIG_PILE_COST,
                                    costs[:, jokers])
        choices = costs.argmin(axis=1)
        arranging = views["phase"][:, PHASE_ARRANGE] > 0
        for row in np.flatnonzero(arranging):
            own = views["own_hand"][row] + views["own_upcards"][row]
            choices[row] = self._arrangement(np.flatnonzero(own))
        return choices.astype(np.int64)

    @staticmethod
    def _arrangement(dealt: np.ndarray) -> int:
        """The ARRANGE action putting the three most valuable of the seven dealt cards (sorted ids) face up."""
        assert len(dealt) == DEALT_PER_PLAYER
        best = np.argsort(KEEP_VALUES[dealt], kind="stable")[-NUM_UPCARDS:]
        return arrangement_action(dealt.tolist(), dealt[best].tolist())
