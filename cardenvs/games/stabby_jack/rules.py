"""Stabby Jack's rules engine: compiled functions over one state record (see params.state_fields).

Comments cite the rules of docs/rules/stabby_jack.md by slug (``rule:level_up``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import rand_below, seed_state, shuffle
from cardenvs.core.shared_rules import end_with_penalty
from cardenvs.games.stabby_jack.cards import (
    ACE,
    CARDS_PER_DECK,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    JOKER,
    JOKERS_PER_DECK,
    NO_CARD,
    NUM_KINDS,
    SPADES,
    is_monarch,
    is_numbered,
    rank_of,
    suit_of,
    value_of,
    xp_worth,
)
from cardenvs.games.stabby_jack.params import MAX_STATS, START_STATS, StabbyJackParams, card_copies

# Phases: what the player to act decides
PHASE_MAIN = 0  # TRAIN / FIGHT / REST (and LEVEL_UP with 5 XP)
PHASE_PAY = 1  # level_up_payment="player_choice": pay the next card of a Level Up
PHASE_REPLACE = 2  # Training drew a numbered card: which Stat it replaces
PHASE_GAIN_FULL = 3  # a Level Up card at 8 Stats: replace a Stat or decline
PHASE_SHIELD = 4  # Stabby Jack: discard a Monarch as a human shield or take the damage
PHASE_ACE_OWN = 5  # an Ace: which of the drawer's Stats to swap
PHASE_ACE_TARGET = 6  # an Ace: which opponent's Stat to swap it with
PHASE_OVER = 7
NUM_DECISION_PHASES = 7

# Actions
TRAIN = 0
FIGHT = 1
REST = 2
LEVEL_UP = 3
SLOT_BASE = 4  # SLOT(i) = 4 + i: replace Stat i, or the drawer's own Stat of an Ace swap
DECLINE = SLOT_BASE + MAX_STATS  # 12: decline a Level Up card at 8 Stats
SHIELD = 13
NO_SHIELD = 14
PAY_MONSTER = 15  # player_choice payment: pay the oldest 1-XP card
PAY_MONARCH = 16  # player_choice payment: pay the oldest Monarch (2 XP)
ACE_TARGET_BASE = 17  # ACE_TARGET(rel, slot) = 17 + (rel - 1) * 8 + slot, rel = 1… seats to the left

# level_up_payment codes (params.LEVEL_UP_PAYMENTS)
PAYMENT_LEAST_OVERPAYMENT = 0
PAYMENT_PLAYER_CHOICE = 1

# Numbers of the rules
LEVEL_UP_COST = 5  # rule:level_up
WIN_XP = 10  # rule:winning (a)
MONARCH_VALUE = 13  # rule:diamond_spade_monarchs: Diamond/Spade Monarchs fight as 13 and win ties
MONSTER_DAMAGE = 1  # rule:monster_combat
MONARCH_DAMAGE = 2  # rule:diamond_spade_monarchs
JACK_DAMAGE = 2  # rule:stabby_jack
HEART_MONARCH_HEAL = 2  # rule:heart_club_monarchs
REST_HEAL = 1  # rule:rest
NO_HEARTS_HIT_POINTS = 1  # rule:stats: a player without Hearts has 1 HP

WIN_REWARD = 1.0
LOSS_REWARD = -1.0


# ---------------------------------------------------------------------------------------------- piles


@njit(cache=True)
def _discard_card(state, card):
    state.discard[state.discard_size] = card
    state.discard_size += 1


@njit(cache=True)
def _reshuffle(state):
    """rule:reshuffle: the discard pile except its top card is shuffled into a new draw pile."""
    if state.discard_size <= 1:
        return
    count = state.discard_size - 1
    top = state.discard[count]
    for i in range(count):
        state.deck[i] = state.discard[i]
        state.deck_counts[state.discard[i]] += 1
    state.deck_size = count
    shuffle(state, state.deck, count)
    state.discard[0] = top
    state.discard_size = 1
    state.reshuffles += 1


@njit(cache=True)
def _draw(state):
    """The top card of the draw pile (reshuffling first when it is empty), or NO_CARD: the draw fails."""
    if state.deck_size == 0:
        _reshuffle(state)
    if state.deck_size == 0:
        return NO_CARD
    state.deck_size -= 1
    card = np.int64(state.deck[state.deck_size])
    state.deck_counts[card] -= 1
    return card


@njit(cache=True)
def _numbered_available(state):
    """Whether a numbered card can still be drawn from the draw and discard piles."""
    for i in range(state.deck_size - 1, -1, -1):  # from the top: usually found at once
        if is_numbered(state.deck[i]):
            return True
    for i in range(state.discard_size):
        if is_numbered(state.discard[i]):
            return True
    return False


@njit(cache=True)
def _draw_numbered(state):
    """Draw until a numbered card comes; Specials drawn are discarded unresolved (rule:level_up, rule:deal).

    NO_CARD if no numbered card is left in either pile.
    """
    if not _numbered_available(state):
        return NO_CARD
    while True:
        card = _draw(state)
        if card == NO_CARD or is_numbered(card):
            return card
        _discard_card(state, card)


# ---------------------------------------------------------------------------------------------- players


@njit(cache=True)
def _recount(state, player):
    """rule:stats: the derived values of ``player`` from the Stats and XP rows."""
    hearts = 0
    magic = 0
    attack = 0
    luck = 0
    for i in range(state.stats_count[player]):
        card = np.int64(state.stats[player, i])
        suit = suit_of(card)
        value = value_of(card)
        if suit == HEARTS:
            hearts += value
        elif suit == DIAMONDS:
            magic += value
        elif suit == SPADES:
            attack += value
        else:
            luck += value
    state.hit_points[player] = hearts if hearts > 0 else NO_HEARTS_HIT_POINTS
    state.magic[player] = magic
    state.attack[player] = attack
    state.luck[player] = luck
    xp = 0
    monarchs = 0
    for i in range(state.xp_count[player]):
        card = np.int64(state.xp_row[player, i])
        xp += xp_worth(card)
        if is_monarch(card):
            monarchs += 1
    state.xp[player] = xp
    state.xp_monarchs[player] = monarchs


@njit(cache=True)
def _add_stat(state, player, card):
    state.stats[player, state.stats_count[player]] = card
    state.stats_count[player] += 1


@njit(cache=True)
def _add_xp(state, player, card):
    """rule:monster_combat, rule:diamond_spade_monarchs: a beaten monster or Monarch goes to the XP row."""
    state.xp_row[player, state.xp_count[player]] = card
    state.xp_count[player] += 1
    _recount(state, player)


@njit(cache=True)
def _pay_xp_cards(state, player, monsters, monarchs):
    """Discard the oldest ``monsters`` 1-XP cards and ``monarchs`` Monarchs of the XP row, keeping its order."""
    kept = 0
    for i in range(state.xp_count[player]):
        card = np.int64(state.xp_row[player, i])
        if is_monarch(card) and monarchs > 0:
            monarchs -= 1
            _discard_card(state, card)
        elif not is_monarch(card) and monsters > 0:
            monsters -= 1
            _discard_card(state, card)
        else:
            state.xp_row[player, kept] = card
            kept += 1
    for i in range(kept, state.xp_count[player]):
        state.xp_row[player, i] = NO_CARD
    state.xp_count[player] = kept
    _recount(state, player)


@njit(cache=True)
def _xp_kinds(state, player):
    """(1-XP cards, Monarchs) in the XP row of ``player``."""
    return state.xp_count[player] - state.xp_monarchs[player], state.xp_monarchs[player]


@njit(cache=True)
def _check_death(state, player):
    """rule:death_and_rebirth: damage reaching HP kills; the dead are reborn with as many new Stats. True if died."""
    if state.damage[player] < state.hit_points[player]:
        return False
    count = state.stats_count[player]
    for i in range(count):
        _discard_card(state, state.stats[player, i])
        state.stats[player, i] = NO_CARD
    for i in range(state.xp_count[player]):
        _discard_card(state, state.xp_row[player, i])
        state.xp_row[player, i] = NO_CARD
    state.stats_count[player] = 0
    state.xp_count[player] = 0
    state.damage[player] = 0
    for _ in range(count):
        card = _draw_numbered(state)
        if card == NO_CARD:
            break
        _add_stat(state, player, card)
    _recount(state, player)
    state.deaths[player] += 1
    if player == state.current_player:
        state.died_this_turn = True
    return True


@njit(cache=True)
def _gain(state, player, card, from_level_up):
    """rule:stat_cap: a gained card joins the Stats row; at 8 Stats the player chooses. True if a decision waits."""
    if state.stats_count[player] < MAX_STATS:
        _add_stat(state, player, card)
        _recount(state, player)
        return False
    state.pending = card
    state.gain_from_level_up = from_level_up
    state.phase = PHASE_GAIN_FULL
    return True


@njit(cache=True)
def _replace_stat(state, player, slot, card):
    """rule:losing_hearts: ``card`` takes Stats slot ``slot``, the old card is discarded, and the change may kill."""
    _discard_card(state, state.stats[player, slot])
    state.stats[player, slot] = card
    _recount(state, player)
    _check_death(state, player)


# ---------------------------------------------------------------------------------------------- winning


@njit(cache=True)
def meets_xp(state, player):
    """rule:winning (a): at least 10 XP held."""
    return state.xp[player] >= WIN_XP


@njit(cache=True)
def meets_power(state, player):
    """rule:winning (b): attack or magic above every opponent's HP left (full HP with win_uses_max_hp)."""
    power = max(state.attack[player], state.magic[player])
    for other in range(state.num_players):
        if other == player:
            continue
        hit_points = state.hit_points[other]
        if not state.win_uses_max_hp:
            hit_points -= state.damage[other]
        if power <= hit_points:
            return False
    return True


