"""Slabberjan's global state: every seat's piece, what every seat knows, the bag's contents and the table.

Seat blocks are absolute (entry 0 is seat 0). Each block is encoded like the observation block of the same name
(observation.py); ``known_pieces`` holds every seat's row of that block, and ``pieces``/``originals`` every
seat's ``own_piece``/``own_original``. The bag is given as its contents, not its order (what is drawn next).
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.slabberjan.observation import NUM_MATADORS, PHASES_SHOWN, _one_hot_piece
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, NUM_PIECES, SlabberjanParams
from cardenvs.games.slabberjan.pieces import NO_PIECE
from cardenvs.games.slabberjan.rules import NUM_ACTS, PHASE_OVER

PIECE_SLOTS = NUM_KINDS + 1  # a piece one-hot with its "unknown / none" entry


def state_layout(params: SlabberjanParams) -> ObservationLayout:
    """The named blocks of the global state, in order."""
    n = params.num_players
    c = float(params.start_chips)
    return ObservationLayout(
        [
            ObservationView("pieces", n * NUM_KINDS, 0, 1, "per seat, one-hot kind of the piece held (zero when out)"),
            ObservationView(
                "originals", n * NUM_KINDS, 0, 1, "per seat, one-hot kind of the piece dealt this round (zero when out)"
            ),
            ObservationView(
                "known_pieces", n * n * PIECE_SLOTS, 0, 1,
                "per seat v and seat s, one-hot of the last kind v knows s to hold (last entry: unknown)",
            ),
            ObservationView("bag", NUM_KINDS, 0, COPIES, "pieces in the bag, per kind"),
            ObservationView("chips", n, 0, c, "chips held, per seat"),
            ObservationView("in_game", n, 0, 1, "1 if still in, per seat"),
            ObservationView("owes", n, 0, 1, "1 if it owes a chip it could not pay (out at round end)"),
            ObservationView("out_order", n, 0, n, "0 while in; k when out in the k-th group of eliminations"),
            ObservationView("dealer", n, 0, 1, "one-hot seat of the dealer"),
            ObservationView("to_act", n, 0, 1, "one-hot seat to act (all zero when the game is over)"),
            ObservationView(
                "acted", n * NUM_ACTS, 0, 1, "per seat, one-hot: not yet / stood / swapped / drew from bag"
            ),
            ObservationView(
                "announced", n * NUM_MATADORS, 0, 1, "per seat, the matador it announced: inn/cat/bird/knight"
            ),
            ObservationView("fool_knocked", n, 0, 1, "1 if the seat knocked for a dealt Fool (fool_knocks)"),
            ObservationView("set_aside", NUM_KINDS, 0, COPIES, "pieces set aside face up this round, per kind"),
            ObservationView("bag_size", 1, 0, NUM_PIECES, "pieces left in the bag"),
            ObservationView("pot", 1, 0, n * c, "chips paid to the centre so far"),
            ObservationView("phase", len(PHASES_SHOWN), 0, 1, "one-hot: non-dealers' turns / dealer's turn"),
            ObservationView(
                "last_shown", n * PIECE_SLOTS, 0, 1,
                "per seat, one-hot kind shown at the last showdown (last entry: none yet / out)",
            ),
            ObservationView("last_paid", n, 0, 1, "1 if the seat paid at the last showdown"),
        ]
    )


@njit(cache=True)
def encode_state(state, out):
    """Write the global state of ``state`` into ``out`` (float32, the size of :func:`state_layout`)."""
    n = state.num_players
    out[:] = 0.0
    originals_at = n * NUM_KINDS
    known_at = 2 * n * NUM_KINDS
    for seat in range(n):
        # int(): as plain Python an int8 plus an offset would overflow
        if state.piece[seat] != NO_PIECE:
            out[seat * NUM_KINDS + int(state.piece[seat])] = 1.0
        if state.original[seat] != NO_PIECE:
            out[originals_at + seat * NUM_KINDS + int(state.original[seat])] = 1.0
        for other in range(n):
            _one_hot_piece(out, known_at + (seat * n + other) * PIECE_SLOTS, state.known[seat, other])
    at = known_at + n * n * PIECE_SLOTS
    for k in range(state.bag_size):
        out[at + int(state.bag[k])] += 1.0
    at += NUM_KINDS
    chips_at = at
    in_at = chips_at + n
    owes_at = in_at + n
    out_order_at = owes_at + n
    dealer_at = out_order_at + n
    act_at = dealer_at + n
    acted_at = act_at + n
    announced_at = acted_at + n * NUM_ACTS
    knocked_at = announced_at + n * NUM_MATADORS
    for seat in range(n):
        out[chips_at + seat] = state.chips[seat]
        out[in_at + seat] = state.in_game[seat]
        out[owes_at + seat] = state.owes[seat]
        out[out_order_at + seat] = state.out_order[seat]
        if state.in_game[seat]:
            out[acted_at + seat * NUM_ACTS + int(state.acted[seat])] = 1.0
        if state.announced[seat] != NO_PIECE:
            out[announced_at + seat * NUM_MATADORS + int(state.announced[seat]) - (NUM_KINDS - NUM_MATADORS)] = 1.0
        out[knocked_at + seat] = state.fool_knocked[seat]
    out[dealer_at + state.dealer] = 1.0
    if state.current_player >= 0:
        out[act_at + state.current_player] = 1.0
    at = knocked_at + n
    for kind in range(NUM_KINDS):
        out[at + kind] = state.set_aside[kind]
    at += NUM_KINDS
    out[at] = state.bag_size
    out[at + 1] = state.pot
    at += 2
    if state.phase != PHASE_OVER:
        out[at + int(state.phase)] = 1.0
    at += len(PHASES_SHOWN)
    paid_at = at + n * PIECE_SLOTS
    for seat in range(n):
        _one_hot_piece(out, at + seat * PIECE_SLOTS, state.shown[seat])
        out[paid_at + seat] = state.paid[seat]
