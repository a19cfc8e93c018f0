"""What the web table says in words: card names as the pictures draw them, each decision's move-list lines, how a
finished game ended and the caption under a picture.

The words of each game live with the game (``Game.move_words``, ``Game.final_words``, ``Game.table_caption``, in
its ``words.py``); these functions only choose among them and fall back to what every game has. They read the
games' state records and never change them.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import numpy as np

#: suit letters of the games' text names -> the symbols the pictures draw
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: a card's text name: a rank, then a suit letter (Slap writes it in lower case)
_CARD_NAME = re.compile(r"\b(10|[2-9AKQJT])([CDHScdhs])\b")


def card_symbols(text: str) -> str:
    """``text`` with card names such as ``9C`` or ``Ah`` written as the pictures show them (``9♣``, ``A♥``)."""
    return _CARD_NAME.sub(lambda match: match.group(1) + SUIT_SYMBOLS[match.group(2).upper()], text)


def action_namer(game: Any) -> Callable[[Any, int, np.record], str]:
    """``name(params, action, state)``: the game's action name, given the state where the game can name cards
    by it (Gin Slaughtre's arrangements name the upcards they make instead of their places by id).

    Args:
        game: the game.
    """
    if "state" in inspect.signature(game.action_name).parameters:
        return lambda params, action, state: game.action_name(params, action, state)
    return lambda params, action, state: game.action_name(params, action)


def seat_name(seat: int, human: int | None) -> str:
    """``player_N``, with ``(you)`` for the person's seat."""
    return f"player_{seat}" + (" (you)" if seat == human else "")


def move_lines(game: Any, before: np.record, after: np.record, params: Any,
               action: int) -> list[tuple[str, tuple[int, ...]]]:
    """What one decision did, as move-list lines with the seats that may read each (``()``: every seat), cards
    named as the pictures name them: the game's ``move_words``, or its public ``describe_step`` lines.

    Args:
        game: the game.
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken.
    """
    if game.move_words is not None:
        lines = game.move_words(before, after, params, action)
    else:
        lines = [(line, ()) for line in game.describe_step(before, after, params)]
    return [(card_symbols(text), tuple(seats)) for text, seats in lines]


def outcome(game: Any, params: Any, state: np.record, rewards: list[float], human: int | None) -> str:
    """One sentence of who won a finished game and why: the game's ``final_words``, or who has the best reward.

    Args:
        game: the game.
        params: its parameters.
        state: the final state record.
        rewards: each seat's final reward.
        human: the person's seat, or None.
    """
    names = [seat_name(seat, human) for seat in range(len(rewards))]
    if game.final_words is not None:
        return card_symbols(game.final_words(state, params, names))
    best = max(rewards)
    winners = [names[seat] for seat, reward in enumerate(rewards) if reward == best]
    if len(winners) == len(rewards):
        return "A draw: every player ends with the same reward."
    return f"{' and '.join(winners)} win{'s' if len(winners) == 1 else ''} with the best reward ({best:+g})."


def caption(game: Any, state: np.record) -> str:
    """The line under the table picture naming what it leaves out (``""``: nothing; the game's ``table_caption``).

    Args:
        game: the game.
        state: the state record shown.
    """
    return "" if game.table_caption is None else game.table_caption(state)
