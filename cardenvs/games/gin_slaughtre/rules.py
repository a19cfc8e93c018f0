"""Gin Slaughtre's rules engine: compiled functions over one state record (see params.state_fields).

Comments cite the rules of docs/rules/gin_slaughtre.md by their slugs (``rule:<slug>``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import rand_below, seed_state, shuffle
from cardenvs.core.shared_rules import end_with_penalty
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    ARRANGEMENTS,
    DRAW,
    HAND_SIZE,
    JOKER_PAIR,
    MIN_RUN,
    NUM_ARRANGEMENTS,
    NUM_UPCARDS,
    PAIR_BASE,
    PAIRS_PER_RANK,
    RUN_BASE,
    RUN_OFFSET,
    RUNS_PER_SUIT,
    SET3_BASE,
    SET4_BASE,
    SINGLE_BASE,
    SLOT_BASE,
    SUIT_PAIRS,
    TAKE_PILE,
)
from cardenvs.games.gin_slaughtre.cards import (
    CLUBS,
    FIRST_JOKER,
    NO_CARD,
    NUM_CARDS,
    NUM_JOKERS,
    NUM_RANKS,
    NUM_SUITED_RANKS,
    NUM_SUITS,
    RANK_FIVE,
    RANK_JACK,
    RANK_JOKER,
    RANK_NINE,
    RANK_TWO,
    SPADES,
)
from cardenvs.games.gin_slaughtre.params import MAX_HAND_EVENTS, NUM_PLAYERS

# Phases
PHASE_ARRANGE = 0  # both players choose their upcards, seat 0 then seat 1, revealed together
PHASE_PLAY = 1
PHASE_OVER = 2

# Card locations (state.location)
LOC_STOCK = 0
LOC_PILE = 1
LOC_BURNT = 2
LOC_HAND = 3  # + seat
LOC_UP = LOC_HAND + NUM_PLAYERS  # + seat
LOC_DOWN = LOC_UP + NUM_PLAYERS  # + seat
NUM_LOCATIONS = LOC_DOWN + NUM_PLAYERS

# Option codes (params.RED5_RULES, QUARTET_RULES, STARTER_RULES)
RED5_PLAY_LEQ5 = 0
RED5_DRAW_UNTIL_LEQ5 = 1
QUARTET_RANK = 0
QUARTET_RANK_OR_SUIT = 1
STARTER_LOWEST_CARD = 0
STARTER_LEFT_OF_DEALER = 1

QUARTET = 4  # equal cards on top of the pile that burn it
# rule:starter: the order in which ranks are searched for the starter: 3 … K, Joker, Ace, 2
STARTER_RANK_ORDER = np.array([*range(RANK_TWO + 1, NUM_RANKS), 0, RANK_TWO], np.int64)

WIN_REWARD = 1.0
LOSS_REWARD = -1.0

# What the other seat sees happen to a seat's hidden hand cards (state.hand_events), one code per event, in order.
# The hidden-card resampler reads them (resample.py): each is public and constrains which cards the hand can hold.
EVENT_SHOWN = 0  # + card id: a hidden hand card was shown (played, made an upcard while arranging, declared starter)
EVENT_DRAWN = EVENT_SHOWN + NUM_CARDS  # a card went into the hand unseen (dealt, refill, black 5, draw when stuck)
EVENT_CHAIN_DRAWN = EVENT_DRAWN + 1  # a card drawn unseen by the draw effects of the last EVENT_CHAIN
EVENT_STUCK = EVENT_CHAIN_DRAWN + 1  # + rank_floor: it drew as no hand card could be laid (rule:draw_when_stuck)
EVENT_STUCK_RESTRICTED = EVENT_STUCK + NUM_RANKS  # it drew under a red 5's restriction (rule:red_five)
EVENT_STARTER = EVENT_STUCK_RESTRICTED + 1  # + STARTER_*: what the starter search (rule:starter) showed of the hand
EVENT_CHAIN = EVENT_STARTER + 3  # + effects (chain_code): a trick's draw effects made it draw (rule:effects)

# What the starter search showed of a hand (EVENT_STARTER + case), beyond "no card of a rank searched earlier"
STARTER_RANKS_BEFORE = 0  # nothing more: the starter lay among the upcards, or in the other hand searched first
STARTER_LOWER_SUITS = 1  # the starter was declared from this hand: no card of its rank in a lower suit
STARTER_WHOLE_RANK = 2  # the starter was declared from the other hand, searched after this one: none of its rank

# A trick's draw effects against the opponent (rule:effects), in the order they act
EFFECT_NONE = 0
EFFECT_DRAW_ONE = 1  # a black 5 (rule:black_five)
EFFECT_DRAW_UNTIL_LOW = 2  # a Jack (rule:jack), a red 5 with draw_until_leq5 (rule:red_five)
MAX_DRAW_EFFECTS = NUM_SUITS  # a set of four 5s or four Jacks
# chain_code: bit i set when effect i draws until a low card, the effect count marked by a leading 1 bit above them,
# and CHAIN_RAN_OUT added when the stock ran out during the effects (so the last effect may have stopped early)
CHAIN_RAN_OUT = 1 << (MAX_DRAW_EFFECTS + 1)


@njit(cache=True)
def rank_of(card):
    """Rank in the game's order: Ace 0 … King 12, Joker 13."""
    return card // NUM_SUITS


