"""Stabby Jack as text and as a picture (public information only; no randomness)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.picture import Card, Pile, Seat, Table
from cardenvs.games.stabby_jack.cards import JOKER, JOKER_NAME, NUM_RANKS, RANK_NAMES, SUIT_SYMBOLS, card_name
from cardenvs.games.stabby_jack.params import StabbyJackParams
from cardenvs.games.stabby_jack.rules import (
    PHASE_OVER,
    meets_luck,
    meets_power,
    meets_xp,
)

PHASE_NAMES = ("main action", "pay for Level Up", "replace a Stat", "gain at 8 Stats", "shield or not",
               "Ace: own Stat", "Ace: target Stat", "over")


def _cards(row: np.ndarray, count: int) -> str:
    return " ".join(card_name(int(card)) for card in row[:count])


def render(state: np.record, params: StabbyJackParams) -> str:
    """The whole table as text: everything in Stabby Jack is public except the draw pile's order."""
    n = int(state.num_players)
    if state.phase == PHASE_OVER:
        outcome = f"won by player_{int(state.winner)}" if state.terminated and state.winner >= 0 else "over"
        header = f"Stabby Jack: turn {int(state.turn_count)}, game {outcome}"
    else:
        header = (f"Stabby Jack: turn {int(state.turn_count)}, player_{int(state.current_player)} to act "
                  f"({PHASE_NAMES[int(state.phase)]})")
    top = card_name(int(state.discard[state.discard_size - 1])) if state.discard_size > 0 else "-"
    lines = [
        header,
        f"dealer player_{int(state.dealer)}; draw pile {int(state.deck_size)} cards; discard pile "
        f"{int(state.discard_size)} (top {top}); reshuffles {int(state.reshuffles)}",
    ]
    if state.pending >= 0:
        lines.append(f"drawn card waiting: {card_name(int(state.pending))}")
    for seat in range(n):
        conditions = "".join(
            letter if met else "-"
            for letter, met in zip(
                "abc", (meets_xp(state, seat), meets_power(state, seat), meets_luck(state, seat)), strict=True
            )
        )
        lines.append(
            f"player_{seat}: Stats [{_cards(state.stats[seat], int(state.stats_count[seat]))}] "
            f"HP {int(state.hit_points[seat])} damage {int(state.damage[seat])} magic {int(state.magic[seat])} "
            f"attack {int(state.attack[seat])} luck {int(state.luck[seat])} | XP {int(state.xp[seat])} "
            f"[{_cards(state.xp_row[seat], int(state.xp_count[seat]))}] | win conditions {conditions} "
            f"| deaths {int(state.deaths[seat])}"
        )
    return "\n".join(lines)


def card_face(kind: int) -> Card:
    """A card kind as a drawn face (a Joker has no suit)."""
    if kind == JOKER:
        return Card(JOKER_NAME)
    return Card(RANK_NAMES[kind % NUM_RANKS], SUIT_SYMBOLS[kind // NUM_RANKS])


def picture(state: np.record, params: StabbyJackParams, shown: frozenset[int]) -> Table:
    """The table as a picture. Everything but the draw pile's order is public, so ``shown`` changes nothing."""
    seats = []
    for seat in range(int(state.num_players)):
        facts = [f"HP {int(state.hit_points[seat])}, damage {int(state.damage[seat])}, magic "
                 f"{int(state.magic[seat])}, attack {int(state.attack[seat])}, luck {int(state.luck[seat])}",
                 f"XP {int(state.xp[seat])}, deaths {int(state.deaths[seat])}"]
        piles = [Pile("Stats", [card_face(int(k)) for k in state.stats[seat][: state.stats_count[seat]]]),
                 Pile("XP", [card_face(int(k)) for k in state.xp_row[seat][: state.xp_count[seat]]])]
        seats.append(Seat(f"player_{seat}", facts, piles, to_act=seat == state.current_player))
    discard = [card_face(int(state.discard[state.discard_size - 1]))] if state.discard_size > 0 else []
    centre = [Pile("draw pile", count=int(state.deck_size)),
              Pile("discard pile", discard, count=int(state.discard_size))]
    if state.pending >= 0:
        centre.append(Pile("drawn card", [card_face(int(state.pending))]))
    if state.phase == PHASE_OVER:
        outcome = f"won by player_{int(state.winner)}" if state.terminated and state.winner >= 0 else "over"
        status = [f"game {outcome}"]
    else:
        status = [f"player_{int(state.current_player)} to act: {PHASE_NAMES[int(state.phase)]}"]
    return Table(f"Stabby Jack, turn {int(state.turn_count)}, dealer player_{int(state.dealer)}", seats, centre,
                 status)
