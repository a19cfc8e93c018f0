"""Slabberjan's global state: every seat's piece, what every seat knows, the bag's contents and the table.

Seat blocks are absolute (entry 0 is seat 0). Each block is encoded like the observation block of the same name
(observation.py; the public table's blocks are written by the same ``write_table``, counting seats from seat 0);
``known_pieces`` holds every seat's row of that block, and ``pieces``/``originals`` every seat's
``own_piece``/``own_original``. The bag is given as its contents, not its order (what is drawn next).
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.slabberjan.observation import _one_hot_piece, table_views, write_table
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, SlabberjanParams
from cardenvs.games.slabberjan.pieces import NO_PIECE

PIECE_SLOTS = NUM_KINDS + 1  # a piece one-hot with its "unknown / none" entry


def state_layout(params: SlabberjanParams) -> ObservationLayout:
    """The named blocks of the global state, in order."""
    n = params.num_players
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
            *table_views(params, "seat"),
            ObservationView("out_order", n, 0, n, "0 while in; k when out in the k-th group of eliminations"),
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
    at = write_table(state, 0, out, at)  # seats counted from seat 0: absolute
    for seat in range(n):
        out[at + seat] = state.out_order[seat]


#: how a seat's observation reads off this state (``Game.observation_sources``)
OBSERVATION_SOURCES = {
    "own_piece": ("own", "pieces"),
    "own_original": ("own", "originals"),
    "known_pieces": ("own_seats", "known_pieces"),  # the seat's row of what every seat knows
    **{
        name: ("seats", name)
        for name in ("chips", "in_game", "owes", "dealer", "to_act", "acted", "announced", "fool_knocked",
                     "last_shown", "last_paid")
    },
}


def check_global_state(record: np.record, blocks: dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless the state's blocks hold every seat's piece, what each knows and the bag."""
    n = int(record.num_players)
    pieces = blocks["pieces"].reshape(n, -1)
    originals = blocks["originals"].reshape(n, -1)
    for seat in range(n):
        held = [int(record.piece[seat])] if record.piece[seat] >= 0 else []
        dealt = [int(record.original[seat])] if record.original[seat] >= 0 else []
        assert list(np.flatnonzero(pieces[seat])) == held
        assert list(np.flatnonzero(originals[seat])) == dealt
    known = blocks["known_pieces"].reshape(n, n, -1)
    unknown_slot = known.shape[2] - 1
    expected = np.where(record.known >= 0, record.known, unknown_slot)
    assert np.array_equal(known.argmax(axis=2), expected) and (known.sum(axis=2) == 1).all()
    bag = Counter(int(kind) for kind in record.bag[: record.bag_size])
    assert {kind: int(count) for kind, count in enumerate(blocks["bag"]) if count} == dict(bag)
    assert np.array_equal(blocks["out_order"], record.out_order)
