"""Slap's global state: the table as seat 0 sees it, then what no seat sees.

The first blocks are seat 0's observation (observation.py), whose relative seats are absolute ones. Then: the
seat to act, the cards in every face-down stack and under the pile (as sets: a stack's order is what it will
play next, the game's future chance), the choices already made in the open slap window, and which slap rules
the pile matches now, and whether it matches any (so that a learner's auxiliary task can predict slappability as
one label, which every slap pattern teaches alike).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER, ObservationLayout, ObservationView
from cardenvs.games.slap.cards import MAX_CARDS
from cardenvs.games.slap.observation import observation_layout, observe
from cardenvs.games.slap.params import NUM_SLAP_RULES, SlapParams
from cardenvs.games.slap.rules import PLAY, pile_card, pile_cards, stack_cards

OBSERVER = 0  # the seat whose observation starts the state: its relative seats are the absolute ones
MASK_SIZE = PLAY + 1  # every action id, so the observer's legal mask has room whatever the parameters


def state_layout(params: SlapParams) -> ObservationLayout:
    """The named blocks of the global state, in order."""
    n = params.num_players
    views = [
        ObservationView(v.name, v.size, v.low, v.high, v.description.replace("relative seat", "seat"))
        for v in observation_layout(params).views
    ]
    views += [
        ObservationView("to_act", n, 0, 1, "one-hot seat to act (all zero once the game is over)"),
        ObservationView("stacks", n * MAX_CARDS, 0, 1, "per seat, the cards in its face-down stack (multi-hot)"),
        ObservationView("face_up_cards", MAX_CARDS, 0, 1, "the face-up cards of the pile (multi-hot)"),
        ObservationView("burnt_cards", MAX_CARDS, 0, 1, "the face-down (burnt) cards under the pile (multi-hot)"),
        ObservationView("slap_choices", n, 0, 1, "per seat, 1 if it slapped in the open window so far (secret)"),
        ObservationView(
            "slap_matches", NUM_SLAP_RULES, 0, 1, "1 per active slap rule the pile matches now (slap_rules order)"
        ),
        ObservationView("slappable", 1, 0, 1, "1 if the pile matches at least one active slap rule now"),
    ]
    layout = ObservationLayout(views)
    assert layout.size == observation_layout(params).size + unobserved_size(n)
    return layout


@njit(cache=True)
def unobserved_size(num_players):
    """The size of the blocks after seat 0's observation (the last, ``slappable``, is one entry)."""
    return 2 * num_players + num_players * MAX_CARDS + 2 * MAX_CARDS + NUM_SLAP_RULES + 1


@njit(cache=True)
def encode_state(state, out):
    """Write the global state of ``state`` into ``out`` (float32, the size of :func:`state_layout`)."""
    n = state.num_players
    observed = out.shape[0] - unobserved_size(n)
    observe(state, OBSERVER, out[:observed], np.zeros(MASK_SIZE, np.int8))
    out[observed:] = 0.0
    at = observed
    if state.current_player != NO_PLAYER:
        out[at + state.current_player] = 1.0
    at += n
    for seat in range(n):
        top = state.stack_top[seat]
        for k in range(state.stack_size[seat]):
            out[at + seat * MAX_CARDS + int(state.stack[seat, (top + k) % MAX_CARDS])] = 1.0
    at += n * MAX_CARDS
    burnt_at = at + MAX_CARDS
    for depth in range(state.pile_size):
        out[(at if depth < state.face_up else burnt_at) + pile_card(state, depth)] = 1.0
    at = burnt_at + MAX_CARDS
    for seat in range(n):
        out[at + seat] = 1.0 if state.slap_choice[seat] else 0.0
    at += n
    for rule in range(NUM_SLAP_RULES):
        out[at + rule] = np.float32((state.slap_matches >> rule) & 1)
    out[at + NUM_SLAP_RULES] = 1.0 if state.slap_matches != 0 else 0.0


#: how a seat's observation reads off this state (``Game.observation_sources``): the seat blocks of seat 0's
#: observation, turned; the other blocks are seat 0's, which every seat sees alike
OBSERVATION_SOURCES = {
    name: ("seats", name)
    for name in ("stack_sizes", "eliminated", "played_last", "challenger", "payer", "last_slapped", "last_winner")
}


def check_global_state(record: np.record, blocks: dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless the state's blocks hold every stack, the pile's cards and the window's choices."""
    n = int(record.num_players)
    stacks = blocks["stacks"].reshape(n, -1)
    for seat in range(n):
        assert set(np.flatnonzero(stacks[seat]).tolist()) == set(stack_cards(record, seat))
    pile = pile_cards(record)
    face_up = int(record.face_up)
    assert set(np.flatnonzero(blocks["face_up_cards"]).tolist()) == set(pile[len(pile) - face_up:])
    assert set(np.flatnonzero(blocks["burnt_cards"]).tolist()) == set(pile[: len(pile) - face_up])
    assert np.array_equal(blocks["slap_choices"], record.slap_choice)
    assert blocks["slappable"][0] == (1.0 if record.slap_matches != 0 else 0.0)
    to_act = [int(record.current_player)] if record.current_player >= 0 else []
    assert list(np.flatnonzero(blocks["to_act"])) == to_act
    # every card in play is in exactly one place
    places = np.concatenate([stacks, blocks["face_up_cards"][None], blocks["burnt_cards"][None]])
    assert np.array_equal(places.sum(axis=0), record.in_play)
