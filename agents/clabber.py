"""A rule-based Clabber agent: bid on trump strength, win tricks cheaply, feed points to the partner.

It acts only on the observation and the mask, read at the fixed offsets of the observation's named blocks.

* Bidding: a suit's strength is its trump card points plus a bonus per trump held and per plain Ace; it
  accepts the turn-up's suit, or names its best other suit in the second round, when the strength reaches a
  threshold (a little lower in the second round, where a pass may throw the hand in).
* Leading: the makers' side draws trumps with the master trump (the highest one not yet played); otherwise
  it leads a plain Ace, else its cheapest card.
* Following: when the partner is winning, it adds the most points it can without spending a trump; when an
  opponent is winning, it takes the trick with the cheapest card that wins, else it throws its cheapest card.

Ties go to the lowest suit or card id. A card's *cheapness* is its trick strength, every trump above every plain
card; the cheapest card to throw away has the fewest points, then the least strength. With ``optional_declare``
it always declares its melds.

The policy is compiled (:func:`heuristic_action`, reading nothing but the observation vector and the mask), so a
batch of decisions is one compiled loop and search playouts (:mod:`cardenvs.core.playout`) run this same function
inside their kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.clabber.cards import (
    ACE,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    PLAIN_STRENGTH,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
)
from cardenvs.games.clabber.observation import (
    HAND_AT,
    LEADER_AT,
    MAKER_AT,
    NO_TRUMP_SLOT,
    PLAYED_AT,
    TRICK_AT,
    TRUMP_AT,
    TURN_UP_AT,
)
from cardenvs.games.clabber.params import NUM_PLAYERS
from cardenvs.games.clabber.rules import ACCEPT, DECLARE, NAME_SUIT, PASS, beats, card_points, team_of

#: relative seat of the partner: the other seat of one's own team (seat 0 is oneself)
PARTNER = next(seat for seat in range(1, NUM_PLAYERS) if team_of(seat) == team_of(0))
TRUMP_COUNT_BONUS = 6  # per trump held: length in trumps wins tricks
PLAIN_ACE_BONUS = 6  # per Ace outside trumps
ACCEPT_AT = 50  # first-round strength needed to take the turn-up's suit
NAME_AT = 46  # second-round strength needed to name a suit
NO_ACTION = -1  # what the policy returns for a mask without a legal action
NO_CARD = -1  # no card chosen (yet)

#: entries of the trump block: one per suit, then "not yet chosen"
TRUMP_SLOTS = NO_TRUMP_SLOT + 1
#: the observation blocks the policy reads: name -> (offset, size). The offsets are observation.py's, taken from its
#: layout, which is the same for every parameter set; the constructor checks the layout it is given against them.
READ_BLOCKS = {
    "own_hand": (HAND_AT, NUM_CARDS),
    "turn_up": (TURN_UP_AT, NUM_CARDS),
    "trump": (TRUMP_AT, TRUMP_SLOTS),
    "maker": (MAKER_AT, NUM_PLAYERS),
    "played": (PLAYED_AT, NUM_PLAYERS * NUM_CARDS),
    "trick": (TRICK_AT, NUM_PLAYERS * NUM_CARDS),
    "trick_leader": (LEADER_AT, NUM_PLAYERS),
}

#: a card's value (:func:`card_value`): plain cards take 0 … PLAIN_VALUES - 1 by their strength, trumps the values above
PLAIN_VALUES = int(PLAIN_STRENGTH.max()) + 1
CARD_VALUES = PLAIN_VALUES + int(TRUMP_STRENGTH.max()) + 1


def check_layout(layout: ObservationLayout) -> None:
    """Raise ValueError unless ``layout`` holds the blocks the policy reads where :data:`READ_BLOCKS` says."""
    for name, (offset, size) in READ_BLOCKS.items():
        if layout.offsets.get(name) != (offset, offset + size):
            raise ValueError(
                f"observation block {name!r} is at {layout.offsets.get(name)}, not at {(offset, offset + size)} "
                "where the compiled Clabber heuristic reads it"
            )


@njit(cache=True)
def _first_max(observation, offset, size):
    """The index of the first largest entry of the block ``observation[offset:offset + size]`` (numpy's argmax, for
    observations without NaN)."""
    best = 0
    for index in range(1, size):
        if observation[offset + index] > observation[offset + best]:
            best = index
    return best


@njit(cache=True)
def _any(observation, offset, size):
    """Whether the block ``observation[offset:offset + size]`` has a non-zero entry."""
    for index in range(size):
        if observation[offset + index] != 0:
            return True
    return False


@njit(cache=True)
def suit_strength(observation, suit):
    """How good ``suit`` would be as trump for the observer's hand."""
    strength = 0
    for rank in range(NUM_RANKS):
        if observation[HAND_AT + suit * NUM_RANKS + rank] != 0:
            strength += TRUMP_POINTS[rank] + TRUMP_COUNT_BONUS
    for other in range(NUM_SUITS):
        if other != suit and observation[HAND_AT + other * NUM_RANKS + ACE] != 0:
            strength += PLAIN_ACE_BONUS
    return strength