@njit(cache=True)
def meets_luck(state, player):
    """rule:winning (c): strictly more luck than every opponent."""
    for other in range(state.num_players):
        if other != player and state.luck[player] <= state.luck[other]:
            return False
    return True


@njit(cache=True)
def _find_winner(state):
    for player in range(state.num_players):
        if meets_xp(state, player) and meets_luck(state, player) and meets_power(state, player):
            return player
    return NO_PLAYER


@njit(cache=True)
def _end_turn(state):
    """rule:win_check, rule:rewards: check every player for a win, then truncation, then pass the turn on."""
    state.died_this_turn = False
    state.turn_count += 1
    winner = _find_winner(state)
    if winner != NO_PLAYER:
        state.winner = winner
        state.phase = PHASE_OVER
        state.terminated = True
        state.current_player = NO_PLAYER
        for player in range(state.num_players):
            state.rewards[player] = WIN_REWARD if player == winner else LOSS_REWARD
        return
    if state.turn_count >= state.max_turns:
        state.phase = PHASE_OVER
        state.truncated = True
        state.current_player = NO_PLAYER
        return
    state.current_player = (state.current_player + 1) % state.num_players
    state.phase = PHASE_MAIN


# ---------------------------------------------------------------------------------------------- specials


@njit(cache=True)
def _monarch_in_xp_row(state, player):
    return state.xp_monarchs[player] > 0


