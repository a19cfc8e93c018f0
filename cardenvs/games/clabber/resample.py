"""Clabber's hidden-card resampler: a full state record that one seat cannot tell from the true one.

What a seat has seen and the record keeps: its own six cards, the turn-up (the dealer's), every card played this
hand and by whom, the current trick in order, the bids, the declared melds and, once scored, who held the Bell.
Every other card is dealt again among the other seats, each getting as many as it had, uniformly among the deals
that agree with all of that: the current trick's cards were legal plays from the hands they leave (a seat that
did not follow suit is void in it, one that did not trump has no trump, one that did not overtrump has no higher
trump), the seat to act has a choice (forced moves play themselves), a suit named in the second bidding round was
held, each declared meld set is the seat's best one, a seat whose declaration moment passed without melds
(automatic declaring) holds none, and the Bell was not left unscored. Rejection sampling gives that uniformity
exactly: a uniform deal of the unseen cards, kept only if it agrees.

The record keeps no history of earlier tricks, so what they showed (a void in an earlier trick) is not used; nor
is a SKIP with ``optional_declare`` (it reads the same as having nothing to declare). docs/rules/clabber.md,
"Resampling", says so.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.rng import seed_state
from cardenvs.games.clabber.cards import ALL_CARDS, KING, NUM_CARDS, NUM_RANKS, QUEEN
from cardenvs.games.clabber.melds import BELL_POINTS, best_melds, popcount
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS
from cardenvs.games.clabber.rules import (
    BID_NAME,
    LAST_DEAL_INDEX,
    MELD_DECLARED,
    MELD_NOT_YET,
    MELD_SKIPPED,
    NUM_ACTIONS_WITH_DECLARE,
    PHASE_DECLARE,
    legal_cards,
    legal_mask,
    suit_bits,
    team_of,
)

#: deals tried before giving up (the true deal always agrees, so a position needs far fewer)
MAX_ATTEMPTS = 200_000
NO_SEAT = -1


def _bits(cards: int) -> list[int]:
    return [card for card in range(NUM_CARDS) if cards >> card & 1]


def known_cards(state: np.record, seat: int) -> list[int]:
    """Per seat, the card mask of its dealt cards that ``seat`` knows about (all of its own)."""
    known = []
    for other in range(NUM_PLAYERS):
        if other == seat:
            known.append(int(state.dealt[other]))
            continue
        cards = int(state.played[other])
        if int(state.meld_status[other]) == MELD_DECLARED:
            cards |= int(state.meld_cards[other])
        if other == int(state.dealer):
            cards |= 1 << int(state.turn_up)
        known.append(cards)
    return known


def resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """A copy of ``state`` with every card ``seat`` has not seen dealt again, uniformly among the deals that agree
    with what it has seen, and the game's generator reseeded from ``rng``.

    Args:
        state: a Clabber state record (not changed).
        seat: the seat whose knowledge is kept (0–3).
        rng: where the new deal and the new generator seed come from.

    Returns:
        the new record (an ``np.record`` of its own one-record array).

    Raises:
        RuntimeError: no agreeing deal turned up in :data:`MAX_ATTEMPTS` tries (a record the rules cannot reach).
    """
    copy = np.zeros(1, state.dtype).view(np.recarray)
    copy[0] = state
    record = copy[0]
    known = known_cards(state, seat)
    pool = np.array(_bits(ALL_CARDS & ~int(np.bitwise_or.reduce(np.array(known, np.int64)))), np.int64)
    others = [other for other in range(NUM_PLAYERS) if other != seat]
    needed = [CARDS_PER_HAND - popcount(np.int64(known[other])) for other in others]
    for _ in range(MAX_ATTEMPTS):
        shuffled = rng.permutation(pool)
        start = 0
        for other, count in zip(others, needed, strict=True):
            dealt = known[other]
            for card in shuffled[start:start + count]:
                dealt |= 1 << int(card)
            start += count
            record.dealt[other] = dealt
            record.hand[other] = dealt & ~int(state.played[other])
        if _agrees(record, state, seat):
            _redeal_order(record, rng)
            seed_state(record, np.uint64(rng.integers(0, 2**64, dtype=np.uint64)))
            return record
    raise RuntimeError(f"no deal agreeing with seat {seat}'s view turned up in {MAX_ATTEMPTS} tries")


def _agrees(record: np.record, state: np.record, seat: int) -> bool:
    """Whether the new deal in ``record`` agrees with everything ``seat`` saw (melds and the Bell are rewritten
    to fit the new hands where they are private)."""
    return (_trick_was_legal(record, seat) and _bids_agree(record) and _melds_agree(record, state, seat)
            and _bell_agrees(record) and _to_act_has_choice(record))


def _to_act_has_choice(record: np.record) -> bool:
    """The seat to act has two legal actions or more: the rules play a forced move themselves (rule:forced_moves),
    so being asked shows everyone that it has a choice."""
    if record.terminated or record.truncated:
        return True
    mask = np.zeros(NUM_ACTIONS_WITH_DECLARE, np.int8)
    legal_mask(record, mask)
    return int(mask.sum()) >= 2


def _trick_was_legal(record: np.record, seat: int) -> bool:
    """Every card of the current trick was a legal play from the hand it left (that hand is the seat's hand now
    plus that card)."""
    size = int(record.trick_size)
    if size == 0:
        return True
    saved_size = size
    leader = int(record.leader)
    try:
        for position in range(1, size):
            player = (leader + position) % NUM_PLAYERS
            if player == seat:
                continue
            card = int(record.trick[position])
            held = int(record.hand[player])
            record.trick_size = position
            record.hand[player] = held | 1 << card
            legal = int(legal_cards(record, player))
            record.hand[player] = held
            if not legal >> card & 1:
                return False
    finally:
        record.trick_size = saved_size
    return True


def _bids_agree(record: np.record) -> bool:
    """A suit named in the second bidding round was in the maker's hand (as dealt: nothing is played while
    bidding)."""
    maker = int(record.maker)
    if maker == NO_SEAT or int(record.bid_second[maker]) != BID_NAME:
        return True
    return int(record.dealt[maker]) & int(suit_bits(int(record.trump))) != 0


def _melds_agree(record: np.record, state: np.record, seat: int) -> bool:
    """Declared melds are each seat's best set; a seat whose automatic declaring passed holds none; a seat now
    deciding whether to declare has melds (its private candidate is rewritten for its new cards)."""
    trump = int(record.trump)
    if trump < 0:
        return True
    for other in range(NUM_PLAYERS):
        if other == seat:
            continue
        status = int(state.meld_status[other])
        deciding = int(state.phase) == PHASE_DECLARE and other == int(state.current_player)
        if status == MELD_NOT_YET and not deciding:
            continue
        if status == MELD_SKIPPED and record.optional_declare:
            continue  # a SKIP reads the same as nothing to declare
        cards, points, key, _ = best_melds(np.int64(record.dealt[other]), trump, int(record.seq_tiebreak))
        if status == MELD_DECLARED:
            if int(cards) != int(state.meld_cards[other]) or int(points) != int(state.meld_points[other]):
                return False
            if int(key) != int(state.meld_best[other]):
                return False
        elif status == MELD_SKIPPED:
            if int(points) != 0:
                return False
        else:  # deciding: its melds are private until declared
            if int(points) == 0:
                return False
            record.meld_cards[other] = cards
            record.meld_points[other] = points
            record.meld_best[other] = key
    return True


def _bell_agrees(record: np.record) -> bool:
    """The Bell's holder is the seat dealt the trump King and Queen; it cannot have played both unscored."""
    trump = int(record.trump)
    if trump < 0:
        return True
    bell = (1 << (trump * NUM_RANKS + KING)) | (1 << (trump * NUM_RANKS + QUEEN))
    holder = NO_SEAT
    for other in range(NUM_PLAYERS):
        if int(record.dealt[other]) & bell == bell:
            holder = other
    if holder == NO_SEAT:
        record.bell_holder = NO_SEAT
        return not record.bell_points.any()
    scored = int(record.bell_points[team_of(holder)]) == BELL_POINTS
    if int(record.played[holder]) & bell == bell and not scored:
        return False
    record.bell_holder = holder
    return scored or not record.bell_points.any()


def _redeal_order(record: np.record, rng: np.random.Generator) -> None:
    """A deal order that gives each seat its new cards: its own deck positions in a random order, the turn-up
    last (the deck is never shown, so any order that deals the same hands will do)."""
    dealer = int(record.dealer)
    turn_up = int(record.turn_up)
    for other in range(NUM_PLAYERS):
        positions = [i for i in range(NUM_CARDS) if (dealer + 1 + i) % NUM_PLAYERS == other and i != LAST_DEAL_INDEX]
        cards = [card for card in _bits(int(record.dealt[other])) if not (other == dealer and card == turn_up)]
        for position, card in zip(positions, rng.permutation(np.array(cards, np.int64)), strict=True):
            record.deck[position] = card
    record.deck[LAST_DEAL_INDEX] = turn_up
