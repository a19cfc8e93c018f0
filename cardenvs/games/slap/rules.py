"""Slap's rules engine: compiled functions over one state record (see params.state_fields).

Comments cite the rules of docs/rules/slap.md as ``rule:<slug>``. Card plays are automatic; the only decisions are
the hidden SLAP/PASS choices of each slap window (and PLAY with ``expose_play_action``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import next_u64, rand_below, seed_state, shuffle
from cardenvs.core.shared_rules import end_with_penalty
from cardenvs.games.slap.cards import (
    FIRST_JOKER,
    JACK,
    JOKER_RANK,
    KING,
    MAX_CARDS,
    NO_CARD,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN,
    TEN,
)

# Phases
PHASE_WINDOW = 0  # the seats still in choose SLAP or PASS, one after another, unseen by the others
PHASE_PLAY = 1  # the seat to play confirms its card play (expose_play_action only)
PHASE_OVER = 2

# Actions
PASS = 0
SLAP = 1
PLAY = 2  # only with expose_play_action

# Slap rules: bit positions in state.slap_matches and indices into state.slap_rule_on (params.SLAP_RULES)
RULE_DOUBLE = 0
RULE_SANDWICH = 1
RULE_TOP_BOTTOM = 2
RULE_TENS = 3
RULE_JOKER = 4
RULE_FOUR_IN_A_ROW = 5
RULE_MARRIAGE = 6

# slap_tiebreak codes (params.SLAP_TIEBREAKS)
TIEBREAK_UNIFORM = 0
TIEBREAK_REACTION_NOISE = 1

# window_mode codes (params.WINDOW_MODES)
WINDOWS_EVERY_CARD = 0
WINDOWS_SLAPPABLE_ONLY = 1

# reward_scheme codes (params.REWARD_SCHEMES)
REWARD_WINNER_TAKES_ALL = 0
REWARD_SHARE_OF_CARDS = 1

WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DRAW_REWARD = 0.0

TENS_TARGET = 10  # the sum the Tens rule looks for
_UNIT_SCALE = 1.0 / 9007199254740992.0  # 2**-53: 53 random bits to a float in (0, 1)
_SHIFT_11 = np.uint64(11)


# ---------------------------------------------------------------------------------------------- cards
@njit(cache=True)
def rank_of(card):
    """rule:pack: the rank id of a card id (A = 0 … K = 12; JOKER_RANK for a Joker)."""
    card = int(card)
    return JOKER_RANK if card >= FIRST_JOKER else card // NUM_SUITS


@njit(cache=True)
def tens_value(rank):
    """rule:tens: A = 1, 2–10 at face value; 0 for J, Q, K and Jokers (they have no value)."""
    return rank + 1 if rank <= TEN else 0


@njit(cache=True)
def _is_letter(rank):
    return rank == JACK or rank == QUEEN or rank == KING


# ---------------------------------------------------------------------------------------------- stacks and pile
@njit(cache=True)
def _take_top(state, seat):
    """The top card of ``seat``'s stack, removed."""
    card = state.stack[seat, state.stack_top[seat]]
    state.stack_top[seat] = (state.stack_top[seat] + 1) % MAX_CARDS
    state.stack_size[seat] -= 1
    return card


@njit(cache=True)
def _put_on_top(state, seat, card):
    """A card onto ``seat``'s stack (dealing)."""
    state.stack_top[seat] = (state.stack_top[seat] + MAX_CARDS - 1) % MAX_CARDS
    state.stack[seat, state.stack_top[seat]] = card
    state.stack_size[seat] += 1


@njit(cache=True)
def _put_at_bottom(state, seat, card):
    """A card under ``seat``'s stack (winning a pile)."""
    state.stack[seat, (state.stack_top[seat] + state.stack_size[seat]) % MAX_CARDS] = card
    state.stack_size[seat] += 1


@njit(cache=True)
def pile_card(state, depth):
    """The pile's card ``depth`` places below the top (0 = top); the caller checks ``depth < pile_size``."""
    return int(state.pile[(state.pile_bottom + state.pile_size - 1 - depth) % MAX_CARDS])


