"""Gin Slaughtre's checks of a state record from outside (a restored snapshot, ``VectorEnv.set_states``).

:func:`field_ranges` bounds every field; :func:`check_record` requires a record the rules can reach: every card
in exactly one place, the stock and pile lists and every count agreeing with the cards' locations, downcard
slots holding the seat's downcards, each seat's ``hand_events`` well formed and accounting for its hidden hand
cards, and the arranging phase as the deal leaves it. The core runs them
(:func:`cardenvs.core.snapshot.validate_record`) before the compiled rules read the record.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import require
from cardenvs.games.gin_slaughtre.actions import HAND_SIZE, NUM_ARRANGEMENTS, NUM_UPCARDS
from cardenvs.games.gin_slaughtre.cards import NO_CARD, NUM_CARDS
from cardenvs.games.gin_slaughtre.params import MAX_HAND_EVENTS, NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.rules import (
    CHAIN_RAN_OUT,
    EVENT_CHAIN,
    EVENT_CHAIN_DRAWN,
    EVENT_DRAWN,
    EVENT_STARTER,
    EVENT_STUCK,
    EVENT_STUCK_RESTRICTED,
    LOC_BURNT,
    LOC_DOWN,
    LOC_HAND,
    LOC_PILE,
    LOC_STOCK,
    LOC_UP,
    NUM_LOCATIONS,
    PHASE_ARRANGE,
    PHASE_OVER,
    PHASE_PLAY,
    STARTER_LOWEST_CARD,
)

NO_SEAT = -1
NO_ARRANGEMENT = -1


def field_ranges(params: GinSlaughtreParams) -> dict[str, tuple[int, int]]:
    """The inclusive range of every entry of each game field of the record (``Game.field_ranges``)."""
    card = (0, NUM_CARDS - 1)
    count = (0, NUM_CARDS)
    return {
        "phase": (PHASE_ARRANGE, PHASE_OVER),
        "dealer": (0, NUM_PLAYERS - 1),
        "location": (0, NUM_LOCATIONS - 1),
        "stock": card,
        "stock_size": count,
        "pile": card,
        "pile_size": count,
        "burnt_count": count,
        "hand_count": count,
        "up_count": (0, NUM_UPCARDS),
        "down_count": (0, params.num_downcards),
        "downcards": (NO_CARD, NUM_CARDS - 1),
        "known": (0, 1),
        "restricted": (0, 1),
        "pending_arrangement": (NO_ARRANGEMENT, NUM_ARRANGEMENTS - 1),
        "starter_card": (NO_CARD, NUM_CARDS - 1),
        "winner": (NO_SEAT, NUM_PLAYERS - 1),
        "hand_events": (0, EVENT_CHAIN + 2 * CHAIN_RAN_OUT - 1),
        "hand_event_count": (0, MAX_HAND_EVENTS),
    }


def check_record(state: np.record, params: GinSlaughtreParams) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` naming the field unless ``state`` is a reachable record
    (``Game.check_record``; the ranges of :func:`field_ranges` already hold)."""
    location = np.asarray(state.location).astype(np.int64)
    for field, size, place in (("stock", int(state.stock_size), LOC_STOCK), ("pile", int(state.pile_size), LOC_PILE)):
        cards = np.asarray(state[field][:size]).astype(np.int64)
        require(len(set(cards.tolist())) == size, field, "holds a card twice")
        require((location[cards] == place).all(), field, "holds a card whose location is elsewhere")
        require(int((location == place).sum()) == size, f"{field}_size", "does not match the cards located there")
    require(int((location == LOC_BURNT).sum()) == int(state.burnt_count), "burnt_count",
            "does not match the burnt cards")
    slots = int(params.num_downcards)
    for seat in range(NUM_PLAYERS):
        for field, place in (("hand_count", LOC_HAND), ("up_count", LOC_UP), ("down_count", LOC_DOWN)):
            require(int((location == place + seat).sum()) == int(state[field][seat]), field,
                    f"seat {seat}'s count does not match its cards")
        in_slots = [int(card) for card in state.downcards[seat, :slots] if card != NO_CARD]
        require(sorted(in_slots) == np.flatnonzero(location == LOC_DOWN + seat).tolist(), "downcards",
                f"seat {seat}'s slots do not hold exactly its downcards")
        require((state.downcards[seat, slots:] == NO_CARD).all(), "downcards", "an unused slot holds a card")
    in_hand = (location >= LOC_HAND) & (location < LOC_UP)
    require(not (np.asarray(state.known).astype(bool) & ~in_hand).any(), "known", "marks a card not in a hand")
    for seat in range(NUM_PLAYERS):
        _check_hand_events(state, seat, location)
    require(int(state.step_count) <= int(state.max_turns), "step_count", "is past max_turns")
    phase = int(state.phase)
    over = bool(state.terminated or state.truncated)
    require((phase == PHASE_OVER) == over, "phase", "is PHASE_OVER exactly when the game is over")
    if phase == PHASE_ARRANGE:
        _check_arranging(state, location)
    elif phase == PHASE_PLAY:
        require(int(state.winner) == NO_SEAT, "winner", "is -1 while the game goes on")
        require(not (state.restricted and state.pile_size == 0), "restricted", "a ≤5 restriction needs a pile")
        player = int(state.current_player)
        require(int(state.hand_count[player]) > 0 or int(state.stock_size) == 0, "hand_count",
                "the seat to act has an empty hand while the stock lasts")
    else:
        require(not state.restricted, "restricted", "is off once the game is over")
    if int(state.winner) != NO_SEAT:
        winner = int(state.winner)
        require(not ((location >= LOC_HAND) & ((location - LOC_HAND) % NUM_PLAYERS == winner)).any(), "winner",
                "still holds cards")


