"""Clabber's checks of a state record from outside (a restored snapshot, ``VectorEnv.set_states``).

:func:`field_ranges` bounds every field; :func:`check_record` requires a record the rules can reach: the deck a
deal order of the 24 cards that gave each seat its ``dealt`` cards, each seat's cards held or played and none of
them among its ``excluded`` cards, the trick made of cards its seats played, the bids, the seat to act, melds and
the Bell agreeing with the phase. The core runs them (:func:`cardenvs.core.snapshot.validate_record`) before the
compiled rules read the record.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import require
from cardenvs.games.clabber.cards import (
    ALL_CARDS,
    HAND_POINTS,
    KING,
    NO_CARD,
    NO_SUIT,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN,
)
from cardenvs.games.clabber.melds import BELL_POINTS, CATEGORY_POINTS, KEY_STEP, NUM_CATEGORIES
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS, ClabberParams
from cardenvs.games.clabber.rules import (
    BID_ACCEPT,
    BID_NAME,
    BID_NONE,
    BID_PASS,
    LAST_DEAL_INDEX,
    MELD_NOT_YET,
    MELD_SKIPPED,
    MELDS_NOBODY,
    MELDS_UNDECIDED,
    NUM_TRICKS,
    PHASE_BID_FIRST,
    PHASE_BID_SECOND,
    PHASE_DECLARE,
    PHASE_OVER,
    PHASE_PLAY,
)

#: a bound on one seat's meld points: a disjoint meld set in six cards has at most two melds (each takes three
#: cards or more), each worth at most the best category
MAX_SEAT_MELD_POINTS = 2 * int(CATEGORY_POINTS.max())
#: the highest meld comparison key: the best category with the largest tie-break digits
MAX_MELD_KEY = NUM_CATEGORIES * KEY_STEP + KEY_STEP - 1
#: a bound on what one team scores in a hand before tied hands' points are added: every card point, every seat's
#: melds (a belote-dedans failure adds all that were declared), both Bells
MAX_HAND_SCORE = HAND_POINTS + NUM_PLAYERS * MAX_SEAT_MELD_POINTS + 2 * BELL_POINTS
NO_SEAT = -1


def field_ranges(params: ClabberParams) -> dict[str, tuple[int, int]]:
    """The inclusive range of every entry of each game field of the record (``Game.field_ranges``)."""
    seat = (0, NUM_PLAYERS - 1)
    optional_seat = (NO_SEAT, NUM_PLAYERS - 1)
    cards = (0, ALL_CARDS)
    hands = params.max_hands
    total = hands * MAX_HAND_SCORE  # more than all the hands of a game can add up to
    return {
        "phase": (PHASE_BID_FIRST, PHASE_OVER),
        "dealer": seat,
        "hands_dealt": (1, hands),
        "hands_played": (0, hands),
        "scores": (0, total),
        "litige_pending": (0, total),
        "hand_total": (0, total),
        "hand_added": (0, total),
        "hand_trick_points": (0, HAND_POINTS),
        "hand_maker": optional_seat,
        "penalized_seat": optional_seat,
        "deck": (0, NUM_CARDS - 1),
        "dealt": cards,
        "hand": cards,
        "turn_up": (0, NUM_CARDS - 1),
        "bid_first": (BID_NONE, BID_ACCEPT),
        "bid_second": (BID_NONE, BID_NAME),
        "trump": (NO_SUIT, NUM_SUITS - 1),
        "maker": optional_seat,
        "leader": optional_seat,
        "trick": (NO_CARD, NUM_CARDS - 1),
        "trick_size": (0, NUM_PLAYERS),
        "tricks_done": (0, NUM_TRICKS),
        "played": cards,
        "excluded": cards,
        "trick_points": (0, HAND_POINTS),
        "tricks_won": (0, NUM_TRICKS),
        "meld_status": (MELD_NOT_YET, MELD_SKIPPED),
        "meld_declined": (0, 1),
        "meld_cards": cards,
        "meld_points": (0, MAX_SEAT_MELD_POINTS),
        "meld_best": (0, MAX_MELD_KEY),
        "meld_winner": (MELDS_UNDECIDED, MELDS_NOBODY),
        "meld_score": (0, 2 * MAX_SEAT_MELD_POINTS),
        "bell_holder": optional_seat,
        "bell_points": (0, BELL_POINTS),
    }


def check_record(state: np.record, params: ClabberParams) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` naming the field unless ``state`` is a reachable record
    (``Game.check_record``; the ranges of :func:`field_ranges` already hold)."""
    _check_deal(state)
    over = bool(state.terminated or state.truncated)
    require((int(state.phase) == PHASE_OVER) == over, "phase", "is PHASE_OVER exactly when the game is over")
    require(int(state.hands_played) <= int(state.hands_dealt), "hands_played", "exceeds hands_dealt")
    for team in range(2):
        require(int(state.bell_points[team]) in (0, BELL_POINTS), "bell_points", f"is 0 or {BELL_POINTS}")
    phase = int(state.phase)
    if phase in (PHASE_BID_FIRST, PHASE_BID_SECOND):
        _check_bidding(state, phase)
    elif phase in (PHASE_DECLARE, PHASE_PLAY):
        _check_play(state, phase)
    else:
        _check_trick(state)
        if int(state.penalized_seat) < 0:
            require(int(state.tricks_done) == NUM_TRICKS or int(state.maker) == NO_SEAT, "tricks_done",
                    "a game that ended by the rules ends after a whole hand or a throw-in")