@njit(cache=True)
def first_face_up(state):
    """rule:top_bottom: the first face-up card of the pile (the lowest face-up one), or NO_CARD."""
    if state.face_up == 0:
        return NO_CARD
    return pile_card(state, state.face_up - 1)


@njit(cache=True)
def _next_with_cards(state, seat, include_self):
    """The first seat clockwise after ``seat`` holding cards (``seat`` itself last if allowed), or NO_PLAYER."""
    n = state.num_players
    for step in range(1, n + 1):
        other = (seat + step) % n
        if other == seat and not include_self:
            break
        if state.stack_size[other] > 0:
            return other
    return NO_PLAYER


# ---------------------------------------------------------------------------------------------- slap rules
@njit(cache=True)
def _is_run(r1, r2, r3, r4):
    """rule:four_in_a_row: four ranks, oldest first, each one step up or each one step down, cyclically over A–K."""
    if r1 == JOKER_RANK or r2 == JOKER_RANK or r3 == JOKER_RANK or r4 == JOKER_RANK:
        return False
    step = (r2 - r1 + NUM_RANKS) % NUM_RANKS
    if step != 1 and step != NUM_RANKS - 1:
        return False
    return (r3 - r2 + NUM_RANKS) % NUM_RANKS == step and (r4 - r3 + NUM_RANKS) % NUM_RANKS == step


@njit(cache=True)
def _tens(top, second, third, face_up):
    """rule:tens: the top two cards sum to 10, or the top and third do with a J/Q/K between them."""
    top_value = tens_value(top)
    if face_up >= 2 and top_value > 0 and tens_value(second) > 0 and top_value + tens_value(second) == TENS_TARGET:
        return True
    if face_up >= 3 and _is_letter(second) and tens_value(top) > 0 and tens_value(third) > 0:
        return tens_value(top) + tens_value(third) == TENS_TARGET
    return False


@njit(cache=True)
def face_up_matches(on, face_up, top, second, third, fourth, first):
    """rule:slappable_pile: bit r is set when slap rule r is on (``on[r]``) and matches the face-up cards.

    The cards are given by rank (:func:`rank_of`): the top four face-up cards, top first, and the pile's first
    face-up card. Only the top ``face_up`` of the four are looked at, so the others may hold anything.
    """
    if face_up == 0:
        return 0
    matches = 0
    if on[RULE_JOKER] and top == JOKER_RANK:
        matches |= 1 << RULE_JOKER
    if face_up >= 2:
        if on[RULE_DOUBLE] and top == second:
            matches |= 1 << RULE_DOUBLE
        if on[RULE_TOP_BOTTOM] and top == first:
            matches |= 1 << RULE_TOP_BOTTOM
        if on[RULE_MARRIAGE] and ((top == QUEEN and second == KING) or (top == KING and second == QUEEN)):
            matches |= 1 << RULE_MARRIAGE
    if on[RULE_TENS] and _tens(top, second, third, face_up):
        matches |= 1 << RULE_TENS
    if face_up >= 3 and on[RULE_SANDWICH] and top == third:
        matches |= 1 << RULE_SANDWICH
    if face_up >= 4 and on[RULE_FOUR_IN_A_ROW] and _is_run(fourth, third, second, top):
        matches |= 1 << RULE_FOUR_IN_A_ROW
    return matches


@njit(cache=True)
def matching_rules(state):
    """rule:slappable_pile: bit r is set when slap rule r is on and matches the face-up cards of the pile."""
    face_up = state.face_up
    if face_up == 0:
        return 0
    # Below the face-up cards lie burnt (face-down) ones or nothing: neither counts, so only those are read.
    top = rank_of(pile_card(state, 0))
    second = rank_of(pile_card(state, 1)) if face_up >= 2 else -1
    third = rank_of(pile_card(state, 2)) if face_up >= 3 else -1
    fourth = rank_of(pile_card(state, 3)) if face_up >= 4 else -1
    first = rank_of(first_face_up(state))
    return face_up_matches(state.slap_rule_on, face_up, top, second, third, fourth, first)


