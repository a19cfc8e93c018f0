"""Clabber's observation: what one seat may know, as a flat float32 vector.

Seat blocks are relative: index 0 is the observing seat, 1 its left neighbour, 2 its partner, 3 its right
neighbour. Team blocks are (own team, opponents). Cards are one-hot/multi-hot over the 24 card ids.
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.clabber.cards import HAND_POINTS, NO_CARD, NUM_CARDS
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
            ObservationView("phase", NUM_PHASES_SHOWN, 0, 1, "one-hot: first bidding / second bidding / declare / play"),
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


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act)."""
    n = NUM_PLAYERS
    obs[:] = 0.0
    own_team = player % 2
    hand = state.hand[player]
    for card in range(NUM_CARDS):
        if hand >> card & 1:
            obs[card] = 1.0
    at = NUM_CARDS
    obs[at + state.turn_up] = 1.0
    at += NUM_CARDS
    dealer_at = at
    act_at = dealer_at + n
    phase_at = act_at + n
    first_at = phase_at + NUM_PHASES_SHOWN
    second_at = first_at + 2 * n
    trump_at = second_at + 2 * n
    maker_at = trump_at + 5
    played_at = maker_at + n
    trick_at = played_at + n * NUM_CARDS
    leader_at = trick_at + n * NUM_CARDS
    meld_cards_at = leader_at + n
    category_at = meld_cards_at + n * NUM_CARDS
    meld_points_at = category_at + n * NUM_CATEGORIES
    meld_done_at = meld_points_at + n
    meld_winner_at = meld_done_at + n
    bell_at = meld_winner_at + 3
    points_at = bell_at + 2
    tricks_at = points_at + 2
    scores_at = tricks_at + 2
    litige_at = scores_at + 2
    if state.phase != PHASE_OVER:
        obs[phase_at + state.phase] = 1.0
    obs[trump_at + (4 if state.trump < 0 else state.trump)] = 1.0
    for rel in range(n):
        seat = (player + rel) % n
        if seat == state.dealer:
            obs[dealer_at + rel] = 1.0
        if seat == state.current_player:
            obs[act_at + rel] = 1.0
        if seat == state.maker:
            obs[maker_at + rel] = 1.0
        if seat == state.leader:
            obs[leader_at + rel] = 1.0
        if state.bid_first[seat] == BID_PASS:
            obs[first_at + 2 * rel] = 1.0
        elif state.bid_first[seat] == BID_ACCEPT:
            obs[first_at + 2 * rel + 1] = 1.0
        if state.bid_second[seat] == BID_PASS:
            obs[second_at + 2 * rel] = 1.0
        elif state.bid_second[seat] == BID_NAME:
            obs[second_at + 2 * rel + 1] = 1.0
        played = state.played[seat]
        base = played_at + rel * NUM_CARDS
        while played:
            low = played & -played
            obs[base + _bit_index(low)] = 1.0
            played ^= low
        if state.meld_status[seat] != MELD_NOT_YET:
            obs[meld_done_at + rel] = 1.0
        if state.meld_status[seat] == MELD_DECLARED:
            cards = state.meld_cards[seat]
            base = meld_cards_at + rel * NUM_CARDS
            while cards:
                low = cards & -cards
                obs[base + _bit_index(low)] = 1.0
                cards ^= low
            obs[category_at + rel * NUM_CATEGORIES + state.meld_best[seat] // KEY_STEP - 1] = 1.0
            obs[meld_points_at + rel] = state.meld_points[seat] / MAX_MELD_POINTS
    for position in range(n):
        card = state.trick[position]
        if card != NO_CARD:
            obs[trick_at + position * NUM_CARDS + card] = 1.0
    if state.meld_winner == MELDS_NOBODY:
        obs[meld_winner_at + 2] = 1.0
    elif state.meld_winner != MELDS_UNDECIDED:
        obs[meld_winner_at + (0 if state.meld_winner == own_team else 1)] = 1.0
    for rel_team in range(2):
        team = (own_team + rel_team) % 2
        obs[bell_at + rel_team] = 1.0 if state.bell_points[team] > 0 else 0.0
        obs[points_at + rel_team] = state.trick_points[team] / HAND_POINTS
        obs[tricks_at + rel_team] = state.tricks_won[team] / NUM_TRICKS
        obs[scores_at + rel_team] = min(state.scores[team] / state.target_score, SCORE_CAP)
    obs[litige_at] = min(state.litige_pending / HAND_POINTS, POINTS_CAP)
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0


@njit(cache=True)
def _bit_index(bit):
    """Index of the single set bit of ``bit``."""
    index = 0
    while bit > 1:
        bit >>= 1
        index += 1
    return index