@njit(cache=True)
def ace_pair_matches(own_card, their_card):
    """rule:ace: an Ace swaps Stats of the same suit or the same value."""
    return suit_of(own_card) == suit_of(their_card) or value_of(own_card) == value_of(their_card)


@njit(cache=True)
def _own_slot_can_swap(state, player, slot):
    own = np.int64(state.stats[player, slot])
    for other in range(state.num_players):
        if other == player:
            continue
        for j in range(state.stats_count[other]):
            if ace_pair_matches(own, np.int64(state.stats[other, j])):
                return True
    return False


@njit(cache=True)
def _start_ace(state, player, card):
    """rule:ace: an Ace forces a swap; with no matching pair it has no effect. True if a decision waits."""
    for slot in range(state.stats_count[player]):
        if _own_slot_can_swap(state, player, slot):
            state.pending = card
            state.ace_own_slot = -1
            state.phase = PHASE_ACE_OWN
            return True
    _discard_card(state, card)
    return False


@njit(cache=True)
def _stabbed(state, player, card):
    """rule:stabby_jack: Stabby Jack deals 2 damage unless a Monarch of the XP row shields. True if a decision waits."""
    if _monarch_in_xp_row(state, player):
        state.pending = card
        state.phase = PHASE_SHIELD
        return True
    _discard_card(state, card)
    state.damage[player] += JACK_DAMAGE
    _check_death(state, player)
    return False