@njit(cache=True)
def face_up_matches_batch(on, face_up, cards, first, out):
    """:func:`face_up_matches` for a batch of tables given by card ids, as an observation shows them.

    Row ``i``: the rules ``on[i]``, ``face_up[i]`` face-up cards, the ids of the top four ``cards[i]`` (top first)
    and the id of the first face-up card ``first[i]``; its match bits go to ``out[i]``. Ids past the face-up
    cards (an observation's "none" slot) are never looked at. The rule-based agent reads observations with it.
    """
    for i in range(out.shape[0]):
        row = cards[i]
        out[i] = face_up_matches(
            on[i], face_up[i], rank_of(row[0]), rank_of(row[1]), rank_of(row[2]), rank_of(row[3]), rank_of(first[i])
        )


# ---------------------------------------------------------------------------------------------- the end
@njit(cache=True)
def _finish(state, winner):
    """rule:end, rule:rewards: the game is over; ``winner`` NO_PLAYER is a draw (everyone still in went out at once)."""
    state.phase = PHASE_OVER
    state.terminated = True
    state.current_player = NO_PLAYER
    if winner == NO_PLAYER:
        state.rewards[:] = DRAW_REWARD
    elif state.reward_scheme == REWARD_SHARE_OF_CARDS:
        state.rewards[:] = 0.0
        state.rewards[winner] = WIN_REWARD  # all cards are the winner's (a lone survivor's pile included)
    else:
        state.rewards[:] = LOSS_REWARD
        state.rewards[winner] = WIN_REWARD


@njit(cache=True)
def _truncate(state):
    """rule:truncation: cut short after max_cards_played cards: reward 0, or each seat's share of the cards."""
    state.phase = PHASE_OVER
    state.truncated = True
    state.current_player = NO_PLAYER
    state.rewards[:] = 0.0
    if state.reward_scheme == REWARD_SHARE_OF_CARDS:
        for seat in range(state.num_players):
            state.rewards[seat] = state.stack_size[seat] / state.cards_in_play


@njit(cache=True)
def _finished_by_eliminations(state):
    """rule:end: end the game if at most one seat is still in; True if it ended."""
    survivor = NO_PLAYER
    remaining = 0
    for seat in range(state.num_players):
        if not state.eliminated[seat]:
            remaining += 1
            survivor = seat
    if remaining <= 1:
        _finish(state, survivor)
        return True
    return False


# ---------------------------------------------------------------------------------------------- pile movements
@njit(cache=True)
def _collect_pile(state, seat):
    """``seat`` takes the whole pile under its stack, bottom card first, and leads next (rule:correct_slap).

    Also how a challenger wins a pile (rule:paying) and how a dead pile moves (rule:dead_pile); a seat that then
    holds every card has won (rule:end).
    """
    for i in range(state.pile_size):
        _put_at_bottom(state, seat, state.pile[(state.pile_bottom + i) % MAX_CARDS])
    state.pile_size = 0
    state.pile_bottom = 0
    state.face_up = 0
    state.slap_matches = 0
    state.challenger = NO_PLAYER
    state.payer = NO_PLAYER
    state.chances_left = 0
    state.to_play = seat
    if state.stack_size[seat] == state.cards_in_play:
        _finish(state, seat)


@njit(cache=True)
def _burn(state, seat):
    """A wrong slapper burns ``penalty`` cards under the pile (rule:wrong_slap).

    With no cards it is out for good (rule:elimination_and_slap_in).
    """
    if state.stack_size[seat] == 0:
        state.eliminated[seat] = 1
        return
    count = min(state.penalty, state.stack_size[seat])
    for _ in range(count):
        card = _take_top(state, seat)
        state.pile_bottom = (state.pile_bottom + MAX_CARDS - 1) % MAX_CARDS
        state.pile[state.pile_bottom] = card
        state.pile_size += 1
    state.burnt_total += count


@njit(cache=True)
def reaction_time_of(draw):
    """rule:simultaneous_slaps: the Exp(1) reaction time of 64 random bits (a larger draw is a faster slap)."""
    uniform = (float(draw >> _SHIFT_11) + 0.5) * _UNIT_SCALE
    return -np.log(uniform)


