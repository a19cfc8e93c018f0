"""Slabberjan's rules engine: compiled functions over one state record (see params.state_fields).

Comments cite rules as ``rule:<slug>``, the rules of docs/rules/slabberjan.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import rand_below, seed_state, shuffle
from cardenvs.core.shared_rules import end_with_penalty
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS, NUM_PIECES
from cardenvs.games.slabberjan.pieces import BIRD, CAT, FOOL, INN, KNIGHT, NO_PIECE

# Phases
PHASE_TURNS = 0  # the non-dealers act in turn
PHASE_DEALER = 1  # the dealer acts
PHASE_OVER = 2

# Actions
STAND = 0
EXCHANGE = 1  # a non-dealer swaps with the left neighbour; the dealer draws from the bag
DEALER_SWAP_LEFT = 2  # only with dealer_may_swap_left

# What a seat did this round (state.acted)
ACT_NONE = 0
ACT_STOOD = 1
ACT_SWAPPED = 2
ACT_BAGGED = 3
NUM_ACTS = 4

# bag_matador_rule codes (params.BAG_MATADOR_RULES)
BAG_AS_HOLDER = 0
BAG_INN_REDRAW_ONLY = 1
BAG_KEEP_ANY = 2

# reward_scheme codes (params.REWARD_SCHEMES)
REWARD_WINNER_TAKES_ALL = 0
REWARD_PLACEMENT = 1

# How a swap attempt ends (internal)
_TURN_ENDS = 0
_TO_DEALER = 1
_TO_SHOWDOWN = 2
_REDEAL = 3

WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DRAW_REWARD = 0.0


@njit(cache=True)
def left_of(state, seat):
    """The next seat clockwise that is still in the game."""
    n = state.num_players
    nxt = (seat + 1) % n
    while not state.in_game[nxt]:
        nxt = (nxt + 1) % n
    return nxt


@njit(cache=True)
def is_matador(kind):
    return kind >= INN


@njit(cache=True)
def _pay(state, player):
    """rule:paying: pay one chip to the centre, or owe it (eliminated at the end of the round) with none left."""
    if state.chips[player] > 0:
        state.chips[player] -= 1
        state.pot += 1
    else:
        state.owes[player] = True


@njit(cache=True)
def _announce(state, seat, kind):
    """rule:matadors_refuse: a matador stops an exchange and is announced to everyone."""
    state.announced[seat] = kind
    for viewer in range(state.num_players):
        state.known[viewer, seat] = kind


@njit(cache=True)
def _undo_exchanges(state):
    """rule:cat: every piece goes back to the seat it was dealt to; what players learnt from exchanges is void."""
    n = state.num_players
    for seat in range(n):
        if state.in_game[seat]:
            state.piece[seat] = state.original[seat]
    for viewer in range(n):
        for seat in range(n):
            if viewer == seat:
                state.known[viewer, seat] = state.piece[seat]
            elif state.fool_knocked[seat]:
                state.known[viewer, seat] = FOOL
            else:
                state.known[viewer, seat] = NO_PIECE


@njit(cache=True)
def _deal_from_bag(state):
    """rule:deal: one piece to each player from the bag's top, from the dealer's left round to the dealer.

    Expects all 42 pieces in ``state.bag`` in draw order. Starts the round's turns.
    """
    n = state.num_players
    state.bag_size = NUM_PIECES
    seat = state.dealer
    for _ in range(n):
        seat = left_of(state, seat)
        state.bag_size -= 1
        state.piece[seat] = state.bag[state.bag_size]
        if seat == state.dealer:
            break
    state.set_aside[:] = 0
    state.acted[:] = ACT_NONE
    state.announced[:] = NO_PIECE
    state.fool_knocked[:] = False
    state.known[:, :] = NO_PIECE
    for seat in range(n):
        if not state.in_game[seat]:
            state.piece[seat] = NO_PIECE
        state.original[seat] = state.piece[seat]
        state.known[seat, seat] = state.piece[seat]
    if state.fool_knocks:  # rule:fool_knock: a dealt Fool is made public
        for seat in range(n):
            if state.in_game[seat] and state.piece[seat] == FOOL:
                state.fool_knocked[seat] = True
                for viewer in range(n):
                    state.known[viewer, seat] = FOOL
    state.round_number += 1
    first = left_of(state, state.dealer)
    state.phase = PHASE_TURNS
    state.current_player = first
    if first == state.dealer:  # cannot happen with two or more players in; kept for safety
        state.phase = PHASE_DEALER


@njit(cache=True)
def _new_round(state):
    """rule:deal: collect all pieces, mix them in the bag, and deal."""
    position = 0
    for kind in range(NUM_KINDS):
        for _ in range(COPIES):
            state.bag[position] = kind
            position += 1
    shuffle(state, state.bag, NUM_PIECES)
    _deal_from_bag(state)


@njit(cache=True)
def reset(state, seed):
    """rule:players_and_chips, rule:deal: chips to everyone, a random first dealer, the first deal."""
    seed_state(state, seed)
    n = state.num_players
    state.chips[:] = state.start_chips
    state.in_game[:] = True
    state.shown[:] = NO_PIECE
    state.dealer = rand_below(state, n)
    _new_round(state)


@njit(cache=True)
def _swap_attempt(state, attacker):
    """The attacker tries to exchange with the left neighbour (rule:exchange); matadors answer automatically.

    rule:matadors_refuse, rule:inn, rule:cat, rule:bird, rule:knight; fool over fool asks for a redeal.
    """
    target = left_of(state, attacker)
    while target != attacker:  # rule:inn: a chain reaching the attacker fails at no cost
        kind = state.piece[target]
        if kind == INN:  # rule:inn: go by the Inn
            _announce(state, target, kind)
            target = left_of(state, target)
            continue
        if kind == CAT:  # rule:cat: play goes on left of the attacker
            _announce(state, target, kind)
            _pay(state, attacker)
            _undo_exchanges(state)
            return _TURN_ENDS
        if kind == BIRD:  # rule:bird
            _announce(state, target, kind)
            if state.bird_attempter_pays:
                _pay(state, attacker)
            return _TO_DEALER
        if kind == KNIGHT:  # rule:knight
            _announce(state, target, kind)
            _pay(state, attacker)
            return _TO_SHOWDOWN
        mine = state.piece[attacker]  # rule:exchange: both learn what the other now holds
        state.piece[attacker] = kind
        state.piece[target] = mine
        state.known[attacker, attacker] = kind
        state.known[target, target] = mine
        state.known[attacker, target] = mine
        state.known[target, attacker] = kind
        if mine == FOOL and kind == FOOL:  # rule:fool_over_fool
            return _REDEAL
        return _TURN_ENDS
    return _TURN_ENDS


@njit(cache=True)
def _set_aside(state, kind):
    state.set_aside[kind] += 1


@njit(cache=True)
def _take_from_bag(state, dealer, kind):
    """rule:bag_draw: the dealer's old piece is set aside face up and the drawn one taken."""
    _set_aside(state, state.piece[dealer])
    state.piece[dealer] = kind
    state.known[dealer, dealer] = kind