# Both below are written with & and | rather than `and`/`or` so that they also take numpy arrays (the rule-based
# agent weighs every monster left in the draw pile at once).
@njit(cache=True)
def fought_with_attack(suit):
    """rule:monster_combat: a black monster (♠ ♣) is met with physical attack, a red one (♥ ♦) with magic."""
    return (suit == SPADES) | (suit == CLUBS)


@njit(cache=True)
def beats_monster(power, luck, value):
    """rule:monster_combat: a power above the monster's value wins; on a tie, luck of at least the value wins."""
    return (power > value) | ((power == value) & (luck >= value))


@njit(cache=True)
def _fight(state, player, card):
    """Combat with a numbered monster (rule:monster_combat) or a Diamond/Spade Monarch (rule:diamond_spade_monarchs)."""
    suit = suit_of(card)
    if is_monarch(card):
        power = state.magic[player] if suit == DIAMONDS else state.attack[player]
        won = power > MONARCH_VALUE  # the Monarch wins ties
        damage = MONARCH_DAMAGE
    else:
        value = value_of(card)
        power = state.attack[player] if fought_with_attack(suit) else state.magic[player]
        won = beats_monster(power, state.luck[player], value)
        damage = MONSTER_DAMAGE
    if won:
        _add_xp(state, player, card)
    else:
        _discard_card(state, card)
        state.damage[player] += damage
        _check_death(state, player)


@njit(cache=True)
def _resolve_special(state, player, card):
    """Resolve a drawn Special, following chains (Club Monarch, Joker). True if a decision waits (rule:joker).

    A chain is a loop, not recursion: a Special drawn by a Club Monarch or a Joker replaces it.
    """
    while True:
        if card == JOKER or (is_monarch(card) and suit_of(card) == CLUBS):
            drawn = _draw(state)
            _discard_card(state, card)
            if drawn == NO_CARD:
                return False
            if not is_numbered(drawn):
                card = drawn
                continue
            if card == JOKER or value_of(drawn) <= state.luck[player]:  # rule:heart_club_monarchs: luck ≥ value
                return _gain(state, player, drawn, False)
            _discard_card(state, drawn)
            return False
        rank = rank_of(card)
        if rank == JACK:
            return _stabbed(state, player, card)
        if rank == ACE:
            return _start_ace(state, player, card)
        if suit_of(card) == HEARTS:  # rule:heart_club_monarchs
            state.damage[player] = max(0, state.damage[player] - HEART_MONARCH_HEAL)
            _discard_card(state, card)
            return False
        _fight(state, player, card)  # rule:diamond_spade_monarchs
        return False


# ---------------------------------------------------------------------------------------------- level up


@njit(cache=True)
def _pay_least_overpayment(state, player):
    """rule:level_up: the least overpayment, then the fewest Monarchs (kept as shields), oldest cards first."""
    monsters, monarchs = _xp_kinds(state, player)
    best_over = LEVEL_UP_COST + 1
    best_monsters = 0
    best_monarchs = 0
    for use_monarchs in range(monarchs + 1):
        use_monsters = max(0, LEVEL_UP_COST - 2 * use_monarchs)
        if use_monsters > monsters:
            continue
        over = use_monsters + 2 * use_monarchs - LEVEL_UP_COST
        if over < best_over:
            best_over = over
            best_monsters = use_monsters
            best_monarchs = use_monarchs
    _pay_xp_cards(state, player, best_monsters, best_monarchs)


@njit(cache=True)
def _level_up_draw(state, player):
    """rule:level_up: draw until a numbered card comes and gain it. True if a decision waits."""
    state.phase = PHASE_MAIN
    card = _draw_numbered(state)
    if card == NO_CARD:
        return False
    return _gain(state, player, card, True)


@njit(cache=True)
def _after_level_up(state):
    """rule:level_up: a Level Up ends the turn only as the turn's action (level_up_is_action) or by a death."""
    if state.level_up_is_action or state.died_this_turn:
        _end_turn(state)
    else:
        state.phase = PHASE_MAIN


# ---------------------------------------------------------------------------------------------- setup


@njit(cache=True)
def _fill_deck(state):
    """All cards of all decks, in kind order (shuffled by the caller)."""
    position = 0
    for _ in range(state.num_decks):
        for kind in range(CARDS_PER_DECK):
            state.deck[position] = kind
            state.deck_counts[kind] += 1
            position += 1
        if state.jokers:
            for _ in range(JOKERS_PER_DECK):
                state.deck[position] = JOKER
                state.deck_counts[JOKER] += 1
                position += 1
    state.deck_size = position


