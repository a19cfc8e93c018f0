"""Gin Slaughtre as text and as a picture: the public table, a seat's private view, and the public events of a
step."""

from __future__ import annotations

import numpy as np

from cardenvs.core.picture import Card, Pile, Seat, Table, count_words, face_down
from cardenvs.games.gin_slaughtre.actions import ARRANGEMENTS
from cardenvs.games.gin_slaughtre.cards import (
    FIRST_JOKER,
    NO_CARD,
    NUM_CARDS,
    NUM_SUITS,
    RANK_NAMES,
    RANK_NINE,
    SUIT_SYMBOLS,
    pretty_name,
)
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS, GinSlaughtreParams
from cardenvs.games.gin_slaughtre.rules import (
    LOC_DOWN,
    LOC_HAND,
    LOC_PILE,
    LOC_STOCK,
    LOC_UP,
    PHASE_ARRANGE,
    PHASE_OVER,
    PHASE_PLAY,
    QUARTET,
)

PILE_CARDS_SHOWN = 8
#: ranks as words in "four 7s" (Ace 0 … King 12)
RANK_PLURALS = ("Aces", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "Jacks", "Queens", "Kings")


def _cards_at(location: np.ndarray, where: int) -> list[int]:
    """The ids of the cards at one location, ascending."""
    return np.flatnonzero(location == where).tolist()


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
        up = _cards_at(location, LOC_UP + seat)
        known = [c for c in _cards_at(location, LOC_HAND + seat) if state.known[c]]
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
    hand = _cards_at(location, LOC_HAND + player)
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


# ---------------------------------------------------------------- events of one step


def _seat(seat: int) -> str:
    return f"player_{seat}"


def _count(number: int, what: str) -> str:
    return f"{number} {what}" if number == 1 else f"{number} {what}s"