@njit(cache=True)
def is_black(card):
    suit = card % NUM_SUITS
    return card < FIRST_JOKER and (suit == CLUBS or suit == SPADES)


@njit(cache=True)
def other(player):
    return NUM_PLAYERS - 1 - player


# ---------------------------------------------------------------- moving cards


@njit(cache=True)
def note_event(state, player, event):
    """Append ``event`` to what the other seat has seen happen to ``player``'s hidden hand (``hand_events``)."""
    count = state.hand_event_count[player]
    if count < MAX_HAND_EVENTS:  # never reached (MAX_HAND_EVENTS bounds a game's events); keeps the write in range
        state.hand_events[player, count] = event
        state.hand_event_count[player] = count + 1


@njit(cache=True)
def _to_hand(state, card, player):
    state.location[card] = LOC_HAND + player
    state.hand_count[player] += 1


@njit(cache=True)
def _draw_card(state, player, event):
    """One card from the stock into ``player``'s hand (private, noted as ``event``); NO_CARD if the stock is
    empty."""
    if state.stock_size == 0:
        return NO_CARD
    state.stock_size -= 1
    card = state.stock[state.stock_size]
    _to_hand(state, card, player)
    note_event(state, player, event)
    return card


@njit(cache=True)
def _refill(state, player):
    """rule:refill: draw up to four hand cards while the stock lasts."""
    while state.hand_count[player] < HAND_SIZE and state.stock_size > 0:
        _draw_card(state, player, EVENT_DRAWN)


@njit(cache=True)
def _draw_until_low(state, player, event):
    """rule:jack: draw until a card of rank 5 or lower (A–5) comes, or the stock runs out."""
    while state.stock_size > 0:
        card = _draw_card(state, player, event)
        if rank_of(card) <= RANK_FIVE:
            return


@njit(cache=True)
def _take_pile(state, player):
    """rule:take_pile: the whole pile goes to ``player``'s hand, where everybody knows it is."""
    for i in range(state.pile_size):
        card = state.pile[i]
        _to_hand(state, card, player)
        state.known[card] = 1
    state.pile_size = 0


@njit(cache=True)
def _burn_pile(state):
    """rule:burning: the pile leaves the game."""
    for i in range(state.pile_size):
        state.location[state.pile[i]] = LOC_BURNT
    state.burnt_count += state.pile_size
    state.pile_size = 0


@njit(cache=True)
def _remove_from_owner(state, card):
    """Take ``card`` out of the hand, upcards or downcards it is in."""
    location = state.location[card]
    if location >= LOC_DOWN:
        seat = location - LOC_DOWN
        state.down_count[seat] -= 1
        for slot in range(state.num_downcards):
            if state.downcards[seat, slot] == card:
                state.downcards[seat, slot] = NO_CARD
    elif location >= LOC_UP:
        state.up_count[location - LOC_UP] -= 1
    else:
        state.hand_count[location - LOC_HAND] -= 1
        if state.known[card] == 0:
            note_event(state, location - LOC_HAND, EVENT_SHOWN + card)
    state.known[card] = 0


