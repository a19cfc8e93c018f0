"""Learning views of the cardenvs games for single-agent reinforcement-learning libraries.

(The scripts that train agents with these views are in the repository's ``training/`` folder.)

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
import cardenvs  # noqa: F401

#: the install command of the optional dependencies this package needs
TRAIN_EXTRA_HINT = 'pip install "cardenvs[train]"'

try:
    import sb3_contrib  # noqa: F401
    import stable_baselines3  # noqa: F401
    import torch  # noqa: F401
except ImportError as error:
    raise ImportError(
        f"cardenvs.learning needs the 'train' extra (torch, stable-baselines3, sb3-contrib), but "
        f"{error.name or 'one of them'} cannot be imported; install it with: {TRAIN_EXTRA_HINT}",
        name=error.name,
    ) from error

# After the check, so that a missing dependency is reported as the extra to install.
from cardenvs.learning.opponents import OpponentPool, draw_seating  # noqa: E402
from cardenvs.learning.single_agent import SingleAgentEnv  # noqa: E402
from cardenvs.learning.vec_env import LearnerVecEnv  # noqa: E402

__all__ = ["TRAIN_EXTRA_HINT", "LearnerVecEnv", "OpponentPool", "SingleAgentEnv", "draw_seating"]
