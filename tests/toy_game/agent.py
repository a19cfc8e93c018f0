"""High Card's rule-based agent: lead the highest card; follow with the lowest card that wins, else the lowest."""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from tests.toy_game.rules import beats


class ToyHeuristic(Agent):
    """Wins tricks as cheaply as it can.

    Args:
        layout: the env's observation layout.
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout):
        self.layout = layout

    def act(self, observation: dict[str, np.ndarray]) -> int:
        views = self.layout.split(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"])
        if not views["lead_card"].any():
            return int(legal[-1])
        lead = int(views["lead_card"].argmax())
        winners = [int(card) for card in legal if beats(int(card), lead)]
        return winners[0] if winners else int(legal[0])
