"""Gin Slaughtre's observation: what one seat may know, as a flat float32 vector.

Seat blocks are relative: index 0 is the observing seat, 1 its opponent. Card blocks are indexed by card id
(cards.py). Nothing in it depends on the stock's order or on the opponent's cards that are not public.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.gin_slaughtre.actions import MAX_DOWNCARDS
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.rules import (
    LOC_BURNT,
    LOC_HAND,
    LOC_PILE,
    LOC_UP,
    PHASE_ARRANGE,
    PHASE_OVER,
    PHASE_PLAY,
    QUARTET,
    legal_mask,
    top_same_rank,
)

PILE_TOP_SHOWN = 4  # top pile cards shown one-hot, top first
NO_CARD_SLOT = NUM_CARDS  # the extra "no card" entry of a card one-hot
NUM_PHASES_SHOWN = 2  # arrange, play

# Offsets of the fixed views (the downcard view, present only with num_downcards=3, comes last).
OWN_HAND = 0  # the six card blocks come first and are contiguous (observe writes them whole)
OWN_UPCARDS = OWN_HAND + NUM_CARDS
OPPONENT_UPCARDS = OWN_UPCARDS + NUM_CARDS
OPPONENT_KNOWN_HAND = OPPONENT_UPCARDS + NUM_CARDS
PILE_CARDS = OPPONENT_KNOWN_HAND + NUM_CARDS
BURNT = PILE_CARDS + NUM_CARDS
PILE_TOP = BURNT + NUM_CARDS
PILE_SIZE = PILE_TOP + PILE_TOP_SHOWN * (NUM_CARDS + 1)
PILE_TOP_SAME_RANK = PILE_SIZE + 1
HAND_SIZES = PILE_TOP_SAME_RANK + 1
STOCK_SIZE = HAND_SIZES + NUM_PLAYERS
RESTRICTED = STOCK_SIZE + 1
PHASE = RESTRICTED + 1
TO_ACT = PHASE + NUM_PHASES_SHOWN
DEALER = TO_ACT + NUM_PLAYERS
DOWNCARDS = DEALER + NUM_PLAYERS
FIXED_SIZE = DOWNCARDS


def observation_layout(params: GinSlaughtreParams) -> ObservationLayout:
    """The named blocks of the observation, in order."""
    n = NUM_PLAYERS
    views = [
        ObservationView("own_hand", NUM_CARDS, 0, 1, "1 per card id in the observer's hand"),
        ObservationView("own_upcards", NUM_CARDS, 0, 1, "1 per card id among the observer's upcards"),
        ObservationView("opponent_upcards", NUM_CARDS, 0, 1, "1 per card id among the opponent's upcards"),
        ObservationView(
            "opponent_known_hand", NUM_CARDS, 0, 1,
            "1 per card id known to be in the opponent's hand (taken with the pile, starter card, dealt upcard "
            "moved to the hand, failed downcard)",
        ),
        ObservationView("pile_cards", NUM_CARDS, 0, 1, "1 per card id in the pile"),
        ObservationView("burnt", NUM_CARDS, 0, 1, "1 per card id burnt (out of the game)"),
        ObservationView(
            "pile_top", PILE_TOP_SHOWN * (NUM_CARDS + 1), 0, 1,
            "the top 4 pile cards, top first, each one-hot over 54 ids + 'no card'",
        ),
        ObservationView("pile_size", 1, 0, NUM_CARDS, "cards in the pile"),
        ObservationView("pile_top_same_rank", 1, 0, QUARTET, "cards at the top of the pile sharing the top's rank"),
        ObservationView("hand_sizes", n, 0, NUM_CARDS, "hand cards per relative seat"),
        ObservationView("stock_size", 1, 0, NUM_CARDS, "cards left in the stock"),
        ObservationView("restricted", 1, 0, 1, "1 if the player to act must play 5 or lower (red 5)"),
        ObservationView("phase", NUM_PHASES_SHOWN, 0, 1, "one-hot: arrange / play (all zero when over)"),
        ObservationView("to_act", n, 0, 1, "one-hot relative seat to act (all zero when over)"),
        ObservationView("dealer", n, 0, 1, "one-hot relative seat of the dealer"),
    ]
    if params.num_downcards:
        views.append(
            ObservationView(
                "downcards", n * MAX_DOWNCARDS, 0, 1, "per relative seat and slot, 1 while a card lies face down"
            )
        )
    return ObservationLayout(views)


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act)."""
    opponent = NUM_PLAYERS - 1 - player
    own_hand = LOC_HAND + player
    own_up = LOC_UP + player
    opponent_hand = LOC_HAND + opponent
    opponent_up = LOC_UP + opponent
    # Every entry of the six card blocks is written, without a branch: cards lie in random places, so branching
    # on a card's location mispredicts often and costs several times more than the stores. The field arrays are
    # read through locals so that the stores into obs do not make the compiler fetch them again each time.
    locations = state.location
    known = state.known
    for card in range(NUM_CARDS):
        location = locations[card]
        obs[OWN_HAND + card] = np.float32(location == own_hand)
        obs[OWN_UPCARDS + card] = np.float32(location == own_up)
        obs[OPPONENT_UPCARDS + card] = np.float32(location == opponent_up)
        obs[OPPONENT_KNOWN_HAND + card] = np.float32((location == opponent_hand) & (known[card] != 0))
        obs[PILE_CARDS + card] = np.float32(location == LOC_PILE)
        obs[BURNT + card] = np.float32(location == LOC_BURNT)
    obs[PILE_TOP:] = 0.0  # one memset: several times faster than a loop of stores
    for depth in range(PILE_TOP_SHOWN):
        index = state.pile_size - 1 - depth
        card = int(state.pile[index]) if index >= 0 else NO_CARD_SLOT
        obs[PILE_TOP + depth * (NUM_CARDS + 1) + card] = 1.0
    obs[PILE_SIZE] = state.pile_size
    obs[PILE_TOP_SAME_RANK] = top_same_rank(state)
    obs[HAND_SIZES] = state.hand_count[player]
    obs[HAND_SIZES + 1] = state.hand_count[opponent]
    obs[STOCK_SIZE] = state.stock_size
    obs[RESTRICTED] = state.restricted
    if state.phase != PHASE_OVER:
        obs[PHASE + int(state.phase)] = 1.0
        obs[TO_ACT + (state.current_player - player) % NUM_PLAYERS] = 1.0
    obs[DEALER + (state.dealer - player) % NUM_PLAYERS] = 1.0
    if state.num_downcards > 0:
        for rel in range(NUM_PLAYERS):
            seat = (player + rel) % NUM_PLAYERS
            for slot in range(state.num_downcards):
                if state.downcards[seat, slot] >= 0:
                    obs[DOWNCARDS + rel * MAX_DOWNCARDS + slot] = 1.0
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0


assert PHASE_ARRANGE == 0 and PHASE_PLAY == 1  # the phase one-hot indexes by these codes