@njit(cache=True)
def _draw_from_bag(state, dealer):
    """The dealer exchanges with the bag's next piece (rule:bag_draw); a drawn matador answers (rule:bag_matadors)."""
    while state.bag_size > 0:  # rule:empty_bag_redraw: the dealer keeps the piece if the bag runs out
        state.bag_size -= 1
        kind = state.bag[state.bag_size]
        if state.bag_matador_rule == BAG_KEEP_ANY or not is_matador(kind):
            _take_from_bag(state, dealer, kind)
            return
        if kind == INN:  # redrawn under both other rules
            _set_aside(state, kind)
            continue
        if state.bag_matador_rule == BAG_INN_REDRAW_ONLY:
            _take_from_bag(state, dealer, kind)
            return
        _set_aside(state, kind)  # as_holder: the exchange is refused
        if kind == KNIGHT or kind == CAT:
            _pay(state, dealer)
        if kind == CAT:
            _undo_exchanges(state)
        return


@njit(cache=True)
def _kth_lowest_non_fool_rank(state, k):
    """The rank of the k-th lowest non-Fool piece in play (ties counted), or -1 with fewer than k of them."""
    count = 0
    for rank in range(NUM_KINDS):
        for seat in range(state.num_players):
            if state.in_game[seat] and state.piece[seat] != FOOL and state.rank_of[state.piece[seat]] == rank:
                count += 1
        if count >= k:
            return rank
    return -1


@njit(cache=True)
def _showdown(state):
    """Everyone shows and the lowest pay (rule:showdown_without_fools, rule:showdown_with_fools).

    Owing players are out after it (rule:eliminations).
    """
    n = state.num_players
    fools = 0
    lowest = NUM_KINDS
    for seat in range(n):
        state.shown[seat] = state.piece[seat]
        state.paid[seat] = False
        if state.in_game[seat]:
            if state.piece[seat] == FOOL:
                fools += 1
            lowest = min(lowest, state.rank_of[state.piece[seat]])
    threshold = lowest if fools == 0 else _kth_lowest_non_fool_rank(state, fools)
    for seat in range(n):
        if not state.in_game[seat]:
            continue
        kind = state.piece[seat]
        if fools > 0:
            pays = kind == FOOL or threshold < 0 or state.rank_of[kind] <= threshold
        else:
            pays = state.rank_of[kind] == threshold
        if pays:
            state.paid[seat] = True
            _pay(state, seat)
    _end_round(state)


@njit(cache=True)
def _end_round(state):
    """Eliminations take effect (rule:eliminations); the game ends (rule:end_and_rewards) or the deal passes left
    (rule:next_round)."""
    n = state.num_players
    group = 1
    for seat in range(n):
        group = max(group, state.out_order[seat] + 1)
    remaining = 0
    for seat in range(n):
        if state.in_game[seat] and state.owes[seat]:
            state.in_game[seat] = False
            state.owes[seat] = False
            state.out_order[seat] = group
            state.piece[seat] = NO_PIECE
        elif state.in_game[seat]:
            remaining += 1
    if remaining <= 1:
        _finish(state, group)
        return
    state.dealer = left_of(state, state.dealer)
    _new_round(state)


