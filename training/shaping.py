"""Potential-based reward shaping for the self-play trainer (Ng, Harada & Russell, 1999), a recipe's extension.

The potential of what a seat sees is ``coef`` times the observer's own entry of one observation view (entry 0 of
a per-seat view) over the view's upper bound, or, ``relative``, the observer's entry minus the mean of the view's
other entries: a lead over the others (Clabber's team scores, own team first). Each decision is credited ``gamma``
times the potential at the seat's next decision (0 once its game has ended) minus the potential at this one.
Over a game the shaping adds up to the opening potential's negative whatever is played, so it changes no optimal
policy; it only says sooner whether a decision helped: in Slap, which pays only at the end of a game of hundreds
of slap windows, shaped on ``stack_sizes`` every won or burnt card counts at once; in Clabber, a game to 500
points that pays only after several hands, shaped on ``scores`` each hand's points reach its decisions. Training
only: the game's own rewards and tournaments are unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import ObservationLayout


@dataclass(frozen=True)
class Shaping:
    """A recipe's shaping: which observation view gives the potential, and how.

    Args:
        view: the observation view whose observer entry (the first) is the potential.
        coef: the potential's scale.
        relative: the potential is the observer's entry minus the mean of the view's other entries.
    """

    view: str
    coef: float = 1.0
    relative: bool = False

    def check(self, layout: ObservationLayout, where: str) -> None:
        """ValueError if this shaping cannot work on observations of ``layout`` (a game's, named ``where``)."""
        if not math.isfinite(self.coef):
            raise ValueError(f"the shaping coefficient must be a finite number, got {self.coef}")
        sizes = {view.name: view.size for view in layout.views}
        if self.view not in sizes:
            raise ValueError(f"shaping view {self.view!r} is not a view of {where}; choose from {', '.join(sizes)}")
        if self.relative and sizes[self.view] < 2:
            raise ValueError(f"relative shaping compares the observer's entry with the others, but {self.view!r} "
                             "has one entry")


class Potential:
    """A :class:`Shaping` bound to a game's observation layout and the trainer's discount.

    Args:
        shaping: the recipe's shaping.
        layout: the game's observation layout.
        gamma: the trainer's discount per decision of a seat.
    """

    def __init__(self, shaping: Shaping, layout: ObservationLayout, gamma: float):
        shaping.check(layout, "the observation")
        self.shaping = shaping
        self.entries = layout.offsets[shaping.view]  # [start, stop): the observer's own entry first
        self.high = next(view.high for view in layout.views if view.name == shaping.view)
        self.gamma = gamma

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """The potential of observations ``[..., size]``: ``[...]``."""
        start, stop = self.entries
        value = obs[..., start]
        if self.shaping.relative:
            value = value - obs[..., start + 1 : stop].mean(axis=-1)
        return (self.shaping.coef / self.high) * value

    def rewards(self, obs: np.ndarray, reward: np.ndarray, done: np.ndarray, next_step: np.ndarray,
                seat: np.ndarray, bootstrap_potential: np.ndarray) -> np.ndarray:
        """``reward[t]`` plus ``gamma * potential(next decision) - potential(this one)`` along each seat's chain.

        Args:
            obs: the rollout's observations ``[T, N, size]``.
            reward: the rewards credited to each decision ``[T, N]`` (left unchanged).
            done: the game ended before this decision's seat decided again ``[T, N]``.
            next_step: the row of the seat's next decision in the rollout (-1: none) ``[T, N]``.
            seat: the deciding seat ``[T, N]``.
            bootstrap_potential: the potential of what each seat with an open chain sees at the rollout's end
                ``[N, P]``: the next potential of a chain's last decision whose game goes on.

        Returns:
            The shaped rewards ``[T, N]``.
        """
        steps, n = reward.shape
        games = np.arange(n)
        potential = self(obs)
        shaped = reward.copy()
        for t in range(steps):
            has_next = next_step[t] >= 0
            following = np.where(has_next, potential[np.where(has_next, next_step[t], 0), games],
                                 bootstrap_potential[games, seat[t]])
            shaped[t] += self.gamma * following * ~done[t] - potential[t]
        return shaped
