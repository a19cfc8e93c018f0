"""High Card as text: the public table, and a seat's own hand."""

from __future__ import annotations

import numpy as np

from tests.toy_game.params import NUM_PLAYERS, ToyParams
from tests.toy_game.rules import NO_CARD


def render(state: np.record, params: ToyParams) -> str:
    led = "-" if state.lead_card == NO_CARD else str(int(state.lead_card))
    lines = [f"trick {int(state.tricks_played) + 1} of {params.hand_size}, led: {led}"]
    for seat in range(NUM_PLAYERS):
        marker = " <- to act" if seat == state.current_player else ""
        lines.append(f"player_{seat}: {int(state.points[seat])} tricks, {int(state.hand[seat].sum())} cards{marker}")
    return "\n".join(lines)


def render_private(state: np.record, params: ToyParams, player: int) -> str:
    cards = " ".join(str(card) for card in np.flatnonzero(state.hand[player]))
    return f"player_{player} (you) hold: {cards or 'nothing'}"
