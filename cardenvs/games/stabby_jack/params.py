"""Stabby Jack's parameters, their validation, and the state record built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_bool, check_choice, check_int, header_fields
from cardenvs.games.stabby_jack.cards import (
    CARDS_PER_DECK,
    JOKER,
    JOKERS_PER_DECK,
    MONSTER_MONARCHS_PER_DECK,
    NUM_KINDS,
    NUMBERED_PER_DECK,
)

ENV_NAME = "stabby_jack_v0"
MIN_PLAYERS = 2
MAX_PLAYERS = 8  # rule:decks_and_seats: 8 keeps the spaces a fixed size
MAX_STATS = 8  # rule:stat_cap: the Stats row holds 4…8 cards
START_STATS = 4  # rule:deal
MAX_TURNS_LIMIT = 1_000_000

# The phase codes of rules.py (PHASE_MAIN … PHASE_OVER), as the snapshot table explains them.
PHASE_MEANING = "0 main, 1 pay, 2 replace, 3 gain at 8, 4 shield, 5 Ace own Stat, 6 Ace target, 7 over"

# Option strings, in the order of the int codes stored in the record.
LEVEL_UP_PAYMENTS = ("least_overpayment", "player_choice")


def decks_for(num_players: int) -> int:
    """rule:decks_and_seats: one deck per two players, rounded up."""
    return (num_players + 1) // 2


@dataclass(frozen=True)
class StabbyJackParams:
    """Stabby Jack's parameters (docs/rules/stabby_jack.md, "Parameters").

    Attributes:
        num_players: seats, 2…8 (at most ``max_players``); ⌈num_players/2⌉ decks are used.
        max_players: the seat count the observation and action spaces are sized for (2…8), so that one policy
            can play every player count up to it (seats beyond ``num_players`` read as absent); ``None``
            (default) sizes them for ``num_players``, the smallest and fastest spaces.
        jokers: play with the two Jokers of each deck (an instant Level Up).
        level_up_is_action: Level Up is a whole turn instead of a free pre-action before the main action
            (rule:level_up).
        level_up_payment: ``"least_overpayment"`` (the engine pays 5 XP with the least overpayment, then the
            fewest Monarchs, oldest cards first) or ``"player_choice"`` (the player picks card by card;
            rule:level_up).
        win_uses_max_hp: win condition (b) compares attack with each opponent's full HP instead of HP left
            (rule:winning).
        max_turns: turns after which the game is truncated (every reward 0; rule:rewards).
    """

    num_players: int = 2
    max_players: int | None = None
    jokers: bool = False
    level_up_is_action: bool = False
    level_up_payment: str = "least_overpayment"
    win_uses_max_hp: bool = False
    max_turns: int = 1000

    def validate(self) -> None:
        if self.max_players is not None:
            check_int(ENV_NAME, "max_players", self.max_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int(ENV_NAME, "num_players", self.num_players, MIN_PLAYERS, self.max_players or MAX_PLAYERS)
        check_int(ENV_NAME, "max_turns", self.max_turns, 1, MAX_TURNS_LIMIT)
        check_choice(ENV_NAME, "level_up_payment", self.level_up_payment, LEVEL_UP_PAYMENTS)
        for name in ("jokers", "level_up_is_action", "win_uses_max_hp"):
            check_bool(ENV_NAME, name, getattr(self, name))

    def seats(self) -> int:
        """The seat count the spaces are sized for: ``max_players``, or ``num_players`` when it is None."""
        return self.num_players if self.max_players is None else self.max_players


def num_decks(params: StabbyJackParams) -> int:
    return decks_for(params.num_players)


def total_cards(params: StabbyJackParams) -> int:
    """Cards in play: every card of every deck."""
    return num_decks(params) * (CARDS_PER_DECK + (JOKERS_PER_DECK if params.jokers else 0))


def xp_row_capacity(params: StabbyJackParams) -> int:
    """The most cards one XP row can hold: every monster and every Diamond/Spade Monarch."""
    return num_decks(params) * (NUMBERED_PER_DECK + MONSTER_MONARCHS_PER_DECK)


def state_fields(params: StabbyJackParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding (cards are kinds, see cards.py)."""
    n = params.num_players
    cards = total_cards(params)
    xp_capacity = xp_row_capacity(params)
    return header_fields(n) + [
        # --- parameters (constant during a game)
        StateField("max_players", np.int32, (), "seats the spaces are sized for: params.seats()"),
        StateField("num_decks", np.int32, (), "decks in play, ⌈num_players / 2⌉ (rule:decks_and_seats)"),
        StateField("total_cards", np.int32, (), "cards of all decks together, Jokers included"),
        StateField("jokers", np.bool_, (), "each deck has its two Jokers (rule:joker)"),
        StateField("level_up_is_action", np.bool_, (), "a Level Up is the turn's action, not a free pre-action"),
        StateField("level_up_payment", np.int8, (), "0 least_overpayment, 1 player_choice (LEVEL_UP_PAYMENTS)"),
        StateField("win_uses_max_hp", np.bool_, (), "win condition (b) uses opponents' full HP (rule:winning)"),
        StateField("max_turns", np.int32, (), "turns after which the game is truncated (rule:rewards)"),
        # --- game
        StateField("phase", np.int8, (), PHASE_MEANING),
        StateField("dealer", np.int32, (), "seat of the dealer; the seat on its left plays first"),
        StateField("turn_count", np.int32, (), "turns completed"),
        StateField("deck", np.int16, (cards,), "draw pile: card kinds, deck[deck_size - 1] is drawn next"),
        StateField("deck_size", np.int32, (), "cards in the draw pile"),
        StateField("deck_counts", np.int16, (NUM_KINDS,), "cards of each kind in the draw pile (public)"),
        StateField("discard", np.int16, (cards,), "discard pile: card kinds, discard[discard_size - 1] on top"),
        StateField("discard_size", np.int32, (), "cards in the discard pile"),
        StateField("reshuffles", np.int32, (), "times the discard pile became the draw pile (rule:reshuffle)"),
        StateField("pending", np.int16, (), "drawn card awaiting a decision (replace, gain at 8, Jack, Ace), else -1"),
        StateField("stats", np.int16, (n, MAX_STATS), "per seat, the Stats row in slot order; -1 past stats_count"),
        StateField("stats_count", np.int32, (n,), "per seat, Stats held: 4…8"),
        StateField("xp_row", np.int16, (n, xp_capacity), "per seat, won cards, oldest first; -1 past xp_count"),
        StateField("xp_count", np.int32, (n,), "per seat, cards in the XP row"),
        StateField("damage", np.int32, (n,), "per seat, damage markers (below hit_points between turns)"),
        StateField("hit_points", np.int32, (n,), "per seat, Σ Hearts, or 1 with no Heart (rule:stats)"),
        StateField("magic", np.int32, (n,), "per seat, Σ Diamonds"),
        StateField("attack", np.int32, (n,), "per seat, Σ Spades"),
        StateField("luck", np.int32, (n,), "per seat, Σ Clubs"),
        StateField("xp", np.int32, (n,), "per seat, XP held: a monster 1, a Monarch 2"),
        StateField("xp_monarchs", np.int32, (n,), "per seat, Monarchs (2-XP cards) in the XP row"),
        StateField("deaths", np.int32, (n,), "per seat, times it died and was reborn (rule:death_and_rebirth)"),
        StateField("died_this_turn", np.bool_, (), "the player to act died during this turn (ends it)"),
        StateField("gain_from_level_up", np.bool_, (), "the gain at 8 Stats came from a Level Up (the turn may go on)"),
        StateField("level_up_paid", np.int32, (), "XP paid so far in the pay phase (player_choice)"),
        StateField("ace_own_slot", np.int32, (), "Ace target phase: the drawer's chosen Stats slot; -1 otherwise"),
        StateField("winner", np.int32, (), "the seat that won; -1 (NO_PLAYER) otherwise"),
    ]


def fill_params(record: np.record, params: StabbyJackParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = params.num_players
    record.max_players = params.seats()
    record.num_decks = num_decks(params)
    record.total_cards = total_cards(params)
    record.jokers = params.jokers
    record.level_up_is_action = params.level_up_is_action
    record.level_up_payment = LEVEL_UP_PAYMENTS.index(params.level_up_payment)
    record.win_uses_max_hp = params.win_uses_max_hp
    record.max_turns = params.max_turns


#: record fields written by fill_params (kept by apply_deal)
PARAMETER_FIELDS = (
    "num_players",
    "max_players",
    "num_decks",
    "total_cards",
    "jokers",
    "level_up_is_action",
    "level_up_payment",
    "win_uses_max_hp",
    "max_turns",
)


def card_copies(params: StabbyJackParams) -> np.ndarray:
    """How many cards of each kind are in play."""
    decks = (params.num_players + 1) // 2
    copies = np.full(NUM_KINDS, decks, np.int64)
    copies[JOKER] = decks * JOKERS_PER_DECK if params.jokers else 0
    return copies
