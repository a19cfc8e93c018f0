"""Slap as text: the public table only (no stack order, no choices of an unresolved window)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import NO_PLAYER
from cardenvs.games.slap.cards import card_name
from cardenvs.games.slap.params import SlapParams
from cardenvs.games.slap.rules import PHASE_OVER, PHASE_PLAY, PHASE_WINDOW, pile_cards


def render(state: np.record, params: SlapParams) -> str:
    """One line per seat with what everybody can see, then the pile and the challenge."""
    n = int(state.num_players)
    lines = [f"Slap, {int(state.cards_played)} cards played, dealer player_{int(state.dealer)}"]
    for seat in range(n):
        notes = []
        if state.eliminated[seat]:
            notes.append("out")
        if seat == state.played_last and state.face_up > 0:
            notes.append("played the top card")
        if seat == state.challenger:
            notes.append("challenger")
        if seat == state.payer:
            notes.append(f"pays, {int(state.chances_left)} chance(s) left")
        if state.last_slapped[seat]:
            notes.append("won the last slap" if seat == state.last_winner else "slapped in the last window")
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
    elif state.phase == PHASE_PLAY:
        lines.append(f"  player_{int(state.to_play)} to play a card")
    elif state.phase == PHASE_OVER:
        how = "truncated" if state.truncated else "over"
        results = ", ".join(f"player_{s} {float(r):+g}" for s, r in enumerate(state.rewards))
        lines.append(f"  game {how}: {results}")
    assert NO_PLAYER == -1
    return "\n".join(lines)
