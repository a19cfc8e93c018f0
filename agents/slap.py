"""A rule-based Slap agent: slaps exactly when the face-up cards make an active slap pattern.

It reads only the observation (through the game's named views) and the mask. ``miss_rate`` (chance to pass on a
slappable pile) and ``false_slap_rate`` (chance to slap a pile that is not slappable) make weaker opponents;
both 0 is a perfect slapper. Simultaneous correct slaps are settled by the game's chance, so against another
perfect slapper it wins only its share of the ties.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from cardenvs.core.game import ObservationLayout

_NONE = -1
_NUM_RANKS = 13
_JOKER_RANK = 13
_FIRST_JOKER = 52
_TEN, _JACK, _QUEEN, _KING = 9, 10, 11, 12
_TENS_TARGET = 10
_PASS, _SLAP, _PLAY = 0, 1, 2
# Order of the observation's `slap_rules` view (cardenvs.games.slap.params.SLAP_RULES).
_DOUBLE, _SANDWICH, _TOP_BOTTOM, _TENS, _JOKER, _FOUR_IN_A_ROW, _MARRIAGE = range(7)


def _ranks(one_hots: np.ndarray) -> np.ndarray:
    """Rank ids (A = 0 … K = 12, Joker 13) from card one-hots [..., 55]; −1 for the "none" slot."""
    cards = one_hots.argmax(axis=-1)
    none = cards == one_hots.shape[-1] - 1
    ranks = np.where(cards >= _FIRST_JOKER, _JOKER_RANK, cards // 4)
    return np.where(none, _NONE, ranks)


def _values(ranks: np.ndarray) -> np.ndarray:
    """The Tens rule's values: A = 1, 2–10 at face value, 0 for J, Q, K, Jokers and none."""
    return np.where((ranks >= 0) & (ranks <= _TEN), ranks + 1, 0)


def slappable(views: dict[str, np.ndarray]) -> np.ndarray:
    """For a batch of split observations [N, ...]: does an active slap rule match the face-up cards?

    The same test as the engine's rule:slappable_pile, from the observation alone.
    """
    n = views["face_up_count"].shape[0]
    tops = _ranks(views["top_cards"].reshape(n, 4, -1))
    first = _ranks(views["first_face_up"])
    on = views["slap_rules"] > 0.5
    c1, c2, c3, c4 = tops[:, 0], tops[:, 1], tops[:, 2], tops[:, 3]
    has1, has2, has3, has4 = c1 >= 0, c2 >= 0, c3 >= 0, c4 >= 0
    v1, v2, v3 = _values(c1), _values(c2), _values(c3)
    letter2 = (c2 == _JACK) | (c2 == _QUEEN) | (c2 == _KING)
    up = (c3 - c4) % _NUM_RANKS
    step_ok = ((up == 1) | (up == _NUM_RANKS - 1)) & ((c2 - c3) % _NUM_RANKS == up) & ((c1 - c2) % _NUM_RANKS == up)
    no_joker = (c1 != _JOKER_RANK) & (c2 != _JOKER_RANK) & (c3 != _JOKER_RANK) & (c4 != _JOKER_RANK)
    matches = [
        (_DOUBLE, has2 & (c1 == c2)),  # rule:double
        (_SANDWICH, has3 & (c1 == c3)),  # rule:sandwich
        (_TOP_BOTTOM, has2 & (c1 == first)),  # rule:top_bottom
        (_TENS, (has2 & (v1 > 0) & (v2 > 0) & (v1 + v2 == _TENS_TARGET))  # rule:tens
         | (has3 & letter2 & (v1 > 0) & (v3 > 0) & (v1 + v3 == _TENS_TARGET))),
        (_JOKER, has1 & (c1 == _JOKER_RANK)),  # rule:joker
        (_FOUR_IN_A_ROW, has4 & no_joker & step_ok),  # rule:four_in_a_row
        (_MARRIAGE, has2 & (((c1 == _QUEEN) & (c2 == _KING)) | ((c1 == _KING) & (c2 == _QUEEN)))),  # rule:marriage
    ]
    result = np.zeros(n, bool)
    for rule, hit in matches:
        result |= on[:, rule] & hit
    return result


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
        actions = np.where(wants, _SLAP, _PASS)
        if action_masks.shape[1] > _PLAY:
            actions = np.where(action_masks[:, _PLAY] > 0, _PLAY, actions)
        return actions.astype(np.int64)
