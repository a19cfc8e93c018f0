"""A rule-based Clabber agent: bid on trump strength, win tricks cheaply, feed points to the partner.

It acts only on the observation and the mask, decoded through the env's named observation views.

* Bidding: a suit's strength is its trump card points plus a bonus per trump held and per plain Ace; it
  accepts the turn-up's suit, or names its best other suit in the second round, when the strength reaches a
  threshold (a little lower in the second round, where a pass may throw the hand in).
* Leading: the makers' side draws trumps with the master trump (the highest one not yet played); otherwise
  it leads a plain Ace, else its cheapest card.
* Following: when the partner is winning, it adds the most points it can without spending a trump; when an
  opponent is winning, it takes the trick with the cheapest card that wins, else it throws its cheapest card.
"""

from __future__ import annotations

import numpy as np

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
from cardenvs.games.clabber.params import NUM_PLAYERS
from cardenvs.games.clabber.rules import ACCEPT, DECLARE, NAME_SUIT, PASS, beats, card_points, team_of

#: relative seat of the partner: the other seat of one's own team (seat 0 is oneself)
PARTNER = next(seat for seat in range(1, NUM_PLAYERS) if team_of(seat) == team_of(0))
TRUMP_COUNT_BONUS = 6  # per trump held: length in trumps wins tricks
PLAIN_ACE_BONUS = 6  # per Ace outside trumps
ACCEPT_AT = 50  # first-round strength needed to take the turn-up's suit
NAME_AT = 46  # second-round strength needed to name a suit


def suit_strength(hand: np.ndarray, suit: int) -> int:
    """How good ``suit`` would be as trump for a hand (a 24-vector of 0/1)."""
    strength = 0
    for rank in range(NUM_RANKS):
        if hand[suit * NUM_RANKS + rank]:
            strength += int(TRUMP_POINTS[rank]) + TRUMP_COUNT_BONUS
    for other in range(NUM_SUITS):
        if other != suit and hand[other * NUM_RANKS + ACE]:
            strength += PLAIN_ACE_BONUS
    return strength


def card_value(card: int, trump: int) -> tuple[int, int]:
    """(is trump, trick strength) — what it takes to win with this card."""
    rank = card % NUM_RANKS
    if card // NUM_RANKS == trump:
        return 1, int(TRUMP_STRENGTH[rank])
    return 0, int(PLAIN_STRENGTH[rank])


class ClabberHeuristic(Agent):
    """Sensible bidding on trump strength and basic card play (see the module docstring).

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``).
        accept_at: first-round strength needed to accept.
        name_at: second-round strength needed to name a suit.
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout, accept_at: int = ACCEPT_AT, name_at: int = NAME_AT):
        self.layout = layout
        self.accept_at = accept_at
        self.name_at = name_at

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        views = self.layout.split(observation["observation"])
        hand = views["own_hand"]
        if len(mask) > DECLARE and mask[DECLARE]:
            return DECLARE
        if mask[ACCEPT]:
            turn_up = int(views["turn_up"].argmax())
            return ACCEPT if suit_strength(hand, turn_up // NUM_RANKS) >= self.accept_at else PASS
        nameable = [suit for suit in range(NUM_SUITS) if mask[NAME_SUIT + suit]]
        if nameable:
            best = max(nameable, key=lambda suit: suit_strength(hand, suit))
            return NAME_SUIT + best if suit_strength(hand, best) >= self.name_at else PASS
        legal = [card for card in range(NUM_CARDS) if mask[card]]
        if not legal:
            return int(np.flatnonzero(mask)[0])
        return self._play(views, legal)

    def _play(self, views: dict[str, np.ndarray], legal: list[int]) -> int:
        trump = int(views["trump"].argmax())
        trick = views["trick"].reshape(NUM_PLAYERS, NUM_CARDS)
        cards = [int(row.argmax()) for row in trick if row.any()]
        if not cards:
            return self._lead(views, legal, trump)
        leader = int(views["trick_leader"].argmax())
        winner_position = 0
        for position in range(1, len(cards)):
            if beats(cards[position], cards[winner_position], trump):
                winner_position = position
        winner_seat = (leader + winner_position) % NUM_PLAYERS
        best = cards[winner_position]
        if winner_seat == PARTNER:
            plain = [c for c in legal if c // NUM_RANKS != trump]
            pool = plain or legal
            if plain:
                return max(pool, key=lambda c: card_points(c, trump))
            return min(pool, key=lambda c: card_value(c, trump))
        winners = [c for c in legal if beats(c, best, trump)]
        if winners:
            return min(winners, key=lambda c: card_value(c, trump))
        return min(legal, key=lambda c: (card_points(c, trump), card_value(c, trump)))

    def _lead(self, views: dict[str, np.ndarray], legal: list[int], trump: int) -> int:
        maker = views["maker"]
        our_contract = bool(maker[0] or maker[PARTNER])
        played = views["played"].reshape(NUM_PLAYERS, NUM_CARDS).any(axis=0)
        trumps = [c for c in legal if c // NUM_RANKS == trump]
        if our_contract and trumps:
            unplayed = [trump * NUM_RANKS + r for r in range(NUM_RANKS)
                        if not played[trump * NUM_RANKS + r]]
            master = max(unplayed, key=lambda c: card_value(c, trump))
            if master in trumps and len(unplayed) > len(trumps):
                return master  # opponents may still hold trumps: draw them
        aces = [c for c in legal if c // NUM_RANKS != trump and c % NUM_RANKS == ACE]
        if aces:
            return aces[0]
        plain = [c for c in legal if c // NUM_RANKS != trump]
        return min(plain or legal, key=lambda c: (card_points(c, trump), card_value(c, trump)))