@njit(cache=True)
def start_game(state, deal_stats):
    """rule:deal: deal 4 numbered Stats to each player from the draw pile as it lies, and start the first turn.

    Expects the draw pile in ``deck[:deck_size]`` (with ``deck_counts``), ``dealer`` set, and every other game
    field zero. With ``deal_stats`` False the Stats and XP rows are already laid out (``apply_deal``).
    """
    n = state.num_players
    state.pending = NO_CARD
    state.ace_own_slot = -1
    state.winner = NO_PLAYER
    if deal_stats:
        state.stats[:, :] = NO_CARD
        state.xp_row[:, :] = NO_CARD
        for _ in range(START_STATS):
            for offset in range(1, n + 1):
                seat = (state.dealer + offset) % n
                card = _draw_numbered(state)
                if card != NO_CARD:
                    _add_stat(state, seat, card)
    for seat in range(n):
        _recount(state, seat)
    state.phase = PHASE_MAIN
    state.current_player = (state.dealer + 1) % n


@njit(cache=True)
def reset(state, seed):
    """rule:decks_and_seats, rule:deal: shuffle all decks, pick a random dealer, deal."""
    seed_state(state, seed)
    _fill_deck(state)
    shuffle(state, state.deck, state.deck_size)
    state.dealer = rand_below(state, state.num_players)
    start_game(state, True)


# ---------------------------------------------------------------------------------------------- decisions


@njit(cache=True)
def _main_action(state, player, action):
    """rule:turn: TRAIN, FIGHT, REST or LEVEL_UP."""
    if action == LEVEL_UP:
        if state.level_up_payment == PAYMENT_PLAYER_CHOICE:
            state.level_up_paid = 0
            state.phase = PHASE_PAY
            return
        _pay_least_overpayment(state, player)
        if not _level_up_draw(state, player):
            _after_level_up(state)
        return
    if action == REST:
        state.damage[player] = max(0, state.damage[player] - REST_HEAL)
        _end_turn(state)
        return
    card = _draw(state)
    if card == NO_CARD:  # rule:reshuffle: nothing left to draw; the action fizzles
        _end_turn(state)
        return
    if not is_numbered(card):
        if not _resolve_special(state, player, card):
            _end_turn(state)
        return
    if action == TRAIN:
        state.pending = card
        state.phase = PHASE_REPLACE
        return
    _fight(state, player, card)
    _end_turn(state)


@njit(cache=True)
def _pay_action(state, player, action):
    """rule:level_up with player_choice: pay one card; at 5 XP or more paid, draw the Level Up card."""
    if action == PAY_MONARCH:
        _pay_xp_cards(state, player, 0, 1)
        state.level_up_paid += 2
    else:
        _pay_xp_cards(state, player, 1, 0)
        state.level_up_paid += 1
    if state.level_up_paid < LEVEL_UP_COST:
        return
    state.level_up_paid = 0
    if not _level_up_draw(state, player):
        _after_level_up(state)


@njit(cache=True)
def _gain_choice(state, player, action):
    """rule:stat_cap: at 8 Stats, replace a Stat with the gained card or decline it."""
    card = state.pending
    state.pending = NO_CARD
    if action == DECLINE:
        _discard_card(state, card)
    else:
        _replace_stat(state, player, action - SLOT_BASE, card)
    if state.gain_from_level_up:
        state.gain_from_level_up = False
        _after_level_up(state)
    else:
        _end_turn(state)


@njit(cache=True)
def _shield_choice(state, player, action):
    """rule:stabby_jack: discard the oldest Monarch as a shield, or take Stabby Jack's 2 damage."""
    jack = state.pending
    state.pending = NO_CARD
    if action == SHIELD:
        _pay_xp_cards(state, player, 0, 1)
        _discard_card(state, jack)
    else:
        _discard_card(state, jack)
        state.damage[player] += JACK_DAMAGE
        _check_death(state, player)
    _end_turn(state)


