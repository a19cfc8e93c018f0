"""Stabby Jack's checks of a state record from outside (a restored snapshot, ``VectorEnv.set_states``).

:func:`field_ranges` bounds every field; :func:`check_record` requires a record the rules can reach: every card
of every deck in exactly one place (draw pile, discard pile, a Stats row, an XP row or pending), the public draw
pile counts matching it, each seat's Stats, XP and damage agreeing with its cards, and the pending card and Ace
slot fitting the phase. The core runs them (:func:`cardenvs.core.snapshot.validate_record`) before the compiled
rules read the record.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import NO_PLAYER, RecordError, require
from cardenvs.games.stabby_jack.cards import ACE, JACK, NO_CARD, NUM_KINDS, is_numbered, rank_of
from cardenvs.games.stabby_jack.params import (
    MAX_STATS,
    START_STATS,
    StabbyJackParams,
    card_copies,
    total_cards,
    xp_row_capacity,
)
from cardenvs.games.stabby_jack.rules import (
    LEVEL_UP_COST,
    MONARCH_DAMAGE,
    NUM_DECISION_PHASES,
    PHASE_ACE_TARGET,
    PHASE_GAIN_FULL,
    PHASE_MAIN,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_REPLACE,
    PHASE_SHIELD,
    _check_seat,
    _where_cards_are,
)

#: the highest value of a numbered card (the 10)
HIGHEST_VALUE = 10
#: one Stat sum's bound: every Stat slot holding a 10 of that suit
MAX_STAT_SUM = MAX_STATS * HIGHEST_VALUE
#: ``reshuffles`` and ``deaths`` bound: far more than a game's turn limit allows
MAX_EVENTS = 2**30
NO_SLOT = -1


def field_ranges(params: StabbyJackParams) -> dict[str, tuple[int, int]]:
    """The inclusive range of every entry of each game field of the record (``Game.field_ranges``)."""
    n = params.num_players
    cards = total_cards(params)
    capacity = xp_row_capacity(params)
    kind = (NO_CARD, NUM_KINDS - 1)
    stat = (0, MAX_STAT_SUM)
    return {
        "phase": (PHASE_MAIN, PHASE_OVER),
        "dealer": (0, n - 1),
        "turn_count": (0, params.max_turns),
        "deck": kind,
        "deck_size": (0, cards),
        "deck_counts": (0, int(card_copies(params).max())),
        "discard": kind,
        "discard_size": (0, cards),
        "reshuffles": (0, MAX_EVENTS),
        "pending": kind,
        "stats": kind,
        "stats_count": (START_STATS, MAX_STATS),
        "xp_row": kind,
        "xp_count": (0, capacity),
        "damage": stat,
        "hit_points": (1, MAX_STAT_SUM),
        "magic": stat,
        "attack": stat,
        "luck": stat,
        "xp": (0, MONARCH_DAMAGE * capacity),
        "xp_monarchs": (0, capacity),
        "deaths": (0, MAX_EVENTS),
        "died_this_turn": (0, 1),
        "gain_from_level_up": (0, 1),
        "level_up_paid": (0, LEVEL_UP_COST),
        "ace_own_slot": (NO_SLOT, MAX_STATS - 1),
        "winner": (NO_PLAYER, n - 1),
    }


def check_record(state: np.record, params: StabbyJackParams) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` naming the field unless ``state`` is a reachable record
    (``Game.check_record``; the ranges of :func:`field_ranges` already hold)."""
    for field, size in (("deck", int(state.deck_size)), ("discard", int(state.discard_size))):
        require((state[field][:size] != NO_CARD).all(), field, "holds an empty slot among its cards")
    for seat in range(int(state.num_players)):
        for field, count in (("stats", int(state.stats_count[seat])), ("xp_row", int(state.xp_count[seat]))):
            require((state[field][seat, :count] != NO_CARD).all(), field, f"seat {seat}'s row has an empty slot")
    require((_where_cards_are(state) == card_copies(params)).all(), "deck",
            "with the discard pile, the rows and the pending card it must hold every card of every deck once")
    in_deck = np.bincount(state.deck[: state.deck_size].astype(np.int64), minlength=NUM_KINDS)
    require((np.asarray(state.deck_counts) == in_deck).all(), "deck_counts", "does not count the draw pile")
    for seat in range(int(state.num_players)):
        try:
            _check_seat(state, seat)
        except AssertionError as error:
            raise RecordError("stats", f"seat {seat}'s Stats, XP or damage disagree with its cards: {error}") from None
    over = bool(state.terminated or state.truncated)
    phase = int(state.phase)
    require((phase == PHASE_OVER) == over, "phase", "is PHASE_OVER exactly when the game is over")
    if over:
        return
    require(int(state.winner) == NO_PLAYER, "winner", "is -1 while the game goes on")
    require(phase < NUM_DECISION_PHASES, "phase", "a game in progress is in a decision phase")
    _check_pending(state, phase)


def _check_pending(state: np.record, phase: int) -> None:
    """The pending card is the one the phase decides about; the Ace's own slot is chosen exactly in its target
    phase; a Level Up payment is under way only in the pay phase."""
    pending = int(state.pending)
    if phase in (PHASE_MAIN, PHASE_PAY):
        require(pending == NO_CARD, "pending", "no card waits in this phase")
    elif phase in (PHASE_REPLACE, PHASE_GAIN_FULL):
        require(pending != NO_CARD and bool(is_numbered(pending)), "pending", "a numbered card waits in this phase")
    elif phase == PHASE_SHIELD:
        require(pending != NO_CARD and int(rank_of(pending)) == JACK, "pending", "a Jack waits in this phase")
    else:
        require(pending != NO_CARD and int(rank_of(pending)) == ACE, "pending", "an Ace waits in this phase")
    slot = int(state.ace_own_slot)
    if phase == PHASE_ACE_TARGET:
        player = int(state.current_player)
        require(0 <= slot < int(state.stats_count[player]), "ace_own_slot", "is not one of the drawer's Stats")
    else:
        require(slot == NO_SLOT, "ace_own_slot", "is -1 outside the Ace's target phase")
    if phase != PHASE_PAY:
        require(int(state.level_up_paid) == 0, "level_up_paid", "is 0 outside the pay phase")
    else:
        require(int(state.level_up_paid) < LEVEL_UP_COST, "level_up_paid", "a payment under way is not complete")
    if phase == PHASE_GAIN_FULL:
        require(int(state.stats_count[int(state.current_player)]) == MAX_STATS, "stats_count",
                "a Level Up card waits only at 8 Stats")
