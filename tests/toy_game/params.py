"""High Card's parameters and state record (a toy game: how a game is written, for the generic tests only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_int, header_fields

ENV_NAME = "toy_v0"
NUM_PLAYERS = 2
MIN_DECK = 4
MAX_DECK = 16


@dataclass(frozen=True)
class ToyParams:
    """High Card's parameters.

    Attributes:
        deck_size: cards in the deck, valued 0 to ``deck_size - 1`` (4–16).
        hand_size: cards dealt to each player, one trick each (1 to ``deck_size // 2``).
    """

    deck_size: int = 6
    hand_size: int = 2

    def validate(self) -> None:
        check_int(ENV_NAME, "deck_size", self.deck_size, MIN_DECK, MAX_DECK)
        check_int(ENV_NAME, "hand_size", self.hand_size, 1, self.deck_size // NUM_PLAYERS)


def state_fields(params: ToyParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding."""
    deck = params.deck_size
    return [
        *header_fields(NUM_PLAYERS),
        StateField("deck_size", np.int32, (), "parameter: cards in the deck"),
        StateField("hand_size", np.int32, (), "parameter: cards dealt to each player"),
        StateField("hand", np.int8, (NUM_PLAYERS, deck), "1 where the seat holds that card"),
        StateField("played", np.int8, (deck,), "1 where the card has been played"),
        StateField("lead_card", np.int8, (), "the card led to the current trick, NO_CARD (-1) if none"),
        StateField("points", np.int32, (NUM_PLAYERS,), "tricks won by each seat"),
        StateField("tricks_played", np.int32, (), "tricks completed"),
    ]


def fill_params(record: np.record, params: ToyParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = NUM_PLAYERS
    record.deck_size = params.deck_size
    record.hand_size = params.hand_size
