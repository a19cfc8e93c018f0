"""Clabber's rules engine: compiled functions over one state record (see params.state_fields).

Comments cite the rules of docs/rules/clabber.md by their slugs (``rule:<slug>``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.rng import rand_below, seed_state, shuffle
from cardenvs.games.clabber.cards import (
    ALL_CARDS,
    HAND_POINTS,
    KING,
    LAST_TRICK_BONUS,
    NO_CARD,
    NO_SUIT,
    NUM_CARDS,
    NUM_RANKS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    QUEEN,
    SUIT_MASK,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
)
from cardenvs.games.clabber.melds import BELL_POINTS, best_melds, popcount
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS

# Phases
PHASE_BID_FIRST = 0  # accept the turn-up's suit or pass
PHASE_BID_SECOND = 1  # name another suit or pass
PHASE_DECLARE = 2  # optional_declare only: declare or skip one's melds before the first card
PHASE_PLAY = 3
PHASE_OVER = 4

# Actions
PASS = NUM_CARDS  # 0–23 play that card
ACCEPT = NUM_CARDS + 1
NAME_SUIT = NUM_CARDS + 2  # NAME_SUIT + suit, suit 0–3
DECLARE = NAME_SUIT + 4  # only with optional_declare
SKIP = DECLARE + 1
NUM_BASE_ACTIONS = DECLARE
NUM_ACTIONS_WITH_DECLARE = SKIP + 1

# Bids (state.bid_first / state.bid_second)
BID_NONE = 0
BID_PASS = 1
BID_ACCEPT = 2  # first round
BID_NAME = 2  # second round: named the suit now in state.trump

# Meld status per seat
MELD_NOT_YET = 0
MELD_DECLARED = 1
MELD_SKIPPED = 2  # nothing to declare, or chose SKIP

# state.meld_winner
MELDS_UNDECIDED = -1
MELDS_NOBODY = 2

# Parameter codes (params.FAIL_RULES, TIE_RULES)
FAIL_SEED = 0
FAIL_BELOTE_DEDANS = 1
TIE_FAIL = 0
TIE_LITIGE = 1

NUM_TRICKS = CARDS_PER_HAND
LAST_DEAL_INDEX = NUM_CARDS - 1  # the dealer's sixth card, dealt face up
WIN_REWARD = 1.0
LOSS_REWARD = -1.0
DRAW_REWARD = 0.0


@njit(cache=True)
def team_of(seat):
    """Team 0 is seats 0 and 2, team 1 seats 1 and 3."""
    return seat % 2


@njit(cache=True)
def card_bit(card):
    return np.int64(1) << np.int64(card)


@njit(cache=True)
def suit_bits(suit):
    """The card mask of one whole suit."""
    return np.int64(SUIT_MASK) << np.int64(suit * NUM_RANKS)


@njit(cache=True)
def card_points(card, trump):
    """rule:card_order: a card's points, which depend on whether it is a trump."""
    rank = card % NUM_RANKS
    if card // NUM_RANKS == trump:
        return TRUMP_POINTS[rank]
    return PLAIN_POINTS[rank]


@njit(cache=True)
def beats(card, best, trump):
    """rule:trick_winner: does ``card`` beat ``best``, the card winning the trick so far?"""
    suit = card // NUM_RANKS
    best_suit = best // NUM_RANKS
    if suit == best_suit:
        if suit == trump:
            return TRUMP_STRENGTH[card % NUM_RANKS] > TRUMP_STRENGTH[best % NUM_RANKS]
        return PLAIN_STRENGTH[card % NUM_RANKS] > PLAIN_STRENGTH[best % NUM_RANKS]
    return suit == trump


@njit(cache=True)
def winning_position(state):
    """Position (0 = led) of the card now winning the current trick."""
    best = 0
    for position in range(1, state.trick_size):
        if beats(state.trick[position], state.trick[best], state.trump):
            best = position
    return best


@njit(cache=True)
def higher_trumps(state):
    """The trumps ranking above every trump in the current trick (all trumps if it holds none)."""
    trump = state.trump
    highest = -1
    for position in range(state.trick_size):
        card = state.trick[position]
        if card // NUM_RANKS == trump:
            highest = max(highest, TRUMP_STRENGTH[card % NUM_RANKS])
    higher = np.int64(0)
    for rank in range(NUM_RANKS):
        if TRUMP_STRENGTH[rank] > highest:
            higher |= card_bit(trump * NUM_RANKS + rank)
    return higher


