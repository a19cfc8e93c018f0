"""Slap's checks of a state record from outside (a restored snapshot, ``VectorEnv.set_states``).

:func:`field_ranges` bounds every field; :func:`check_record` requires a record the rules can reach: every card
of the pack in play in exactly one stack or the pile, the cards marked seen in play (the pile's face-up ones among
them), seats out holding nothing, an open window asking the seats still in from the one that played, and a
challenge with a payer. The core runs them
(:func:`cardenvs.core.snapshot.validate_record`) before the compiled rules read the record.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import NO_PLAYER, require
from cardenvs.games.slap.cards import MAX_CARDS, NO_CARD
from cardenvs.games.slap.params import SLAP_RULES, SlapParams
from cardenvs.games.slap.rules import PHASE_OVER, PHASE_PLAY, PHASE_WINDOW, pile_cards, stack_cards

#: the longest reaction time a slapper can draw: -log of the smallest uniform the generator gives, 2**-54
MAX_REACTION_TIME = 54 * float(np.log(2.0))


def field_ranges(params: SlapParams) -> dict[str, tuple[float, float]]:
    """The inclusive range of every entry of each game field of the record (``Game.field_ranges``)."""
    n = params.num_players
    seat = (NO_PLAYER, n - 1)
    card = (NO_CARD, MAX_CARDS - 1)
    ring = (0, MAX_CARDS - 1)
    count = (0, params.deck_size)
    flag = (0, 1)
    played = params.max_cards_played
    return {
        "dealer": (0, n - 1),
        "deck": card,
        "in_play": flag,
        "cards_in_play": count,
        "phase": (PHASE_WINDOW, PHASE_OVER),
        "stack": card,
        "stack_top": ring,
        "stack_size": count,
        "eliminated": flag,
        "pile": card,
        "pile_bottom": ring,
        "pile_size": count,
        "face_up": count,
        "slap_matches": (0, (1 << len(SLAP_RULES)) - 1),
        "to_play": seat,
        "played_last": seat,
        "challenger": seat,
        "payer": seat,
        "chances_left": (0, max(params.chances_jack, params.chances_queen, params.chances_king, params.chances_ace)),
        "cards_played": (0, played),
        "window_order": seat,
        "window_size": (0, n),
        "window_index": (0, n),
        "slap_choice": flag,
        "last_slapped": flag,
        "last_winner": seat,
        "reaction_time": (0.0, MAX_REACTION_TIME),
        "burnt_total": (0, played * n * params.penalty),  # each card's window burns at most a penalty a seat
        "seen": flag,
    }


def check_record(state: np.record, params: SlapParams) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` naming the field unless ``state`` is a reachable record
    (``Game.check_record``; the ranges of :func:`field_ranges` already hold)."""
    n = int(state.num_players)
    require(not np.asarray(state.in_play)[int(state.deck_size):].any(), "in_play", "marks a card not in the pack")
    in_play = set(np.flatnonzero(np.asarray(state.in_play)).tolist())
    require(len(in_play) == int(state.cards_in_play), "cards_in_play", "does not match in_play")
    placed: list[int] = []
    for seat in range(n):
        cards = stack_cards(state, seat)
        require(all(card in in_play for card in cards), "stack", f"seat {seat}'s stack holds a card not in play")
        require(not (state.eliminated[seat] and cards), "eliminated", f"seat {seat} is out but holds cards")
        placed += cards
    pile = pile_cards(state)
    require(all(card in in_play for card in pile), "pile", "holds a card not in play")
    placed += pile
    require(sorted(placed) == sorted(in_play), "stack_size", "the stacks and the pile do not hold each card in "
                                                             "play exactly once")
    require(int(state.face_up) <= int(state.pile_size), "face_up", "is more than the pile holds")
    seen = set(np.flatnonzero(np.asarray(state.seen)).tolist())
    require(seen <= in_play, "seen", "marks a card not in play")
    require(set(pile[len(pile) - int(state.face_up):]) <= seen, "seen", "misses a face-up card of the pile")
    require(len(seen) <= int(state.cards_played), "seen", "marks more cards than were played")
    over = bool(state.terminated or state.truncated)
    require((int(state.phase) == PHASE_OVER) == over, "phase", "is PHASE_OVER exactly when the game is over")
    if state.challenger != NO_PLAYER:
        require(int(state.payer) not in (NO_PLAYER, int(state.challenger)), "payer", "a challenge needs a payer")
        require(int(state.chances_left) > 0, "chances_left", "a challenge has chances left")
        require(int(state.pile_size) > 0, "pile_size", "a challenge is over a pile")
    if over:
        return
    require(int((np.asarray(state.eliminated) == 0).sum()) >= 2, "eliminated", "a game in progress has two seats "
                                                                                "in or more")
    require(int(state.to_play) != NO_PLAYER, "to_play", "a game in progress has a seat to play")
    if int(state.phase) == PHASE_WINDOW:
        _check_window(state, n)
    else:
        require(int(state.phase) == PHASE_PLAY and bool(state.expose_play_action), "phase",
                "PHASE_PLAY is asked only with expose_play_action")
        require(int(state.current_player) == int(state.to_play), "current_player", "is not the seat to play")
        require(int(state.stack_size[int(state.to_play)]) > 0, "to_play", "has no card to play")


def _check_window(state: np.record, n: int) -> None:
    """The window asks every seat still in once, from the seat that played the top card, clockwise; the seat
    asked now is to act, and only seats already asked may have slapped."""
    played = int(state.played_last)
    require(played != NO_PLAYER and int(state.face_up) >= 1, "played_last", "a window opens after a card is played")
    expected = [(played + step) % n for step in range(n) if not state.eliminated[(played + step) % n]]
    size, index = int(state.window_size), int(state.window_index)
    require(size == len(expected), "window_size", "a window asks every seat still in")
    order = [int(seat) for seat in state.window_order]
    require(order == expected + [NO_PLAYER] * (n - size), "window_order", "a window asks the seats still in from the "
                                                                          "one that played, clockwise")
    require(index < size, "window_index", "is past the window")
    require(int(state.current_player) == order[index], "current_player", "is not the seat the window asks now")
    for seat in order[index:size]:
        require(not state.slap_choice[seat], "slap_choice", f"seat {seat} slapped before it was asked")