def _check_deal(state: np.record) -> None:
    """The deck is a deal order of all 24 cards; it gave each seat its ``dealt`` cards, the last one face up; a
    seat's excluded cards are none of its own, and only its plays exclude any."""
    deck = [int(card) for card in state.deck]
    require(sorted(deck) == list(range(NUM_CARDS)), "deck", "must hold each of the 24 cards once")
    dealer = int(state.dealer)
    for seat in range(NUM_PLAYERS):
        expected = 0
        for i in range(NUM_CARDS):
            if (dealer + 1 + i) % NUM_PLAYERS == seat:
                expected |= 1 << deck[i]
        require(int(state.dealt[seat]) == expected, "dealt", f"seat {seat}'s cards are not the ones the deck gave it")
    require(int(state.turn_up) == deck[LAST_DEAL_INDEX], "turn_up", "must be the deck's last card (the dealer's)")
    for seat in range(NUM_PLAYERS):
        dealt, held, played = int(state.dealt[seat]), int(state.hand[seat]), int(state.played[seat])
        require(held & ~dealt == 0, "hand", f"seat {seat} holds a card it was not dealt")
        require(played == dealt & ~held, "played", f"seat {seat}'s played cards are not its dealt cards it no "
                                                   "longer holds")
        excluded = int(state.excluded[seat])
        require(excluded & dealt == 0, "excluded", f"seat {seat} was shown not to hold a card it was dealt")
        require(played != 0 or excluded == 0, "excluded", f"seat {seat} showed what it lacks without playing")


def _check_bidding(state: np.record, phase: int) -> None:
    """Nothing played, no trump or maker yet; the bids so far are passes from the dealer's left up to the seat
    to act."""
    for seat in range(NUM_PLAYERS):
        require(int(state.hand[seat]) == int(state.dealt[seat]), "hand", "no card is played while bidding")
    require(int(state.trump) == NO_SUIT, "trump", "is NO_SUIT while bidding")
    require(int(state.maker) == NO_SEAT, "maker", "is -1 while bidding")
    require(int(state.leader) == NO_SEAT, "leader", "is -1 while bidding")
    require(int(state.trick_size) == 0 and int(state.tricks_done) == 0, "trick_size", "is 0 while bidding")
    require((state.trick == NO_CARD).all(), "trick", "is empty while bidding")
    require(not state.tricks_won.any() and not state.trick_points.any(), "trick_points", "is 0 while bidding")
    require(not state.meld_status.any() and not state.meld_cards.any() and not state.meld_points.any()
            and not state.meld_best.any() and not state.meld_score.any(), "meld_status", "no melds while bidding")
    require(not state.meld_declined.any(), "meld_declined", "no melds are declined while bidding")
    require(int(state.meld_winner) == MELDS_UNDECIDED, "meld_winner", "is undecided while bidding")
    require(int(state.bell_holder) == NO_SEAT and not state.bell_points.any(), "bell_holder", "is -1 while bidding")
    player, dealer = int(state.current_player), int(state.dealer)
    first_done = (player - dealer - 1) % NUM_PLAYERS  # seats that already bid in the round under way
    for offset in range(NUM_PLAYERS):
        seat = (dealer + 1 + offset) % NUM_PLAYERS
        if phase == PHASE_BID_FIRST:
            first, second = (BID_PASS if offset < first_done else BID_NONE), BID_NONE
        else:
            first, second = BID_PASS, (BID_PASS if offset < first_done else BID_NONE)
        require(int(state.bid_first[seat]) == first, "bid_first", f"seat {seat}'s first-round bid cannot be")
        require(int(state.bid_second[seat]) == second, "bid_second", f"seat {seat}'s second-round bid cannot be")


