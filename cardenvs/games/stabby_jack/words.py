"""Stabby Jack in words for a person following the game: what each decision did (the card drawn, a fight with
its monster and the damage, Stats and XP gained or lost, deaths) and who won.

Everything in Stabby Jack is public but the draw pile's order, so a drawn card is named once it is drawn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from cardenvs.core.picture import count_words
from cardenvs.games.stabby_jack.cards import (
    ACE,
    DIAMONDS,
    HEARTS,
    JACK,
    JOKER,
    KING,
    LOWEST_VALUE,
    NUM_RANKS,
    NUM_VALUES,
    QUEEN,
    SPADES,
)
from cardenvs.games.stabby_jack.params import StabbyJackParams
from cardenvs.games.stabby_jack.render import card_face
from cardenvs.games.stabby_jack.rules import FIGHT, LEVEL_UP, MONARCH_VALUE, TRAIN, WIN_XP

#: every seat may read a line
EVERY_SEAT: tuple[int, ...] = ()
#: the main actions that draw a card
DRAWING_ACTIONS = {TRAIN: "trains", FIGHT: "fights", LEVEL_UP: "levels up"}
#: the suits fought with magic (the red ones); the black ones are fought with attack (rule:monster_combat)
MAGIC_SUITS = (HEARTS, DIAMONDS)


def _label(kind: int) -> str:
    return card_face(kind).label


def _cards(kinds: Sequence[int]) -> str:
    return " ".join(_label(kind) for kind in kinds)


def _row(row: np.ndarray, count: int) -> list[int]:
    return [int(kind) for kind in row[:count]]


def _drawn(before: np.record, after: np.record) -> list[int]:
    """The cards drawn in the step, first drawn first (those before a reshuffle: the new pile's order is hidden)."""
    end = 0 if int(after.reshuffles) != int(before.reshuffles) else int(after.deck_size)
    return [int(before.deck[index]) for index in range(int(before.deck_size) - 1, end - 1, -1)]


def _monster_value(kind: int) -> int | None:
    """The value a drawn card fights with as a monster (a numbered card, or a Diamond or Spade Monarch); None for
    the other Specials."""
    if kind == JOKER:
        return None
    suit, rank = divmod(kind, NUM_RANKS)
    if rank < NUM_VALUES:
        return rank + LOWEST_VALUE
    if rank in (QUEEN, KING) and suit in (DIAMONDS, SPADES):
        return MONARCH_VALUE
    return None


def _special(kind: int) -> str:
    """What a drawn Special does (rule:stabby_jack, rule:ace, rule:heart_club_monarchs, rule:joker); "" for a
    numbered card or a Monarch that fights."""
    if kind == JOKER:
        return "a Joker, an instant Level Up"
    suit, rank = divmod(kind, NUM_RANKS)
    if rank == JACK:
        return "Stabby Jack, 2 damage unless a Monarch shields"
    if rank == ACE:
        return "an Ace, a compulsory swap of Stats"
    if rank in (QUEEN, KING) and suit == HEARTS:
        return "a Heart Monarch, which heals 2 damage"
    if rank in (QUEEN, KING) and suit not in (DIAMONDS, SPADES):
        return "a Club Monarch, which draws the next card"
    return ""


def _fight(before: np.record, after: np.record, seat: int, kind: int) -> str:
    """The fight against the monster ``kind``: the power it is fought with and the outcome."""
    value = _monster_value(kind)
    suit = kind // NUM_RANKS
    stat, power = ("magic", int(before.magic[seat])) if suit in MAGIC_SUITS else ("attack", int(before.attack[seat]))
    won = int(after.xp_count[seat]) > int(before.xp_count[seat]) and kind in _row(after.xp_row[seat],
                                                                                  int(after.xp_count[seat]))
    outcome = "wins it" if won else "loses"
    return (f"player_{seat} fights the monster {_label(kind)} ({value}) with {stat} {power}, luck "
            f"{int(before.luck[seat])}: {outcome}")


def move_words(before: np.record, after: np.record, params: StabbyJackParams,
               action: int) -> list[tuple[str, tuple[int, ...]]]:
    """What one decision did: the card drawn and the fight, then every seat's changes (damage, Stats, XP, deaths).

    Args:
        before: a copy of the record before the step.
        after: a copy of the record after it.
        params: the game's parameters.
        action: the action taken.
    """
    seat = int(before.current_player)
    lines = []
    drawn = _drawn(before, after)
    if action in DRAWING_ACTIONS and drawn:
        if action == FIGHT and _monster_value(drawn[0]) is not None:
            lines.append(_fight(before, after, seat, drawn[0]))
        else:
            special = _special(drawn[0])
            lines.append(f"player_{seat} {DRAWING_ACTIONS[action]} and draws {_label(drawn[0])}"
                         + (f": {special}" if special else ""))
    if int(after.reshuffles) != int(before.reshuffles):
        lines.append("the discard pile is shuffled into a new draw pile")
    if int(after.pending) >= 0 and int(after.pending) != int(before.pending):
        lines.append(f"drawn card waiting for a decision: {_label(int(after.pending))}")
    for other in range(int(after.num_players)):
        lines += _seat_changes(before, after, other)
    return [(line, EVERY_SEAT) for line in lines]


def _seat_changes(before: np.record, after: np.record, seat: int) -> list[str]:
    """One seat's changes in a step: a death, damage taken or healed, Stats and XP cards gained or lost."""
    name = f"player_{seat}"
    if int(after.deaths[seat]) > int(before.deaths[seat]):
        stats = _row(after.stats[seat], int(after.stats_count[seat]))
        return [f"{name} dies: its Stats and XP are discarded and it is dealt {count_words(len(stats), 'new Stat')}: "
                f"{_cards(stats)}"]
    lines = []
    damage = int(after.damage[seat]) - int(before.damage[seat])
    hit_points = int(after.hit_points[seat])
    if damage > 0:
        lines.append(f"{name} takes {damage} damage ({int(after.damage[seat])} of {hit_points} HP)")
    elif damage < 0:
        lines.append(f"{name} heals {-damage} ({int(after.damage[seat])} damage of {hit_points} HP)")
    stats_before = Counter(_row(before.stats[seat], int(before.stats_count[seat])))
    stats_after = Counter(_row(after.stats[seat], int(after.stats_count[seat])))
    lost, gained = sorted((stats_before - stats_after).elements()), sorted((stats_after - stats_before).elements())
    if lost and gained:
        lines.append(f"{name}'s Stats: {_cards(lost)} replaced by {_cards(gained)}")
    elif gained:
        lines.append(f"{name} gains the Stat {_cards(gained)}")
    elif lost:
        lines.append(f"{name} loses the Stat {_cards(lost)}")
    xp_before = Counter(_row(before.xp_row[seat], int(before.xp_count[seat])))
    xp_after = Counter(_row(after.xp_row[seat], int(after.xp_count[seat])))
    won, paid = sorted((xp_after - xp_before).elements()), sorted((xp_before - xp_after).elements())
    if won:
        lines.append(f"{name} puts {_cards(won)} in its XP row (XP {int(after.xp[seat])})")
    if paid:
        lines.append(f"{name} gives up {_cards(paid)} from its XP row (XP {int(after.xp[seat])})")
    return lines


def final_words(state: np.record, params: StabbyJackParams, names: Sequence[str]) -> str:
    """Who won and why (the three winning conditions met at once), or the turn limit.

    Args:
        state: the final record.
        params: the game's parameters.
        names: each seat's words.
    """
    winner = int(state.winner)
    if winner < 0 or bool(state.truncated):
        return (f"No winner: the game was stopped after {params.max_turns:,} turns without anyone meeting all three "
                "winning conditions, so every reward is 0.")
    power = max(int(state.attack[winner]), int(state.magic[winner]))
    hit_points = "full HP" if params.win_uses_max_hp else "HP left"
    return (f"{names[winner]} wins, meeting all three conditions at once: {int(state.xp[winner])} XP (at least "
            f"{WIN_XP}), power {power} above every opponent's {hit_points}, and the best luck "
            f"({int(state.luck[winner])}).")