@njit(cache=True)
def legal_cards(state, player):
    """rule:follow_suit, rule:must_trump, rule:must_overtrump, rule:free_discard: the cards ``player`` may play."""
    held = np.int64(state.hand[player])
    if state.trick_size == 0:
        return held
    trump = state.trump
    led = state.trick[0] // NUM_RANKS
    if led != trump:
        following = held & suit_bits(led)
        if following:
            return following
        if state.partner_exemption:  # rule:partner_exemption: the partner is winning, so any card will do
            winner = (state.leader + winning_position(state)) % NUM_PLAYERS
            if winner == (player + 2) % NUM_PLAYERS:
                return held
    trumps = held & suit_bits(trump)
    if trumps == 0:
        return held
    over = trumps & higher_trumps(state)
    return over if over else trumps


@njit(cache=True)
def shown_absent(state, player, card):
    """The cards ``player`` shows it does not hold by playing ``card`` (legal) to the current trick: those whose
    presence in its hand would have made ``card`` illegal under :func:`legal_cards`, so every seat can infer them.

    Not following a plain led suit shows a void in it; then (unless rule:partner_exemption freed the player) a
    plain card shows no trump, and a trump that does not overtrump shows no higher trump. With trumps led, a
    plain card shows no trump and a lower trump no higher one. A lead shows nothing.
    """
    if state.trick_size == 0:
        return np.int64(0)
    trump = state.trump
    led = state.trick[0] // NUM_RANKS
    suit = card // NUM_RANKS
    absent = np.int64(0)
    if led != trump:
        if suit == led:
            return absent
        absent = suit_bits(led)
        if state.partner_exemption:
            winner = (state.leader + winning_position(state)) % NUM_PLAYERS
            if winner == (player + 2) % NUM_PLAYERS:
                return absent
    if suit != trump:
        return absent | suit_bits(trump)
    higher = higher_trumps(state)
    if higher & card_bit(card):
        return absent
    return absent | higher


@njit(cache=True)
def nameable_suits(state, player):
    """rule:second_bidding_round: suits ``player`` may name: held, and not the turn-up's suit (4-bit mask)."""
    held = np.int64(state.hand[player])
    suits = 0
    for suit in range(4):
        if suit != state.turn_up // NUM_RANKS and held & suit_bits(suit):
            suits |= 1 << suit
    return suits


@njit(cache=True)
def legal_mask(state, mask):
    """The legal actions of ``state.current_player`` (all zeros once the game is over)."""
    mask[:] = 0
    player = state.current_player
    if state.phase == PHASE_BID_FIRST:
        mask[PASS] = 1
        mask[ACCEPT] = 1
    elif state.phase == PHASE_BID_SECOND:
        mask[PASS] = 1
        suits = nameable_suits(state, player)
        for suit in range(4):
            if suits >> suit & 1:
                mask[NAME_SUIT + suit] = 1
    elif state.phase == PHASE_DECLARE:
        mask[DECLARE] = 1
        mask[SKIP] = 1
    elif state.phase == PHASE_PLAY:
        cards = legal_cards(state, player)
        for card in range(NUM_CARDS):
            if cards >> card & 1:
                mask[card] = 1


# ---------------------------------------------------------------------------------------------- dealing
@njit(cache=True)
def begin_hand(state):
    """rule:deal, rule:turn_up: deal ``state.deck`` one card at a time from the dealer's left; the last is face up."""
    state.hands_dealt += 1
    state.hand[:] = 0
    for i in range(NUM_CARDS):
        seat = (state.dealer + 1 + i) % NUM_PLAYERS
        state.hand[seat] = state.hand[seat] | card_bit(state.deck[i])
    state.dealt[:] = state.hand
    state.turn_up = state.deck[LAST_DEAL_INDEX]
    state.bid_first[:] = BID_NONE
    state.bid_second[:] = BID_NONE
    state.trump = NO_SUIT
    state.maker = -1
    state.leader = -1
    state.trick[:] = NO_CARD
    state.trick_size = 0
    state.tricks_done = 0
    state.played[:] = 0
    state.excluded[:] = 0
    state.trick_points[:] = 0
    state.tricks_won[:] = 0
    state.meld_status[:] = MELD_NOT_YET
    state.meld_declined[:] = 0
    state.meld_cards[:] = 0
    state.meld_points[:] = 0
    state.meld_best[:] = 0
    state.meld_winner = MELDS_UNDECIDED
    state.meld_score[:] = 0
    state.bell_holder = -1
    state.bell_points[:] = 0
    state.phase = PHASE_BID_FIRST
    state.current_player = (state.dealer + 1) % NUM_PLAYERS


