"""Search-improved training for the self-play trainer, a recipe's extension (expert iteration).

At some of the learning seats' decisions of each rollout, the ``pimc`` search agent searches the position from the
seat's view (its hidden-card resampler, nothing hidden read) and gives each legal action its mean playout return.
Their softmax at ``temperature`` (in units of the game's return) is the position's *search policy*, and the network's
policy learns it: the cross-entropy between the search policy and the network's, at weight ``coef``, is added to
PPO's loss at those decisions. PPO still learns from every decision, with the actions the network itself sampled,
so the rollout stays on-policy.

Where the search's options name :data:`NETWORK` as the ``rollout`` (or the ``value``), its playouts are played (or
valued) by the network being trained, as it was at the start of the current *round*: every ``round_every`` learner
decisions the trainer saves the network to the run directory (:data:`ROUND_MODEL_NAME`) and the search plays out
with that copy from then on. So the network, improved by the search, makes the next round's search stronger.

The targets are kept for the rollout they were made in; a decision carried over to the next rollout (a recipe's
``carry_open_chains``) keeps no target.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: the word that stands, in the search's options, for the network being trained (as of the round's start)
NETWORK = "network"
#: the file, in the run directory, of the network the current round's search plays out with
ROUND_MODEL_NAME = "search_round.pt"
#: the search agent of the targets
SEARCH_KIND = "pimc"


@dataclass(frozen=True)
class SearchTargets:
    """A recipe's search targets.

    Args:
        search: the ``pimc`` options of the search (``name=value,...``; the game's search defaults for the rest),
            where ``rollout=network`` and ``value=network`` name the network being trained.
        positions: learning-seat decisions searched per rollout (fewer where a rollout has fewer).
        temperature: the softmax temperature of the search policy, in units of the game's return (above 0).
        coef: the weight of the search policy's cross-entropy in the loss.
        round_every: learner decisions between two rounds, after which the search plays out with the network as
            it is then (0: one round, with the network of the run's start).
    """

    search: str = f"rollout={NETWORK}"
    positions: int = 64
    temperature: float = 0.1
    coef: float = 1.0
    round_every: int = 0

    def check(self) -> None:
        """ValueError for settings that cannot work."""
        if self.positions < 1:
            raise ValueError(f"search targets need at least 1 position per rollout, got {self.positions}")
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            raise ValueError(f"the search policy's temperature must be above 0, got {self.temperature}")
        if not (math.isfinite(self.coef) and self.coef >= 0):
            raise ValueError(f"the search targets' weight must be 0 or more, got {self.coef}")
        if self.round_every < 0:
            raise ValueError(f"round_every must be 0 or more, got {self.round_every}")

    @property
    def uses_network(self) -> bool:
        """Whether the search plays out or values with the network being trained."""
        return any(option.split("=", 1)[-1] == NETWORK for option in self.search.split(","))


def search_policy(values: np.ndarray, temperature: float) -> np.ndarray:
    """The softmax of each row's action values at ``temperature`` over its legal actions (the non-NaN entries),
    float32 ``[N, A]``, 0 for illegal actions.

    Args:
        values: the search's action values, NaN where illegal (``PIMCAgent.action_values``).
        temperature: the softmax temperature, in units of the values.
    """
    legal = ~np.isnan(values)
    scaled = np.where(legal, values, -np.inf) / temperature
    scaled -= scaled.max(axis=1, keepdims=True)
    weights = np.where(legal, np.exp(scaled), 0.0)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def cross_entropy(logits: Any, target: Any, searched: Any) -> Any:
    """The mean, over the ``searched`` rows, of the cross-entropy of the search policy ``target`` ``[B, A]`` under
    the network's masked ``logits`` ``[B, A]`` (torch); 0 where no row is searched."""
    import torch as th

    if not bool(searched.any()):
        return logits.new_zeros(())
    log_policy = th.log_softmax(logits[searched], dim=1)
    # illegal actions have target 0 and a very negative (finite) log-probability: their product is 0
    return -(target[searched] * log_policy).sum(dim=1).mean()


class SearchTeacher:
    """A :class:`SearchTargets` bound to a run: picks the decisions to search and makes their search policies.

    Args:
        targets: the recipe's settings (checked here).
        env_id: the game.
        layout: the env's observation layout.
        run_dir: the run directory, where each round's network goes (:data:`ROUND_MODEL_NAME`).
        seed: seed of the picks and of the search agent.
    """

    def __init__(self, targets: SearchTargets, env_id: str, layout: Any, run_dir: Path, seed: int):
        from cardenvs.agents.search import UNIFORM_BELIEF, parse_options

        targets.check()
        self.targets = targets
        self.env_id, self.layout = env_id, layout
        self.round_path = Path(run_dir) / ROUND_MODEL_NAME
        # the options are checked now, before any training; the models they name are loaded at each round
        if parse_options(SEARCH_KIND, self.options()).belief != UNIFORM_BELIEF:
            raise ValueError(f"search targets draw from the resampler (belief={UNIFORM_BELIEF}): the trainer does not "
                             f"follow its games for a belief")
        self.rng = np.random.default_rng(seed)
        self.agent: Any = None
        self.round_started = -1  # learner decisions at the current round's start (-1: none yet)

    def options(self) -> str:
        """The search's options, :data:`NETWORK` replaced by the current round's model file."""
        return ",".join(
            f"{name}=ppo:{self.round_path}" if value == NETWORK else f"{name}={value}"
            for name, _, value in (option.partition("=") for option in self.targets.search.split(",") if option))

    def start_round_if_due(self, decisions: int, save_network: Callable[[Path], None]) -> bool:
        """At the run's first rollout, and every ``round_every`` decisions after, begin a round: the network is saved
        with ``save_network(path)`` where the search uses it, and the search agent is made anew. True if a round
        began."""
        every = self.targets.round_every
        due = self.agent is None or (every > 0 and decisions - self.round_started >= every)
        if not due:
            return False
        from cardenvs.agents.search import POLICY_SEED_LIMIT, make_search_agent

        if self.targets.uses_network:
            save_network(self.round_path)
        self.agent = make_search_agent(SEARCH_KIND, self.options(), self.env_id, self.layout,
                                       int(self.rng.integers(0, POLICY_SEED_LIMIT)))
        self.round_started = decisions
        return True

    def pick(self, picked: np.ndarray, steps: int) -> np.ndarray:
        """Which of this step's learning-seat decisions ``picked`` (games) to search: about ``positions / steps``
        of them at random, so that a rollout of ``steps`` steps searches about ``positions``."""
        count = min(len(picked), math.ceil(self.targets.positions / steps))
        return np.sort(self.rng.choice(picked, count, replace=False)) if count else picked[:0]

    def policies(self, views: list) -> np.ndarray:
        """The search policy ``[len(views), A]`` of each seat view."""
        return search_policy(self.agent.action_values(views), self.targets.temperature)