def _burn_reason(pile: list[int]) -> str:
    """Why the pile (bottom to top, as it lay just before burning) burnt (rule:nines, rule:quartets)."""
    top = pile[-1]
    if top // NUM_SUITS == RANK_NINE:
        return "a 9"
    last = pile[-QUARTET:]
    if len(last) == QUARTET and len({card // NUM_SUITS for card in last}) == 1:
        return f"four {RANK_PLURALS[top // NUM_SUITS]}"
    return f"four {SUIT_SYMBOLS[top % NUM_SUITS]}"  # rank_or_suit: four of a suit


def _starter(after: np.record) -> str:
    """Who starts and why (rule:starter); a starter card found in a hand is declared, so it is public."""
    seat = int(after.current_player)
    card = int(after.starter_card)
    if card == NO_CARD:
        return f"{_seat(seat)} starts (left of the dealer)"
    where = "an upcard" if int(after.location[card]) == LOC_UP + seat else "declared from the hand"
    return f"{_seat(seat)} starts with the lowest card, {pretty_name(card)} ({where})"


def describe_step(before: np.record, after: np.record, params: GinSlaughtreParams) -> list[str]:
    """The public events of one step, one line each: the starter once both arrangements are revealed, a turned
    downcard, a burn, a pile picked up, forced draws, the red-5 restriction, an extra turn, the end.

    Only public facts are named (rule:hidden_information): burnt and picked-up cards are counted, drawn cards
    are never named, and the only cards named are the declared starter card and a turned-over downcard.
    """
    lines: list[str] = []
    if int(before.phase) == PHASE_ARRANGE:
        if int(after.phase) == PHASE_PLAY:
            lines.append("both players reveal their upcards")
            lines.append(_starter(after))
        return lines + _ending(after, params)
    if int(before.phase) != PHASE_PLAY:
        return lines
    player = int(before.current_player)
    opponent = NUM_PLAYERS - 1 - player
    was = np.asarray(before.location)
    now = np.asarray(after.location)
    owned_before = (was == LOC_HAND + player) | (was == LOC_UP + player) | (was == LOC_DOWN + player)
    owned_now = (now == LOC_HAND + player) | (now == LOC_UP + player) | (now == LOC_DOWN + player)
    laid = np.flatnonzero(owned_before & ~owned_now).tolist()  # ids ascending: the order a trick is laid in
    turned = np.flatnonzero((was == LOC_DOWN + player) & (now != LOC_DOWN + player)).tolist()
    for card in turned:  # rule:downcards: turned face up for both to see
        if card in laid:
            lines.append(f"{_seat(player)} turns over {pretty_name(card)} and plays it")
        else:
            lines.append(f"{_seat(player)} turns over {pretty_name(card)}, which cannot be played")
    if int(after.burnt_count) > int(before.burnt_count):  # rule:burning
        pile = [int(c) for c in before.pile[: before.pile_size]] + laid
        lines.append(f"{_seat(player)} burns the pile ({_burn_reason(pile)})")
    from_pile = (was == LOC_PILE) | (owned_before & ~owned_now)
    for seat in range(NUM_PLAYERS):  # rule:take_pile, rule:joker
        taken = int((from_pile & (now == LOC_HAND + seat)).sum())
        if taken:
            lines.append(f"{_seat(seat)} picks up the pile ({_count(taken, 'card')})")
    forced = int(((was == LOC_STOCK) & (now == LOC_HAND + opponent)).sum())
    if forced:  # rule:black_five, rule:jack: only how many, never which
        lines.append(f"{_seat(opponent)} draws {_count(forced, 'card')} from the stock")
    if int(after.phase) == PHASE_PLAY:
        if after.restricted:  # rule:red_five
            lines.append(f"{_seat(int(after.current_player))} must play 5 or lower (or 2s or 9s)")
        if int(after.current_player) == player:  # rule:nines, rule:burning, rule:joker
            lines.append(f"{_seat(player)} plays again")
    return lines + _ending(after, params)


def _ending(after: np.record, params: GinSlaughtreParams) -> list[str]:
    if after.terminated and int(after.winner) >= 0:  # rule:winning
        return [f"{_seat(int(after.winner))} has no cards left and wins"]
    if after.truncated:  # rule:truncation
        return [f"the game stops after {params.max_turns} turns: a draw"]
    return []


# ---------------------------------------------------------------- picture


def card_face(card: int) -> Card:
    """A card id as a drawn face, labelled as the action names name it (a Joker has no suit: ``Jo1``, ``Jo2``)."""
    if card >= FIRST_JOKER:
        return Card(pretty_name(card))
    return Card(RANK_NAMES[card // NUM_SUITS], SUIT_SYMBOLS[card % NUM_SUITS])


def picture(state: np.record, params: GinSlaughtreParams, shown: frozenset[int]) -> Table:
    """The table as a picture: a hand face up when ``shown`` holds its seat, otherwise only the cards of it that
    both players know (picked up from the pile, declared) face up; upcards face up, downcards face down."""
    location = np.asarray(state.location)
    phase = int(state.phase)
    seats = []
    for seat in range(NUM_PLAYERS):
        hand = _cards_at(location, LOC_HAND + seat)
        if seat in shown:
            hand_cards = [card_face(c) for c in hand]
        else:
            known = [c for c in hand if state.known[c]]
            hand_cards = [card_face(c) for c in known] + face_down(len(hand) - len(known))
        piles = [Pile("hand", hand_cards),
                 Pile("upcards", [card_face(c) for c in _cards_at(location, LOC_UP + seat)])]
        if state.num_downcards:
            piles.append(Pile("downcards", face_down(int(state.down_count[seat]))))
        facts = [count_words(int(state.hand_count[seat]), "card") + " in hand"]
        if seat == state.current_player and state.restricted:
            facts.append("must play 5 or lower")
        if phase == PHASE_ARRANGE and state.pending_arrangement[seat] >= 0:
            facts.append("has chosen")
        seats.append(Seat(f"player_{seat}", facts, piles, to_act=seat == state.current_player))
    pile = [int(c) for c in state.pile[: state.pile_size]]
    shown = [card_face(c) for c in pile[-PILE_CARDS_SHOWN:]]
    centre = [Pile(f"pile: {count_words(len(pile), 'card')} (top right)", shown),
              Pile("stock", count=int(state.stock_size)), Pile("burnt", count=int(state.burnt_count))]
    title = {PHASE_ARRANGE: "arranging upcards", PHASE_OVER: "game over"}.get(phase, "play")
    status = []
    if phase == PHASE_OVER:
        status.append("result: " + ", ".join(f"player_{s} {float(r):+g}" for s, r in enumerate(state.rewards)))
    return Table(f"Gin Slaughtre, {title}, turn {int(state.step_count)}", seats, centre, status)