@njit(cache=True)
def _pick_slap_winner(state):
    """The correct slapper who takes the pile (rule:correct_slap).

    Drawn by the game's own chance, never by the order in which the seats were asked (rule:simultaneous_slaps).
    """
    n = state.num_players
    if state.slap_tiebreak == TIEBREAK_REACTION_NOISE:
        winner = NO_PLAYER
        best = np.uint64(0)
        for seat in range(n):  # one Exp(1) reaction time per slapper; the fastest (largest uniform) wins
            if state.slap_choice[seat]:
                draw = next_u64(state)
                state.reaction_time[seat] = reaction_time_of(draw)
                if winner == NO_PLAYER or draw > best:
                    winner = seat
                    best = draw
        return winner
    count = 0
    for seat in range(n):
        count += 1 if state.slap_choice[seat] else 0
    pick = rand_below(state, count)
    for seat in range(n):
        if state.slap_choice[seat]:
            if pick == 0:
                return seat
            pick -= 1
    return NO_PLAYER


# ---------------------------------------------------------------------------------------------- play
@njit(cache=True)
def _play_card(state):
    """rule:playing_a_card: the seat to play turns its top card face up onto the pile."""
    seat = state.to_play
    card = _take_top(state, seat)
    state.pile[(state.pile_bottom + state.pile_size) % MAX_CARDS] = card
    state.pile_size += 1
    state.face_up += 1
    state.seen[card] = 1  # face up: every seat saw it, and where it goes from here is public
    state.played_last = seat
    state.cards_played += 1
    state.slap_matches = matching_rules(state)


@njit(cache=True)
def _open_window(state):
    """rule:slap_window: every seat still in is asked SLAP or PASS, starting with the seat that played, clockwise."""
    n = state.num_players
    count = 0
    for step in range(n):
        seat = (state.played_last + step) % n
        if not state.eliminated[seat]:
            state.window_order[count] = seat
            count += 1
    for unused in range(count, n):
        state.window_order[unused] = NO_PLAYER
    state.window_size = count
    state.window_index = 0
    state.slap_choice[:] = 0
    state.phase = PHASE_WINDOW
    state.current_player = state.window_order[0]


@njit(cache=True)
def _dead_pile_taker(state, seat):
    """rule:dead_pile: the seat that played the last card, or if it just went out, the next seat still in after it."""
    n = state.num_players
    for step in range(n):
        other = (seat + step) % n
        if not state.eliminated[other]:
            return other
    return NO_PLAYER


@njit(cache=True)
def _play_on(state):
    """After a window with no winning slap, the challenge or the turn moves on.

    rule:challenge and rule:paying for a challenge, rule:turn_order otherwise, rule:dead_pile when nobody holds cards.
    """
    player = state.played_last
    chances = state.chances_of_rank[rank_of(pile_card(state, 0))]
    if state.challenger != NO_PLAYER and state.eliminated[state.challenger]:
        # rule:slaps_before_challenges: a challenger gone out in this window drops its challenge
        state.challenger = NO_PLAYER
        state.payer = NO_PLAYER
        state.chances_left = 0
    if chances > 0 and not state.eliminated[player]:  # rule:challenge: a face card starts a (new) challenge
        state.challenger = player
        state.chances_left = chances
        state.payer = _next_with_cards(state, player, False)
        if state.payer == NO_PLAYER:  # rule:paying: nobody can answer
            _collect_pile(state, player)
        else:
            state.to_play = state.payer
        return
    if state.challenger != NO_PLAYER:  # rule:paying: the payer's card was no face card
        state.chances_left -= 1
        if state.chances_left == 0 or state.stack_size[state.payer] == 0:
            _collect_pile(state, state.challenger)
        else:
            state.to_play = state.payer
        return
    nxt = _next_with_cards(state, player, True)  # rule:turn_order: the next seat holding cards, this one last
    if nxt == NO_PLAYER:
        _collect_pile(state, _dead_pile_taker(state, player))
    else:
        state.to_play = nxt


