"""A rule-based Slap agent: slaps exactly when the face-up cards make an active slap pattern.

It reads only the observation (through the game's named views) and the mask, and asks the engine's own
rule:slappable_pile (:func:`~cardenvs.games.slap.rules.face_up_matches`) about the cards it sees. ``miss_rate``
(chance to pass on a slappable pile) and ``false_slap_rate`` (chance to slap a pile that is not slappable) make
weaker opponents; both 0 is a perfect slapper. Simultaneous correct slaps are settled by the game's chance, so
against another perfect slapper it wins only its share of the ties.
"""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.slap.observation import CARD_SLOTS, TOP_CARDS_SHOWN
from cardenvs.games.slap.rules import PASS, PLAY, SLAP, face_up_matches_batch

#: an observation's 0/1 entries (the active slap rules) are read as on above this
_ON = 0.5


def slappable(views: dict[str, np.ndarray]) -> np.ndarray:
    """For a batch of split observations [N, ...]: does an active slap rule match the face-up cards?

    The engine's rule:slappable_pile, on the cards the observation shows.
    """
    n = views["face_up_count"].shape[0]
    cards = views["top_cards"].reshape(n, TOP_CARDS_SHOWN, CARD_SLOTS).argmax(axis=2)
    first = views["first_face_up"].argmax(axis=1)
    face_up = views["face_up_count"][:, 0].astype(np.int64)
    matches = np.zeros(n, np.int64)
    face_up_matches_batch(views["slap_rules"] > _ON, face_up, cards, first, matches)
    return matches != 0


class SlapHeuristic(Agent):
    """Slaps when the pile is slappable, passes otherwise, plays when asked to (``expose_play_action``).

    Args:
        layout: the env's observation layout (``env.unwrapped.layout`` or ``venv.layout``).
        miss_rate: chance to pass although the pile is slappable.
        false_slap_rate: chance to slap although it is not.
        seed: seed of the agent's own generator (used only when a rate is above 0).
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout, miss_rate: float = 0.0, false_slap_rate: float = 0.0,
                 seed: int | None = None):
        for label, rate in (("miss_rate", miss_rate), ("false_slap_rate", false_slap_rate)):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{label}={rate!r} is not allowed; it must be a probability from 0 to 1")
        self.layout = layout
        self.miss_rate = miss_rate
        self.false_slap_rate = false_slap_rate
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation["observation"][None, :], observation["action_mask"][None, :])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        wants = slappable(self.layout.split(observations))
        if self.miss_rate > 0.0:
            wants &= self.rng.random(len(wants)) >= self.miss_rate
        if self.false_slap_rate > 0.0:
            wants |= self.rng.random(len(wants)) < self.false_slap_rate
        actions = np.where(wants, SLAP, PASS)
        # PLAY exists only with expose_play_action: the mask then has room for it
        if action_masks.shape[1] > PLAY:
            actions = np.where(action_masks[:, PLAY] > 0, PLAY, actions)
        return actions.astype(np.int64)