@njit(cache=True)
def card_value(card, trump):
    """What it takes to win with this card: its trick strength, every trump above every plain card."""
    rank = card % NUM_RANKS
    if card // NUM_RANKS == trump:
        return PLAIN_VALUES + TRUMP_STRENGTH[rank]
    return PLAIN_STRENGTH[rank]


@njit(cache=True)
def discard_cost(card, trump):
    """What throwing this card away gives up: its points, then its value (:func:`card_value`)."""
    return card_points(card, trump) * CARD_VALUES + card_value(card, trump)


@njit(cache=True)
def _is_plain(card, trump):
    """Whether ``card`` is not a trump."""
    return card // NUM_RANKS != trump


@njit(cache=True)
def _most_points_plain(action_mask, trump):
    """The legal plain card with the most points (the first of equals); NO_CARD if none is legal."""
    chosen, chosen_points = NO_CARD, 0
    for card in range(NUM_CARDS):
        if action_mask[card] != 0 and _is_plain(card, trump):
            points = card_points(card, trump)
            if chosen == NO_CARD or points > chosen_points:
                chosen, chosen_points = card, points
    return chosen


@njit(cache=True)
def _cheapest_winner(action_mask, trump, to_beat):
    """The legal card of the least value that beats ``to_beat`` (any legal card for NO_CARD); NO_CARD if none."""
    chosen, chosen_value = NO_CARD, 0
    for card in range(NUM_CARDS):
        if action_mask[card] != 0 and (to_beat == NO_CARD or beats(card, to_beat, trump)):
            value = card_value(card, trump)
            if chosen == NO_CARD or value < chosen_value:
                chosen, chosen_value = card, value
    return chosen


@njit(cache=True)
def _cheapest_discard(action_mask, trump, plain_only):
    """The legal card (plain card, with ``plain_only``) cheapest to throw away; NO_CARD if none."""
    chosen, chosen_cost = NO_CARD, 0
    for card in range(NUM_CARDS):
        if action_mask[card] != 0 and (not plain_only or _is_plain(card, trump)):
            cost = discard_cost(card, trump)
            if chosen == NO_CARD or cost < chosen_cost:
                chosen, chosen_cost = card, cost
    return chosen


@njit(cache=True)
def _played(observation, card):
    """Whether any seat has played ``card`` this hand."""
    for seat in range(NUM_PLAYERS):
        if observation[PLAYED_AT + seat * NUM_CARDS + card] != 0:
            return True
    return False


@njit(cache=True)
def _master_trump_to_draw(observation, action_mask, trump):
    """The master trump (the highest not yet played), where the observer may lead it and the opponents may still
    hold trumps (more are unplayed than it holds); else NO_CARD."""
    legal_trumps = 0
    for card in range(NUM_CARDS):
        if action_mask[card] != 0 and not _is_plain(card, trump):
            legal_trumps += 1
    if legal_trumps == 0:  # none held, or no trump chosen
        return NO_CARD
    unplayed, master, master_value = 0, NO_CARD, 0
    for rank in range(NUM_RANKS):
        card = trump * NUM_RANKS + rank
        if not _played(observation, card):
            unplayed += 1
            value = card_value(card, trump)
            if master == NO_CARD or value > master_value:
                master, master_value = card, value
    if master != NO_CARD and action_mask[master] != 0 and unplayed > legal_trumps:
        return master
    return NO_CARD


@njit(cache=True)
def _lead(observation, action_mask, trump):
    """The card to lead a trick with (at least one card is legal)."""
    if observation[MAKER_AT] != 0 or observation[MAKER_AT + PARTNER] != 0:  # our side made trump
        master = _master_trump_to_draw(observation, action_mask, trump)
        if master != NO_CARD:
            return master
    for card in range(NUM_CARDS):
        if action_mask[card] != 0 and _is_plain(card, trump) and card % NUM_RANKS == ACE:
            return card
    plain = _cheapest_discard(action_mask, trump, True)
    return plain if plain != NO_CARD else _cheapest_discard(action_mask, trump, False)


