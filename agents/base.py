"""The agent interface shared by every baseline, tournament and training script."""

from __future__ import annotations

import numpy as np


class Agent:
    """An agent acts on what its seat observes.

    Subclasses implement :meth:`act`; :meth:`act_batch` defaults to a loop over :meth:`act` and should be
    overridden with a vectorised version where the strategy allows it.
    """

    #: a short name for tables and logs
    name = "agent"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One legal action for ``{"observation": ..., "action_mask": ...}``."""
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """One legal action per row of the batched env's ``(obs[N, D], action_mask[N, A])``."""
        return np.array(
            [self.act({"observation": o, "action_mask": m}) for o, m in zip(observations, action_masks, strict=True)],
            dtype=np.int64,
        )


class RandomAgent(Agent):
    """Picks a uniformly random legal action."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        # Gumbel-free trick: a random score per legal action, argmax picks a uniform legal one.
        scores = self.rng.random(action_masks.shape) * (action_masks > 0)
        return scores.argmax(axis=1).astype(np.int64)
