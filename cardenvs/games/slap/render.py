"""Slap as text and as a picture: the public table only (no stack order, no choices of an unresolved window)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import NO_PLAYER
from cardenvs.core.picture import Card, Pile, Seat, Table, count_words
from cardenvs.games.slap.cards import FIRST_JOKER, JOKER_RANK, NUM_SUITS, RANK_NAMES, card_name
from cardenvs.games.slap.params import SlapParams
from cardenvs.games.slap.rules import PHASE_PLAY, PHASE_WINDOW, pile_cards

SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")  # in suit id order (c d h s)


def render(state: np.record, params: SlapParams) -> str:
    """One line per seat with what everybody can see, then the pile and the challenge."""
    n = int(state.num_players)
    lines = [f"Slap, {int(state.cards_played)} cards played, dealer player_{int(state.dealer)}"]
    for seat in range(n):
        notes = (["out"] if state.eliminated[seat] else []) + _seat_notes(state, seat)
        if seat == state.current_player:
            notes.append("to act")
        held = int(state.stack_size[seat])
        lines.append(f"  player_{seat}: {held} card{'' if held == 1 else 's'}  " + "; ".join(notes))
    pile = pile_cards(state)
    face_up = int(state.face_up)
    shown = " ".join(card_name(card) for card in pile[len(pile) - face_up:])
    lines.append(f"  pile: {len(pile) - face_up} face down, face up (bottom → top): {shown or 'none'}")
    if state.phase == PHASE_WINDOW:
        lines.append(f"  slap window: {int(state.window_index)} of {int(state.window_size)} seats have chosen")
    else:
        lines.append(f"  {_phase_line(state)}")
    assert NO_PLAYER == -1
    return "\n".join(lines)


def _seat_notes(state: np.record, seat: int) -> list[str]:
    """What the table shows about a seat's part in the current pile and the last slap window."""
    notes = []
    if seat == state.played_last and state.face_up > 0:
        notes.append("played the top card")
    if seat == state.challenger:
        notes.append("challenger")
    if seat == state.payer:
        notes.append(f"pays, {int(state.chances_left)} chance(s) left")
    if state.last_slapped[seat]:
        notes.append("won the last slap" if seat == state.last_winner else "slapped in the last window")
    return notes


#: face-up cards of the pile drawn (the slap rules look at the top four and the first face-up card)
PILE_FACES_DRAWN = 8


def card_face(card: int) -> Card:
    """A card id as a drawn face (a Joker has no suit)."""
    if card >= FIRST_JOKER:
        return Card(RANK_NAMES[JOKER_RANK])
    return Card(RANK_NAMES[card // NUM_SUITS], SUIT_SYMBOLS[card % NUM_SUITS])


def picture(state: np.record, params: SlapParams, shown: frozenset[int]) -> Table:
    """The table as a picture: every stack face down (nobody sees its order), the pile's face-up cards.

    Slap has no private cards, so ``shown`` changes nothing.
    """
    n = int(state.num_players)
    seats = []
    for seat in range(n):
        facts = [count_words(int(state.stack_size[seat]), "card"), *_seat_notes(state, seat)]
        seats.append(Seat(f"player_{seat}", facts, [Pile("stack", count=int(state.stack_size[seat]))],
                          to_act=seat == state.current_player, out=bool(state.eliminated[seat])))
    pile = pile_cards(state)
    face_up = int(state.face_up)
    faces = [card_face(card) for card in pile[len(pile) - face_up:]]
    centre = [
        Pile(f"face up: {face_up} (top right)", faces[-PILE_FACES_DRAWN:]),
        Pile("burnt under it", count=len(pile) - face_up),
    ]
    return Table(f"Slap, {int(state.cards_played)} cards played", seats, centre, [_phase_line(state)])


def _phase_line(state: np.record) -> str:
    """Who is to act, or the result once the game is over."""
    if state.phase == PHASE_WINDOW:
        return f"slap window: player_{int(state.current_player)} to slap or pass"
    if state.phase == PHASE_PLAY:
        return f"player_{int(state.to_play)} to play a card"
    how = "truncated" if state.truncated else "over"
    return f"game {how}: " + ", ".join(f"player_{s} {float(r):+g}" for s, r in enumerate(state.rewards))


def describe_step(before: np.record, after: np.record, params: SlapParams) -> list[str]:
    """What everybody learns when a step closes a slap window in which someone slapped: who slapped and who won
    the pile (a window that everybody passed, the common case, announces nothing)."""
    if before.phase != PHASE_WINDOW or int(before.window_index) != int(before.window_size) - 1:
        return []
    slappers = [f"player_{seat}" for seat in range(int(after.num_players)) if after.last_slapped[seat]]
    if not slappers:
        return []
    line = f"the slap window closes: {', '.join(slappers)} slapped"
    if after.last_winner != NO_PLAYER:
        return [f"{line}; player_{int(after.last_winner)} wins the pile"]
    return [f"{line}: a wrong slap, and each wrong slapper burns {count_words(params.penalty, 'card')}"]