@njit(cache=True)
def _play(observation, action_mask):
    """The card to play (at least one card is legal)."""
    trump = _first_max(observation, TRUMP_AT, TRUMP_SLOTS)
    cards_played, winning_card, winning_position = 0, NO_CARD, 0
    for position in range(NUM_PLAYERS):
        row = TRICK_AT + position * NUM_CARDS
        if _any(observation, row, NUM_CARDS):
            card = _first_max(observation, row, NUM_CARDS)
            if cards_played == 0 or beats(card, winning_card, trump):
                winning_card, winning_position = card, cards_played
            cards_played += 1
    if cards_played == 0:
        return _lead(observation, action_mask, trump)
    leader = _first_max(observation, LEADER_AT, NUM_PLAYERS)
    if (leader + winning_position) % NUM_PLAYERS == PARTNER:
        plain = _most_points_plain(action_mask, trump)
        return plain if plain != NO_CARD else _cheapest_winner(action_mask, trump, NO_CARD)
    winner = _cheapest_winner(action_mask, trump, winning_card)
    return winner if winner != NO_CARD else _cheapest_discard(action_mask, trump, False)


@njit(cache=True)
def thresholded_action(observation, action_mask, accept_at, name_at):
    """The rule-based action for one seat's observation and legal mask (the module docstring's strategy), bidding
    with the first-round threshold ``accept_at`` and the second-round threshold ``name_at``; NO_ACTION for a mask
    without a legal action."""
    if action_mask.shape[0] > DECLARE and action_mask[DECLARE] != 0:  # DECLARE exists with optional_declare only
        return DECLARE
    if action_mask[ACCEPT] != 0:
        turn_up_suit = _first_max(observation, TURN_UP_AT, NUM_CARDS) // NUM_RANKS
        return ACCEPT if suit_strength(observation, turn_up_suit) >= accept_at else PASS
    best_suit, best_strength = NO_ACTION, 0
    for suit in range(NUM_SUITS):
        if action_mask[NAME_SUIT + suit] != 0:
            strength = suit_strength(observation, suit)
            if best_suit == NO_ACTION or strength > best_strength:
                best_suit, best_strength = suit, strength
    if best_suit != NO_ACTION:
        return NAME_SUIT + best_suit if best_strength >= name_at else PASS
    for card in range(NUM_CARDS):
        if action_mask[card] != 0:
            return _play(observation, action_mask)
    for action in range(action_mask.shape[0]):
        if action_mask[action] != 0:
            return action
    return NO_ACTION


@njit(cache=True)
def heuristic_action(observation, action_mask):
    """:func:`thresholded_action` at the default thresholds: the policy of :class:`ClabberHeuristic`'s
    ``compiled_policy``. Compiled, and reading nothing but the two arrays, so that search playouts
    (:mod:`cardenvs.core.playout`) call this same function at engine speed."""
    return thresholded_action(observation, action_mask, ACCEPT_AT, NAME_AT)


@njit(cache=True)
def heuristic_actions(observations, action_masks, accept_at, name_at, out):
    """:func:`thresholded_action` for every row of a batch, into ``out``."""
    for row in range(observations.shape[0]):
        out[row] = thresholded_action(observations[row], action_masks[row], accept_at, name_at)


class ClabberHeuristic(Agent):
    """Sensible bidding on trump strength and basic card play (see the module docstring).

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``). The policy reads the blocks of
            :data:`READ_BLOCKS` at the fixed offsets of :mod:`cardenvs.games.clabber.observation`, the same for every
            parameter set; a layout that does not hold them there is refused (ValueError).
        accept_at: first-round strength needed to accept.
        name_at: second-round strength needed to name a suit.
    """

    name = "heuristic"
    compiled_policy = staticmethod(heuristic_action)

    def __init__(self, layout: ObservationLayout, accept_at: int = ACCEPT_AT, name_at: int = NAME_AT):
        check_layout(layout)
        self.layout = layout
        self.accept_at = accept_at
        self.name_at = name_at
        if (accept_at, name_at) != (ACCEPT_AT, NAME_AT):
            # compiled_policy promises to act as this agent does (search playouts run it in place of act_batch, and
            # take an opponent with the same compiled_policy for the rollout policy itself), but it bids at the
            # default thresholds: an agent with others has none, and its playouts call act_batch from Python
            self.compiled_policy = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(thresholded_action(observation["observation"], observation["action_mask"], self.accept_at,
                                      self.name_at))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(observations), np.int64)
        heuristic_actions(observations, action_masks, self.accept_at, self.name_at, actions)
        return actions
