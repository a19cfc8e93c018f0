"""Clabber's observation: what one seat may know, as a flat float32 vector.

Seat blocks are relative: index 0 is the observing seat, 1 its left neighbour, 2 its partner, 3 its right
neighbour. Team blocks are (own team, opponents). Cards are one-hot/multi-hot over the 24 card ids.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.clabber.cards import HAND_POINTS, NUM_CARDS
from cardenvs.games.clabber.melds import KEY_STEP, NUM_CATEGORIES
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams
from cardenvs.games.clabber.rules import (
    BID_ACCEPT,
    BID_NAME,
    BID_PASS,
    MELD_DECLARED,
    MELD_NOT_YET,
    MELDS_NOBODY,
    MELDS_UNDECIDED,
    NUM_TRICKS,
    PHASE_OVER,
    legal_mask,
)

NUM_PHASES_SHOWN = 4  # bid first, bid second, declare, play
MAX_MELD_POINTS = 200  # four Jacks; no six cards hold more
SCORE_CAP = 8.0  # scores are shown as score / target, capped here (the litige pot may grow without bound)
POINTS_CAP = 8.0  # pending litige points are shown / 162, capped here


def observation_layout(params: ClabberParams) -> ObservationLayout:
    """The named blocks of the observation, in order."""
    n = NUM_PLAYERS
    return ObservationLayout(
        [
            ObservationView("own_hand", NUM_CARDS, 0, 1, "cards held (multi-hot over card ids)"),
            ObservationView("turn_up", NUM_CARDS, 0, 1, "one-hot: the dealer's face-up card of this hand"),
            ObservationView("dealer", n, 0, 1, "one-hot relative seat of the dealer"),
            ObservationView("to_act", n, 0, 1, "one-hot relative seat to act (all zero once the game is over)"),
            ObservationView(
                "phase", NUM_PHASES_SHOWN, 0, 1, "one-hot: first bidding / second bidding / declare / play"
            ),
            ObservationView("bids_first", n * 2, 0, 1, "per relative seat, first round: [passed, accepted]"),
            ObservationView("bids_second", n * 2, 0, 1, "per relative seat, second round: [passed, named trump]"),
            ObservationView("trump", 5, 0, 1, "one-hot trump suit C/D/H/S, last entry: not yet chosen"),
            ObservationView("maker", n, 0, 1, "one-hot relative seat of the maker (zero while bidding)"),
            ObservationView("played", n * NUM_CARDS, 0, 1, "per relative seat, the cards it played this hand"),
            ObservationView("trick", n * NUM_CARDS, 0, 1, "current trick by position (0 = led), one-hot per card"),
            ObservationView("trick_leader", n, 0, 1, "one-hot relative seat that led the current trick"),
            ObservationView("meld_cards", n * NUM_CARDS, 0, 1, "per relative seat, the cards of its declared melds"),
            ObservationView(
                "meld_category", n * NUM_CATEGORIES, 0, 1,
                "per relative seat, one-hot category of its best declared meld (sequence of 3 … four Jacks)",
            ),
            ObservationView("meld_points", n, 0, 1, "per relative seat, its declared meld points / 200"),
            ObservationView("meld_turn_done", n, 0, 1, "per relative seat, 1 once its declaration moment passed"),
            ObservationView("meld_winner", 3, 0, 1, "one-hot: own team / opponents / nobody scores melds (0: open)"),
            ObservationView("bell", 2, 0, 1, "per team (own, opponents): 1 once it scored the Bell"),
            ObservationView("trick_points", 2, 0, 1, "per team: card points won this hand (+10 last trick) / 162"),
            ObservationView("tricks_won", 2, 0, 1, "per team: tricks won this hand / 6"),
            ObservationView("scores", 2, 0, SCORE_CAP, "per team: cumulative score / target_score (capped at 8)"),
            ObservationView("litige_pending", 1, 0, POINTS_CAP, "makers' points waiting after a tie / 162 (cap 8)"),
        ]
    )


_LAYOUT = observation_layout(ClabberParams())  # the layout does not depend on the parameters
_AT = {name: begin for name, (begin, _) in _LAYOUT.offsets.items()}
HAND_AT = _AT["own_hand"]
TURN_UP_AT = _AT["turn_up"]
DEALER_AT = _AT["dealer"]
TO_ACT_AT = _AT["to_act"]
PHASE_AT = _AT["phase"]
BIDS_FIRST_AT = _AT["bids_first"]
BIDS_SECOND_AT = _AT["bids_second"]
TRUMP_AT = _AT["trump"]
MAKER_AT = _AT["maker"]
PLAYED_AT = _AT["played"]
TRICK_AT = _AT["trick"]
LEADER_AT = _AT["trick_leader"]
MELD_CARDS_AT = _AT["meld_cards"]
CATEGORY_AT = _AT["meld_category"]
MELD_POINTS_AT = _AT["meld_points"]
MELD_DONE_AT = _AT["meld_turn_done"]
MELD_WINNER_AT = _AT["meld_winner"]
BELL_AT = _AT["bell"]
POINTS_AT = _AT["trick_points"]
TRICKS_AT = _AT["tricks_won"]
SCORES_AT = _AT["scores"]
LITIGE_AT = _AT["litige_pending"]
NO_TRUMP_SLOT = 4


@njit(cache=True)
def _set_cards(obs, at, cards):
    """Multi-hot of a card mask at ``obs[at:at + 24]`` (branch-free, so the loop vectorises)."""
    bits = np.int64(cards)
    for card in range(NUM_CARDS):
        obs[at + card] = np.float32((bits >> card) & 1)


@njit(cache=True)
def _one_hot(obs, at, size, index):
    """Entry ``index`` of the block ``obs[at:at + size]``, zero already, set to 1 (none if ``index`` < 0)."""
    if 0 <= index < size:
        obs[at + index] = 1.0


@njit(cache=True)
def _relative(seat, player):
    """A seat relative to ``player`` (0 = itself, 1 = left, 2 = partner, 3 = right); -1 for no seat."""
    return -1 if seat < 0 else (seat - player) % NUM_PLAYERS


@njit(cache=True)
def _observe_seat(state, seat, rel, obs):
    """The public facts about one seat, at its relative position ``rel``."""
    bid = state.bid_first[seat]
    obs[BIDS_FIRST_AT + 2 * rel] = 1.0 if bid == BID_PASS else 0.0
    obs[BIDS_FIRST_AT + 2 * rel + 1] = 1.0 if bid == BID_ACCEPT else 0.0
    bid = state.bid_second[seat]
    obs[BIDS_SECOND_AT + 2 * rel] = 1.0 if bid == BID_PASS else 0.0
    obs[BIDS_SECOND_AT + 2 * rel + 1] = 1.0 if bid == BID_NAME else 0.0
    _set_cards(obs, PLAYED_AT + rel * NUM_CARDS, state.played[seat])
    status = state.meld_status[seat]
    obs[MELD_DONE_AT + rel] = 0.0 if status == MELD_NOT_YET else 1.0
    declared = status == MELD_DECLARED
    _set_cards(obs, MELD_CARDS_AT + rel * NUM_CARDS, state.meld_cards[seat] if declared else 0)
    category = state.meld_best[seat] // KEY_STEP - 1 if declared else -1
    _one_hot(obs, CATEGORY_AT + rel * NUM_CATEGORIES, NUM_CATEGORIES, category)
    obs[MELD_POINTS_AT + rel] = state.meld_points[seat] / MAX_MELD_POINTS if declared else 0.0


@njit(cache=True)
def _observe_teams(state, own_team, obs):
    """Per-team blocks, own team first."""
    winner = -1
    if state.meld_winner == MELDS_NOBODY:
        winner = 2
    elif state.meld_winner != MELDS_UNDECIDED:
        winner = 0 if state.meld_winner == own_team else 1
    _one_hot(obs, MELD_WINNER_AT, 3, winner)
    for rel_team in range(2):
        team = (own_team + rel_team) % 2
        obs[BELL_AT + rel_team] = 1.0 if state.bell_points[team] > 0 else 0.0
        obs[POINTS_AT + rel_team] = state.trick_points[team] / HAND_POINTS
        obs[TRICKS_AT + rel_team] = state.tricks_won[team] / NUM_TRICKS
        obs[SCORES_AT + rel_team] = min(state.scores[team] / state.target_score, SCORE_CAP)
    obs[LITIGE_AT] = min(state.litige_pending / HAND_POINTS, POINTS_CAP)


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act).

    One zeroing pass, then only the non-zero entries: a memset and a few stores cost a fraction of writing every
    entry of the one-hot blocks one by one.
    """
    obs[:] = 0.0
    # int(): as plain Python an int8 field plus an offset would overflow
    _set_cards(obs, HAND_AT, state.hand[player])
    _one_hot(obs, TURN_UP_AT, NUM_CARDS, int(state.turn_up))
    _one_hot(obs, DEALER_AT, NUM_PLAYERS, _relative(state.dealer, player))
    _one_hot(obs, TO_ACT_AT, NUM_PLAYERS, _relative(state.current_player, player))
    _one_hot(obs, PHASE_AT, NUM_PHASES_SHOWN, -1 if state.phase == PHASE_OVER else int(state.phase))
    _one_hot(obs, TRUMP_AT, NO_TRUMP_SLOT + 1, NO_TRUMP_SLOT if state.trump < 0 else int(state.trump))
    _one_hot(obs, MAKER_AT, NUM_PLAYERS, _relative(state.maker, player))
    _one_hot(obs, LEADER_AT, NUM_PLAYERS, _relative(state.leader, player))
    for rel in range(NUM_PLAYERS):
        _observe_seat(state, (player + rel) % NUM_PLAYERS, rel, obs)
    for position in range(NUM_PLAYERS):
        _one_hot(obs, TRICK_AT + position * NUM_CARDS, NUM_CARDS, int(state.trick[position]))
    _observe_teams(state, player % 2, obs)
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0
