"""A warm start from a teacher's play for the self-play trainer, a recipe's extension (kickstarting).

A network trained from scratch plays at random for its first minutes, and in a long game a random policy's
returns say little about which choice helped. A *teacher* that already plays well (by default the game's rule-based
agent) can say it at once: at every learning-seat decision of a rollout the teacher chooses an action from the
seat's own observation, and the network's policy learns that choice. The loss is the negative log-probability of the
teacher's action under the network's masked policy, added to PPO's loss at a weight that starts at ``coef`` and falls
linearly to 0 over the first ``decisions`` learner decisions, after which the run is PPO alone (as in Schmitt et al.,
"Kickstarting deep reinforcement learning", 2018, with the teacher's sampled action in place of its distribution).

PPO learns from every decision all along, with the actions the network itself sampled, so the rollout stays on
policy and the network can outgrow its teacher: the teacher's weight only pulls its policy toward the teacher's
while its own returns are still too noisy to learn from. The teacher reads only the seat's observation, as any
agent that plays from a seat does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the teacher's action stored where no teacher chose (a decision carried over from the previous rollout)
NO_ACTION = -1


@dataclass(frozen=True)
class Kickstart:
    """A recipe's warm start from a teacher.

    Args:
        teacher: the teacher's agent spec; it must act on observations (the rule-based agent, a ``.pt`` model), not
            search.
        coef: the weight of the teacher's loss at the run's start (above 0).
        decisions: learner decisions over which the weight falls linearly to 0 (at least 1).
    """

    teacher: str = "heuristic"
    coef: float = 1.0
    decisions: int = 1_000_000

    def check(self) -> None:
        """ValueError for settings that cannot work."""
        if not (math.isfinite(self.coef) and self.coef > 0):
            raise ValueError(f"the teacher's weight must be above 0, got {self.coef}")
        if self.decisions < 1:
            raise ValueError(f"the teacher teaches over at least 1 decision, got {self.decisions}")

    def weight(self, decisions: int) -> float:
        """The teacher's weight after ``decisions`` learner decisions: ``coef`` at 0, falling linearly to 0."""
        return self.coef * max(0.0, 1.0 - decisions / self.decisions)


def teacher_loss(logits: Any, teacher_action: Any) -> Any:
    """The mean, over the rows with a teacher's action (not :data:`NO_ACTION`), of the negative log-probability of
    ``teacher_action`` ``[B]`` under the network's masked ``logits`` ``[B, A]`` (torch); 0 where no row has one."""
    import torch as th

    taught = teacher_action != NO_ACTION
    if not bool(taught.any()):
        return logits.new_zeros(())
    log_policy = th.log_softmax(logits[taught], dim=1)
    return -log_policy.gather(1, teacher_action[taught, None]).mean()


class Kickstarter:
    """A :class:`Kickstart` bound to a run: the teacher agent and its choices.

    Args:
        kickstart: the recipe's settings (checked here).
        env_id: the game.
        layout: the env's observation layout.
        seed: seed of the teacher's generator (a teacher that samples draws from it).

    Raises:
        ValueError: bad settings, a teacher spec that cannot be made, or a teacher that searches.
    """

    def __init__(self, kickstart: Kickstart, env_id: str, layout: Any, seed: int):
        from cardenvs.agents.registry import make_agent

        kickstart.check()
        self.kickstart = kickstart
        self.agent = make_agent(kickstart.teacher, env_id, layout, seed)
        if self.agent.reads_seat_views:
            raise ValueError(f"a teacher acts on the seat's observation; {kickstart.teacher!r} searches (it reads the "
                             f"seat's whole view), so it cannot teach")

    def weight(self, decisions: int) -> float:
        """The teacher's weight in the loss after ``decisions`` learner decisions."""
        return self.kickstart.weight(decisions)

    def teaching(self, decisions: int) -> bool:
        """Whether the teacher still has weight after ``decisions`` learner decisions."""
        return self.weight(decisions) > 0

    def actions(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The teacher's action ``[B]`` (int64) at each of the seats' observations ``[B, obs]``."""
        return np.asarray(self.agent.act_batch(observations, action_masks), np.int64)
