"""Slabberjan in words for a person following the game: what each decision did (a swap and what it gave, a
matador's refusal and its effect, a bag draw, the showdown and who paid) and who won.

A swap's pieces are told only to the two seats that swapped (rule:exchange); everything else named here is public
(announcements, set-aside pieces, showdowns, chips).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardenvs.core.picture import count_words
from cardenvs.games.slabberjan.params import SlabberjanParams
from cardenvs.games.slabberjan.pieces import BIRD, CAT, INN, KNIGHT, NO_PIECE, kind_name
from cardenvs.games.slabberjan.rules import ACT_BAGGED, PHASE_OVER, STAND

#: every seat may read a line
EVERY_SEAT: tuple[int, ...] = ()
#: what each matador does to an attacker that runs into it (rule:inn, rule:cat, rule:bird, rule:knight)
MATADOR_EFFECTS = {
    INN: "the attempt goes by the Inn to the next player",
    CAT: "Meow: the attacker pays a chip and every exchange of the round is undone",
    BIRD: "the non-dealers' turns end",
    KNIGHT: "the attacker pays a chip and the round goes straight to the showdown",
}


def _the(kind: int) -> str:
    return f"the {kind_name(kind)}"


def move_words(before: np.record, after: np.record, params: SlabberjanParams,
               action: int) -> list[tuple[str, tuple[int, ...]]]:
    """What one decision did.

    Args:
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken.
    """
    seat = int(before.current_player)
    seats = range(int(after.num_players))
    new_round = int(after.round_number) != int(before.round_number) or int(after.phase) == PHASE_OVER
    lines: list[tuple[str, tuple[int, ...]]] = []
    for other in seats:
        kind = int(after.announced[other])
        if kind != NO_PIECE and int(before.announced[other]) != kind and other != seat:
            effect = MATADOR_EFFECTS.get(kind, "")
            lines.append((f"player_{other} refuses: it holds {_the(kind)}" + (f"; {effect}" if effect else ""),
                          EVERY_SEAT))
    if action != STAND and not new_round:
        lines += _exchange(before, after, seat)
    lines += _chips(before, after)
    if new_round:
        lines += _showdown(before, after)
    return lines


def _exchange(before: np.record, after: np.record, seat: int) -> list[tuple[str, tuple[int, ...]]]:
    """A swap (its pieces told to the two seats only) or a bag draw."""
    if int(after.acted[seat]) == ACT_BAGGED:
        drawn = [kind for kind in range(len(after.set_aside))
                 if int(after.set_aside[kind]) > int(before.set_aside[kind])]
        aside = ", ".join(_the(kind) for kind in drawn)
        lines = [(f"player_{seat} draws from the bag" + (f"; set aside face up: {aside}" if aside else ""),
                  EVERY_SEAT)]
        if int(after.piece[seat]) != int(before.piece[seat]):
            lines.append((f"player_{seat} now holds {_the(int(after.piece[seat]))}", (seat,)))
        return lines
    # the seat whose piece it now holds and who holds its piece (two pieces of a kind: what it learnt changed)
    partners = [other for other in range(int(after.num_players)) if other != seat
                and int(after.piece[other]) == int(before.piece[seat])
                and int(after.piece[seat]) == int(before.piece[other])
                and (int(before.piece[other]) != int(before.piece[seat])
                     or int(after.known[seat, other]) != int(before.known[seat, other]))]
    if not partners:
        return []
    other = partners[0]
    return [(f"player_{seat} swaps pieces with player_{other}", EVERY_SEAT),
            (f"player_{seat} gives {_the(int(before.piece[seat]))} to player_{other} and gets "
             f"{_the(int(before.piece[other]))}", (seat, other))]


def _chips(before: np.record, after: np.record) -> list[tuple[str, tuple[int, ...]]]:
    """Chips paid, debts owed and players out."""
    lines = []
    for seat in range(int(after.num_players)):
        paid = int(before.chips[seat]) - int(after.chips[seat])
        if paid > 0:
            lines.append((f"player_{seat} pays {count_words(paid, 'chip')} ({int(after.chips[seat])} left)",
                          EVERY_SEAT))
        if int(after.owes[seat]) and not int(before.owes[seat]):
            lines.append((f"player_{seat} must pay with no chips left: it owes one and is out after the round",
                          EVERY_SEAT))
        if int(before.in_game[seat]) and not int(after.in_game[seat]):
            lines.append((f"player_{seat} is out of the game", EVERY_SEAT))
    return lines


def _showdown(before: np.record, after: np.record) -> list[tuple[str, tuple[int, ...]]]:
    """The showdown that ended the round (the pieces shown and who paid), or a redeal after fool over fool."""
    seats = range(int(after.num_players))
    shown = [seat for seat in seats if int(after.shown[seat]) != NO_PIECE]
    unchanged = all(int(after.shown[s]) == int(before.shown[s]) and int(after.paid[s]) == int(before.paid[s])
                    for s in seats)
    if not shown or (unchanged and int(after.phase) != PHASE_OVER):
        return [("fool over fool: the round is cancelled and dealt again", EVERY_SEAT)]
    pieces = ", ".join(f"player_{seat} {_the(int(after.shown[seat]))}" + (" (pays)" if int(after.paid[seat]) else "")
                       for seat in shown)
    return [(f"showdown: {pieces}", EVERY_SEAT)]


def final_words(state: np.record, params: SlabberjanParams, names: Sequence[str]) -> str:
    """Who won: the last player with chips, or the players who went out together at the last showdown.

    Args:
        state: the final record.
        params: the game's parameters.
        names: each seat's words.
    """
    seats = range(int(state.num_players))
    still_in = [seat for seat in seats if int(state.in_game[seat])]
    if len(still_in) == 1:
        winner = still_in[0]
        return (f"{names[winner]} wins as the last player in, with {count_words(int(state.chips[winner]), 'chip')}; "
                "every other player ran out of chips.")
    last = max(int(state.out_order[seat]) for seat in seats)
    together = [names[seat] for seat in seats if int(state.out_order[seat]) == last]
    return f"A draw: {' and '.join(together)} went out together at the last showdown, so nobody is left to win."
