"""Gin Slaughtre's action encoding (docs/rules/gin_slaughtre.md, "Actions").

Ids never move between parameter sets: the default game uses 0–419, the downcard variant adds
the three slot actions 420–422, and ``min_set_size=2`` adds the pairs 423–501. The space is cut after the last
id the parameters use.

Every play action is a fixed list of cards in the order they are laid on the pile (:data:`ACTION_CARDS`), so
the engine decodes an action with one table lookup.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from cardenvs.games.gin_slaughtre.cards import (
    FIRST_JOKER,
    NUM_CARDS,
    NUM_SUITED_RANKS,
    NUM_SUITS,
    card_name,
    pretty_name,
)

if TYPE_CHECKING:  # params.py imports MAX_DOWNCARDS from here
    from cardenvs.games.gin_slaughtre.params import GinSlaughtreParams

HAND_SIZE = 4  # cards a player refills to (rule:refill)
NUM_UPCARDS = 3
DEALT_PER_PLAYER = HAND_SIZE + NUM_UPCARDS  # the cards one arrangement chooses from
MIN_RUN = 3
MAX_DOWNCARDS = 3

# 0–34: which 3 of the player's 7 cards (sorted by id) become its upcards
ARRANGE_BASE = 0
ARRANGEMENTS = np.array(list(combinations(range(DEALT_PER_PLAYER), NUM_UPCARDS)), np.int8)
NUM_ARRANGEMENTS = len(ARRANGEMENTS)  # 35
# 35–88: one card, by id
SINGLE_BASE = ARRANGE_BASE + NUM_ARRANGEMENTS
# 89–140: three cards of a rank: SET3_BASE + rank * 4 + the missing suit
SET3_BASE = SINGLE_BASE + NUM_CARDS
# 141–153: four cards of a rank: SET4_BASE + rank
SET4_BASE = SET3_BASE + NUM_SUITED_RANKS * NUM_SUITS
# 154–417: runs of 3+ in one suit: RUN_BASE + suit * RUNS_PER_SUIT + RUN_OFFSET[start rank] + length - 3
RUN_BASE = SET4_BASE + NUM_SUITED_RANKS
RUN_OFFSET = np.zeros(NUM_SUITED_RANKS - MIN_RUN + 1, np.int64)  # first run index of each start rank
for _start in range(1, len(RUN_OFFSET)):
    RUN_OFFSET[_start] = RUN_OFFSET[_start - 1] + (NUM_SUITED_RANKS - (_start - 1) - MIN_RUN + 1)
RUNS_PER_SUIT = int(RUN_OFFSET[-1]) + 1  # 66
TAKE_PILE = RUN_BASE + NUM_SUITS * RUNS_PER_SUIT  # 418
DRAW = TAKE_PILE + 1  # 419
NUM_BASE_ACTIONS = DRAW + 1  # 420
# 420–422: turn over downcard slot k (num_downcards=3 only)
SLOT_BASE = NUM_BASE_ACTIONS
# 423–501: two cards of a rank (min_set_size=2 only): PAIR_BASE + rank * 6 + index of the suit pair; last: Jokers
PAIR_BASE = SLOT_BASE + MAX_DOWNCARDS
SUIT_PAIRS = np.array(list(combinations(range(NUM_SUITS), 2)), np.int8)
PAIRS_PER_RANK = len(SUIT_PAIRS)  # 6
JOKER_PAIR = PAIR_BASE + NUM_SUITED_RANKS * PAIRS_PER_RANK
NUM_ALL_ACTIONS = JOKER_PAIR + 1  # 502

MAX_TRICK = NUM_SUITED_RANKS  # the longest trick: a run A…K

# The cards of every play action, in the order they are laid on the pile (sets in suit order ♣ ♦ ♥ ♠, runs
# ascending), padded with -1; ACTION_SIZE is 0 for actions that play no fixed cards.
ACTION_CARDS = np.full((NUM_ALL_ACTIONS, MAX_TRICK), -1, np.int8)
ACTION_SIZE = np.zeros(NUM_ALL_ACTIONS, np.int8)


def _define(action: int, cards: list[int]) -> None:
    ACTION_CARDS[action, : len(cards)] = cards
    ACTION_SIZE[action] = len(cards)


for _card in range(NUM_CARDS):
    _define(SINGLE_BASE + _card, [_card])
for _rank in range(NUM_SUITED_RANKS):
    for _missing in range(NUM_SUITS):
        _define(SET3_BASE + _rank * NUM_SUITS + _missing,
                [_rank * NUM_SUITS + s for s in range(NUM_SUITS) if s != _missing])
    _define(SET4_BASE + _rank, [_rank * NUM_SUITS + s for s in range(NUM_SUITS)])
    for _i, (_a, _b) in enumerate(SUIT_PAIRS):
        _define(PAIR_BASE + _rank * PAIRS_PER_RANK + _i, [_rank * NUM_SUITS + int(_a), _rank * NUM_SUITS + int(_b)])
_define(JOKER_PAIR, [FIRST_JOKER, FIRST_JOKER + 1])
for _suit in range(NUM_SUITS):
    for _start in range(len(RUN_OFFSET)):
        for _length in range(MIN_RUN, NUM_SUITED_RANKS - _start + 1):
            _define(RUN_BASE + _suit * RUNS_PER_SUIT + int(RUN_OFFSET[_start]) + _length - MIN_RUN,
                    [(_start + k) * NUM_SUITS + _suit for k in range(_length)])


def run_action(suit: int, start_rank: int, length: int) -> int:
    """The action playing ``length`` cards of ``suit`` from ``start_rank`` (Ace 0) upwards."""
    if not (0 <= suit < NUM_SUITS and length >= MIN_RUN and start_rank >= 0 and start_rank + length <= 13):
        raise ValueError(f"no run of {length} from rank {start_rank} in suit {suit}")
    return RUN_BASE + suit * RUNS_PER_SUIT + int(RUN_OFFSET[start_rank]) + length - MIN_RUN


def set_action(cards: list[int]) -> int:
    """The action playing exactly ``cards`` (ids) as one set (3 or 4 of a rank, or a pair)."""
    wanted = sorted(cards)
    for action in range(SET3_BASE, RUN_BASE):
        if sorted(ACTION_CARDS[action, : ACTION_SIZE[action]].tolist()) == wanted:
            return action
    for action in range(PAIR_BASE, NUM_ALL_ACTIONS):
        if sorted(ACTION_CARDS[action, : ACTION_SIZE[action]].tolist()) == wanted:
            return action
    raise ValueError(f"{[card_name(c) for c in cards]} is not a set")


def arrangement_action(dealt: list[int], upcards: list[int]) -> int:
    """The ARRANGE action that makes ``upcards`` (3 of the 7 ``dealt`` ids) the player's upcards."""
    order = sorted(dealt)
    chosen = tuple(sorted(order.index(c) for c in upcards))
    for action, combo in enumerate(ARRANGEMENTS):
        if tuple(int(i) for i in combo) == chosen:
            return ARRANGE_BASE + action
    raise ValueError("upcards must be 3 distinct cards of the 7 dealt")