@njit(cache=True)
def ace_target_seat(state, player, action):
    """The seat and slot an ACE_TARGET action names, from ``player``'s point of view."""
    index = action - ACE_TARGET_BASE
    return (player + 1 + index // MAX_STATS) % state.num_players, index % MAX_STATS


@njit(cache=True)
def _ace_swap(state, player, action):
    """rule:ace: swap the chosen pair; whichever player lost Hearts may die (never both: Hearts only move)."""
    target, their_slot = ace_target_seat(state, player, action)
    own_slot = state.ace_own_slot
    _discard_card(state, state.pending)
    state.pending = NO_CARD
    state.ace_own_slot = -1
    own = state.stats[player, own_slot]
    state.stats[player, own_slot] = state.stats[target, their_slot]
    state.stats[target, their_slot] = own
    _recount(state, player)
    _recount(state, target)
    _check_death(state, player)
    _check_death(state, target)
    _end_turn(state)


@njit(cache=True)
def _apply(state, action):
    player = state.current_player
    phase = state.phase
    if phase == PHASE_MAIN:
        _main_action(state, player, action)
    elif phase == PHASE_PAY:
        _pay_action(state, player, action)
    elif phase == PHASE_REPLACE:
        card = state.pending
        state.pending = NO_CARD
        _replace_stat(state, player, action - SLOT_BASE, card)
        _end_turn(state)
    elif phase == PHASE_GAIN_FULL:
        _gain_choice(state, player, action)
    elif phase == PHASE_SHIELD:
        _shield_choice(state, player, action)
    elif phase == PHASE_ACE_OWN:
        state.ace_own_slot = action - SLOT_BASE
        state.phase = PHASE_ACE_TARGET
    else:
        _ace_swap(state, player, action)


@njit(cache=True)
def _ace_target_matches(state, player, target, slot):
    if target == player or slot >= state.stats_count[target]:
        return False
    return ace_pair_matches(np.int64(state.stats[player, state.ace_own_slot]), np.int64(state.stats[target, slot]))


@njit(cache=True)
def _forced_action(state):
    """rule:forced_decisions: the only legal action of a decision with exactly one option, else -1."""
    player = state.current_player
    if state.phase == PHASE_PAY:
        monsters, monarchs = _xp_kinds(state, player)
        if monsters > 0 and monarchs > 0:
            return -1
        return PAY_MONSTER if monsters > 0 else PAY_MONARCH
    only = -1
    if state.phase == PHASE_ACE_OWN:
        for slot in range(state.stats_count[player]):
            if _own_slot_can_swap(state, player, slot):
                if only >= 0:
                    return -1
                only = SLOT_BASE + slot
    elif state.phase == PHASE_ACE_TARGET:
        for rel in range(1, state.num_players):
            target = (player + rel) % state.num_players
            for slot in range(state.stats_count[target]):
                if _ace_target_matches(state, player, target, slot):
                    if only >= 0:
                        return -1
                    only = ACE_TARGET_BASE + (rel - 1) * MAX_STATS + slot
    return only


@njit(cache=True)
def step(state, action):
    """Apply the current player's action (assumed legal) and play on to the next real decision."""
    state.rewards[:] = 0.0
    state.step_count += 1
    _apply(state, action)
    while state.phase != PHASE_OVER:
        forced = _forced_action(state)
        if forced < 0:
            break
        _apply(state, forced)


@njit(cache=True)
def legal_mask(state, mask):
    """The exact legal actions of the current player (all zero once the game is over)."""
    mask[:] = 0
    player = state.current_player
    phase = state.phase
    if phase == PHASE_MAIN:
        mask[TRAIN] = 1
        mask[FIGHT] = 1
        mask[REST] = 1
        if state.xp[player] >= LEVEL_UP_COST:
            mask[LEVEL_UP] = 1
    elif phase == PHASE_PAY:
        monsters, monarchs = _xp_kinds(state, player)
        mask[PAY_MONSTER] = 1 if monsters > 0 else 0
        mask[PAY_MONARCH] = 1 if monarchs > 0 else 0
    elif phase == PHASE_REPLACE:
        for slot in range(state.stats_count[player]):
            mask[SLOT_BASE + slot] = 1
    elif phase == PHASE_GAIN_FULL:
        for slot in range(MAX_STATS):
            mask[SLOT_BASE + slot] = 1
        mask[DECLINE] = 1
    elif phase == PHASE_SHIELD:
        mask[SHIELD] = 1
        mask[NO_SHIELD] = 1
    elif phase == PHASE_ACE_OWN:
        for slot in range(state.stats_count[player]):
            if _own_slot_can_swap(state, player, slot):
                mask[SLOT_BASE + slot] = 1
    elif phase == PHASE_ACE_TARGET:
        for rel in range(1, state.num_players):
            target = (player + rel) % state.num_players
            for slot in range(state.stats_count[target]):
                if _ace_target_matches(state, player, target, slot):
                    mask[ACE_TARGET_BASE + (rel - 1) * MAX_STATS + slot] = 1


@njit(cache=True)
def penalize(state, player):
    """rule:illegal_actions: the offender gets −1, the others 0, and the game ends."""
    state.phase = PHASE_OVER
    end_with_penalty(state, player)


# ---------------------------------------------------------------------------------------------- invariants
def _where_cards_are(state: np.record) -> np.ndarray:
    counts = np.zeros(NUM_KINDS, np.int64)
    np.add.at(counts, state.deck[: state.deck_size].astype(np.int64), 1)
    np.add.at(counts, state.discard[: state.discard_size].astype(np.int64), 1)
    for seat in range(int(state.num_players)):
        np.add.at(counts, state.stats[seat, : state.stats_count[seat]].astype(np.int64), 1)
        np.add.at(counts, state.xp_row[seat, : state.xp_count[seat]].astype(np.int64), 1)
    if state.pending != NO_CARD:
        counts[state.pending] += 1
    return counts


def _check_seat(state: np.record, seat: int) -> None:
    count = int(state.stats_count[seat])
    assert START_STATS <= count <= MAX_STATS, f"seat {seat} holds {count} Stats"
    row = [int(card) for card in state.stats[seat, :count]]
    assert all(is_numbered(card) for card in row), f"seat {seat} has a Special among its Stats"
    assert (state.stats[seat, count:] == NO_CARD).all()
    sums = [0, 0, 0, 0]
    for card in row:
        sums[suit_of(card)] += value_of(card)
    assert state.hit_points[seat] == (sums[0] if sums[0] > 0 else NO_HEARTS_HIT_POINTS), f"seat {seat}: HP"
    assert [state.magic[seat], state.attack[seat], state.luck[seat]] == sums[1:], f"seat {seat}: stat sums"
    xp_cards = [int(card) for card in state.xp_row[seat, : state.xp_count[seat]]]
    assert (state.xp_row[seat, state.xp_count[seat]:] == NO_CARD).all()
    for card in xp_cards:
        assert is_numbered(card) or (is_monarch(card) and suit_of(card) in (DIAMONDS, SPADES)), "bad XP card"
    assert state.xp[seat] == sum(xp_worth(card) for card in xp_cards), f"seat {seat}: XP"
    assert state.xp_monarchs[seat] == sum(is_monarch(card) for card in xp_cards), f"seat {seat}: Monarchs"
    assert 0 <= state.damage[seat] < state.hit_points[seat], f"seat {seat} should be dead"


def check_invariants(state: np.record, params: StabbyJackParams) -> None:
    """Every card of every deck is in exactly one place; derived values equal their card sums; the player to
    act has a legal action; phase and pending card agree."""
    counts = _where_cards_are(state)
    assert (counts == card_copies(params)).all(), f"cards not accounted for: {counts.tolist()}"
    deck = state.deck[: state.deck_size].astype(np.int64)
    assert (state.deck_counts == np.bincount(deck, minlength=NUM_KINDS)).all(), "deck_counts is stale"
    assert int(state.total_cards) == int(card_copies(params).sum()) == CARDS_PER_DECK * int(state.num_decks) + (
        JOKERS_PER_DECK * int(state.num_decks) if params.jokers else 0
    )
    for seat in range(int(state.num_players)):
        _check_seat(state, seat)
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER and state.phase == PHASE_OVER
        return
    assert 0 <= state.current_player < state.num_players
    assert state.phase != PHASE_OVER
    waits_on_card = state.phase not in (PHASE_MAIN, PHASE_PAY)
    assert (state.pending != NO_CARD) == waits_on_card, "pending card and phase disagree"
    from cardenvs.games.stabby_jack.actions import num_actions  # here: actions.py imports the ids from this module

    mask = np.zeros(num_actions(params), np.int8)
    legal_mask(state, mask)
    assert mask.any(), "the player to act has no legal action"
