"""Training views of the cardenvs games for single-agent reinforcement-learning libraries.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch); ``import cardenvs`` never imports this package.

* :class:`SingleAgentEnv`: one game as a ``gymnasium.Env`` from one learner seat, opponents from a pool playing
  every other seat; the learner's own observation and reward, ``action_masks()`` for MaskablePPO.
* :class:`LearnerVecEnv`: N such games in lockstep over the batched env, as a stable-baselines3 ``VecEnv``; the
  fast path for training.
* :class:`OpponentPool`: random, rule-based and frozen snapshots of the learner to draw opponents from.

See docs/training.md.
"""

import os

# Idle OpenMP threads (numba's batched kernels and torch share libgomp) must sleep, not spin: a spinning worker
# slows training several times on a small machine. Effective when this is imported before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from cardenvs.training.opponents import OpponentPool, draw_seating
from cardenvs.training.single_agent import SingleAgentEnv
from cardenvs.training.vec_env import LearnerVecEnv

__all__ = ["LearnerVecEnv", "OpponentPool", "SingleAgentEnv", "draw_seating"]
