"""Clabber in words for a person following the game: what each decision did (trump made, melds shown, cards the
rules played by force, who won each trick and the hand's score) and which team won.

Everything named here is public: cards once played, melds once declared, scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardenvs.games.clabber.cards import NO_CARD, NUM_CARDS, SUIT_WORDS, bits_to_cards
from cardenvs.games.clabber.params import NUM_PLAYERS, ClabberParams
from cardenvs.games.clabber.render import card_face
from cardenvs.games.clabber.rules import MELD_DECLARED, MELDS_NOBODY, MELDS_UNDECIDED

#: every seat may read a line
EVERY_SEAT: tuple[int, ...] = ()
#: Clabber's partnerships: seats s and s + TEAMS play together
TEAMS = 2


def _cards(mask: int) -> str:
    return " ".join(card_face(card).label for card in bits_to_cards(mask))


def team_words(team: int) -> str:
    """``team player_0 + player_2``: the two seats of ``team`` (0 or 1)."""
    return f"team player_{team} + player_{team + TEAMS}"


def move_words(before: np.record, after: np.record, params: ClabberParams,
               action: int) -> list[tuple[str, tuple[int, ...]]]:
    """What one decision did: trump made, a thrown-in deal, melds shown, forced plays, a trick won, the melds'
    and the Bell's points, the hand's score.

    Args:
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken.
    """
    seat = int(before.current_player)
    same_hand = int(after.hands_dealt) == int(before.hands_dealt)
    lines = []
    if same_hand and int(after.trump) >= 0 > int(before.trump):
        lines.append(f"player_{int(after.maker)} makes {SUIT_WORDS[int(after.trump)]} trump")
    lines += _forced_and_melds(before, after, seat, action, same_hand)
    if same_hand and int(after.tricks_done) > int(before.tricks_done):
        team = next(t for t in range(TEAMS) if int(after.tricks_won[t]) > int(before.tricks_won[t]))
        points = int(after.trick_points[team]) - int(before.trick_points[team])
        lines.append(f"player_{int(after.leader)} wins the trick for {team_words(team)} ({points} points)")
    if int(before.meld_winner) == MELDS_UNDECIDED != int(after.meld_winner) and same_hand:
        winner = int(after.meld_winner)
        lines.append("melds: nobody scores" if winner == MELDS_NOBODY else
                     f"melds: {team_words(winner)} scores {int(after.meld_score[winner])}")
    for team in range(TEAMS):
        if same_hand and int(after.bell_points[team]) > int(before.bell_points[team]):
            lines.append(f"the Bell: player_{int(after.bell_holder)} plays the second of trump King and Queen, "
                         f"{int(after.bell_points[team])} points")
    if int(after.hands_played) > int(before.hands_played):
        lines.append(_hand_result(after))
    elif not same_hand:
        lines.append("everybody passed: the deal is thrown in and dealt again")
    return [(line, EVERY_SEAT) for line in lines]


def _forced_and_melds(before: np.record, after: np.record, seat: int, action: int,
                      same_hand: bool) -> list[str]:
    """Melds shown in the step and the cards the rules played by themselves (rule:forced_moves)."""
    lines = []
    for offset in range(NUM_PLAYERS):
        other = (seat + offset) % NUM_PLAYERS
        if int(before.meld_status[other]) != MELD_DECLARED and same_hand and \
                int(after.meld_status[other]) == MELD_DECLARED:
            lines.append(f"player_{other} shows the meld {_cards(int(after.meld_cards[other]))} "
                         f"({int(after.meld_points[other])} points)")
        # the cards the seat played in the step: new ones this hand, or every card it still held when the
        # hand was played out to its end by force
        played = (int(after.played[other]) & ~int(before.played[other])) if same_hand else int(before.hand[other])
        if other == seat and 0 <= action < NUM_CARDS:
            played &= ~(1 << action)
        if played:
            lines.append(f"player_{other} plays {_cards(played)} (forced: no other card)")
    return lines


def _hand_result(after: np.record) -> str:
    """The finished hand: each team's points, what it added, the scores."""
    maker = int(after.hand_maker)
    made = ""
    if maker >= 0:  # rule:contract_made: the makers need strictly more points than the defenders
        makers = maker % TEAMS
        kept = int(after.hand_total[makers]) > int(after.hand_total[1 - makers])
        made = f"; the makers ({team_words(makers)}) " + ("make their contract" if kept else "fail")
    return (f"hand over: points {int(after.hand_total[0])}–{int(after.hand_total[1])}{made}; added "
            f"{int(after.hand_added[0])}–{int(after.hand_added[1])}, scores {int(after.scores[0])}–"
            f"{int(after.scores[1])}")


def final_words(state: np.record, params: ClabberParams, names: Sequence[str]) -> str:
    """Which team won and why: the hand's points (a single hand), the scores against the target, or the deal limit.

    Args:
        state: the final record.
        params: the game's parameters.
        names: each seat's words.
    """
    teams = [f"{names[team]} and {names[team + TEAMS]}" for team in range(TEAMS)]
    if bool(state.truncated):
        return (f"No winner: the game was stopped after {params.max_hands:,} deals, so every reward is 0 (scores "
                f"{int(state.scores[0])}–{int(state.scores[1])}).")
    if params.single_hand:
        added = [int(points) for points in state.hand_added]
        if added[0] == added[1]:
            return f"A draw: one hand played, and both teams added {added[0]} points."
        best = int(np.argmax(added))
        return (f"{teams[best]} win the hand: they added {added[best]} points against {added[1 - best]} "
                "(one hand played).")
    scores = [int(score) for score in state.scores]
    if scores[0] == scores[1]:
        return f"A draw: both teams finished on {scores[0]} points (the game ends at {params.target_score})."
    best = int(np.argmax(scores))
    return (f"{teams[best]} win with {scores[best]} points against {scores[1 - best]} (the game ends when a team "
            f"reaches {params.target_score}).")


def table_caption(state: np.record) -> str:
    """Who played each card of the trick on the table (the picture labels only its leader), as
    ``player_1 J♥ · player_2 9♠``; ``""`` during the bidding or with no card on the table.

    Args:
        state: the record shown.
    """
    leader = int(state.leader)
    if leader < 0:
        return ""
    return " · ".join(f"player_{(leader + position) % NUM_PLAYERS} {card_face(int(card)).label}"
                      for position, card in enumerate(state.trick) if int(card) != NO_CARD)
