"""Training views of the cardenvs games for single-agent reinforcement-learning libraries.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, torch); ``import cardenvs`` never imports this package.

* :class:`SingleAgentEnv`: one game as a ``gymnasium.Env`` from one learner seat, opponents from a pool playing
  every other seat; the learner's own observation and reward, ``action_masks()`` for MaskablePPO.
* :class:`LearnerVecEnv`: N such games in lockstep over the batched env, as a stable-baselines3 ``VecEnv``; the
  fast path for training.
* :class:`OpponentPool`: random, rule-based and frozen snapshots of the learner to draw opponents from.

See docs/training.md.
"""

# Importing this package imports cardenvs first, which makes idle OpenMP workers sleep (OMP_WAIT_POLICY) before
# torch or numba can load the OpenMP runtime.
from cardenvs.training.opponents import OpponentPool, draw_seating
from cardenvs.training.single_agent import SingleAgentEnv
from cardenvs.training.vec_env import LearnerVecEnv

__all__ = ["LearnerVecEnv", "OpponentPool", "SingleAgentEnv", "draw_seating"]
