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
from numba import njit

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    ARRANGE_BASE,
    ARRANGEMENTS,
    DEALT_PER_PLAYER,
    DRAW,
    NUM_ALL_ACTIONS,
    NUM_UPCARDS,
    PAIR_BASE,
    SINGLE_BASE,
    SLOT_BASE,
    TAKE_PILE,
)
from cardenvs.games.gin_slaughtre.cards import FIRST_JOKER, NUM_CARDS, RANK_NINE, RANK_TWO
from cardenvs.games.gin_slaughtre.observation import (
    HAND_SIZES,
    NO_CARD_SLOT,
    OPPONENT_UPCARDS,
    OWN_HAND,
    OWN_UPCARDS,
    PHASE,
    PILE_SIZE,
    PILE_TOP,
    PILE_TOP_SAME_RANK,
)
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


def _arrangement_actions() -> np.ndarray:
    """Per set of upcard places (a 7-bit mask over the seven dealt cards in id order), its ARRANGE action; -1 where
    the mask does not hold exactly three places."""
    actions = np.full(1 << DEALT_PER_PLAYER, -1, np.int64)
    for action, places in enumerate(ARRANGEMENTS):
        actions[sum(1 << int(place) for place in places)] = ARRANGE_BASE + action
    return actions


ACTION_COSTS = _action_costs()
ACTION_RANKS = _action_ranks()
ARRANGEMENT_BY_PLACES = _arrangement_actions()


@njit(cache=True)
def _arrangement(observation) -> int:
    """The ARRANGE action putting the three most valuable of the seven dealt cards face up (ties: the later id)."""
    dealt = np.zeros(DEALT_PER_PLAYER, np.int64)
    count = 0
    for card in range(NUM_CARDS):
        if observation[OWN_HAND + card] + observation[OWN_UPCARDS + card] > 0 and count < DEALT_PER_PLAYER:
            dealt[count] = card
            count += 1
    places = 0
    for place in range(count):
        value = KEEP_VALUES[dealt[place]]
        better = 0  # dealt cards that rank above this one: a higher keep value, or an equal one and a later id
        for other in range(count):
            other_value = KEEP_VALUES[dealt[other]]
            if other_value > value or (other_value == value and other > place):
                better += 1
        if better < NUM_UPCARDS:
            places |= 1 << place
    return ARRANGEMENT_BY_PLACES[places]


@njit(cache=True)
def heuristic_action(observation, action_mask) -> int:
    """The rule-based action for one seat's observation and legal mask (the module docstring's strategy).

    Compiled, and reading nothing but the two arrays, so that search playouts (:mod:`cardenvs.core.playout`) call
    this same function at engine speed.
    """
    if observation[PHASE + PHASE_ARRANGE] > 0:
        return _arrangement(observation)
    top = NO_CARD_SLOT
    for card in range(NO_CARD_SLOT + 1):
        if observation[PILE_TOP + card] > 0:
            top = card
            break
    top_rank = rank_of(top) if top < FIRST_JOKER else NO_RANK
    same_rank = observation[PILE_TOP_SAME_RANK]
    opponent_cards = observation[HAND_SIZES + OPPONENT]
    for card in range(NUM_CARDS):
        opponent_cards += observation[OPPONENT_UPCARDS + card]
    finishing = observation[PILE_SIZE] >= BIG_PILE and opponent_cards <= FEW_CARDS
    best, best_cost = -1, NOT_LEGAL
    for action in range(action_mask.shape[0]):
        if action_mask[action] == 0:
            continue
        cost = ACTION_COSTS[action]
        if top_rank != NO_RANK and ACTION_RANKS[action] == top_rank and same_rank + ACTION_SIZE[action] >= QUARTET:
            cost -= BURN_BONUS  # four of the top's rank on top burn the pile
        if finishing and SINGLE_BASE + FIRST_JOKER <= action < SINGLE_BASE + NUM_CARDS:
            cost = JOKER_ON_BIG_PILE_COST  # the Joker thrown to finish
        if best < 0 or cost < best_cost:
            best, best_cost = action, cost
    return best


@njit(cache=True)
def heuristic_actions(observations, action_masks, out) -> None:
    """:func:`heuristic_action` for every row of a batch, into ``out``."""
    for row in range(observations.shape[0]):
        out[row] = heuristic_action(observations[row], action_masks[row])


class GinSlaughtreHeuristic(Agent):
    """Cheapest legal trick first, burns preferred; strong cards as upcards; the Joker to finish.

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``). The policy reads the observation's blocks
            at the fixed offsets of :mod:`cardenvs.games.gin_slaughtre.observation`, the same for every parameter
            set (the optional downcard block comes last).
    """

    name = "heuristic"
    compiled_policy = staticmethod(heuristic_action)

    def __init__(self, layout: ObservationLayout):
        self.layout = layout

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(heuristic_action(observation["observation"], observation["action_mask"]))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(observations), np.int64)
        heuristic_actions(observations, action_masks, actions)
        return actions
