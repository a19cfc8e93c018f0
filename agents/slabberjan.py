"""A rule-based Slabberjan agent: keep a good piece, pass a bad one on.

Strategy (what a sensible player does): with a matador or a piece at or above a threshold rank, stand;
with a lower piece, try to swap it away (or, as dealer, draw from the bag). A piece known to be waiting on the
left that is worse than one's own is never taken.
"""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.slabberjan.observation import UNKNOWN_SLOT
from cardenvs.games.slabberjan.pieces import INN, NO_PIECE, kind_id
from cardenvs.games.slabberjan.rules import EXCHANGE, STAND

#: stand on this kind or higher
DEFAULT_STAND_AT = kind_id("6")
#: relative seat of the left neighbour, whose piece an exchange would bring (the observer is seat 0)
LEFT = 1
#: entries per seat of the ``known_pieces`` view: a one-hot over the kinds, then "unknown"
PIECE_SLOTS = UNKNOWN_SLOT + 1


class SlabberjanHeuristic(Agent):
    """Stand on a good piece, exchange a poor one.

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``).
        stand_at: the lowest piece kind it keeps.
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout, stand_at: int = DEFAULT_STAND_AT):
        self.layout = layout
        self.stand_at = stand_at

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        views = self.layout.split(observation["observation"])
        own = int(views["own_piece"].argmax())
        left = int(views["known_pieces"].reshape(-1, PIECE_SLOTS)[LEFT].argmax())
        left = NO_PIECE if left == UNKNOWN_SLOT else left
        # A matador held protects against attacks (rule:matadors_refuse); a known worse piece on the left would
        # come back in the exchange (rule:exchange).
        keep = own >= INN or own >= self.stand_at or (left != NO_PIECE and left < own)
        choice = STAND if keep else EXCHANGE
        if not mask[choice]:
            choice = int(np.flatnonzero(mask)[0])
        return choice