def _check_hand_events(state: np.record, seat: int, location: np.ndarray) -> None:
    """``seat``'s hand events are well formed (a trick's draws right after its draw effects, a shown card shown
    once and no longer hidden in the hand, the starter search at most once, with the lowest_card rule) and their
    unseen draws less their shown cards are the hidden cards the hand holds."""
    count = int(state.hand_event_count[seat])
    events = [int(event) for event in state.hand_events[seat]]
    require(not any(events[count:]), "hand_events", f"seat {seat} has entries past hand_event_count")
    events = events[:count]
    shown = [event for event in events if event < EVENT_DRAWN]
    require(len(set(shown)) == len(shown), "hand_events", f"seat {seat} shows a hidden card twice")
    hidden = np.flatnonzero((location == LOC_HAND + seat) & (np.asarray(state.known) == 0)).tolist()
    require(not set(shown) & set(hidden), "hand_events", f"seat {seat} still hides a card it showed")
    drawn = sum(event in (EVENT_DRAWN, EVENT_CHAIN_DRAWN) for event in events)
    require(drawn - len(shown) == len(hidden), "hand_events",
            f"seat {seat}'s draws less its shown cards are not its {len(hidden)} hidden hand cards")
    starters = sum(EVENT_STARTER <= event < EVENT_CHAIN for event in events)
    lowest = int(state.starter_rule) == STARTER_LOWEST_CARD and int(state.starter_card) != NO_CARD
    require(starters == int(lowest and int(state.phase) != PHASE_ARRANGE), "hand_events",
            f"seat {seat}'s starter search is noted {starters} times")
    for index, event in enumerate(events):
        previous = events[index - 1] if index else EVENT_DRAWN
        if event == EVENT_CHAIN_DRAWN:
            require(previous == EVENT_CHAIN_DRAWN or previous >= EVENT_CHAIN, "hand_events",
                    f"seat {seat} has a draw by effects without a trick's effects before it")
        if event >= EVENT_CHAIN:
            effects = (event - EVENT_CHAIN) % CHAIN_RAN_OUT
            until_low = effects & (effects - 1)  # below the leading bit that counts the effects
            require(until_low != 0 and index + 1 < count and events[index + 1] == EVENT_CHAIN_DRAWN, "hand_events",
                    f"seat {seat} has a trick's draw effects without a draw until a low card, or without draws")
        if EVENT_STUCK <= event <= EVENT_STUCK_RESTRICTED:
            require(index + 1 < count and events[index + 1] == EVENT_DRAWN, "hand_events",
                    f"seat {seat} has a draw when stuck without the card drawn")


def _check_arranging(state: np.record, location: np.ndarray) -> None:
    """As the deal leaves it: full hands and upcards, nothing played or known, seat 0 then seat 1 choosing."""
    require(int(state.pile_size) == 0 and int(state.burnt_count) == 0, "pile_size", "is 0 while arranging")
    require(not np.asarray(state.known).any(), "known", "nothing is public while arranging")
    require(not state.restricted, "restricted", "is off while arranging")
    require(int(state.starter_card) == NO_CARD, "starter_card", "is chosen after arranging")
    require(int(state.winner) == NO_SEAT, "winner", "is -1 while arranging")
    for seat in range(NUM_PLAYERS):
        require(int(state.hand_count[seat]) == HAND_SIZE and int(state.up_count[seat]) == NUM_UPCARDS, "hand_count",
                f"seat {seat} has not its dealt cards while arranging")
    player = int(state.current_player)
    for seat in range(NUM_PLAYERS):
        chosen = int(state.pending_arrangement[seat]) != NO_ARRANGEMENT
        require(chosen == (seat < player), "pending_arrangement", "seats choose in order, seat 0 first")
