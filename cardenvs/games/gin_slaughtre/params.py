"""Gin Slaughtre's parameters, their validation, and the state record built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_bool, check_choice, check_int, header_fields
from cardenvs.games.gin_slaughtre.actions import DEALT_PER_PLAYER, HAND_SIZE, MAX_DOWNCARDS
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS

ENV_NAME = "gin_slaughtre_v0"
NUM_PLAYERS = 2
MAX_TURNS_LIMIT = 10_000_000

# Option strings, in the order of the int codes stored in the record.
RED5_RULES = ("play_leq5", "draw_until_leq5")
QUARTET_RULES = ("rank", "rank_or_suit")
STARTER_RULES = ("lowest_card", "left_of_dealer")

#: the stock right after the deal without downcards (the most cards a game can draw)
STOCK_AT_DEAL = NUM_CARDS - NUM_PLAYERS * DEALT_PER_PLAYER
#: the most events one seat's hidden hand can have in a game (``hand_events``): each card dealt into its hand or
#: drawn enters once and is shown at most once, each stock draw follows at most one note (a draw when stuck or a
#: trick's draw effects), and the starter search is noted once
MAX_HAND_EVENTS = 2 * (HAND_SIZE + STOCK_AT_DEAL) + STOCK_AT_DEAL + 1


@dataclass(frozen=True)
class GinSlaughtreParams:
    """Gin Slaughtre's parameters (docs/rules/gin_slaughtre.md, "Parameters"); the defaults are the standard game.

    Attributes:
        num_players: always 2 (rule:players_and_ranking); present so that a wrong count is refused clearly.
        min_set_size: smallest set of one rank: 3 (standard) or 2 (Shithead-like pairs, incl. two Jokers).
        stack_effects: black 5s and Jacks act once per card of the trick, not only as its top card.
        num_downcards: 0 (standard) or 3 (Shithead's blind downcards, played after the upcards).
        red5_rule: ``"play_leq5"`` (the opponent's next play must be 5 or lower) or ``"draw_until_leq5"``
            (the opponent draws until a card of 5 or lower, like a Jack).
        joker_consumes_turn: the opponent's pickup forced by a Joker is its turn (the Joker's player leads
            again); if False the opponent then takes a normal turn.
        quartet_rule: ``"rank"`` (four of a rank on top burn the pile) or ``"rank_or_suit"`` (four of a
            suit on top burn it too).
        starter_rule: ``"lowest_card"`` (the holder of the lowest card in the order 3…K, Jo, A, 2 starts,
            upcards first) or ``"left_of_dealer"``.
        max_turns: agent decisions after which the game is truncated (reward 0 to both).
    """

    num_players: int = NUM_PLAYERS
    min_set_size: int = 3
    stack_effects: bool = False
    num_downcards: int = 0
    red5_rule: str = "play_leq5"
    joker_consumes_turn: bool = True
    quartet_rule: str = "rank"
    starter_rule: str = "lowest_card"
    max_turns: int = 2000

    def validate(self) -> None:
        check_int(ENV_NAME, "num_players", self.num_players, NUM_PLAYERS, NUM_PLAYERS)
        check_int(ENV_NAME, "min_set_size", self.min_set_size, 2, 3)
        check_bool(ENV_NAME, "stack_effects", self.stack_effects)
        if isinstance(self.num_downcards, bool):
            raise ValueError(f"{ENV_NAME}: num_downcards={self.num_downcards!r} is not allowed; choose 0 or 3")
        check_choice(ENV_NAME, "num_downcards", self.num_downcards, (0, MAX_DOWNCARDS))
        check_choice(ENV_NAME, "red5_rule", self.red5_rule, RED5_RULES)
        check_bool(ENV_NAME, "joker_consumes_turn", self.joker_consumes_turn)
        check_choice(ENV_NAME, "quartet_rule", self.quartet_rule, QUARTET_RULES)
        check_choice(ENV_NAME, "starter_rule", self.starter_rule, STARTER_RULES)
        check_int(ENV_NAME, "max_turns", self.max_turns, 1, MAX_TURNS_LIMIT)


def state_fields(params: GinSlaughtreParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding."""
    n = NUM_PLAYERS
    slots = max(1, params.num_downcards)  # one unused slot keeps the field non-empty without downcards
    return header_fields(n) + [
        # --- parameters (constant during a game)
        StateField("min_set_size", np.int32, (), "smallest set of one rank: 3, or 2 with pairs"),
        StateField("stack_effects", np.bool_, (), "every black 5 and Jack of a trick acts, not only its top card"),
        StateField("num_downcards", np.int32, (), "face-down cards per seat: 0, or 3 in the downcard variant"),
        StateField("red5_rule", np.int8, (), "index into RED5_RULES: 0 play_leq5, 1 draw_until_leq5"),
        StateField("joker_consumes_turn", np.bool_, (), "the pickup forced by a Joker is the opponent's turn"),
        StateField("quartet_rule", np.int8, (), "index into QUARTET_RULES: 0 rank, 1 rank_or_suit"),
        StateField("starter_rule", np.int8, (), "index into STARTER_RULES: 0 lowest_card, 1 left_of_dealer"),
        StateField("max_turns", np.int32, (), "agent decisions after which the game is truncated"),
        # --- game
        StateField("phase", np.int8, (), "PHASE_ARRANGE 0, PHASE_PLAY 1 or PHASE_OVER 2"),
        StateField("dealer", np.int32, (), "seat of the dealer; the other seat is on its left"),
        StateField(
            "location", np.int8, (NUM_CARDS,),
            "per card id: LOC_STOCK 0, LOC_PILE 1, LOC_BURNT 2, LOC_HAND 3 + seat, LOC_UP 5 + seat, "
            "LOC_DOWN 7 + seat",
        ),
        StateField("stock", np.int8, (NUM_CARDS,), "card ids; stock[stock_size - 1] is drawn next"),
        StateField("stock_size", np.int32, (), "cards in the stock"),
        StateField("pile", np.int8, (NUM_CARDS,), "card ids bottom to top; pile[pile_size - 1] is the top card"),
        StateField("pile_size", np.int32, (), "cards in the pile"),
        StateField("burnt_count", np.int32, (), "cards burnt (out of the game)"),
        StateField("hand_count", np.int32, (n,), "hand cards per seat"),
        StateField("up_count", np.int32, (n,), "upcards per seat"),
        StateField("down_count", np.int32, (n,), "downcards per seat (num_downcards=3 only)"),
        StateField(
            "downcards", np.int8, (n, slots),
            "per seat and slot: the card id face down, NO_CARD -1 once turned over (one unused slot without "
            "downcards)",
        ),
        StateField(
            "known", np.uint8, (NUM_CARDS,),
            "per card id, 1: a hand card that is public (taken with the pile, declared starter card, dealt upcard "
            "moved to the hand, failed downcard)",
        ),
        StateField("restricted", np.bool_, (), "the player to act must play 5 or lower (red 5), for one action"),
        StateField(
            "pending_arrangement", np.int32, (n,),
            "per seat: the arrange action chosen, -1 before; hidden until both chose",
        ),
        StateField("starter_card", np.int8, (), "card id that decided who starts, NO_CARD -1 with left_of_dealer"),
        StateField("winner", np.int32, (), "seat that shed all its cards, -1 if none (yet)"),
        StateField(
            "hand_events", np.uint8, (n, MAX_HAND_EVENTS),
            "per seat, in order, what the other seat saw happen to its hidden hand cards (public): EVENT_SHOWN + "
            "card id (a hidden card shown: played, made an upcard, declared starter), EVENT_DRAWN (a card drawn "
            "unseen), EVENT_CHAIN_DRAWN (drawn by draw effects, see EVENT_CHAIN), EVENT_STUCK + floor rank or "
            "EVENT_STUCK_RESTRICTED (drew when no trick was legal), EVENT_STARTER + case (the starter search), "
            "EVENT_CHAIN + effects (a trick's draw effects against it); unused entries 0",
        ),
        StateField("hand_event_count", np.int32, (n,), "per seat, the entries of hand_events in use"),
    ]


def fill_params(record: np.record, params: GinSlaughtreParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = NUM_PLAYERS
    record.min_set_size = params.min_set_size
    record.stack_effects = params.stack_effects
    record.num_downcards = params.num_downcards
    record.red5_rule = RED5_RULES.index(params.red5_rule)
    record.joker_consumes_turn = params.joker_consumes_turn
    record.quartet_rule = QUARTET_RULES.index(params.quartet_rule)
    record.starter_rule = STARTER_RULES.index(params.starter_rule)
    record.max_turns = params.max_turns