def action_text(action: int, dealt: list[int] | None = None) -> str:
    """A short readable name of any action id, with cards written as on the table: ``"play 4♣"``,
    ``"set 7♣ 7♦ 7♠"``, ``"run 5♠-8♠"``, ``"take the pile"``.

    An arrangement names the upcards it makes: ``"upcards: 2♦ 9♥ 9♠"`` given the player's seven ``dealt``
    card ids, otherwise their places in id order, ``"upcards: cards #1 #2 #5 (by id)"``.
    """
    if action < SINGLE_BASE:
        places = [int(i) for i in ARRANGEMENTS[action - ARRANGE_BASE]]
        if dealt is not None:
            order = sorted(dealt)
            return "upcards: " + " ".join(pretty_name(order[i]) for i in places)
        return "upcards: cards " + " ".join(f"#{i + 1}" for i in places) + " (by id)"
    if action == TAKE_PILE:
        return "take the pile"
    if action == DRAW:
        return "draw"
    if SLOT_BASE <= action < PAIR_BASE:
        return f"turn over downcard {action - SLOT_BASE + 1}"
    cards = [pretty_name(int(c)) for c in ACTION_CARDS[action, : ACTION_SIZE[action]]]
    if action < SET3_BASE:
        return f"play {cards[0]}"
    if action < RUN_BASE or action >= PAIR_BASE:
        return "set " + " ".join(cards)
    return f"run {cards[0]}-{cards[-1]}"


def num_actions(params: GinSlaughtreParams) -> int:
    """420 for the standard game; +3 downcard slots; the pairs (up to id 501) with ``min_set_size=2``."""
    if params.min_set_size == 2:
        return NUM_ALL_ACTIONS
    if params.num_downcards:
        return PAIR_BASE
    return NUM_BASE_ACTIONS


def action_name(params: GinSlaughtreParams, action: int, state: np.record | None = None) -> str:
    """A short readable name with cards as on the table, e.g. ``"play 7♥"``, ``"run 5♠-8♠"``, ``"take the pile"``.

    Given the current ``state``, an arrangement names the upcards it makes (``"upcards: 2♦ 9♥ 9♠"``) from the
    cards of the player to act; without it, their places among the player's seven cards sorted by id.
    """
    from cardenvs.games.gin_slaughtre import rules  # here: rules.py imports the action ids of this module

    action = int(action)
    if state is not None and action < NUM_ARRANGEMENTS and int(state.phase) == rules.PHASE_ARRANGE:
        seat = int(state.current_player)
        location = np.asarray(state.location)
        dealt = np.flatnonzero((location == rules.LOC_HAND + seat) | (location == rules.LOC_UP + seat)).tolist()
        return action_text(action, dealt)
    return action_text(action)


def public_action_name(params: GinSlaughtreParams, action: int) -> str:
    """An action as the other seat sees it: an arrangement is hidden until both chose (rule:arranging), and even
    the places of its upcards among the player's cards would tell how its hand ranks against them."""
    if int(action) < SINGLE_BASE:
        return "chooses its upcards"
    return action_name(params, action)