@njit(cache=True)
def top_same_rank(state):
    """How many cards at the top of the pile share the top card's rank (0 for an empty pile)."""
    if state.pile_size == 0:
        return 0
    rank = rank_of(state.pile[state.pile_size - 1])
    count = 0
    for i in range(state.pile_size - 1, -1, -1):
        if rank_of(state.pile[i]) != rank:
            break
        count += 1
    return count


@njit(cache=True)
def _four_of_a_suit_on_top(state):
    if state.pile_size < QUARTET:
        return False
    top = state.pile[state.pile_size - 1]
    if top >= FIRST_JOKER:
        return False
    for i in range(state.pile_size - QUARTET, state.pile_size):
        card = state.pile[i]
        if card >= FIRST_JOKER or card % NUM_SUITS != top % NUM_SUITS:
            return False
    return True


@njit(cache=True)
def _burns(state):
    """rule:nines, rule:quartets: a 9 on top, or four cards of a rank on top (whoever laid them), burn the pile."""
    if rank_of(state.pile[state.pile_size - 1]) == RANK_NINE:
        return True
    if top_same_rank(state) >= QUARTET:
        return True
    return state.quartet_rule == QUARTET_RANK_OR_SUIT and _four_of_a_suit_on_top(state)


# ---------------------------------------------------------------- legality


@njit(cache=True)
def trick_allowed(state, first_rank, last_rank, restricted):
    """May a trick whose lowest card has ``first_rank`` and highest ``last_rank`` be laid now?

    rule:equal_or_higher, rule:twos, rule:nines, rule:red_five.
    """
    if first_rank == last_rank and (first_rank == RANK_TWO or first_rank == RANK_NINE):
        return True  # 2s go on anything; 9s may be played at any time
    if restricted:
        return last_rank <= RANK_FIVE
    if state.pile_size == 0:
        return True
    top_rank = rank_of(state.pile[state.pile_size - 1])
    return top_rank == RANK_TWO or first_rank >= top_rank


@njit(cache=True)
def source_location(state, player):
    """The hand while it holds cards, then the upcards, then the downcards (rule:trick_source,
    rule:upcards_endgame, rule:downcards)."""
    if state.hand_count[player] > 0:
        return LOC_HAND + player
    if state.up_count[player] > 0:
        return LOC_UP + player
    return LOC_DOWN + player


@njit(cache=True)
def _source_bits(state, source):
    """The cards at ``source`` as one 13-bit rank set per suit (bit r: rank r) and the number of Jokers."""
    locations = state.location
    clubs = 0
    diamonds = 0
    hearts = 0
    spades = 0
    for rank in range(NUM_SUITED_RANKS):  # branchless: which cards a player holds is random
        base = rank * NUM_SUITS
        clubs |= int(locations[base] == source) << rank
        diamonds |= int(locations[base + 1] == source) << rank
        hearts |= int(locations[base + 2] == source) << rank
        spades |= int(locations[base + 3] == source) << rank
    jokers = int(locations[FIRST_JOKER] == source) + int(locations[FIRST_JOKER + 1] == source)
    return clubs, diamonds, hearts, spades, jokers


@njit(cache=True)
def rank_floor(state):
    """The lowest rank a trick may start with (rule:equal_or_higher); 0 on an empty pile or on a 2 (rule:twos)."""
    if state.pile_size == 0:
        return 0
    top_rank = int(rank_of(state.pile[state.pile_size - 1]))  # int: shifted by it as plain Python too
    return 0 if top_rank == RANK_TWO else top_rank


@njit(cache=True)
def _allowed_ranks(floor, restricted):
    """The ranks (bit set over A…K) a trick of one rank may have now (rule:equal_or_higher, rule:red_five);
    2s and 9s always (rule:twos, rule:nines)."""
    always = (1 << RANK_TWO) | (1 << RANK_NINE)
    if restricted:
        return always | ((1 << (RANK_FIVE + 1)) - 1)
    return always | (((1 << NUM_SUITED_RANKS) - 1) & ~((1 << floor) - 1))


