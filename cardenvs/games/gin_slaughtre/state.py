"""Gin Slaughtre's global state: both hands, every card's place, the secret arrangements and the table.

Seat blocks are absolute (entry 0 is seat 0); card blocks are indexed by card id (cards.py). The blocks that an
observation also has are encoded as there (observation.py): a seat's ``own_hand`` is its row of ``hands``, its
``opponent_known_hand`` the opponent's row of ``hands`` times ``public_hand_cards``. The stock is given as its
contents, not its order (what is drawn next).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.gin_slaughtre.actions import ARRANGE_BASE, MAX_DOWNCARDS, NUM_ARRANGEMENTS
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS
from cardenvs.games.gin_slaughtre.observation import NO_CARD_SLOT, PILE_TOP_SHOWN, observation_layout
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.rules import (
    LOC_BURNT,
    LOC_DOWN,
    LOC_HAND,
    LOC_PILE,
    LOC_STOCK,
    LOC_UP,
    PHASE_OVER,
    top_same_rank,
)

# The observation's blocks that the state has unchanged (seat-independent), and those it has per absolute seat.
_SHARED = ("pile_cards", "burnt", "pile_top", "pile_size", "pile_top_same_rank", "stock_size", "restricted", "phase")
_PER_SEAT = ("hand_sizes", "to_act", "dealer", "downcards")


def state_layout(params: GinSlaughtreParams) -> ObservationLayout:
    """The named blocks of the global state, in order (the downcard blocks only with ``num_downcards=3``)."""
    n = NUM_PLAYERS
    observed = {view.name: view for view in observation_layout(params).views}
    per_seat = {
        name: ObservationView(name, view.size, view.low, view.high, view.description.replace("relative seat", "seat"))
        for name, view in observed.items()
        if name in _PER_SEAT
    }
    views = [
        ObservationView("hands", n * NUM_CARDS, 0, 1, "per seat, 1 per card id in its hand"),
        ObservationView("upcards", n * NUM_CARDS, 0, 1, "per seat, 1 per card id among its upcards"),
        ObservationView(
            "public_hand_cards", NUM_CARDS, 0, 1,
            "1 per card id in a hand and public (taken with the pile, starter card, dealt upcard moved to the hand, "
            "failed downcard)",
        ),
        ObservationView("stock_cards", NUM_CARDS, 0, 1, "1 per card id in the stock"),
        *(observed[name] for name in _SHARED),
        per_seat["hand_sizes"],
        per_seat["to_act"],
        per_seat["dealer"],
        ObservationView(
            "arrangements", n * NUM_ARRANGEMENTS, 0, 1,
            "per seat, one-hot arrange action chosen (secret until both chose; zero before it chose)",
        ),
    ]
    if params.num_downcards:
        views += [
            per_seat["downcards"],
            ObservationView(
                "downcard_cards", n * MAX_DOWNCARDS * NUM_CARDS, 0, 1,
                "per seat and slot, one-hot card id lying face down there (zero once turned over)",
            ),
        ]
    return ObservationLayout(views)


# Offsets of the blocks: the downcard blocks, present only with num_downcards=3, come last.
_FULL_LAYOUT = state_layout(GinSlaughtreParams(num_downcards=MAX_DOWNCARDS))
_AT = {name: begin for name, (begin, _) in _FULL_LAYOUT.offsets.items()}
HANDS = _AT["hands"]
UPCARDS = _AT["upcards"]
PUBLIC_HAND_CARDS = _AT["public_hand_cards"]
STOCK_CARDS = _AT["stock_cards"]
PILE_CARDS = _AT["pile_cards"]
BURNT = _AT["burnt"]
PILE_TOP = _AT["pile_top"]
PILE_SIZE = _AT["pile_size"]
PILE_TOP_SAME_RANK = _AT["pile_top_same_rank"]
HAND_SIZES = _AT["hand_sizes"]
STOCK_SIZE = _AT["stock_size"]
RESTRICTED = _AT["restricted"]
PHASE = _AT["phase"]
TO_ACT = _AT["to_act"]
DEALER = _AT["dealer"]
ARRANGEMENTS = _AT["arrangements"]
DOWNCARDS = _AT["downcards"]
DOWNCARD_CARDS = _AT["downcard_cards"]


@njit(cache=True)
def encode_state(state, out):
    """Write the global state of ``state`` into ``out`` (float32, the size of :func:`state_layout`)."""
    out[:] = 0.0
    locations = state.location
    for card in range(NUM_CARDS):
        location = int(locations[card])  # int(): as plain Python int8 arithmetic below would overflow
        if LOC_HAND <= location < LOC_UP:
            out[HANDS + (location - LOC_HAND) * NUM_CARDS + card] = 1.0
            out[PUBLIC_HAND_CARDS + card] = np.float32(state.known[card] != 0)
        elif LOC_UP <= location < LOC_UP + NUM_PLAYERS:
            out[UPCARDS + (location - LOC_UP) * NUM_CARDS + card] = 1.0
        out[STOCK_CARDS + card] = np.float32(location == LOC_STOCK)
        out[PILE_CARDS + card] = np.float32(location == LOC_PILE)
        out[BURNT + card] = np.float32(location == LOC_BURNT)
    for depth in range(PILE_TOP_SHOWN):
        index = state.pile_size - 1 - depth
        card = int(state.pile[index]) if index >= 0 else NO_CARD_SLOT
        out[PILE_TOP + depth * (NUM_CARDS + 1) + card] = 1.0
    out[PILE_SIZE] = state.pile_size
    out[PILE_TOP_SAME_RANK] = top_same_rank(state)
    out[STOCK_SIZE] = state.stock_size
    out[RESTRICTED] = state.restricted
    if state.phase != PHASE_OVER:
        out[PHASE + int(state.phase)] = 1.0
        out[TO_ACT + state.current_player] = 1.0
    out[DEALER + state.dealer] = 1.0
    for seat in range(NUM_PLAYERS):
        out[HAND_SIZES + seat] = state.hand_count[seat]
        if state.pending_arrangement[seat] >= 0:
            out[ARRANGEMENTS + seat * NUM_ARRANGEMENTS + state.pending_arrangement[seat] - ARRANGE_BASE] = 1.0
        for slot in range(state.num_downcards):
            card = state.downcards[seat, slot]
            if card >= 0:
                out[DOWNCARDS + seat * MAX_DOWNCARDS + slot] = 1.0
                out[DOWNCARD_CARDS + (seat * MAX_DOWNCARDS + slot) * NUM_CARDS + int(card)] = 1.0


#: how a seat's observation reads off this state (``Game.observation_sources``)
OBSERVATION_SOURCES = {
    "own_hand": ("own", "hands"),
    "own_upcards": ("own", "upcards"),
    "opponent_upcards": ("left", "upcards"),  # two seats: the one on the left is the opponent
    "opponent_known_hand": ("left", "hands", "public_hand_cards"),
    **{name: ("seats", name) for name in _PER_SEAT},
}


def _cards(bits: np.ndarray) -> set[int]:
    return set(np.flatnonzero(bits).tolist())


def check_global_state(record: np.record, blocks: dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless the state's blocks put every card where the record has it, arrangements too."""
    location = record.location
    hands = blocks["hands"].reshape(NUM_PLAYERS, -1)
    upcards = blocks["upcards"].reshape(NUM_PLAYERS, -1)
    for seat in range(NUM_PLAYERS):
        assert _cards(hands[seat]) == _cards(location == LOC_HAND + seat)
        assert _cards(upcards[seat]) == _cards(location == LOC_UP + seat)
    assert _cards(blocks["stock_cards"]) == _cards(location == LOC_STOCK)
    assert _cards(blocks["pile_cards"]) == _cards(location == LOC_PILE)
    assert _cards(blocks["burnt"]) == _cards(location == LOC_BURNT)
    in_hand = (location >= LOC_HAND) & (location < LOC_UP)
    assert _cards(blocks["public_hand_cards"]) == _cards(in_hand & (record.known != 0))
    if "downcard_cards" in blocks:  # num_downcards=3 only
        face_down = blocks["downcard_cards"].reshape(NUM_PLAYERS, record.downcards.shape[1], -1)
        for seat in range(NUM_PLAYERS):
            for slot in range(record.downcards.shape[1]):
                card = int(record.downcards[seat, slot])
                assert _cards(face_down[seat, slot]) == ({card} if card >= 0 else set())
                if card >= 0:
                    assert location[card] == LOC_DOWN + seat
    else:
        assert not (location >= LOC_DOWN).any()
    chosen = blocks["arrangements"].reshape(NUM_PLAYERS, -1)
    for seat in range(NUM_PLAYERS):
        choice = int(record.pending_arrangement[seat])
        assert list(np.flatnonzero(chosen[seat])) == ([choice] if choice >= 0 else [])
