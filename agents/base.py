"""The agent interface shared by every baseline, tournament and training script."""

from __future__ import annotations

from collections.abc import Sequence

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


def act_on_rows(
    agents: Sequence[Agent],
    seating: np.ndarray,
    observations: np.ndarray,
    action_masks: np.ndarray,
    current_players: np.ndarray,
    out: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Let every agent act once, through :meth:`Agent.act_batch`, on the batch rows where one of its seats is to act.

    Agents act in the order of ``agents``, each on its rows in row order, so agents that draw randomness see the
    same draws whatever the other agents do.

    Args:
        agents: the agents that play.
        seating: which agent plays which seat, as indices into ``agents``: ``[P]`` (the same in every row) or
            ``[N, P]`` (``seating[i, p]`` plays seat ``p`` of row ``i``). A negative entry is a seat none of
            ``agents`` plays (a learner's, say): rows waiting on it are left alone.
        observations: the batched env's ``obs[N, D]``.
        action_masks: the batched env's ``action_mask[N, A]``.
        current_players: the batched env's ``current_player[N]``.
        out: ``[N]`` integer actions, written at the rows an agent acted on; every other entry keeps its value.
        rows: bool ``[N]``: act only on these rows (default: every row).

    Returns:
        ``out``.
    """
    seating = np.asarray(seating)
    if seating.ndim == 1:
        owners = seating[current_players]
    else:
        owners = seating[np.arange(len(current_players)), current_players]
    if rows is not None:
        owners = np.where(rows, owners, -1)
    for index in np.unique(owners):
        if index < 0:
            continue
        mine = np.flatnonzero(owners == index)
        out[mine] = agents[index].act_batch(observations[mine], action_masks[mine])
    return out
