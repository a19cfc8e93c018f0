"""Slabberjan's observation: what one seat may know, as a flat float32 vector.

Seat blocks are relative: index 0 is the observing seat, 1 its left neighbour, and so on clockwise.
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, NUM_PIECES, SlabberjanParams
from cardenvs.games.slabberjan.pieces import NO_PIECE
from cardenvs.games.slabberjan.rules import (
    ACT_NONE,
    NUM_ACTS,
    PHASE_DEALER,
    PHASE_OVER,
    PHASE_TURNS,
    legal_mask,
)

UNKNOWN_SLOT = NUM_KINDS  # the extra "unknown / none" entry of a piece one-hot
NUM_MATADORS = 4
PHASES_SHOWN = (PHASE_TURNS, PHASE_DEALER)


def table_views(params: SlabberjanParams, seats: str) -> list[ObservationView]:
    """The public table's blocks, shared by the observation (``seats="relative seat"``) and the global state
    (``seats="seat"``, absolute): chips, who is in, the dealer, this round's acts and the last showdown."""
    n = params.num_players
    c = float(params.start_chips)
    return [
        ObservationView("chips", n, 0, c, f"chips held, per {seats}"),
        ObservationView("in_game", n, 0, 1, f"1 if still in, per {seats}"),
        ObservationView("owes", n, 0, 1, "1 if it owes a chip it could not pay (out at round end)"),
        ObservationView("dealer", n, 0, 1, f"one-hot {seats} of the dealer"),
        ObservationView("to_act", n, 0, 1, f"one-hot {seats} to act (all zero when the game is over)"),
        ObservationView(
            "acted", n * NUM_ACTS, 0, 1, f"per {seats}, one-hot: not yet / stood / swapped / drew from bag"
        ),
        ObservationView(
            "announced", n * NUM_MATADORS, 0, 1, f"per {seats}, the matador it announced: inn/cat/bird/knight"
        ),
        ObservationView("fool_knocked", n, 0, 1, "1 if the seat knocked for a dealt Fool (fool_knocks)"),
        ObservationView("set_aside", NUM_KINDS, 0, COPIES, "pieces set aside face up this round, per kind"),
        ObservationView("bag_size", 1, 0, NUM_PIECES, "pieces left in the bag"),
        ObservationView("pot", 1, 0, n * c, "chips paid to the centre so far"),
        ObservationView("phase", len(PHASES_SHOWN), 0, 1, "one-hot: non-dealers' turns / dealer's turn"),
        ObservationView(
            "last_shown", n * (NUM_KINDS + 1), 0, 1,
            f"per {seats}, one-hot kind shown at the last showdown (last entry: none yet / out)",
        ),
        ObservationView("last_paid", n, 0, 1, "1 if the seat paid at the last showdown"),
    ]


def observation_layout(params: SlabberjanParams) -> ObservationLayout:
    """The named blocks of the observation, in order."""
    n = params.num_players
    return ObservationLayout(
        [
            ObservationView("own_piece", NUM_KINDS, 0, 1, "one-hot kind of the piece held (kind ids: see Pieces)"),
            ObservationView("own_original", NUM_KINDS, 0, 1, "one-hot kind of the piece dealt this round"),
            ObservationView(
                "known_pieces", n * (NUM_KINDS + 1), 0, 1,
                "per relative seat, one-hot of the last kind this seat knows it holds (last entry: unknown)",
            ),
            *table_views(params, "relative seat"),
        ]
    )


@njit(cache=True)
def _one_hot_piece(obs, at, kind):
    # int(): as plain Python (NUMBA_DISABLE_JIT=1) an int8 plus a large offset would overflow
    obs[at + (UNKNOWN_SLOT if kind == NO_PIECE else int(kind))] = 1.0


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act)."""
    n = state.num_players
    obs[:] = 0.0
    at = 0
    if state.piece[player] != NO_PIECE:
        obs[at + int(state.piece[player])] = 1.0
    at += NUM_KINDS
    if state.original[player] != NO_PIECE:
        obs[at + int(state.original[player])] = 1.0
    at += NUM_KINDS
    for rel in range(n):
        _one_hot_piece(obs, at + rel * (NUM_KINDS + 1), state.known[player, (player + rel) % n])
    at += n * (NUM_KINDS + 1)
    write_table(state, player, obs, at)
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0


@njit(cache=True)
def write_table(state, player, obs, at):
    """Write the blocks of :func:`table_views` from ``at`` on, seats counted from ``player`` (0: absolute);
    returns the offset after them. ``obs`` must be zero there."""
    n = state.num_players
    chips_at = at
    in_at = chips_at + n
    owes_at = in_at + n
    dealer_at = owes_at + n
    act_at = dealer_at + n
    acted_at = act_at + n
    announced_at = acted_at + n * NUM_ACTS
    knocked_at = announced_at + n * NUM_MATADORS
    for rel in range(n):
        seat = (player + rel) % n
        obs[chips_at + rel] = state.chips[seat]
        obs[in_at + rel] = state.in_game[seat]
        obs[owes_at + rel] = state.owes[seat]
        if seat == state.dealer:
            obs[dealer_at + rel] = 1.0
        if seat == state.current_player:
            obs[act_at + rel] = 1.0
        obs[acted_at + rel * NUM_ACTS + int(state.acted[seat])] = 1.0 if state.in_game[seat] else 0.0
        if state.announced[seat] != NO_PIECE:
            obs[announced_at + rel * NUM_MATADORS + int(state.announced[seat]) - (NUM_KINDS - NUM_MATADORS)] = 1.0
        obs[knocked_at + rel] = state.fool_knocked[seat]
    at = knocked_at + n
    for kind in range(NUM_KINDS):
        obs[at + kind] = state.set_aside[kind]
    at += NUM_KINDS
    obs[at] = state.bag_size
    obs[at + 1] = state.pot
    at += 2
    if state.phase != PHASE_OVER:
        obs[at + int(state.phase)] = 1.0
    at += len(PHASES_SHOWN)
    paid_at = at + n * (NUM_KINDS + 1)
    for rel in range(n):
        seat = (player + rel) % n
        _one_hot_piece(obs, at + rel * (NUM_KINDS + 1), state.shown[seat])
        obs[paid_at + rel] = state.paid[seat]
    return paid_at + n


assert ACT_NONE == 0 and PHASE_TURNS == 0 and PHASE_DEALER == 1  # the one-hots above index by these codes
