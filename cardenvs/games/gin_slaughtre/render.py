"""Gin Slaughtre as text: the public table, never a hidden card."""

from __future__ import annotations

import numpy as np

from cardenvs.games.gin_slaughtre.actions import ARRANGEMENTS
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS, pretty_name
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.rules import (
    LOC_HAND,
    LOC_UP,
    PHASE_ARRANGE,
    PHASE_OVER,
)

PILE_CARDS_SHOWN = 8


def _names(cards: list[int]) -> str:
    return " ".join(pretty_name(c) for c in cards) if cards else "none"


def render(state: np.record, params: GinSlaughtreParams) -> str:
    """One line per seat with what everybody can see, then the pile and the stock."""
    location = np.asarray(state.location)
    phase = int(state.phase)
    title = {PHASE_ARRANGE: "arranging upcards", PHASE_OVER: "game over"}.get(phase, "play")
    lines = [f"Gin Slaughtre, dealer player_{int(state.dealer)}, {title}, turn {int(state.step_count)}"]
    for seat in range(NUM_PLAYERS):
        notes = []
        if seat == state.current_player:
            notes.append("to act" + (" (must play 5 or lower)" if state.restricted else ""))
        if phase == PHASE_ARRANGE and state.pending_arrangement[seat] >= 0:
            notes.append("has chosen")
        up = [c for c in range(NUM_CARDS) if location[c] == LOC_UP + seat]
        known = [c for c in range(NUM_CARDS) if location[c] == LOC_HAND + seat and state.known[c]]
        line = (
            f"  player_{seat}: {int(state.hand_count[seat])} in hand (known: {_names(known)}); "
            f"upcards: {_names(up)}"
        )
        if state.num_downcards:
            line += f"; {int(state.down_count[seat])} downcards"
        lines.append(line + ("; " + ", ".join(notes) if notes else ""))
    pile = [int(c) for c in state.pile[: state.pile_size]]
    shown = pile[-PILE_CARDS_SHOWN:]
    more = f"… ({len(pile)}) " if len(pile) > len(shown) else ""
    lines.append(f"  pile (top last): {more}{_names(shown)}")
    lines.append(f"  stock: {int(state.stock_size)} cards; burnt: {int(state.burnt_count)} cards")
    if phase == PHASE_OVER:
        results = ", ".join(f"player_{s} {float(r):+g}" for s, r in enumerate(state.rewards))
        lines.append(f"  result: {results}")
    return "\n".join(lines)


def render_private(state: np.record, params: GinSlaughtreParams, player: int) -> str:
    """What only ``player`` sees: its whole hand and, while arranging, its seven cards numbered as the actions
    number them (by id) and the arrangement it has chosen but not yet revealed."""
    location = np.asarray(state.location)
    hand = [c for c in range(NUM_CARDS) if location[c] == LOC_HAND + player]
    lines = [f"player_{player} (you): hand {_names(hand)}"]
    if int(state.phase) == PHASE_ARRANGE:
        # Both locations hold the seven cards an arrangement chooses from, in id order (actions.ARRANGEMENTS).
        dealt = [c for c in range(NUM_CARDS) if location[c] in (LOC_HAND + player, LOC_UP + player)]
        lines.append("  your cards by id: " + "  ".join(f"#{k + 1} {pretty_name(c)}" for k, c in enumerate(dealt)))
        choice = int(state.pending_arrangement[player])
        if choice >= 0:
            chosen = [dealt[int(k)] for k in ARRANGEMENTS[choice]]
            lines.append(f"  you chose as upcards (revealed when both have chosen): {_names(chosen)}")
    return "\n".join(lines)
