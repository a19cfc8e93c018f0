"""Slabberjan as text and as a picture: the public table, and one seat's private view when asked."""

from __future__ import annotations

import numpy as np

from cardenvs.core.picture import FACE_DOWN, Card, Pile, Seat, Table, count_words
from cardenvs.games.slabberjan.params import SlabberjanParams
from cardenvs.games.slabberjan.pieces import KIND_NAMES, NO_PIECE, kind_name
from cardenvs.games.slabberjan.rules import ACT_BAGGED, ACT_STOOD, ACT_SWAPPED, PHASE_OVER

_ACT_WORDS = {ACT_STOOD: "stood", ACT_SWAPPED: "swapped", ACT_BAGGED: "drew from the bag"}


def render(state: np.record, params: SlabberjanParams) -> str:
    """One line per seat with what everybody can see, then the centre."""
    n = int(state.num_players)
    lines = [f"Slabberjan, round {int(state.round_number)}, dealer player_{int(state.dealer)}"]
    for seat in range(n):
        notes = []
        if not state.in_game[seat]:
            notes.append("out")
        if seat == state.current_player:
            notes.append("to act")
        notes += _round_notes(state, seat)
        if state.shown[seat] != NO_PIECE:
            paid = ", paid" if state.paid[seat] else ""
            notes.append(f"last showdown: {kind_name(int(state.shown[seat]))}{paid}")
        lines.append(f"  player_{seat}: {int(state.chips[seat])} chips  " + "; ".join(notes))
    aside = [f"{KIND_NAMES[k]} ×{int(c)}" for k, c in enumerate(state.set_aside) if c]
    lines.append(
        f"  centre: {int(state.pot)} chips; bag: {int(state.bag_size)} pieces; "
        f"set aside: {', '.join(aside) if aside else 'none'}"
    )
    if state.phase == PHASE_OVER:
        lines.append(f"  {_result_line(state)}")
    return "\n".join(lines)


def _round_notes(state: np.record, seat: int) -> list[str]:
    """What everybody knows of a seat's part in this round: its move, an announced matador, a knock, a debt."""
    notes = []
    if state.acted[seat] in _ACT_WORDS:
        notes.append(_ACT_WORDS[int(state.acted[seat])])
    if state.announced[seat] != NO_PIECE:
        notes.append(f"announced the {kind_name(int(state.announced[seat]))}")
    if state.fool_knocked[seat]:
        notes.append("knocked (fool)")
    if state.owes[seat]:
        notes.append("owes a chip")
    return notes


def _result_line(state: np.record) -> str:
    return "game over: " + ", ".join(f"player_{s} {float(r):+g}" for s, r in enumerate(state.rewards))


def render_private(state: np.record, params: SlabberjanParams, player: int) -> str:
    """What only ``player`` sees: its own piece, the piece it was dealt, and the pieces it knows others hold."""
    if not state.in_game[player]:
        return f"player_{player} (you): out of the game"
    lines = [
        f"player_{player} (you): you hold the {kind_name(int(state.piece[player]))}"
        f" (dealt the {kind_name(int(state.original[player]))} this round)"
    ]
    known = [
        f"player_{seat} the {kind_name(int(state.known[player, seat]))}"
        for seat in range(int(state.num_players))
        if seat != player and state.in_game[seat] and state.known[player, seat] != NO_PIECE
    ]
    if known:
        lines.append("  you know (as last seen): " + ", ".join(known))
    return "\n".join(lines)


def _piece_pile(state: np.record, seat: int, shown: frozenset[int]) -> Pile:
    """A seat's piece: face up to itself (when shown), or as a shown seat last saw it, else face down."""
    if seat in shown:
        return Pile("piece", [Card(kind_name(int(state.piece[seat])))])
    for viewer in sorted(shown):
        known = int(state.known[viewer, seat])
        if known != NO_PIECE:
            return Pile(f"piece (player_{viewer} saw)", [Card(kind_name(known))])
    return Pile("piece", [FACE_DOWN])


def picture(state: np.record, params: SlabberjanParams, shown: frozenset[int]) -> Table:
    """The table as a picture: chips, what each seat did this round, its piece (face down unless ``shown``
    holds it, or a shown seat knows it) and the piece it turned up at the last showdown."""
    seats = []
    for seat in range(int(state.num_players)):
        facts = [count_words(int(state.chips[seat]), "chip"), *_round_notes(state, seat)]
        piles = [_piece_pile(state, seat, shown)] if state.in_game[seat] else []
        if state.shown[seat] != NO_PIECE:
            piles.append(Pile("last showdown" + (", paid" if state.paid[seat] else ""),
                              [Card(kind_name(int(state.shown[seat])))]))
        seats.append(Seat(f"player_{seat}", facts, piles, to_act=seat == state.current_player,
                          out=not state.in_game[seat]))
    aside = [f"{KIND_NAMES[k]} ×{int(c)}" for k, c in enumerate(state.set_aside) if c]
    status = [f"pot {count_words(int(state.pot), 'chip')}; set aside: {', '.join(aside) if aside else 'none'}"]
    if state.phase == PHASE_OVER:
        status.append(_result_line(state))
    return Table(f"Slabberjan, round {int(state.round_number)}, dealer player_{int(state.dealer)}", seats,
                 [Pile("bag", count=int(state.bag_size))], status)
