"""Slap's parameters, their validation, and the state record built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_bool, check_choice, check_int, header_fields
from cardenvs.games.slap.cards import ACE, JACK, KING, MAX_CARDS, NUM_FRENCH_CARDS, NUM_JOKERS, NUM_RANK_IDS, QUEEN

ENV_NAME = "slap_v0"
MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_CHANCES = 9  # the most chances a face card may give
MAX_PENALTY = 5  # the most cards one wrong slap may burn
MAX_CARDS_PLAYED_LIMIT = 10_000_000

# The seven slap rules, in the order of state.slap_rule_on and of the observation's `slap_rules` view.
SLAP_RULES = ("double", "sandwich", "top_bottom", "tens", "joker", "four_in_a_row", "marriage")
NUM_SLAP_RULES = len(SLAP_RULES)

# Option strings, in the order of the int codes stored in the record.
SLAP_TIEBREAKS = ("uniform", "reaction_noise")
WINDOW_MODES = ("every_card", "slappable_only")
REWARD_SCHEMES = ("winner_takes_all", "share_of_cards")


@dataclass(frozen=True)
class SlapParams:
    """Slap's parameters (docs/rules/slap.md, "Parameters").

    Attributes:
        num_players: seats, 2–8.
        jokers: add the two Jokers to the pack (and make the Joker slap rule possible).
        drop_remainder: deal only equal stacks; the cards left over stay out of the game (default: the
            seats dealt first take one more).
        chances_jack, chances_queen, chances_king, chances_ace: cards the next player gets to find a face
            card after a J, Q, K, A (default 1, 2, 3, 4).
        penalty: cards a wrong slapper burns to the bottom of the pile.
        slap_double … slap_marriage: switch each of the seven slap rules on or off.
        slap_tiebreak: how simultaneous correct slaps are settled: ``"uniform"`` (one seeded draw among the
            slappers) or ``"reaction_noise"`` (each slapper's reaction time is drawn from Exp(1); fastest wins).
        windows: ``"every_card"`` (a slap window after every card) or ``"slappable_only"`` (only after a card
            that makes the pile slappable; this tells the players that the pile is slappable).
        expose_play_action: the player to play a card is asked first, with PLAY as its one legal action.
        reward_scheme: ``"winner_takes_all"`` (+1 winner, −1 the rest; truncation 0) or ``"share_of_cards"``
            (each seat's share of the cards when the game ends or is truncated).
        max_cards_played: truncate the game once this many cards have been played.
    """

    num_players: int = 4
    jokers: bool = False
    drop_remainder: bool = False
    chances_jack: int = 1
    chances_queen: int = 2
    chances_king: int = 3
    chances_ace: int = 4
    penalty: int = 1
    slap_double: bool = True
    slap_sandwich: bool = True
    slap_top_bottom: bool = True
    slap_tens: bool = True
    slap_joker: bool = True
    slap_four_in_a_row: bool = True
    slap_marriage: bool = True
    slap_tiebreak: str = "uniform"
    windows: str = "every_card"
    expose_play_action: bool = False
    reward_scheme: str = "winner_takes_all"
    max_cards_played: int = 10_000

    def validate(self) -> None:
        check_int(ENV_NAME, "num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        for name in ("chances_jack", "chances_queen", "chances_king", "chances_ace"):
            check_int(ENV_NAME, name, getattr(self, name), 1, MAX_CHANCES)
        check_int(ENV_NAME, "penalty", self.penalty, 0, MAX_PENALTY)
        check_int(ENV_NAME, "max_cards_played", self.max_cards_played, 1, MAX_CARDS_PLAYED_LIMIT)
        for name in ("jokers", "drop_remainder", "expose_play_action", *(f"slap_{r}" for r in SLAP_RULES)):
            check_bool(ENV_NAME, name, getattr(self, name))
        check_choice(ENV_NAME, "slap_tiebreak", self.slap_tiebreak, SLAP_TIEBREAKS)
        check_choice(ENV_NAME, "windows", self.windows, WINDOW_MODES)
        check_choice(ENV_NAME, "reward_scheme", self.reward_scheme, REWARD_SCHEMES)

    @property
    def deck_size(self) -> int:
        """Cards in the pack: 52, or 54 with Jokers."""
        return NUM_FRENCH_CARDS + (NUM_JOKERS if self.jokers else 0)

    def rule_flags(self) -> tuple[bool, ...]:
        """On/off of each slap rule, in SLAP_RULES order."""
        return tuple(bool(getattr(self, f"slap_{rule}")) for rule in SLAP_RULES)


def state_fields(params: SlapParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding.

    Stacks and the pile are ring buffers of capacity MAX_CARDS (54), so taking the top card, adding cards at
    the bottom and burning under the pile never move other cards.
    """
    n = params.num_players
    return header_fields(n) + [
        # --- parameters (constant during a game)
        StateField("deck_size", np.int32, (), "parameter: cards in the pack, 52, or 54 with jokers"),
        StateField("drop_remainder", np.bool_, (), "parameter: only equal stacks are dealt (rule:deal)"),
        StateField(
            "chances_of_rank", np.int32, (NUM_RANK_IDS,),
            "parameter: chances a card of each rank gives, by rank id A=0 … K=12, Joker=13 (0: a number card)",
        ),
        StateField("penalty", np.int32, (), "parameter: cards a wrong slapper burns (rule:wrong_slap)"),
        StateField(
            "slap_rule_on", np.uint8, (len(SLAP_RULES),),
            "parameter: 1 if the slap rule is on, in SLAP_RULES order (double, sandwich, top_bottom, tens, joker, "
            "four_in_a_row, marriage)",
        ),
        StateField("slap_tiebreak", np.int8, (), "parameter: index into SLAP_TIEBREAKS (0 uniform, 1 reaction_noise)"),
        StateField(
            "window_mode", np.int8, (), "parameter: index into WINDOW_MODES (0 every_card, 1 slappable_only)"
        ),
        StateField("expose_play_action", np.bool_, (), "parameter: the seat to play is asked, PLAY its only action"),
        StateField(
            "reward_scheme", np.int8, (), "parameter: index into REWARD_SCHEMES (0 winner_takes_all, 1 share_of_cards)"
        ),
        StateField("max_cards_played", np.int32, (), "parameter: the game is truncated after this many cards"),
        # --- the deal (chance outcomes, kept for replays)
        StateField("dealer", np.int32, (), "seat of the dealer; its left neighbour is dealt to first"),
        StateField(
            "deck", np.int8, (MAX_CARDS,),
            "card ids of the pack in dealing order; NO_CARD (-1) past deck_size, and all -1 for a stacks deal",
        ),
        StateField("in_play", np.uint8, (MAX_CARDS,), "per card id: 1 if it is in the game, 0 if it was not dealt"),
        StateField("cards_in_play", np.int32, (), "how many cards are in the game"),
        # --- the table
        StateField("phase", np.int8, (), "PHASE_WINDOW (0), PHASE_PLAY (1, expose_play_action only) or PHASE_OVER (2)"),
        StateField(
            "stack", np.int8, (n, MAX_CARDS), "per seat: the face-down stack, a ring buffer of card ids from stack_top"
        ),
        StateField("stack_top", np.int32, (n,), "per seat: ring index of the top card of its stack"),
        StateField("stack_size", np.int32, (n,), "per seat: cards in its stack"),
        StateField("eliminated", np.uint8, (n,), "per seat: 1 if out for good (a wrong slap while holding no cards)"),
        StateField("pile", np.int8, (MAX_CARDS,), "the centre pile, a ring buffer of card ids from pile_bottom"),
        StateField("pile_bottom", np.int32, (), "ring index of the pile's bottom card"),
        StateField("pile_size", np.int32, (), "cards in the pile, face-down burnt ones included"),
        StateField("face_up", np.int32, (), "how many cards at the pile's top are face up; those below were burnt"),
        StateField(
            "slap_matches", np.int32, (),
            "bit r set: slap rule SLAP_RULES[r] is on and matches the pile now (never observed)",
        ),
        StateField("to_play", np.int32, (), "seat that plays the next card"),
        StateField("played_last", np.int32, (), "seat that played the pile's top card (NO_PLAYER, -1, when none)"),
        StateField("challenger", np.int32, (), "seat whose face card is being answered (NO_PLAYER, -1, when none)"),
        StateField("payer", np.int32, (), "seat answering the challenge (NO_PLAYER, -1, when none)"),
        StateField("chances_left", np.int32, (), "cards the payer may still play to find a face card (0: none)"),
        StateField("cards_played", np.int32, (), "cards played onto the pile this game"),
        # --- the slap window (choices are secret until the window is resolved)
        StateField(
            "window_order", np.int32, (n,), "seats asked in the open window, in asking order (NO_PLAYER after the last)"
        ),
        StateField("window_size", np.int32, (), "how many seats the open window asks"),
        StateField("window_index", np.int32, (), "position in window_order of the seat asked now"),
        StateField(
            "slap_choice", np.uint8, (n,), "per seat: 1 if it slapped in the open window so far; secret until resolved"
        ),
        # --- the last resolved window (public once resolved, kept until the next one is: rule:slap_window)
        StateField(
            "last_slapped", np.uint8, (n,), "per seat: 1 if it slapped in the last resolved window (rule:slap_window)"
        ),
        StateField(
            "last_winner", np.int32, (), "seat that won the pile by a slap in the last resolved window (NO_PLAYER, -1)"
        ),
        StateField(
            "reaction_time", np.float32, (n,),
            "per seat: its reaction_noise draw as a correct slapper of the last resolved window (0 otherwise)",
        ),
        StateField("burnt_total", np.int32, (), "cards burnt by wrong slaps this game"),
        # --- what the table has seen (the same for every seat: nothing in the game is private)
        StateField(
            "seen", np.uint8, (MAX_CARDS,),
            "per card id: 1 once it has been played face up; every seat saw it, and each move of it since is public",
        ),
    ]


#: fields written by fill_params (constant during a game); every other field but ``rng`` and ``num_players``
#: belongs to the game in progress.
PARAM_FIELDS = (
    "deck_size",
    "drop_remainder",
    "chances_of_rank",
    "penalty",
    "slap_rule_on",
    "slap_tiebreak",
    "window_mode",
    "expose_play_action",
    "reward_scheme",
    "max_cards_played",
)


def fill_params(record: np.record, params: SlapParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = params.num_players
    record.deck_size = params.deck_size
    record.drop_remainder = params.drop_remainder
    record.chances_of_rank[:] = 0
    record.chances_of_rank[JACK] = params.chances_jack
    record.chances_of_rank[QUEEN] = params.chances_queen
    record.chances_of_rank[KING] = params.chances_king
    record.chances_of_rank[ACE] = params.chances_ace
    record.penalty = params.penalty
    record.slap_rule_on[:] = params.rule_flags()
    record.slap_tiebreak = SLAP_TIEBREAKS.index(params.slap_tiebreak)
    record.window_mode = WINDOW_MODES.index(params.windows)
    record.expose_play_action = params.expose_play_action
    record.reward_scheme = REWARD_SCHEMES.index(params.reward_scheme)
    record.max_cards_played = params.max_cards_played


assert MAX_CARDS == NUM_FRENCH_CARDS + NUM_JOKERS
