"""An auxiliary prediction task for the self-play trainer, a recipe's extension.

A head on the policy's trunk learns to predict one or more views of the game's global state from the seat's
observation: a dense label for a perception task, such as which of Slap's slap rules the pile matches and whether
it matches any, where the reward alone says it only rarely and late. The target of each entry is the view's value
over its upper bound, in [0, 1], and the loss is binary cross-entropy per entry, added to PPO's loss at weight 1.
A rare pattern would be learnt as "never": each entry's non-zero targets weigh its zeros over its non-zeros in
the rollout, up to ``balance``. With ``to_policy`` the policy head also reads the head's predictions (detached:
only the auxiliary loss teaches the head), so that the agent acts on what the head recognises; the saved model
then keeps the head, which playing uses. Training only otherwise: the head needs no global state to play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Auxiliary:
    """A recipe's auxiliary task.

    Args:
        views: the global-state views the head predicts, in this order.
        balance: most weight of a non-zero target (1: unweighted).
        to_policy: the policy head also reads the head's predictions.
    """

    views: tuple[str, ...]
    balance: float = 1.0
    to_policy: bool = False

    def check(self, env_id: str) -> None:
        """ValueError if this task cannot work on ``env_id``'s global state."""
        import cardenvs
        from cardenvs.core.global_state import state_layout

        if not (math.isfinite(self.balance) and self.balance >= 1):
            raise ValueError(f"the auxiliary balance must be 1 or more, got {self.balance}")
        if not self.views:
            raise ValueError("an auxiliary task needs at least one global-state view")
        if len(set(self.views)) < len(self.views):
            raise ValueError(f"the auxiliary views name a view twice: {' '.join(self.views)}")
        game = cardenvs.get_game(env_id)
        names = [view.name for view in state_layout(game, game.make_params()).views]
        for view in self.views:
            if view not in names:
                raise ValueError(f"auxiliary view {view!r} is not a view of {env_id}'s global state; choose from "
                                 f"{', '.join(names)}")


class AuxiliaryTask:
    """An :class:`Auxiliary` bound to a game: the global-state entries it predicts and their scales.

    Args:
        auxiliary: the recipe's task.
        env_id: the game.
        params: the game's parameters (those of the trainer's env).
    """

    def __init__(self, auxiliary: Auxiliary, env_id: str, params: Any):
        import cardenvs
        from cardenvs.agents.selfplay import input_scale
        from cardenvs.core.global_state import state_layout

        auxiliary.check(env_id)
        self.auxiliary = auxiliary
        layout = state_layout(cardenvs.get_game(env_id), params)
        self.index = np.concatenate([np.arange(*layout.offsets[view]) for view in auxiliary.views])
        self.scale = input_scale(layout)[self.index]

    @property
    def size(self) -> int:
        """The head's outputs: the views' entries together."""
        return len(self.index)

    def targets(self, states: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The targets, in [0, 1], of the games ``rows`` from the global states ``[N, S]``: ``[len(rows), size]``."""
        return states[rows[:, None], self.index] * self.scale

    def weights(self, targets: Any) -> Any:
        """Each entry's weight of a non-zero target in the rollout ``targets`` (torch ``[B, size]``)."""
        return positive_weights(targets, self.auxiliary.balance)

    @staticmethod
    def loss(logits: Any, targets: Any, weights: Any) -> Any:
        """Binary cross-entropy of the head's ``logits`` against ``targets``, non-zero targets weighted."""
        import torch as th

        return th.nn.functional.binary_cross_entropy_with_logits(logits, targets, pos_weight=weights)


def positive_weights(target: Any, cap: float) -> Any:
    """Per entry of a target ``[B, K]`` (torch, in [0, 1]): the weight of its non-zero targets in the prediction
    loss, its zeros over its non-zeros in the batch, between 1 and ``cap`` (an entry with no non-zero target counts
    one: its weight then has nothing to weigh).

    Args:
        target: the targets of a rollout.
        cap: the most weight of a non-zero target.
    """
    nonzero = (target > 0).sum(0).to(target.dtype)
    return ((len(target) - nonzero) / nonzero.clamp(min=1)).clamp(1.0, cap)