# Index of a lone bit (2**k, k < 32) by de Bruijn multiplication: the top 5 bits of 2**k * DE_BRUIJN are distinct.
DE_BRUIJN = 0x077CB531
DE_BRUIJN_INDEX = np.zeros(32, np.int64)
for _k in range(32):
    DE_BRUIJN_INDEX[((DE_BRUIJN << _k) & 0xFFFFFFFF) >> 27] = _k


@njit(cache=True)
def lowest_bit_index(bit):
    """``k`` for ``bit == 1 << k`` (k < 32)."""
    return DE_BRUIJN_INDEX[((bit * DE_BRUIJN) & 0xFFFFFFFF) >> 27]


@njit(cache=True)
def _mask_suit(suit, bits, allowed, restricted, run_floor, mask):
    """Singles and runs (3+ consecutive, Ace low, no wrap) of one suit; returns whether a single is legal."""
    playable = bits & allowed
    if playable == 0:
        return False
    while playable:  # one pass per playable card (a player holds few), lowest rank first
        low = playable & -playable
        mask[SINGLE_BASE + lowest_bit_index(low) * NUM_SUITS + suit] = 1
        playable ^= low
    # ranks from run_floor up that begin three in a row
    starts = bits & (bits >> 1) & (bits >> 2) & ~((1 << run_floor) - 1)
    if starts == 0:  # the common case: no run
        return True
    for start in range(run_floor, NUM_SUITED_RANKS - MIN_RUN + 1):
        if not (starts >> start) & 1:
            continue
        length = MIN_RUN
        while start + length < NUM_SUITED_RANKS and (bits >> (start + length)) & 1:
            length += 1
        if restricted:  # every card of the run must be 5 or lower
            length = min(length, RANK_FIVE + 1 - start)
        for size in range(MIN_RUN, length + 1):
            mask[RUN_BASE + suit * RUNS_PER_SUIT + RUN_OFFSET[start] + size - MIN_RUN] = 1
    return True


@njit(cache=True)
def _mask_sets(state, clubs, diamonds, hearts, spades, allowed, mask):
    """Sets of 3 and 4 of a rank (and pairs with ``min_set_size=2``) among the allowed ranks."""
    pairs = state.min_set_size == 2
    at_least_three = (clubs & diamonds & (hearts | spades)) | (hearts & spades & (clubs | diamonds))
    at_least_two = (clubs & (diamonds | hearts | spades)) | (diamonds & (hearts | spades)) | (hearts & spades)
    candidates = (at_least_two if pairs else at_least_three) & allowed
    if candidates == 0:  # the common case: no set
        return
    for rank in range(NUM_SUITED_RANKS):
        if not (candidates >> rank) & 1:
            continue
        present = (((clubs >> rank) & 1) | (((diamonds >> rank) & 1) << 1) | (((hearts >> rank) & 1) << 2)
                   | (((spades >> rank) & 1) << 3))
        count = (present & 1) + ((present >> 1) & 1) + ((present >> 2) & 1) + ((present >> 3) & 1)
        if count >= 3:
            for missing in range(NUM_SUITS):
                if count == 4 or not (present >> missing) & 1:
                    mask[SET3_BASE + rank * NUM_SUITS + missing] = 1
        if count == 4:
            mask[SET4_BASE + rank] = 1
        if pairs:
            for pair in range(PAIRS_PER_RANK):
                if (present >> int(SUIT_PAIRS[pair, 0])) & 1 and (present >> int(SUIT_PAIRS[pair, 1])) & 1:
                    mask[PAIR_BASE + rank * PAIRS_PER_RANK + pair] = 1