@njit(cache=True)
def _new_hand(state):
    """rule:deal: shuffle all 24 cards with the game's own generator and deal."""
    for card in range(NUM_CARDS):
        state.deck[card] = card
    shuffle(state, state.deck, NUM_CARDS)
    begin_hand(state)


@njit(cache=True)
def start_game(state):
    """rule:seats_and_teams: scores at zero, nothing pending (the first dealer is set by the caller)."""
    state.scores[:] = 0
    state.litige_pending = 0
    state.hands_dealt = 0
    state.hands_played = 0
    state.hand_total[:] = 0
    state.hand_added[:] = 0
    state.hand_trick_points[:] = 0
    state.hand_maker = -1
    state.penalized_seat = -1
    state.phase = PHASE_BID_FIRST
    state.terminated = False
    state.truncated = False
    state.step_count = 0
    state.rewards[:] = 0.0


@njit(cache=True)
def reset(state, seed):
    """rule:seats_and_teams, rule:deal: a random first dealer and the first deal."""
    seed_state(state, seed)
    start_game(state)
    state.dealer = rand_below(state, NUM_PLAYERS)
    _new_hand(state)
    resolve_forced(state)


@njit(cache=True)
def start_from_deck(state):
    """Start a new game from the deal order already in ``state.deck`` and dealer in ``state.dealer``."""
    start_game(state)
    begin_hand(state)
    resolve_forced(state)


# ---------------------------------------------------------------------------------------------- bidding
@njit(cache=True)
def _start_play(state, maker, trump):
    """rule:tricks: the maker fixes trump; the player left of the dealer leads the first trick."""
    state.maker = maker
    state.trump = trump
    state.phase = PHASE_PLAY
    bell = card_bit(trump * NUM_RANKS + KING) | card_bit(trump * NUM_RANKS + QUEEN)
    for seat in range(NUM_PLAYERS):
        if np.int64(state.hand[seat]) & bell == bell:
            state.bell_holder = seat
    state.leader = (state.dealer + 1) % NUM_PLAYERS
    _enter_turn(state, state.leader)