def _check_trick(state: np.record) -> None:
    """The trick holds the cards its seats played, from the leader round; no trick without a leader; a full trick
    only at the end of the hand's last one."""
    size, done = int(state.trick_size), int(state.tricks_done)
    require(int(state.tricks_won.sum()) == done, "tricks_won", "must add up to tricks_done")
    if int(state.leader) == NO_SEAT:
        require(size == 0 and done == 0, "trick_size", "no card is played before a leader is set")
    require(size < NUM_PLAYERS or done == NUM_TRICKS, "trick_size", "a full trick stays only after the last one")
    for position in range(NUM_PLAYERS):
        card = int(state.trick[position])
        if position >= size:
            require(card == NO_CARD, "trick", f"position {position} is past trick_size")
            continue
        seat = (int(state.leader) + position) % NUM_PLAYERS
        require(card != NO_CARD and int(state.played[seat]) >> card & 1, "trick",
                f"position {position} is not a card seat {seat} played")


def _check_play(state: np.record, phase: int) -> None:
    """A maker, a trump and a leader; the trick holds cards its seats played; the seat to act is next to play."""
    require(int(state.trump) != NO_SUIT, "trump", "is set once the contract is made")
    maker = int(state.maker)
    require(maker != NO_SEAT, "maker", "is set once the contract is made")
    require(int(state.bid_first[maker]) == BID_ACCEPT or int(state.bid_second[maker]) == BID_NAME, "maker",
            "did not take the contract in its bids")
    require(int(state.leader) != NO_SEAT, "leader", "is set in play")
    size, done = int(state.trick_size), int(state.tricks_done)
    require(size < NUM_PLAYERS, "trick_size", "a trick in progress has at most 3 cards")
    require(done < NUM_TRICKS, "tricks_done", "a hand in progress has fewer than 6 tricks done")
    _check_trick(state)
    for seat in range(NUM_PLAYERS):
        behind = (seat - int(state.leader)) % NUM_PLAYERS < size  # already played to this trick
        require(bin(int(state.hand[seat])).count("1") == CARDS_PER_HAND - done - behind, "hand",
                f"seat {seat} holds the wrong number of cards for the tricks played")
    require(int(state.current_player) == (int(state.leader) + size) % NUM_PLAYERS, "current_player",
            "is not the seat next to play to the trick")
    if phase == PHASE_DECLARE:
        require(bool(state.optional_declare) and done == 0, "phase", "declaring is only at the first trick with "
                                                                     "optional_declare")
        player = int(state.current_player)
        require(int(state.meld_status[player]) == MELD_NOT_YET and int(state.meld_points[player]) > 0,
                "meld_status", "the seat declaring has undeclared melds")
    for seat in range(NUM_PLAYERS):
        status = int(state.meld_status[seat])
        if state.meld_declined[seat]:
            require(bool(state.optional_declare) and status == MELD_SKIPPED, "meld_declined",
                    f"seat {seat} declined melds without choosing SKIP")
        if status == MELD_SKIPPED:
            require(int(state.meld_cards[seat]) == 0 and int(state.meld_points[seat]) == 0
                    and int(state.meld_best[seat]) == 0, "meld_cards", f"seat {seat} skipped but holds melds")
        require(int(state.meld_cards[seat]) & ~int(state.dealt[seat]) == 0, "meld_cards",
                f"seat {seat}'s melds are not its cards")
    require((int(state.meld_winner) != MELDS_UNDECIDED) == (done >= 1), "meld_winner",
            "is decided exactly after the first trick")
    holder = int(state.bell_holder)
    for team in range(2):
        if state.bell_points[team]:
            require(holder != NO_SEAT and holder % 2 == team, "bell_points", "scored by a team without the Bell")
    if holder != NO_SEAT:
        trump = int(state.trump)
        bell = (1 << (trump * NUM_RANKS + KING)) | (1 << (trump * NUM_RANKS + QUEEN))
        require(int(state.dealt[holder]) & bell == bell, "bell_holder", "was not dealt the trump King and Queen")