@njit(cache=True)
def _mask_plays(state, source, mask):
    """Every legal trick from ``source`` (rule:tricks, rule:equal_or_higher, rule:twos, rule:nines, rule:red_five);
    returns whether there is one."""
    restricted = state.restricted
    clubs, diamonds, hearts, spades, jokers = _source_bits(state, source)
    floor = rank_floor(state)
    allowed = _allowed_ranks(floor, restricted)
    # a run is judged on its first card (rule:equal_or_higher), or under the restriction on all its cards (cut in
    # _mask_suit, rule:red_five)
    run_floor = 0 if restricted else floor
    found = _mask_suit(CLUBS, clubs, allowed, restricted, run_floor, mask)
    found = _mask_suit(CLUBS + 1, diamonds, allowed, restricted, run_floor, mask) or found
    found = _mask_suit(CLUBS + 2, hearts, allowed, restricted, run_floor, mask) or found
    found = _mask_suit(SPADES, spades, allowed, restricted, run_floor, mask) or found
    _mask_sets(state, clubs, diamonds, hearts, spades, allowed, mask)
    if jokers > 0 and not restricted:  # a Joker is above everything but is never 5 or lower
        for card in range(FIRST_JOKER, FIRST_JOKER + NUM_JOKERS):
            if state.location[card] == source:
                mask[SINGLE_BASE + card] = 1
        if jokers == NUM_JOKERS and state.min_set_size == 2:
            mask[JOKER_PAIR] = 1
        found = True
    return found


@njit(cache=True)
def legal_mask(state, mask):
    """The current player's legal actions (all zero once the game is over)."""
    mask[:] = 0
    if state.phase == PHASE_ARRANGE:
        mask[:NUM_ARRANGEMENTS] = 1
        return
    if state.phase != PHASE_PLAY:
        return
    player = state.current_player
    source = source_location(state, player)
    can_play = False
    if source == LOC_DOWN + player:  # rule:downcards: any face-down slot may be turned over
        for slot in range(state.num_downcards):
            if state.downcards[player, slot] != NO_CARD:
                mask[SLOT_BASE + slot] = 1
                can_play = True
    else:
        can_play = _mask_plays(state, source, mask)
    if state.pile_size > 0:  # rule:take_pile: the pile may always be taken
        mask[TAKE_PILE] = 1
    if not can_play and state.stock_size > 0:  # rule:draw_when_stuck
        mask[DRAW] = 1


# ---------------------------------------------------------------- dealing and arranging


@njit(cache=True)
def _pop_deck(state, location):
    state.stock_size -= 1
    card = state.stock[state.stock_size]
    state.location[card] = location
    return card


@njit(cache=True)
def deal(state):
    """rule:deal: deal from ``state.stock`` (all 54 cards, ``stock[53]`` on top) and open the ARRANGE phase.

    Each player, the dealer's left first, gets its downcards (variant), then 3 upcards, then 4 hand cards;
    the rest is the stock. Every per-game field is set here, so a chosen deal replaces a random one exactly.
    """
    state.stock_size = NUM_CARDS
    state.location[:] = LOC_STOCK
    state.pile_size = 0
    state.burnt_count = 0
    state.known[:] = 0
    state.downcards[:, :] = NO_CARD
    state.restricted = False
    state.starter_card = NO_CARD
    state.winner = -1
    state.hand_events[:, :] = 0
    state.hand_event_count[:] = 0
    for k in range(NUM_PLAYERS):
        seat = (state.dealer + 1 + k) % NUM_PLAYERS
        state.hand_count[seat] = 0
        state.up_count[seat] = 0
        state.down_count[seat] = 0
        state.pending_arrangement[seat] = -1
        for slot in range(state.num_downcards):
            state.downcards[seat, slot] = _pop_deck(state, LOC_DOWN + seat)
            state.down_count[seat] += 1
        for _ in range(NUM_UPCARDS):
            _pop_deck(state, LOC_UP + seat)
            state.up_count[seat] += 1
        for _ in range(HAND_SIZE):
            _pop_deck(state, LOC_HAND + seat)
            state.hand_count[seat] += 1
            note_event(state, seat, EVENT_DRAWN)
    state.phase = PHASE_ARRANGE
    state.current_player = 0
    state.terminated = False
    state.truncated = False
    state.step_count = 0
    state.rewards[:] = 0.0


@njit(cache=True)
def reset(state, seed):
    """rule:chance, rule:deal: a random dealer and a shuffled deck, dealt."""
    seed_state(state, seed)
    state.dealer = rand_below(state, NUM_PLAYERS)
    for card in range(NUM_CARDS):
        state.stock[card] = card
    shuffle(state, state.stock, NUM_CARDS)
    deal(state)