@njit(cache=True)
def _bid_first(state, player, action):
    """rule:first_bidding_round: accept the turn-up's suit as trump, or pass; the dealer's pass ends the round."""
    if action == ACCEPT:
        state.bid_first[player] = BID_ACCEPT
        _start_play(state, player, state.turn_up // NUM_RANKS)
    else:
        state.bid_first[player] = BID_PASS
        state.current_player = (player + 1) % NUM_PLAYERS
        if player == state.dealer:
            state.phase = PHASE_BID_SECOND


@njit(cache=True)
def _bid_second(state, player, action):
    """rule:second_bidding_round: name another suit held, or pass; four passes throw the hand in (rule:throw_in)."""
    if action >= NAME_SUIT:
        state.bid_second[player] = BID_NAME
        _start_play(state, player, action - NAME_SUIT)
    else:
        state.bid_second[player] = BID_PASS
        if player == state.dealer:
            _throw_in(state)
        else:
            state.current_player = (player + 1) % NUM_PLAYERS


@njit(cache=True)
def _throw_in(state):
    """rule:throw_in: no score; the deal passes left (or rule:truncation after max_hands deals)."""
    if state.hands_dealt >= state.max_hands:
        _truncate(state)
        return
    state.dealer = (state.dealer + 1) % NUM_PLAYERS
    _new_hand(state)


# ---------------------------------------------------------------------------------------------- melds
@njit(cache=True)
def _enter_turn(state, player):
    """``player`` is to play; at the first trick its best melds are declared first (rule:meld_declaring)."""
    state.current_player = player
    if state.tricks_done > 0 or state.meld_status[player] != MELD_NOT_YET:
        return
    cards, points, key, _ = best_melds(np.int64(state.hand[player]), state.trump, state.seq_tiebreak)
    if points == 0:
        state.meld_status[player] = MELD_SKIPPED
        return
    state.meld_cards[player] = cards
    state.meld_points[player] = points
    state.meld_best[player] = key
    if state.optional_declare:
        state.phase = PHASE_DECLARE  # the melds stay private (status MELD_NOT_YET) until declared
    else:
        state.meld_status[player] = MELD_DECLARED


@njit(cache=True)
def _declare(state, player, declare):
    """rule:optional_declare: DECLARE makes the melds public; SKIP gives them up, in front of every seat (the
    table saw the seat decide, so it held melds: ``meld_declined``)."""
    if declare:
        state.meld_status[player] = MELD_DECLARED
    else:
        state.meld_status[player] = MELD_SKIPPED
        state.meld_declined[player] = 1
        state.meld_cards[player] = 0
        state.meld_points[player] = 0
        state.meld_best[player] = 0
    state.phase = PHASE_PLAY


@njit(cache=True)
def _compare_melds(state):
    """rule:meld_comparison: after the first trick the team with the better best meld scores all its melds."""
    best0 = max(state.meld_best[0], state.meld_best[2])
    best1 = max(state.meld_best[1], state.meld_best[3])
    if best0 > best1:
        state.meld_winner = 0
    elif best1 > best0:
        state.meld_winner = 1
    else:
        state.meld_winner = MELDS_NOBODY
        return
    winner = state.meld_winner
    state.meld_score[winner] = state.meld_points[winner] + state.meld_points[winner + 2]


# ---------------------------------------------------------------------------------------------- tricks
@njit(cache=True)
def _play_card(state, player, card):
    """Play a card; rule:bell: the Bell scores when its holder plays the second of trump K and Q. What the card
    shows the seat does not hold (:func:`shown_absent`) joins its public ``excluded`` cards."""
    bit = card_bit(card)
    absent = shown_absent(state, player, card)
    state.hand[player] = np.int64(state.hand[player]) & ~bit
    state.played[player] = np.int64(state.played[player]) | bit
    if absent:
        gone = np.int64(state.played[0]) | np.int64(state.played[1]) | np.int64(state.played[2]) | np.int64(
            state.played[3])
        state.excluded[player] = np.int64(state.excluded[player]) | (absent & ~gone)
    state.trick[state.trick_size] = card
    state.trick_size += 1
    if player == state.bell_holder and state.bell_points[team_of(player)] == 0:
        bell = card_bit(state.trump * NUM_RANKS + KING) | card_bit(state.trump * NUM_RANKS + QUEEN)
        if bit & bell and np.int64(state.hand[player]) & bell == 0:
            state.bell_points[team_of(player)] = BELL_POINTS
    if state.trick_size < NUM_PLAYERS:
        _enter_turn(state, (player + 1) % NUM_PLAYERS)
    else:
        _finish_trick(state)


@njit(cache=True)
def _finish_trick(state):
    """rule:trick_winner, rule:tricks: the winner takes the points and leads next; rule:last_trick: +10."""
    winner = (state.leader + winning_position(state)) % NUM_PLAYERS
    team = team_of(winner)
    points = 0
    for position in range(NUM_PLAYERS):
        points += card_points(state.trick[position], state.trump)
    state.trick_points[team] += points
    state.tricks_won[team] += 1
    state.tricks_done += 1
    if state.tricks_done == 1:
        _compare_melds(state)
    if state.tricks_done == NUM_TRICKS:
        state.trick_points[team] += LAST_TRICK_BONUS
        _end_hand(state)
        return
    state.trick[:] = NO_CARD
    state.trick_size = 0
    state.leader = winner
    _enter_turn(state, winner)


# ---------------------------------------------------------------------------------------------- scoring
@njit(cache=True)
def _declared_meld_points(state):
    total = 0
    for seat in range(NUM_PLAYERS):
        if state.meld_status[seat] == MELD_DECLARED:
            total += state.meld_points[seat]
    return total


@njit(cache=True)
def _end_hand(state):
    """rule:hand_points, rule:contract_made, rule:contract_failed, rule:ties: score the hand."""
    for team in range(2):
        state.hand_trick_points[team] = state.trick_points[team]
        state.hand_total[team] = state.trick_points[team] + state.meld_score[team] + state.bell_points[team]
    state.hand_maker = state.maker
    makers = team_of(state.maker)
    defenders = 1 - makers
    made = state.hand_total[makers]
    defended = state.hand_total[defenders]
    state.hand_added[:] = 0
    hand_winner = -1
    new_pending = 0
    if made > defended:  # rule:contract_made: both teams score
        state.hand_added[makers] = made
        state.hand_added[defenders] = defended
        hand_winner = makers
    elif made == defended and state.tie_rule == TIE_LITIGE:  # rule:ties, litige variant
        state.hand_added[defenders] = defended
        new_pending = made
    else:  # rule:contract_failed: the makers score nothing
        hand_winner = defenders
        if state.fail_rule == FAIL_SEED:
            state.hand_added[defenders] = defended
        else:
            state.hand_added[defenders] = (
                HAND_POINTS + _declared_meld_points(state) + state.bell_points[0] + state.bell_points[1]
            )
    if hand_winner >= 0:
        state.hand_added[hand_winner] += state.litige_pending
        state.litige_pending = 0
    state.litige_pending += new_pending
    _score_hand(state)
    _after_hand(state)


@njit(cache=True)
def _score_hand(state):
    state.hands_played += 1
    state.scores[0] += state.hand_added[0]
    state.scores[1] += state.hand_added[1]


@njit(cache=True)
def _end_episode(state):
    state.phase = PHASE_OVER
    state.current_player = NO_PLAYER
    state.terminated = True


@njit(cache=True)
def _single_hand_rewards(state):
    """rule:game_end, single_hand: (own team's − opponents' points this hand) / 162 for each seat."""
    for seat in range(NUM_PLAYERS):
        own = team_of(seat)
        state.rewards[seat] = (state.hand_added[own] - state.hand_added[1 - own]) / HAND_POINTS


@njit(cache=True)
def _after_hand(state):
    """rule:game_end: end of the episode (single hand, or a team at the target), rule:truncation, or the next
    deal (rule:seats_and_teams: the deal passes left)."""
    if state.single_hand:
        _end_episode(state)
        _single_hand_rewards(state)
    elif max(state.scores[0], state.scores[1]) >= state.target_score:
        _end_episode(state)
        for seat in range(NUM_PLAYERS):
            own = state.scores[team_of(seat)]
            other = state.scores[1 - team_of(seat)]
            state.rewards[seat] = WIN_REWARD if own > other else (LOSS_REWARD if own < other else DRAW_REWARD)
    elif state.hands_dealt >= state.max_hands:
        _truncate(state)
    else:
        state.dealer = (state.dealer + 1) % NUM_PLAYERS
        _new_hand(state)


@njit(cache=True)
def _truncate(state):
    """rule:truncation: max_hands deals reached; every reward 0."""
    state.phase = PHASE_OVER
    state.current_player = NO_PLAYER
    state.truncated = True


# ---------------------------------------------------------------------------------------------- stepping
@njit(cache=True)
def _forced_action(state):
    """The only legal action of the player to act, or -1 if there is a real choice (rule:forced_moves)."""
    if state.phase == PHASE_PLAY:
        cards = legal_cards(state, state.current_player)
        if popcount(cards) == 1:
            for card in range(NUM_CARDS):
                if cards >> card & 1:
                    return card
    elif state.phase == PHASE_BID_SECOND and nameable_suits(state, state.current_player) == 0:
        return PASS
    return -1


@njit(cache=True)
def _apply(state, action):
    player = state.current_player
    if state.phase == PHASE_BID_FIRST:
        _bid_first(state, player, action)
    elif state.phase == PHASE_BID_SECOND:
        _bid_second(state, player, action)
    elif state.phase == PHASE_DECLARE:
        _declare(state, player, action == DECLARE)
    else:
        _play_card(state, player, action)


@njit(cache=True)
def resolve_forced(state):
    """rule:forced_moves: play every move that has no alternative, until a real decision or the end."""
    while state.phase != PHASE_OVER:
        action = _forced_action(state)
        if action < 0:
            return
        _apply(state, action)


@njit(cache=True)
def step(state, action):
    """Apply the current player's action (assumed legal) and play on to the next decision."""
    state.rewards[:] = 0.0
    state.step_count += 1
    _apply(state, action)
    resolve_forced(state)


@njit(cache=True)
def penalty_meld_points(state, team):
    """rule:illegal_actions: a team's melds: both players' best meld sets as dealt, plus the Bell if held."""
    total = 0
    for seat in range(team, NUM_PLAYERS, 2):
        total += best_melds(np.int64(state.dealt[seat]), state.trump, state.seq_tiebreak)[1]
    if state.bell_holder >= 0 and team_of(state.bell_holder) == team:
        total += BELL_POINTS
    return total


@njit(cache=True)
def penalize(state, player):
    """rule:illegal_actions: the hand ends, the opponents score 162 plus their melds, and the game ends.

    Rewards: single_hand as usual from the hand's points; otherwise the offending team forfeits (−1, +1).
    """
    state.rewards[:] = 0.0
    state.step_count += 1
    offenders = team_of(player)
    opponents = 1 - offenders
    state.penalized_seat = player
    state.hand_maker = state.maker
    for team in range(2):
        state.hand_trick_points[team] = state.trick_points[team]
    state.hand_added[offenders] = 0
    state.hand_added[opponents] = HAND_POINTS + penalty_meld_points(state, opponents) + state.litige_pending
    state.litige_pending = 0
    state.hand_total[:] = state.hand_added
    _score_hand(state)
    _end_episode(state)
    if state.single_hand:
        _single_hand_rewards(state)
    else:
        for seat in range(NUM_PLAYERS):
            state.rewards[seat] = LOSS_REWARD if team_of(seat) == offenders else WIN_REWARD


# ---------------------------------------------------------------------------------------------- invariants
def _bits(value: int) -> int:
    return int(value) & ALL_CARDS


def check_invariants(state: np.record, params) -> None:
    """Every card is in exactly one place, no seat is shown not to hold a card it was dealt, points and scores add
    up, and a player to act has a real choice."""
    dealt = [_bits(state.dealt[s]) for s in range(NUM_PLAYERS)]
    hands = [_bits(state.hand[s]) for s in range(NUM_PLAYERS)]
    played = [_bits(state.played[s]) for s in range(NUM_PLAYERS)]
    union = 0
    for seat in range(NUM_PLAYERS):
        assert hands[seat] & played[seat] == 0, f"seat {seat} holds a card it played"
        assert hands[seat] | played[seat] == dealt[seat], f"seat {seat}: a card appeared or vanished"
        assert bin(dealt[seat]).count("1") == CARDS_PER_HAND, f"seat {seat} was not dealt 6 cards"
        assert union & dealt[seat] == 0, "a card was dealt twice"
        assert _bits(state.excluded[seat]) & dealt[seat] == 0, f"seat {seat} was shown not to hold a card it was dealt"
        union |= dealt[seat]
    assert union == ALL_CARDS, "not all 24 cards were dealt"
    assert int(state.turn_up) == int(state.deck[LAST_DEAL_INDEX])
    assert dealt[int(state.dealer)] >> int(state.turn_up) & 1, "the turn-up is not the dealer's"
    assert (state.scores >= 0).all() and state.litige_pending >= 0
    assert int(state.scores.sum()) >= 0
    if state.hands_played > 0 and state.penalized_seat < 0:
        assert int(state.hand_trick_points.sum()) == HAND_POINTS, "card points + last trick != 162"
    total_played = sum(bin(p).count("1") for p in played)
    if state.phase in (PHASE_BID_FIRST, PHASE_BID_SECOND):
        assert state.trump == NO_SUIT and state.maker == -1 and total_played == 0
        assert not state.excluded.any(), "a card is excluded before any is played"
    elif state.penalized_seat < 0:
        assert 0 <= state.trump < 4 and 0 <= state.maker < NUM_PLAYERS
        done = int(state.tricks_done)
        assert total_played == NUM_PLAYERS * done + (int(state.trick_size) if done < NUM_TRICKS else 0)
        in_trick = 0
        for position in range(int(state.trick_size)):
            in_trick |= 1 << int(state.trick[position])
        assert in_trick & ~(played[0] | played[1] | played[2] | played[3]) == 0, "trick card not played"
        won = 0
        for card in range(NUM_CARDS):
            if (played[0] | played[1] | played[2] | played[3]) >> card & 1 and not (
                done < NUM_TRICKS and in_trick >> card & 1
            ):
                won += int(card_points(card, int(state.trump)))
        bonus = LAST_TRICK_BONUS if done == NUM_TRICKS else 0
        assert int(state.trick_points.sum()) == won + bonus, "trick points do not match the cards won"
        assert int(state.tricks_won.sum()) == done
        assert (state.meld_winner != MELDS_UNDECIDED) == (done >= 1)
        for team in range(2):
            if state.bell_points[team]:
                assert state.bell_points[team] == BELL_POINTS and team_of(int(state.bell_holder)) == team
    for seat in range(NUM_PLAYERS):
        if state.meld_status[seat] == MELD_DECLARED:
            expected = best_melds(np.int64(dealt[seat]), int(state.trump), int(state.seq_tiebreak))
            assert int(state.meld_points[seat]) == int(expected[1]) and int(state.meld_cards[seat]) == int(expected[0])
    if state.terminated or state.truncated:
        assert state.current_player == NO_PLAYER and state.phase == PHASE_OVER
        return
    mask = np.zeros(NUM_ACTIONS_WITH_DECLARE, np.int8)
    legal_mask(state, mask)
    assert mask.sum() >= 2, "the player to act has no real choice (forced moves must be resolved)"