@njit(cache=True)
def _finish(state, last_group):
    """rule:end_and_rewards: final rewards."""
    n = state.num_players
    state.phase = PHASE_OVER
    state.terminated = True
    state.current_player = NO_PLAYER
    if state.reward_scheme == REWARD_PLACEMENT:
        # place = 1 + number of players who outlasted this one; tied players share the mean place.
        for seat in range(n):
            better = 0
            tied = 0
            mine = state.out_order[seat] if not state.in_game[seat] else last_group + 1
            for other in range(n):
                theirs = state.out_order[other] if not state.in_game[other] else last_group + 1
                if theirs > mine:
                    better += 1
                elif theirs == mine:
                    tied += 1
            place = better + (tied + 1) / 2.0  # mean of places better+1 … better+tied
            state.rewards[seat] = WIN_REWARD - (WIN_REWARD - LOSS_REWARD) * (place - 1.0) / (n - 1.0)
        return
    for seat in range(n):
        if state.in_game[seat]:
            state.rewards[seat] = WIN_REWARD
        elif state.out_order[seat] == last_group and not _anyone_in(state):
            state.rewards[seat] = DRAW_REWARD  # all the remaining players went out together
        else:
            state.rewards[seat] = LOSS_REWARD


@njit(cache=True)
def _anyone_in(state):
    for seat in range(state.num_players):
        if state.in_game[seat]:
            return True
    return False


@njit(cache=True)
def _after_turn(state, attacker, outcome):
    """Move play on after a turn that ended with ``outcome``."""
    if outcome == _REDEAL:  # rule:fool_over_fool: same dealer, payments and debts stand
        _new_round(state)
    elif outcome == _TO_SHOWDOWN or state.phase == PHASE_DEALER:
        _showdown(state)
    elif outcome == _TO_DEALER:
        state.phase = PHASE_DEALER
        state.current_player = state.dealer
    else:
        nxt = left_of(state, attacker)
        state.current_player = nxt
        if nxt == state.dealer:
            state.phase = PHASE_DEALER


@njit(cache=True)
def step(state, action):
    """Apply the current player's action (assumed legal) and play on to the next decision."""
    state.rewards[:] = 0.0
    state.step_count += 1
    player = state.current_player
    outcome = _TURN_ENDS
    if action == STAND:
        state.acted[player] = ACT_STOOD
    elif state.phase == PHASE_DEALER and action == EXCHANGE:
        state.acted[player] = ACT_BAGGED
        _draw_from_bag(state, player)
    else:
        state.acted[player] = ACT_SWAPPED
        outcome = _swap_attempt(state, player)
    _after_turn(state, player, outcome)


@njit(cache=True)
def legal_mask(state, mask):
    """STAND unless forced, EXCHANGE (rule:non_dealer_choice); for the dealer the bag while it has pieces, and
    the left swap with dealer_may_swap_left (rule:dealer_choice)."""
    mask[:] = 0
    if state.phase == PHASE_TURNS:
        mask[STAND] = 0 if state.forced_swap else 1
        mask[EXCHANGE] = 1
    elif state.phase == PHASE_DEALER:
        mask[STAND] = 1
        mask[EXCHANGE] = 1 if state.bag_size > 0 else 0
        if state.dealer_may_swap_left:
            mask[DEALER_SWAP_LEFT] = 1


@njit(cache=True)
def penalize(state, player):
    """rule:illegal_actions: the offender gets −1, the others 0, and the game ends."""
    state.phase = PHASE_OVER
    end_with_penalty(state, player)


def check_invariants(state: np.record, params) -> None:
    """Chips are conserved, every piece is in exactly one place, and a player to act has a legal action."""
    n = int(state.num_players)
    assert int(state.chips.sum()) + int(state.pot) == n * int(state.start_chips), "chips not conserved"
    assert (state.chips >= 0).all()
    counts = np.zeros(NUM_KINDS, np.int64)
    for seat in range(n):
        if state.in_game[seat]:
            assert state.piece[seat] != NO_PIECE, f"seat {seat} is in but holds no piece"
            counts[state.piece[seat]] += 1
        else:
            assert state.piece[seat] == NO_PIECE, f"seat {seat} is out but holds a piece"
    for i in range(int(state.bag_size)):
        counts[state.bag[i]] += 1
    counts += state.set_aside
    if state.terminated or state.truncated:  # the seats that went out in the last round took their pieces along
        assert (counts <= COPIES).all(), f"pieces not accounted for: {counts.tolist()}"
    else:
        assert (counts == COPIES).all(), f"pieces not accounted for: {counts.tolist()}"
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER
        return
    player = int(state.current_player)
    assert state.in_game[player], "an eliminated seat is to act"
    assert int(state.in_game.sum()) >= 2, "a finished game is still running"
    mask = np.zeros(3 if state.dealer_may_swap_left else 2, np.int8)
    legal_mask(state, mask)
    assert mask.any(), "the player to act has no legal action"
    assert (state.phase == PHASE_DEALER) == (player == state.dealer)