@njit(cache=True)
def _apply_arrangement(state, player, choice):
    """rule:arranging: the chosen 3 of the player's 7 cards (sorted by id) become its upcards, the rest its hand."""
    index = 0
    for card in range(NUM_CARDS):
        location = state.location[card]
        if location != LOC_HAND + player and location != LOC_UP + player:
            continue
        chosen = False
        for k in range(NUM_UPCARDS):
            if ARRANGEMENTS[choice, k] == index:
                chosen = True
        if chosen:
            if location == LOC_HAND + player:
                note_event(state, player, EVENT_SHOWN + card)  # a dealt hand card, now face up
            state.location[card] = LOC_UP + player
        else:
            if location == LOC_UP + player:
                state.known[card] = 1  # it lay face up: both saw it go into the hand
            state.location[card] = LOC_HAND + player
        index += 1
    state.hand_count[player] = HAND_SIZE
    state.up_count[player] = NUM_UPCARDS


@njit(cache=True)
def _choose_starter(state):
    """rule:starter: the lowest card in the order 3…K, Jo, A, 2 starts; upcards before hands, dealer's left first."""
    left = other(state.dealer)
    if state.starter_rule == STARTER_LEFT_OF_DEALER:
        state.current_player = left
        return
    for rank in STARTER_RANK_ORDER:
        num_suits = NUM_JOKERS if rank == RANK_JOKER else NUM_SUITS
        for base in (LOC_UP, LOC_HAND):
            for k in range(NUM_PLAYERS):
                seat = (left + k) % NUM_PLAYERS
                for suit in range(num_suits):
                    card = rank * NUM_SUITS + suit
                    if state.location[card] == base + seat:
                        _note_starter_search(state, base == LOC_HAND, seat)
                        if base == LOC_HAND:
                            if state.known[card] == 0:
                                note_event(state, seat, EVENT_SHOWN + card)
                            state.known[card] = 1  # declared: now public
                        state.starter_card = card
                        state.current_player = seat
                        return


@njit(cache=True)
def _note_starter_search(state, in_hand, holder):
    """What the starter search showed of each hand (EVENT_STARTER): no card of a rank searched before the
    starter's and, for a starter found in ``holder``'s hand, no lower suit of its rank there and none of its rank
    in the hand searched before (the dealer's left)."""
    left = other(state.dealer)
    for seat in range(NUM_PLAYERS):
        case = STARTER_RANKS_BEFORE
        if in_hand and seat == holder:
            case = STARTER_LOWER_SUITS
        elif in_hand and seat == left:
            case = STARTER_WHOLE_RANK
        note_event(state, seat, EVENT_STARTER + case)


@njit(cache=True)
def _arrange(state, player, action):
    """rule:arranging: choices stay hidden until both seats have chosen; then both apply and play starts."""
    state.pending_arrangement[player] = action
    if player < NUM_PLAYERS - 1:
        state.current_player = player + 1
        return
    for seat in range(NUM_PLAYERS):
        _apply_arrangement(state, seat, state.pending_arrangement[seat])
    state.phase = PHASE_PLAY
    _choose_starter(state)


# ---------------------------------------------------------------- playing


@njit(cache=True)
def _finish_if_out(state, player):
    """rule:winning: a player with no hand cards, no upcards, no downcards and an empty stock has won."""
    if (state.hand_count[player] > 0 or state.up_count[player] > 0 or state.down_count[player] > 0
            or state.stock_size > 0):
        return False
    state.winner = player
    state.phase = PHASE_OVER
    state.terminated = True
    state.restricted = False
    state.current_player = NO_PLAYER
    state.rewards[player] = WIN_REWARD
    state.rewards[other(player)] = LOSS_REWARD
    return True


@njit(cache=True)
def draw_effect_of(state, card):
    """What ``card`` makes the opponent draw (rule:effects): one card for a black 5 (rule:black_five); until a card
    of 5 or lower for a Jack (rule:jack) and for a red 5 under draw_until_leq5 (rule:red_five); else nothing."""
    if card >= FIRST_JOKER:
        return EFFECT_NONE
    rank = rank_of(card)
    if rank == RANK_FIVE:
        if is_black(card):
            return EFFECT_DRAW_ONE
        if state.red5_rule == RED5_DRAW_UNTIL_LEQ5:
            return EFFECT_DRAW_UNTIL_LOW
    elif rank == RANK_JACK:
        return EFFECT_DRAW_UNTIL_LOW
    return EFFECT_NONE


