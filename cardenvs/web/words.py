"""What the web table says in words: card names as the pictures draw them, the moves the rules make by
themselves, and how a finished game ended.

These read the games' state records (field names of each game's ``state_fields``) and never change them.
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
#: Clabber's teams (seats s and s + 2 play together)
CLABBER_TEAMS = 2


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


def engine_moves(game: Any, before: np.record, after: np.record, seat: int, action: int) -> list[str]:
    """The moves the rules made by themselves after ``seat``'s ``action`` (a card with no alternative played
    for its holder, a meld shown), one line each, from copies of the record before and after the step.

    Args:
        game: the game (its ``name`` picks the reading).
        before: the state record before the step.
        after: the state record after it.
        seat: the seat that decided.
        action: its action.
    """
    if game.name != "clabber":
        return []
    return _clabber_moves(before, after, seat, action)


def _clabber_cards(mask: int) -> list[str]:
    from cardenvs.games.clabber.cards import bits_to_cards, card_name

    return [card_name(card) for card in bits_to_cards(mask)]


def _clabber_moves(before: np.record, after: np.record, seat: int, action: int) -> list[str]:
    from cardenvs.games.clabber.cards import NUM_CARDS
    from cardenvs.games.clabber.rules import MELD_DECLARED

    seats = len(before.played)
    same_hand = int(after.hands_dealt) == int(before.hands_dealt)
    lines = []
    for offset in range(seats):
        other = (seat + offset) % seats
        if int(before.meld_status[other]) != MELD_DECLARED and same_hand and \
                int(after.meld_status[other]) == MELD_DECLARED:
            lines.append(f"player_{other} shows the meld {' '.join(_clabber_cards(int(after.meld_cards[other])))} "
                         f"({int(after.meld_points[other])} points)")
        # the cards the seat played in the step: new ones this hand, or every card it still held when the
        # hand was played out to its end by force
        played = (int(after.played[other]) & ~int(before.played[other])) if same_hand else int(before.hand[other])
        if other == seat and 0 <= action < NUM_CARDS:
            played &= ~(1 << action)
        if played:
            lines.append(f"player_{other} plays {' '.join(_clabber_cards(played))} (forced: no other card)")
    return [card_symbols(line) for line in lines]


def trick_caption(game: Any, state: np.record) -> str:
    """Who played each card of the trick on the table (Clabber: the picture labels only its leader), as
    ``player_1 J♥ · player_2 9♠``; '' where the game has no trick or it is empty.

    Args:
        game: the game.
        state: the state record shown.
    """
    if game.name != "clabber" or int(state.leader) < 0:
        return ""
    from cardenvs.games.clabber.cards import card_name

    seats = len(state.trick)
    played = [(int(state.leader) + position) % seats for position, card in enumerate(state.trick) if int(card) >= 0]
    return " · ".join(f"player_{seat} {card_symbols(card_name(int(state.trick[(seat - int(state.leader)) % seats])))}"
                      for seat in played)


def outcome(game: Any, params: Any, state: np.record, rewards: list[float], human: int | None,
            last_events: list[str]) -> str:
    """Who won and why, in the game's terms, for a finished game.

    Args:
        game: the game.
        params: its parameters.
        state: the final state record.
        rewards: each seat's final reward.
        human: the person's seat, or None.
        last_events: what the game announced about the last decision (its ``describe_step``).
    """
    best = max(rewards)
    winners = [seat for seat, reward in enumerate(rewards) if reward == best]
    if len(winners) == len(rewards):
        verdict = "nobody wins, a draw"
    elif game.name == "clabber":
        verdict = f"team {' + '.join(seat_name(s, human) for s in winners)} wins"
    else:
        verdict = f"{' and '.join(seat_name(s, human) for s in winners)} win{'s' if len(winners) == 1 else ''}"
    reasons = [card_symbols(event) for event in last_events]
    reasons += _game_terms(game, params, state)
    if bool(state.truncated):
        limits = [f"{name} = {value}" for name, value in vars(params).items()
                  if name.startswith("max_") and isinstance(value, int)]
        reasons.append(f"the game was stopped at its limit ({', '.join(limits) or 'a step limit'})")
    why = "; ".join(reasons)
    return f"{verdict}." + (f" {why}." if why else "")


def _game_terms(game: Any, params: Any, state: np.record) -> list[str]:
    """The final standing as the game counts it: team scores, chips, cards, the winner of the race."""
    if game.name == "clabber":
        scores = ", ".join(f"team {t} + {t + CLABBER_TEAMS} {int(state.scores[t])}" for t in range(CLABBER_TEAMS))
        scores = scores.replace("team 0 + 2", "team player_0 + player_2").replace("team 1 + 3",
                                                                                    "team player_1 + player_3")
        if params.single_hand:
            return [f"one hand played: {scores}"]
        return [f"final scores {scores} (the game ends when a team reaches {params.target_score})"]
    if game.name == "slabberjan":
        still_in = [seat for seat, out in enumerate(state.out_order) if int(out) == 0]
        chips = ", ".join(f"player_{s} {int(c)}" for s, c in enumerate(state.chips))
        if len(still_in) == 1:
            return [f"player_{still_in[0]} is the last player left in; the others are out", f"chips: {chips}"]
        return [f"chips at the end: {chips}"]
    if game.name == "slap":
        cards = ", ".join(f"player_{s} {int(c)}" for s, c in enumerate(state.stack_size))
        return [f"cards held at the end: {cards}"]
    if game.name == "stabby_jack" and int(state.winner) >= 0 and not bool(state.truncated):
        return [f"player_{int(state.winner)} met a winning condition"]
    return []
