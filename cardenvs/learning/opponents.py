"""The opponent pool: the agents that fill every seat the learner does not hold.

A pool is a list of :class:`~cardenvs.agents.base.Agent` instances (random, rule-based, frozen snapshots of the
learner).
At the start of every episode each opponent seat gets an agent drawn uniformly from the pool, and the learner's
seat is drawn uniformly too unless it is fixed. Both training views (:class:`~cardenvs.learning.SingleAgentEnv`
and :class:`~cardenvs.learning.LearnerVecEnv`) draw a game's seating with :func:`draw_seating` from a generator
seeded with that game's seed, so the same seed gives the same seating in both.

Snapshots are added with :meth:`OpponentPool.add_snapshot`; only the newest ``max_snapshots`` stay in the pool
(games that already seated an evicted snapshot finish with it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from cardenvs.agents.base import Agent


class OpponentPool:
    """Agents to draw opponents from.

    Args:
        base_agents: agents that always stay in the pool (e.g. random and the game's rule-based agent).
        max_snapshots: how many frozen snapshots of the learner the pool keeps (the oldest leaves first).
    """

    def __init__(self, base_agents: Iterable[Agent], max_snapshots: int = 5):
        self.base_agents = list(base_agents)
        if isinstance(max_snapshots, bool) or not isinstance(max_snapshots, int) or max_snapshots < 0:
            raise ValueError(f"max_snapshots={max_snapshots!r} is not allowed; it must be an integer >= 0")
        self.max_snapshots = max_snapshots
        self.snapshots: list[Agent] = []
        if not self.base_agents:
            raise ValueError("an opponent pool needs at least one base agent (e.g. random)")

    @property
    def agents(self) -> list[Agent]:
        """The agents opponents are drawn from now."""
        return self.base_agents + self.snapshots

    def add_snapshot(self, agent: Agent) -> None:
        """Add a frozen copy of the learner; the oldest snapshot leaves once there are ``max_snapshots``."""
        if self.max_snapshots == 0:
            return
        self.snapshots.append(agent)
        del self.snapshots[: -self.max_snapshots]

    def __len__(self) -> int:
        return len(self.base_agents) + len(self.snapshots)


def as_pool(opponents: OpponentPool | Agent | Sequence[Agent]) -> OpponentPool:
    """An :class:`OpponentPool` from a pool, one agent or a list of agents."""
    if isinstance(opponents, OpponentPool):
        return opponents
    if isinstance(opponents, Agent):
        return OpponentPool([opponents])
    return OpponentPool(opponents)


def reseed_agents(agents: Iterable[Agent], seed: int) -> None:
    """Give every agent that draws from an ``rng`` attribute (a numpy Generator) a generator seeded with ``seed``.

    A seeded ``reset`` of a single-agent view then fixes the whole episode, opponents' random choices included,
    as gymnasium's contract (and its env checker) requires.
    """
    for agent in agents:
        if isinstance(getattr(agent, "rng", None), np.random.Generator):
            agent.rng = np.random.default_rng(seed)


def check_learner_seat(learner_seat: int | None, num_players: int) -> None:
    """Raise ValueError unless ``learner_seat`` is None (random each episode) or a seat of the game."""
    if learner_seat is None:
        return
    if isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer)):
        raise ValueError(f"learner_seat={learner_seat!r} is not allowed; use None or a seat 0..{num_players - 1}")
    if not 0 <= learner_seat < num_players:
        raise ValueError(f"learner_seat={learner_seat} is not allowed; use None or a seat 0..{num_players - 1}")


def draw_seating(
    rng: np.random.Generator, num_players: int, pool: OpponentPool, learner_seat: int | None
) -> tuple[int, list[Agent | None]]:
    """The learner's seat and the agent of every seat (``None`` at the learner's) for one game.

    Args:
        rng: the game's seating generator (seeded with the game's seed for reproducible seatings).
        num_players: seats in the game.
        pool: the agents to draw opponents from.
        learner_seat: the learner's fixed seat, or None to draw it uniformly.
    """
    seat = int(rng.integers(num_players)) if learner_seat is None else int(learner_seat)
    agents = pool.agents
    picks = rng.integers(len(agents), size=num_players)
    return seat, [None if p == seat else agents[int(picks[p])] for p in range(num_players)]
