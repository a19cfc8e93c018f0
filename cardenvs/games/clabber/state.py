"""Clabber's global state: every seat's hand and the whole table.

Everything but the hands is public, so the state is seat 0's observation (observation.py) with its
``own_hand`` block replaced by ``hands``, every seat's cards. As seen from seat 0, relative seats are absolute
seats and the team blocks are (team 0, team 1): team 0 is seats 0 and 2.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.clabber.cards import NUM_CARDS
from cardenvs.games.clabber.observation import (
    DEALER_AT,
    HAND_AT,
    LEADER_AT,
    MAKER_AT,
    NO_TRUMP_SLOT,
    NUM_PHASES_SHOWN,
    PHASE_AT,
    TO_ACT_AT,
    TRICK_AT,
    TRUMP_AT,
    TURN_UP_AT,
    _observe_seat,
    _observe_teams,
    _one_hot,
    _set_cards,
    observation_layout,
)
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams
from cardenvs.games.clabber.rules import PHASE_OVER

#: where seat 0's observation starts in the state: its own_hand block is the last row of ``hands``
OBSERVATION_AT = (NUM_PLAYERS - 1) * NUM_CARDS
TEAM_0 = 0  # seat 0's team: its "own team" blocks are team 0's

# The observation's descriptions that name seats or teams relative to the observer, for absolute ones.
_ABSOLUTE_DESCRIPTIONS = {
    "meld_winner": "one-hot: team 0 / team 1 / nobody scores melds (0: open)",
    "bell": "per team (0, 1): 1 once it scored the Bell",
}


def state_layout(params: ClabberParams) -> ObservationLayout:
    """The named blocks of the global state, in order."""
    views = [ObservationView("hands", NUM_PLAYERS * NUM_CARDS, 0, 1, "per seat, the cards it holds (multi-hot)")]
    for view in observation_layout(params).views:
        if view.name == "own_hand":
            continue
        description = _ABSOLUTE_DESCRIPTIONS.get(view.name, view.description.replace("relative seat", "seat"))
        views.append(ObservationView(view.name, view.size, view.low, view.high, description))
    return ObservationLayout(views)


@njit(cache=True)
def encode_state(state, out):
    """Write the global state of ``state`` into ``out`` (float32, the size of :func:`state_layout`)."""
    out[:] = 0.0  # the one-hot blocks set only their one entry
    obs = out[OBSERVATION_AT:]  # laid out as seat 0's observation, relative seats being absolute ones
    # int(): as plain Python an int8 field plus an offset would overflow
    _one_hot(obs, TURN_UP_AT, NUM_CARDS, int(state.turn_up))
    _one_hot(obs, DEALER_AT, NUM_PLAYERS, state.dealer)
    _one_hot(obs, TO_ACT_AT, NUM_PLAYERS, state.current_player)
    _one_hot(obs, PHASE_AT, NUM_PHASES_SHOWN, -1 if state.phase == PHASE_OVER else int(state.phase))
    _one_hot(obs, TRUMP_AT, NO_TRUMP_SLOT + 1, NO_TRUMP_SLOT if state.trump < 0 else int(state.trump))
    _one_hot(obs, MAKER_AT, NUM_PLAYERS, state.maker)
    _one_hot(obs, LEADER_AT, NUM_PLAYERS, state.leader)
    for seat in range(NUM_PLAYERS):
        _observe_seat(state, seat, seat, obs)
    for position in range(NUM_PLAYERS):
        _one_hot(obs, TRICK_AT + position * NUM_CARDS, NUM_CARDS, int(state.trick[position]))
    _observe_teams(state, TEAM_0, obs)
    for seat in range(NUM_PLAYERS):  # last: the last row overlaps seat 0's own_hand block
        _set_cards(out, seat * NUM_CARDS, state.hand[seat])


assert HAND_AT == 0  # the observation starts with own_hand, which hands replaces


#: how a seat's observation reads off this state (``Game.observation_sources``)
OBSERVATION_SOURCES = {
    "own_hand": ("own", "hands"),
    **{
        name: ("seats", name)
        for name in ("dealer", "to_act", "bids_first", "bids_second", "maker", "played", "trick_leader",
                     "meld_cards", "meld_category", "meld_points", "meld_turn_done")
    },
    # team 0, team 1 (then "nobody" in meld_winner) become own team, opponents
    **{name: ("teams", name) for name in ("meld_winner", "bell", "trick_points", "tricks_won", "scores")},
}


def check_global_state(record: np.record, blocks: dict[str, np.ndarray]) -> None:
    """Raise AssertionError unless the state's ``hands`` block holds every seat's cards."""
    hands = blocks["hands"].reshape(NUM_PLAYERS, -1)
    for seat in range(NUM_PLAYERS):
        held = {card for card in range(NUM_CARDS) if (int(record.hand[seat]) >> card) & 1}
        assert set(np.flatnonzero(hands[seat]).tolist()) == held
