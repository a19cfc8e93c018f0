"""Slap in words for a person following the game: what each decision did (the cards played, who slapped, who took
the pile) and who won. Everything named here is public: a window's choices only once it closes, no stack's order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.picture import count_words
from cardenvs.games.slap.params import REWARD_SCHEMES, SlapParams
from cardenvs.games.slap.render import card_face, describe_step
from cardenvs.games.slap.rules import PHASE_WINDOW, pile_cards

#: every seat may read a line
EVERY_SEAT: tuple[int, ...] = ()
#: the reward scheme that pays each seat its share of the cards
SHARE_OF_CARDS = REWARD_SCHEMES[1]


def _label(card: int) -> str:
    return card_face(card).label


def move_words(before: np.record, after: np.record, params: SlapParams, action: int) -> list[tuple[str, tuple]]:
    """What one decision did: the window it closed (who slapped, or that everybody passed), the pile taken, the
    cards played after it (by whom), a challenge started, a seat knocked out.

    Args:
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken (its own name says what the seat chose).
    """
    seats = range(int(after.num_players))
    lines = list(describe_step(before, after, params))
    closes = int(before.phase) == PHASE_WINDOW and int(before.window_index) == int(before.window_size) - 1
    if closes and not any(int(after.last_slapped[seat]) for seat in seats):
        lines.append("the slap window closes: everybody passed")
    for seat in seats:
        gained = int(after.stack_size[seat]) - int(before.stack_size[seat])
        if gained > 0 and seat != int(after.last_winner):
            lines.append(f"player_{seat} takes the pile ({count_words(gained, 'card')})")
        if int(after.eliminated[seat]) and not int(before.eliminated[seat]):
            lines.append(f"player_{seat} is out: a wrong slap with no cards left")
    played = int(after.cards_played) - int(before.cards_played)
    if played > 0:
        pile = pile_cards(after)
        face_up = pile[len(pile) - int(after.face_up):]
        named = [_label(card) for card in face_up[-played:]]
        if played == 1 and named and int(after.played_last) != NO_PLAYER:
            lines.append(f"player_{int(after.played_last)} plays {named[0]}")
        elif named:
            more = f" and {played - len(named)} more" if played > len(named) else ""
            last = f" (the last by player_{int(after.played_last)})" if int(after.played_last) != NO_PLAYER else ""
            lines.append(f"{count_words(played, 'card')} played: {' '.join(named)}{more}{last}")
        else:
            lines.append(f"{count_words(played, 'card')} played, then taken with the pile")
    if int(after.challenger) != NO_PLAYER and int(after.challenger) != int(before.challenger):
        lines.append(f"player_{int(after.challenger)} played a face card: player_{int(after.payer)} must answer "
                     f"with a face card within {count_words(int(after.chances_left), 'card')}")
    return [(line, EVERY_SEAT) for line in lines]


def final_words(state: np.record, params: SlapParams, names: Sequence[str]) -> str:
    """Who won and why: the player holding every card, the last player in, a draw, or the card limit.

    Args:
        state: the final record.
        params: the game's parameters.
        names: each seat's words.
    """
    seats = range(int(state.num_players))
    still_in = [seat for seat in seats if not int(state.eliminated[seat])]
    holder = [seat for seat in seats if int(state.stack_size[seat]) == int(state.cards_in_play)]
    if bool(state.truncated):
        held = ", ".join(f"{names[seat]} {int(state.stack_size[seat])}" for seat in seats)
        shares = params.reward_scheme == SHARE_OF_CARDS
        score = "each scores its share of the cards" if shares else "nobody wins"
        return (f"No winner: the game was stopped after {params.max_cards_played:,} cards played, so {score} "
                f"(cards held: {held}).")
    if holder and int(state.pile_size) == 0:
        return f"{names[holder[0]]} wins, holding all {int(state.cards_in_play)} cards."
    if len(still_in) == 1:
        return f"{names[still_in[0]]} wins as the last player not knocked out."
    return "A draw: everyone still in was knocked out in the same slap window."