@njit(cache=True)
def _resolve_window(state):
    """Settle all choices of the window together (rule:correct_slap, rule:wrong_slap, rule:simultaneous_slaps).

    The result (who slapped, who won the pile) is made public here and stays until the next window is resolved
    (rule:slap_window); then the play goes on.
    """
    n = state.num_players
    state.last_winner = NO_PLAYER
    state.reaction_time[:] = 0.0
    slappers = 0
    for seat in range(n):
        state.last_slapped[seat] = state.slap_choice[seat]
        slappers += 1 if state.slap_choice[seat] else 0
    if state.slap_matches != 0 and slappers > 0:
        winner = _pick_slap_winner(state)
        state.last_winner = winner
        _collect_pile(state, winner)
        return
    if slappers > 0:  # rule:wrong_slap: wrong slappers burn, in seat order from the left of the seat that played
        for step in range(1, n + 1):
            seat = (state.played_last + step) % n
            if state.slap_choice[seat]:
                _burn(state, seat)
        if _finished_by_eliminations(state):
            return
    _play_on(state)


@njit(cache=True)
def _ready_to_play(state):
    """True if the next card is to be played now; otherwise the game is over or PLAY is asked for."""
    if state.phase == PHASE_OVER:
        return False
    if state.cards_played >= state.max_cards_played:  # rule:truncation
        _truncate(state)
        return False
    if state.expose_play_action:
        state.phase = PHASE_PLAY
        state.current_player = state.to_play
        return False
    return True


@njit(cache=True)
def _play_until_decision(state):
    """Play cards (automatic) until a slap window opens or the game stops."""
    while True:
        _play_card(state)
        if state.window_mode == WINDOWS_EVERY_CARD or state.slap_matches != 0:
            _open_window(state)
            return
        # rule:slap_window: no window, so nobody slaps and the last window's result (last_slapped, last_winner,
        # reaction_time) stays public until the next window is resolved
        _play_on(state)
        if not _ready_to_play(state):
            return


# ---------------------------------------------------------------------------------------------- entry points
@njit(cache=True)
def clear_table(state):
    """Empty stacks and pile; nobody out; no challenge. Parameter fields and the generator are kept."""
    state.stack_top[:] = 0
    state.stack_size[:] = 0
    state.eliminated[:] = 0
    state.in_play[:] = 0
    state.seen[:] = 0
    state.cards_in_play = 0
    state.pile_bottom = 0
    state.pile_size = 0
    state.face_up = 0
    state.slap_matches = 0
    state.played_last = NO_PLAYER
    state.challenger = NO_PLAYER
    state.payer = NO_PLAYER
    state.chances_left = 0
    state.cards_played = 0
    state.burnt_total = 0
    state.last_winner = NO_PLAYER
    state.last_slapped[:] = 0
    state.slap_choice[:] = 0
    state.reaction_time[:] = 0.0
    state.rewards[:] = 0.0
    state.terminated = False
    state.truncated = False
    state.step_count = 0


@njit(cache=True)
def start_play(state):
    """rule:turn_order: the first card is played by the first seat holding cards from the dealer's left."""
    state.phase = PHASE_PLAY
    state.to_play = _next_with_cards(state, state.dealer, True)
    if _ready_to_play(state):
        _play_until_decision(state)