@njit(cache=True)
def _draw_effect(state, card, opponent, event):
    """The draw ``card`` makes the opponent take (:func:`draw_effect_of`), each card noted as ``event``."""
    effect = draw_effect_of(state, card)
    if effect == EFFECT_DRAW_ONE:
        _draw_card(state, opponent, event)
    elif effect == EFFECT_DRAW_UNTIL_LOW:
        _draw_until_low(state, opponent, event)


@njit(cache=True)
def _chain_code(state, action, size):
    """The chain_code of the draw effects a trick makes act (every card's with stack_effects, else its top card's),
    or 0 when none of them draws until a low card (the drawn cards then show nothing)."""
    first = 0 if state.stack_effects else size - 1
    bits = 0
    count = 0
    until_low = False
    for i in range(first, size):
        effect = draw_effect_of(state, int(ACTION_CARDS[action, i]))
        if effect != EFFECT_NONE:
            if effect == EFFECT_DRAW_UNTIL_LOW:
                bits |= 1 << count
                until_low = True
            count += 1
    if not until_low:
        return 0
    return (1 << count) | bits


@njit(cache=True)
def _play(state, player, action):
    """Lay the trick (rule:tricks), burn (rule:burning) or apply the top card's effect (rule:effects), refill, and
    pass the turn."""
    size = ACTION_SIZE[action]
    for i in range(size):
        card = int(ACTION_CARDS[action, i])
        _remove_from_owner(state, card)
        state.location[card] = LOC_PILE
        state.pile[state.pile_size] = card
        state.pile_size += 1
    if _burns(state):  # rule:burning: no effect applies to a burnt pile; the burner refills and leads again
        _burn_pile(state)
        _refill(state, player)
        if not _finish_if_out(state, player):
            state.current_player = player
        return
    opponent = other(player)
    top = int(state.pile[state.pile_size - 1])
    chain = _chain_code(state, action, size) if state.stock_size > 0 else 0
    event = EVENT_DRAWN
    header = state.hand_event_count[opponent]
    if chain:  # the cards drawn show where the effects stopped: noted for the resampler
        note_event(state, opponent, EVENT_CHAIN + chain)
        event = EVENT_CHAIN_DRAWN
    if state.stack_effects:
        for i in range(size):
            _draw_effect(state, int(ACTION_CARDS[action, i]), opponent, event)
    else:
        _draw_effect(state, top, opponent, event)
    if chain and state.stock_size == 0:
        state.hand_events[opponent, header] += CHAIN_RAN_OUT
    leads_again = False
    restrict = False
    if top >= FIRST_JOKER:  # rule:joker
        _take_pile(state, opponent)
        leads_again = state.joker_consumes_turn
    elif rank_of(top) == RANK_FIVE and not is_black(top) and state.red5_rule == RED5_PLAY_LEQ5:
        restrict = True  # rule:red_five
    _refill(state, player)  # rule:refill: after the opponent's forced draws
    if _finish_if_out(state, player):
        return
    state.current_player = player if leads_again else opponent
    state.restricted = restrict


@njit(cache=True)
def _turn_over_downcard(state, player, slot, restricted):
    """rule:downcards: a legal card is played as a single; otherwise it and the pile are taken."""
    card = int(state.downcards[player, slot])
    rank = rank_of(card)
    if trick_allowed(state, rank, rank, restricted):
        _play(state, player, SINGLE_BASE + card)
        return
    _remove_from_owner(state, card)
    _to_hand(state, card, player)
    state.known[card] = 1
    _take_pile(state, player)
    state.current_player = other(player)


