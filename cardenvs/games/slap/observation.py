"""Slap's observation: what one seat may know, as a flat float32 vector.

Seat blocks are relative: index 0 is the observing seat, 1 its left neighbour, and so on clockwise. Nothing
about the choices already made in the current slap window is in it (they are secret until the window is
resolved), nor any stack's order, nor whether the pile is slappable (recognising that is the skill).
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import NO_PLAYER, ObservationLayout, ObservationView
from cardenvs.games.slap.cards import MAX_CARDS, NUM_FRENCH_CARDS, NUM_RANK_IDS
from cardenvs.games.slap.params import MAX_CHANCES, NUM_SLAP_RULES, SlapParams
from cardenvs.games.slap.rules import (
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_WINDOW,
    first_face_up,
    legal_mask,
    pile_card,
    rank_of,
)

CARD_SLOTS = MAX_CARDS + 1  # a card one-hot: card ids 0–53, then "none"
NONE_SLOT = MAX_CARDS
RANK_SLOTS = NUM_RANK_IDS + 1  # a rank one-hot: A … K, Joker, then "none"
NO_RANK_SLOT = NUM_RANK_IDS
TOP_CARDS_SHOWN = 4  # the face-up cards the slap rules look at
NUM_PHASES_SHOWN = 2  # window, play


def observation_layout(params: SlapParams) -> ObservationLayout:
    """The named blocks of the observation, in order."""
    n = params.num_players
    return ObservationLayout(
        [
            ObservationView(
                "top_cards", TOP_CARDS_SHOWN * CARD_SLOTS, 0, 1,
                "one-hot card id (last slot: none) of the top face-up card, then the 2nd, 3rd and 4th from the top",
            ),
            ObservationView(
                "first_face_up", CARD_SLOTS, 0, 1, "one-hot card id of the pile's first face-up card (last: none)"
            ),
            ObservationView(
                "top_ranks", TOP_CARDS_SHOWN * RANK_SLOTS, 0, 1,
                "one-hot rank (A … K, Joker; last slot: none) of the top four face-up cards, as in top_cards",
            ),
            ObservationView(
                "first_face_up_rank", RANK_SLOTS, 0, 1, "one-hot rank of the pile's first face-up card (last: none)"
            ),
            ObservationView("pile_size", 1, 0, MAX_CARDS, "cards in the pile, face-down burnt cards included"),
            ObservationView("face_up_count", 1, 0, MAX_CARDS, "face-up cards in the pile"),
            ObservationView("burnt_count", 1, 0, MAX_CARDS, "face-down (burnt) cards under the pile"),
            ObservationView("stack_sizes", n, 0, MAX_CARDS, "cards in each seat's stack, per relative seat"),
            ObservationView("eliminated", n, 0, 1, "1 if the seat is out for good, per relative seat"),
            ObservationView("played_last", n, 0, 1, "one-hot relative seat that played the top card"),
            ObservationView("challenger", n, 0, 1, "one-hot relative seat whose face card is being answered"),
            ObservationView("payer", n, 0, 1, "one-hot relative seat answering the challenge"),
            ObservationView("chances_left", 1, 0, MAX_CHANCES, "cards the payer may still play (0: no challenge)"),
            ObservationView("last_slapped", n, 0, 1, "who slapped in the last resolved window, per relative seat"),
            ObservationView("last_winner", n, 0, 1, "one-hot relative seat that won the last window by a slap"),
            ObservationView(
                "slap_rules", NUM_SLAP_RULES, 0, 1,
                "1 per active rule: double, sandwich, top-bottom, tens, joker, four in a row, marriage",
            ),
            ObservationView("jokers", 1, 0, 1, "1 if the pack has the two Jokers"),
            ObservationView("phase", NUM_PHASES_SHOWN, 0, 1, "one-hot: slap window / asked to play a card"),
        ]
    )


@njit(cache=True)
def _relative_one_hot(obs, at, player, seat, n):
    if seat != NO_PLAYER:
        obs[at + (seat - player + n) % n] = 1.0


@njit(cache=True)
def _rank_slot(card):
    # Every slap rule compares ranks: the rank beside the card id spares a learner from inferring it.
    return NO_RANK_SLOT if card < 0 else rank_of(card)


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act)."""
    n = state.num_players
    obs[:] = 0.0
    face_up = state.face_up
    ranks_at = TOP_CARDS_SHOWN * CARD_SLOTS + CARD_SLOTS
    for depth in range(TOP_CARDS_SHOWN):
        card = pile_card(state, depth) if depth < face_up else -1
        obs[depth * CARD_SLOTS + (card if card >= 0 else NONE_SLOT)] = 1.0
        obs[ranks_at + depth * RANK_SLOTS + _rank_slot(card)] = 1.0
    at = TOP_CARDS_SHOWN * CARD_SLOTS
    first = first_face_up(state)
    obs[at + (first if first >= 0 else NONE_SLOT)] = 1.0
    at += CARD_SLOTS
    obs[at + TOP_CARDS_SHOWN * RANK_SLOTS + _rank_slot(first)] = 1.0
    at += (TOP_CARDS_SHOWN + 1) * RANK_SLOTS
    obs[at] = state.pile_size
    obs[at + 1] = face_up
    obs[at + 2] = state.pile_size - face_up
    at += 3
    for rel in range(n):
        seat = (player + rel) % n
        obs[at + rel] = state.stack_size[seat]
        obs[at + n + rel] = 1.0 if state.eliminated[seat] else 0.0
        obs[at + 5 * n + 1 + rel] = 1.0 if state.last_slapped[seat] else 0.0
    _relative_one_hot(obs, at + 2 * n, player, state.played_last, n)
    _relative_one_hot(obs, at + 3 * n, player, state.challenger, n)
    _relative_one_hot(obs, at + 4 * n, player, state.payer, n)
    obs[at + 5 * n] = state.chances_left
    at += 5 * n + 1
    # at + 0 … n-1: last_slapped (written above)
    _relative_one_hot(obs, at + n, player, state.last_winner, n)
    at += 2 * n
    for rule in range(NUM_SLAP_RULES):
        obs[at + rule] = 1.0 if state.slap_rule_on[rule] else 0.0
    at += NUM_SLAP_RULES
    obs[at] = 1.0 if state.deck_size > NUM_FRENCH_CARDS else 0.0
    at += 1
    if state.phase != PHASE_OVER:
        obs[at + int(state.phase)] = 1.0
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0


assert PHASE_WINDOW == 0 and PHASE_PLAY == 1  # the phase one-hot indexes by these codes
