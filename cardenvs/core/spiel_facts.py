"""What OpenSpiel needs to know about a game that the rest of its manifest does not say, in plain Python.

Each game's ``spiel.py`` has a ``facts(params)`` function (named by ``Game.openspiel_facts`` as
``"cardenvs.games.<game>.spiel:facts"``) that returns an :class:`OpenSpielFacts` for the given parameters. Nothing
here imports OpenSpiel: the games work without it installed, and only the bridge (:mod:`cardenvs.openspiel`)
translates these facts into ``pyspiel``'s types.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: the player count at which a game that rewards its winner +1 and every other seat −1 is zero-sum
TWO_PLAYERS = 2


class Utility(enum.Enum):
    """How the seats' returns relate, as OpenSpiel's ``GameType.Utility`` says it (same names)."""

    #: the returns always sum to 0
    ZERO_SUM = "zero_sum"
    #: the returns always sum to the same constant
    CONSTANT_SUM = "constant_sum"
    #: no relation between the returns
    GENERAL_SUM = "general_sum"
    #: every seat always gets the same return
    IDENTICAL = "identical"


@dataclass(frozen=True)
class OpenSpielFacts:
    """A game's OpenSpiel facts for one parameter set.

    Args:
        utility: how the seats' returns relate.
        utility_range: the lowest and the highest return any seat can get, ``(low, high)`` with ``low < high``.
        max_game_length: the most agent decisions one game takes (OpenSpiel's random simulation test checks it).
        team_game: the seats play in partnerships whose partners always share a reward (the bridge says so in the
            game's long name).
    """

    utility: Utility
    utility_range: tuple[float, float]
    max_game_length: int
    team_game: bool = False

    def __post_init__(self) -> None:
        low, high = self.utility_range
        if not low < high:
            raise ValueError(f"utility_range must be (low, high) with low < high, got {self.utility_range}")
        if self.max_game_length < 1:
            raise ValueError(f"max_game_length must be at least 1, got {self.max_game_length}")


def win_loss_utility(num_players: int) -> Utility:
    """The utility of a game that gives +1 to its winner and −1 to every other seat (0 to all at a draw or a
    truncation): zero-sum for two players, general-sum for more (a win sums to 2 − n).

    Args:
        num_players: the seats at the table.
    """
    return Utility.ZERO_SUM if num_players == TWO_PLAYERS else Utility.GENERAL_SUM