@njit(cache=True)
def deal_deck(state):
    """rule:deal: deal ``state.deck`` one card at a time from the dealer's left, each onto the seat's stack."""
    n = state.num_players
    clear_table(state)
    count = state.deck_size
    if state.drop_remainder:
        count = (state.deck_size // n) * n
    for i in range(count):
        card = state.deck[i]
        _put_on_top(state, (state.dealer + 1 + i) % n, card)
        state.in_play[card] = 1
    state.cards_in_play = count
    start_play(state)


@njit(cache=True)
def reset(state, seed):
    """rule:players, rule:deal: a random dealer, a shuffled pack, the deal, and play up to the first slap window."""
    seed_state(state, seed)
    state.dealer = rand_below(state, state.num_players)
    state.deck[:] = NO_CARD
    for card in range(state.deck_size):
        state.deck[card] = card
    shuffle(state, state.deck, state.deck_size)
    deal_deck(state)


@njit(cache=True)
def step(state, action):
    """Apply the current player's action (assumed legal) and play on to the next decision."""
    state.rewards[:] = 0.0
    state.step_count += 1
    if state.phase == PHASE_PLAY:
        _play_until_decision(state)
        return
    state.slap_choice[state.current_player] = 1 if action == SLAP else 0
    state.window_index += 1
    if state.window_index < state.window_size:
        state.current_player = state.window_order[state.window_index]
        return
    _resolve_window(state)
    if _ready_to_play(state):
        _play_until_decision(state)


@njit(cache=True)
def legal_mask(state, mask):
    """PASS and SLAP in a window; PLAY when asked to play; nothing once the game is over."""
    mask[:] = 0
    if state.phase == PHASE_WINDOW:
        mask[PASS] = 1
        mask[SLAP] = 1
    elif state.phase == PHASE_PLAY:
        mask[PLAY] = 1


@njit(cache=True)
def penalize(state, player):
    """rule:illegal_actions: with ``illegal_action="penalize"`` the offender gets −1, the others 0; the game ends."""
    state.phase = PHASE_OVER
    end_with_penalty(state, player)


# ---------------------------------------------------------------------------------------------- checks (Python)
def stack_cards(state: np.record, seat: int) -> list[int]:
    """``seat``'s stack, top card first (for tests, invariants and spectators; never observed)."""
    top, size = int(state.stack_top[seat]), int(state.stack_size[seat])
    return [int(state.stack[seat, (top + i) % MAX_CARDS]) for i in range(size)]


def pile_cards(state: np.record) -> list[int]:
    """The pile, bottom card first (face-down burnt cards first, then the face-up ones)."""
    bottom, size = int(state.pile_bottom), int(state.pile_size)
    return [int(state.pile[(bottom + i) % MAX_CARDS]) for i in range(size)]


def check_invariants(state: np.record, params) -> None:
    """Every card is in exactly one place; the out hold none; a seat to act is in and has a legal action."""
    n = int(state.num_players)
    cards = [card for seat in range(n) for card in stack_cards(state, seat)] + pile_cards(state)
    assert len(cards) == int(state.cards_in_play), "cards not accounted for"
    assert len(set(cards)) == len(cards), "a card is in two places"
    assert all(state.in_play[card] for card in cards), "a card that is not in play was found"
    assert int(state.in_play.sum()) == int(state.cards_in_play)
    assert 0 <= int(state.face_up) <= int(state.pile_size)
    assert int(state.cards_played) <= int(state.max_cards_played), "played past max_cards_played"
    for seat in range(n):
        if state.eliminated[seat]:
            assert int(state.stack_size[seat]) == 0, f"eliminated seat {seat} holds cards"
    assert int(state.slap_matches) == int(matching_rules(state)), "stale slap_matches"
    if state.challenger != NO_PLAYER:
        assert state.payer != NO_PLAYER and state.payer != state.challenger
        assert 0 < int(state.chances_left) <= int(state.chances_of_rank.max())
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER and state.phase == PHASE_OVER
        return
    player = int(state.current_player)
    assert 0 <= player < n and not state.eliminated[player], "an eliminated or invalid seat is to act"
    assert int((state.eliminated == 0).sum()) >= 2, "a finished game is still running"
    assert max(int(s) for s in state.stack_size) < int(state.cards_in_play) or int(state.pile_size) > 0
    mask = np.zeros(3 if state.expose_play_action else 2, np.int8)
    legal_mask(state, mask)
    assert mask.any(), "the player to act has no legal action"
    if state.phase == PHASE_WINDOW:
        assert int(state.face_up) >= 1 and player == int(state.window_order[int(state.window_index)])
        assert not state.slap_choice[state.window_order[int(state.window_index):int(state.window_size)]].any()
    else:
        assert state.phase == PHASE_PLAY and player == int(state.to_play) and state.stack_size[player] > 0
