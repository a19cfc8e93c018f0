"""Gin Slaughtre in words for a person following the game: what each decision did (the public events of
:func:`~cardenvs.games.gin_slaughtre.render.describe_step`: burns, pick-ups, forced draws, turned downcards, extra
turns) and who won.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardenvs.core.picture import count_words
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.render import describe_step

#: every seat may read a line
EVERY_SEAT: tuple[int, ...] = ()


def move_words(before: np.record, after: np.record, params: GinSlaughtreParams,
               action: int) -> list[tuple[str, tuple[int, ...]]]:
    """What one decision did beyond the cards its name lays: the step's public events, for every seat.

    Args:
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken.
    """
    return [(line, EVERY_SEAT) for line in describe_step(before, after, params)]


def _cards_left(state: np.record, seat: int) -> int:
    return int(state.hand_count[seat]) + int(state.up_count[seat]) + int(state.down_count[seat])


def final_words(state: np.record, params: GinSlaughtreParams, names: Sequence[str]) -> str:
    """Who won and why: the first to shed every card, or the turn limit.

    Args:
        state: the final record.
        params: the game's parameters.
        names: each seat's words.
    """
    left = ", ".join(f"{names[seat]} {count_words(_cards_left(state, seat), 'card')}" for seat in range(NUM_PLAYERS))
    winner = int(state.winner)
    if winner >= 0 and not bool(state.truncated):
        loser = NUM_PLAYERS - 1 - winner
        return (f"{names[winner]} wins, the first to play every card; {names[loser]} still holds "
                f"{count_words(_cards_left(state, loser), 'card')}.")
    return f"A draw: the game was stopped after {params.max_turns:,} turns with cards left ({left})."
