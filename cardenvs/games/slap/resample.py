"""Slap's hidden-card resampler: a full state record that one seat cannot tell from the true one.

Nothing in Slap is private: every card played face up is seen by every seat, and from then on every move of it is
public (a won pile goes under the winner's stack in order, a stack is played and burnt from its top), so the
record's ``seen`` marks say exactly which card of a stack or of the pile's burnt cards every seat can name. The
rest (the cards never turned face up: the unplayed part of the deal, burnt cards that were never face up, and the
cards left out of the game) are the unseen cards, and the unseen places they fill are public (every stack's size,
the pile's burnt count, which places hold a seen card). No card shown changes how likely anything else is (the
slap rules read face-up cards only), so every way of putting the unseen cards into the unseen places is equally
likely: the resampler deals them again uniformly, exactly.

Besides the cards, three more fields hold what the seat cannot know, and are rewritten from public data alone so
that the result depends only on the seat's knowledge and ``rng``: the choices already made in an open slap window
by the other seats (secret until it resolves: drawn SLAP or PASS with even chances each, uniform over the legal
actions, since every combination is consistent with the seat's view and the rules put no chance on a decision; the
seat's own choice is kept and the seats not yet asked have none), the reaction times of the last resolved window's
slappers under ``reaction_noise`` (fresh Exp(1) draws, the fastest given to the public winner) and the deal's pack
order (``deck``, cleared to NO_CARD as for a stacks deal: no order is known that deals the new stacks). Unused
slots of the stack and pile ring buffers are cleared to NO_CARD. docs/rules/slap.md, "Resampling", says the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import next_u64, rand_below, seed_state, shuffle
from cardenvs.games.slap.cards import MAX_CARDS, NO_CARD
from cardenvs.games.slap.rules import PHASE_WINDOW, SLAP, TIEBREAK_REACTION_NOISE, reaction_time_of

#: the two choices of a slap window (PASS, SLAP): an unknown choice is drawn among them
WINDOW_CHOICES = 2


@njit(cache=True)
def _deal_unseen(state):
    """Put the unseen cards, shuffled by the record's generator, into the unseen places in a fixed order: each
    stack from the top, then the pile from the bottom; the cards left over are out of the game."""
    pool = np.empty(MAX_CARDS, np.int8)
    count = 0
    for card in range(state.deck_size):  # by card id, so the shuffle's input is the same whatever the true deal
        if not state.seen[card]:
            pool[count] = card
            count += 1
    shuffle(state, pool, count)
    state.in_play[:] = state.seen
    dealt = 0
    for seat in range(state.num_players):
        top = state.stack_top[seat]
        size = state.stack_size[seat]
        for slot in range(MAX_CARDS):
            at = (top + slot) % MAX_CARDS
            if slot >= size:
                state.stack[seat, at] = NO_CARD  # an unused slot may still name a card taken earlier
            elif not state.seen[state.stack[seat, at]]:
                state.stack[seat, at] = pool[dealt]
                state.in_play[pool[dealt]] = 1
                dealt += 1
    for slot in range(MAX_CARDS):
        at = (state.pile_bottom + slot) % MAX_CARDS
        if slot >= state.pile_size:
            state.pile[at] = NO_CARD
        elif not state.seen[state.pile[at]]:
            state.pile[at] = pool[dealt]
            state.in_play[pool[dealt]] = 1
            dealt += 1
    state.deck[:] = NO_CARD


@njit(cache=True)
def _redraw_window_choices(state, seat):
    """The choices of the open window made by seats other than ``seat``: SLAP or PASS with even chances each."""
    if state.phase != PHASE_WINDOW or state.terminated or state.truncated:
        return
    for index in range(state.window_index):
        other = state.window_order[index]
        if other != seat:
            state.slap_choice[other] = rand_below(state, WINDOW_CHOICES) == SLAP


@njit(cache=True)
def _redraw_reaction_times(state):
    """rule:simultaneous_slaps: fresh reaction times for the slappers of the last resolved window, the fastest
    given to its public winner (independent Exp(1) draws conditioned on who was fastest)."""
    state.reaction_time[:] = 0.0
    winner = state.last_winner
    if state.slap_tiebreak != TIEBREAK_REACTION_NOISE or winner == NO_PLAYER:
        return
    fastest = NO_PLAYER
    for other in range(state.num_players):
        if state.last_slapped[other]:
            state.reaction_time[other] = reaction_time_of(next_u64(state))
            if fastest == NO_PLAYER or state.reaction_time[other] < state.reaction_time[fastest]:
                fastest = other
    best = state.reaction_time[fastest]  # the winner slapped, so some slapper was drawn
    state.reaction_time[fastest] = state.reaction_time[winner]
    state.reaction_time[winner] = best


@njit(cache=True)
def resample_record(states, seat, seed):
    """Resample game 0 of ``states`` in place for ``seat``: reseed its generator from ``seed``, then deal the unseen
    cards again and redraw the window choices and reaction times ``seat`` cannot know, all with that generator."""
    state = states[0]
    seed_state(state, seed)
    _deal_unseen(state)
    _redraw_window_choices(state, seat)
    _redraw_reaction_times(state)


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with every card no seat has seen dealt again uniformly into the places no seat can name,
    the other seats' choices of an open window and the last reaction times redrawn, and the game's generator
    reseeded from ``rng``.

    Args:
        state: a Slap state record (not changed).
        seat: the seat whose view is kept; the cards are the same for every seat, its own window choice is kept.
        rng: where the new generator seed comes from (the only draw taken from it).

    Returns:
        the new record (an ``np.record`` of its own one-record array).
    """
    copy = np.frombuffer(bytearray(state.tobytes()), state.dtype)  # a writable one-record copy, the quickest made
    resample_record(copy, np.int64(seat), np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
    return copy.view(np.recarray)[0]
