"""Clabber as text and as a picture: the public table, and a seat's hand only when asked (no randomness)."""

from __future__ import annotations

import numpy as np

from cardenvs.core.picture import Card, Pile, Seat, Table, face_down
from cardenvs.games.clabber.cards import NO_CARD, NUM_RANKS, RANK_NAMES, SUIT_WORDS, bits_to_cards, card_name
from cardenvs.games.clabber.melds import CATEGORY_NAMES, key_category
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams
from cardenvs.games.clabber.rules import (
    BID_ACCEPT,
    BID_NAME,
    BID_PASS,
    MELD_DECLARED,
    MELDS_NOBODY,
    MELDS_UNDECIDED,
    PHASE_OVER,
)

PHASE_WORDS = ("first bidding round", "second bidding round", "declaring melds", "playing", "game over")


def _bid_word(first: int, second: int) -> str:
    words = {BID_PASS: "pass", BID_ACCEPT: "accept"}
    text = words.get(first, "-")
    if second == BID_PASS:
        text += ", pass"
    elif second == BID_NAME:
        text += ", names trump"
    return text


def render(state: np.record, params: ClabberParams) -> str:
    """The public table as text: scores, bids, trump, declared melds, cards played and the current trick."""
    lines = [
        f"Clabber, deal {int(state.hands_dealt)}: {PHASE_WORDS[int(state.phase)]}; dealer player_{int(state.dealer)}; "
        f"turn-up {card_name(int(state.turn_up))}",
        f"scores: team 0+2 {int(state.scores[0])}, team 1+3 {int(state.scores[1])} (target {params.target_score})"
        + (f"; litige pending {int(state.litige_pending)}" if state.litige_pending else ""),
    ]
    if state.trump >= 0:
        lines.append(f"trump {SUIT_WORDS[int(state.trump)]}, made by player_{int(state.maker)}; "
                     f"tricks won {int(state.tricks_won[0])}-{int(state.tricks_won[1])}, "
                     f"points {int(state.trick_points[0])}-{int(state.trick_points[1])}")
    for seat in range(NUM_PLAYERS):
        parts = [f"player_{seat}: bids {_bid_word(int(state.bid_first[seat]), int(state.bid_second[seat]))}"]
        if state.meld_status[seat] == MELD_DECLARED:
            cards = " ".join(card_name(c) for c in bits_to_cards(int(state.meld_cards[seat])))
            best = CATEGORY_NAMES[key_category(int(state.meld_best[seat]))]
            parts.append(f"melds {cards} ({int(state.meld_points[seat])}, best {best})")
        played = " ".join(card_name(c) for c in bits_to_cards(int(state.played[seat])))
        if played:
            parts.append(f"played {played}")
        lines.append("; ".join(parts))
    if state.meld_winner == MELDS_NOBODY:
        lines.append("melds: nobody scores")
    elif state.meld_winner != MELDS_UNDECIDED:
        lines.append(f"melds: team {int(state.meld_winner)} scores {int(state.meld_score[state.meld_winner])}")
    if state.bell_points.any():
        lines.append(f"Bell: team {int(np.flatnonzero(state.bell_points)[0])}")
    if state.trick_size:
        cards = [card_name(int(c)) for c in state.trick if c != NO_CARD]
        lines.append(f"trick led by player_{int(state.leader)}: {' '.join(cards)}")
    if state.phase == PHASE_OVER:
        lines.append(f"rewards: {', '.join(f'{r:+.3f}' for r in state.rewards)}")
    else:
        lines.append(f"to act: player_{int(state.current_player)}")
    return "\n".join(lines)


def render_private(state: np.record, params: ClabberParams, player: int) -> str:
    """What only ``player`` sees: the cards in its hand."""
    cards = " ".join(card_name(c) for c in bits_to_cards(int(state.hand[player])))
    return f"player_{player} (you): hand {cards or 'empty'}"


SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")  # in suit id order (C D H S)


def card_face(card: int) -> Card:
    """A card id (``suit * 6 + rank``) as a drawn face."""
    return Card(RANK_NAMES[card % NUM_RANKS], SUIT_SYMBOLS[card // NUM_RANKS])


def picture(state: np.record, params: ClabberParams, shown: frozenset[int]) -> Table:
    """The table as a picture: hands face down unless ``shown`` holds the seat, the cards each seat has played,
    declared melds, the turn-up card and the trick on the table."""
    seats = []
    for seat in range(NUM_PLAYERS):
        hand = bits_to_cards(int(state.hand[seat]))
        # declared meld cards still in the hand are public: face up in the hand, drawn there only
        melded = int(state.meld_cards[seat]) if state.meld_status[seat] == MELD_DECLARED else 0
        if seat in shown:
            hand_cards = [card_face(c) for c in hand]
        else:
            known = [c for c in hand if melded >> c & 1]
            hand_cards = [card_face(c) for c in known] + face_down(len(hand) - len(known))
        piles = [Pile("hand", hand_cards)]
        facts = [f"team {seat % 2}: bids {_bid_word(int(state.bid_first[seat]), int(state.bid_second[seat]))}"]
        if seat == state.maker and state.trump >= 0:
            facts.append("made trump")
        if melded:
            facts.append(f"melds {int(state.meld_points[seat])} points: "
                         + " ".join(card_face(c).label for c in bits_to_cards(melded)))
        played = bits_to_cards(int(state.played[seat]))
        if played:
            piles.append(Pile("played", [card_face(c) for c in played]))
        seats.append(Seat(f"player_{seat}", facts, piles, to_act=seat == state.current_player))
    centre = []
    if state.turn_up != NO_CARD:
        centre.append(Pile("turn-up", [card_face(int(state.turn_up))]))
    if state.trick_size:
        centre.append(Pile(f"trick, led by player_{int(state.leader)}",
                           [card_face(int(c)) for c in state.trick if c != NO_CARD]))
    status = [f"scores: team 0 (players 0, 2) {int(state.scores[0])}, team 1 (players 1, 3) "
              f"{int(state.scores[1])}; target {params.target_score}"]
    if state.trump >= 0:
        status.append(f"trump {SUIT_WORDS[int(state.trump)]}; tricks {int(state.tricks_won[0])}-"
                      f"{int(state.tricks_won[1])}; card points {int(state.trick_points[0])}-"
                      f"{int(state.trick_points[1])}")
    if state.phase == PHASE_OVER:
        status.append("game over: " + ", ".join(f"player_{s} {float(r):+.3f}" for s, r in enumerate(state.rewards)))
    return Table(f"Clabber, deal {int(state.hands_dealt)}: {PHASE_WORDS[int(state.phase)]}", seats, centre, status)