@njit(cache=True)
def step(state, action):
    """Apply the current player's action (assumed legal) and play on to the next decision."""
    state.rewards[:] = 0.0
    state.step_count += 1
    player = state.current_player
    if state.phase == PHASE_ARRANGE:
        _arrange(state, player, action)
    else:
        restricted = state.restricted
        state.restricted = False  # rule:red_five: the restriction covers exactly one action
        if action == TAKE_PILE:
            _take_pile(state, player)
            state.current_player = other(player)
        elif action == DRAW:  # rule:draw_when_stuck: shows that no hand card could be laid
            stuck = EVENT_STUCK_RESTRICTED if restricted else EVENT_STUCK + rank_floor(state)
            note_event(state, player, stuck)
            _draw_card(state, player, EVENT_DRAWN)
            state.current_player = other(player)
        elif SLOT_BASE <= action < PAIR_BASE:
            _turn_over_downcard(state, player, action - SLOT_BASE, restricted)
        else:
            _play(state, player, action)
    if not state.terminated and state.step_count >= state.max_turns:  # rule:truncation
        state.truncated = True
        state.phase = PHASE_OVER
        state.restricted = False
        state.current_player = NO_PLAYER


@njit(cache=True)
def penalize(state, player):
    """rule:illegal_actions: the offender gets −1, the other 0, and the game ends."""
    state.phase = PHASE_OVER
    state.restricted = False
    end_with_penalty(state, player)


# ---------------------------------------------------------------- invariants (plain Python, for tests)


def check_invariants(state: np.record, params) -> None:
    """Every card is in exactly one place and the counts agree; the player to act has a legal action."""
    location = np.asarray(state.location)
    assert ((location >= 0) & (location < NUM_LOCATIONS)).all(), "a card has no valid location"
    stock = np.asarray(state.stock[: state.stock_size])
    pile = np.asarray(state.pile[: state.pile_size])
    assert (location[stock] == LOC_STOCK).all() and int((location == LOC_STOCK).sum()) == len(stock), "stock"
    assert (location[pile] == LOC_PILE).all() and int((location == LOC_PILE).sum()) == len(pile), "pile"
    assert len(set(stock.tolist())) == len(stock) and len(set(pile.tolist())) == len(pile), "a card twice"
    assert int((location == LOC_BURNT).sum()) == int(state.burnt_count), "burnt count"
    for seat in range(NUM_PLAYERS):
        assert int((location == LOC_HAND + seat).sum()) == int(state.hand_count[seat]), "hand count"
        assert int((location == LOC_UP + seat).sum()) == int(state.up_count[seat]), "upcard count"
        assert int((location == LOC_DOWN + seat).sum()) == int(state.down_count[seat]), "downcard count"
        slots = [int(c) for c in state.downcards[seat, : state.num_downcards] if c != NO_CARD]
        assert len(slots) == int(state.down_count[seat]), "downcard slots"
        assert all(location[c] == LOC_DOWN + seat for c in slots), "downcard slot location"
    total = len(stock) + len(pile) + int(state.burnt_count) + int(
        state.hand_count.sum() + state.up_count.sum() + state.down_count.sum()
    )
    assert total == NUM_CARDS, f"{total} cards accounted for, not 54"
    in_hand = (location >= LOC_HAND) & (location < LOC_UP)
    assert not (np.asarray(state.known).astype(bool) & ~in_hand).any(), "a known card is not in a hand"
    assert 0 <= int(state.step_count) <= int(state.max_turns), "the game ran past max_turns"
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER and state.phase == PHASE_OVER
        assert not state.restricted
        return
    player = int(state.current_player)
    assert player in (0, 1)
    if state.phase == PHASE_PLAY:
        assert state.hand_count[player] > 0 or state.stock_size == 0, "hand empty while the stock lasts"
        assert state.winner == -1
        if state.restricted:
            assert state.pile_size > 0, "a ≤5 restriction without a pile"
        for seat in range(NUM_PLAYERS):
            cards = state.hand_count[seat] + state.up_count[seat] + state.down_count[seat]
            assert cards > 0 or state.stock_size > 0, "a player with no cards has not won"
    from cardenvs.games.gin_slaughtre.actions import NUM_ALL_ACTIONS

    mask = np.zeros(NUM_ALL_ACTIONS, np.int8)
    legal_mask(state, mask)
    assert mask.any(), "the player to act has no legal action"
