"""Slabberjan's checks of a state record from outside (a restored snapshot, ``VectorEnv.set_states``).

:func:`field_ranges` bounds every field; :func:`check_record` requires a record the rules can reach: chips
conserved, every piece in exactly one place (a seat still in, the bag or the set-aside row), seats out holding
nothing, each seat knowing its own piece, announcements that are matadors, and a seat to act that is in. The core
runs them (:func:`cardenvs.core.snapshot.validate_record`) before the compiled rules read the record.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import require
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, NUM_PIECES, SlabberjanParams
from cardenvs.games.slabberjan.pieces import FOOL, INN, NO_PIECE
from cardenvs.games.slabberjan.rules import ACT_NONE, NUM_ACTS, PHASE_DEALER, PHASE_OVER, PHASE_TURNS

#: ``round_number`` bound: far more rounds than any game lasts (each round costs a chip or ends by a redeal)
MAX_ROUNDS = 2**30


def field_ranges(params: SlabberjanParams) -> dict[str, tuple[int, int]]:
    """The inclusive range of every entry of each game field of the record (``Game.field_ranges``)."""
    n = params.num_players
    chips = n * params.start_chips
    kind = (NO_PIECE, NUM_KINDS - 1)
    flag = (0, 1)
    return {
        "phase": (PHASE_TURNS, PHASE_OVER),
        "round_number": (1, MAX_ROUNDS),
        "dealer": (0, n - 1),
        "chips": (0, chips),
        "pot": (0, chips),
        "in_game": flag,
        "owes": flag,
        "out_order": (0, n),
        "piece": kind,
        "original": kind,
        "bag": (0, NUM_KINDS - 1),
        "bag_size": (0, NUM_PIECES),
        "set_aside": (0, COPIES),
        "acted": (ACT_NONE, NUM_ACTS - 1),
        "announced": kind,
        "fool_knocked": flag,
        "known": kind,
        "shown": kind,
        "paid": flag,
    }


def check_record(state: np.record, params: SlabberjanParams) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` naming the field unless ``state`` is a reachable record
    (``Game.check_record``; the ranges of :func:`field_ranges` already hold)."""
    n = int(state.num_players)
    require(int(state.chips.sum()) + int(state.pot) == n * int(state.start_chips), "chips",
            "with the pot they must add up to every seat's starting chips")
    counts = np.zeros(NUM_KINDS, np.int64)
    for seat in range(n):
        inside = bool(state.in_game[seat])
        held = int(state.piece[seat])
        require((held != NO_PIECE) == inside, "piece", f"seat {seat} holds a piece exactly while it is in")
        require((int(state.out_order[seat]) == 0) == inside, "out_order", f"seat {seat}'s is 0 exactly while in")
        require(inside or not state.owes[seat], "owes", f"seat {seat} is out and owes")
        if inside:
            counts[held] += 1
            require(int(state.original[seat]) != NO_PIECE, "original", f"seat {seat} is in without a dealt piece")
        announced = int(state.announced[seat])
        require(announced == NO_PIECE or announced >= INN, "announced", f"seat {seat} announced a non-matador")
        if state.fool_knocked[seat]:
            require(bool(state.fool_knocks) and int(state.original[seat]) == FOOL, "fool_knocked",
                    f"seat {seat} knocked without a dealt Fool")
    for i in range(int(state.bag_size)):
        counts[int(state.bag[i])] += 1
    counts += np.asarray(state.set_aside).astype(np.int64)
    over = bool(state.terminated or state.truncated)
    # in a finished game the seats that went out in the last round took their pieces along
    complete = (counts <= COPIES) if over else (counts == COPIES)
    require(complete.all(), "bag", f"with the seats' pieces and the set-aside ones it must hold each kind {COPIES} "
                                   "times")
    require((int(state.phase) == PHASE_OVER) == over, "phase", "is PHASE_OVER exactly when the game is over")
    if over:
        return
    require(int(state.in_game.sum()) >= 2, "in_game", "a game in progress has two seats in or more")
    player, dealer = int(state.current_player), int(state.dealer)
    require(bool(state.in_game[player]), "current_player", "a seat that is out is to act")
    require(bool(state.in_game[dealer]), "dealer", "a seat that is out deals")
    require((int(state.phase) == PHASE_DEALER) == (player == dealer), "phase",
            "is PHASE_DEALER exactly when the dealer is to act")
    inside = np.flatnonzero(np.asarray(state.in_game))
    require(not np.asarray(state.set_aside).any(), "set_aside", "pieces are set aside only at the dealer's turn, "
                                                                "which ends the round")
    require(sorted(state.piece[inside].tolist()) == sorted(state.original[inside].tolist()), "original",
            "until the dealer acts the seats hold the pieces dealt to them, exchanged among themselves")
    for seat in range(n):
        if state.in_game[seat]:
            require(int(state.known[seat, seat]) == int(state.piece[seat]), "known", f"seat {seat} does not know "
                                                                                     "its own piece")
